//! The thread pool a world's rigid-body step runs on.
//!
//! Rapier's step hands a tree optimisation to its thread pool and later blocks, waiting for
//! it. On a pool shared with other work (rayon's global pool), two coupled steps at once on a
//! 2-core machine (the editor's Bake beside its live preview, or two tests) left both workers
//! waiting for jobs queued behind them: a deadlock. Each [`BodyWorld`](super::BodyWorld) steps
//! rapier on a pool of its own instead, with at least two workers, so the worker that waits
//! always leaves one to do the work.

use std::sync::Arc;

use rayon::{ThreadPool, ThreadPoolBuilder};

/// The fewest workers a world's pool has: one for rapier's step, one for what it waits on.
pub const MIN_PHYSICS_THREADS: usize = 2;

/// Workers of a world's pool unless set: the machine's cores, from 2 to 8 (at 200 bodies, 2 to
/// 16 measured the same within the noise, `docs/gpu.md`).
pub fn default_physics_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(MIN_PHYSICS_THREADS, |n| n.get())
        .clamp(MIN_PHYSICS_THREADS, 8)
}

/// A pool of `threads` workers (at least [`MIN_PHYSICS_THREADS`]) for one world's rapier, or
/// `None` where the system cannot start threads (rapier then steps on the caller's thread).
pub fn physics_pool(threads: usize) -> Option<Arc<ThreadPool>> {
    ThreadPoolBuilder::new()
        .num_threads(threads.max(MIN_PHYSICS_THREADS))
        .thread_name(|i| format!("spillway-rapier-{i}"))
        .build()
        .ok()
        .map(Arc::new)
}
