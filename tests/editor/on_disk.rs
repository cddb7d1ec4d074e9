//! A level file replaced on disk while it is open (another editor, `spillway bake`, a
//! checkout) is not overwritten without a question: Overwrite, Save as… or Cancel.

use egui::{Key, Modifiers};
use spillway::level::file;
use spillway_editor::app::Dialog;

use crate::support::{Editor, bumpy_level, editor_with, line};

/// The open level, edited here, and written meanwhile by "another program" as `theirs`.
fn edited_here_and_written_elsewhere() -> (Editor, spillway::Level) {
    let mut ed = editor_with(&bumpy_level());
    ed.drag(&line(ed.at(0.4, 0.5), ed.at(0.6, 0.5), 6), Modifiers::NONE);
    let mut theirs = bumpy_level();
    theirs.terrain.set(3, 3, 42.0);
    file::save(&theirs, &ed.dir.path().join("level.ron")).expect("the other program saves");
    (ed, theirs)
}

fn asks(ed: &Editor) -> bool {
    matches!(
        ed.harness.state().dialog(),
        Some(Dialog::ChangedOnDisk { .. })
    )
}

#[test]
fn saving_over_a_file_changed_on_disk_asks_first() {
    let (mut ed, theirs) = edited_here_and_written_elsewhere();
    let path = ed.dir.path().join("level.ron");
    ed.key(Modifiers::COMMAND, Key::S);
    assert!(asks(&ed), "{:?}", ed.harness.state().dialog());
    assert_eq!(
        file::load(&path).expect("load"),
        theirs,
        "nothing written yet"
    );
    ed.click("Cancel");
    assert_eq!(
        file::load(&path).expect("load"),
        theirs,
        "Cancel writes nothing"
    );
    assert!(ed.harness.state().document().is_modified());
    // Asked again, and overwritten.
    ed.key(Modifiers::COMMAND, Key::S);
    assert!(asks(&ed));
    ed.click("Overwrite");
    let doc = ed.harness.state().document();
    assert_eq!(&file::load(&path).expect("load"), doc.level());
    assert!(!doc.is_modified());
    // The editor's own saves since ask nothing.
    ed.drag(&line(ed.at(0.4, 0.4), ed.at(0.6, 0.4), 6), Modifiers::NONE);
    ed.key(Modifiers::COMMAND, Key::S);
    assert!(!asks(&ed), "its own save taken for another's");
    assert!(!ed.harness.state().document().is_modified());
}

#[test]
fn save_as_keeps_the_other_programs_file() {
    let (mut ed, theirs) = edited_here_and_written_elsewhere();
    let path = ed.dir.path().join("level.ron");
    ed.key(Modifiers::COMMAND, Key::S);
    let mine = ed.dir.path().join("mine.ron");
    ed.dialogs.push(&mine);
    ed.click("Save as…");
    assert_eq!(file::load(&path).expect("load"), theirs);
    let doc = ed.harness.state().document();
    assert_eq!(&file::load(&mine).expect("load"), doc.level());
    assert_eq!(doc.path(), Some(mine.as_path()));
}

#[test]
fn quitting_with_save_over_a_changed_file_quits_after_the_overwrite() {
    let (mut ed, _) = edited_here_and_written_elsewhere();
    let path = ed.dir.path().join("level.ron");
    ed.close_window();
    ed.frames(2);
    ed.click("Save");
    assert!(asks(&ed), "{:?}", ed.harness.state().dialog());
    ed.click("Overwrite");
    assert_eq!(
        &file::load(&path).expect("load"),
        ed.harness.state().document().level()
    );
    assert!(ed.harness.state().quitting(), "the quit follows the save");
}
