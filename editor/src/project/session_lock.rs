//! Which runs of the editor are alive: a run holds a lock on `.<session>.lock` in the recovery
//! folder while it runs, so another run started beside it (the same configuration folder)
//! does not offer the first one's autosave copies as work a crash left: a Discard there
//! deleted the living run's copy, a Restore took its folder from under it. With the names a
//! run's copies take: `<folder>-<hash of the level's path>-<run>`.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// This run's lock, held until it is dropped (the process ending lets it go too, however it
/// ends).
#[derive(Debug)]
pub struct SessionLock {
    file: File,
    path: PathBuf,
}

impl SessionLock {
    /// Takes the lock of `session` in `dir`; `None` where it cannot be made (the copies are
    /// then offered to other runs as before).
    pub fn hold(dir: &Path, session: &str) -> Option<Self> {
        let path = lock_path(dir, session);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .ok()?;
        file.try_lock().ok()?;
        Some(Self { file, path })
    }

    /// Whether the run `session` holds its lock in `dir` now (a run that crashed holds none).
    pub fn held(dir: &Path, session: &str) -> bool {
        let Ok(file) = File::open(lock_path(dir, session)) else {
            return false;
        };
        matches!(file.try_lock(), Err(TryLockError::WouldBlock))
    }
}

impl Drop for SessionLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A name for this run of the editor, unique among the runs that share a recovery folder:
/// the process id and the start time, nanoseconds.
pub(super) fn session() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}.{nanos:x}", std::process::id())
}

/// The recovery folder name of a document: a hash of its path, or `untitled`.
pub(super) fn key(origin: Option<&Path>) -> String {
    match origin {
        None => "untitled".into(),
        Some(path) => {
            let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            // FNV-1a: stable across runs and platforms, unlike the std hasher.
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for b in path.to_string_lossy().bytes() {
                h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
            }
            let stem = path
                .parent()
                .and_then(|p| p.file_name())
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                .take(32)
                .collect::<String>();
            format!("{stem}-{h:016x}")
        }
    }
}

fn lock_path(dir: &Path, session: &str) -> PathBuf {
    dir.join(format!(".{session}.lock"))
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use spillway::Level;

    use crate::document::Document;
    use crate::project::recovery::Recovery;

    #[test]
    fn a_running_editors_copies_are_not_offered_to_another() {
        // A second editor on the same configuration offered the first one's live autosave as
        // a crash's work: its Discard deleted the copy, its Restore took the folder.
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = Some(dir.path().to_path_buf());
        let mut first = Recovery::new(folder.clone(), Duration::ZERO);
        let mut document = Document::new(Level::flat(16, 16, 1.0, 0.0), None);
        document.mark_modified();
        first.tick(&document, Instant::now());
        let start = Instant::now();
        while !first.write_done() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the copy is written"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(first.pending().len(), 1, "its own copy");
        let second = Recovery::new(folder, Duration::ZERO);
        assert!(second.pending().is_empty(), "{:?}", second.pending());
        // Once the first run is gone (a crash lets its lock go as well), the copy is offered.
        drop(first);
        assert_eq!(second.pending().len(), 1);
    }
}
