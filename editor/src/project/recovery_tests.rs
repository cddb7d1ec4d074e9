//! Tests of the recovery copies: written in the background, kept, offered, dropped.

use std::time::{Duration, Instant};

use spillway::Level;

use super::Recovery;
use crate::document::Document;

/// Ticks until the background write has ended; returns what the last tick said.
fn tick_until_written(
    recovery: &mut Recovery,
    document: &Document,
) -> Option<Result<std::path::PathBuf, super::RecoveryError>> {
    let limit = Instant::now() + Duration::from_secs(60);
    loop {
        let said = recovery.tick(document, Instant::now());
        if !recovery.writing() || Instant::now() > limit {
            return said;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn modified_document() -> Document {
    let mut level = Level::flat(96, 64, 1.0, 2.0);
    level.terrain.data[7] = 5.0;
    let mut document = Document::new(level, None);
    document.mark_modified();
    document
}

#[test]
fn the_timer_writes_the_copy_in_the_background_and_tells_when_it_is_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut recovery = Recovery::new(Some(dir.path().to_path_buf()), Duration::ZERO);
    let document = modified_document();
    assert!(recovery.tick(&document, Instant::now()).is_none());
    assert!(recovery.writing(), "the tick only starts the write");
    let written = tick_until_written(&mut recovery, &document)
        .expect("the write's end is told")
        .expect("written");
    let pending = recovery.pending();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].level_file, written);
    assert_eq!(&pending[0].load().expect("loads"), document.level());
    // Unchanged since: nothing is written again.
    assert!(recovery.tick(&document, Instant::now()).is_none());
    assert!(!recovery.writing());
}

#[test]
fn a_closing_window_waits_for_the_copy_and_keeps_it() {
    // `write_done` finishes a write as the timer's tick does (the copy kept, nothing new
    // started), so the window can close once it is true.
    let dir = tempfile::tempdir().expect("temp dir");
    let mut recovery = Recovery::new(Some(dir.path().to_path_buf()), Duration::ZERO);
    let document = modified_document();
    assert!(recovery.tick(&document, Instant::now()).is_none());
    let start = Instant::now();
    while !recovery.write_done() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the copy is written"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(!recovery.writing());
    assert_eq!(recovery.pending().len(), 1, "the copy is kept");
    assert!(recovery.write_done(), "nothing else under way");
    assert!(
        recovery.tick(&document, Instant::now()).is_none(),
        "written already"
    );
}

#[test]
fn a_copy_saved_or_dropped_while_it_is_written_leaves_nothing_behind() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut recovery = Recovery::new(Some(dir.path().to_path_buf()), Duration::ZERO);
    let mut document = modified_document();
    assert!(recovery.tick(&document, Instant::now()).is_none());
    assert!(recovery.writing());
    // The designer saves while the copy is still on its way.
    document.mark_saved(dir.path().join("level.ron"));
    recovery.discard(None);
    assert!(
        tick_until_written(&mut recovery, &document).is_none(),
        "an abandoned write tells nothing"
    );
    assert!(!recovery.writing());
    assert!(recovery.pending().is_empty(), "its copy was removed");
}

#[test]
fn a_copy_abandoned_by_another_document_or_a_quit_is_gone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut recovery = Recovery::new(Some(dir.path().to_path_buf()), Duration::ZERO);
    let document = modified_document();
    // Another level opened while the copy was on its way.
    assert!(recovery.tick(&document, Instant::now()).is_none());
    recovery.reset();
    let saved = Document::new(document.level().clone(), None);
    assert!(tick_until_written(&mut recovery, &saved).is_none());
    assert!(recovery.pending().is_empty(), "{:?}", recovery.pending());
    // The designer quits, not keeping the work, while a copy is written.
    assert!(recovery.tick(&document, Instant::now()).is_none());
    assert!(recovery.writing());
    recovery.discard(None);
    recovery.finish();
    assert!(!recovery.writing());
    assert!(recovery.pending().is_empty(), "{:?}", recovery.pending());
}

#[test]
fn a_copy_written_at_once_is_left_alone_by_another_editor() {
    // A Restore (or a lost GPU) writes its copy at once, not by the timer: it held no lock,
    // and a second editor started meanwhile offered the living run's copy as a crash's.
    let dir = tempfile::tempdir().expect("temp dir");
    let mut first = Recovery::new(Some(dir.path().to_path_buf()), Duration::from_secs(60));
    first.save(&modified_document()).expect("written");
    let second = Recovery::new(Some(dir.path().to_path_buf()), Duration::from_secs(60));
    assert!(second.pending().is_empty(), "{:?}", second.pending());
    drop(first);
    assert_eq!(second.pending().len(), 1, "once the first run is gone");
}

#[test]
fn a_copy_of_a_level_opened_by_a_relative_path_names_it_whole() {
    // Opened as `river/level.ron` and restored by an editor started in another folder: the
    // relative origin was read there, and Ctrl+S wrote a level somewhere else.
    let dir = tempfile::tempdir().expect("temp dir");
    let mut recovery = Recovery::new(Some(dir.path().to_path_buf()), Duration::ZERO);
    let mut document = Document::new(Level::flat(8, 8, 1.0, 0.0), Some("river/level.ron".into()));
    document.mark_modified();
    recovery.save(&document).expect("written");
    let origin = recovery.pending()[0].origin.clone().expect("an origin");
    let here = std::env::current_dir().expect("working folder");
    assert_eq!(origin, here.join("river/level.ron"));
}
