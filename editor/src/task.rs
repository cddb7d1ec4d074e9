//! `Task`: long file work (saving a large level, importing or exporting a large heightmap) on a
//! background thread, so the window stays responsive, with a progress share the work reports
//! and a Cancel the work checks. Work that cannot stop part-way is abandoned: its result is
//! dropped when it arrives, so a cancelled task never changes the document.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What a running task shares with the window: how far it is, and whether to stop.
#[derive(Debug, Default)]
pub struct Progress {
    /// The share done, 0 to 1, as `f32` bits; `u32::MAX` until the work reports one.
    share: AtomicU32,
    cancel: AtomicBool,
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
        self.cancel.load(Ordering::Relaxed)
    }
}

/// Work running on a background thread that ends with a `T` or an error message.
pub struct Task<T> {
    /// What the task does, for its progress window ("Saving level.ron").
    pub label: String,
    progress: Arc<Progress>,
    result: mpsc::Receiver<Result<T, String>>,
    started: Instant,
}

impl<T: Send + 'static> Task<T> {
    /// Starts `work` on a new thread; it reports through the [`Progress`] it is given.
    pub fn spawn(
        label: impl Into<String>,
        work: impl FnOnce(&Progress) -> Result<T, String> + Send + 'static,
    ) -> Self {
        let progress = Arc::new(Progress {
            share: AtomicU32::new(u32::MAX),
            cancel: AtomicBool::new(false),
        });
        let (tx, result) = mpsc::channel();
        let shared = progress.clone();
        let spawned = std::thread::Builder::new()
            .name("spillway task".into())
            .spawn(move || {
                let _ = tx.send(work(&shared));
            });
        let (tx, failed) = mpsc::channel();
        let result = match spawned {
            Ok(_) => result,
            Err(e) => {
                let _ = tx.send(Err(format!("could not start a thread: {e}")));
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
    pub fn poll(&self) -> Option<Result<T, String>> {
        match self.result.try_recv() {
            Ok(r) => Some(r),
            Err(mpsc::TryRecvError::Empty) => None,
            Err(mpsc::TryRecvError::Disconnected) => {
                Some(Err("the background work stopped unexpectedly".into()))
            }
        }
    }

    /// Waits for the result (at most `limit`); for tests and for quitting.
    pub fn wait(&self, limit: Duration) -> Option<Result<T, String>> {
        match self.result.recv_timeout(limit) {
            Ok(r) => Some(r),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                Some(Err("the background work stopped unexpectedly".into()))
            }
        }
    }

    /// Asks the work to stop.
    pub fn cancel(&self) {
        self.progress.cancel.store(true, Ordering::Relaxed);
    }

    /// Whether Cancel was pressed.
    pub fn cancelled(&self) -> bool {
        self.progress.cancelled()
    }

    /// The share done, if the work reports one.
    pub fn share(&self) -> Option<f32> {
        self.progress.share()
    }

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
            Ok(42)
        });
        assert_eq!(task.wait(Duration::from_secs(10)), Some(Ok(42)));
        assert_eq!(task.share(), Some(0.5));
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
            Ok(true)
        });
        task.cancel();
        assert_eq!(task.wait(Duration::from_secs(20)), Some(Ok(true)));
    }
}
