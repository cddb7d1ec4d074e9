//! Baking: run a level until its water settles, then keep that water as the level's initial
//! state. [`settle`] is the loop `spillway bake` and the editor share; [`BakeJob`] runs it on a
//! background thread (on the editor's GPU device, or the CPU solver) with progress, an estimate
//! of the time left, and Cancel.
//!
//! Settling is measured once per simulated second: the change rate is the largest
//! `|Δdepth| / Δt` over all cells across that second. The bake is steady when the rate falls
//! below the tolerance.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use std::path::PathBuf;

use spillway::body::world::WorldError;
use spillway::gpu::{GpuError, GpuSimulation};
use spillway::sim::{SimError, StepError};
use spillway::{Level, Simulation};

/// The default tolerance of a bake, m/s.
pub const DEFAULT_TOLERANCE: f32 = 1e-3;
/// The default limit of a bake, simulated seconds.
pub const DEFAULT_MAX_SECONDS: f32 = 600.0;

/// How a bake ended.
#[derive(Clone, Debug, PartialEq)]
pub struct BakeOutcome {
    /// Simulated seconds run by the bake.
    pub seconds: f64,
    /// Change rate over the last measured interval, m/s (infinite if nothing was run).
    pub rate: f32,
    /// Whether the rate fell below the tolerance.
    pub steady: bool,
    /// Whether the bake was stopped before it ended.
    pub cancelled: bool,
    /// The bodies that went over an open edge of the map during the bake (a log carried out
    /// by the river), by name: the baked level keeps them where they were placed, not where
    /// they fell.
    pub left_map: Vec<String>,
}

/// Why a bake could not run or finish.
#[derive(Debug, thiserror::Error)]
pub enum BakeError {
    /// The level cannot be simulated (sizes, values).
    #[error(transparent)]
    Level(#[from] SimError),
    /// The CPU solver refused a step (a blow-up at a cell, a runaway).
    #[error(transparent)]
    Step(#[from] StepError),
    /// The GPU solver failed (a lost device, a read-back, a refused step).
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// A body could not be imported or coupled.
    #[error(transparent)]
    Bodies(#[from] WorldError),
    /// The bake's thread could not be started.
    #[error("could not start the bake: {0}")]
    Thread(std::io::Error),
    /// The bake's thread ended without a result (it panicked).
    #[error("the bake stopped unexpectedly")]
    Vanished,
}

/// A simulation a bake can settle: the CPU [`Simulation`] or the GPU solver.
pub trait Settling {
    /// The level's time step, seconds.
    fn dt(&self) -> f32;
    /// Runs `n` steps of [`Settling::dt`].
    fn run_steps(&mut self, n: u64) -> Result<(), BakeError>;
    /// Steps between two looks at a bake's stop flag: a few on the CPU; on the GPU a whole
    /// interval (each call of `run_steps` there waits for the GPU to catch up).
    fn steps_between_stops(&self) -> u64 {
        STOP_EVERY
    }
    /// The depth grid now, row-major, metres.
    fn depth_now(&mut self) -> Result<Vec<f32>, BakeError>;
    /// The level with the water as it is now (depths and flow state).
    fn baked(&mut self, level: &Level) -> Result<Level, BakeError>;
    /// The names of `level`'s bodies that went over an open edge of the map and were set
    /// aside (none without bodies).
    fn left_map(&self, level: &Level) -> Vec<String> {
        let _ = level;
        Vec::new()
    }
}

impl Settling for Simulation {
    fn dt(&self) -> f32 {
        self.params().dt
    }

    fn run_steps(&mut self, n: u64) -> Result<(), BakeError> {
        let dt = self.params().dt;
        Ok((0..n).try_for_each(|_| self.step(dt))?)
    }

    fn depth_now(&mut self) -> Result<Vec<f32>, BakeError> {
        Ok(self.depth().to_vec())
    }

    fn baked(&mut self, level: &Level) -> Result<Level, BakeError> {
        Ok(self.bake_into(level))
    }
}

impl Settling for GpuSimulation {
    fn dt(&self) -> f32 {
        self.params().dt
    }

    fn steps_between_stops(&self) -> u64 {
        u64::MAX
    }

    fn run_steps(&mut self, n: u64) -> Result<(), BakeError> {
        let dt = self.params().dt;
        self.step_n(n as usize, dt)?;
        // Steps that needed more sub-steps than were encoded ran short: run the lost time.
        Ok(self.catch_up(dt).map(|_| ())?)
    }

    fn depth_now(&mut self) -> Result<Vec<f32>, BakeError> {
        Ok(self.read_depth()?)
    }

    fn baked(&mut self, level: &Level) -> Result<Level, BakeError> {
        Ok(self.bake_into(level)?)
    }
}

pub use crate::coupled::Coupled;

/// Steps `sim` in intervals of one simulated second until the largest depth change rate over an
/// interval is below `tolerance` (m/s) or `max_seconds` have been simulated. `progress` is told
/// the seconds simulated and the latest rate after every interval; it stops the bake by
/// returning [`ControlFlow::Break`] (the outcome is then `cancelled`).
pub fn settle(
    sim: &mut impl Settling,
    tolerance: f32,
    max_seconds: f64,
    progress: impl FnMut(f64, f32) -> ControlFlow<()>,
) -> Result<BakeOutcome, BakeError> {
    settle_until(sim, tolerance, max_seconds, progress, &|| false)
}

/// Steps a bake on the CPU takes between looks at its `stop` flag.
const STOP_EVERY: u64 = 8;

/// As [`settle`], stopping (cancelled) within a few steps of `stop` saying so on the CPU, not
/// only at the end of a simulated second (50 steps or more, seconds on a large level).
pub fn settle_until(
    sim: &mut impl Settling,
    tolerance: f32,
    max_seconds: f64,
    mut progress: impl FnMut(f64, f32) -> ControlFlow<()>,
    stop: &dyn Fn() -> bool,
) -> Result<BakeOutcome, BakeError> {
    let dt = sim.dt();
    let per_second = ((1.0 / dt as f64).round() as u64).max(1);
    // At least one step: a bake shorter than half a step ran none and called it settled.
    let max_steps = (max_seconds / dt as f64).round().max(1.0) as u64;
    let mut previous = sim.depth_now()?;
    let mut outcome = BakeOutcome {
        seconds: 0.0,
        rate: f32::INFINITY,
        steady: false,
        cancelled: false,
        left_map: Vec::new(),
    };
    let mut taken = 0;
    while taken < max_steps {
        let n = per_second.min(max_steps - taken);
        let mut left = n;
        let every = sim.steps_between_stops().max(1);
        while left > 0 {
            let k = left.min(every);
            sim.run_steps(k)?;
            left -= k;
            // The interval's last chunk leaves it to the rate and `progress` (water that
            // settled as Cancel came is kept).
            if left > 0 && stop() {
                outcome.seconds = (taken + n - left) as f64 * dt as f64;
                outcome.cancelled = true;
                return Ok(outcome);
            }
        }
        taken += n;
        let span = (n as f64 * dt as f64) as f32;
        let depth = sim.depth_now()?;
        let change = depth
            .iter()
            .zip(&previous)
            .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
        previous = depth;
        outcome.seconds = taken as f64 * dt as f64;
        outcome.rate = change / span;
        if outcome.rate < tolerance {
            outcome.steady = true;
        }
        if progress(outcome.seconds, outcome.rate).is_break() {
            outcome.cancelled = !outcome.steady;
            break;
        }
        if outcome.steady {
            break;
        }
    }
    Ok(outcome)
}

/// What a bake is asked to do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BakeSettings {
    /// Steady below this change rate, m/s.
    pub tolerance: f32,
    /// Stop after this many simulated seconds, steady or not.
    pub max_seconds: f32,
}

impl Default for BakeSettings {
    fn default() -> Self {
        Self {
            tolerance: DEFAULT_TOLERANCE,
            max_seconds: DEFAULT_MAX_SECONDS,
        }
    }
}

/// One progress report of a running bake.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BakePoint {
    /// Simulated seconds so far.
    pub seconds: f64,
    /// The change rate over the last simulated second, m/s.
    pub rate: f32,
    /// Wall-clock seconds since the bake started.
    pub wall: f64,
}

enum Report {
    /// Where it runs, once its solver is ready.
    Backend(String),
    Point(BakePoint),
    Done(Result<(BakeOutcome, Box<Level>), BakeError>),
}

/// How a finished bake ended.
#[derive(Debug)]
pub enum BakeEnd {
    /// It ran to the end (steady or at its time limit): the baked level.
    Finished(BakeOutcome, Box<Level>),
    /// The designer cancelled it: nothing to keep.
    Cancelled,
    /// The solver failed.
    Failed(BakeError),
}

/// Where a long job runs, for the designer, from how the GPU took the level: not asked
/// (`None`: "CPU"), taken ("GPU") or refused ("CPU (the GPU refused the level: why)").
pub(crate) fn backend<T, E: std::fmt::Display>(gpu: Option<&Result<T, E>>) -> String {
    match gpu {
        None => "CPU".to_owned(),
        Some(Ok(_)) => "GPU".to_owned(),
        Some(Err(why)) => format!("CPU (the GPU refused the level: {why})"),
    }
}

/// A bake running on a background thread.
pub struct BakeJob {
    cancel: Arc<AtomicBool>,
    reports: mpsc::Receiver<Report>,
    /// What the bake was asked to do.
    pub settings: BakeSettings,
    /// Where it runs, for the designer ("GPU", "CPU", or "CPU (the GPU refused it: why)");
    /// empty while its solver is readied.
    pub backend: String,
    /// Progress so far, one point per simulated second.
    pub points: Vec<BakePoint>,
    started: Instant,
    /// The end was reported.
    done: bool,
}

impl BakeJob {
    /// Starts baking `level` with its bodies (their meshes imported from `root`, the level's
    /// folder): on the GPU `device` where given and the level fits it, else on the CPU solver.
    /// The solver is readied on the bake's thread (a large level's buffers and its bodies'
    /// files held the window); a level neither solver accepts, or a body that cannot run,
    /// ends it as failed.
    pub fn start(
        level: Level,
        root: PathBuf,
        settings: BakeSettings,
        gpu: Option<(wgpu::Device, wgpu::Queue)>,
    ) -> Result<Self, BakeError> {
        enum Solver {
            Gpu(Box<Coupled<GpuSimulation>>),
            Cpu(Box<Coupled<Simulation>>),
        }
        let ready = move |level: &Level| -> Result<(Solver, String), BakeError> {
            let gpu_sim = gpu.map(|(device, queue)| GpuSimulation::new(level, &device, &queue));
            // Why the GPU could not take it (out of memory beside the preview's own water, a
            // device limit): said, not silently hours slower.
            let backend = backend(gpu_sim.as_ref());
            let solver = match gpu_sim {
                Some(Ok(sim)) => Solver::Gpu(Box::new(Coupled::new(sim, level, &root, true)?)),
                _ => {
                    let sim = Simulation::new(level)?;
                    Solver::Cpu(Box::new(Coupled::new(sim, level, &root, true)?))
                }
            };
            Ok((solver, backend))
        };
        let cancel = Arc::new(AtomicBool::new(false));
        let (tx, reports) = mpsc::channel();
        let stop = cancel.clone();
        let started = Instant::now();
        std::thread::Builder::new()
            .name("spillway bake".into())
            .spawn(move || {
                let progress = |seconds, rate| {
                    let wall = started.elapsed().as_secs_f64();
                    let _ = tx.send(Report::Point(BakePoint {
                        seconds,
                        rate,
                        wall,
                    }));
                    if stop.load(Ordering::Relaxed) {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                };
                let ends = (settings.tolerance, settings.max_seconds as f64);
                let stopped = || stop.load(Ordering::Relaxed);
                let solver = match ready(&level) {
                    Ok((solver, backend)) => {
                        let _ = tx.send(Report::Backend(backend));
                        solver
                    }
                    Err(e) => {
                        let _ = tx.send(Report::Done(Err(e)));
                        return;
                    }
                };
                let result = match solver {
                    Solver::Gpu(mut sim) => run(sim.as_mut(), &level, ends, progress, &stopped),
                    Solver::Cpu(mut sim) => run(sim.as_mut(), &level, ends, progress, &stopped),
                };
                let _ = tx.send(Report::Done(result));
            })
            .map_err(BakeError::Thread)?;
        Ok(Self {
            cancel,
            reports,
            settings,
            backend: String::new(),
            points: Vec::new(),
            started,
            done: false,
        })
    }

    /// Asks the bake to stop; it ends at the next simulated second.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Whether Cancel was pressed.
    pub fn cancelling(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Takes the reports that arrived; returns how the bake ended once it has (once).
    pub fn poll(&mut self) -> Option<BakeEnd> {
        loop {
            match self.reports.try_recv() {
                Ok(Report::Backend(b)) => self.backend = b,
                Ok(Report::Point(p)) => self.points.push(p),
                Ok(Report::Done(result)) => {
                    self.done = true;
                    // Cancel pressed at the very end still means: keep nothing.
                    let cancelled = self.cancelling();
                    return Some(match result {
                        Ok(_) if cancelled => BakeEnd::Cancelled,
                        Ok((outcome, _)) if outcome.cancelled => BakeEnd::Cancelled,
                        Ok((outcome, level)) => BakeEnd::Finished(outcome, level),
                        Err(e) => BakeEnd::Failed(e),
                    });
                }
                Err(mpsc::TryRecvError::Empty) => return None,
                Err(mpsc::TryRecvError::Disconnected) if self.done => return None,
                Err(mpsc::TryRecvError::Disconnected) => {
                    self.done = true;
                    return Some(BakeEnd::Failed(BakeError::Vanished));
                }
            }
        }
    }

    /// Wall-clock time since the bake started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// How far the bake is, 0 to 1 ([`progress`]).
    pub fn fraction(&self) -> f32 {
        progress(&self.points, self.settings)
    }

    /// Estimated wall-clock seconds left: the change rate's fall (a straight line in log(rate)
    /// over the last half of the run, see [`estimate_left`]) extended to the tolerance, no
    /// further than the time limit, at the simulated-per-wall-second speed over the same
    /// points. `None` until there are enough points.
    pub fn eta(&self) -> Option<f64> {
        estimate_left(&self.points, self.settings)
    }
}

fn run(
    sim: &mut impl Settling,
    level: &Level,
    (tolerance, max_seconds): (f32, f64),
    progress: impl FnMut(f64, f32) -> ControlFlow<()>,
    stop: &dyn Fn() -> bool,
) -> Result<(BakeOutcome, Box<Level>), BakeError> {
    let mut outcome = settle_until(sim, tolerance, max_seconds, progress, stop)?;
    if outcome.cancelled {
        return Ok((outcome, Box::new(Level::flat(1, 1, 1.0, 0.0))));
    }
    outcome.left_map = sim.left_map(level);
    Ok((outcome, Box::new(sim.baked(level)?)))
}

/// Most points [`estimate_left`] fits (8128 slopes, well under a millisecond each frame).
const MAX_WINDOW: usize = 128;

/// The middle value of `v` (`None` when empty); reorders `v`.
fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mid = v.len() / 2;
    let (_, m, _) = v.select_nth_unstable_by(mid, f64::total_cmp);
    Some(*m)
}

/// See [`BakeJob::eta`]. The fit spans the last half of the run (8 to [`MAX_WINDOW`] points)
/// and is robust (Theil–Sen): the change rate is the largest change anywhere, noisy from
/// second to second, and a least-squares fit over the last 8 took a few quiet seconds for a
/// fall that was not there (a bake said "0.2 s left" with 11 s to go).
pub fn estimate_left(points: &[BakePoint], settings: BakeSettings) -> Option<f64> {
    if points.len() < 3 {
        return None;
    }
    let window = (points.len() / 2).clamp(8, MAX_WINDOW);
    let recent = &points[points.len().saturating_sub(window)..];
    let last = recent.last()?;
    let first = recent.first()?;
    let sim_span = last.seconds - first.seconds;
    let wall_span = last.wall - first.wall;
    if sim_span <= 0.0 {
        return None;
    }
    let wall_per_sim = (wall_span / sim_span).max(0.0);
    let to_limit = (settings.max_seconds as f64 - last.seconds).max(0.0);
    // Theil–Sen: the median of the slopes between every two points of log(rate) against
    // simulated seconds, so a few odd seconds do not tilt the trend.
    let pts: Vec<(f64, f64)> = recent
        .iter()
        .filter(|p| p.rate > 0.0 && p.rate.is_finite())
        .map(|p| (p.seconds, (p.rate as f64).ln()))
        .collect();
    let mut slopes = Vec::with_capacity(pts.len() * pts.len() / 2);
    for (i, a) in pts.iter().enumerate() {
        for b in &pts[i + 1..] {
            if b.0 > a.0 {
                slopes.push((b.1 - a.1) / (b.0 - a.0));
            }
        }
    }
    let sim_left = match median(&mut slopes) {
        Some(slope) if slope < 0.0 => {
            let mut offsets: Vec<f64> = pts.iter().map(|p| p.1 - slope * p.0).collect();
            // The trend's value now, not the last rate: one quiet second is no trend.
            let now = median(&mut offsets).unwrap_or(0.0) + slope * last.seconds;
            let target = (settings.tolerance as f64).ln();
            ((target - now) / slope).clamp(0.0, to_limit)
        }
        _ => to_limit,
    };
    Some(sim_left * wall_per_sim)
}

/// How far a bake of `points` is, 0 to 1: the larger of the share of the time limit simulated
/// and how far the change rate has fallen (on a log scale) from its first value to the
/// tolerance, by the lowest rate so far (the rate is noisy: by the last one the bar went back).
pub fn progress(points: &[BakePoint], settings: BakeSettings) -> f32 {
    let Some(last) = points.last() else {
        return 0.0;
    };
    let time = (last.seconds / settings.max_seconds as f64) as f32;
    let rates = points.iter().map(|p| p.rate).filter(|r| *r > 0.0);
    let first = rates.clone().next();
    let lowest = rates.fold(f32::INFINITY, f32::min);
    let fall = match first {
        Some(r0) if r0 > settings.tolerance => (r0 / lowest).ln() / (r0 / settings.tolerance).ln(),
        _ => 0.0,
    };
    time.max(fall).clamp(0.0, 1.0)
}

#[cfg(test)]
#[path = "bake_tests.rs"]
mod tests;
