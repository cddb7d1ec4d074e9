//! What keeps the designer's work: the autosave timer, and closing the window only once the
//! file work has finished and unsaved changes were answered for.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::{Action, Dialog, EditorApp};

impl EditorApp {
    /// Writes the autosave recovery copy now, as the timer would.
    pub fn autosave_now(&mut self) -> Result<PathBuf, crate::project::recovery::RecoveryError> {
        self.recovery.save(&self.document)
    }

    /// Starts the autosave when it is due, on a background thread, and tells how it ended.
    pub(super) fn autosave(&mut self, ctx: &egui::Context) {
        if self.gesture_in_progress() || self.file_task.is_some() {
            // Not beside a background save or import: one write of the level at a time.
            return;
        }
        let now = Instant::now();
        match self.recovery.tick(&self.document, now) {
            Some(Ok(_)) => self.notify("Autosaved a recovery copy", false),
            Some(Err(e)) => self.notify(format!("Autosave failed: {e}"), true),
            None => {}
        }
        if self.recovery.writing() {
            // Its end is told, and the next one timed, from a frame.
            ctx.request_repaint_after(Duration::from_millis(100));
        } else if self.document.is_modified() {
            ctx.request_repaint_after(self.recovery.due_in(now).max(Duration::from_millis(250)));
        }
    }

    pub(super) fn handle_close_request(&mut self, ctx: &egui::Context) {
        if !ctx.input(|i| i.viewport().close_requested()) {
            return;
        }
        if self.file_task.is_some() || self.bake.is_some() {
            // Closing now could lose the file being written or the bake's water: wait for it
            // (or Cancel).
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.notify("Wait for the work under way to finish, or cancel it", true);
            return;
        }
        if self.document.is_modified() && !self.quit_confirmed {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.dialog = Some(Dialog::Unsaved { then: Action::Quit });
        }
    }
}
