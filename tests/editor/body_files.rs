//! The bodies' glTF files through the real menus: a level opened without them, a path out
//! of the level's folder, Save As into another folder (and undo past it), a file changed on
//! disk.

use std::path::Path;

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use spillway_editor::app::Dialog;

use crate::support::{bumpy_level, crate_body, editor_in, line};

#[test]
fn a_level_opened_without_its_body_files_says_which_body_cannot_load() {
    // A level copied without its `bodies/` folder: it opens, and the designer is told that its
    // crates are missing rather than finding the dam silently gone.
    let dir = tempfile::tempdir().expect("temp dir");
    let mut level = bumpy_level();
    level.name = "copied level".into();
    let crate_at = |name: &str, x: f32| crate_body(name, "bodies/crate.glb", [x, 10.0, 3.0]);
    level.bodies = vec![crate_at("left crate", 8.0), crate_at("right crate", 12.0)];
    let path = crate::support::save_level(&level, dir.path());
    let mut ed = editor_in(dir, Some(path.clone()));
    let Some(Dialog::Error { title, message }) = ed.harness.state().dialog().cloned() else {
        panic!("an error dialog, got {:?}", ed.harness.state().dialog());
    };
    println!("{title}: {message}");
    assert_eq!(title, "Some bodies cannot load");
    assert!(
        message.starts_with("2 of the level's 2 bodies cannot load their glTF file")
            && message.contains("bodies[0] (left crate):")
            && message.contains("crate.glb: cannot read it"),
        "{message}"
    );
    ed.harness.get_by_label_contains("left crate");
    ed.click("OK");
    assert!(ed.harness.state().dialog().is_none());
    assert_eq!(ed.harness.state().document().path(), Some(path.as_path()));
    assert_eq!(ed.harness.state().document().level().bodies.len(), 2);
    // It saves as it is (the save tried to copy the missing files in and failed, so the
    // level could not be saved at all until its crates were deleted).
    ed.key(egui::Modifiers::COMMAND, egui::Key::S);
    assert!(
        ed.harness.state().dialog().is_none(),
        "{:?}",
        ed.harness.state().dialog()
    );
    let saved = spillway::level::file::load(&path).expect("the level saved");
    assert!(saved.bodies.iter().all(|b| b.gltf == "bodies/crate.glb"));
    assert!(
        !ed.dir.path().join("bodies").exists(),
        "no empty folder made"
    );

    // With the file back beside the level, it opens without a word.
    let bodies = ed.dir.path().join("bodies");
    std::fs::create_dir_all(&bodies).expect("mkdir");
    let crate_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/crate.glb");
    ed.frames(2);
    let tried = ed.harness.state().body_files_parsed();
    std::fs::copy(crate_file, bodies.join("crate.glb")).expect("copy the crate");
    // The open level finds it within the interval it looks at failed files in (the failure
    // was kept, not retried each frame, but a file that changed is tried again).
    std::thread::sleep(spillway_editor::tools::body::library::RECHECK);
    ed.frames(2);
    assert_eq!(
        ed.harness.state().body_files_parsed(),
        tried + 1,
        "parsed once it is back"
    );
    ed.frames(2);
    assert_eq!(
        ed.harness.state().body_files_parsed(),
        tried + 1,
        "and only once"
    );
    ed.dialogs.push(&path);
    ed.key(Modifiers::COMMAND, Key::O);
    assert!(
        ed.harness.state().dialog().is_none(),
        "{:?}",
        ed.harness.state().dialog()
    );
    ed.harness.get_by_label_contains("Opened");
    assert!(!ed.harness.state().document().is_modified());
}

#[test]
fn a_body_naming_a_file_outside_the_level_folder_is_neither_read_nor_copied() {
    // A shared level whose body names `../crate.glb`: the editor loaded it from beside the
    // project (any file on disk, `/dev/zero` among them) and Save copied it into `bodies/`.
    let dir = tempfile::tempdir().expect("temp dir");
    let crate_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/crate.glb");
    std::fs::copy(crate_file, dir.path().join("crate.glb")).expect("copy the crate");
    let inner = dir.path().join("inner");
    std::fs::create_dir_all(&inner).expect("mkdir");
    let mut level = bumpy_level();
    level.bodies = vec![crate_body("stray", "../crate.glb", [8.0, 10.0, 3.0])];
    let path = crate::support::save_level(&level, &inner);
    let mut ed = editor_in(dir, Some(path));
    let Some(Dialog::Error { message, .. }) = ed.harness.state().dialog().cloned() else {
        panic!("an error dialog, got {:?}", ed.harness.state().dialog());
    };
    println!("{message}");
    assert!(
        message.contains("bodies[0] (stray):") && message.contains("outside"),
        "{message}"
    );
    assert_eq!(
        ed.harness.state().body_files_parsed(),
        0,
        "nothing was read"
    );
    ed.click("OK");
    ed.key(Modifiers::COMMAND, Key::S);
    ed.frames(2);
    assert!(
        !ed.dir.path().join("inner/bodies").exists(),
        "nothing was copied into the project"
    );
    assert!(matches!(
        ed.harness.state().dialog(),
        Some(Dialog::Error { .. })
    ));
}

#[test]
fn an_undo_after_save_as_into_another_folder_keeps_the_bodies_files() {
    // Save As copied `crate.glb` into the new folder's `bodies/` as an undo step; undoing it
    // (or past it) brought back `crate.glb`, which the new folder does not have: the crate
    // vanished, and the next save failed.
    let mut level = bumpy_level();
    level.bodies = vec![crate_body("crate", "crate.glb", [8.0, 10.0, 3.0])];
    let mut ed = crate::support::editor_with_crate_file(&level);
    // One edit before the save: a stroke across the middle.
    ed.drag(&line(ed.at(0.4, 0.5), ed.at(0.6, 0.5), 6), Modifiers::NONE);
    let terrain = ed.terrain();
    let other = ed.dir.path().join("other");
    std::fs::create_dir_all(&other).expect("mkdir");
    let copy = other.join("level.ron");
    ed.dialogs.push(&copy);
    ed.key(Modifiers::COMMAND | Modifiers::SHIFT, Key::S);
    let doc = ed.harness.state().document();
    assert_eq!(doc.path(), Some(copy.as_path()));
    assert!(!doc.is_modified(), "saved");
    assert_eq!(doc.level().bodies[0].gltf, "bodies/crate.glb");
    assert!(other.join("bodies/crate.glb").is_file());
    // Undo: the stroke goes; the crate keeps its file in the new folder.
    ed.key(Modifiers::COMMAND, Key::Z);
    assert_ne!(ed.terrain(), terrain, "the stroke was undone");
    let bodies = &ed.harness.state().document().level().bodies;
    assert_eq!(bodies[0].gltf, "bodies/crate.glb");
    ed.key(Modifiers::COMMAND, Key::S);
    assert!(
        ed.harness.state().dialog().is_none(),
        "the save went through"
    );
    assert!(!ed.harness.state().document().is_modified());
}

#[test]
fn a_body_deleted_before_save_as_comes_back_with_its_file() {
    // The only body is deleted, then the level saved into another folder: nothing was
    // relinked, so an undo brought back `log.glb`, which the new folder does not have.
    let mut level = bumpy_level();
    level.bodies = vec![crate_body("log", "log.glb", [10.0, 10.0, 3.0])];
    let dir = tempfile::tempdir().expect("temp dir");
    let path = crate::support::save_level(&level, dir.path());
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    std::fs::copy(assets.join("log.glb"), dir.path().join("log.glb")).expect("copy");
    let mut ed = editor_in(dir, Some(path));
    ed.key(Modifiers::NONE, Key::K);
    let at = ed
        .harness
        .state()
        .screen_pos([10.0, 10.0, 3.0])
        .expect("seen");
    ed.click_screen(at);
    assert_eq!(ed.harness.state().selected_body(), Some(0));
    ed.key(Modifiers::NONE, Key::Delete);
    assert!(ed.harness.state().document().level().bodies.is_empty());
    let other = ed.dir.path().join("other");
    std::fs::create_dir_all(&other).expect("mkdir");
    let copy = other.join("level.ron");
    ed.dialogs.push(&copy);
    ed.key(Modifiers::COMMAND | Modifiers::SHIFT, Key::S);
    assert_eq!(ed.harness.state().document().path(), Some(copy.as_path()));
    ed.key(Modifiers::COMMAND, Key::Z);
    let bodies = ed.harness.state().document().level().bodies.clone();
    assert_eq!(bodies.len(), 1, "the undo brings the log back");
    println!("{}", bodies[0].gltf);
    ed.key(Modifiers::COMMAND, Key::S);
    assert!(
        ed.harness.state().dialog().is_none(),
        "{:?}",
        ed.harness.state().dialog()
    );
    assert!(
        other.join("bodies/log.glb").is_file(),
        "copied into the new folder"
    );
    assert_eq!(
        ed.harness.state().document().level().bodies[0].gltf,
        "bodies/log.glb"
    );
}

#[test]
fn a_body_file_changed_on_disk_is_drawn_anew_and_the_old_mesh_goes() {
    // Each parse of a changed file is a new mesh: the old one stayed on the GPU for good.
    let mut level = bumpy_level();
    level.bodies = vec![crate_body("crate", "crate.glb", [8.0, 10.0, 3.0])];
    let mut ed = crate::support::editor_with_crate_file(&level);
    ed.frames(3);
    assert_eq!(ed.harness.state().body_meshes_uploaded(), 1);
    let parsed = ed.harness.state().body_files_parsed();
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    for (k, other) in ["log.glb", "barrel.glb", "plank.glb"].iter().enumerate() {
        std::fs::copy(assets.join(other), ed.dir.path().join("crate.glb")).expect("copy");
        std::thread::sleep(std::time::Duration::from_millis(600));
        ed.frames(3);
        assert_eq!(ed.harness.state().body_files_parsed(), parsed + k + 1);
        assert_eq!(ed.harness.state().body_meshes_uploaded(), 1, "{other}");
    }
}
