//! `FileStamp`: what a level file looked like on disk when the document last read or wrote
//! it, so a save can tell that another editor, a `spillway bake` or a version-control checkout
//! replaced the file since (its work would be overwritten without a word).

use std::path::Path;
use std::time::SystemTime;

/// A level file's modification time, length and (on Unix) inode: a save by any program
/// replaces at least one of them (Spillway's own saves rename a new file into place).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStamp {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
}

impl FileStamp {
    /// The stamp of the file at `path` now (`None`: there is none, it cannot be read, or it is
    /// no plain file: a folder in its place fails the save with its own error).
    pub fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path)
            .ok()
            .filter(std::fs::Metadata::is_file)?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        Some(Self {
            modified: meta.modified().ok(),
            len: meta.len(),
            inode,
        })
    }
}
