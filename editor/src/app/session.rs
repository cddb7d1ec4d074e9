//! What keeps the designer's work: the autosave timer, a save's bodies relinked into the
//! folder saved to (in the undo history too), and closing the window only once the work
//! under way has finished and unsaved changes were answered for.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use spillway::level::Body;

use super::{Action, Dialog, EditorApp, EditorError};

impl EditorApp {
    /// Writes the autosave recovery copy now, as the timer would.
    pub fn autosave_now(&mut self) -> Result<PathBuf, crate::project::recovery::RecoveryError> {
        self.recovery.save(&self.document)
    }

    /// Whether the designer has chosen to quit (the window closes once the work under way is
    /// done).
    pub fn quitting(&self) -> bool {
        self.quit_confirmed
    }

    /// Starts the autosave when it is due, on a background thread, and tells how it ended.
    pub(super) fn autosave(&mut self, ctx: &egui::Context) {
        if self.closing_after_autosave {
            // The window closes once the copy being written is done (killed half-way, it left
            // a folder behind).
            if self.recovery.write_done() {
                // Once: the close request comes back and is answered afresh (an edit made
                // while waiting asks about unsaved changes, and Cancel there keeps the window).
                self.closing_after_autosave = false;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            } else {
                ctx.request_repaint_after(Duration::from_millis(100));
            }
            return;
        }
        if self.quit_confirmed {
            // Don't save was chosen: a copy started now (the timer due in that frame) was
            // waited for by the close and offered at the next start.
            return;
        }
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
            // The designer works on: a quit answered before (Don't save) no longer holds (it
            // kept the autosave off and the next close unasked).
            self.quit_confirmed = false;
            return;
        }
        if self.document.is_modified() && !self.quit_confirmed {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.dialog = Some(Dialog::Unsaved { then: Action::Quit });
            return;
        }
        if self.recovery.writing() {
            // A recovery copy on its way: the window closes once it is written (the exit
            // waited for it with the window frozen and nothing said).
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            if !self.closing_after_autosave {
                self.notify(
                    "Closing once the recovery copy being written is done",
                    false,
                );
            }
            self.closing_after_autosave = true;
        }
    }

    /// Records that the document was saved to `path`, as it stood at history `state`.
    pub(crate) fn saved(&mut self, path: &Path, state: u64) {
        let old = self.document.path().map(Path::to_path_buf);
        self.recovery.discard(old.as_deref());
        self.recovery.discard(Some(path));
        self.document.mark_saved_as_of(path.to_path_buf(), state);
        self.recent.add(path);
        // Saving checks only what no level can mean; a game opens a level with the default
        // limits and the editor with its own, so say at once if this one is past them.
        let level = self.document.level();
        if let Err(e) = level.validate(&crate::project::open_limits()) {
            self.notify(
                format!(
                    "Saved {}, but it is past the limits the editor opens levels with ({e}): \
                     make it smaller before closing it, or it will not open here again",
                    path.display()
                ),
                true,
            );
            return;
        }
        match level.validate(&spillway::level::Limits::default()) {
            Ok(()) => self.notify(format!("Saved {}", path.display()), false),
            Err(e) => self.notify(
                format!(
                    "Saved {}, but a game's default limits refuse it ({e}): make it \
                     smaller, or have the game load it with file::load_with_limits",
                    path.display()
                ),
                true,
            ),
        }
    }

    /// Copies the bodies' glTF files into the folder of `path` where they lie outside it;
    /// returns the bodies with their paths relative to it, where any changed.
    pub(super) fn copy_body_files(
        &mut self,
        path: &Path,
    ) -> Result<Option<Vec<Body>>, EditorError> {
        let level = self.document.level();
        if level.bodies.is_empty() {
            return Ok(None);
        }
        let new_dir = path.parent().unwrap_or(Path::new("."));
        let old_dir = super::bodies::level_dir(&self.document);
        let (relinked, _) =
            crate::project::body_files::relink(&level.bodies, old_dir.as_deref(), new_dir)?;
        Ok((relinked != level.bodies).then_some(relinked))
    }

    /// Once a save to `saved_to` succeeded, the bodies as it wrote them become the
    /// document's, in its history too (an undo past the save brought back paths relative to
    /// the old folder, which the new one does not have: the bodies vanished and the next save
    /// failed). Saved into another folder, every other path the history holds relative to the
    /// old one (a body deleted before the save) names its file there by its full path.
    pub(crate) fn relink_bodies(&mut self, relinked: Option<Vec<Body>>, saved_to: &Path) {
        let old_dir = super::bodies::level_dir(&self.document);
        let new_dir = saved_to.parent().unwrap_or(Path::new("."));
        let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => a == b,
        };
        let moved_folder = old_dir.as_deref().is_none_or(|old| !same(old, new_dir));
        if relinked.is_none() && !moved_folder {
            return;
        }
        // The bodies as saved (unchanged: their paths hold in the new folder too).
        let bodies = &self.document.level().bodies;
        let saved = relinked.unwrap_or_else(|| bodies.clone());
        let moved: std::collections::HashMap<String, String> = (bodies.iter())
            .zip(saved)
            .map(|(old, new)| (old.gltf.clone(), new.gltf))
            .collect();
        let to = |gltf: &str| -> String {
            if let Some(new) = moved.get(gltf) {
                return new.clone();
            }
            match crate::tools::body::library::resolve(old_dir.as_deref(), gltf) {
                Ok(file) if moved_folder => file.to_string_lossy().into_owned(),
                _ => gltf.to_owned(),
            }
        };
        self.document.relink_bodies(&to);
        self.preview.relink_bodies(&to);
    }
}
