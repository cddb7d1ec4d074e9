//! Project files through the real menus and shortcuts: save and open, malformed files,
//! unsaved changes, dropped files, recent files and crash recovery (the bodies' files:
//! `body_files.rs`).

use std::path::Path;
use std::sync::Arc;

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use spillway_editor::app::Dialog;

use crate::support::{bumpy_level, editor_in, editor_with, line};

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
    ed.close_window();
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

#[test]
fn dont_save_on_quit_leaves_no_copy_to_offer() {
    // The autosave came due in the frame of Don't save: it started a copy of the work the
    // designer had just dropped, the window waited for it, and the next start offered it.
    let mut ed = crate::support::editor_autosaving(&bumpy_level());
    ed.drag(&line(ed.at(0.4, 0.5), ed.at(0.6, 0.5), 6), Modifiers::NONE);
    ed.frames(3);
    ed.close_window();
    ed.frames(2);
    assert!(matches!(
        ed.harness.state().dialog(),
        Some(Dialog::Unsaved { .. })
    ));
    ed.click("Don't save");
    ed.frames(5);
    let project = ed.dir.path().join("level.ron");
    let ed = restart(ed, Some(project));
    assert!(!offers_recovery(&ed), "the dropped work is offered");
}

#[test]
fn a_copy_that_cannot_load_stays_to_be_discarded() {
    // Restore failed and took the copy off the dialog, so Discard could not reach it: it was
    // offered again at every start.
    let mut ed = editor_with(&bumpy_level());
    let project = ed.dir.path().join("level.ron");
    ed.drag(&line(ed.at(0.4, 0.5), ed.at(0.6, 0.5), 6), Modifiers::NONE);
    let copy = ed.harness.state_mut().autosave_now().expect("autosave");
    std::fs::write(&copy, "(not a level").expect("spoil the copy");
    let mut ed = restart(ed, Some(project.clone()));
    ed.click("Restore");
    assert!(offers_recovery(&ed), "still offered, to be discarded");
    ed.click("Discard");
    let ed = restart(ed, Some(project));
    assert!(!offers_recovery(&ed), "offered again after Discard");
}
