//! Project files through the real menus and shortcuts: save and open, malformed files,
//! unsaved changes, dropped files, recent files, crash recovery, and a level opened without its
//! body files.

use std::path::Path;
use std::sync::Arc;

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use spillway_editor::app::Dialog;

use crate::support::{bumpy_level, crate_body, editor_in, editor_with, line};

#[test]
fn save_as_then_open_gives_the_same_document() {
    let mut ed = editor_with(&bumpy_level());
    ed.drag(&line(ed.at(0.3, 0.5), ed.at(0.7, 0.5), 8), Modifiers::NONE);
    let edited = ed.harness.state().document().level().clone();

    let copy = ed.dir.path().join("copy.ron");
    ed.dialogs.push(&copy);
    ed.click("File");
    ed.click_contains("Save as…");
    let doc = ed.harness.state().document();
    assert!(!doc.is_modified(), "saved");
    assert_eq!(doc.path(), Some(copy.as_path()));

    // Open the original (unchanged) project, then the copy: the copy holds the edit.
    let original = ed.dir.path().join("level.ron");
    ed.dialogs.push(&original);
    ed.key(Modifiers::COMMAND, Key::O);
    assert_eq!(ed.harness.state().document().level(), &bumpy_level());
    ed.dialogs.push(&copy);
    ed.key(Modifiers::COMMAND, Key::O);
    let doc = ed.harness.state().document();
    assert_eq!(
        doc.level(),
        &edited,
        "the saved and reopened level equals the edited one"
    );
    assert_eq!(doc.path(), Some(copy.as_path()));
    assert!(!doc.is_modified());
    let recent = ed.harness.state().recent_files();
    assert_eq!(recent.len(), 2, "{recent:?}");
    assert!(recent[0].ends_with("copy.ron"));
}

#[test]
fn ctrl_s_saves_to_the_open_file() {
    let mut ed = editor_with(&bumpy_level());
    ed.drag(
        &line(ed.at(0.45, 0.5), ed.at(0.55, 0.5), 4),
        Modifiers::NONE,
    );
    ed.key(Modifiers::COMMAND, Key::S);
    let path = ed.dir.path().join("level.ron");
    let saved = spillway::level::file::load(&path).expect("load");
    assert_eq!(&saved, ed.harness.state().document().level());
    assert!(!ed.harness.state().document().is_modified());
}

#[test]
fn opening_a_malformed_file_shows_the_error_and_keeps_the_document() {
    let mut ed = editor_with(&bumpy_level());
    ed.drag(
        &line(ed.at(0.45, 0.5), ed.at(0.55, 0.5), 4),
        Modifiers::NONE,
    );
    ed.key(Modifiers::COMMAND, Key::S);
    let level = ed.harness.state().document().level().clone();
    let bad = ed.dir.path().join("broken.ron");
    std::fs::write(&bad, "(\n    format_version: 1,\n    name: 42,\n)\n").expect("write");

    ed.dialogs.push(&bad);
    ed.key(Modifiers::COMMAND, Key::O);
    let Some(Dialog::Error { message, .. }) = ed.harness.state().dialog().cloned() else {
        panic!("an error dialog, got {:?}", ed.harness.state().dialog());
    };
    assert!(message.contains("broken.ron"), "names the file: {message}");
    assert!(message.contains(":3:"), "names the line: {message}");
    // The message is on screen, and the document is untouched.
    ed.harness.get_by_label_contains("broken.ron");
    assert_eq!(ed.harness.state().document().level(), &level);
    assert!(
        ed.harness
            .state()
            .document()
            .path()
            .is_some_and(|p| p.ends_with("level.ron"))
    );

    ed.click("OK");
    assert!(ed.harness.state().dialog().is_none());
}

#[test]
fn opening_over_unsaved_changes_asks_first() {
    let mut ed = editor_with(&bumpy_level());
    ed.drag(
        &line(ed.at(0.45, 0.5), ed.at(0.55, 0.5), 4),
        Modifiers::NONE,
    );
    let edited = ed.harness.state().document().level().clone();
    let other = ed.dir.path().join("level.ron");

    ed.dialogs.push(&other);
    ed.key(Modifiers::COMMAND, Key::O);
    assert!(matches!(
        ed.harness.state().dialog(),
        Some(Dialog::Unsaved { .. })
    ));
    ed.click("Cancel");
    assert_eq!(
        ed.harness.state().document().level(),
        &edited,
        "Cancel keeps the edit"
    );

    ed.key(Modifiers::COMMAND, Key::O);
    ed.click("Don't save");
    assert_eq!(
        ed.harness.state().document().level(),
        &bumpy_level(),
        "opened without saving"
    );
}

#[derive(Debug)]
struct Dropped(std::path::PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

/// Drops `path` on the editor's window and lets it run a few frames.
fn drop_on_window(ed: &mut crate::support::Editor, path: std::path::PathBuf) {
    ed.harness
        .input_mut()
        .dropped_files
        .push(Arc::new(Dropped(path)));
    ed.frames(3);
}

#[test]
fn a_level_dropped_on_the_window_opens() {
    let mut ed = editor_with(&bumpy_level());
    let mut other = bumpy_level();
    other.name = "dropped".into();
    let folder = ed.dir.path().join("other");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let path = crate::support::save_level(&other, &folder);
    drop_on_window(&mut ed, path);
    assert_eq!(ed.harness.state().document().level().name, "dropped");
}

#[test]
fn autosaved_work_is_offered_back_after_a_crash() {
    let mut ed = editor_with(&bumpy_level());
    ed.drag(&line(ed.at(0.4, 0.5), ed.at(0.6, 0.5), 6), Modifiers::NONE);
    let edited = ed.harness.state().document().level().clone();
    ed.harness.state_mut().autosave_now().expect("autosave");
    // The editor "crashes": it is dropped without closing.
    let project = ed.dir.path().join("level.ron");
    let dir = ed.dir;
    drop(ed.harness);

    let mut ed = editor_in(dir, Some(project));
    assert!(matches!(
        ed.harness.state().dialog(),
        Some(Dialog::Recover(_))
    ));
    ed.click("Restore");
    let doc = ed.harness.state().document();
    assert_eq!(doc.level(), &edited);
    assert!(doc.is_modified(), "restored work is not saved yet");
}

#[test]
fn closing_the_window_over_unsaved_changes_asks_first() {
    let mut ed = editor_with(&bumpy_level());
    ed.drag(
        &line(ed.at(0.45, 0.5), ed.at(0.55, 0.5), 4),
        Modifiers::NONE,
    );
    ed.harness
        .input_mut()
        .viewports
        .entry(egui::ViewportId::ROOT)
        .or_default()
        .events
        .push(egui::ViewportEvent::Close);
    ed.frames(2);
    assert!(matches!(
        ed.harness.state().dialog(),
        Some(Dialog::Unsaved {
            then: spillway_editor::app::Action::Quit
        })
    ));
    ed.click("Cancel");
    assert!(
        ed.harness.state().document().is_modified(),
        "still open, still edited"
    );
}

#[test]
fn a_project_folder_opens_its_level() {
    // `spillway edit projects/crate_dam`: the folder, not its level.ron.
    let dir = tempfile::tempdir().expect("temp dir");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).expect("mkdir");
    let mut level = bumpy_level();
    level.name = "the project".into();
    crate::support::save_level(&level, &project);
    let folder = project.clone();
    let ed = editor_in(dir, Some(folder));
    assert!(
        ed.harness.state().dialog().is_none(),
        "{:?}",
        ed.harness.state().dialog()
    );
    let doc = ed.harness.state().document();
    assert_eq!(doc.level().name, "the project");
    assert_eq!(doc.path(), Some(project.join("level.ron").as_path()));
}

#[test]
fn a_project_folder_dropped_on_the_window_opens_and_one_without_a_level_says_so() {
    let mut ed = editor_with(&bumpy_level());
    let mut other = bumpy_level();
    other.name = "dropped folder".into();
    let folder = ed.dir.path().join("other");
    std::fs::create_dir_all(&folder).expect("mkdir");
    crate::support::save_level(&other, &folder);
    drop_on_window(&mut ed, folder);
    assert_eq!(ed.harness.state().document().level().name, "dropped folder");

    let empty = ed.dir.path().join("empty");
    std::fs::create_dir_all(&empty).expect("mkdir");
    drop_on_window(&mut ed, empty);
    let Some(Dialog::Error { message, .. }) = ed.harness.state().dialog().cloned() else {
        panic!("an error dialog, got {:?}", ed.harness.state().dialog());
    };
    assert!(message.contains("empty"), "names the folder: {message}");
    assert!(
        message.contains("level.ron"),
        "says what is missing: {message}"
    );
    assert_eq!(
        ed.harness.state().document().level().name,
        "dropped folder",
        "the open level is kept"
    );
}

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

    // With the file back beside the level, it opens without a word.
    let bodies = ed.dir.path().join("bodies");
    std::fs::create_dir_all(&bodies).expect("mkdir");
    let crate_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/crate.glb");
    ed.frames(2);
    let tried = ed.harness.state().body_files_parsed();
    std::fs::copy(crate_file, bodies.join("crate.glb")).expect("copy the crate");
    // The open level finds it at once (the failure was kept, not retried each frame, but a
    // file that changed is tried again).
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

#[test]
fn saving_a_level_past_the_default_limits_says_the_game_will_refuse_it() {
    use spillway::level::{Limits, Shape, Source, SourceKind};
    // Disabled sources along the north edge up to the limit on the cells objects cover (2^18
    // on a map this small), clear of the middle where the new one will go.
    let mut level = bumpy_level();
    let source = |i: usize, x1: f32, y1: f32| Source {
        name: format!("rain {i}"),
        shape: Shape::Box {
            x0: 0.0,
            y0: 0.0,
            x1,
            y1,
        },
        kind: SourceKind::Rate { m3_per_s: 1.0 },
        enabled: false,
    };
    while level.validate(&Limits::default()).is_ok() {
        level.sources.push(source(level.sources.len(), 96.0, 10.0));
    }
    level.sources.pop();
    // Fill the rest with a narrow box, so any other object tips it over.
    let n = level.sources.len();
    level.sources.push(source(n, 96.0, 0.5));
    while level.validate(&Limits::default()).is_err() {
        let last = level.sources.last_mut().unwrap();
        let Shape::Box { x1, .. } = &mut last.shape else {
            unreachable!()
        };
        *x1 -= 1.0;
        assert!(*x1 > 0.0, "a narrow box fits");
    }
    let mut ed = editor_with(&level);
    ed.key(Modifiers::COMMAND, Key::S);
    let (text, error) = ed.harness.state().notice().expect("a notice");
    assert!(!error && text.starts_with("Saved"), "{text}");

    // One more source placed with a click: saved, and said to be past the limits.
    ed.key(Modifiers::NONE, Key::I);
    ed.click_at(ed.at(0.5, 0.5));
    assert_eq!(ed.harness.state().document().level().sources.len(), n + 2);
    ed.key(Modifiers::COMMAND, Key::S);
    let (text, error) = ed.harness.state().notice().expect("a notice");
    assert!(error, "{text}");
    assert!(
        text.contains("a game's default limits refuse it") && text.contains("sources, sinks"),
        "{text}"
    );
    let path = ed.dir.path().join("level.ron");
    assert!(
        !ed.harness.state().document().is_modified(),
        "saved all the same"
    );
    let limits = Limits {
        max_coverage: usize::MAX,
        ..Limits::default()
    };
    assert!(spillway::level::file::load_with_limits(&path, &limits).is_ok());
    assert!(
        spillway::level::file::load(&path).is_err(),
        "the game's default refuses it"
    );

    // The editor opens it again: the designer's work is not locked out.
    let edited = ed.harness.state().document().level().clone();
    let mut other = bumpy_level();
    other.name = "other".into();
    let folder = ed.dir.path().join("other");
    std::fs::create_dir_all(&folder).expect("mkdir");
    drop_on_window(&mut ed, crate::support::save_level(&other, &folder));
    assert_eq!(ed.harness.state().document().level().name, "other");
    drop_on_window(&mut ed, path);
    assert_eq!(ed.harness.state().document().level(), &edited);
}

#[test]
fn a_body_placed_from_the_library_is_autosaved_and_restored() {
    let mut ed = editor_with(&bumpy_level());
    ed.key(Modifiers::NONE, Key::K);
    ed.click_at(ed.at(0.5, 0.55));
    let edited = ed.harness.state().document().level().clone();
    assert_eq!(edited.bodies.len(), 1);
    assert!(
        Path::new(&edited.bodies[0].gltf).is_absolute(),
        "a library body names its file by its path until the level is saved: {}",
        edited.bodies[0].gltf
    );
    ed.harness
        .state_mut()
        .autosave_now()
        .expect("autosave with a library body");
    let project = ed.dir.path().join("level.ron");
    let dir = ed.dir;
    drop(ed.harness);

    let mut ed = editor_in(dir, Some(project));
    ed.click("Restore");
    assert_eq!(ed.harness.state().document().level(), &edited);
}

#[test]
fn a_new_level_larger_than_the_gpu_draws_is_warned_of() {
    let mut ed = editor_with(&bumpy_level());
    ed.key(Modifiers::COMMAND, Key::N);
    let warning = "cells a side";
    assert!(ed.harness.query_by_label_contains(warning).is_none());
    let max = ed.harness.state().max_drawn_side().expect("a renderer");
    let typed = (max + 1).to_string();
    ed.harness
        .get_all_by(|n| n.value().is_some_and(|v| v == "256 cells"))
        .next()
        .expect("the Cells in x field")
        .click();
    ed.harness.run_steps(3);
    ed.key(Modifiers::COMMAND, Key::A);
    ed.harness.event(egui::Event::Text(typed.clone()));
    ed.key(Modifiers::NONE, Key::Enter);
    ed.harness.run_steps(3);
    let wanted = format!("at most {max} cells a side: the viewport cannot show a {typed} × 256");
    assert!(
        ed.harness.query_by_label_contains(&wanted).is_some(),
        "the dialog warns that the viewport cannot draw it"
    );
}

#[test]
fn a_desktop_with_no_file_dialog_is_said_so() {
    let mut ed = editor_with(&bumpy_level());
    ed.dialogs.set_no_desktop(true);
    ed.key(Modifiers::COMMAND, Key::O);
    ed.frames(2);
    assert!(
        ed.harness
            .query_by_label_contains("No file dialog could be shown")
            .is_some(),
        "Open with no file dialog says why nothing happened"
    );
    assert!(matches!(
        ed.harness.state().dialog(),
        Some(Dialog::Error { .. })
    ));
}

/// Sculpts a stroke across the middle of the view and writes the autosave copy at once.
fn edit_and_autosave(ed: &mut crate::support::Editor) -> spillway::Level {
    ed.drag(&line(ed.at(0.4, 0.5), ed.at(0.6, 0.5), 6), Modifiers::NONE);
    ed.harness.state_mut().autosave_now().expect("autosave");
    ed.harness.state().document().level().clone()
}

/// "Crashes" the editor (drops it without closing) and starts it again on `project`.
fn restart(
    ed: crate::support::Editor,
    project: Option<std::path::PathBuf>,
) -> crate::support::Editor {
    let dir = ed.dir;
    drop(ed.harness);
    editor_in(dir, project)
}

fn offers_recovery(ed: &crate::support::Editor) -> bool {
    matches!(ed.harness.state().dialog(), Some(Dialog::Recover(_)))
}

#[test]
fn autosaved_untitled_work_survives_a_start_that_opens_a_project() {
    // Every start opens a project (the sample when none is named); opening it dropped the
    // untitled document's copy before the Restore button could load it.
    let dir = tempfile::tempdir().expect("temp dir");
    let project = crate::support::save_level(&bumpy_level(), dir.path());
    let mut ed = editor_in(dir, None);
    assert!(ed.harness.state().document().path().is_none(), "untitled");
    let edited = edit_and_autosave(&mut ed);
    let mut ed = restart(ed, Some(project));
    assert!(offers_recovery(&ed));
    ed.click("Restore");
    let doc = ed.harness.state().document();
    assert_eq!(doc.level(), &edited);
    assert!(doc.path().is_none(), "still untitled");
}

#[test]
fn a_copy_left_for_later_outlives_this_runs_edits_and_saves() {
    let mut ed = editor_with(&bumpy_level());
    let project = ed.dir.path().join("level.ron");
    let crashed = edit_and_autosave(&mut ed);
    let mut ed = restart(ed, Some(project.clone()));
    ed.click("Later");
    // This run edits the same file, autosaves, saves, and edits and drops its changes.
    edit_and_autosave(&mut ed);
    ed.key(Modifiers::COMMAND, Key::S);
    assert!(!ed.harness.state().document().is_modified());
    let mut ed = restart(ed, Some(project));
    assert!(
        offers_recovery(&ed),
        "the earlier run's copy is still offered"
    );
    ed.click("Restore");
    assert_eq!(ed.harness.state().document().level(), &crashed);
}

#[test]
fn undoing_back_to_the_saved_state_drops_the_copy() {
    let mut ed = editor_with(&bumpy_level());
    let project = ed.dir.path().join("level.ron");
    edit_and_autosave(&mut ed);
    ed.key(Modifiers::COMMAND, Key::Z);
    assert!(!ed.harness.state().document().is_modified());
    ed.frames(2);
    let ed = restart(ed, Some(project));
    assert!(!offers_recovery(&ed), "nothing unsaved to offer");
}

#[test]
fn restored_work_once_saved_is_not_offered_again() {
    let mut ed = editor_with(&bumpy_level());
    let project = ed.dir.path().join("level.ron");
    let edited = edit_and_autosave(&mut ed);
    let mut ed = restart(ed, Some(project.clone()));
    ed.click("Restore");
    ed.key(Modifiers::COMMAND, Key::S);
    let ed = restart(ed, Some(project.clone()));
    assert!(!offers_recovery(&ed));
    assert_eq!(ed.harness.state().document().level(), &edited, "saved");
}

#[test]
fn restoring_one_of_two_copies_keeps_the_other_for_the_next_start() {
    // Restoring the second copy at once replaced the first, restored and unsaved, and (of the
    // same file) removed its copy: one restore a start.
    let mut ed = editor_with(&bumpy_level());
    let project = ed.dir.path().join("level.ron");
    let first = edit_and_autosave(&mut ed);
    let mut ed = restart(ed, Some(project.clone()));
    ed.click("Later");
    edit_and_autosave(&mut ed);
    edit_and_autosave(&mut ed);
    let mut ed = restart(ed, Some(project.clone()));
    ed.click("Restore");
    assert!(!offers_recovery(&ed), "one restore a start");
    assert!(
        (ed.harness)
            .query_by_label_contains("1 more autosaved copy waits for the next start")
            .is_some()
    );
    let restored = ed.harness.state().document().level().clone();
    let ed = restart(ed, Some(project));
    assert!(offers_recovery(&ed), "the other copy is offered again");
    let levels: Vec<spillway::Level> = match ed.harness.state().dialog() {
        Some(Dialog::Recover(list)) => list.iter().map(|w| w.load().expect("loads")).collect(),
        other => panic!("{other:?}"),
    };
    // The first run's copy, and this run's of the work it restored.
    assert_eq!(levels.len(), 2);
    assert!(levels.contains(&first) && levels.contains(&restored));
    assert_ne!(first, restored);
}
