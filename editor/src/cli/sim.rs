//! `spillway sim`: run a level for some simulated seconds or steps; report volumes, the mass
//! balance, whether any depth went NaN or negative, the time per step and optionally a hash of
//! the final state, as text or one JSON object, and optionally dump the final depths.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use serde::Serialize;
use spillway::Grid;
use spillway::level::file;

use super::bake::{BakeError, Coupled, Settling};
use super::options::{
    Backend, CpuVectors, SolverOverrides, parse_seconds, parse_steps, simulation,
};
use super::{CliError, CliResult, init_threads, level_folder, say, threads_label};
use crate::heightmap::npy;

/// Arguments of `spillway sim`.
#[derive(Clone, Debug, Args)]
pub struct SimArgs {
    /// The level file (.ron), or a project folder: its `level.ron`, else its one `.ron` file.
    #[arg(value_name = "LEVEL.ron")]
    pub level: PathBuf,
    /// Simulated seconds to run, more than 0 (rounded to whole steps of the level's dt, at
    /// least one; `--steps 0` runs none).
    #[arg(long, value_name = "S", value_parser = parse_seconds,
          required_unless_present = "steps", conflicts_with = "steps")]
    pub seconds: Option<f64>,
    /// Steps of the level's dt to run, instead of --seconds (at most 1e9).
    #[arg(long, value_name = "N", value_parser = parse_steps)]
    pub steps: Option<u64>,
    /// Print a 64-bit hash of the final water state (depths, flows, time; see
    /// `spillway::Level::state_hash`): bit-identical runs print the same hash.
    #[arg(long)]
    pub hash: bool,
    /// Where the simulation runs (auto: the GPU where a hardware GPU exists).
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: Backend,
    /// Overrides of the level's solver parameters.
    #[command(flatten)]
    pub solver: SolverOverrides,
    /// Write the final water depth as a float32 .npy array of shape (ny, nx).
    #[arg(long, value_name = "OUT.npy")]
    pub dump_depth: Option<PathBuf>,
    /// Print one JSON object instead of a human summary.
    #[arg(long)]
    pub json: bool,
    /// Worker threads (default: one per core); the bodies' physics takes as many, 2 at least
    /// and 8 at most.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Leave the level's bodies out (by default they move with the water, as in the editor).
    #[arg(long)]
    pub no_bodies: bool,
    /// The widest vectors the CPU solver may use (auto: the widest the CPU has); results are
    /// the same at every width.
    #[arg(long, value_enum, default_value = "auto")]
    pub cpu_vectors: CpuVectors,
    /// Compute the dry ground far from any water too (both solvers leave it out by default);
    /// the water is the same either way.
    #[arg(long)]
    pub no_dry_skip: bool,
}

/// What `spillway sim --json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct SimReport {
    /// Steps of `params.dt` taken.
    pub steps: u64,
    /// Sub-steps taken (equal to `steps` when no sub-stepping was needed).
    pub substeps: u64,
    /// Simulated seconds.
    pub seconds: f64,
    /// Water volume at the start, m³.
    pub volume_initial: f64,
    /// Water volume at the end, m³.
    pub volume: f64,
    /// Water added by sources, rain and edges, m³.
    pub inflow: f64,
    /// Water removed by sinks and edges, m³.
    pub outflow: f64,
    /// Relative mass-balance error (see `spillway::Stats::balance_error`).
    pub balance_error: f64,
    /// Largest depth at the end, m.
    pub max_depth: f32,
    /// Cells deeper than 1 mm at the end.
    pub wet_cells: usize,
    /// Wall-clock milliseconds per step, the run's 51 depth checks included (on the GPU each
    /// reads the depth back and waits for the steps): `spillway bench` times steps alone.
    pub ms_per_step: f64,
    /// Backend used.
    pub backend: &'static str,
    /// Worker threads used.
    pub threads: usize,
    /// The vectors the CPU solver's loops used (`avx512`, `avx2`, `baseline`; null on the GPU).
    pub vectors: Option<&'static str>,
    /// Whether any depth was NaN or infinite at any check (every 1/50 of the run and the end).
    pub nan_seen: bool,
    /// Whether any depth was negative at any check.
    pub negative_seen: bool,
    /// Smallest depth seen at any check, m.
    pub min_depth: f32,
    /// GPU steps that needed more CFL sub-steps than had been encoded: each ran stable
    /// sub-steps but simulated less than `dt`, and the run added steps until its simulated time
    /// caught up (0 on the CPU, which sub-steps every step as it needs).
    pub clamped_steps: u64,
    /// Bodies coupled with the water (0 with `--no-bodies` or none in the level).
    pub bodies: usize,
    /// FNV-1a hash of the final state as 16 hex digits (with `--hash`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
}

/// What the periodic depth checks of a run found.
#[derive(Clone, Copy, Debug)]
struct DepthWatch {
    nan: bool,
    negative: bool,
    min: f32,
}

impl DepthWatch {
    fn new() -> Self {
        Self {
            nan: false,
            negative: false,
            min: f32::INFINITY,
        }
    }

    fn look(&mut self, depth: &[f32]) {
        for &d in depth {
            if !d.is_finite() {
                self.nan = true;
            } else {
                self.negative |= d < 0.0;
                self.min = self.min.min(d);
            }
        }
    }
}

/// Runs `steps` steps in 50 chunks, checking the depths after each.
fn run_watched(sim: &mut impl Settling, steps: u64) -> Result<DepthWatch, BakeError> {
    let mut watch = DepthWatch::new();
    watch.look(&sim.depth_now()?);
    let chunk = (steps / 50).max(1);
    let mut done = 0;
    while done < steps {
        let n = chunk.min(steps - done);
        sim.run_steps(n)?;
        done += n;
        watch.look(&sim.depth_now()?);
    }
    Ok(watch)
}

/// The number of steps `args` asks for with the level's `dt`; refused (exit 2) past
/// [`super::options::MAX_RUN_STEPS`].
fn steps_of(args: &SimArgs, dt: f32) -> Result<u64, CliError> {
    match (args.steps, args.seconds) {
        (Some(n), _) => Ok(n),
        (None, Some(s)) => super::options::steps_for(s, dt)
            .map_err(|e| CliError::invalid(format!("{}: {e}", args.level.display()))),
        (None, None) => Ok(0),
    }
}

impl SimReport {
    /// The report of `steps` steps that ended with `stats` after `elapsed` wall-clock seconds.
    fn new(
        args: &SimArgs,
        steps: u64,
        stats: &spillway::Stats,
        elapsed: f64,
        watch: DepthWatch,
    ) -> Self {
        Self {
            steps,
            substeps: stats.substeps,
            seconds: stats.time,
            volume_initial: stats.volume_initial,
            volume: stats.volume,
            inflow: stats.inflow,
            outflow: stats.outflow,
            balance_error: stats.balance_error,
            max_depth: stats.max_depth,
            wet_cells: stats.wet_cells,
            ms_per_step: if steps > 0 {
                elapsed * 1e3 / steps as f64
            } else {
                0.0
            },
            backend: args.backend.name(),
            threads: rayon::current_num_threads(),
            vectors: (args.backend != Backend::Gpu).then(|| spillway::sim::vectors().name()),
            nan_seen: watch.nan,
            negative_seen: watch.negative,
            min_depth: watch.min,
            clamped_steps: 0,
            bodies: 0,
            hash: None,
        }
    }
}

/// Runs `spillway sim`.
pub fn run(args: &SimArgs) -> CliResult {
    let args = &SimArgs {
        backend: args.backend.resolve(),
        ..args.clone()
    };
    init_threads(args.threads.map(usize::from))?;
    args.cpu_vectors.apply();
    let path = &args.level;
    let mut level = file::load(path).map_err(|e| CliError::failure(e.to_string()))?;
    args.solver.apply(&mut level.params);
    if args.backend == Backend::Gpu {
        return run_gpu(args, &level);
    }
    let failed = |e: BakeError| {
        CliError::failure(format!(
            "{}: the simulation failed: {e}{}",
            path.display(),
            no_bodies_hint(&e)
        ))
    };
    let mut sim = simulation(&level, path)?;
    sim.set_skip_dry(!args.no_dry_skip);
    let mut coupled =
        Coupled::new(sim, &level, &level_folder(path), !args.no_bodies).map_err(failed)?;

    let before = coupled.sim.stats();
    let t0 = Instant::now();
    let steps = steps_of(args, coupled.sim.params().dt)?;
    let watch = run_watched(&mut coupled, steps).map_err(failed)?;
    let elapsed = t0.elapsed().as_secs_f64();
    let bodies = coupled.bodies();
    let sim = coupled.sim;
    let stats = sim.stats();

    if let Some(out) = &args.dump_depth {
        let depth = Grid {
            nx: sim.nx(),
            ny: sim.ny(),
            data: sim.depth().to_vec(),
        };
        npy::write(out, &depth).map_err(|e| CliError::failure(e.to_string()))?;
    }

    let mut report = SimReport::new(args, steps, &stats, elapsed, watch);
    report.bodies = bodies;
    report.substeps -= before.substeps;
    report.seconds -= before.time;
    if args.hash {
        report.hash = Some(format!("{:016x}", sim.bake_into(&level).state_hash()));
    }
    if args.json {
        let text = serde_json::to_string(&report)
            .map_err(|e| CliError::failure(format!("cannot write the report as JSON: {e}")))?;
        return say(&text);
    }
    say(&format!(
        "{}: simulated {:.3} s in {} steps ({} sub-steps), {:.3} ms/step on {} ({})\n\
         volume {:.3} m³ (initial {:.3}, inflow {:.3}, outflow {:.3}), balance error {:.2e}\n\
         max depth {:.3} m, {} wet cells of {}{}{}{}",
        path.display(),
        report.seconds,
        report.steps,
        report.substeps,
        report.ms_per_step,
        report.backend.to_uppercase(),
        match report.vectors {
            Some(v) => format!("{}, {v}", threads_label(report.threads)),
            None => threads_label(report.threads),
        },
        report.volume,
        report.volume_initial,
        report.inflow,
        report.outflow,
        report.balance_error,
        report.max_depth,
        report.wet_cells,
        sim.nx() * sim.ny(),
        bodies_line(&report),
        watch_line(&report),
        hash_line(&report),
    ))
}

/// The text summary's line about bodies (empty when none moved).
fn bodies_line(report: &SimReport) -> String {
    match report.bodies {
        0 => String::new(),
        n => format!(
            "\n{} coupled with the water (static ones included)",
            crate::count(n, "body")
        ),
    }
}

/// The text summary's line about NaN or negative depths (empty when there were none).
fn watch_line(report: &SimReport) -> String {
    match (report.nan_seen, report.negative_seen) {
        (false, false) => String::new(),
        (nan, neg) => format!(
            "\nWARNING: depths went{}{}{}",
            if nan { " NaN" } else { "" },
            if nan && neg { " and" } else { "" },
            if neg { " negative" } else { "" },
        ),
    }
}

/// The text summary's hash line (empty without `--hash`).
fn hash_line(report: &SimReport) -> String {
    report
        .hash
        .as_ref()
        .map_or(String::new(), |h| format!("\nhash {h}"))
}

/// `spillway sim --backend gpu`: the same run and report on the GPU solver.
fn run_gpu(args: &SimArgs, level: &spillway::Level) -> CliResult {
    let path = &args.level;
    let fail = |e: spillway::gpu::GpuError| {
        CliError::failure(format!(
            "{}: the GPU simulation failed: {e}",
            path.display()
        ))
    };
    let failed = |e: BakeError| {
        CliError::failure(format!(
            "{}: the GPU simulation failed: {e}{}",
            path.display(),
            no_bodies_hint(&e)
        ))
    };
    let mut sim = spillway::gpu::GpuSimulation::headless(level).map_err(fail)?;
    if args.no_dry_skip {
        sim.set_dry_skip(spillway::gpu::DrySkip::Never)
            .map_err(fail)?;
    }
    let before = sim.stats().map_err(fail)?;
    let mut coupled =
        Coupled::new(sim, level, &level_folder(path), !args.no_bodies).map_err(failed)?;
    let t0 = Instant::now();
    let steps = steps_of(args, coupled.sim.params().dt)?;
    let watch = run_watched(&mut coupled, steps).map_err(failed)?;
    let bodies = coupled.bodies();
    let mut sim = coupled.sim;
    let stats = sim.stats().map_err(fail)?;
    let elapsed = t0.elapsed().as_secs_f64();
    if let Some(out) = &args.dump_depth {
        let depth = Grid {
            nx: level.nx(),
            ny: level.ny(),
            data: sim.read_depth().map_err(fail)?,
        };
        npy::write(out, &depth).map_err(|e| CliError::failure(e.to_string()))?;
    }
    let mut report = SimReport::new(args, steps, &stats, elapsed, watch);
    report.bodies = bodies;
    report.seconds -= before.time;
    report.substeps -= before.substeps;
    report.clamped_steps = sim.status().clamped_steps as u64;
    if args.hash {
        let baked = sim.bake_into(level).map_err(fail)?;
        report.hash = Some(format!("{:016x}", baked.state_hash()));
    }
    let text = if args.json {
        serde_json::to_string(&report)
            .map_err(|e| CliError::failure(format!("cannot write the report as JSON: {e}")))?
    } else {
        format!(
            "{}: simulated {:.3} s in {} steps on the GPU ({}), {:.3} ms/step; volume {:.3} m³, balance error {:.2e}{}{}{}",
            path.display(),
            report.seconds,
            report.steps,
            sim.adapter_name(),
            report.ms_per_step,
            report.volume,
            report.balance_error,
            bodies_line(&report),
            watch_line(&report),
            hash_line(&report),
        )
    };
    say(&text)
}

/// What to add to an error whose cause is a body file that does not load: that `--no-bodies`
/// runs the water without the bodies (empty for other errors).
pub(crate) fn no_bodies_hint(e: &BakeError) -> &'static str {
    match e {
        BakeError::Bodies(spillway::body::world::WorldError::Import { .. }) => {
            " (--no-bodies runs the water without the level's bodies)"
        }
        _ => "",
    }
}
