//! Stepping, asynchronous stats and full read-backs of a `GpuSimulation`.

use crate::level::{FlowState, Level, SolverKind};
use crate::sim::{MAX_SUBSTEPS, Stats, StepError};

use super::GpuError;
use super::blocking;
use super::readback::GpuStatus;
use super::readback::{interpret, read_bytes, read_f32};
use super::sim::{GpuSimulation, TABLE_OFFSET};
use super::state::step_table;

/// Most dispatches recorded per command buffer (the first batch is one step and each batch after
/// it twice the one before, up to this), so the GPU starts while the CPU records the rest.
const DISPATCHES_PER_SUBMIT: u32 = 2048;

/// Most dispatches in a batch of steps recorded for a caller's frame ([`GpuSimulation::encode_steps`]):
/// all but the last batch are submitted as soon as they are recorded.
const EARLY_DISPATCHES: u32 = 160;

/// Byte offset of `Control.halted` in the `aux` buffer.
const HALTED_OFFSET: u64 = 16;

impl GpuSimulation {
    /// Sub-steps a step of `dt` needs by the last read-back state (the CPU's CFL rule on the
    /// GPU-reported max depth and speed, and the last step's own need).
    fn substeps_needed(&self, dt: f32) -> u32 {
        let (depth, speed) = match &self.last {
            Some(r) => (r.stats.max_depth, r.status.max_speed),
            None => (self.initial_max_depth(), self.initial_max_speed()),
        };
        let stable = crate::sim::stable_substep(&self.params, self.dx, depth, speed);
        let needed = (dt / stable).ceil().max(1.0);
        let needed = if needed.is_finite() {
            (needed as u32).clamp(1, MAX_SUBSTEPS)
        } else {
            1
        };
        needed.max(self.last.as_ref().map_or(1, |r| r.status.substeps_needed))
    }

    fn initial_max_depth(&self) -> f32 {
        self.init_figures.0
    }

    fn initial_max_speed(&self) -> f32 {
        self.init_figures.1
    }

    /// Uploads the step constants and `k_max` for steps of `dt`, if they changed.
    /// A step of `dt` that may not run: not a positive finite number, or the water halted by
    /// an error an earlier read-back reported. Asked before anything changes (a gate opens).
    fn refuse_step(&self, dt: f32) -> Result<(), GpuError> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(GpuError::Step(StepError::BadTimeStep(dt)));
        }
        if let Some(h) = self.last.as_ref().and_then(|r| r.status.halted.clone()) {
            return Err(GpuError::Step(h));
        }
        Ok(())
    }

    fn prepare(&mut self, dt: f32) -> Result<u32, GpuError> {
        self.refuse_step(dt)?;
        // Sub-steps recorded a step: what the last read-back state needs plus the headroom.
        let needed = self.substeps_needed(dt);
        let k = (needed + self.headroom).min(MAX_SUBSTEPS);
        // Where steps take two sub-steps or more, their first two may run as one pair.
        self.plan.splits = needed >= 2;
        if dt != self.table_dt {
            let table = step_table(&self.params, self.dx, dt, self.rough);
            self.ctx
                .queue
                .write_buffer(&self.bufs.aux, TABLE_OFFSET, bytemuck::cast_slice(&table));
            self.table_dt = dt;
        }
        if dt != self.grid.dt || k != self.grid.k_max {
            self.grid.dt = dt;
            self.grid.k_max = k;
            self.ctx
                .queue
                .write_buffer(&self.bufs.grid, 0, bytemuck::bytes_of(&self.grid));
        }
        Ok(k)
    }

    /// Records `n` steps of `dt` seconds and submits them without waiting. With `timestamps`,
    /// the first and last compute pass write GPU timestamps 0 and 1 of the query set.
    pub(crate) fn record_steps(
        &mut self,
        n: usize,
        dt: f32,
        timestamps: Option<&wgpu::QuerySet>,
        mut keep: Option<&mut Vec<wgpu::CommandBuffer>>,
    ) -> Result<(), GpuError> {
        // A gather requested before these steps no longer shows the water.
        self.drop_requested_cells();
        self.check_device()?;
        let k = self.prepare(dt)?;
        let mut wake = self.take_stale();
        let blocked = self.prepare_blocked()?;
        let blocking = self.blockers.as_ref().and_then(|b| b.pass());
        if let Some(m) = self.maps.as_mut() {
            // Buffers may have been replaced since the last steps (edits, a solver change).
            m.rebind(&self.ctx.device, &self.bufs);
        }
        let maps = self.maps.as_ref();
        if let Some(b) = self.bed.as_mut() {
            b.rebind(&self.ctx.device, &self.bufs);
        }
        let bed = self.bed.as_ref();
        let pairs = self.passes.pairs(
            &self.grid,
            self.plan,
            (blocking.is_some(), maps.is_some(), bed.is_some()),
        );
        // Steps whose passes stamp nothing (blockers, structures, a moving bed, unfused flow)
        // leave the dry strips' stamps stale for the next steps that use them.
        let stamped = !self.passes.config.quiet()
            || (blocking.is_none()
                && !self.plan.structures
                && bed.is_none()
                && self.passes.flow.fuses(&self.grid, self.plan.fusion));
        // Where steps pair, each records the pair pass after its begin (both builds, where a
        // step may take two sub-steps).
        let per_step = k
            * (2 + 2 * self.plan.edges as u32
                + self.plan.forcing as u32
                + self.plan.structures as u32
                + self.plan.breaches as u32
                + 2 * self.passes.config.advects() as u32
                + blocking::DISPATCHES * blocked as u32
                + 5 * self.bed.is_some() as u32)
            + pairs as u32 * (1 + (k >= 2) as u32);
        // Steps kept for the caller go to the GPU in small batches as they are recorded, so it
        // starts on them while the rest are recorded; only the last batch is kept.
        let most = if keep.is_some() {
            EARLY_DISPATCHES
        } else {
            DISPATCHES_PER_SUBMIT
        };
        // Pairs (first and second step) stay within a batch.
        let least = if pairs { 2 } else { 1 };
        let mut full = ((most / per_step.max(1)).max(1) as usize).max(least);
        if pairs {
            full &= !1;
        }
        // The first batch is one step (a pair), submitted as soon as it is recorded, and each
        // batch after it twice the one before, up to `full`: the GPU starts on the steps while
        // the CPU records the rest (a few steps under bodies: `BodyWorld::step_coarse`).
        let mut chunk = least;
        let mut done = 0;
        // Every batch ends with the maps holding the state it left.
        let mut unfolded = false;
        // Steps since the maps last took a state in (`set_maps_stride`).
        let (stride, mut since) = (maps.map_or(1, |m| m.stride.max(1)), 0);
        loop {
            let steps = chunk.min(n - done);
            let last = done + steps == n;
            let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
            if std::mem::take(&mut wake) {
                self.wake_quiet(&mut encoder);
            }
            {
                let timestamp_writes = timestamps.and_then(|q| {
                    (done == 0 || last).then_some(wgpu::ComputePassTimestampWrites {
                        query_set: q,
                        beginning_of_pass_write_index: (done == 0).then_some(0),
                        end_of_pass_write_index: last.then_some(1),
                    })
                });
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("water steps"),
                    timestamp_writes,
                });
                for i in 0..steps {
                    // A step folds the maps in at every `stride`-th step and at the call's
                    // last; one after a state still to be folded (no fused fold) takes it in.
                    since += 1;
                    let fold = since >= stride || (last && i + 1 == steps) || unfolded;
                    if fold {
                        since = 0;
                    }
                    self.passes.encode_step(
                        &mut pass,
                        &self.grid,
                        self.plan,
                        (blocking, maps.filter(|_| fold), bed),
                        &mut unfolded,
                        pairs.then_some(i % 2 == 0 && i + 1 < steps),
                    );
                }
                if last {
                    self.passes.control.finish(&mut pass);
                    if let Some(m) = maps.filter(|_| unfolded) {
                        m.encode(&mut pass);
                    }
                }
            }
            match keep.as_mut() {
                Some(out) if last => out.push(encoder.finish()),
                _ => {
                    self.ctx.queue.submit([encoder.finish()]);
                }
            }
            done += steps;
            if last {
                break;
            }
            chunk = (chunk * 2).min(full);
        }
        if !stamped {
            self.stir();
        }
        Ok(())
    }

    /// Where the fused flow pass folds the maps of the run in ([`Self::record_maps`]), lets it
    /// fold them every `stride`-th step only, and at the last step of every call, so that
    /// keeping them costs 1/`stride` as much: the editor's preview of a large level. The maxima
    /// may then miss a peak that lasts fewer than `stride` steps, and an arrival is counted up to
    /// `stride` − 1 steps late. 1 (the default, and 0) folds every step, as `Simulation` does;
    /// without the fused fold (blockers, structures, sediment) every step is folded whatever
    /// the stride. Kept across [`Self::record_maps`].
    pub fn set_maps_stride(&mut self, stride: usize) {
        if let Some(m) = self.maps.as_mut() {
            m.stride = stride.max(1);
        }
    }

    /// Records `n` steps of `dt` seconds (each CFL-sub-stepped on the GPU) into a few command
    /// buffers and submits them; returns at once. Errors the GPU reported in an earlier
    /// read-back (blow-up, runaway) are returned here, as are bad time steps.
    pub fn step_n(&mut self, n: usize, dt: f32) -> Result<(), GpuError> {
        if n > 0 {
            self.refuse_step(dt)?;
        }
        let mut left = n;
        while left > 0 {
            self.open_due_gates(dt)?;
            let k = self.steps_before_gate(left, dt).unwrap_or(left).max(1);
            self.record_steps(k, dt, None, None)?;
            self.clock += k as f64 * dt as f64;
            left -= k;
        }
        Ok(())
    }

    /// Records `n` steps of `dt` seconds and returns the last of them as command buffers not yet
    /// submitted, so a caller can submit them together with its own work (the editor submits
    /// them with the frame's rendering, which then draws the new water). The steps before them
    /// are submitted in small batches as they are recorded, so the GPU starts on them while the
    /// rest are recorded. Gates whose time falls inside the `n` steps need an upload between
    /// steps, so then the steps are submitted at once instead and no buffers are returned.
    pub fn encode_steps(
        &mut self,
        n: usize,
        dt: f32,
    ) -> Result<Vec<wgpu::CommandBuffer>, GpuError> {
        let mut out = Vec::new();
        if n == 0 {
            return Ok(out);
        }
        self.refuse_step(dt)?;
        self.open_due_gates(dt)?;
        if self.steps_before_gate(n, dt).is_some() {
            self.step_n(n, dt)?;
            return Ok(out);
        }
        self.record_steps(n, dt, None, Some(&mut out))?;
        self.clock += n as f64 * dt as f64;
        Ok(out)
    }

    /// Waits for the recorded steps and runs again the simulated time that clamped steps (see
    /// [`GpuStatus::clamped_steps`](super::GpuStatus)) lost: while the GPU's time is more than
    /// half a step of `dt` behind the steps recorded, it records the missing steps (the read-back
    /// has raised `k_max` to what the water needs). Returns the steps added. A command-line run
    /// or a bake calls it after each batch of steps, so it ends at the time it asked for.
    pub fn catch_up(&mut self, dt: f32) -> Result<u64, GpuError> {
        let mut added = 0;
        // Each round raises k_max to the latest need; a few rounds always suffice.
        for _ in 0..16 {
            let lag = self.clock - self.stats()?.time;
            if lag < 0.5 * dt as f64 {
                break;
            }
            let n = (lag / dt as f64).round().max(1.0) as usize;
            // The clock already counts these steps' time.
            self.record_steps(n, dt, None, None)?;
            self.lag.made_up(n, dt);
            added += n as u64;
        }
        Ok(added)
    }

    /// Simulated time that clamped steps lost and that is not yet run again, as of the last
    /// collected read-back (see [`Self::encode_catch_up`]), seconds.
    pub fn lost_time(&self) -> f64 {
        self.lag.owed
    }

    /// Records, without waiting, steps of `dt` that run again the time clamped steps lost
    /// ([`Self::lost_time`], as the last read-back stats found it), at most `max` of them;
    /// they do not move [`Self::clock`], which already counts that time. Returns the command
    /// buffers to submit (an interactive preview calls it each frame after its steps, so the
    /// water's own time keeps up with the clock without a stall) and the steps recorded.
    pub fn encode_catch_up(
        &mut self,
        dt: f32,
        max: usize,
    ) -> Result<(Vec<wgpu::CommandBuffer>, usize), GpuError> {
        let mut out = Vec::new();
        let n = ((self.lag.owed / dt as f64).round().max(0.0) as usize).min(max);
        if n > 0 {
            self.record_steps(n, dt, None, Some(&mut out))?;
            self.lag.made_up(n, dt);
        }
        Ok((out, n))
    }

    /// One step of `dt` seconds (see [`Self::step_n`]).
    pub fn step(&mut self, dt: f32) -> Result<(), GpuError> {
        self.step_n(1, dt)
    }

    /// Advances by `seconds` in steps of the level's `dt`; returns the number of steps recorded.
    /// A span that is not a finite number ≥ 0 is refused and nothing runs.
    ///
    /// `seconds` is rounded to whole steps and the rest is dropped: called each frame with a
    /// frame's time, a level whose `dt` is more than twice the frame never moves, and one
    /// between one and two frames runs fast. A game keeps the remainder itself and calls
    /// [`Self::step_n`] (as the sample game's `Game::advance` does).
    pub fn advance(&mut self, seconds: f64) -> Result<u64, GpuError> {
        if !(seconds.is_finite() && seconds >= 0.0) {
            return Err(GpuError::Step(StepError::BadSpan(seconds)));
        }
        let dt = self.params.dt;
        let n = (seconds / dt as f64).round().max(0.0) as u64;
        self.step_n(n as usize, dt)?;
        Ok(n)
    }

    /// Whether a read-back of the stats or of the probe is under way (asked for, not collected
    /// yet): a caller that stops drawing frames while idle keeps polling until none is.
    pub fn readbacks_pending(&self) -> bool {
        self.stats_pending() || self.probe_pending()
    }

    /// Whether a read-back of the stats is under way ([`Self::request_stats`] then does
    /// nothing until [`Self::poll_stats`] has taken it).
    pub fn stats_pending(&self) -> bool {
        self.readback.pending()
    }

    /// Starts an asynchronous read-back of the stats (a GPU reduction and a few kilobytes of
    /// copies); does nothing if one is already under way. Collect it with [`Self::poll_stats`].
    pub fn request_stats(&mut self) {
        if self.readback.pending() {
            return;
        }
        let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("stats"),
                timestamp_writes: None,
            });
            self.passes.stats.encode(&mut pass, self.nx * self.ny);
        }
        self.readback.record(
            &mut encoder,
            &self.bufs.aux,
            &self.bufs.ledger,
            &self.bufs.partials,
        );
        self.ctx.queue.submit([encoder.finish()]);
        self.readback.map();
        self.lag.asked(self.clock);
    }

    /// The stats of the last requested read-back once the GPU delivered them; never blocks.
    pub fn poll_stats(&mut self) -> Option<Stats> {
        let _ = self.ctx.device.poll(wgpu::PollType::Poll);
        match self.readback.take()? {
            Ok(snapshot) => {
                let report = interpret(
                    &snapshot,
                    self.nx,
                    self.dx,
                    self.volume_initial,
                    self.time_base,
                );
                let stats = report.stats;
                self.lag.found(stats.time);
                self.last = Some(report);
                Some(stats)
            }
            Err(_) => None,
        }
    }

    /// Waits for all recorded steps and returns the stats (for tests, the CLI and bakes).
    pub fn stats(&mut self) -> Result<Stats, GpuError> {
        self.check_device()?;
        // A read-back still under way or not collected is older than the steps recorded since:
        // wait for it and drop it, then ask afresh.
        while self.readback.pending() {
            self.ctx
                .device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| GpuError::Readback(e.to_string()))?;
            if self.readback.take().is_some() {
                break;
            }
        }
        self.request_stats();
        loop {
            self.ctx
                .device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| GpuError::Readback(e.to_string()))?;
            if let Some(r) = self.readback.take() {
                let snapshot = r?;
                let report = interpret(
                    &snapshot,
                    self.nx,
                    self.dx,
                    self.volume_initial,
                    self.time_base,
                );
                let stats = report.stats;
                self.lag.found(stats.time);
                self.last = Some(report);
                self.check_device()?;
                return Ok(stats);
            }
        }
    }

    /// Health figures of the last read-back (default before the first one).
    pub fn status(&self) -> GpuStatus {
        self.last
            .as_ref()
            .map(|r| r.status.clone())
            .unwrap_or_default()
    }

    /// Lets a halted simulation step again. After a blow-up the state is the one before the
    /// failed sub-step (as on the CPU); change what made it blow up first.
    pub fn clear_halt(&mut self) {
        self.ctx
            .queue
            .write_buffer(&self.bufs.aux, HALTED_OFFSET, bytemuck::bytes_of(&0u32));
        if let Some(r) = self.last.as_mut() {
            r.status.halted = None;
        }
    }

    /// The current half (0 or 1) of the ping-pong grids, read back.
    pub(crate) fn parity(&self) -> Result<u64, GpuError> {
        let v = read_bytes(&self.ctx.device, &self.ctx.queue, &self.bufs.view, 0, 16)?;
        Ok(u32::from_le_bytes([v[0], v[1], v[2], v[3]]) as u64 & 1)
    }

    /// The whole depth grid (`nx·ny`, row-major), waiting for all recorded steps.
    pub fn read_depth(&self) -> Result<Vec<f32>, GpuError> {
        self.check_device()?;
        let cells = self.nx * self.ny;
        let half = self.parity()?;
        read_f32(
            &self.ctx.device,
            &self.ctx.queue,
            &self.bufs.depth,
            half * cells as u64,
            cells,
        )
    }

    /// Limited face discharges of the last step, m³/s: x-faces `(nx+1)·ny`, y-faces `nx·(ny+1)`.
    pub fn read_discharges(&self) -> Result<(Vec<f32>, Vec<f32>), GpuError> {
        self.check_device()?;
        let (nx, ny) = (self.nx, self.ny);
        let half = self.parity()?;
        let (fx, fy) = ((nx + 1) * ny, nx * (ny + 1));
        let qx = read_f32(
            &self.ctx.device,
            &self.ctx.queue,
            &self.bufs.qx,
            half * fx as u64,
            fx,
        )?;
        let qy = read_f32(
            &self.ctx.device,
            &self.ctx.queue,
            &self.bufs.qy,
            half * fy as u64,
            fy,
        )?;
        Ok((qx, qy))
    }

    /// The level with the current water and flow state, ready to save as a baked level (as
    /// `Simulation::bake_into`).
    pub fn bake_into(&mut self, level: &Level) -> Result<Level, GpuError> {
        // Its sides, not only its cells (a 16 × 32 level took a 32 × 16 run's water).
        self.check_size(level)?;
        let stats = self.stats()?;
        let mut out = level.clone();
        let depth = self.read_depth()?;
        out.water.data.copy_from_slice(&depth);
        // The face velocities (the shallow-water solver's flow, pipes' with advection), and
        // the discharges: with the velocities, all a resumed run needs to go on as this one
        // (as the CPU's bakes; the shallow-water bake kept no discharges, so its edges' outfall
        // and first advection started from rest).
        let (fx, fy) = ((self.nx + 1) * self.ny, self.nx * (self.ny + 1));
        let advects = self.params.solver == SolverKind::Swe || self.params.pipe_advection;
        let velocities = match advects {
            true => {
                let (device, queue) = (&self.ctx.device, &self.ctx.queue);
                let at = self.parity()? * (fx + fy) as u64;
                let v = read_f32(device, queue, &self.bufs.vel, at, fx + fy)?;
                (v[..fx].to_vec(), v[fx..].to_vec())
            }
            false => (Vec::new(), Vec::new()),
        };
        let discharges = self.read_discharges()?;
        let ((flow_x, flow_y), (aux_x, aux_y)) = match self.params.solver {
            SolverKind::Pipes => (discharges, velocities),
            SolverKind::Swe => (velocities, discharges),
        };
        let max_speed = Some(self.status().max_speed).filter(|v| advects && v.is_finite());
        let perimeter = 2 * (self.nx + self.ny);
        let cells = read_f32(
            &self.ctx.device,
            &self.ctx.queue,
            &self.bufs.edges,
            0,
            4 * perimeter,
        )?;
        let ghost = cells.chunks_exact(4).map(|c| c[2]).collect();
        out.flow = Some(FlowState {
            solver: self.params.solver,
            flow_x,
            flow_y,
            ghost,
            time: stats.time,
            aux_x,
            aux_y,
            max_speed,
            ..Default::default()
        });
        // A gate that has opened stays open in the baked level, as the CPU solver's bakes.
        self.gates.mark_opened(&mut out.gates);
        out.set_breaches(&self.breaches()?);
        self.bake_bed(&mut out)?;
        Ok(out)
    }
}

/// The simulated time clamped steps lost, seen through the asynchronous stats read-backs: the
/// clock when a read-back was asked for, against the water's own time it found, less what was
/// run again since the request.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Lag {
    /// Seconds run again so far, in all.
    made_up: f64,
    /// The clock and `made_up` when the read-back under way was asked for.
    at_request: (f64, f64),
    /// Seconds still to run again, as of the last read-back.
    pub(crate) owed: f64,
}

impl Lag {
    fn asked(&mut self, clock: f64) {
        self.at_request = (clock, self.made_up);
    }

    fn found(&mut self, water_time: f64) {
        let (clock, made_up) = self.at_request;
        let owed = clock - water_time - (self.made_up - made_up);
        self.owed = if owed.is_finite() { owed.max(0.0) } else { 0.0 };
    }

    fn made_up(&mut self, steps: usize, dt: f32) {
        let t = steps as f64 * dt as f64;
        self.made_up += t;
        self.owed = (self.owed - t).max(0.0);
    }
}
