//! `Preview`: the live water of the open document. It runs the runtime's GPU solver on the
//! renderer's device (so the water is drawn straight from the solver's buffers), steps it by
//! the frame's real time times a speed factor, takes the document's edits without a reset,
//! reads volume figures and a probe back asynchronously, and pauses on a blow-up. It never
//! writes to the document: reset returns to the authored level exactly. The level's bodies
//! move with the water ([`bodies`]). If the GPU device is lost, the preview pauses and goes on
//! with the CPU solver ([`cpu`]), restarted from the authored water.

mod bodies;
mod cpu;
mod device;
mod edits;
mod gauges;
mod ground;
mod ledger;
mod maps;
mod pace;
mod rewind;
mod start;
pub mod stride;
pub mod timeline;

use spillway::Level;
use spillway::body::world::WorldError;
use spillway::gpu::{GpuError, GpuSimulation, ProbeReading};
use spillway::sim::{SimError, Stats, StepError};
use thiserror::Error;

use cpu::CpuWater;
pub use device::DeviceWatch;
pub use gauges::{GAUGE_INTERVAL, GaugeSeries};
pub use ground::GroundChange;
use spillway::gpu::WaterView;

/// Most steps one frame runs (fast-forward is capped so a frame stays interactive).
pub const MAX_STEPS_PER_FRAME: usize = 4000;

/// Most steps one frame runs while bodies move, whatever the step budget allows: each is
/// coupled with the rigid bodies (a read of the water under them and a rapier step). The step
/// budget is what holds fast-forward back in practice (a few bodies: well over 100 steps fit in
/// it on an H100; 200 bodies: about 3).
pub const MAX_BODY_STEPS_PER_FRAME: usize = 1000;

/// Default of [`Preview::step_budget`]: the steps' share of a 60 Hz frame (16.7 ms), leaving
/// the rest to the panels and the drawing. 13 ms lets 200 bodies keep 30× real time on a 60 Hz
/// clock on an H100, where 12 ms fell short (`docs/gpu.md`, "the preview on a 60 Hz clock").
pub const STEP_BUDGET: std::time::Duration = std::time::Duration::from_millis(13);

pub use bodies::{PreviewBodies, WantedBodies};

/// Most samples kept for the plots (older ones are thinned).
const MAX_SAMPLES: usize = 2048;

/// Slowest and fastest speed factors (simulated seconds per real second).
pub const SPEED_RANGE: std::ops::RangeInclusive<f32> = 0.05..=1000.0;

/// One point of the plots over simulated time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Simulated time, seconds.
    pub time: f64,
    /// Water volume, m³.
    pub volume: f64,
    /// Flooded (wet) area, m².
    pub flooded: f64,
}

/// Where a blow-up or runaway stopped the preview.
#[derive(Clone, Debug, PartialEq)]
pub struct Halt {
    /// What happened, for the user.
    pub message: String,
    /// The cell where it happened, if known (x, y).
    pub cell: Option<(usize, usize)>,
}

/// Why the preview cannot run, or stopped by itself (a blow-up only pauses it: [`Halt`]).
#[derive(Debug, Error)]
pub enum PreviewError {
    /// The CPU solver refused the level.
    #[error("The water preview cannot run: {0}")]
    CpuStart(#[source] SimError),
    /// The GPU solver could not start on the level (no room on the device, a bad level).
    #[error("The water preview cannot run: {0}")]
    GpuStart(#[source] GpuError),
    /// The GPU solver failed while running (the device reported an error, an edit did not
    /// fit); a [`GpuError`] converts into this.
    #[error("The water preview stopped: {0}")]
    Gpu(#[from] GpuError),
    /// The water and bodies failed while running (anything but a blow-up, which pauses).
    #[error("The water preview stopped: {0}")]
    Bodies(#[from] WorldError),
    /// A keyframe of the timeline does not fit the level any more.
    #[error("The timeline cannot go back: {0}")]
    Restore(#[source] spillway::snapshot::SnapshotError),
}

/// The live preview.
#[derive(Default)]
pub struct Preview {
    sim: Option<GpuSimulation>,
    /// The gauges' readings while the water runs.
    gauge_log: gauges::GaugeLog,
    /// Whether the water keeps the maps of its run from when it starts (on by default).
    pub record_maps: bool,
    /// The simulated time the maps of the run start from: the water's start, or the keyframe
    /// gone back to (a restored run keeps maps from there on).
    maps_since: f64,
    /// Whether time runs.
    pub playing: bool,
    /// Simulated seconds per real second.
    pub speed: f32,
    /// Steps owed to the speed factor but not run yet (fractions carry to the next frame).
    owed: f64,
    /// The latest volume figures.
    pub stats: Option<Stats>,
    /// Volume and flooded area over time.
    pub history: Vec<Sample>,
    /// Why the preview stopped by itself.
    pub halt: Option<Halt>,
    /// Why the preview cannot run at all (no device, too large), or stopped.
    pub error: Option<PreviewError>,
    /// The last probe reading.
    pub probe: Option<ProbeReading>,
    /// What was last handed to the solver, to find edits.
    uploaded: Option<Level>,
    /// Which authored water edits the running water holds.
    ledger: ledger::WaterLedger,
    /// The ground the running water stands on, read back where it changes.
    ground: ground::RunningGround,
    /// Steps run in the last frame.
    pub last_steps: usize,
    /// The figures no longer match the water (an edit, a restart, a seek): read them again
    /// even with no step run.
    stats_due: bool,
    /// The cell the last probe reading was asked for, while the water has not changed since.
    probed: Option<(usize, usize)>,
    /// Single steps asked for and not run yet.
    queued: usize,
    /// The level's gates changed while the water ran: they apply after a reset.
    pub gates_changed: bool,
    /// This frame's recorded steps, to be submitted with the frame's rendering.
    commands: Vec<wgpu::CommandBuffer>,
    /// The document's bodies, as last handed over.
    wanted: WantedBodies,
    /// The bodies moving with the water, while the simulation runs and the level has bodies.
    bodies: Option<PreviewBodies>,
    /// Fast-forward was held back this frame because bodies move.
    pub bodies_capped: bool,
    /// Water steps per rigid-body step at fast-forward ([`stride`]).
    pub body_stride: stride::BodyStride,
    /// Fewer steps per frame while frames are slow ([`pace::Pace`]).
    pub pace: pace::Pace,
    /// GPU steps since the reset that needed more CFL sub-steps than were encoded: they ran
    /// stable but short, so the water lags the clock by a little (from the last read-back).
    pub clamped_steps: u32,
    /// Longest a frame spends on steps that run one by one after the first: steps coupled with
    /// bodies (each waits for the GPU) and steps of the CPU solver. Keeps the editor responsive
    /// with many bodies, a slow GPU or a large grid on the CPU.
    pub step_budget: std::time::Duration,
    /// Wall time between two readings of the gauges while the water plays
    /// ([`GAUGE_INTERVAL`]).
    pub gauge_interval: std::time::Duration,
    /// The water on the CPU solver, after the GPU device was lost.
    cpu: Option<CpuWater>,
    /// Watches the device the GPU water runs on.
    watch: DeviceWatch,
    /// What happened when the GPU device was lost: from then on the water runs on the CPU.
    pub gpu_lost: Option<String>,
    /// The device was lost since [`Self::take_gpu_lost_news`] was last asked.
    lost_news: bool,
    /// The designer chose the CPU solver.
    cpu_chosen: bool,
    /// Keyframes of the run, in branches.
    pub timeline: timeline::Timeline,
    /// Where the water is to be restored from next (a keyframe or the state before an edit
    /// on the CPU), with the bodies' motion then.
    start: Option<rewind::Start>,
    /// A moment asked for by [`Self::seek`], not yet begun.
    seek_to: Option<f64>,
    /// The moment the water runs on to, paused, after a seek.
    target: Option<f64>,
    /// Gates seen open, for the timeline's events.
    seen_open: Vec<String>,
    /// The next change of the authored water is the running water kept ("Bake this frame").
    water_is_authored: bool,
    /// The bodies' motion when the awaited keyframe's state was asked of the GPU.
    key_bodies: bodies::BodyStates,
    /// The bodies' motion to put back once they are in the physics (after a restore).
    restored_bodies: Option<bodies::BodyStates>,
    /// The bodies the authored water holds already (a bake's): they enter settled.
    settled_bodies: Vec<spillway::level::Body>,
}

impl Preview {
    /// A paused preview at real-time speed.
    pub fn new() -> Self {
        Self {
            speed: 1.0,
            step_budget: STEP_BUDGET,
            gauge_interval: GAUGE_INTERVAL,
            record_maps: true,
            ..Self::default()
        }
    }

    /// Whether a simulation exists (time has run since the last reset).
    pub fn is_live(&self) -> bool {
        self.sim.is_some() || self.cpu.is_some()
    }

    /// Whether bodies move with the running water.
    pub fn has_bodies(&self) -> bool {
        self.bodies.as_ref().is_some_and(|b| !b.is_empty())
    }

    /// Whether the water runs on the CPU solver (chosen, or the GPU device was lost).
    pub fn on_cpu(&self) -> bool {
        self.gpu_lost.is_some() || self.cpu_chosen
    }

    /// Chooses the CPU solver (`true`) or the GPU (`false`; not after the GPU was lost).
    /// Switching starts again from the authored water.
    pub fn set_cpu(&mut self, cpu: bool) {
        if cpu != self.cpu_chosen {
            self.cpu_chosen = cpu;
            self.reset();
        }
    }

    /// Whether the GPU device was lost since the last call (once per loss): the editor saves a
    /// recovery copy of the document then.
    pub fn take_gpu_lost_news(&mut self) -> bool {
        std::mem::take(&mut self.lost_news)
    }

    /// Simulated time, seconds.
    /// Until the figures of a restarted water are read back (a frame or two), the clock's or
    /// the keyframe's moment (the Water panel read 0 s through a drag of the timeline bar).
    pub fn time(&self) -> f64 {
        match (&self.stats, &self.start) {
            (Some(s), _) => s.time,
            _ if self.is_live() => self.clock(),
            (None, Some(start)) => start.level.flow.as_ref().map_or(0.0, |f| f.time),
            (None, None) => 0.0,
        }
    }

    /// Drops the running water and its timeline: the next frame starts again from the
    /// authored level.
    pub fn reset(&mut self) {
        self.restart();
        // Another document's bodies: the same path may name another file (another folder).
        self.wanted = WantedBodies::default();
        self.history.clear();
        // Its gauges' readings too (kept, they hid the new run's until it passed their time).
        self.gauge_log = Default::default();
        self.timeline.clear();
        self.ground.reset();
        self.start = None;
        self.target = None;
        self.seek_to = None;
    }

    /// Drops the running water (not its timeline nor its plots): the next frame starts from
    /// [`Self::start`] or the authored level.
    fn restart(&mut self) {
        self.timeline.cancel();
        self.sim = None;
        self.cpu = None;
        self.uploaded = None;
        self.stats = None;
        self.halt = None;
        self.error = None;
        self.probe = None;
        self.owed = 0.0;
        self.last_steps = 0;
        self.gates_changed = false;
        self.bodies = None;
        self.bodies_capped = false;
        (self.body_stride.steps, self.body_stride.behind) = (1, 0);
        self.clamped_steps = 0;
        self.seen_open.clear();
        self.ground.restart();
    }

    /// Starts time running (from the authored state if nothing runs yet).
    pub fn play(&mut self) {
        self.playing = true;
        self.halt = None;
    }

    /// Every gate of the running water and whether it is open (empty before the water runs).
    pub fn gates(&self) -> Vec<spillway::sim::GateState> {
        if let Some(cpu) = &self.cpu {
            return cpu.gates();
        }
        self.sim.as_ref().map_or_else(Vec::new, |s| s.gates())
    }

    /// Pauses and runs one step at the next frame.
    pub fn step_once(&mut self) {
        self.pause();
        self.queued += 1;
        self.halt = None;
    }

    /// Stops time.
    pub fn pause(&mut self) {
        self.playing = false;
        self.owed = 0.0;
        self.body_stride.behind = 0;
    }

    /// Handles a coupled step that failed: a refused water step (a blow-up at a cell) pauses
    /// at it, as without bodies, with the state as it was before (returns `true`: the solver
    /// may step again after an edit); anything else stops the preview.
    fn pause_or_fail(&mut self, e: WorldError) -> bool {
        match &e {
            WorldError::Solver(solver) if solver.step().is_some() => {
                self.playing = false;
                self.halt = solver.step().map(halt);
                true
            }
            _ => {
                self.fail(PreviewError::Bodies(e));
                false
            }
        }
    }

    fn fail(&mut self, e: impl Into<PreviewError>) {
        self.error = Some(e.into());
        self.sim = None;
        self.bodies = None;
        self.ground.reset();
        self.playing = false;
        // No water runs on to a moment any more (the panel said "going to …" for good).
        (self.target, self.seek_to) = (None, None);
    }

    /// Runs one frame of `real_dt` seconds: steps the solver by `speed × real_dt` simulated
    /// seconds while playing (plus any single steps asked for), collects read-backs, and asks
    /// for the next ones. `probe` is the cell under the cursor. Returns whether the preview
    /// needs more frames (time runs or read-backs are due), so the caller keeps redrawing.
    pub fn frame(
        &mut self,
        level: &Level,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        real_dt: f32,
        probe: Option<(usize, usize)>,
    ) -> bool {
        let last = std::mem::take(&mut self.last_steps);
        if self.gpu_lost.is_none()
            && let Some(why) = self.watch.lost()
        {
            self.fall_back(&why);
        }
        self.flush();
        if let Some(sim) = self.sim.as_mut() {
            // Every recorded step is submitted now, so the read-back's clock is the water's.
            // Paused and unchanged, the figures stand: asking again kept an idle editor
            // reducing the whole grid ten times a second.
            self.stats_due |= self.playing || last > 0 || self.stats.is_none();
            if self.stats_due {
                // The probe reads the changed water again too.
                self.probed = None;
            }
            if self.stats_due && !sim.stats_pending() {
                sim.request_stats();
                self.stats_due = false;
            }
        }
        if let Some(time) = self.seek_to.take() {
            self.go_to(level, time);
        }
        let single = std::mem::take(&mut self.queued);
        if !(self.playing || single > 0 || self.is_live() || self.start.is_some()) {
            return false;
        }
        if !self.ensure(level, device, queue) {
            return false;
        }
        let dt = level.params.dt.max(1e-6) as f64;
        let mut steps = single + self.steps_to_target(dt);
        if self.playing {
            self.owed += self.speed.clamp(*SPEED_RANGE.start(), *SPEED_RANGE.end()) as f64
                * real_dt.clamp(0.0, 0.25) as f64
                / dt;
            let whole = self.owed.floor().min(MAX_STEPS_PER_FRAME as f64) as usize;
            let run = self.pace.steps(whole, real_dt, last);
            self.owed = (self.owed - run as f64).min(1.0);
            steps += run;
        }
        if self.cpu.is_some() {
            let more = self.frame_cpu(level, device, queue, steps, probe);
            self.after_steps(level);
            return more || self.target.is_some();
        }
        if !self.wanted.bodies.is_empty() || self.bodies.is_some() {
            let sim = self.sim.as_ref().expect("ensured above");
            let settled = std::mem::take(&mut self.settled_bodies);
            let bodies = (self.bodies).get_or_insert_with(|| PreviewBodies::new(sim, settled));
            bodies.sync(
                &self.wanted,
                &level.boundaries,
                &level.params.default_boundary,
            );
            if bodies.is_empty()
                && let Some(sim) = self.sim.as_mut()
            {
                // The last body left (deleted): nothing blocks the water any more.
                sim.clear_blockers();
            }
        }
        self.restore_bodies();
        self.keyframe(level);
        self.bodies_capped = false;
        if steps > 0 && self.has_bodies() {
            // Coupled steps go to the GPU one by one (each reads the water under the bodies).
            steps = self.step_bodies(steps, level.params.dt);
        } else if steps > 0
            && let Some(sim) = self.sim.as_mut()
        {
            match sim.encode_steps(steps, level.params.dt) {
                Ok(commands) => self.commands = commands,
                Err(e) => {
                    self.fail(PreviewError::Gpu(e));
                    return false;
                }
            }
        }
        let caught_up = self.catch_up(level.params.dt, steps);
        self.after_steps(level);
        let Some(sim) = self.sim.as_mut() else {
            return false;
        };
        self.last_steps = steps + caught_up;
        if let Some(stats) = sim.poll_stats() {
            let status = sim.status();
            self.clamped_steps = status.clamped_steps;
            record(&mut self.history, &stats, level.cell_size);
            self.stats = Some(stats);
            if let Some(e) = status.halted {
                self.playing = false;
                self.halt = Some(halt(&e));
                sim.clear_halt();
            }
        }
        if let Some(reading) = sim.poll_probe() {
            self.probe = Some(reading);
        }
        match probe {
            // Asked again only for another cell or water that moved (asked every frame, the
            // readings kept an idle editor drawing).
            Some(cell) if self.probed != Some(cell) || steps + caught_up > 0 => {
                if !sim.probe_pending() {
                    sim.request_probe(cell.0, cell.1);
                    self.probed = Some(cell);
                }
            }
            Some(_) => {}
            None => {
                self.probe = None;
                self.probed = None;
            }
        }
        self.playing || steps + caught_up > 0 || self.target.is_some()
    }

    /// Records steps that run again the simulated time clamped steps lost (the water's own
    /// time fell behind the clock), within what the frame's pace leaves after its `steps`;
    /// returns how many. Not with bodies (their steps are coupled one by one) nor while the
    /// water is halted.
    fn catch_up(&mut self, dt: f32, steps: usize) -> usize {
        if self.has_bodies() || self.halt.is_some() {
            return 0;
        }
        let Some(sim) = self.sim.as_mut() else {
            return 0;
        };
        match sim.encode_catch_up(dt, self.pace.cap().saturating_sub(steps)) {
            Ok((commands, n)) => {
                self.commands.extend(commands);
                n
            }
            Err(e) => {
                self.fail(PreviewError::Gpu(e));
                0
            }
        }
    }

    /// Takes this frame's recorded solver steps, for the renderer to submit in the same
    /// submission as the frame it draws (steps first, so it draws the new water).
    pub fn take_commands(&mut self) -> Vec<wgpu::CommandBuffer> {
        std::mem::take(&mut self.commands)
    }

    /// Submits recorded steps nobody took (no renderer this frame).
    pub fn flush(&mut self) {
        let commands = std::mem::take(&mut self.commands);
        if let (false, Some(sim)) = (commands.is_empty(), self.sim.as_ref()) {
            sim.queue().submit(commands);
        }
    }

    /// How far to draw the water between its previous state (0) and its current one (1):
    /// while playing, the share of the frame's time the last step has run (smooth motion at
    /// speeds below one step a frame); 1 when paused or on the CPU solver.
    pub fn blend(&self) -> f32 {
        if self.playing && self.cpu.is_none() {
            1.0 - self.owed.clamp(0.0, 1.0) as f32
        } else {
            1.0
        }
    }

    /// The buffers to draw the water from, while a simulation exists.
    pub fn water(&self) -> Option<WaterView> {
        if let Some(cpu) = &self.cpu {
            return cpu.buffers();
        }
        let sim = self.sim.as_ref()?;
        Some(sim.water_view())
    }

    /// The whole depth grid now (blocking; for tests and "apply to level").
    pub fn read_depth(&self) -> Option<Vec<f32>> {
        if let Some(cpu) = &self.cpu {
            return Some(cpu.depth());
        }
        self.sim.as_ref()?.read_depth().ok()
    }

    /// Whether figures, a probe reading or a keyframe are still to come back from the GPU or
    /// its worker (or to be asked for): frames are needed until they are in.
    pub fn awaiting_readbacks(&self) -> bool {
        self.stats_due
            || self.timeline.busy()
            || (self.sim.as_ref()).is_some_and(GpuSimulation::readbacks_pending)
    }

    /// The running water as `level`'s initial state (depths and flow state), waiting for the
    /// steps run so far; `None` while no water runs.
    pub fn capture(&mut self, level: &Level) -> Option<Result<Level, GpuError>> {
        self.flush();
        if let Some(cpu) = &self.cpu {
            return Some(Ok(cpu.sim().bake_into(level)));
        }
        let sim = self.sim.as_mut()?;
        Some(sim.bake_into(level))
    }

    /// Waits for the steps run so far and returns fresh figures (blocking; for tests).
    pub fn wait_stats(&mut self) -> Option<Stats> {
        self.flush();
        if let Some(cpu) = &self.cpu {
            self.stats = Some(cpu.stats());
            return self.stats;
        }
        let stats = self.sim.as_mut()?.stats().ok()?;
        self.stats = Some(stats);
        Some(stats)
    }
}

fn halt(e: &StepError) -> Halt {
    let cell = match e {
        StepError::BlowUp { x, y, .. } => Some((*x, *y)),
        _ => None,
    };
    Halt {
        message: format!("Preview paused: {e}. The level itself is unchanged."),
        cell,
    }
}

/// Appends a sample; when full, drops every other old sample so the plot keeps its span.
fn record(history: &mut Vec<Sample>, stats: &Stats, cell_size: f32) {
    if history.last().is_some_and(|s| s.time >= stats.time) {
        return;
    }
    if history.len() >= MAX_SAMPLES {
        let mut keep = 0;
        history.retain(|_| {
            keep += 1;
            keep % 2 == 0
        });
    }
    history.push(Sample {
        time: stats.time,
        volume: stats.volume,
        flooded: stats.wet_cells as f64 * (cell_size as f64).powi(2),
    });
}
