//! Undo, redo, cancel and delete: the actions on what is being edited, which wait for (or,
//! Escape, undo) the stroke or drag in progress.

use super::EditorApp;
use crate::tools::Tool;

impl EditorApp {
    /// Deletes the selected body (with the Body tool), or else the selected feature.
    pub(super) fn delete_selected(&mut self) {
        if self.sculpt.tool == Tool::Body {
            if let Some(name) = self.bodies.delete(&mut self.document) {
                self.notify(format!("Deleted {name}"), false);
            }
        } else {
            self.authoring.commit_pending(&mut self.document);
            self.delete_selection();
        }
    }

    /// Cancels the stroke or drag in progress, or else clears the selection.
    pub(super) fn cancel(&mut self) {
        if let Some(stroke) = self.sculpt.stroke.take() {
            stroke.cancel(&mut self.document);
            self.notify("Stroke cancelled", false);
        } else if self.authoring.cancel(&mut self.document)
            || self.bodies.cancel(&mut self.document)
        {
            self.notify("Cancelled", false);
        } else {
            self.authoring.selection = None;
            self.bodies.selected = None;
        }
    }

    pub(super) fn undo(&mut self) {
        if self.gesture_in_progress() {
            return;
        }
        self.authoring.commit_pending(&mut self.document);
        self.bodies.commit_pending(&mut self.document);
        let label = self.document.history().undo_label().map(str::to_owned);
        if self.document.undo() {
            self.notify(format!("Undid {}", label.unwrap_or_default()), false);
        }
    }

    /// Whether a stroke, or a drag of a feature or a body, is under way.
    pub(super) fn gesture_in_progress(&self) -> bool {
        self.sculpt.stroke.is_some() || self.authoring.busy() || self.bodies.busy()
    }

    pub(super) fn redo(&mut self) {
        if self.gesture_in_progress() {
            return;
        }
        self.authoring.commit_pending(&mut self.document);
        self.bodies.commit_pending(&mut self.document);
        let label = self.document.history().redo_label().map(str::to_owned);
        if self.document.redo() {
            self.notify(format!("Redid {}", label.unwrap_or_default()), false);
        }
    }
}
