//! Format versions: a level written in format version 1 (a real file kept in
//! `tests/format/fixtures/v1_baked/`, and the bundled sample projects) loads through the
//! v1 → v2 migration and runs; saving writes the current version; a version 1 file with a
//! version 2 field is refused; a newer unknown version is refused with the file, the version
//! found and the newest supported.

use std::fs;
use std::path::{Path, PathBuf};

use spillway::level::{FORMAT_VERSION, SolverKind, file};
use spillway::{LevelError, Simulation};

use super::{edit_ron, temp_level_path};

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("format/fixtures/v1_baked")
}

/// Copies the version 1 fixture (level and sidecar) to a fresh folder.
fn copied_fixture() -> (tempfile::TempDir, PathBuf) {
    let (dir, path) = temp_level_path();
    for entry in fs::read_dir(fixture_dir()).expect("fixture folder") {
        let entry = entry.expect("fixture entry");
        fs::copy(entry.path(), dir.path().join(entry.file_name())).expect("copy fixture");
    }
    (dir, path)
}

#[test]
fn version_1_fixture_loads_through_the_migration_and_runs() {
    let path = fixture_dir().join("level.ron");
    let text = fs::read_to_string(&path).expect("fixture");
    assert!(
        text.contains("format_version: 1,"),
        "the fixture is version 1"
    );
    let level = file::load(&path).unwrap_or_else(|e| panic!("v1 fixture: {e}"));
    assert_eq!((level.nx(), level.ny()), (6, 4));
    assert_eq!(level.gates.len(), 1);
    let flow = level.flow.as_ref().expect("the v1 bake has flow state");
    assert_eq!(flow.solver, SolverKind::Pipes);
    assert_eq!(flow.time, 12.5);
    assert!(flow.flow_x.iter().any(|&q| q != 0.0), "saved flows kept");
    // Migrated: the version 2 fields are absent and rebuilt by the solver.
    assert!(flow.carry.is_empty() && flow.aux_x.is_empty() && flow.max_speed.is_none());

    let mut sim = Simulation::new(&level).expect("runs");
    assert_eq!(sim.stats().time, 12.5, "continues at the saved time");
    sim.advance(1.0).expect("steps");
    assert!(sim.depth().iter().all(|d| d.is_finite() && *d >= 0.0));
    assert!(sim.stats().balance_error.abs() < 1e-6);
}

#[test]
fn a_migrated_level_saves_as_the_current_version() {
    let (_dir, path) = copied_fixture();
    let level = file::load(&path).expect("v1 fixture");
    file::save(&level, &path).expect("save");
    let text = fs::read_to_string(&path).expect("saved");
    assert!(
        text.contains(&format!("format_version: {FORMAT_VERSION},")),
        "{text}"
    );
    assert_eq!(file::load(&path).expect("reload"), level);
}

#[test]
fn sample_projects_are_version_1_and_load() {
    let projects = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../projects");
    for name in ["dam_break_valley", "flooding_island", "river_gorge"] {
        let path = projects.join(name).join("level.ron");
        file::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn version_1_refuses_fields_of_version_2() {
    let (_dir, path) = copied_fixture();
    edit_ron(
        &path,
        "time: 12.5,",
        "time: 12.5,\n        max_speed: Some(1.0),",
    );
    let err = file::load(&path).expect_err("v1 has no max_speed");
    let text = err.to_string();
    assert!(matches!(err, LevelError::Ron { .. }), "{err:?}");
    assert!(
        text.contains("level.ron") && text.contains("max_speed"),
        "{text}"
    );
}

#[test]
fn newer_version_is_refused_naming_file_found_and_supported() {
    let (_dir, path) = copied_fixture();
    edit_ron(&path, "format_version: 1,", "format_version: 99,");
    let err = file::load(&path).expect_err("version 99 is unknown");
    let text = err.to_string();
    for part in [
        path_text(&path).as_str(),
        "format_version 99",
        &format!("up to {FORMAT_VERSION}"),
    ] {
        assert!(text.contains(part), "`{part}` missing from: {text}");
    }
}

fn path_text(path: &Path) -> String {
    path.display().to_string()
}

#[test]
fn version_2_friction_becomes_a_linear_law_and_version_3_defaults_to_manning() {
    use spillway::level::{DEFAULT_MANNING_N, Friction};
    // The version 1 fixture is a valid version 2 file too (version 2 only added fields).
    let (_dir, path) = copied_fixture();
    edit_ron(&path, "format_version: 1,", "format_version: 2,");
    edit_ron(&path, "friction: 0.02,", "friction: 0.07,");
    let level = file::load(&path).expect("v2 loads");
    assert_eq!(level.params.friction, Friction::Linear { per_second: 0.07 });
    assert!(level.roughness.is_none());
    // Absent in version 2 meant the old default, 0.02 per second.
    edit_ron(&path, "friction: 0.07,", "");
    let level = file::load(&path).expect("v2 without friction");
    assert_eq!(level.params.friction, Friction::Linear { per_second: 0.02 });
    // Absent in version 3 means Manning's law with the default n.
    edit_ron(&path, "format_version: 2,", "format_version: 3,");
    let level = file::load(&path).expect("v3 without friction");
    assert_eq!(
        level.params.friction,
        Friction::Manning {
            n: DEFAULT_MANNING_N
        }
    );
}

#[test]
fn version_3_refuses_a_bare_friction_number_naming_the_place() {
    let (_dir, path) = copied_fixture();
    edit_ron(&path, "format_version: 1,", "format_version: 3,");
    let err = file::load(&path).expect_err("a number is not a friction law");
    let text = err.to_string();
    assert!(matches!(err, LevelError::Ron { line: 16, .. }), "{err:?}");
    assert!(text.contains("friction: 0.02"), "{text}");
}
