//! Terrain analysis overlays through the View menu: catchments and flow paths are computed in
//! the background, drawn over the terrain, and follow the sculpting.

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use spillway::{Grid, Level};

use crate::support::{Editor, editor_with, line};

/// Two valleys running south, split by a ridge along x = 32: 64 × 48 cells of 1 m.
fn two_valleys() -> Level {
    let mut level = Level::flat(64, 48, 1.0, 0.0);
    level.terrain = Grid::from_fn(64, 48, |x, y| {
        let across = (x as f32 - 32.0).abs();
        10.0 - 0.15 * y as f32 + 0.4 * (across - 16.0).abs() - 0.3 * across.min(1.0)
    });
    level
}

/// Picks the overlay `label` (a radio button) in the View menu.
fn view(ed: &mut Editor, label: &str) {
    ed.harness
        .get_by_role_and_label(egui::accesskit::Role::Button, "View")
        .click();
    ed.harness.run_steps(2);
    ed.harness
        .get_by_role_and_label(egui::accesskit::Role::RadioButton, label)
        .click();
    ed.harness.run_steps(3);
}

/// Runs frames until the drainage has been computed `n` times (at most a few seconds).
fn computed(ed: &mut Editor, n: u64) {
    for _ in 0..300 {
        if ed.harness.state().drainage().1 >= n {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        ed.frames(1);
    }
    panic!("the drainage was not computed {n} times");
}

fn pixels(ed: &Editor) -> Vec<u8> {
    ed.harness
        .state()
        .viewport_pixels()
        .expect("the viewport was rendered")
        .2
}

/// Pixels of two RGBA images with a channel more than 10 levels apart.
fn changed_pixels(a: &[u8], b: &[u8]) -> usize {
    a.chunks_exact(4)
        .zip(b.chunks_exact(4))
        .filter(|(a, b)| (0..3).any(|c| a[c].abs_diff(b[c]) > 10))
        .count()
}

#[test]
fn catchments_split_at_the_ridge_and_are_drawn_over_the_terrain() {
    let mut ed = editor_with(&two_valleys());
    ed.harness.remove_cursor();
    ed.frames(2);
    let plain = pixels(&ed);
    view(&mut ed, "Catchments");
    computed(&mut ed, 1);
    ed.frames(2);
    let drawn = pixels(&ed);
    let changed = changed_pixels(&plain, &drawn);
    assert!(
        changed > plain.len() / 4 / 4,
        "the overlay shows: {changed}"
    );
    let (d, _) = ed.harness.state().drainage();
    let d = d.expect("computed");
    let id = |x: usize, y: usize| d.basin.data[y * 64 + x];
    assert_ne!(id(16, 10), id(48, 10), "the ridge splits the valleys");
    // Flow paths draw the streams instead.
    view(&mut ed, "Flow paths");
    ed.frames(2);
    assert_ne!(pixels(&ed), drawn);
}

#[test]
fn the_flow_paths_follow_a_sculpted_channel() {
    let mut ed = editor_with(&two_valleys());
    view(&mut ed, "Flow paths");
    computed(&mut ed, 1);
    let before = ed
        .harness
        .state()
        .drainage()
        .0
        .expect("computed")
        .area
        .clone();
    // Dig across the ridge with Shift (lower) near the top of the map.
    ed.harness.state_mut().brush_mut().radius = 3.0;
    ed.harness.state_mut().brush_mut().strength = 1.0;
    let path = line(ed.screen(10.0, 12.0), ed.screen(54.0, 12.0), 30);
    ed.drag(&path, Modifiers::SHIFT);
    computed(&mut ed, 2);
    let after = ed
        .harness
        .state()
        .drainage()
        .0
        .expect("computed")
        .area
        .clone();
    assert_ne!(before.data, after.data, "recomputed for the new terrain");
}

#[test]
fn the_maps_of_a_dam_break_are_drawn_and_exported_for_the_game() {
    let mut ed = editor_with(&spillway_tests::gated_reservoir(Some(0.5)));
    ed.harness.remove_cursor();
    ed.harness.state_mut().preview_mut().speed = 4.0;
    ed.click("Play");
    ed.frames(90);
    ed.click("Pause");
    ed.frames(2);
    let before = pixels(&ed);
    view(&mut ed, "Max depth");
    ed.frames(3);
    let after = pixels(&ed);
    let changed = changed_pixels(&before, &after);
    assert!(changed > 1000, "the max depth overlay shows: {changed}");
    // Another map, while paused: it is read when shown (only the map shown is read back).
    view(&mut ed, "Arrival time");
    ed.frames(3);
    let arrival_shown = pixels(&ed);
    let changed = changed_pixels(&after, &arrival_shown);
    assert!(changed > 1000, "the arrival overlay shows: {changed}");
    view(&mut ed, "Max depth");
    ed.frames(3);
    assert_eq!(
        changed_pixels(&after, &pixels(&ed)),
        0,
        "and max depth again"
    );

    let out = ed.dir.path().join("maps");
    ed.dialogs.push(&out);
    ed.click("File");
    ed.click("Export maps of the run…");
    let maps = ed.harness.state().preview().maps().expect("kept");
    let depth = spillway_editor::heightmap::npy::read(&out.join("max_depth.npy"))
        .expect("written")
        .grid;
    assert_eq!(depth.data, maps.max_depth);
    // The flood went through the gate after it opened, reaching beyond it later.
    let arrival = &maps.arrival;
    assert_eq!(arrival[10 * 60 + 5], 0.0);
    assert!(arrival[10 * 60 + 25] >= 0.5, "{}", arrival[10 * 60 + 25]);
    for f in ["max_speed.png", "arrival.png", "hazard.npy", "maps.txt"] {
        assert!(out.join(f).is_file(), "{f}");
    }

    // Back before the gate opened: the overlay shows the maps of the water as it is now (it
    // kept showing the flood's, read before the seek, while paused).
    ed.harness.state_mut().preview_mut().seek(0.2);
    for _ in 0..100 {
        if ed.harness.state().preview().seeking().is_none() {
            break;
        }
        ed.frames(1);
    }
    ed.frames(3);
    let back = pixels(&ed);
    let changed = changed_pixels(&after, &back);
    assert!(changed > 1000, "the map follows the seek: {changed}");
}

#[test]
fn an_edit_while_the_cpu_water_runs_keeps_the_maps_of_the_run() {
    // The CPU's water restarts on every edit: its maps started again from the water then
    // (max depth the depth now, every wet cell arriving at the edit), where the GPU's go on.
    let mut ed = editor_with(&spillway_tests::gated_reservoir(Some(0.5)));
    ed.click("CPU solver");
    ed.harness.state_mut().preview_mut().speed = 4.0;
    ed.click("Play");
    ed.frames(60);
    ed.click("Pause");
    ed.frames(2);
    let before = ed.harness.state().preview().maps().expect("kept");
    // A dab of water on a dry corner, far from the flood.
    ed.key(Modifiers::NONE, Key::P);
    ed.harness.state_mut().brush_mut().radius = 1.0;
    ed.click_at(ed.screen(58.5, 18.5));
    ed.frames(2);
    let preview = ed.harness.state().preview();
    let after = preview.maps().expect("kept");
    let lower = (0..before.max_depth.len())
        .filter(|&c| after.max_depth[c] < before.max_depth[c])
        .count();
    let moved = (0..before.arrival.len())
        .filter(|&c| before.arrival[c] >= 0.0 && after.arrival[c] != before.arrival[c])
        .count();
    println!("after the dab: {lower} cells' max depth fell, {moved} arrivals moved");
    assert_eq!((lower, moved), (0, 0));
    assert_eq!(preview.maps_since(), 0.0);
}

#[test]
fn flow_sizing_reads_the_channel_under_the_cursor_or_says_why_it_cannot() {
    // The river (Manning, 20 m³/s in from the west): the status bar sizes it.
    let mut ed = editor_with(&crate::support::river());
    ed.harness
        .event(egui::Event::PointerMoved(ed.screen(100.0, 10.0)));
    ed.frames(2);
    assert!(
        ed.harness
            .query_by_label_contains("Q 20.0 m³/s →")
            .is_some(),
        "the status bar sizes the river"
    );
    // The same river with the older linear friction: no depth to give, and it says so.
    let mut level = crate::support::river();
    level.params.friction = spillway::level::Friction::Linear { per_second: 0.02 };
    let mut ed = editor_with(&level);
    ed.harness
        .event(egui::Event::PointerMoved(ed.screen(100.0, 10.0)));
    ed.frames(2);
    assert!(
        ed.harness
            .query_by_label_contains("no sizing with linear friction")
            .is_some(),
        "the status bar says why it sizes nothing"
    );
}
