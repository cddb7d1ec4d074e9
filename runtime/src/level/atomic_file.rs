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
    /// Creates `.BASE.<pid>.<time>.<n>.tmp` in `dir`, failing rather than reusing a file; a
    /// long `BASE` is cut (see [`temp_base`]) so a name the folder takes has a temporary twin.
    pub(in crate::level) fn create(dir: &Path, base: &str) -> io::Result<Self> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let base = temp_base(base);
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

/// The longest base a temporary name keeps, in bytes: with the dot, the process id (10 digits
/// at most), the time (39) and the counter (20) and their dots, and `.tmp` (at most 76 bytes)
/// it stays under the 255 bytes most file systems allow.
const TEMP_BASE_MAX: usize = 176;

/// `base` cut to [`TEMP_BASE_MAX`] bytes at a character boundary: a level named near the
/// file system's limit still saves (its temporary copy's name would have been too long).
fn temp_base(base: &str) -> &str {
    let mut end = base.len().min(TEMP_BASE_MAX);
    while !base.is_char_boundary(end) {
        end -= 1;
    }
    &base[..end]
}

/// Removes the temporary files of `bases` in `dir` that a save killed half-way left (its
/// process gone: no `Drop` ran), best effort: a save of another process still running keeps
/// its own. Where a process cannot be looked up (no `/proc`), only files a day old go.
pub(in crate::level) fn remove_abandoned(dir: &Path, bases: &[&str]) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let own = std::process::id();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| abandoned_pid(n, bases)) else {
            continue;
        };
        if pid != own && !running(pid, &entry) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The process id in `name` where it is one of [`TempFile::create`]'s names for a base of
/// `bases`: `.BASE.<pid>.<time>.<n>.tmp`.
fn abandoned_pid(name: &str, bases: &[&str]) -> Option<u32> {
    let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let base = bases.iter().map(|b| temp_base(b)).find(|b| {
        rest.strip_prefix(*b)
            .is_some_and(|tail| tail.starts_with('.'))
    })?;
    let parts: Vec<&str> = rest[base.len() + 1..].split('.').collect();
    let numbers = parts.len() == 3 && parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit()));
    numbers.then(|| parts[0].parse().ok()).flatten()
}

/// Whether process `pid`, whose temporary file is `entry`, may still be writing it.
fn running(pid: u32, entry: &fs::DirEntry) -> bool {
    if Path::new("/proc/self").exists() {
        return Path::new(&format!("/proc/{pid}")).exists();
    }
    let age = (entry.metadata().and_then(|m| m.modified()).ok()).and_then(|t| t.elapsed().ok());
    age.is_none_or(|a| a < std::time::Duration::from_secs(24 * 3600))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_killed_saves_temporary_files_go_and_a_running_ones_stay() {
        let dir = tempfile::tempdir().expect("dir");
        let d = dir.path();
        // pid 4194305 is past Linux's largest (2²²): no process has it.
        let gone = [
            ".level.ron.4194305.17.0.tmp",
            ".level.grids.4194305.17.1.tmp",
        ];
        let own = format!(".level.grids.{}.17.2.tmp", std::process::id());
        let others = [
            ".other.ron.4194305.17.0.tmp",
            ".level.ron.x.17.0.tmp",
            "level.ron",
        ];
        for name in gone.iter().chain(&others).chain([&own.as_str()]) {
            fs::write(d.join(name), b"half").expect("write");
        }
        remove_abandoned(d, &["level.ron", "level.grids"]);
        let left = |name: &str| d.join(name).exists();
        if Path::new("/proc/self").exists() {
            assert!(gone.iter().all(|n| !left(n)), "a dead save's files stay");
        }
        assert!(left(&own), "this process's save in progress was taken");
        assert!(others.iter().all(|n| left(n)), "another file was taken");
    }
}
