//! The pipes benchmark: the scene of `shared/bench/pipe_array.py` and `pipe_ref.cu`
//! ([`crate::bench::BenchScene::PEERS`]: hilly terrain, half-filled reservoir, walls, constant
//! cross-section, friction factor 0.999 per step, dt 25 ms, dx 1 m), or any level, run headless
//! with many steps per submission and timed on the GPU.

use crate::bench::{BenchScene, scene};
use crate::level::Level;

use super::GpuError;
use super::device;
use super::flow::Fusion;
use super::pair::Pairing;
use super::readback::read_bytes;
use super::sim::GpuSimulation;

/// Bytes of state a pipes step must move per cell: terrain read, depth, both face grids and the
/// compensation carry each read and written.
pub const BYTES_PER_CELL: f64 = 36.0;

/// One benchmark measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// Grid edge, cells (the grid is `n × n`).
    pub n: usize,
    /// Steps per timed run.
    pub steps: usize,
    /// Median time per step, milliseconds.
    pub ms_per_step: f64,
    /// Cell updates per second, 1e9.
    pub gcells_per_s: f64,
    /// Memory traffic at [`BYTES_PER_CELL`], GB/s.
    pub gbytes_per_s: f64,
    /// The adapter's name.
    pub adapter: String,
    /// Whether GPU timestamps (rather than the wall clock around submit-and-wait) timed it.
    pub gpu_timed: bool,
    /// Relative volume change over the whole run (walls: should stay near 0).
    pub volume_rel_err: f64,
    /// Simulated seconds per step over the timed runs (less than the level's `dt` where steps
    /// ran short: GPU steps needing more sub-steps than were recorded).
    pub sim_seconds_per_step: f64,
    /// CFL sub-steps per step over the timed runs.
    pub substeps_per_step: f64,
    /// Share of the timed sub-steps that ran two at a time in the pair pass (each pair moving
    /// the state once for two sub-steps, so half of [`BYTES_PER_CELL`] a sub-step).
    pub paired_share: f64,
    /// Share of the flow and pair strips of the timed steps left out with no water around
    /// (where dry strips may be left out: [`GpuSimulation::set_dry_skip`]).
    pub dry_share: f64,
}

/// Runs the peers' pipe scene ([`BenchScene::PEERS`]) at `n × n` for `steps` steps per timed
/// run (5 runs, median).
pub fn bench(n: usize, steps: usize) -> Result<BenchResult, GpuError> {
    bench_level(&scene(n, BenchScene::PEERS), steps)
}

/// Runs any level headless for `steps` steps per timed run (5 runs after a warm-up, median).
pub fn bench_level(level: &Level, steps: usize) -> Result<BenchResult, GpuError> {
    bench_with(level, steps, BenchOptions::default())
}

/// How [`bench_with`] runs a level besides its own parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BenchOptions {
    /// When the flow pass also advects and stores (to time the fused pass against the three
    /// passes it replaces at any size).
    pub fusion: Fusion,
    /// Spare sub-steps recorded per step ([`GpuSimulation::set_substep_headroom`]): 0 for
    /// scenes that never sub-step; more where a step may need more sub-steps than its first
    /// one did, or it runs short.
    pub headroom: u32,
    /// Keep the maps of the run, as the editor's preview does ([`GpuSimulation::record_maps`]).
    pub maps: bool,
    /// When two steps of the plain pipes run as one pair pass.
    pub pairing: Pairing,
    /// Run every strip, dry or not ([`GpuSimulation::set_dry_skip`] off).
    pub no_dry_skip: bool,
}

/// As [`bench_level`], run as `options` say.
pub fn bench_with(
    level: &Level,
    steps: usize,
    options: BenchOptions,
) -> Result<BenchResult, GpuError> {
    let steps = steps.max(1);
    let ctx = device::headless(level.nx(), level.ny(), wgpu::Features::TIMESTAMP_QUERY)?;
    let timed = ctx
        .device
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY);
    let mut sim = GpuSimulation::build(level, ctx)?;
    sim.set_fusion(options.fusion);
    sim.set_pairing(options.pairing);
    sim.set_substep_headroom(options.headroom);
    sim.set_dry_skip(if options.no_dry_skip {
        super::DrySkip::Never
    } else {
        super::DrySkip::Auto
    })?;
    if options.maps {
        sim.record_maps()?;
    }
    let dt = level.params.dt;
    sim.step_n(20, dt)?;
    let start = sim.stats()?;
    let before = sim.status();
    let queries = timed.then(|| {
        sim.ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("bench"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        })
    });
    let resolve = sim.ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench timestamps"),
        size: 16,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let period = sim.ctx.queue.get_timestamp_period() as f64;
    let mut times = Vec::new();
    for _ in 0..5 {
        let t0 = std::time::Instant::now();
        sim.record_steps(steps, dt, queries.as_ref(), None)?;
        sim.ctx
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        let wall = t0.elapsed().as_secs_f64();
        let seconds = match &queries {
            Some(q) => {
                let mut encoder = sim.ctx.device.create_command_encoder(&Default::default());
                encoder.resolve_query_set(q, 0..2, &resolve, 0);
                sim.ctx.queue.submit([encoder.finish()]);
                let b = read_bytes(&sim.ctx.device, &sim.ctx.queue, &resolve, 0, 16)?;
                let t =
                    |k: usize| u64::from_le_bytes(b[8 * k..8 * k + 8].try_into().unwrap_or([0; 8]));
                let ticks = t(1).saturating_sub(t(0));
                if ticks > 0 {
                    ticks as f64 * period * 1e-9
                } else {
                    wall
                }
            }
            None => wall,
        };
        times.push(seconds / steps as f64);
    }
    let end = sim.stats()?;
    let after = sim.status();
    let paired = after.paired_substeps - before.paired_substeps;
    let quiet = after.quiet_strips - before.quiet_strips;
    let busy = after.busy_strips - before.busy_strips;
    if let Some(e) = sim.status().halted {
        return Err(GpuError::Step(e));
    }
    let timed_steps = (times.len() * steps) as f64;
    times.sort_by(f64::total_cmp);
    let per_step = times[times.len() / 2];
    let cells = (level.nx() * level.ny()) as f64;
    Ok(BenchResult {
        n: level.nx(),
        steps,
        ms_per_step: per_step * 1e3,
        gcells_per_s: cells / per_step / 1e9,
        gbytes_per_s: cells * BYTES_PER_CELL / per_step / 1e9,
        adapter: sim.adapter_name().to_string(),
        gpu_timed: queries.is_some(),
        // Against the scene's volume before any step, as the CPU's bench (the warm-up's drift
        // was left out).
        volume_rel_err: (end.volume - end.volume_initial).abs() / end.volume_initial.max(1e-30),
        sim_seconds_per_step: (end.time - start.time) / timed_steps,
        substeps_per_step: (end.substeps - start.substeps) as f64 / timed_steps,
        paired_share: f64::from(paired) / ((end.substeps - start.substeps) as f64).max(1.0),
        dry_share: f64::from(quiet) / f64::from(quiet + busy).max(1.0),
    })
}
