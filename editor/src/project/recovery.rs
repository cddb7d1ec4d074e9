//! Autosave and crash recovery. While a document has unsaved changes, [`Recovery::tick`] saves
//! it every interval to `RECOVERY_DIR/<key>-<session>/level.ron` (key from the document's
//! file, session from this run of the editor). Saving or discarding the document, or undoing
//! back to its saved state, removes this run's copy, so a copy found at startup means an
//! editor stopped with unsaved work, which [`Recovery::pending`] lists for the user to
//! restore. A run touches only its own copies: one left by an earlier run stays until the user
//! restores it (its work then lives in this run's copy) or discards it, whatever this run
//! opens, edits, saves or drops.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use spillway::Level;
use spillway::error::LevelError;
use thiserror::Error;

use crate::document::Document;
use crate::task::{Task, TaskError};

/// Why a recovery copy could not be written.
#[derive(Debug, Error)]
pub enum RecoveryError {
    /// There is no configuration folder to autosave into.
    #[error("autosave is off (no configuration folder)")]
    Off,
    /// The document's recovery folder could not be created.
    #[error("{}: cannot create the recovery folder: {source}", folder.display())]
    Folder {
        /// The folder.
        folder: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The level could not be saved into the recovery folder (the error names the file).
    #[error(transparent)]
    Level(#[from] LevelError),
    /// The note of where the copy belongs could not be written as RON.
    #[error("{}: cannot write the note of the copy's origin: {source}", file.display())]
    Note {
        /// The note's file.
        file: PathBuf,
        /// The RON serializer's error.
        source: ron::Error,
    },
    /// The note of where the copy belongs could not be written.
    #[error("{}: cannot write: {source}", file.display())]
    Write {
        /// The note's file.
        file: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The background write failed (its own error says why) or could not run.
    #[error(transparent)]
    Background(#[from] TaskError),
}

/// Default time between autosaves.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(60);

/// `path` where it is UTF-8 (the note is RON text; the copy is offered without its origin).
fn utf8(path: &Path) -> Option<&Path> {
    path.to_str().map(Path::new)
}

/// What is written beside a recovery copy.
#[derive(Serialize, Deserialize)]
struct RecoveryInfo {
    origin: Option<PathBuf>,
    saved_unix_secs: u64,
    /// Bodies placed from files outside any level folder (the body library), by index, with
    /// their absolute paths: a level file may not name those, so the copy holds the file name
    /// and the path comes back from here.
    #[serde(default)]
    outside_files: Vec<(usize, String)>,
}

/// Unsaved work found in the recovery folder.
#[derive(Clone, Debug, PartialEq)]
pub struct RecoveredWork {
    /// The file the work belongs to (`None`: an untitled level).
    pub origin: Option<PathBuf>,
    /// The recovery copy to load.
    pub level_file: PathBuf,
    /// When it was saved, seconds since the Unix epoch.
    pub saved_unix_secs: u64,
    /// Bodies whose glTF file lies outside any level folder: index and absolute path.
    outside_files: Vec<(usize, String)>,
    folder: PathBuf,
}

impl RecoveredWork {
    /// Loads the recovered level.
    pub fn load(&self) -> Result<Level, LevelError> {
        let mut level = super::open_level(&self.level_file)?;
        for (i, path) in &self.outside_files {
            if let Some(body) = level.bodies.get_mut(*i) {
                body.gltf.clone_from(path);
            }
        }
        Ok(level)
    }

    /// Deletes the recovery copy.
    pub fn discard(&self) {
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// The autosave timer and the recovery folder.
#[derive(Debug)]
pub struct Recovery {
    dir: Option<PathBuf>,
    interval: Duration,
    last_time: Instant,
    /// History state last autosaved, so an unchanged document is not written again.
    last_state: Option<u64>,
    /// This run's part of the copies' folder names.
    session: String,
    /// This run's lock in the folder, from its first copy on (other runs skip its copies).
    lock: Option<super::session_lock::SessionLock>,
    /// The autosave being written in the background.
    writing: Option<Writing>,
}

/// An autosave on its way to disk.
struct Writing {
    task: Task<PathBuf>,
    /// The folder it writes.
    folder: PathBuf,
    /// The history state it holds.
    state: u64,
    /// Saved or dropped since it started: its result is not wanted, and it removes its copy.
    abandoned: bool,
}

impl std::fmt::Debug for Writing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writing")
            .field("state", &self.state)
            .field("abandoned", &self.abandoned)
            .finish_non_exhaustive()
    }
}

/// A recovery copy ready to be written: everything it needs, owned.
struct Copy {
    folder: PathBuf,
    level: Level,
    info: RecoveryInfo,
}

impl Copy {
    /// Writes the level, then the note of where it belongs.
    fn write(self) -> Result<PathBuf, RecoveryError> {
        let folder = self.folder;
        if let Err(source) = std::fs::create_dir_all(&folder) {
            return Err(RecoveryError::Folder { folder, source });
        }
        let level_file = folder.join("level.ron");
        spillway::level::file::save(&self.level, &level_file)?;
        let note = folder.join("origin.ron");
        let text = match ron::to_string(&self.info) {
            Ok(text) => text,
            Err(source) => return Err(RecoveryError::Note { file: note, source }),
        };
        if let Err(source) = super::write_atomic(&note, text.as_bytes()) {
            return Err(RecoveryError::Write { file: note, source });
        }
        Ok(level_file)
    }
}

/// How a background write stands ([`Recovery::written`]).
enum Written {
    /// None under way (or an abandoned one just ended).
    Idle,
    /// Still writing.
    Running,
    /// Ended: the copy written, or why not.
    Kept(Result<PathBuf, RecoveryError>),
}

impl Recovery {
    /// Autosaves into `dir` every `interval`; with no folder, autosave is off.
    pub fn new(dir: Option<PathBuf>, interval: Duration) -> Self {
        Self {
            dir,
            interval,
            last_time: Instant::now(),
            last_state: None,
            session: super::session_lock::session(),
            lock: None,
            writing: None,
        }
    }

    /// Time between autosaves.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// Starts over for a newly opened document (an autosave of the one before, still being
    /// written, is taken back: its changes were saved or dropped).
    pub fn reset(&mut self) {
        self.last_time = Instant::now();
        self.last_state = None;
        self.abandon();
    }

    /// Stops caring for a background write: it removes its copy once it has written it, and
    /// no new write starts before it has.
    fn abandon(&mut self) {
        if let Some(writing) = &mut self.writing {
            writing.task.cancel();
            writing.abandoned = true;
        }
    }

    /// Time left until the next autosave is due.
    pub fn due_in(&self, now: Instant) -> Duration {
        self.interval
            .saturating_sub(now.saturating_duration_since(self.last_time))
    }

    /// Autosaves `document` if it has unsaved changes not yet autosaved and the interval has
    /// passed. The copy is written on a background thread (a large level takes seconds to
    /// compress): a later tick returns the copy written once it is, or why it could not be.
    pub fn tick(
        &mut self,
        document: &Document,
        now: Instant,
    ) -> Option<Result<PathBuf, RecoveryError>> {
        match self.written() {
            Written::Running => return None,
            Written::Kept(ended) => return Some(ended),
            Written::Idle => {}
        }
        if !document.is_modified() && self.last_state.is_some() {
            // Undone back to the saved state: the copy holds changes the user undid.
            self.discard(document.path());
            return None;
        }
        if !document.is_modified() || self.due_in(now) > Duration::ZERO {
            return None;
        }
        // Written already, and still there (another editor's Discard may have removed it).
        if self.last_state == Some(document.history().state()) && self.copy_exists(document) {
            self.last_time = now;
            return None;
        }
        self.last_time = now;
        let copy = match self.copy_of(document) {
            Ok(copy) => copy,
            Err(e) => return Some(Err(e)),
        };
        self.hold_lock();
        let folder = copy.folder.clone();
        let task = Task::spawn("Autosaving", move |progress| {
            let folder = copy.folder.clone();
            let written = copy.write();
            if progress.cancelled() {
                // Saved or dropped while it was written: the copy holds nothing to keep.
                let _ = std::fs::remove_dir_all(&folder);
            }
            written
        });
        self.writing = Some(Writing {
            task,
            folder,
            state: document.history().state(),
            abandoned: false,
        });
        None
    }

    /// From this run's first copy on (written by the timer, a Restore or a lost GPU), other
    /// runs of the editor leave its copies alone (a copy a Restore wrote was offered to a
    /// second editor as a crash's, and its Discard deleted it).
    fn hold_lock(&mut self) {
        if let (None, Some(dir)) = (&self.lock, &self.dir) {
            let _ = std::fs::create_dir_all(dir);
            self.lock = super::session_lock::SessionLock::hold(dir, &self.session);
        }
    }

    /// How a background write stands, its end taken once it has come.
    fn written(&mut self) -> Written {
        let Some(writing) = &self.writing else {
            return Written::Idle;
        };
        let Some(ended) = writing.task.poll() else {
            return Written::Running;
        };
        let Some(writing) = self.writing.take() else {
            return Written::Idle;
        };
        if writing.abandoned {
            // Its thread removes its copy when it sees the cancel; written past that check,
            // the copy is removed here.
            let _ = std::fs::remove_dir_all(&writing.folder);
            return Written::Idle;
        }
        if ended.is_ok() {
            self.last_state = Some(writing.state);
        }
        Written::Kept(ended.map_err(RecoveryError::from))
    }

    /// Whether no copy is being written any more (one that ended is finished with, as
    /// [`Self::tick`] does, but no new one starts): the window closing waits for it.
    pub fn write_done(&mut self) -> bool {
        !matches!(self.written(), Written::Running)
    }

    /// Writes the recovery copy of `document` now (after any autosave still writing).
    pub fn save(&mut self, document: &Document) -> Result<PathBuf, RecoveryError> {
        self.settle();
        self.hold_lock();
        let written = self.copy_of(document)?.write();
        if written.is_ok() {
            self.last_state = Some(document.history().state());
        }
        written
    }

    /// Waits for a background write to end; its result is dropped (the caller writes anew),
    /// and an abandoned one's copy removed.
    fn settle(&mut self) {
        let Some(writing) = self.writing.take() else {
            return;
        };
        // An abandoned write was cancelled, and removes its copy itself as it ends: here only
        // once it ended (after a timeout the folder went from under the write still running).
        if writing.task.wait(Duration::from_secs(120)).is_some() && writing.abandoned {
            let _ = std::fs::remove_dir_all(&writing.folder);
        }
    }

    /// The editor is closing: a copy still being written is waited for (killed half-way, it
    /// left a folder behind; done past its cancel, a copy of work saved or dropped, offered
    /// again at the next start), and removed if it was abandoned.
    pub fn finish(&mut self) {
        self.settle();
    }

    /// What a copy of `document` is: its folder, its level (library bodies named by file
    /// only) and the note of where it belongs. Clones the level, so the write can go on in
    /// the background while the designer edits.
    fn copy_of(&self, document: &Document) -> Result<Copy, RecoveryError> {
        let Some(dir) = &self.dir else {
            return Err(RecoveryError::Off);
        };
        // A body just placed from the library names its file by an absolute path, which a
        // level file may not: the copy names the file only, and the note keeps the path.
        let mut outside_files = Vec::new();
        let mut level = document.level().clone();
        for (i, body) in level.bodies.iter_mut().enumerate() {
            let path = Path::new(&body.gltf);
            if path.is_absolute() {
                let name = path
                    .file_name()
                    .map_or("body.glb".into(), |n| n.to_string_lossy().into_owned());
                outside_files.push((i, std::mem::replace(&mut body.gltf, name)));
            }
        }
        Ok(Copy {
            folder: dir.join(self.folder_name(document.path())),
            level,
            info: RecoveryInfo {
                origin: document.path().and_then(utf8).map(Path::to_path_buf),
                saved_unix_secs: SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs()),
                outside_files,
            },
        })
    }

    /// Whether an autosave is being written in the background.
    pub fn writing(&self) -> bool {
        self.writing.is_some()
    }

    /// Removes this run's recovery copy of the document at `origin` (saved or deliberately
    /// discarded); copies left by earlier runs stay.
    pub fn discard(&mut self, origin: Option<&Path>) {
        self.last_state = None;
        self.abandon();
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir.join(self.folder_name(origin)));
        }
    }

    /// Takes recovered `work` over once it is restored into `document`: its copy is written
    /// again as this run's, then the earlier run's is removed (kept if writing failed).
    pub fn adopt(
        &mut self,
        document: &Document,
        work: &RecoveredWork,
    ) -> Result<(), RecoveryError> {
        self.save(document)?;
        if work.folder
            != self
                .dir
                .as_deref()
                .unwrap_or(Path::new(""))
                .join(self.folder_name(document.path()))
        {
            work.discard();
        }
        Ok(())
    }

    /// Whether this run's copy of `document` is on disk.
    fn copy_exists(&self, document: &Document) -> bool {
        let Some(dir) = &self.dir else {
            return false;
        };
        (dir.join(self.folder_name(document.path()))
            .join("level.ron"))
        .is_file()
    }

    /// The folder name of this run's copy of the document at `origin`.
    fn folder_name(&self, origin: Option<&Path>) -> String {
        format!("{}-{}", super::session_lock::key(origin), self.session)
    }

    /// Every recovery copy left in the folder, newest first, but those of another run of the
    /// editor still running (offered as a crash's, a Discard deleted a living run's copy).
    pub fn pending(&self) -> Vec<RecoveredWork> {
        let Some(dir) = &self.dir else {
            return Vec::new();
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let running = |name: &str| {
            name.rsplit_once('-').is_some_and(|(_, run)| {
                run != self.session && super::session_lock::SessionLock::held(dir, run)
            })
        };
        let mut found: Vec<RecoveredWork> = entries
            .flatten()
            .filter(|entry| !entry.file_name().to_str().is_some_and(running))
            .filter_map(|entry| {
                let folder = entry.path();
                let text = std::fs::read_to_string(folder.join("origin.ron")).ok()?;
                let info: RecoveryInfo = ron::from_str(&text).ok()?;
                let level_file = folder.join("level.ron");
                level_file.is_file().then_some(RecoveredWork {
                    origin: info.origin,
                    level_file,
                    saved_unix_secs: info.saved_unix_secs,
                    outside_files: info.outside_files,
                    folder,
                })
            })
            .collect();
        // Newest first; copies saved within the same second by their level file's time
        // (the listed order, and so which one Restore takes, was the folder's).
        let written = |w: &RecoveredWork| {
            std::fs::metadata(&w.level_file)
                .and_then(|m| m.modified())
                .ok()
        };
        found.sort_by_cached_key(|w| std::cmp::Reverse((w.saved_unix_secs, written(w))));
        found
    }
}

#[cfg(test)]
#[path = "recovery_tests.rs"]
mod tests;
