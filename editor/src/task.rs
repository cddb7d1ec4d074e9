//! `Task`: long file work (saving a large level, importing or exporting a large heightmap) on a
//! background thread, so the window stays responsive, with a progress share the work reports
//! and a Cancel the work checks. Work that cannot stop part-way is abandoned: its result is
//! dropped when it arrives, so a cancelled task never changes the document.

use std::error::Error as StdError;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use thiserror::Error;

/// Why a [`Task`] ended without a result.
#[derive(Debug, Error)]
pub enum TaskError {
    /// The work itself failed; its own error says why (message and source pass through).
    #[error(transparent)]
    Work(Box<dyn StdError + Send + Sync>),
    /// No thread could be started for the work.
    #[error("could not start a thread: {0}")]
    Spawn(#[source] std::io::Error),
    /// The work's thread ended without a result (it panicked).
    #[error("the background work stopped unexpectedly")]
    Stopped,
}

/// What a running task shares with the window: how far it is, and whether to stop.
#[derive(Debug, Default)]
pub struct Progress {
    /// The share done, 0 to 1, as `f32` bits; `u32::MAX` until the work reports one.
    share: AtomicU32,
    cancel: AtomicBool,
    /// A line the work has to say while it runs (where it runs).
    note: Mutex<Option<String>>,
}

impl Progress {
    /// Records the share of the work done (0 to 1).
    pub fn set(&self, share: f32) {
        self.share
            .store(share.clamp(0.0, 1.0).to_bits(), Ordering::Relaxed);
    }

    /// The share done, if the work reports one.
    pub fn share(&self) -> Option<f32> {
        let bits = self.share.load(Ordering::Relaxed);
        (bits != u32::MAX).then(|| f32::from_bits(bits))
    }

    /// Whether Cancel was pressed.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Acquire)
    }

    /// Asks the work to stop.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Release);
    }

    /// Says `note` in the progress window from now on.
    pub fn set_note(&self, note: impl Into<String>) {
        if let Ok(mut n) = self.note.lock() {
            *n = Some(note.into());
        }
    }

    /// What the work last said, if anything.
    pub fn note(&self) -> Option<String> {
        self.note.lock().ok()?.clone()
    }
}

/// Work running on a background thread that ends with a `T` or a [`TaskError`].
pub struct Task<T> {
    /// What the task does, for its progress window ("Saving level.ron").
    pub label: String,
    progress: Arc<Progress>,
    result: mpsc::Receiver<Result<T, TaskError>>,
    started: Instant,
}

impl<T: Send + 'static> Task<T> {
    /// Starts `work` on a new thread; it reports through the [`Progress`] it is given. Its
    /// error, of any error type (or a message), ends the task as [`TaskError::Work`].
    pub fn spawn<E>(
        label: impl Into<String>,
        work: impl FnOnce(&Progress) -> Result<T, E> + Send + 'static,
    ) -> Self
    where
        E: Into<Box<dyn StdError + Send + Sync>>,
    {
        let progress = Arc::new(Progress {
            share: AtomicU32::new(u32::MAX),
            ..Progress::default()
        });
        let (tx, result) = mpsc::channel();
        let shared = progress.clone();
        let spawned = std::thread::Builder::new()
            .name("spillway task".into())
            .spawn(move || {
                let _ = tx.send(work(&shared).map_err(|e| TaskError::Work(e.into())));
            });
        let (tx, failed) = mpsc::channel();
        let result = match spawned {
            Ok(_) => result,
            Err(e) => {
                let _ = tx.send(Err(TaskError::Spawn(e)));
                failed
            }
        };
        Self {
            label: label.into(),
            progress,
            result,
            started: Instant::now(),
        }
    }

    /// The result, once the work has ended (`Err` also when the thread died).
    pub fn poll(&self) -> Option<Result<T, TaskError>> {
        match self.result.try_recv() {
            Ok(r) => Some(r),
            Err(mpsc::TryRecvError::Empty) => None,
            Err(mpsc::TryRecvError::Disconnected) => Some(Err(TaskError::Stopped)),
        }
    }

    /// Waits for the result (at most `limit`); for tests and for quitting.
    pub fn wait(&self, limit: Duration) -> Option<Result<T, TaskError>> {
        match self.result.recv_timeout(limit) {
            Ok(r) => Some(r),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => Some(Err(TaskError::Stopped)),
        }
    }

    /// Asks the work to stop.
    pub fn cancel(&self) {
        self.progress.cancel();
    }

    /// Whether Cancel was pressed.
    pub fn cancelled(&self) -> bool {
        self.progress.cancelled()
    }

    /// The share done, if the work reports one.
    pub fn share(&self) -> Option<f32> {
        self.progress.share()
    }

    /// What the work last said, if anything.
    pub fn note(&self) -> Option<String> {
        self.progress.note()
    }

    /// Time since the task started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// What its progress window shows, whatever its result's type.
    pub fn status(&self) -> Status<'_> {
        Status {
            label: &self.label,
            progress: &self.progress,
            started: self.started,
        }
    }
}

/// A running [`Task`] as its progress window shows it, whatever its result's type (a window
/// that shows tasks of several kinds asks one of these of each).
pub struct Status<'a> {
    /// What the task does.
    pub label: &'a str,
    /// How far it is, its note, and its Cancel.
    pub progress: &'a Progress,
    started: Instant,
}

impl Status<'_> {
    /// Time since the task started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_reports_progress_and_its_result() {
        let task = Task::spawn("count", |p| {
            p.set(0.5);
            Ok::<_, std::convert::Infallible>(42)
        });
        assert!(matches!(task.wait(Duration::from_secs(10)), Some(Ok(42))));
        assert_eq!(task.share(), Some(0.5));
    }

    #[test]
    fn the_work_s_error_is_the_task_s_message() {
        let task = Task::<()>::spawn("fail", |_| Err("level.ron: cannot write"));
        match task.wait(Duration::from_secs(10)) {
            Some(Err(e @ TaskError::Work(_))) => {
                assert_eq!(e.to_string(), "level.ron: cannot write")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_panicking_work_is_reported() {
        let task = Task::<()>::spawn("panic", |_| -> Result<(), String> { panic!("boom") });
        assert!(matches!(
            task.wait(Duration::from_secs(10)),
            Some(Err(TaskError::Stopped))
        ));
    }

    #[test]
    fn cancel_reaches_the_work() {
        let task = Task::spawn("wait", |p| {
            let start = Instant::now();
            while !p.cancelled() {
                if start.elapsed() > Duration::from_secs(10) {
                    return Ok(false);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            Ok::<_, std::convert::Infallible>(true)
        });
        task.cancel();
        assert!(matches!(task.wait(Duration::from_secs(20)), Some(Ok(true))));
    }
}
