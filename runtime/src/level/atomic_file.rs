//! The atomic-write helpers the saver uses: temporary files in the target folder that are
//! removed unless renamed into place, and the folder synced after the rename.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A temporary file in the target folder, removed on drop unless persisted.
pub(in crate::level) struct TempFile {
    path: PathBuf,
    file: Option<File>,
}

impl TempFile {
    /// Creates `.BASE.<pid>.<time>.<n>.tmp` in `dir`, failing rather than reusing a file.
    pub(in crate::level) fn create(dir: &Path, base: &str) -> io::Result<Self> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".{base}.{}.{nanos}.{n}.tmp", std::process::id()));
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?;
        Ok(Self {
            path,
            file: Some(file),
        })
    }

    /// The temporary path.
    pub(in crate::level) fn path(&self) -> &Path {
        &self.path
    }

    /// The open file (present until persisted).
    pub(in crate::level) fn file(&mut self) -> io::Result<&mut File> {
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("temporary file already closed"))
    }

    /// Closes the file and renames it to `target`, replacing any file there.
    pub(in crate::level) fn persist(mut self, target: &Path) -> io::Result<()> {
        drop(self.file.take());
        fs::rename(&self.path, target)?;
        self.path = PathBuf::new();
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        drop(self.file.take());
        if !self.path.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Makes renames in `dir` durable (no-op where folders cannot be synced).
pub(in crate::level) fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}
