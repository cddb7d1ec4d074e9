//! Snapshots of the viewport as the GPU draws it (lavapipe in CI): the terrain, the brush
//! outline under the cursor, the contour and grid overlays, and the whole window.
//! References are in `tests/editor/snapshots/`; `UPDATE_SNAPSHOTS=1` rewrites them.

use egui_kittest::SnapshotOptions;
use egui_kittest::kittest::Queryable;
use spillway::{Grid, Level};
use spillway_editor::app::Action;

use crate::support::{Editor, editor_in};

fn options() -> SnapshotOptions {
    SnapshotOptions::new()
        .output_path(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/editor/snapshots"
        ))
        .max_failed_pixels(40)
}

/// A valley with a lake: slopes, flats and water for every part of the shading.
fn valley() -> Level {
    let (nx, ny) = (120, 90);
    let mut level = Level::flat(nx, ny, 2.0, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |x, y| {
        let (fx, fy) = (x as f32 / nx as f32, y as f32 / ny as f32);
        let valley = 40.0 * (fy - 0.5 - 0.1 * (fx * 6.0).sin()).powi(2) * 4.0;
        valley + 6.0 * (fx * 3.0).cos() + 3.0 * (fx * 17.0).sin() * (fy * 11.0).cos()
    });
    level.water = Grid::from_fn(nx, ny, |x, y| {
        let h = level.terrain.get(x, y);
        if x < 40 { (4.0 - h).max(0.0) } else { 0.0 }
    });
    level
}

/// An untitled editor showing `valley()` (no file paths on screen, so the snapshot does not
/// depend on where the test runs).
fn editor() -> Editor {
    let mut ed = editor_in(tempfile::tempdir().expect("temp dir"), None);
    ed.harness
        .state_mut()
        .perform(Action::Create(Box::new(valley())));
    ed.harness.remove_cursor();
    ed.frames(3);
    ed
}

fn viewport_snapshot(ed: &Editor, name: &str) {
    let (w, h, pixels) = ed
        .harness
        .state()
        .viewport_pixels()
        .expect("the viewport was rendered");
    let image = image::RgbaImage::from_raw(w, h, pixels).expect("pixel count matches");
    egui_kittest::image_snapshot_options(&image, name, &options());
}

#[test]
fn viewport_terrain() {
    let ed = editor();
    viewport_snapshot(&ed, "viewport_terrain");
}

#[test]
fn viewport_brush_cursor() {
    let mut ed = editor();
    ed.harness.state_mut().brush_mut().radius = 12.0;
    let p = ed.at(0.5, 0.55);
    ed.harness.hover_at(p);
    ed.frames(2);
    assert!(ed.harness.state().pick(p).is_some());
    viewport_snapshot(&ed, "viewport_brush_cursor");
}

#[test]
fn viewport_contours_and_grid() {
    let mut ed = editor();
    {
        let overlays = ed.harness.state_mut().overlays_mut();
        overlays.contours = true;
        overlays.grid = true;
    }
    ed.frames(2);
    viewport_snapshot(&ed, "viewport_contours_and_grid");
}

#[test]
fn editor_window() {
    let mut ed = editor();
    // The frame times differ run to run (and so does their width): cover them and the rest
    // of the status bar after them.
    let mut times = ed.harness.get_by_label_contains(" ms").rect();
    times.max.x = crate::support::WINDOW.x;
    ed.harness.mask(times);
    ed.harness.snapshot_options("editor_window", &options());
}

/// A row of big crates across the valley's lake, dropped on the terrain as the Body tool and
/// Row helper do (no selection, no ghost: the Raise tool is active).
#[test]
fn viewport_bodies() {
    use spillway_editor::tools::body::{Arrangement, arrange, new_body, rest_on_ground};
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/crate.glb");
    let mesh =
        spillway::body::import::import(&file, file.parent().expect("dir"), &Default::default())
            .expect("the bundled crate");
    let mut level = valley();
    let gltf = std::fs::canonicalize(&file)
        .expect("exists")
        .to_string_lossy()
        .into_owned();
    let mut first = new_body(&level, &gltf, &mesh, 24.0, 92.0);
    first.scale = [6.0; 3];
    rest_on_ground(&mut first, &mesh, &level.terrain, level.cell_size);
    level.bodies.push(first);
    let row = arrange(&level, 0, &mesh, 8, Arrangement::RowX);
    level.bodies.extend(row);
    let mut ed = editor_in(tempfile::tempdir().expect("temp dir"), None);
    ed.harness
        .state_mut()
        .perform(Action::Create(Box::new(level)));
    ed.harness.remove_cursor();
    ed.frames(4);
    viewport_snapshot(&ed, "viewport_bodies");
}
