//! Tests of the timeline's keyframes, branches and budget.

use super::*;
use spillway::Level;

fn key(time: f64, fill: f32) -> Keyframe {
    let mut level = Level::flat(64, 64, 1.0, 0.0);
    // Varied values so the grid does not compress to nothing.
    for (k, d) in level.water.data.iter_mut().enumerate() {
        *d = fill + (k as f32 * 0.618).fract();
    }
    level.flow = Some(spillway::level::FlowState {
        time,
        flow_x: vec![0.0; 65 * 64],
        flow_y: vec![0.0; 64 * 65],
        ..Default::default()
    });
    Keyframe {
        snapshot: Snapshot::of(&level),
        bodies: Vec::new(),
        authored: None,
    }
}

#[test]
fn an_edit_with_a_future_forks_and_keeps_the_old_branch() {
    let mut t = Timeline::default();
    for i in 0..5 {
        t.push(key(i as f64 * 5.0, 1.0));
    }
    assert!(!t.edited(20.0), "at the edge of the run: no branch");
    assert!(t.has_future(7.0));
    assert!(t.edited(7.0));
    assert_eq!((t.branches.len(), t.current), (2, 1));
    let times: Vec<f64> = t.branch().keys.iter().map(|k| k.time()).collect();
    assert_eq!(times, [0.0, 5.0]);
    assert!(t.due(7.0), "a keyframe with the edit is wanted at once");
    assert_eq!(t.branches[0].keys.len(), 5, "the old future is kept");
    assert_eq!(t.branch().key_at(9.0).unwrap().time(), 5.0);
    // Shared keyframes count once.
    let one = t.branches[0].keys[0].bytes();
    assert_eq!(t.bytes(), 5 * one);
    assert!(t.discard(0));
    assert_eq!((t.branches.len(), t.current), (1, 0));
    assert_eq!(t.bytes(), 2 * one);
}

#[test]
fn a_branch_keeps_the_start_of_the_run_it_left() {
    // A level baked at 40 s, run to 60 s, edited back at 47 s, the first run discarded:
    // the bar still starts at 40 s, where the branch's shared keyframes begin.
    let mut t = Timeline::default();
    t.starts_at(40.0);
    for i in 0..5 {
        t.push(key(40.0 + i as f64 * 5.0, 1.0));
    }
    assert_eq!(t.origin(), 40.0);
    assert!(t.edited(47.0));
    assert_eq!(t.branch().start, 40.0);
    assert_eq!(t.branch().forked_at, Some(47.0));
    assert!(t.discard(0));
    assert_eq!(t.origin(), 40.0);
    assert_eq!(t.branch().keys[0].time(), 40.0);
}

#[test]
fn keyframes_over_the_budget_thin_and_the_spacing_doubles() {
    let mut t = Timeline::default();
    let one = key(0.0, 1.0).bytes();
    t.budget = 10 * one + one / 2;
    for i in 0..30 {
        let time = i as f64 * 5.0;
        t.last_taken = None;
        if t.due(time) {
            t.push(key(time, 1.0));
        }
    }
    assert!(t.bytes() <= t.budget, "{} > {}", t.bytes(), t.budget);
    assert!(t.spacing_in_force() >= 20.0, "{}", t.spacing_in_force());
    let keys = &t.branch().keys;
    assert_eq!(keys[0].time(), 0.0, "the start is always kept");
    assert!(keys.last().unwrap().time() >= 120.0, "the run is covered");
}

#[test]
fn a_keyframe_on_its_way_joins_its_branch_after_another_is_discarded() {
    let mut t = Timeline::default();
    for i in 0..5 {
        t.push(key(i as f64 * 5.0, 1.0));
    }
    assert!(t.edited(7.0));
    assert!(t.due(7.0));
    t.begin(|| Some(key(7.0, 2.0)));
    assert!(t.discard(0));
    t.collect(true);
    let times: Vec<f64> = t.branch().keys.iter().map(|k| k.time()).collect();
    assert_eq!(times, [0.0, 5.0, 7.0], "the fork's keyframe is kept");
    // One of the branch discarded is dropped.
    assert!(t.edited(6.0));
    t.begin(|| Some(key(6.0, 3.0)));
    assert!(t.switch(0));
    assert!(t.discard(1));
    t.collect(true);
    let times: Vec<f64> = t.branch().keys.iter().map(|k| k.time()).collect();
    assert_eq!(times, [0.0, 5.0, 7.0]);
}

#[test]
fn a_lowered_budget_thins_at_once() {
    let mut t = Timeline::default();
    let one = key(0.0, 1.0).bytes();
    for i in 0..12 {
        t.push(key(i as f64 * 5.0, 1.0));
    }
    t.set_budget(4 * one);
    assert!(t.bytes() <= 4 * one, "{} > {}", t.bytes(), 4 * one);
    assert_eq!(t.branch().keys[0].time(), 0.0);
}
