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
}

/// The desktop's native file dialogs (the XDG portal on Linux, falling back to zenity).
#[derive(Clone, Copy, Debug, Default)]
pub struct NativeDialogs;

fn dialog(start_dir: Option<&Path>) -> rfd::FileDialog {
    let d = rfd::FileDialog::new();
    match start_dir {
        Some(dir) if dir.is_dir() => d.set_directory(dir),
        _ => d,
    }
}

impl FileDialogs for NativeDialogs {
    fn open_level(&mut self, start_dir: Option<&Path>) -> Option<PathBuf> {
        dialog(start_dir)
            .set_title("Open level")
            .add_filter("Spillway level", &["ron"])
            .pick_file()
    }

    fn save_level(&mut self, start_dir: Option<&Path>, file_name: &str) -> Option<PathBuf> {
        dialog(start_dir)
            .set_title("Save level as")
            .set_file_name(file_name)
            .add_filter("Spillway level", &["ron"])
            .save_file()
    }

    fn open_heightmap(&mut self, start_dir: Option<&Path>) -> Option<PathBuf> {
        dialog(start_dir)
            .set_title("Import heightmap")
            .add_filter("Heightmaps", &["png", "r16", "raw", "npy"])
            .pick_file()
    }

    fn open_body(&mut self, start_dir: Option<&Path>) -> Option<PathBuf> {
        dialog(start_dir)
            .set_title("Import body")
            .add_filter("glTF bodies", &["glb", "gltf"])
            .pick_file()
    }

    fn save_heightmap(
        &mut self,
        start_dir: Option<&Path>,
        file_name: &str,
        format: HeightmapFormat,
    ) -> Option<PathBuf> {
        dialog(start_dir)
            .set_title("Export heightmap")
            .set_file_name(file_name)
            .add_filter(format.name(), &[format.extension()])
            .save_file()
    }

    fn pick_folder(&mut self, start_dir: Option<&Path>, title: &str) -> Option<PathBuf> {
        dialog(start_dir).set_title(title).pick_folder()
    }
}

/// Answers every question with the next path of a shared queue (`None` when it is empty, as
/// if the user cancelled). Clone it to keep a handle for pushing answers while the editor owns
/// the other.
#[derive(Clone, Debug, Default)]
pub struct ScriptedDialogs {
    answers: Arc<Mutex<VecDeque<PathBuf>>>,
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

    fn next(&self) -> Option<PathBuf> {
        self.answers.lock().ok()?.pop_front()
    }
}

impl FileDialogs for ScriptedDialogs {
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
