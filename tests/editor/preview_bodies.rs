//! Bodies in the live preview, with real input: a row of heavy crates dams a channel while the
//! water runs on the GPU, and deleting them during the preview (select, Delete) releases the
//! stored water downstream; the document keeps the edit on its undo stack and the bodies' poses
//! shown come from the physics, not the document.

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use spillway::level::{Body, Boundary, BoundaryKind, Coupling, Edge};
use spillway::{Grid, Level};

use crate::support::{Editor, editor_in, save_level};

/// A dry flat channel 30 m × 3 m of 0.5 m cells fed with 0.4 m³/s at the west edge, open at
/// the east edge, with three 2500 kg/m³ crates across it at x = 15.5 m.
fn dammed_channel() -> Level {
    let (nx, ny) = (60, 6);
    let mut level = Level::flat(nx, ny, 0.5, 0.0);
    level.name = "dammed channel".into();
    level.water = Grid::filled(nx, ny, 0.0);
    // The scene's timings were set with the linear friction of format 2 (the default then):
    // these tests are about the bodies, so they keep it.
    level.params.friction = spillway::level::Friction::Linear { per_second: 0.02 };
    level.boundaries = vec![
        Boundary {
            edge: Edge::West,
            start: 0,
            end: ny as u32,
            kind: BoundaryKind::Inflow { m3_per_s: 0.4 },
        },
        Boundary {
            edge: Edge::East,
            start: 0,
            end: ny as u32,
            kind: BoundaryKind::Open,
        },
    ];
    level.bodies = (0..3)
        .map(|k| Body {
            name: format!("Crate {}", k + 1),
            gltf: "crate.glb".into(),
            translation: [15.5, 0.5 + k as f32, 0.5],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            density: 2500.0,
            dynamic: true,
            coupling: Coupling::Auto,
            collider: Default::default(),
        })
        .collect();
    level
}

/// Water volume (m³) beyond x = 18 m, 2.5 m below the dam.
fn downstream(ed: &mut Editor) -> f64 {
    let depth = ed
        .harness
        .state_mut()
        .preview_mut()
        .read_depth()
        .expect("the preview runs");
    let nx = 60;
    depth
        .iter()
        .enumerate()
        .filter(|(k, _)| k % nx >= 36)
        .map(|(_, d)| *d as f64 * 0.25)
        .sum()
}

pub(crate) fn play(ed: &mut Editor, speed: f32, frames: usize) {
    ed.harness.state_mut().preview_mut().speed = speed;
    ed.click("Play");
    ed.frames(frames);
    ed.click("Pause");
}

/// The editor on the dammed channel, saved with its crate file, with the Body tool.
pub(crate) fn dam_editor() -> Editor {
    let mut ed = crate::support::editor_with_crate_file(&dammed_channel());
    ed.key(Modifiers::NONE, Key::K);
    // A coupled step takes milliseconds on lavapipe: let each frame run all the steps its
    // speed asks for (up to the step cap), as a hardware GPU does within the frame budget.
    ed.harness.state_mut().preview_mut().step_budget = std::time::Duration::from_secs(1);
    ed
}

#[test]
fn deleting_the_dam_crates_during_preview_floods_the_channel() {
    let mut ed = dam_editor();

    // 40 s of water behind the dam (20× speed, 120 frames).
    play(&mut ed, 20.0, 120);
    let time = ed.harness.state().preview().time();
    let poses = ed
        .harness
        .state()
        .preview()
        .body_poses()
        .expect("the bodies run with the water");
    assert_eq!(poses.len(), 3);
    let held = downstream(&mut ed);
    println!(
        "{time:.1} s: {held:.4} m³ below the dam; crates at {:?}",
        poses.iter().map(|p| p.translation).collect::<Vec<_>>()
    );
    assert!(time > 30.0, "simulated {time} s");
    for p in &poses {
        assert!(
            (p.translation[0] - 15.5).abs() < 0.2,
            "the crates stand: {p:?}"
        );
    }
    assert!(
        held < 0.2,
        "the crates hold the water back: {held} m³ downstream"
    );

    // Delete the three crates while the water runs.
    for _ in 0..3 {
        ed.harness.state_mut().select_body(Some(0));
        ed.harness.run_steps(1);
        ed.key(Modifiers::NONE, Key::Delete);
    }
    assert!(ed.harness.state().document().level().bodies.is_empty());
    play(&mut ed, 20.0, 45);
    let flooded = downstream(&mut ed);
    println!("after deleting the dam: {flooded:.3} m³ below it");
    assert!(
        flooded > held + 2.0,
        "the stored water floods down: {flooded} m³ vs {held} m³"
    );
    // The deletions are edits of the document like any other.
    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(ed.harness.state().document().level().bodies.len(), 1);
}

#[test]
fn shift_click_knocks_a_crate_out_of_the_dam_during_preview() {
    let mut ed = dam_editor();
    let authored = ed.harness.state().document().level().bodies.clone();
    // Orbit (middle drag) to look east, down the channel: a knock pushes along the view.
    orbit(&mut ed, std::f32::consts::FRAC_PI_2 / 0.008);

    // 40 s behind the dam, then Shift+click the top of the middle crate while the water runs.
    ed.harness.state_mut().preview_mut().speed = 20.0;
    ed.click("Play");
    ed.frames(120);
    let held = downstream(&mut ed);
    let top = ed
        .harness
        .state()
        .screen_pos([15.5, 1.5, 1.0])
        .expect("the crate is in view");
    ed.drag(&[top], Modifiers::SHIFT);
    ed.frames(90);
    ed.click("Pause");

    let poses = ed
        .harness
        .state()
        .preview()
        .body_poses()
        .expect("the bodies run with the water");
    let p = poses[1].translation;
    let moved = p[0] - 15.5;
    let flooded = downstream(&mut ed);
    println!(
        "knocked crate at {p:?} ({moved:.2} m downstream of its place); downstream {held:.4} → {flooded:.3} m³"
    );
    assert!(
        moved > 0.8,
        "the knocked crate moved only {moved} m downstream (it is 1 m wide)"
    );
    assert!(
        held < 0.05 && flooded > held + 0.2,
        "water runs through the gap: {held} → {flooded} m³"
    );
    // Knocking is a preview event: the document keeps the authored placement.
    assert_eq!(ed.harness.state().document().level().bodies, authored);
    // A click on the crate where it is drawn selects it (it placed a new crate there).
    let drawn = (ed.harness.state())
        .screen_pos([p[0], p[1], p[2] + 0.5])
        .expect("in view");
    ed.drag(&[drawn], Modifiers::NONE);
    assert_eq!(ed.harness.state().document().level().bodies, authored);
    assert_eq!(ed.harness.state().selected_body(), Some(1));
}

/// Drags with the middle button from the viewport's centre `dx` points to the right (orbits the
/// camera by `dx` × 0.008 rad of yaw).
pub(crate) fn orbit(ed: &mut Editor, dx: f32) {
    use egui::{Event, PointerButton};
    let start = ed.at(0.3, 0.5);
    let h = &mut ed.harness;
    h.event(Event::PointerMoved(start));
    h.step();
    let button = |pos, pressed| Event::PointerButton {
        pos,
        button: PointerButton::Middle,
        pressed,
        modifiers: Modifiers::NONE,
    };
    h.event(button(start, true));
    h.step();
    let mut end = start;
    for k in 1..=8 {
        end = start + egui::vec2(dx * k as f32 / 8.0, 0.0);
        h.event(Event::PointerMoved(end));
        h.step();
    }
    h.event(button(end, false));
    h.run_steps(2);
}

#[test]
fn fast_forward_steps_the_bodies_more_coarsely_unless_the_designer_turns_it_off() {
    use egui_kittest::kittest::Queryable;
    let mut ed = dam_editor();
    // Frames with room for one coupled step each (hundreds of bodies, or a slow machine): at
    // 20× the water would fall far behind the clock.
    ed.harness.state_mut().preview_mut().step_budget = std::time::Duration::ZERO;
    ed.harness.state_mut().preview_mut().speed = 20.0;
    ed.click("Play");
    ed.frames(20);
    let dt = ed.harness.state().document().level().params.dt;
    let (stride, steps) = {
        let p = ed.harness.state().preview();
        (p.body_stride.steps, p.last_steps)
    };
    let most = ((0.1 / dt).floor() as usize).max(1);
    println!("dt {dt} s: {steps} water steps in one body step of {stride} (at most {most})");
    assert!(most > 1, "the scene's steps leave room to stride: dt {dt}");
    assert_eq!(stride, most, "the stride grew to keep up");
    assert_eq!(steps, stride, "one body step ran the stride's water steps");
    ed.harness.get_by_label_contains("bodies: 1 step per");
    // Turned off: every water step is coupled again, and fast-forward is held back.
    (ed.harness)
        .get_by_role_and_label(egui::accesskit::Role::Button, "Water")
        .click();
    ed.harness.run_steps(3);
    ed.click("Coarser body steps at fast-forward");
    ed.frames(5);
    let p = ed.harness.state().preview();
    assert!(!p.body_stride.allowed);
    assert_eq!((p.body_stride.steps, p.last_steps), (1, 1));
    ed.harness.get_by_label_contains("held back: bodies move");
    ed.click("Pause");
    // The crates held the river back throughout.
    let held = downstream(&mut ed);
    println!("{held:.4} m³ below the dam");
    assert!(
        held < 0.2,
        "the crates hold the water back: {held} m³ downstream"
    );
}

#[test]
fn a_frame_the_bodies_cut_short_runs_its_missing_water_steps_in_the_next() {
    let mut ed = dam_editor();
    ed.harness.state_mut().preview_mut().speed = 20.0;
    ed.click("Play");
    ed.frames(3);
    // A frame with time for every step: what the speed asks a frame.
    let asked = ed.harness.state().preview().last_steps;
    // Frames with room for one coupled step each (a slow rapier step): they fall short.
    ed.harness.state_mut().preview_mut().step_budget = std::time::Duration::ZERO;
    ed.frames(3);
    let (short, behind) = {
        let p = ed.harness.state().preview();
        (p.last_steps, p.body_stride.behind)
    };
    // Time again: the next frame runs its own steps and the ones left undone (one frame's
    // worth at most), so the water catches up with the clock.
    ed.harness.state_mut().preview_mut().step_budget = std::time::Duration::from_secs(1);
    ed.frames(1);
    let (caught_up, left) = {
        let p = ed.harness.state().preview();
        (p.last_steps, p.body_stride.behind)
    };
    ed.click("Pause");
    println!(
        "{asked} steps a frame asked; {short} ran in a short frame ({behind} behind); \
         {caught_up} in the next ({left} behind)"
    );
    assert!(asked > 2, "the speed asks several steps a frame: {asked}");
    assert!(short < asked, "the zero budget cut the frame short");
    // (A frame asks one step more or fewer as the fractions of a step carry.)
    assert!(
        behind + 1 >= asked && behind <= asked + 1,
        "one frame's worth waits, no more: {behind}"
    );
    assert!(
        caught_up + 2 >= 2 * asked,
        "the frame ran its own steps and the missing ones: {caught_up} of {}",
        2 * asked
    );
    assert_eq!(left, 0, "nothing left behind");
}

#[test]
fn keep_this_state_keeps_a_body_gone_over_the_open_edge_where_it_was_placed() {
    // A fourth crate placed mostly past the open east edge (the map ends at x = 30 m, the
    // ground half a cell further): it falls off while the water runs.
    let mut level = dammed_channel();
    let mut stray = level.bodies[0].clone();
    stray.name = "Stray crate".into();
    stray.translation = [30.4, 3.0, 0.6];
    level.bodies.push(stray.clone());
    let dir = tempfile::tempdir().expect("temp dir");
    let path = save_level(&level, dir.path());
    let crate_file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/crate.glb");
    std::fs::copy(crate_file, dir.path().join("crate.glb")).expect("copy the crate");
    let mut ed = editor_in(dir, Some(path));
    ed.harness.state_mut().preview_mut().step_budget = std::time::Duration::from_secs(1);
    play(&mut ed, 10.0, 12);
    ed.click("Keep this state");
    ed.harness.get_by_label_contains(
        "Stray crate went over an open edge of the map and keeps its placement",
    );
    let kept = &ed.harness.state().document().level().bodies;
    assert_eq!(kept[3].translation, stray.translation);
    // The dam's crates are saved where the physics has them (settled onto the bed).
    for body in &kept[..3] {
        assert!(
            (body.translation[0] - 15.5).abs() < 0.3 && body.translation[2] < 0.5,
            "{}: {:?}",
            body.name,
            body.translation
        );
    }
}

#[test]
fn keep_this_state_lets_a_moving_crate_go_on_moving() {
    // Keep this state writes each body's pose into the level and the run goes on: a crate
    // knocked downstream entered the physics again at rest where it was kept.
    let mut ed = dam_editor();
    play(&mut ed, 20.0, 30);
    ed.harness.state_mut().preview_mut().speed = 1.0;
    ed.click("Play");
    let at = ed.harness.state().preview().body_poses().expect("bodies")[0].translation;
    assert!(
        ed.harness
            .state_mut()
            .preview_mut()
            .push_body(0, [10000.0, 0.0, 0.0], at)
    );
    ed.frames(2);
    ed.click("Keep this state");
    let x0 = ed.harness.state().preview().body_poses().expect("bodies")[0].translation[0];
    ed.frames(6);
    ed.click("Pause");
    let x1 = ed.harness.state().preview().body_poses().expect("bodies")[0].translation[0];
    println!("the knocked crate: x = {x0:.3} m at the keep, {x1:.3} m six frames later");
    assert!(x1 - x0 > 0.05, "it goes on sliding: {x0} → {x1}");
}

#[test]
fn a_seek_the_bodies_take_several_frames_over_stops_at_its_moment() {
    // With room for one coupled step a frame, the steps a frame left undone were run again on
    // top of the steps still to the moment (already counted from the clock): the water went
    // past the moment clicked.
    let mut ed = dam_editor();
    play(&mut ed, 20.0, 60);
    let time = ed.harness.state().preview().clock();
    assert!(time > 12.0, "simulated {time} s");
    let target = 0.5 * time + 0.37;
    ed.harness.state_mut().preview_mut().step_budget = std::time::Duration::ZERO;
    ed.harness.state_mut().preview_mut().seek(target);
    let mut frames = 0;
    while ed.harness.state().preview().seeking().is_some() && frames < 400 {
        ed.frames(1);
        frames += 1;
    }
    let clock = ed.harness.state().preview().clock();
    let dt = ed.harness.state().document().level().params.dt as f64;
    println!("went to {target:.3} s in {frames} frames: the water at {clock:.3} s");
    assert!(frames > 1, "the seek took several frames");
    assert!((clock - target).abs() <= dt * 1.01, "{clock} for {target}");
    assert_eq!(ed.harness.state().preview().body_stride.behind, 0);
}

#[test]
fn a_floater_of_a_baked_lake_enters_the_preview_with_its_water() {
    // A bake keeps the water with the floaters settled in it, and each floater where it
    // rests: the preview of the baked level pushed each one's submerged volume aside again
    // as it began, a wave as tall as the crate's draught.
    let n = 48;
    let mut level = Level::flat(n, n, 0.25, 0.0);
    level.water = Grid::filled(n, n, 2.0);
    let mut floater = crate::support::crate_body("Crate 1", "crate.glb", [6.0, 6.0, 2.6]);
    floater.density = 500.0;
    level.bodies.push(floater);
    let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    let meshes = spillway::body::world::import_meshes(&level, &assets).expect("the crate");
    let mut sim = spillway::Simulation::new(&level).unwrap();
    let mut world = spillway::body::world::BodyWorld::from_meshes(&level, &sim, meshes);
    let dt = level.params.dt;
    for _ in 0..(10.0 / dt) as usize {
        world.step(&mut sim, dt).expect("a step");
    }
    let mut baked = sim.bake_into(&level);
    let ids = world.ids();
    let pose = world.kept_pose(ids[0]).expect("in the world");
    (baked.bodies[0].translation, baked.bodies[0].rotation) = (pose.translation, pose.rotation);
    let mut ed = crate::support::editor_with_crate_file(&baked);
    ed.harness.state_mut().preview_mut().step_budget = std::time::Duration::from_secs(1);
    play(&mut ed, 1.0, 2);
    let preview = ed.harness.state_mut().preview_mut();
    let depth = preview.read_depth().expect("the preview runs");
    // The lake still sways from the crate's fall: the same run on the runtime's CPU solver
    // is the measure.
    let steps = ((preview.time() - sim.time()) / dt as f64).round() as usize;
    assert!(steps > 0);
    for _ in 0..steps {
        world.step(&mut sim, dt).expect("a step");
    }
    let moved = (depth.iter().zip(sim.depth()))
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    println!("{steps} steps: the preview and the runtime differ by at most {moved:.4} m");
    assert!(moved < 0.02, "{moved} m");
}

#[test]
fn a_crate_on_a_gate_falls_when_the_gate_opens() {
    // The bodies stood on the ground the run began on: a crate resting on a closed gate's
    // crest stayed up in the air once the gate opened and its crest was gone from the water.
    let crate_body = crate::support::crate_body("Crate 1", "crate.glb", [10.0, 3.0, 3.6]);
    let level = spillway_tests::crate_on_a_gate(crate_body);
    let mut ed = crate::support::editor_with_crate_file(&level);
    ed.harness.state_mut().preview_mut().step_budget = std::time::Duration::from_secs(1);
    let height = |ed: &mut Editor| {
        let poses = ed.harness.state_mut().preview_mut().body_poses();
        poses.expect("the bodies run")[0].translation[2]
    };
    play(&mut ed, 1.0, 30);
    let on_crest = height(&mut ed);
    play(&mut ed, 1.0, 90);
    let after = height(&mut ed);
    println!("the crate at {on_crest:.2} m on the crest, {after:.2} m once the gate opened");
    assert!(on_crest > 3.0, "{on_crest}");
    assert!(after < 1.0, "{after}");
}
