//! The preview's timeline: keyframes of the whole water state (a compressed
//! [`Snapshot`] and the bodies' motion) taken every few simulated seconds while the water runs,
//! kept in branches within a memory budget the designer sets.
//!
//! - **Scrub**: a moment `t` is reached by restoring the last keyframe at or before `t` and
//!   running the water on to `t` ([`super::Preview::seek`]).
//! - **Branch**: an edit made while a recorded future lies ahead of the water (after scrubbing
//!   back) starts a new branch at that moment; the old branch keeps its future until the
//!   designer discards it, and can be compared with (its depths drawn as the reference of the
//!   Change overlay). Branches share the keyframes before their fork.
//! - **Budget**: when the keyframes outgrow the budget, every branch keeps every other keyframe
//!   and the spacing doubles, so the whole run stays on the timeline, more coarsely keyed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use spillway::body::world::BodyState;

use super::bodies::BodyStates;
use spillway::snapshot::Snapshot;

/// Default memory budget of the keyframes, bytes (3 GiB): an hour of a 1024² preview keyed
/// every 5 s fits (the Valley scene's 721 keyframes take 2827.6 MiB, `keyframes` example).
pub const DEFAULT_BUDGET: usize = 3 << 30;
/// Default spacing of keyframes, simulated seconds.
pub const DEFAULT_SPACING: f64 = 5.0;
/// Least wall time between two keyframes taken while the water runs: at high speed factors
/// keyframes are further apart in simulated time (at 100×, every 25 s), and seeking runs the
/// water on from the one before. (Taking one costs the frame little: the GPU copies the state
/// without the frame waiting, and a worker thread compresses it.)
pub const MIN_KEY_GAP: Duration = Duration::from_millis(250);
/// Most events kept per branch.
const MAX_EVENTS: usize = 256;

/// The water and the bodies at one moment.
#[derive(Debug)]
pub struct Keyframe {
    /// The water: depths, flows, open gates, time.
    pub snapshot: Snapshot,
    /// Each document body's motion then, with the body (`None`: outside the physics).
    pub bodies: BodyStates,
    /// The authored water the running water held then (its edits made so far), shared by the
    /// keyframes taken while it stayed the same: a restore owes the edits made since.
    /// With the ledger's epoch then: a water kept whole since makes it no debt.
    pub authored: Option<(u64, Arc<spillway::Grid>)>,
}

impl Keyframe {
    /// Simulated time, seconds.
    pub fn time(&self) -> f64 {
        self.snapshot.time()
    }

    /// Bytes it holds.
    pub fn bytes(&self) -> usize {
        let body = std::mem::size_of::<(spillway::level::Body, Option<BodyState>)>();
        self.snapshot.bytes() + self.bodies.len() * body
    }
}

/// Something that happened at a moment of a branch, marked on the timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Simulated time, seconds.
    pub time: f64,
    /// What happened ("Gate sluice opened", "Edited").
    pub label: String,
}

/// One history of the water.
#[derive(Clone, Debug)]
pub struct Branch {
    /// Shown in the timeline ("Run", "Branch 2").
    pub name: String,
    /// The moment it left its parent branch (`None`: the first run).
    pub forked_at: Option<f64>,
    /// The moment its history starts, seconds: the first run's start (the level's own time: a
    /// level baked at 40 s starts there), which a branch shares with the run it left (it keeps
    /// that run's keyframes before its fork).
    pub start: f64,
    /// Keyframes in time order.
    pub keys: Vec<Arc<Keyframe>>,
    /// Events in time order.
    pub events: Vec<Event>,
    /// The latest moment the water of this branch has reached, seconds.
    pub end: f64,
}

impl Branch {
    fn new(name: String) -> Self {
        Self {
            name,
            forked_at: None,
            start: 0.0,
            keys: Vec::new(),
            events: Vec::new(),
            end: 0.0,
        }
    }

    /// The last keyframe at or before `time`.
    pub fn key_at(&self, time: f64) -> Option<&Arc<Keyframe>> {
        let n = self.keys.partition_point(|k| k.time() <= time + 1e-9);
        n.checked_sub(1).map(|i| &self.keys[i])
    }
}

/// The branches of the preview's run and the keyframing settings.
#[derive(Debug)]
pub struct Timeline {
    /// Every branch; never empty.
    pub branches: Vec<Branch>,
    /// The branch the water runs on.
    pub current: usize,
    /// The branch whose water the Change overlay compares with.
    pub compare: Option<usize>,
    /// Most bytes the keyframes may take.
    pub budget: usize,
    /// Spacing of keyframes the designer asked for, simulated seconds.
    pub spacing: f64,
    /// Times the keyframes were thinned (the spacing in force is `spacing` × 2^thinned).
    thinned: u32,
    /// Whether keyframes are taken.
    pub recording: bool,
    /// Least wall time between two keyframes taken while the water runs ([`MIN_KEY_GAP`]).
    pub min_gap: Duration,
    /// Wall time of the last keyframe taken while running.
    last_taken: Option<Instant>,
    /// A keyframe is wanted at the next chance whatever the spacing (after a fork).
    forced: bool,
    /// Branches made so far (for names).
    made: usize,
    /// The keyframe being compressed on a worker thread.
    pending: Option<Pending>,
    /// Bumped when every branch is forgotten: a pending keyframe of an older generation is
    /// dropped.
    generation: u64,
}

/// A keyframe on its way: the state being read back from the GPU, or being compressed off
/// the frame; for the branch and generation it was taken on.
#[derive(Debug)]
struct Pending {
    work: Option<std::thread::JoinHandle<Option<Keyframe>>>,
    branch: usize,
    generation: u64,
}

impl Drop for Pending {
    /// A keyframe still being compressed is waited for, so no worker outlives the preview
    /// (and the GPU buffers it reads from).
    fn drop(&mut self) {
        if let Some(work) = self.work.take() {
            let _ = work.join();
        }
    }
}

impl Default for Timeline {
    fn default() -> Self {
        Self {
            branches: vec![Branch::new("Run".into())],
            current: 0,
            compare: None,
            budget: DEFAULT_BUDGET,
            spacing: DEFAULT_SPACING,
            thinned: 0,
            recording: true,
            min_gap: MIN_KEY_GAP,
            last_taken: None,
            forced: false,
            made: 1,
            pending: None,
            generation: 0,
        }
    }
}

impl Timeline {
    /// Forgets every branch (a new run), keeping the settings.
    pub fn clear(&mut self) {
        *self = Self {
            budget: self.budget,
            spacing: self.spacing,
            recording: self.recording,
            min_gap: self.min_gap,
            generation: self.generation + 1,
            ..Self::default()
        };
    }

    /// The branch the water runs on.
    pub fn branch(&self) -> &Branch {
        &self.branches[self.current]
    }

    fn branch_mut(&mut self) -> &mut Branch {
        &mut self.branches[self.current]
    }

    /// Spacing of keyframes in force (larger than asked after thinning), seconds.
    pub fn spacing_in_force(&self) -> f64 {
        self.spacing * f64::from(1u32 << self.thinned.min(20))
    }

    /// Bytes the keyframes of all branches hold (a keyframe, or an authored water, shared by
    /// several counted once).
    pub fn bytes(&self) -> usize {
        let (mut seen, mut grids) = (
            std::collections::HashSet::new(),
            std::collections::HashSet::new(),
        );
        (self.branches.iter())
            .flat_map(|b| &b.keys)
            .filter(|k| seen.insert(Arc::as_ptr(k)))
            .map(|k| {
                let authored = (k.authored.as_ref()).filter(|(_, g)| grids.insert(Arc::as_ptr(g)));
                k.bytes() + authored.map_or(0, |(_, g)| std::mem::size_of_val(&g.data[..]))
            })
            .sum()
    }

    /// Whether a keyframe should be taken now, at simulated `time`: recording, at the edge of
    /// the branch's recorded time (not replaying a recorded stretch), and the spacing (in
    /// simulated and in wall time) has passed since the last one, or one is forced.
    pub fn due(&self, time: f64) -> bool {
        if !self.recording || self.pending.is_some() {
            return false;
        }
        let branch = self.branch();
        let Some(last) = branch.keys.last() else {
            return true;
        };
        if last.time() >= time - 1e-9 {
            return false;
        }
        self.forced
            || (time - last.time() >= self.spacing_in_force() - 1e-9
                && self.last_taken.is_none_or(|t| t.elapsed() >= self.min_gap))
    }

    /// Compresses a keyframe on a worker thread (`make` builds it, or finds it cannot); it
    /// joins its branch when [`Self::collect`] finds it done. Until then no other keyframe is
    /// due.
    pub fn begin(&mut self, make: impl FnOnce() -> Option<Keyframe> + Send + 'static) {
        if !self.awaiting() {
            self.requested();
        }
        if let Some(p) = self.pending.as_mut() {
            p.work = Some(std::thread::spawn(make));
        }
    }

    /// The water's state was asked of the GPU for a keyframe of the current branch: none is
    /// due until it has arrived and [`Self::begin`] compresses it (or [`Self::cancel`]).
    pub fn requested(&mut self) {
        self.forced = false;
        self.last_taken = Some(Instant::now());
        self.pending = Some(Pending {
            work: None,
            branch: self.current,
            generation: self.generation,
        });
    }

    /// The state asked for will not come (the water restarted).
    pub fn cancel(&mut self) {
        if self.pending.as_ref().is_some_and(|p| p.work.is_none()) {
            self.pending = None;
        }
    }

    /// Whether a keyframe is on its way (its state awaited from the GPU, or being compressed).
    pub fn busy(&self) -> bool {
        self.pending.is_some()
    }

    /// Whether a state asked of the GPU is awaited.
    pub fn awaiting(&self) -> bool {
        self.pending.as_ref().is_some_and(|p| p.work.is_none())
    }

    /// Adds the keyframe compressed on the worker thread once it is done (`wait`: waits for
    /// it). A keyframe of branches since dropped is thrown away.
    pub fn collect(&mut self, wait: bool) {
        let done = |p: &Pending| p.work.as_ref().is_some_and(|w| wait || w.is_finished());
        if !self.pending.as_ref().is_some_and(done) {
            return;
        }
        let Some(mut pending) = self.pending.take() else {
            return;
        };
        let (branch, generation) = (pending.branch, pending.generation);
        let Some(work) = pending.work.take() else {
            return;
        };
        if let Ok(Some(key)) = work.join()
            && generation == self.generation
            && branch < self.branches.len()
        {
            self.push_into(branch, key);
        }
    }

    /// Adds `key` to the current branch (after any of its keyframes at or after its time),
    /// then thins the keyframes while they outgrow the budget.
    pub fn push(&mut self, key: Keyframe) {
        self.push_into(self.current, key);
    }

    fn push_into(&mut self, index: usize, key: Keyframe) {
        let time = key.time();
        let branch = &mut self.branches[index];
        branch.keys.retain(|k| k.time() < time - 1e-9);
        branch.keys.push(Arc::new(key));
        branch.end = branch.end.max(time);
        self.forced = false;
        self.last_taken = Some(Instant::now());
        while self.bytes() > self.budget && self.thin() {}
    }

    /// Sets the memory budget to `bytes`, thinning the keyframes at once if they outgrow it (a
    /// budget lowered while paused freed nothing until the next keyframe was taken).
    pub fn set_budget(&mut self, bytes: usize) {
        self.budget = bytes;
        while self.bytes() > self.budget && self.thin() {}
    }

    /// Keeps every other keyframe of each branch (the first always), doubling the spacing.
    /// Returns whether any keyframe went.
    fn thin(&mut self) -> bool {
        let mut dropped = false;
        for branch in &mut self.branches {
            let before = branch.keys.len();
            let mut k = 0;
            branch.keys.retain(|_| {
                k += 1;
                k % 2 == 1
            });
            dropped |= branch.keys.len() < before;
        }
        self.thinned += 1;
        dropped
    }

    /// The water of the current branch has reached `time`.
    pub fn reached(&mut self, time: f64) {
        let branch = self.branch_mut();
        branch.end = branch.end.max(time);
    }

    /// Marks an event at `time` on the current branch (the same label within a second of
    /// another is merged).
    pub fn mark(&mut self, time: f64, label: impl Into<String>) {
        let label = label.into();
        let events = &mut self.branch_mut().events;
        if (events.iter()).any(|e| e.label == label && (time - e.time).abs() < 1.0) {
            return;
        }
        let at = events.partition_point(|e| e.time <= time);
        events.insert(at, Event { time, label });
        if events.len() > MAX_EVENTS {
            events.remove(0);
        }
    }

    /// Whether the current branch has recorded water after `time`.
    pub fn has_future(&self, time: f64) -> bool {
        self.branch()
            .keys
            .last()
            .is_some_and(|k| k.time() > time + 1e-9)
    }

    /// The water is edited at `time`: if the current branch has a recorded future, a new
    /// branch starts there (sharing the keyframes before `time`) and becomes the current one;
    /// the old one keeps its future, and a keyframe is wanted at once, with the edit in it.
    /// An edit at the edge of the run waits for the next keyframe by the spacing (one at
    /// once would shift the branch's keyframes off the times other branches have theirs).
    /// Returns whether a branch was made.
    pub fn edited(&mut self, time: f64) -> bool {
        if !self.has_future(time) {
            self.mark(time, "Edited");
            return false;
        }
        self.made += 1;
        let parent = self.branch();
        let mut branch = Branch::new(format!("Branch {}", self.made));
        branch.forked_at = Some(time);
        branch.start = parent.start;
        // A keyframe at the very moment is taken again, with the edit in it.
        branch.keys = (parent.keys.iter())
            .filter(|k| k.time() < time - 1e-9)
            .cloned()
            .collect();
        branch.events = (parent.events.iter())
            .filter(|e| e.time <= time)
            .cloned()
            .collect();
        branch.end = time;
        self.branches.push(branch);
        self.current = self.branches.len() - 1;
        self.forced = true;
        self.mark(time, "Edited");
        true
    }

    /// The water goes back to `time` on the current branch: what the branch recorded after it
    /// stays (replayed or replaced by a branch at the next edit).
    pub fn rewound(&mut self) {
        self.forced = false;
    }

    /// Switches to branch `index` (to replay or continue its water). Returns whether it exists.
    pub fn switch(&mut self, index: usize) -> bool {
        if index >= self.branches.len() {
            return false;
        }
        self.current = index;
        if self.compare == Some(index) {
            self.compare = None;
        }
        true
    }

    /// The last moment branches `a` and `b` are known to share: the time of the last keyframe
    /// both hold (a branch keeps the keyframes of the run it left, up to its fork), or the
    /// first run's start.
    pub fn shared_until(&self, a: usize, b: usize) -> f64 {
        let (Some(a), Some(b)) = (self.branches.get(a), self.branches.get(b)) else {
            return 0.0;
        };
        (a.keys.iter().zip(&b.keys))
            .take_while(|(x, y)| Arc::ptr_eq(x, y))
            .last()
            .map_or(a.start.min(b.start), |(k, _)| k.time())
    }

    /// Drops branch `index` (never the current one) and its keyframes not shared. Returns
    /// whether it was dropped.
    pub fn discard(&mut self, index: usize) -> bool {
        if index == self.current || index >= self.branches.len() {
            return false;
        }
        self.branches.remove(index);
        // A keyframe on its way keeps its branch, renumbered (the forced one of a fork just
        // made, dropped with the rest, left the branch with none at its fork).
        if let Some(p) = self.pending.as_mut() {
            p.branch = match p.branch {
                b if b == index => usize::MAX,
                b if b > index => b - 1,
                b => b,
            };
        }
        if self.current > index {
            self.current -= 1;
        }
        self.compare = match self.compare {
            Some(c) if c == index => None,
            Some(c) if c > index => Some(c - 1),
            other => other,
        };
        true
    }

    /// The latest moment any branch reached, seconds (the timeline's span).
    pub fn span(&self) -> f64 {
        self.branches.iter().map(|b| b.end).fold(0.0, f64::max)
    }

    /// The earliest moment of any branch, seconds (the left end of the timeline's bar).
    pub fn origin(&self) -> f64 {
        (self.branches.iter())
            .map(|b| b.start)
            .fold(f64::INFINITY, f64::min)
            .min(self.span())
    }

    /// The water of a new run starts at `time` (the level's own time: 0 s, or the moment it
    /// was baked at). Only the first run's start moves; a timeline that has recorded water
    /// keeps its start.
    pub fn starts_at(&mut self, time: f64) {
        if self.branches.len() == 1 && self.branches[0].keys.is_empty() && time.is_finite() {
            let run = &mut self.branches[0];
            run.start = time;
            run.end = run.end.max(time);
        }
    }
}

#[cfg(test)]
#[path = "timeline_tests.rs"]
mod tests;
