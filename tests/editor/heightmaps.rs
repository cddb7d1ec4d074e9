//! Heightmap import and export through the File menu and its dialogs, in every format.

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use spillway::Grid;
use spillway_editor::project::heightmap_io::{self, HeightRange, HeightmapFormat, ImportSettings};

use crate::support::{bumpy_level, editor_with};

/// A 64 × 64 heightmap spanning exactly 0 to 100 m (the import dialog's default range for the
/// test level), so the dialogs can be used with their defaults.
fn source_heights() -> Grid {
    Grid::from_fn(64, 64, |x, y| {
        let v = 50.0 + 30.0 * (x as f32 * 0.2).sin() + 15.0 * (y as f32 * 0.13).cos();
        if (x, y) == (0, 0) {
            0.0
        } else if (x, y) == (63, 63) {
            100.0
        } else {
            v
        }
    })
}

fn round_trip(format: HeightmapFormat, file: &str) {
    let mut ed = editor_with(&bumpy_level());
    let range = HeightRange {
        min: 0.0,
        max: 100.0,
    };
    let source = source_heights();
    let input = ed.dir.path().join(file);
    heightmap_io::export(&input, &source, format, range).expect("write the source heightmap");

    ed.dialogs.push(&input);
    ed.click("File");
    ed.click("Import heightmap…");
    ed.click("Import");
    let imported = ed.harness.state().document().level().terrain.clone();
    assert_eq!(
        (imported.nx, imported.ny),
        (64, 64),
        "the level took the heightmap's size"
    );
    let step = format.precision(range);
    for (a, b) in source.data.iter().zip(&imported.data) {
        assert!(
            (a - b).abs() <= step * 0.5 + 1e-4,
            "{format:?} import: {a} vs {b}"
        );
    }

    let output = ed.dir.path().join(format!("out.{}", format.extension()));
    ed.dialogs.push(&output);
    ed.click("File");
    ed.click("Export heightmap…");
    if format != HeightmapFormat::Png16 {
        ed.harness.get_by_role(Role::ComboBox).click();
        ed.frames(3);
        ed.click(format.name());
    }
    ed.click("Export…");
    assert!(
        ed.harness.state().dialog().is_none(),
        "{:?}",
        ed.harness.state().dialog()
    );
    let export_range = HeightRange::of(&imported);
    let settings = ImportSettings {
        format,
        range: export_range,
        raw_size: (64, 64),
    };
    let back = heightmap_io::import(&output, &settings).expect("read the export");
    let step = format.precision(export_range);
    for (a, b) in imported.data.iter().zip(&back.data) {
        assert!(
            (a - b).abs() <= step * 0.5 + 1e-4,
            "{format:?} export: {a} vs {b}"
        );
    }

    // The import is one undoable step.
    ed.key(egui::Modifiers::COMMAND, egui::Key::Z);
    assert_eq!(ed.harness.state().document().level(), &bumpy_level());
}

#[test]
fn an_exported_heightmap_imported_back_with_the_defaults_keeps_its_heights() {
    // Export offers the terrain's own range (0.5 to 3.5 m here); the import offered 0 to
    // 100 m, so a map exported, touched up and imported back with the defaults rose 30-fold.
    let level = bumpy_level();
    let mut ed = editor_with(&level);
    let output = ed.dir.path().join("touched_up.png");
    export_png(&mut ed, &output);
    let range = HeightRange::of(&level.terrain);
    let black = format!("black {} m", range.min);
    assert!(
        ed.harness.query_by_label_contains(&black).is_some(),
        "the notice says {black}"
    );
    // The terrain sculpted since: the import must bring the exported heights back.
    let path = crate::support::line(ed.at(0.3, 0.5), ed.at(0.7, 0.5), 8);
    ed.drag(&path, egui::Modifiers::NONE);
    assert_ne!(ed.harness.state().document().level().terrain, level.terrain);
    ed.dialogs.push(&output);
    ed.click("File");
    ed.click("Import heightmap…");
    ed.click("Import");
    assert!(ed.harness.state().dialog().is_none());
    assert_eq!(
        ed.harness.state().document().history().undo_label(),
        Some("Import heightmap")
    );
    let back = ed.harness.state().document().level().terrain.clone();
    let step = HeightmapFormat::Png16.precision(range);
    for (a, b) in level.terrain.data.iter().zip(&back.data) {
        assert!((a - b).abs() <= step * 0.5 + 1e-4, "{a} vs {b}");
    }
}

#[test]
fn png16_import_then_export_round_trips() {
    round_trip(HeightmapFormat::Png16, "in.png");
}

#[test]
fn png8_import_then_export_round_trips() {
    round_trip(HeightmapFormat::Png8, "in8.png");
}

#[test]
fn raw_r16_import_then_export_round_trips() {
    round_trip(HeightmapFormat::RawR16, "in.r16");
}

#[test]
fn npy_import_then_export_round_trips() {
    round_trip(HeightmapFormat::Npy, "in.npy");
}

#[test]
fn an_empty_export_range_is_said_before_the_file_is_chosen() {
    let mut ed = editor_with(&bumpy_level());
    let output = ed.dir.path().join("out.png");
    ed.dialogs.push(&output);
    ed.click("File");
    ed.click("Export heightmap…");
    // The lowest height typed above the highest (the dialog's two fields come last).
    let fields: Vec<_> = ed
        .harness
        .get_all_by(|n| n.value().is_some_and(|v| v.ends_with(" m")))
        .collect();
    fields[fields.len() - 2].click();
    ed.frames(3);
    ed.key(egui::Modifiers::COMMAND, egui::Key::A);
    ed.harness.event(egui::Event::Text("1000".into()));
    ed.key(egui::Modifiers::NONE, egui::Key::Enter);
    ed.frames(3);
    assert!(
        ed.harness
            .query_by_label_contains("the top must be above the bottom")
            .is_some(),
        "the dialog says the range is empty"
    );
    ed.click("Export…");
    ed.frames(2);
    assert!(
        matches!(
            ed.harness.state().dialog(),
            Some(spillway_editor::app::Dialog::Export(_))
        ),
        "the dialog stays open for a range the file can hold"
    );
    assert!(!output.exists());
    // The file picker was not opened: its answer is still queued for the next question.
    assert_eq!(ed.dialogs.pending(), 1, "no file was asked for");
}

#[test]
fn a_smaller_heightmap_leaves_out_the_objects_beyond_it_and_names_them() {
    // The test level is 96 m × 80 m; the heightmap makes it 64 m × 64 m.
    let mut level = bumpy_level();
    for (name, x) in [("spring", 10.0), ("far spring", 90.0)] {
        level.sources.push(spillway::level::Source {
            name: name.into(),
            shape: spillway::level::Shape::Point { x, y: 10.0 },
            kind: spillway::level::SourceKind::Rate { m3_per_s: 1.0 },
            enabled: true,
        });
    }
    let mut ed = editor_with(&level);
    let input = ed.dir.path().join("small.npy");
    let range = HeightRange {
        min: 0.0,
        max: 100.0,
    };
    heightmap_io::export(&input, &source_heights(), HeightmapFormat::Npy, range)
        .expect("write the heightmap");
    ed.dialogs.push(&input);
    ed.click("File");
    ed.click("Import heightmap…");
    ed.harness.get_by_role(Role::ComboBox).click();
    ed.frames(3);
    ed.click(HeightmapFormat::Npy.name());
    ed.click("Import");
    // It failed with "the resized level is not valid" before.
    let doc = ed.harness.state().document().level();
    assert_eq!((doc.nx(), doc.ny()), (64, 64));
    let names: Vec<&str> = doc.sources.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["spring"]);
    let (notice, _) = ed.harness.state().notice().expect("a notice");
    assert!(
        notice.contains("left out 1 object beyond the new map: source far spring"),
        "{notice}"
    );
}

#[test]
fn a_heightmap_exported_in_an_earlier_session_comes_back_at_its_heights() {
    // The range an export used was remembered for the session only: after a restart the
    // import offered 0 to 100 m, and the heights came back 30 times too high.
    let level = bumpy_level();
    let mut ed = editor_with(&level);
    let output = ed.dir.path().join("touched_up.png");
    export_png(&mut ed, &output);
    let project = ed.dir.path().join("level.ron");
    let dir = ed.dir;
    drop(ed.harness);
    let mut ed = crate::support::editor_in(dir, Some(project));
    let path = crate::support::line(ed.at(0.3, 0.5), ed.at(0.7, 0.5), 8);
    ed.drag(&path, egui::Modifiers::NONE);
    ed.dialogs.push(&output);
    ed.click("File");
    ed.click("Import heightmap…");
    ed.click("Import");
    let back = ed.harness.state().document().level().terrain.clone();
    let step = HeightmapFormat::Png16.precision(HeightRange::of(&level.terrain));
    for (a, b) in level.terrain.data.iter().zip(&back.data) {
        assert!((a - b).abs() <= step * 0.5 + 1e-4, "{a} vs {b}");
    }
}

/// Exports the terrain as a 16-bit PNG to `output` with the dialog's defaults.
fn export_png(ed: &mut crate::support::Editor, output: &std::path::Path) {
    ed.dialogs.push(output);
    ed.click("File");
    ed.click("Export heightmap…");
    ed.click("Export…");
}
