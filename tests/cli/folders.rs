//! A project folder stands for its level: `spillway check`, `sim` and `bake` take the folder a
//! level lives in (its `level.ron`), as `spillway edit` does, and a folder without a level is
//! refused with the folder's name and what is missing.

use spillway::Level;
use spillway::level::file;

use super::{spillway, stderr};

#[test]
fn check_sim_and_bake_take_a_project_folder_for_its_level() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("lake");
    std::fs::create_dir_all(&project).unwrap();
    let mut level = Level::flat(24, 16, 1.0, 0.0);
    level.name = "lake".into();
    level.water = spillway::Grid::from_fn(24, 16, |x, _| if x < 8 { 1.0 } else { 0.0 });
    file::save(&level, &project.join("level.ron")).unwrap();

    let out = spillway(dir.path(), &["check", "lake"]);
    assert!(out.status.success(), "check: {}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("lake"));

    let out = spillway(dir.path(), &["sim", "lake", "--steps", "20", "--json"]);
    assert!(out.status.success(), "sim: {}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["steps"], 20);

    let out = spillway(
        dir.path(),
        &["bake", "lake", "-o", "baked.ron", "--max-seconds", "2"],
    );
    assert!(out.status.success(), "bake: {}", stderr(&out));
    let baked = file::load(&dir.path().join("baked.ron")).unwrap();
    assert_eq!(baked.name, "lake");
    assert!(baked.flow.is_some(), "baked with its flow state");
}

#[test]
fn a_folder_without_a_level_is_refused_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("empty")).unwrap();
    for (args, code) in [
        (&["check", "empty"][..], 2),
        (&["sim", "empty", "--steps", "1"][..], 1),
        (&["bake", "empty", "-o", "out.ron"][..], 1),
    ] {
        let out = spillway(dir.path(), args);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
        let message = stderr(&out);
        assert!(
            message.contains("empty") && message.contains("level.ron"),
            "{args:?}: {message}"
        );
    }
}
