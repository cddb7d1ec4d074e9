//! The bodies through the preview's timeline: going back puts each body where it was then
//! (a deleted one stays out, an undone one enters at its placement), a knock after going back
//! starts a branch, a save that moves the body files or an undo that resets the water leaves
//! the bodies running.

use egui::{Key, Modifiers};

use spillway_editor::app::Handle;

use crate::bodies::drag_handle;
use crate::preview_bodies::{dam_editor, orbit, play};
use crate::support::Editor;

/// Runs frames until a seek has reached its moment.
fn settle(ed: &mut Editor) {
    for _ in 0..200 {
        if ed.harness.state().preview().seeking().is_none() {
            break;
        }
        ed.frames(1);
    }
}

#[test]
fn going_back_after_a_crate_was_deleted_puts_the_others_back_where_they_were() {
    // The keyframes' bodies were put back by their place in the list: with the first crate
    // deleted, the second took the first's state (and place) and the third the second's.
    let mut ed = dam_editor();
    play(&mut ed, 20.0, 60);
    let time = ed.harness.state().preview().time();
    assert!(time > 12.0, "simulated {time} s");
    ed.harness.state_mut().select_body(Some(0));
    ed.harness.run_steps(1);
    ed.key(Modifiers::NONE, Key::Delete);
    assert_eq!(ed.harness.state().document().level().bodies.len(), 2);
    ed.frames(2);
    ed.harness.state_mut().preview_mut().seek(time / 2.0);
    settle(&mut ed);
    assert!(
        ed.harness.state().preview().seeking().is_none(),
        "the seek arrived"
    );
    let poses = (ed.harness.state().preview().body_poses()).expect("the bodies run");
    let rows: Vec<f32> = poses.iter().map(|p| p.translation[1]).collect();
    println!(
        "the crates left stand at y = {rows:?} after going back to {:.1} s",
        time / 2.0
    );
    assert!(
        (rows[0] - 1.5).abs() < 0.2 && (rows[1] - 2.5).abs() < 0.2,
        "{rows:?}"
    );
}

#[test]
fn a_crate_moved_with_the_gizmo_keeps_its_new_place_when_going_back() {
    // The keyframes' crate was matched by everything but its pose (the rule meant for bodies
    // kept where the water had moved them): going back put the moved crate at its old place.
    let mut ed = dam_editor();
    let timeline = &mut ed.harness.state_mut().preview_mut().timeline;
    (timeline.spacing, timeline.min_gap) = (1.0, std::time::Duration::ZERO);
    play(&mut ed, 20.0, 30);
    let end = ed.harness.state().preview().clock();
    ed.harness.state_mut().select_body(Some(2));
    ed.frames(1);
    drag_handle(&mut ed, Handle::Axis(0), 0.6);
    let moved = ed.harness.state().document().level().bodies[2].translation;
    assert!(moved[0] > 15.9, "the gizmo moved the crate to {moved:?}");
    ed.frames(2);
    ed.harness.state_mut().preview_mut().seek(0.5 * end);
    settle(&mut ed);
    assert!(ed.harness.state().preview().seeking().is_none());
    let poses = (ed.harness.state().preview().body_poses()).expect("the bodies run");
    let x = poses[2].translation[0];
    println!(
        "moved to x = {:.2} m; back at {:.1} s it stands at x = {x:.2} m",
        moved[0],
        0.5 * end
    );
    assert!((x - moved[0]).abs() < 0.3, "x = {x}, moved to {moved:?}");
    assert!((poses[0].translation[0] - 15.5).abs() < 0.2, "{poses:?}");
}

#[test]
fn going_back_past_keep_this_state_puts_a_kept_crate_where_it_was_then() {
    // A crate kept where the water had moved it is the same crate to the keyframes before the
    // keep: going back puts it where it stood then.
    let mut ed = dam_editor();
    let timeline = &mut ed.harness.state_mut().preview_mut().timeline;
    (timeline.spacing, timeline.min_gap) = (1.0, std::time::Duration::ZERO);
    play(&mut ed, 20.0, 30);
    let standing = ed.harness.state().preview().clock();
    let at = ed.harness.state().preview().body_poses().expect("bodies")[0].translation;
    assert!(
        ed.harness
            .state_mut()
            .preview_mut()
            .push_body(0, [40000.0, 0.0, 0.0], at)
    );
    play(&mut ed, 20.0, 15);
    ed.click("Keep this state");
    ed.frames(2);
    let kept = ed.harness.state().document().level().bodies[0].translation;
    assert!(kept[0] > 16.2, "the knock moved the crate to {kept:?}");
    ed.harness.state_mut().preview_mut().seek(0.5 * standing);
    settle(&mut ed);
    assert!(ed.harness.state().preview().seeking().is_none());
    let x = (ed.harness.state().preview().body_poses()).expect("the bodies run")[0].translation[0];
    println!(
        "kept at x = {:.2} m; back at {:.1} s it stands at x = {x:.2} m",
        kept[0],
        0.5 * standing
    );
    assert!((x - 15.5).abs() < 0.2, "x = {x}");
}

#[test]
fn a_knock_after_going_back_starts_a_branch() {
    // The knocked run went unrecorded on the old branch, whose keyframes ahead still held
    // the standing dam.
    let mut ed = dam_editor();
    let timeline = &mut ed.harness.state_mut().preview_mut().timeline;
    (timeline.spacing, timeline.min_gap) = (1.0, std::time::Duration::ZERO);
    orbit(&mut ed, std::f32::consts::FRAC_PI_2 / 0.008);
    play(&mut ed, 20.0, 30);
    let end = ed.harness.state().preview().clock();
    ed.harness.state_mut().preview_mut().seek(0.5 * end);
    settle(&mut ed);
    let top = (ed.harness.state())
        .screen_pos([15.5, 1.5, 1.0])
        .expect("the crate is in view");
    ed.drag(&[top], Modifiers::SHIFT);
    let timeline = &ed.harness.state().preview().timeline;
    assert_eq!(
        (timeline.branches.len(), timeline.current),
        (2, 1),
        "the knock at {:.1} s of {end:.1} s started no branch",
        0.5 * end
    );
}

#[test]
fn a_body_deleted_before_going_back_enters_at_its_placement_when_undone() {
    // Going back with no bodies in the document kept the keyframe's body states waiting: the
    // undone crates took them on entering, the knocked one where it had been knocked to.
    let mut ed = dam_editor();
    let timeline = &mut ed.harness.state_mut().preview_mut().timeline;
    (timeline.spacing, timeline.min_gap) = (1.0, std::time::Duration::ZERO);
    play(&mut ed, 20.0, 15);
    let preview = ed.harness.state_mut().preview_mut();
    // The last crate deleted below, the first to come back.
    assert!(preview.push_body(2, [40000.0, 0.0, 0.0], [15.5, 2.5, 0.5]));
    play(&mut ed, 20.0, 30);
    let poses = (ed.harness.state().preview().body_poses()).expect("the bodies run");
    let knocked = poses[2].translation[0];
    assert!(knocked > 16.2, "the knock moved the crate to x = {knocked}");
    let time = ed.harness.state().preview().clock();
    for _ in 0..3 {
        ed.harness.state_mut().select_body(Some(0));
        ed.harness.run_steps(1);
        ed.key(Modifiers::NONE, Key::Delete);
    }
    assert!(ed.harness.state().document().level().bodies.is_empty());
    ed.frames(2);
    ed.harness.state_mut().preview_mut().seek(0.75 * time);
    settle(&mut ed);
    play(&mut ed, 20.0, 5);
    for _ in 0..3 {
        ed.key(Modifiers::COMMAND, Key::Z);
    }
    ed.frames(2);
    assert_eq!(ed.harness.state().document().level().bodies.len(), 3);
    let poses = (ed.harness.state().preview().body_poses()).expect("the bodies run");
    let x = poses[2].translation[0];
    println!("knocked to x = {knocked:.2} m; undone, it enters at x = {x:.2} m (placed at 15.5)");
    assert!((x - 15.5).abs() < 0.3, "x = {x}");
}

#[test]
fn a_save_as_that_moves_the_body_files_leaves_the_bodies_moving() {
    // The save rewrote the bodies' paths (their files copied into the new folder): the
    // preview took it for an edit, put every body back at its placement and forked a branch.
    let mut ed = dam_editor();
    play(&mut ed, 20.0, 10);
    let preview = ed.harness.state_mut().preview_mut();
    assert!(preview.push_body(2, [40000.0, 0.0, 0.0], [15.5, 2.5, 0.5]));
    play(&mut ed, 20.0, 3);
    let before = (ed.harness.state().preview().body_poses()).expect("the bodies run")[2];
    let events = ed
        .harness
        .state()
        .preview()
        .timeline
        .branch()
        .events
        .clone();
    let other = ed.dir.path().join("other");
    std::fs::create_dir_all(&other).expect("mkdir");
    ed.dialogs.push(other.join("level.ron"));
    ed.key(Modifiers::COMMAND | Modifiers::SHIFT, Key::S);
    assert_eq!(
        ed.harness.state().document().level().bodies[2].gltf,
        "bodies/crate.glb"
    );
    ed.frames(2);
    let after = (ed.harness.state().preview().body_poses()).expect("the bodies run")[2];
    println!(
        "knocked crate at x = {:.2} m before the save, {:.2} m after (placed at 15.5)",
        before.translation[0], after.translation[0]
    );
    assert!(
        (after.translation[0] - before.translation[0]).abs() < 1e-3,
        "{before:?} → {after:?}"
    );
    let timeline = &ed.harness.state().preview().timeline;
    assert_eq!(timeline.branches.len(), 1);
    assert_eq!(timeline.branch().events, events, "the save marked an edit");
    // Going back to a keyframe after the knock puts the crate where it was then.
    let last = timeline.branch().keys.last().expect("keyframes").time();
    ed.harness.state_mut().preview_mut().seek(last);
    settle(&mut ed);
    let back = (ed.harness.state().preview().body_poses()).expect("the bodies run")[2];
    assert!(back.translation[0] > 16.0, "restored at {back:?}");
}

#[test]
fn an_undo_that_resets_the_water_runs_no_frame_without_the_bodies() {
    // The reset inside the edits' hand-over dropped the bodies after they were handed over:
    // the water started and ran a frame without the crates, and their coming back next frame
    // was marked an edit of the new run.
    let mut ed = dam_editor();
    play(&mut ed, 20.0, 20);
    ed.click("Play");
    ed.click("Keep this state");
    ed.frames(2);
    ed.key(Modifiers::COMMAND, Key::Z);
    assert!(
        ed.harness
            .state()
            .preview()
            .body_poses()
            .is_some_and(|p| p.len() == 3),
        "the crates run with the water from its first frame"
    );
    ed.frames(3);
    let events = &ed.harness.state().preview().timeline.branch().events;
    assert!(events.iter().all(|e| e.label != "Edited"), "{events:?}");
}
