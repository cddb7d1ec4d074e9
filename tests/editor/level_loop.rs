//! The designer's loop through the UI: level settings changed, undone, redone, saved and
//! reopened, and taken by the running water without a reset; roughness painted with the
//! Roughness tool slowing the river; a bake cancelled (nothing changes) and a bake finished
//! (the saved water equals a headless `spillway bake`); "Keep this state" and its undo.

use egui_kittest::kittest::Queryable;
use std::time::{Duration, Instant};

use egui::{Key, Modifiers};
use spillway::level::{
    Boundary, BoundaryKind, Edge, Friction, Shape, SolverKind, Source, SourceKind,
};
use spillway::{Grid, Level};

use crate::support::{Editor, editor_with, line};

/// A 96 × 32 channel of 1 m cells falling 2 % to the east between 3 m banks, fed 2 m³/s at its
/// west end, draining through an open east edge.
fn channel() -> Level {
    let (nx, ny) = (96, 32);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.name = "channel".into();
    level.terrain = Grid::from_fn(nx, ny, |x, y| {
        let bed = 4.0 - 0.02 * x as f32;
        if (8..24).contains(&y) { bed } else { bed + 3.0 }
    });
    level.sources.push(Source {
        name: "Spring".into(),
        shape: Shape::Circle {
            x: 4.0,
            y: 16.0,
            radius: 3.0,
        },
        kind: SourceKind::Rate { m3_per_s: 2.0 },
        enabled: true,
    });
    level.boundaries.push(Boundary {
        edge: Edge::East,
        start: 0,
        end: ny as u32,
        kind: BoundaryKind::Open,
    });
    level.params.dt = 0.05;
    level
}

fn level(ed: &Editor) -> &Level {
    ed.harness.state().document().level()
}

/// The file the document was saved to.
fn saved_path(ed: &Editor) -> std::path::PathBuf {
    let path = ed.harness.state().document().path();
    path.expect("the level was saved").to_path_buf()
}

/// Runs the preview for `frames` frames at `speed`.
fn play(ed: &mut Editor, speed: f32, frames: usize) {
    ed.harness.state_mut().preview_mut().speed = speed;
    ed.click("Play");
    ed.frames(frames);
    ed.click("Pause");
}

#[test]
fn settings_change_undo_redo_save_reopen_and_reach_the_running_water() {
    let mut ed = editor_with(&channel());
    play(&mut ed, 10.0, 10);
    let t0 = ed.harness.state().preview().time();
    assert!(t0 > 0.5, "the water ran: {t0} s");

    ed.click("Shallow water");
    assert_eq!(level(&ed).params.solver, SolverKind::Swe);
    ed.click("Chézy");
    assert_eq!(level(&ed).params.friction, Friction::Chezy { c: 40.0 });
    ed.click("Open edges");
    assert_eq!(level(&ed).params.default_boundary, BoundaryKind::Open);
    assert_eq!(
        ed.harness.state().document().history().undo_label(),
        Some("Level settings: default edge")
    );
    // The running water took every change without starting again.
    assert!(ed.harness.state().preview().is_live());
    play(&mut ed, 10.0, 10);
    let t1 = ed.harness.state().preview().time();
    assert!(t1 > t0, "time went on from {t0} s to {t1} s");

    for _ in 0..3 {
        ed.key(Modifiers::COMMAND, Key::Z);
    }
    assert_eq!(level(&ed).params, channel().params);
    ed.key(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    ed.key(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    assert_eq!(level(&ed).params.solver, SolverKind::Swe);
    assert_eq!(level(&ed).params.friction, Friction::Chezy { c: 40.0 });
    assert_eq!(level(&ed).params.default_boundary, BoundaryKind::Wall);

    ed.key(Modifiers::COMMAND, Key::S);
    let path = saved_path(&ed);
    let reopened = spillway::level::file::load(&path).expect("the saved level loads");
    assert_eq!(reopened.params.solver, SolverKind::Swe);
    assert_eq!(reopened.params.friction, Friction::Chezy { c: 40.0 });
    assert!(!ed.harness.state().document().is_modified());
}

#[test]
fn an_undo_while_a_setting_is_dragged_stays_undone() {
    // The field's draft held every setting as it was when the drag began: letting go wrote
    // back the friction that Ctrl+Z had just undone, and cleared the redo.
    let mut ed = editor_with(&channel());
    ed.click("Chézy");
    assert_eq!(level(&ed).params.friction, Friction::Chezy { c: 40.0 });
    let g = f64::from(level(&ed).params.gravity);
    let at = ed.press_field(g);
    ed.move_to(at + egui::vec2(20.0, 0.0));
    ed.harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    ed.harness.step();
    ed.move_to(at + egui::vec2(40.0, 0.0));
    ed.press_or_release(false, at + egui::vec2(40.0, 0.0));
    ed.frames(3);
    let params = &level(&ed).params;
    assert_eq!(params.friction, channel().params.friction, "the undo stays");
    assert!(
        f64::from(params.gravity) > g,
        "the drag is kept: {}",
        params.gravity
    );
}

#[test]
fn settings_outside_the_panels_ranges_open_unchanged() {
    // Valid to the runtime, outside what the Level panel's fields offer: drawing the panel
    // clamped them, which changed the level as it opened, marked it modified and made an
    // undo step ("Level settings: CFL") that came back after every Ctrl+Z.
    let mut wide = channel();
    wide.params.cfl = 0.02;
    wide.params.dt = 0.0005;
    wide.params.friction = Friction::Chezy { c: 0.5 };
    let mut ed = editor_with(&wide);
    ed.frames(5);
    let doc = ed.harness.state().document();
    assert_eq!(doc.level().params, wide.params);
    assert_eq!(
        doc.history().undo_len(),
        0,
        "{:?}",
        doc.history().undo_label()
    );
    assert!(!doc.is_modified());
}

#[test]
fn the_shallow_water_solver_is_offered_with_blocking_bodies() {
    // Both solvers block: switching a level with a crate to shallow water is one undoable edit.
    let mut with_body = channel();
    with_body.bodies.push(crate::support::crate_body(
        "Crate",
        "crate.glb",
        [40.5, 16.5, 3.5],
    ));
    let mut ed = crate::support::editor_with_crate_file(&with_body);
    ed.click("Shallow water");
    assert_eq!(level(&ed).params.solver, SolverKind::Swe);
    assert_eq!(ed.harness.state().document().history().undo_len(), 1);
}

/// The farthest column east that the river has reached (deeper than 1 cm in the channel).
fn front(ed: &Editor) -> usize {
    let depth = ed.harness.state().preview().read_depth().expect("live");
    (0..96)
        .filter(|&x| depth[16 * 96 + x] > 0.01)
        .max()
        .unwrap_or(0)
}

#[test]
fn painted_roughness_slows_the_river_and_undoes() {
    let mut fronts = Vec::new();
    for paint in [false, true] {
        let mut ed = editor_with(&channel());
        if paint {
            ed.key(Modifiers::NONE, Key::N);
            assert_eq!(
                ed.harness.state().tool(),
                spillway_editor::tools::Tool::Roughness
            );
            ed.click("Forest floodplain (0.1)");
            let brush = ed.harness.state_mut().brush_mut();
            brush.radius = 40.0;
            brush.strength = 1.0;
            let path = line(ed.screen(10.0, 16.0), ed.screen(86.0, 16.0), 24);
            ed.drag(&path, Modifiers::NONE);
            let rough = level(&ed)
                .roughness
                .clone()
                .expect("the stroke made a grid");
            assert!(rough.get(48, 16) > 0.09, "painted n {}", rough.get(48, 16));
            assert_eq!(
                ed.harness.state().document().history().undo_label(),
                Some("Roughness stroke")
            );
        }
        play(&mut ed, 30.0, 80);
        let t = ed.harness.state().preview().time();
        fronts.push((front(&ed), t));
        if paint {
            ed.key(Modifiers::COMMAND, Key::Z);
            assert!(
                level(&ed).roughness.is_none(),
                "undo removes the grid it made"
            );
            // Redo paints it again; a heightmap of another size then cuts it to the new map
            // (it was dropped), never leaving a grid of the old size behind.
            ed.key(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
            assert!(level(&ed).roughness.is_some());
            let input = ed.dir.path().join("small.npy");
            spillway_editor::heightmap::npy::write(&input, &Grid::filled(40, 30, 1.0)).unwrap();
            ed.dialogs.push(&input);
            ed.click("File");
            ed.click("Import heightmap…");
            ed.click("Import");
            assert_eq!((level(&ed).nx(), level(&ed).ny()), (40, 30));
            let rough = level(&ed)
                .roughness
                .clone()
                .expect("kept where it was painted");
            assert_eq!((rough.nx, rough.ny), (40, 30));
            assert!(rough.get(20, 16) > 0.09, "painted n {}", rough.get(20, 16));
            ed.frames(3);
        }
    }
    println!(
        "river front (column, at time): smooth {:?}, rough {:?}",
        fronts[0], fronts[1]
    );
    assert!(
        fronts[1].0 + 5 < fronts[0].0,
        "the forest floor slows the river: {fronts:?}"
    );
}

/// Runs frames until the bake ends (at most `limit`).
fn wait_for_bake(ed: &mut Editor, limit: Duration) {
    let start = Instant::now();
    while ed.harness.state().baking() {
        assert!(start.elapsed() < limit, "the bake did not end in {limit:?}");
        ed.frames(1);
        std::thread::sleep(Duration::from_millis(20));
    }
    // The frame that found it ended shows its notice (the status bar is drawn after the bake
    // is collected), so it shows without the designer moving the mouse.
    assert!(
        ["Baked:", "Bake cancelled"]
            .iter()
            .any(|t| ed.harness.query_by_label_contains(t).is_some()),
        "the frame that found the bake ended shows no notice"
    );
    ed.frames(2);
}

#[test]
fn a_cancelled_bake_changes_nothing_and_a_finished_one_equals_spillway_bake() {
    let authored = channel();
    let mut ed = editor_with(&authored);

    ed.click("Bake to steady state");
    assert!(ed.harness.state().baking());
    ed.frames(5);
    ed.click("Cancel");
    wait_for_bake(&mut ed, Duration::from_secs(120));
    assert_eq!(
        level(&ed),
        &authored,
        "a cancelled bake leaves the level as it was"
    );
    assert_eq!(ed.harness.state().document().history().undo_len(), 0);

    ed.click("Bake to steady state");
    wait_for_bake(&mut ed, Duration::from_secs(600));
    let baked = level(&ed).clone();
    assert!(baked.flow.is_some(), "the bake saved the flow state");
    assert!(baked.water_volume() > 10.0, "{} m³", baked.water_volume());
    assert_eq!(
        ed.harness.state().document().history().undo_label(),
        Some("Bake to steady state")
    );
    ed.key(Modifiers::COMMAND, Key::S);
    let path = saved_path(&ed);
    let saved = spillway::level::file::load(&path).expect("the baked level loads");

    // The same level baked on the command line.
    let input = ed.dir.path().join("authored.ron");
    spillway::level::file::save(&authored, &input).expect("save");
    let output = ed.dir.path().join("cli.ron");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_spillway"))
        .arg("bake")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .args(["--backend", "gpu"])
        .status()
        .expect("spillway runs");
    assert!(status.success());
    let cli = spillway::level::file::load(&output).expect("the CLI's bake loads");
    let worst = saved
        .water
        .data
        .iter()
        .zip(&cli.water.data)
        .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
    println!(
        "editor bake {:.1} s, CLI bake {:.1} s, largest depth difference {worst:.2e} m",
        saved.flow.as_ref().map_or(0.0, |f| f.time),
        cli.flow.as_ref().map_or(0.0, |f| f.time)
    );
    assert!(worst <= 1e-3, "the editor's bake differs by {worst} m");

    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(level(&ed).water, authored.water);
    assert!(level(&ed).flow.is_none());
}

#[test]
fn keep_this_state_then_undo() {
    let authored = channel();
    let mut ed = editor_with(&authored);
    play(&mut ed, 10.0, 30);
    let running = ed.harness.state().preview().read_depth().expect("live");
    ed.click("Keep this state");
    let kept = level(&ed).clone();
    assert_eq!(kept.water.data, running);
    let time = kept.flow.as_ref().expect("the flow was kept").time;
    assert!(time > 1.0, "kept at {time} s");
    assert_eq!(
        ed.harness.state().document().history().undo_label(),
        Some("Keep this state")
    );
    // Kept again, the same frame: nothing changes, so no step is made.
    ed.click("Keep this state");
    assert_eq!(ed.harness.state().document().history().undo_len(), 1);
    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(level(&ed), &authored);
    // The same from the keyboard: Ctrl+K keeps, Ctrl+B bakes and Escape cancels the bake.
    // (The undo started the water again from the authored level: run it first.)
    play(&mut ed, 10.0, 5);
    ed.key(Modifiers::COMMAND, Key::K);
    assert_eq!(
        ed.harness.state().document().history().undo_label(),
        Some("Keep this state")
    );
    ed.key(Modifiers::COMMAND, Key::B);
    assert!(ed.harness.state().baking());
    // Closing the window while it bakes waits for the bake (it was dropped unasked).
    ed.close_window();
    ed.frames(2);
    assert!(ed.harness.state().baking(), "still baking");
    assert!(
        ed.harness
            .query_by_label_contains("Wait for the work under way")
            .is_some()
    );
    ed.key(Modifiers::NONE, Key::Escape);
    wait_for_bake(&mut ed, Duration::from_secs(120));
    assert_eq!(
        ed.harness.state().document().history().undo_label(),
        Some("Keep this state"),
        "the cancelled bake recorded nothing"
    );
}

#[test]
fn keeping_the_state_keeps_how_far_a_breach_opened_and_the_moved_bed() {
    // The kept state held only water, flow, gates and bodies: a breach that had opened came
    // back closed (the water already gone below it), and a moved bed sprang back.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/breach_dam");
    let mut authored = spillway::level::file::load(&path.join("level.ron")).expect("sample");
    if let spillway::level::StructureKind::Breach { start, .. } = &mut authored.structures[0].kind {
        *start = spillway::level::BreachStart::At(0.5);
    }
    authored.params.sediment = Some(spillway_tests::sand());
    let mut ed = editor_with(&authored);
    for _ in 0..60 {
        ed.click("Step");
    }
    ed.click("Keep this state");
    let kept = level(&ed).clone();
    let spillway::level::StructureKind::Breach { opened, .. } = kept.structures[0].kind else {
        panic!("a breach");
    };
    assert!(opened.is_some_and(|p| p > 0.0), "{opened:?}");
    assert_ne!(kept.terrain, authored.terrain, "the bed the water moved");
    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(level(&ed), &authored);
}

/// Runs frames until no file work runs (at most 60 s).
fn wait_for_files(ed: &mut Editor) {
    let start = Instant::now();
    while ed.harness.state().busy_with_files() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the file work did not end"
        );
        ed.frames(1);
        std::thread::sleep(Duration::from_millis(10));
    }
    ed.frames(2);
}

#[test]
fn large_saves_imports_and_exports_run_in_the_background_and_finish() {
    use spillway_editor::project::heightmap_io::{self, HeightRange, HeightmapFormat};
    // Every file counts as large: all of it goes through the background tasks.
    let mut ed = crate::support::editor_with_background(&channel(), 0);
    ed.click("Shallow water");
    ed.key(Modifiers::COMMAND, Key::S);
    wait_for_files(&mut ed);
    assert!(!ed.harness.state().document().is_modified());
    let path = saved_path(&ed);
    let reopened = spillway::level::file::load(&path).expect("load");
    assert_eq!(reopened.params.solver, SolverKind::Swe);

    let range = HeightRange {
        min: 0.0,
        max: 10.0,
    };
    let heights = Grid::from_fn(96, 32, |x, y| (x + y) as f32 * 0.05);
    let input = ed.dir.path().join("hills.png");
    heightmap_io::export(&input, &heights, HeightmapFormat::Png16, range).expect("write");
    ed.dialogs.push(&input);
    ed.click("File");
    ed.click("Import heightmap…");
    ed.click("Import");
    wait_for_files(&mut ed);
    let terrain = &level(&ed).terrain;
    // The channel falls to the east; the imported hills rise.
    assert!(terrain.get(60, 20) > terrain.get(10, 20), "imported");
    assert_eq!(
        ed.harness.state().document().history().undo_label(),
        Some("Import heightmap")
    );

    let output = ed.dir.path().join("out.png");
    ed.dialogs.push(&output);
    ed.click("File");
    ed.click("Export heightmap…");
    ed.click("Export…");
    wait_for_files(&mut ed);
    assert!(output.is_file(), "exported");

    // The maps of the run, written in the background too (on the UI thread they froze the
    // window for seconds on a large level).
    ed.click("Play");
    ed.frames(5);
    ed.click("Pause");
    let maps = ed.dir.path().join("maps");
    ed.dialogs.push(&maps);
    ed.click("File");
    ed.click("Export maps of the run…");
    wait_for_files(&mut ed);
    for f in ["max_depth.npy", "hazard.png", "maps.txt"] {
        assert!(maps.join(f).is_file(), "{f}");
    }
    // The background task's notice (the one on the UI thread counts the files).
    ed.harness
        .get_by_label_contains("Exported the run's maps to");
}

#[test]
fn escape_while_a_level_setting_is_dragged_drops_the_change() {
    // Escape mid-drag of the Level panel's gravity left its draft: the drag went on and its
    // value was recorded on release, where an inspector's field dropped its change.
    let mut ed = editor_with(&channel());
    let g = level(&ed).params.gravity;
    let at = ed.press_field(g as f64);
    for dx in [10.0, 30.0, 60.0] {
        ed.move_to(at + egui::vec2(dx, 0.0));
    }
    ed.escape_mid_drag(at);
    assert_eq!(level(&ed).params.gravity, g, "the gravity as it was");
    assert_eq!(ed.harness.state().document().history().undo_len(), 0);
    // The same drag let go without Escape is one step.
    let at = ed.press_field(g as f64);
    for dx in [10.0, 30.0, 60.0, 90.0] {
        ed.move_to(at + egui::vec2(dx, 0.0));
    }
    ed.press_or_release(false, at + egui::vec2(90.0, 0.0));
    ed.frames(3);
    assert_ne!(level(&ed).params.gravity, g);
    assert_eq!(ed.harness.state().document().history().undo_len(), 1);
}
