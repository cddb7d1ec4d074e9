//! The preview's timeline through the real UI: the water runs and keeps keyframes; a click on
//! the timeline bar scrubs back; "Previous key" lands on a keyframe; a terrain stroke there
//! starts a branch; the water continued on it differs from the old branch and matches a fresh
//! run from the edited state; the old branch is compared with and discarded; "Bake this frame"
//! is one undo step; the Events menu jumps to the moment a gate opened.

use std::time::Duration;

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use spillway::Level;
use spillway::gpu::GpuSimulation;
use spillway::level::{Gate, Shape};
use spillway_render::WaterOverlay;

use crate::support::{Editor, editor_with, line, river};

/// Starts the editor on `level` with the water at 12× real time (ten 0.02 s steps a 1/60 s
/// frame) and keyframes every half second (every thirty steps) whatever the wall clock.
fn editor(level: &Level) -> Editor {
    let mut ed = editor_with(level);
    let preview = ed.harness.state_mut().preview_mut();
    preview.speed = 12.0;
    preview.timeline.spacing = 0.5;
    preview.timeline.min_gap = Duration::ZERO;
    ed
}

/// Runs frames until a seek has reached its moment.
fn settle(ed: &mut Editor) {
    for _ in 0..200 {
        if ed.harness.state().preview().seeking().is_none() {
            ed.frames(1);
            return;
        }
        ed.frames(1);
    }
    panic!("the seek never arrived");
}

fn clock(ed: &Editor) -> f64 {
    ed.harness.state().preview().clock()
}

fn max_difference(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn scrub_back_edit_and_continue_make_a_branch_that_matches_a_fresh_run() {
    let authored = river();
    let mut ed = editor(&authored);
    ed.click("Play");
    ed.frames(27);
    ed.click("Pause");
    let end = clock(&ed);
    assert!(end > 5.0, "{end}");
    let timeline = &ed.harness.state().preview().timeline;
    let keys: Vec<f64> = timeline.branch().keys.iter().map(|k| k.time()).collect();
    assert!(keys.len() >= 10, "{keys:?}");
    assert!(timeline.bytes() > 0 && timeline.bytes() < timeline.budget);

    // Scrub: a click on the bar at 40% of its span goes to that moment.
    let span = timeline.span();
    let bar = ed.harness.get_by_label("Timeline bar").rect();
    let at = egui::pos2(bar.min.x + 0.4 * bar.width(), bar.center().y);
    ed.click_screen(at);
    settle(&mut ed);
    let wanted = 0.4 * span;
    assert!(
        (clock(&ed) - wanted).abs() < 0.05,
        "scrubbed to {} for {wanted}",
        clock(&ed)
    );

    // Back to a keyframe; a stroke of the Raise brush across the river there.
    ed.click("Previous key");
    settle(&mut ed);
    let t = clock(&ed);
    assert!(keys.iter().any(|k| (k - t).abs() < 1e-9), "{t} in {keys:?}");
    ed.key(Modifiers::NONE, Key::Num1);
    let path = line(ed.screen(150.0, 1.0), ed.screen(150.0, 19.0), 10);
    ed.drag(&path, Modifiers::NONE);
    let edited = ed.harness.state().document().level().clone();
    assert!(max_difference(&edited.terrain.data, &authored.terrain.data) > 0.05);
    let timeline = &ed.harness.state().preview().timeline;
    assert_eq!((timeline.branches.len(), timeline.current), (2, 1));
    assert!(
        timeline.branches[0].keys.last().unwrap().time() >= end - 0.6,
        "the old future is kept"
    );
    assert_eq!(clock(&ed), t, "editing moves no time");

    // Continue on the new branch.
    ed.click("Play");
    ed.frames(3);
    ed.click("Pause");
    // Back to the branch's last keyframe (one every thirty steps, on the old branch's too).
    ed.click("Previous key");
    settle(&mut ed);
    let tau = clock(&ed);
    let steps = ((tau - t) / 0.02).round() as usize;
    assert!(steps >= 30, "{steps} steps from {t} to {tau}");
    let continued = ed.harness.state().preview().read_depth().expect("depth");

    // The old branch's water at that moment (its keyframe there) differs...
    let timeline = &ed.harness.state().preview().timeline;
    let old = timeline.branches[0]
        .key_at(tau + 1e-6)
        .expect("old keyframe");
    assert!((old.time() - tau).abs() < 1e-6, "{} vs {tau}", old.time());
    let old_depth = old.snapshot.depth().unwrap();
    let changed = max_difference(&continued, &old_depth);
    assert!(changed > 0.01, "the dam changes the water: {changed} m");

    // ...and a fresh run from the edited state at t gives the continued water.
    let at_t = timeline.branches[0].key_at(t).expect("keyframe at t");
    assert_eq!(at_t.time(), t);
    let start = at_t.snapshot.restore(&edited).unwrap();
    let mut fresh = GpuSimulation::headless(&start).expect("GPU");
    fresh.step_n(steps, 0.02).unwrap();
    let fresh_depth = fresh.read_depth().unwrap();
    let mismatch = max_difference(&continued, &fresh_depth);
    println!(
        "branch at {t:.2} s, {steps} steps on: differs from the old branch by up to {changed:.4} m, \
         from a fresh run by {mismatch:.2e} m"
    );
    assert!(mismatch < 1e-4, "{mismatch} m");

    // Compare with the old branch: the Change overlay shows the difference.
    ed.click("Branches (2)");
    ed.click("Compare");
    assert_eq!(ed.harness.state().preview().timeline.compare, Some(0));
    assert_eq!(ed.harness.state().water_overlay(), WaterOverlay::Difference);
    ed.harness.run_steps(2);
    // Its key names what it compares with (it said "the authored water").
    let key = ed.harness.state().water_key().expect("a key");
    assert!(key.starts_with("Change from Run at "), "{key}");
    ed.harness
        .render()
        .unwrap()
        .save("/tmp/timeline.png")
        .unwrap();
    ed.click("Branches (2)");
    ed.harness
        .render()
        .unwrap()
        .save("/tmp/timeline_menu.png")
        .unwrap();
    ed.click("Discard");
    let timeline = &ed.harness.state().preview().timeline;
    assert_eq!((timeline.branches.len(), timeline.compare), (1, None));

    // Bake this frame: the water shown becomes the level's water, one undo step.
    ed.click("Bake this frame");
    let baked = ed.harness.state().document().level().water.data.clone();
    assert!(max_difference(&baked, &continued) < 1e-6);
    let timeline = &ed.harness.state().preview().timeline;
    assert_eq!(
        timeline.branches.len(),
        1,
        "keeping the frame is no edit of the run"
    );
    // The run and its keyframes stay (the state change reset the preview, dropping them).
    assert!(
        ed.harness.state().preview().is_live(),
        "the water still runs"
    );
    assert!(
        timeline.branches[0].key_at(t).is_some(),
        "the keyframe at {t} s is kept"
    );
    ed.key(Modifiers::COMMAND, Key::Z);
    let undone = &ed.harness.state().document().level().water.data;
    assert_eq!(undone, &edited.water.data);
}

#[test]
fn the_events_menu_jumps_to_the_moment_a_gate_opened() {
    let mut level = river();
    level.gates.push(Gate {
        name: "sluice".into(),
        shape: Shape::Box {
            x0: 120.0,
            y0: 0.0,
            x1: 124.0,
            y1: 20.0,
        },
        crest: 5.0,
        open_at: Some(1.0),
    });
    let mut ed = editor(&level);
    ed.click("Play");
    ed.frames(20);
    ed.click("Pause");
    assert!(clock(&ed) > 3.0);
    ed.click_contains("Events (");
    ed.click_contains("Gate sluice opened");
    settle(&mut ed);
    let t = clock(&ed);
    assert!((t - 1.0).abs() <= 0.02 + 1e-9, "went to {t}");
    // It opens at the first step at or after its time (the clock sums f32 steps).
    ed.key(Modifiers::NONE, Key::Period);
    ed.key(Modifiers::NONE, Key::Period);
    let gates = ed.harness.state().preview().gates();
    assert!(gates.iter().all(|g| g.open), "{gates:?}");
}

#[test]
fn the_bar_of_a_level_baked_at_a_later_time_spans_its_own_run() {
    // The river baked at 40 s, as `spillway bake` leaves a level.
    let mut sim = spillway::sim::Simulation::new(&river()).unwrap();
    sim.advance(40.0).unwrap();
    let baked = sim.bake_into(&river());
    let start = baked.flow.as_ref().unwrap().time;
    assert!((start - 40.0).abs() < 0.05, "{start}");
    let mut ed = editor(&baked);
    ed.click("Play");
    ed.frames(27);
    ed.click("Pause");
    let timeline = &ed.harness.state().preview().timeline;
    let (origin, span) = (timeline.origin(), timeline.span());
    assert_eq!(origin, start);
    assert!(span > start + 5.0, "{span}");

    // A click at 40% of the bar goes to 40% of the run, not to 40% of 0 s..end (before 40 s).
    let bar = ed.harness.get_by_label("Timeline bar").rect();
    ed.click_screen(egui::pos2(bar.min.x + 0.4 * bar.width(), bar.center().y));
    settle(&mut ed);
    let wanted = start + 0.4 * (span - start);
    assert!(
        (clock(&ed) - wanted).abs() < 0.05,
        "scrubbed to {} for {wanted}",
        clock(&ed)
    );
    ed.click_contains("Branches (");
    let run = format!("Run: {start:.1} s to");
    assert!(
        ed.harness.query_by_label_contains(&run).is_some(),
        "the Branches menu names the run from {start:.1} s"
    );
}

#[test]
fn key_buttons_are_enabled_only_where_there_is_a_keyframe_to_go_to() {
    // With recording off they were enabled and did nothing; an event click paused the water.
    use egui_kittest::kittest::NodeT;
    let enabled = |ed: &Editor, label: &str| {
        !ed.harness
            .get_by_label(label)
            .accesskit_node()
            .is_disabled()
    };
    let mut ed = editor(&river());
    ed.harness.state_mut().preview_mut().timeline.recording = false;
    ed.click("Play");
    ed.frames(10);
    ed.click("Pause");
    assert!(!enabled(&ed, "Previous key") && !enabled(&ed, "Next key"));
    let mut ed = editor(&river());
    ed.click("Play");
    ed.frames(10);
    ed.click("Pause");
    assert!(enabled(&ed, "Previous key"), "keyframes before this moment");
    assert!(!enabled(&ed, "Next key"), "none after the end of the run");
}

#[test]
fn going_back_across_a_switch_of_solver_starts_from_the_keyframe_at_its_time() {
    // Keyframes of the pipes, then the shallow-water solver switched on while the water runs:
    // going back to a pipes keyframe started the water at 0 s (a flow state of the other
    // solver is not taken) and ran it on from the keyframe for the whole time to its moment.
    let mut ed = editor(&river());
    ed.click("Play");
    ed.frames(12);
    ed.click("Shallow water");
    ed.frames(6);
    ed.click("Pause");
    let timeline = &ed.harness.state().preview().timeline;
    let key = (timeline.branch().keys.iter())
        .find(|k| k.time() > 0.5)
        .expect("a keyframe of the pipes")
        .clone();
    let t = key.time();
    ed.harness.state_mut().preview_mut().seek(t);
    settle(&mut ed);
    assert!((clock(&ed) - t).abs() < 1e-6, "{} for {t}", clock(&ed));
    let depth = ed.harness.state().preview().read_depth().expect("live");
    let kept = key.snapshot.depth().expect("depths");
    assert!(
        max_difference(&depth, &kept) < 1e-6,
        "the keyframe's water at its moment: {}",
        max_difference(&depth, &kept)
    );
}

#[test]
fn continuing_another_branch_plots_none_of_the_branch_left() {
    // Continue on the first run after playing a branch: the plots kept the branch's samples
    // between the fork and the keyframe restored, joined to the first run's after it.
    let mut ed = editor(&river());
    ed.click("Play");
    ed.frames(27);
    ed.click("Pause");
    let end = clock(&ed);
    ed.harness.state_mut().preview_mut().seek(0.3 * end);
    settle(&mut ed);
    ed.key(Modifiers::NONE, Key::Num1);
    let path = line(ed.screen(150.0, 1.0), ed.screen(150.0, 19.0), 10);
    ed.drag(&path, Modifiers::NONE);
    let fork = clock(&ed);
    assert_eq!(ed.harness.state().preview().timeline.current, 1);
    ed.click("Play");
    ed.frames(10);
    ed.click("Pause");
    let there = clock(&ed);
    assert!(there < end, "{there} before the first run's end {end}");
    assert!(ed.harness.state_mut().preview_mut().switch_branch(0));
    settle(&mut ed);
    let preview = ed.harness.state().preview();
    let restored = preview
        .timeline
        .branch()
        .key_at(there)
        .expect("a key")
        .time();
    assert!(restored > fork + 0.1, "{restored} after the fork at {fork}");
    let stale: Vec<f64> = (preview.history.iter())
        .map(|s| s.time)
        .filter(|&t| t > fork + 1e-6 && t < restored - 1e-6)
        .collect();
    assert!(stale.is_empty(), "the branch's samples {stale:?} stayed");
}

#[test]
fn going_back_on_the_cpu_keeps_a_wall_raised_where_the_bed_does_not_move() {
    // The CPU's keyframes held the whole ground of a level whose bed moves: going back put
    // the ground of every cell back as it was then, and a wall raised since where the bed
    // does not move (outside the sediment's box) was gone from the water, not the viewport.
    let mut level = river();
    level.params.sediment = Some(spillway::level::Sediment {
        region: Some(spillway::level::Shape::Box {
            x0: 0.0,
            y0: 0.0,
            x1: 100.0,
            y1: 20.0,
        }),
        ..spillway_editor::erode::Material::Sand.sediment()
    });
    let mut ed = editor(&level);
    ed.click("CPU solver");
    ed.click("Play");
    ed.frames(27);
    ed.click("Pause");
    let end = clock(&ed);
    ed.key(Modifiers::NONE, Key::Num1);
    let path = line(ed.screen(150.0, 1.0), ed.screen(150.0, 19.0), 10);
    ed.drag(&path, Modifiers::NONE);
    let authored = ed.harness.state().document().level().terrain.clone();
    assert!(
        max_difference(&authored.data, &level.terrain.data) > 0.05,
        "a wall"
    );
    ed.harness.state_mut().preview_mut().seek(0.5 * end);
    settle(&mut ed);
    let running = ed
        .harness
        .state()
        .preview()
        .read_terrain()
        .expect("the water runs");
    let outside = |k: &usize| (k % authored.nx) as f32 * 2.0 >= 110.0;
    let apart = (0..running.len())
        .filter(outside)
        .map(|k| (running[k] - authored.data[k]).abs())
        .fold(0.0f32, f32::max);
    assert!(
        apart < 1e-6,
        "the running ground differs by {apart} m outside the box"
    );
}

#[test]
fn switching_solver_on_the_cpu_keeps_the_clock() {
    // On the CPU the switch restarted the water from a state of the other solver, dropped
    // whole: the clock went back to 0 s and the hydrographs and gates started over.
    let mut ed = editor(&river());
    ed.click("CPU solver");
    ed.click("Play");
    ed.frames(12);
    let before = clock(&ed);
    ed.click("Shallow water");
    ed.frames(2);
    ed.click("Pause");
    println!(
        "clock {before:.2} s before the switch, {:.2} s after",
        clock(&ed)
    );
    assert!(
        before > 0.5 && clock(&ed) >= before,
        "{before} → {}",
        clock(&ed)
    );
}

#[test]
fn renaming_a_source_is_no_edit_of_the_run() {
    // A rename after going back forked a branch marked "Edited" (and on the CPU restarted
    // the water), though the water was the same.
    let mut level = river();
    level.sources.push(spillway::level::Source {
        name: "Spring".into(),
        shape: Shape::Point { x: 20.0, y: 20.0 },
        kind: spillway::level::SourceKind::Rate { m3_per_s: 1.0 },
        enabled: true,
    });
    let mut ed = editor(&level);
    ed.click("Play");
    ed.frames(12);
    ed.click("Pause");
    let end = clock(&ed);
    ed.harness.state_mut().preview_mut().seek(0.5 * end);
    settle(&mut ed);
    ed.key(Modifiers::NONE, Key::I);
    ed.click_at(ed.screen(20.0, 20.0));
    ed.retype("Spring", "Well");
    assert_eq!(
        ed.harness.state().document().level().sources[0].name,
        "Well"
    );
    let branches = ed.harness.state().preview().timeline.branches.len();
    assert_eq!(branches, 1, "a rename forked a branch");
}

#[test]
fn undoing_a_dab_made_later_in_the_run_leaves_the_restored_water_alone() {
    // After going back before a dab of the water brush, its undo took the dab's water out of
    // water that never held it (and a redo put it back): the restored river lost depth.
    let mut ed = editor(&river());
    ed.click("Play");
    ed.frames(12);
    ed.click("Pause");
    let end = clock(&ed);
    ed.key(Modifiers::NONE, Key::P);
    ed.harness.state_mut().brush_mut().radius = 4.0;
    let path = line(ed.screen(100.0, 8.0), ed.screen(110.0, 12.0), 6);
    ed.drag(&path, Modifiers::NONE);
    let dabbed = ed.harness.state().preview().read_depth().expect("depth");
    ed.click("Play");
    ed.frames(3);
    ed.click("Pause");
    ed.harness.state_mut().preview_mut().seek(0.5 * end);
    settle(&mut ed);
    let restored = ed.harness.state().preview().read_depth().expect("depth");
    ed.key(Modifiers::COMMAND, Key::Z);
    ed.frames(1);
    let undone = ed.harness.state().preview().read_depth().expect("depth");
    let taken = max_difference(&restored, &undone);
    ed.key(Modifiers::COMMAND, Key::Y);
    ed.frames(1);
    let redone = ed.harness.state().preview().read_depth().expect("depth");
    let given = max_difference(&restored, &redone);
    println!(
        "dab of up to {:.3} m at {end:.2} s; at {:.2} s its undo changes the water by {taken:.2e} m, \
         its redo by {given:.3} m",
        max_difference(&dabbed, &restored),
        clock(&ed)
    );
    assert!(
        taken < 1e-6,
        "the undo took {taken} m from the restored water"
    );
    assert!(given > 0.02, "the redo is a dab now: {given} m");
    let timeline = &ed.harness.state().preview().timeline;
    assert_eq!(timeline.branches.len(), 2, "only the redo forks a branch");
}
