//! `FileDialogs`: the questions the editor asks the file system's user. [`NativeDialogs`] asks
//! through the desktop (rfd); [`ScriptedDialogs`] answers from a queue, for tests.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::HeightmapFormat;

/// Asks the user for file paths. Every method returns `None` when the user cancels.
pub trait FileDialogs {
    /// A level file to open.
    fn open_level(&mut self, start_dir: Option<&Path>) -> Option<PathBuf>;
    /// Where to save a level, suggesting `file_name`.
    fn save_level(&mut self, start_dir: Option<&Path>, file_name: &str) -> Option<PathBuf>;
    /// A heightmap file to import.
    fn open_heightmap(&mut self, start_dir: Option<&Path>) -> Option<PathBuf>;
    /// A glTF body file (`.glb`, `.gltf`) to import.
    fn open_body(&mut self, start_dir: Option<&Path>) -> Option<PathBuf>;
    /// Where to export a heightmap of `format`, suggesting `file_name`.
    fn save_heightmap(
        &mut self,
        start_dir: Option<&Path>,
        file_name: &str,
        format: HeightmapFormat,
    ) -> Option<PathBuf>;
    /// A folder to write several files into (the maps of a run).
    fn pick_folder(&mut self, start_dir: Option<&Path>, title: &str) -> Option<PathBuf>;
    /// Why the last question got no answer when no dialog could be shown at all (rather than
    /// the user cancelling); taken once.
    fn take_unavailable(&mut self) -> Option<String> {
        None
    }
}

/// The desktop's native file dialogs (the XDG portal on Linux, falling back to zenity).
#[derive(Clone, Debug, Default)]
pub struct NativeDialogs {
    unavailable: Option<String>,
}

/// Quicker than anyone can cancel a dialog: a question answered by nothing this fast was never
/// shown (rfd returns `None` both for a cancel and for no portal and no zenity).
const NEVER_SHOWN: std::time::Duration = std::time::Duration::from_millis(100);

/// What the editor says when no file dialog can be shown.
pub const NO_DIALOG: &str = "No file dialog could be shown. On Linux install the XDG desktop \
     portal (xdg-desktop-portal with a backend such as xdg-desktop-portal-gtk) or zenity. \
     Meanwhile, drop files onto the window, or open a level from the command line: \
     spillway edit LEVEL.ron";

impl NativeDialogs {
    /// Asks through `dialog`, noting when it returned nothing quicker than a person could
    /// cancel it.
    fn ask(&mut self, dialog: impl FnOnce() -> Option<PathBuf>) -> Option<PathBuf> {
        let asked = std::time::Instant::now();
        let answer = dialog();
        if answer.is_none() && asked.elapsed() < NEVER_SHOWN {
            self.unavailable = Some(NO_DIALOG.into());
        }
        answer
    }
}

fn dialog(start_dir: Option<&Path>) -> rfd::FileDialog {
    let d = rfd::FileDialog::new();
    match start_dir {
        Some(dir) if dir.is_dir() => d.set_directory(dir),
        _ => d,
    }
}

impl FileDialogs for NativeDialogs {
    fn open_level(&mut self, start_dir: Option<&Path>) -> Option<PathBuf> {
        self.ask(|| {
            dialog(start_dir)
                .set_title("Open level")
                .add_filter("Spillway level", &["ron"])
                .pick_file()
        })
    }

    fn save_level(&mut self, start_dir: Option<&Path>, file_name: &str) -> Option<PathBuf> {
        self.ask(|| {
            dialog(start_dir)
                .set_title("Save level as")
                .set_file_name(file_name)
                .add_filter("Spillway level", &["ron"])
                .save_file()
        })
    }

    fn open_heightmap(&mut self, start_dir: Option<&Path>) -> Option<PathBuf> {
        self.ask(|| {
            dialog(start_dir)
                .set_title("Import heightmap")
                .add_filter("Heightmaps", &["png", "r16", "raw", "npy"])
                .pick_file()
        })
    }

    fn open_body(&mut self, start_dir: Option<&Path>) -> Option<PathBuf> {
        self.ask(|| {
            dialog(start_dir)
                .set_title("Import body")
                .add_filter("glTF bodies", &["glb", "gltf"])
                .pick_file()
        })
    }

    fn save_heightmap(
        &mut self,
        start_dir: Option<&Path>,
        file_name: &str,
        format: HeightmapFormat,
    ) -> Option<PathBuf> {
        self.ask(|| {
            dialog(start_dir)
                .set_title("Export heightmap")
                .set_file_name(file_name)
                .add_filter(format.name(), &[format.extension()])
                .save_file()
        })
    }

    fn pick_folder(&mut self, start_dir: Option<&Path>, title: &str) -> Option<PathBuf> {
        self.ask(|| dialog(start_dir).set_title(title).pick_folder())
    }

    fn take_unavailable(&mut self) -> Option<String> {
        self.unavailable.take()
    }
}

/// Answers every question with the next path of a shared queue (`None` when it is empty, as
/// if the user cancelled). Clone it to keep a handle for pushing answers while the editor owns
/// the other.
#[derive(Clone, Debug, Default)]
pub struct ScriptedDialogs {
    answers: Arc<Mutex<VecDeque<PathBuf>>>,
    /// Acts as a desktop with no file dialog: every question fails to be asked.
    no_desktop: Arc<std::sync::atomic::AtomicBool>,
    /// A question failed to be asked and nobody took why yet.
    failed: bool,
}

impl ScriptedDialogs {
    /// A queue with no answers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues the answer to the next question.
    pub fn push(&self, path: impl Into<PathBuf>) {
        if let Ok(mut q) = self.answers.lock() {
            q.push_back(path.into());
        }
    }

    /// Answers queued and not yet given.
    pub fn pending(&self) -> usize {
        self.answers.lock().map_or(0, |q| q.len())
    }

    /// Acts as a desktop where no file dialog can be shown (`true`), or asks again (`false`).
    pub fn set_no_desktop(&self, none: bool) {
        (self.no_desktop).store(none, std::sync::atomic::Ordering::Relaxed);
    }

    fn next(&mut self) -> Option<PathBuf> {
        if self.no_desktop.load(std::sync::atomic::Ordering::Relaxed) {
            self.failed = true;
            return None;
        }
        self.answers.lock().ok()?.pop_front()
    }
}

impl FileDialogs for ScriptedDialogs {
    fn take_unavailable(&mut self) -> Option<String> {
        std::mem::take(&mut self.failed).then(|| NO_DIALOG.into())
    }

    fn open_level(&mut self, _: Option<&Path>) -> Option<PathBuf> {
        self.next()
    }

    fn save_level(&mut self, _: Option<&Path>, _: &str) -> Option<PathBuf> {
        self.next()
    }

    fn open_heightmap(&mut self, _: Option<&Path>) -> Option<PathBuf> {
        self.next()
    }

    fn open_body(&mut self, _: Option<&Path>) -> Option<PathBuf> {
        self.next()
    }

    fn save_heightmap(&mut self, _: Option<&Path>, _: &str, _: HeightmapFormat) -> Option<PathBuf> {
        self.next()
    }

    fn pick_folder(&mut self, _: Option<&Path>, _: &str) -> Option<PathBuf> {
        self.next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_answer_quicker_than_a_person_is_a_dialog_never_shown() {
        let mut dialogs = NativeDialogs::default();
        assert_eq!(dialogs.ask(|| None), None);
        assert_eq!(dialogs.take_unavailable().as_deref(), Some(NO_DIALOG));
        assert_eq!(dialogs.take_unavailable(), None, "said once");
        // A person who looked and cancelled.
        dialogs.ask(|| {
            std::thread::sleep(NEVER_SHOWN + std::time::Duration::from_millis(20));
            None
        });
        assert_eq!(dialogs.take_unavailable(), None);
        // An answer, however quick.
        let path = PathBuf::from("level.ron");
        assert_eq!(dialogs.ask(|| Some(path.clone())), Some(path));
        assert_eq!(dialogs.take_unavailable(), None);
    }
}
