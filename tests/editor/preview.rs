//! The live water preview through the UI: time runs on the GPU solver, sources add exactly
//! their rate, painted walls hold water while open edges drain it, edits take effect while the
//! water runs, reset returns to the authored state, and a blow-up pauses without touching the
//! document. Snapshots show the water render (calm lake; river with the velocity overlay).

use egui::{Key, Modifiers};
use egui_kittest::SnapshotOptions;
use egui_kittest::kittest::Queryable;
use spillway::gpu::GpuSimulation;
use spillway::level::{Shape, Source, SourceKind};
use spillway::{Grid, Level};
use spillway_editor::app::Action;
use spillway_render::WaterOverlay;

use crate::support::{Editor, editor_in, editor_with, editor_with_frames_of};

/// A 64 × 48 basin of 1 m cells: a flat floor at 0 m inside a 3 m rim, walled.
pub(crate) fn basin() -> Level {
    let (nx, ny) = (64, 48);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.name = "basin".into();
    level.terrain = Grid::from_fn(nx, ny, |x, y| {
        let edge = x.min(nx - 1 - x).min(y).min(ny - 1 - y);
        if edge < 2 {
            3.0
        } else {
            0.05 * ((x * 7 + y * 3) % 5) as f32
        }
    });
    level.params.dt = 0.05;
    level
}

pub(crate) fn source(x: f32, y: f32, rate: f32) -> Source {
    Source {
        name: "Spring".into(),
        shape: Shape::Circle { x, y, radius: 3.0 },
        kind: SourceKind::Rate { m3_per_s: rate },
        enabled: true,
    }
}

/// Runs the preview for `frames` frames at `speed` (simulated seconds per real second).
pub(crate) fn play(ed: &mut Editor, speed: f32, frames: usize) {
    ed.harness.state_mut().preview_mut().speed = speed;
    ed.click("Play");
    ed.frames(frames);
    ed.click("Pause");
}

fn stats(ed: &mut Editor) -> spillway::sim::Stats {
    ed.harness
        .state_mut()
        .preview_mut()
        .wait_stats()
        .expect("the preview runs")
}

#[test]
fn a_source_adds_its_rate_times_the_simulated_time() {
    let mut level = basin();
    level.sources.push(source(32.0, 24.0, 5.0));
    let mut ed = editor_with(&level);
    play(&mut ed, 20.0, 40);
    let s = stats(&mut ed);
    assert!(s.time > 5.0, "simulated {} s", s.time);
    let added = s.volume - s.volume_initial;
    let expected = 5.0 * s.time;
    println!(
        "{:.3} s: added {added:.4} m³, rate × time {expected:.4} m³",
        s.time
    );
    assert!((added - expected).abs() < 0.01 * expected);
    // The document is the authored level: the preview never writes to it.
    assert_eq!(ed.harness.state().document().level().water, level.water);
}

/// Paints `kind` along the south edge (the one facing the camera) with the Boundary tool.
fn paint_south(ed: &mut Editor, kind: &str) {
    ed.key(Modifiers::NONE, Key::B);
    ed.click(kind);
    let level = ed.harness.state().document().level();
    let (nx, y) = (level.nx() as f32, level.ny() as f32 - 0.5);
    let path: Vec<_> = (0..=12)
        .map(|k| ed.screen(1.5 + (nx - 3.0) * k as f32 / 12.0, y))
        .collect();
    ed.drag(&path, Modifiers::NONE);
}

#[test]
fn a_painted_wall_keeps_water_in_and_an_open_edge_drains_it() {
    // A dam break towards the south edge, where the rim is cut: a wall there reflects the
    // wave, an open edge lets it leave.
    let mut level = basin();
    let (nx, ny) = (level.nx(), level.ny());
    level.terrain = Grid::from_fn(nx, ny, |x, y| {
        let edge = x.min(nx - 1 - x).min(y);
        if edge < 2 { 3.0 } else { 0.0 }
    });
    level.water = Grid::from_fn(nx, ny, |x, y| {
        if y < 24 {
            (2.0 - level.terrain.get(x, y)).max(0.0)
        } else {
            0.0
        }
    });
    let mut outflows = Vec::new();
    for kind in ["Wall", "Open"] {
        let mut ed = editor_with(&level);
        paint_south(&mut ed, kind);
        let painted = &ed.harness.state().document().level().boundaries;
        assert_eq!(painted.len(), 1, "{kind}: {painted:?}");
        play(&mut ed, 20.0, 40);
        let s = stats(&mut ed);
        println!(
            "{kind}: {:.2} s, outflow {:.3} m³, balance {:.2e}",
            s.time, s.outflow, s.balance_error
        );
        assert!(s.balance_error.abs() < 1e-5);
        outflows.push((s.outflow, s.volume / s.volume_initial));
    }
    assert!(
        outflows[0].0 < 1e-6 && outflows[0].1 > 0.999999,
        "wall: {:?}",
        outflows[0]
    );
    assert!(
        outflows[1].0 > 50.0 && outflows[1].1 < 0.98,
        "open: {:?}",
        outflows[1]
    );
}

#[test]
fn a_source_placed_while_the_water_runs_takes_effect_at_once() {
    let mut ed = editor_with(&basin());
    play(&mut ed, 10.0, 5);
    assert!(stats(&mut ed).inflow == 0.0);
    ed.harness.state_mut().preview_mut().play();
    ed.key(Modifiers::NONE, Key::I);
    ed.click_at(ed.at(0.5, 0.5));
    assert_eq!(ed.harness.state().document().level().sources.len(), 1);
    ed.frames(20);
    ed.click("Pause");
    let s = stats(&mut ed);
    assert!(s.inflow > 1.0, "inflow {}", s.inflow);
    assert!((s.volume - s.volume_initial - s.inflow).abs() < 1e-3 * s.inflow);
}

#[test]
fn reset_returns_exactly_to_the_authored_state() {
    let mut level = basin();
    level.water = Grid::from_fn(64, 48, |x, _| if x < 20 { 1.5 } else { 0.0 });
    let mut ed = editor_with(&level);
    play(&mut ed, 10.0, 20);
    let moved = ed.harness.state().preview().read_depth().expect("live");
    assert_ne!(moved, level.water.data, "the water moved");
    ed.click("Reset");
    assert!(!ed.harness.state().preview().is_live());
    assert_eq!(ed.harness.state().document().level().water, level.water);
    // One step from the reset equals one step of a fresh simulation of the authored level.
    ed.click("Step");
    let after = ed.harness.state().preview().read_depth().expect("live");
    let mut fresh = GpuSimulation::headless(&level).expect("a GPU");
    fresh.step(level.params.dt).expect("a step");
    let expected = fresh.read_depth().expect("depth");
    let worst = after
        .iter()
        .zip(&expected)
        .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
    assert!(worst < 1e-6, "differs by {worst} m");
}

#[test]
fn a_runaway_pauses_the_preview_and_leaves_the_document_untouched() {
    let mut level = basin();
    // The largest spring a level may have, and long steps: the second step runs away.
    level
        .sources
        .push(source(32.0, 24.0, spillway::level::ranges::MAX_RATE));
    level.params.dt = 1.0;
    let mut ed = editor_with(&level);
    ed.harness.state_mut().preview_mut().speed = 50.0;
    ed.click("Play");
    ed.frames(30);
    let preview = ed.harness.state().preview();
    assert!(!preview.playing, "the preview paused itself");
    let halt = preview.halt.as_ref().expect("a halt message");
    assert!(
        halt.message.contains("ran away") || halt.message.contains("blew up"),
        "{}",
        halt.message
    );
    let doc = ed.harness.state().document();
    assert_eq!(doc.level(), &level);
    assert!(!doc.is_modified());
}

#[test]
fn a_runaway_with_bodies_pauses_the_preview_on_either_solver() {
    // With a body the water steps through the coupling; a refused step still pauses the
    // preview at its cell instead of stopping it, on the GPU and on the CPU solver.
    let mut level = basin();
    // The largest spring a level may have, and long steps: the second step runs away.
    level
        .sources
        .push(source(32.0, 24.0, spillway::level::ranges::MAX_RATE));
    level.params.dt = 1.0;
    level
        .bodies
        .push(bundled_crate([10.5, 10.5, 3.0], 1.0, 500.0));
    for cpu in [false, true] {
        let mut ed = untitled(level.clone());
        ed.harness.state_mut().preview_mut().set_cpu(cpu);
        ed.harness.state_mut().preview_mut().speed = 50.0;
        ed.click("Play");
        ed.frames(30);
        let preview = ed.harness.state().preview();
        assert!(
            preview.error.is_none(),
            "cpu {cpu}: stopped: {:?}",
            preview.error
        );
        assert!(!preview.playing, "cpu {cpu}: the preview paused itself");
        assert!(
            preview.is_live(),
            "cpu {cpu}: the water is still there to look at"
        );
        let halt = preview.halt.as_ref().expect("a halt message");
        assert!(
            halt.message.contains("ran away") || halt.message.contains("blew up"),
            "cpu {cpu}: {}",
            halt.message
        );
    }
}

/// A body of the bundled crate mesh (its absolute path: for untitled levels) at `at`, scaled
/// by `scale`, of `density`.
fn bundled_crate(at: [f32; 3], scale: f32, density: f32) -> spillway::level::Body {
    let gltf = std::fs::canonicalize(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/crate.glb"),
    )
    .expect("the bundled crate")
    .to_string_lossy()
    .into_owned();
    spillway::level::Body {
        name: "crate".into(),
        gltf,
        translation: at,
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [scale; 3],
        density,
        dynamic: true,
        coupling: Default::default(),
        collider: Default::default(),
    }
}

fn options() -> SnapshotOptions {
    SnapshotOptions::new()
        .output_path(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/editor/snapshots"
        ))
        .max_failed_pixels(60)
}

pub(crate) fn snapshot(ed: &Editor, name: &str) {
    let (w, h, pixels) = ed
        .harness
        .state()
        .viewport_pixels()
        .expect("the viewport was rendered");
    let image = image::RgbaImage::from_raw(w, h, pixels).expect("pixel count matches");
    egui_kittest::image_snapshot_options(&image, name, &options());
}

/// A valley sloping east with a lake in a hollow and a river fed from the west edge.
pub(crate) fn river_valley() -> Level {
    let (nx, ny) = (96, 64);
    let mut level = Level::flat(nx, ny, 2.0, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |x, y| {
        let (fx, fy) = (x as f32 / nx as f32, y as f32 / ny as f32);
        let channel = 30.0 * (fy - 0.5 - 0.08 * (fx * 7.0).sin()).powi(2);
        let hollow = -2.5 * (-((fx - 0.7).powi(2) + (fy - 0.5).powi(2)) * 40.0).exp();
        8.0 - 6.0 * fx + channel + hollow
    });
    level.water = Grid::from_fn(nx, ny, |x, y| (3.2 - level.terrain.get(x, y)).max(0.0));
    level.sources.push(source(8.0, 64.0, 20.0));
    level.params.dt = 0.05;
    level
}

pub(crate) fn untitled(level: Level) -> Editor {
    let mut ed = editor_in(tempfile::tempdir().expect("temp dir"), None);
    ed.harness
        .state_mut()
        .perform(Action::Create(Box::new(level)));
    ed.harness.remove_cursor();
    ed.frames(3);
    ed
}

#[test]
fn snapshot_calm_lake() {
    let mut level = river_valley();
    level.sources.clear();
    let mut ed = untitled(level);
    ed.click("Step");
    ed.frames(2);
    snapshot(&ed, "water_calm_lake");
}

#[test]
fn snapshot_crate_standing_in_the_lake_leaves_no_dent() {
    // A fixed 4 m crate stands in a round lake, sticking out of it; the water around it is drawn
    // at its effective surface: flat up to the crate's sides, no dent where the crate holds
    // the water down.
    let (nx, ny) = (40, 30);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |x, y| {
        let (dx, dy) = (x as f32 - 20.0, y as f32 - 15.0);
        0.012 * (dx * dx + dy * dy) + 0.3 * (x as f32 * 0.7).sin()
    });
    level.water = Grid::from_fn(nx, ny, |x, y| (2.5 - level.terrain.get(x, y)).max(0.0));
    let ground = level.terrain.get(20, 15);
    let mut pillar = bundled_crate([20.3, 15.3, ground + 2.0], 4.0, 2500.0);
    pillar.dynamic = false;
    pillar.coupling = spillway::level::Coupling::Blocker;
    level.bodies.push(pillar);
    let mut ed = untitled(level);
    ed.harness.state_mut().preview_mut().step_budget = std::time::Duration::from_secs(1);
    play(&mut ed, 10.0, 20);
    ed.frames(2);
    snapshot(&ed, "water_crate_in_lake");
}

#[test]
fn snapshot_river_with_velocity_overlay() {
    let mut ed = untitled(river_valley());
    ed.harness
        .state_mut()
        .set_water_overlay(WaterOverlay::Velocity);
    play(&mut ed, 10.0, 30);
    ed.frames(2);
    snapshot(&ed, "water_river_velocity");
}

/// Water east of column `x` in the running preview, m³ (1 m cells).
fn water_east_of(ed: &Editor, x: usize) -> f32 {
    let depth = ed.harness.state().preview().read_depth().expect("live");
    let nx = ed.harness.state().document().level().nx();
    depth
        .iter()
        .enumerate()
        .filter(|(i, _)| i % nx >= x)
        .map(|(_, d)| d)
        .sum()
}

#[test]
fn a_gate_drawn_across_the_valley_holds_until_opened_during_the_preview() {
    // A reservoir 1.5 m deep in the west third of the basin.
    let mut level = basin();
    level.water = Grid::from_fn(64, 48, |x, y| {
        let edge = x.min(63 - x).min(y).min(47 - y);
        if x < 20 && edge >= 2 { 1.5 } else { 0.0 }
    });
    let mut ed = editor_with(&level);
    ed.key(Modifiers::NONE, Key::G);
    let path = crate::support::line(ed.screen(21.5, 1.0), ed.screen(23.5, 47.0), 8);
    ed.drag(&path, Modifiers::NONE);
    let gates = ed.harness.state().document().level().gates.clone();
    assert_eq!(gates.len(), 1, "{gates:?}");
    assert!(
        gates[0].crest >= 3.5,
        "the crest stands above the reservoir: {:?}",
        gates[0]
    );
    assert_eq!(
        ed.harness.state().document().history().undo_label(),
        Some("Add gate")
    );

    play(&mut ed, 10.0, 20);
    assert_eq!(water_east_of(&ed, 25), 0.0, "the closed gate holds");
    ed.click("Open Gate 1");
    assert!(ed.harness.state().preview().gates()[0].open);
    play(&mut ed, 10.0, 20);
    let released = water_east_of(&ed, 25);
    println!("released past the gate: {released:.1} m³");
    assert!(released > 20.0);
    // The authored level still has its gate, closed, and the reservoir.
    assert_eq!(ed.harness.state().document().level().water, level.water);
    // A click off the gate adds none (the tool's hint: click selects), and leaves none
    // selected: Delete then removes nothing.
    ed.click_at(ed.screen(40.0, 24.0));
    assert_eq!(ed.harness.state().document().level().gates, gates);
    ed.key(Modifiers::NONE, Key::Delete);
    assert_eq!(ed.harness.state().document().level().gates, gates);
    // Deleted while the water runs with it: the running water keeps it until Reset, and the
    // gates row says so though the level has no gate left.
    ed.click_at(ed.screen(22.5, 24.0));
    ed.key(Modifiers::NONE, Key::Delete);
    assert!(ed.harness.state().document().level().gates.is_empty());
    assert!(
        (ed.harness)
            .query_by_label_contains("Gates were edited")
            .is_some()
    );
    // Undo brings it back as it was: the running water has it again, and the hint goes.
    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(ed.harness.state().document().level().gates, gates);
    assert!(
        (ed.harness)
            .query_by_label_contains("Gates were edited")
            .is_none()
    );
    ed.key(Modifiers::COMMAND, Key::Z);
    assert!(ed.harness.state().document().level().gates.is_empty());
}

#[test]
fn slow_frames_run_fewer_steps_and_the_panel_says_the_water_is_held_back() {
    // A lake with a source, played at 100× real time: 1/60 s frames run every step the speed
    // asks; frames of 1/10 s (a level too large for the GPU) are cut back to keep the viewport
    // responsive, and the panel says so.
    let mut level = Level::flat(40, 40, 1.0, 0.0);
    level.water = Grid::filled(40, 40, 0.5);
    level.params.dt = 0.02;
    let quick_wanted = (100.0_f32 / 60.0 / 0.02).floor() as usize;
    let mut quick = editor_with(&level);
    quick.harness.state_mut().preview_mut().speed = 100.0;
    quick.click("Play");
    quick.frames(12);
    let ran = quick.harness.state().preview().last_steps;
    assert!(ran + 1 >= quick_wanted, "{ran} of {quick_wanted}");
    assert!(
        quick
            .harness
            .query_by_label("(held back: slow frames)")
            .is_none()
    );

    let mut slow = editor_with_frames_of(&level, 0.1);
    slow.harness.state_mut().preview_mut().speed = 100.0;
    slow.click("Play");
    slow.frames(12);
    let ran = slow.harness.state().preview().last_steps;
    println!("slow frames: {ran} steps a frame of the 500 asked");
    assert!((1..50).contains(&ran), "{ran}");
    assert!(slow.harness.state().preview().pace.held());
    assert!(
        slow.harness
            .query_by_label("(held back: slow frames)")
            .is_some()
    );
}

#[test]
fn renaming_an_open_gate_while_the_cpu_water_runs_keeps_it_open() {
    // The CPU solver restarts from its state at each edit, carrying gates over by name: the
    // renamed gate closed again (and a renamed breach lost how far it had opened).
    let level = spillway_tests::gated_reservoir(None);
    let name = level.gates[0].name.clone();
    let mut ed = editor_with(&level);
    ed.click("CPU solver");
    ed.click("Step");
    ed.click(&format!("Open {name}"));
    for _ in 0..5 {
        ed.click("Step");
    }
    let open = |ed: &Editor| ed.harness.state().preview().gates();
    assert!(open(&ed)[0].open, "opened by its button: {:?}", open(&ed));
    ed.key(Modifiers::NONE, Key::G);
    let listed = spillway_editor::tools::gate::gate_label(&level.gates[0]);
    ed.harness.get_by_label(&listed).click();
    ed.frames(2);
    ed.retype(&name, "sluice");
    assert_eq!(
        ed.harness.state().document().level().gates[0].name,
        "sluice"
    );
    let gates = open(&ed);
    assert_eq!(
        (gates[0].name.as_str(), gates[0].open),
        ("sluice", true),
        "{gates:?}"
    );
}

#[test]
fn the_water_brush_adds_to_the_running_water_only_where_it_paints() {
    // A lake raised by a spring while the water runs, so that the running water is not the
    // authored water: a dab adds its depth on top of the running water in the cells it
    // paints and leaves every other cell as it runs (the corners of the dab's square went
    // to the authored depth), on either solver; undo takes the dab back out.
    let mut level = basin();
    level.water = Grid::from_fn(64, 48, |x, y| {
        let edge = x.min(63 - x).min(y).min(47 - y);
        if edge >= 2 { 0.5 } else { 0.0 }
    });
    level.sources.push(source(44.0, 24.0, 60.0));
    for cpu in [false, true] {
        let mut ed = editor_with(&level);
        if cpu {
            ed.click("CPU solver");
        }
        play(&mut ed, 10.0, 20);
        ed.frames(2);
        let running = |ed: &Editor| ed.harness.state().preview().read_depth().expect("live");
        let authored = |ed: &Editor| ed.harness.state().document().level().water.data.clone();
        let (before, painted_before) = (running(&ed), authored(&ed));
        let middle = 24 * 64 + 16;
        let raised =
            (before.iter().sum::<f32>() - painted_before.iter().sum::<f32>()) / 60.0 / 44.0;
        assert!(raised > 0.05, "the spring raised the lake by {raised} m");
        ed.key(Modifiers::NONE, Key::P);
        ed.harness.state_mut().brush_mut().radius = 4.0;
        let path = crate::support::line(ed.screen(14.5, 24.5), ed.screen(18.5, 24.5), 6);
        ed.drag(&path, Modifiers::NONE);
        ed.frames(2);
        let (after, painted) = (running(&ed), authored(&ed));
        let mut changed = 0;
        for c in 0..before.len() {
            let added = painted[c] - painted_before[c];
            changed += usize::from(added != 0.0);
            assert!(
                (after[c] - before[c] - added).abs() < 1e-5,
                "cpu {cpu}: cell ({}, {}) ran {} m, {} m after a dab adding {added} m",
                c % 64,
                c / 64,
                before[c],
                after[c]
            );
        }
        assert!(changed > 20, "the dab painted {changed} cells");
        assert!(after[middle] > before[middle] + 0.01);
        ed.key(Modifiers::COMMAND, Key::Z);
        ed.frames(2);
        let undone = running(&ed);
        for c in 0..before.len() {
            assert!((undone[c] - before[c]).abs() < 1e-5, "cpu {cpu}: cell {c}");
        }
    }
}
