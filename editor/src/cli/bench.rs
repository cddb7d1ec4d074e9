//! `spillway bench`: times the solver on the exact scene of the peers in
//! `shared/bench/pipe_array.py` ([`spillway::bench::BenchScene::PipeArray`]: n × n cells,
//! dx = 1 m, dt = 25 ms, walls, hilly terrain and a half-filled reservoir, friction factor 0.999
//! per step) and prints the same table the peers print, so the numbers can be compared side by
//! side.

use std::time::Instant;

use clap::{Args, ValueEnum};
use serde::Serialize;
use spillway::bench::{BenchScene, PIPE_ARRAY_DT as DT, scene};
use spillway::gpu::GpuError;
use spillway::level::CrossSection;
use spillway::sim::{SimError, StepError};
use spillway::{Level, Simulation};
use thiserror::Error;

use super::options::{Backend, CpuVectors};
use super::{CliError, CliResult, init_threads, note, say, threads_label};

/// Arguments of `spillway bench`.
#[derive(Clone, Debug, Args)]
pub struct BenchArgs {
    /// Where the simulation runs (auto: the GPU where a hardware GPU exists).
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: Backend,
    /// Grid sizes n (the scene is n × n cells, at most 8192 as a level's cells), comma
    /// separated.
    #[arg(long, value_name = "N,N,..", value_delimiter = ',', default_value = "256,512,1024",
          value_parser = clap::value_parser!(u32).range(2..=8192))]
    pub sizes: Vec<u32>,
    /// Steps per timed batch (default: as the peers, max(5, min(500, 2e8 / n²)); on the GPU
    /// 200 at least).
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=super::options::MAX_RUN_STEPS))]
    pub steps: Option<u64>,
    /// Print a JSON list instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Pipe cross-section: the peers' constant pipe, or one of the runtime's depth rules.
    #[arg(long, value_enum, default_value = "constant")]
    pub section: Section,
    /// Carry momentum with the flow (the runtime's default); off, as the peers, by default.
    #[arg(long)]
    pub pipe_advection: bool,
    /// The solver: the peers' virtual pipes, or the full shallow-water equations (the peer for
    /// that is GeoSWE; compare simulated seconds per wall second).
    #[arg(long, value_enum, default_value = "pipes")]
    pub solver: BenchSolver,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Manning's n for the bed friction, as levels have by default, instead of the peers'
    /// linear loss.
    #[arg(long, value_name = "N", value_parser = manning_n)]
    pub manning: Option<f32>,
    /// The widest vectors the CPU solver may use (auto: the widest the CPU has); results are
    /// the same at every width.
    #[arg(long, value_enum, default_value = "auto")]
    pub cpu_vectors: CpuVectors,
    /// Compute the dry ground far from any water too, as the peers do (both solvers leave it
    /// out by default; the water is the same either way).
    #[arg(long)]
    pub no_dry_skip: bool,
}

/// A Manning coefficient: above 0 and at most 1, as a level's (a larger one blew the water
/// up after the table's header was printed).
fn manning_n(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(n) if n > 0.0 && n <= 1.0 => Ok(n),
        _ => Err(format!(
            "'{s}' is not a Manning coefficient (a number above 0 and at most 1, e.g. 0.03)"
        )),
    }
}

/// The solver benchmarked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BenchSolver {
    /// Virtual pipes.
    Pipes,
    /// The shallow-water equations (conservative advection).
    Swe,
}

/// The pipe cross-section rule benchmarked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Section {
    /// A fixed 1 m² pipe, as the peers use.
    Constant,
    /// The upwind cell's depth.
    Upwind,
    /// The hydrostatic face depth (the runtime's default).
    FaceDepth,
}

impl From<Section> for CrossSection {
    fn from(s: Section) -> Self {
        match s {
            Section::Constant => CrossSection::Constant,
            Section::Upwind => CrossSection::Upwind,
            Section::FaceDepth => CrossSection::FaceDepth,
        }
    }
}

impl BenchSolver {
    fn name(self) -> &'static str {
        match self {
            BenchSolver::Pipes => "pipes",
            BenchSolver::Swe => "swe",
        }
    }
}

impl Section {
    fn name(self) -> &'static str {
        match self {
            Section::Constant => "constant",
            Section::Upwind => "upwind",
            Section::FaceDepth => "face-depth",
        }
    }
}

/// Why one size of the bench scene could not be measured.
#[derive(Debug, Error)]
pub enum BenchError {
    /// The CPU solver refused the scene.
    #[error("bench scene {n}×{n}: {source}")]
    Start {
        /// Cells a side.
        n: u32,
        /// The solver's reason.
        source: SimError,
    },
    /// A CPU step failed (a blow-up or a runaway).
    #[error("bench scene {n}×{n}: {source}")]
    Step {
        /// Cells a side.
        n: u32,
        /// The step's error.
        source: StepError,
    },
    /// The GPU solver could not run the scene.
    #[error("bench scene {n}×{n} on the GPU: {source}")]
    Gpu {
        /// Cells a side.
        n: u32,
        /// The GPU solver's error.
        source: GpuError,
    },
}

/// One measured size.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    /// Cells a side.
    pub n: u32,
    /// Backend used.
    pub backend: &'static str,
    /// Cross-section rule.
    pub section: &'static str,
    /// Whether the pipes carried momentum with the flow.
    pub pipe_advection: bool,
    /// Worker threads.
    pub threads: usize,
    /// Steps per timed batch.
    pub steps: u64,
    /// Median milliseconds per step over the timed batches: three by the wall clock on the
    /// CPU; five on the GPU, by its own timestamps where it has them (`gpu_timed`).
    pub ms_per_step: f64,
    /// Whether the GPU's timestamps timed the batches (else the wall clock).
    pub gpu_timed: bool,
    /// Cell updates per second, in units of 1e9.
    pub gcells: f64,
    /// The thesis's real-time kilocells at 25 ms steps: `gcells · 1e9 · 0.025 / 1000`.
    pub rtkc: f64,
    /// `|volume − initial volume| / initial volume` after all steps.
    pub volume_rel_error: f64,
    /// Sub-steps per step (1 means no sub-stepping happened).
    pub substeps_per_step: f64,
    /// The solver (`pipes` or `swe`).
    pub solver: &'static str,
    /// Manning's n of the bed friction, or none for the peers' linear loss.
    pub manning: Option<f32>,
    /// Simulated seconds per wall-clock second (25 ms steps).
    pub sim_s_per_s: f64,
    /// Share of the timed sub-steps the GPU ran two at a time in its pair pass (the state read
    /// and written once for two sub-steps); 0 on the CPU.
    pub paired: f64,
}

/// The peers' batch size for `n × n`: `max(5, min(500, 2e8 / n²))` steps.
pub fn default_steps(n: u32) -> u64 {
    (2e8 as u64 / (n as u64 * n as u64)).clamp(5, 500)
}

/// Measures one size of the scene `args` describe: 10 warm-up steps, then the median of three
/// timed batches of `steps`.
pub fn measure(n: u32, steps: u64, args: &BenchArgs) -> Result<BenchRow, BenchError> {
    let kind = BenchScene::PipeArray {
        section: args.section.into(),
        pipe_advection: args.pipe_advection,
    };
    let mut level = scene(n as usize, kind);
    if args.solver == BenchSolver::Swe {
        level.params.solver = spillway::SolverKind::Swe;
    }
    if let Some(n) = args.manning {
        level.params.friction = spillway::level::Friction::Manning { n };
    }
    if args.backend == Backend::Gpu {
        return measure_gpu(&level, n, steps, args);
    }
    let mut sim = Simulation::new(&level).map_err(|source| BenchError::Start { n, source })?;
    sim.set_skip_dry(!args.no_dry_skip);
    let fail = |source| BenchError::Step { n, source };
    for _ in 0..10 {
        sim.step(DT).map_err(fail)?;
    }
    let mut times = Vec::with_capacity(3);
    for _ in 0..3 {
        let t0 = Instant::now();
        for _ in 0..steps {
            sim.step(DT).map_err(fail)?;
        }
        times.push(t0.elapsed().as_secs_f64() / steps as f64);
    }
    times.sort_by(f64::total_cmp);
    let seconds = times[1];
    let stats = sim.stats();
    let gcells = (n as f64 * n as f64) / seconds / 1e9;
    Ok(BenchRow {
        n,
        backend: args.backend.name(),
        section: args.section.name(),
        pipe_advection: args.pipe_advection,
        threads: rayon::current_num_threads(),
        steps,
        ms_per_step: seconds * 1e3,
        gpu_timed: false,
        gcells,
        rtkc: gcells * 1e9 * DT as f64 / 1000.0,
        volume_rel_error: (stats.volume - stats.volume_initial).abs() / stats.volume_initial,
        substeps_per_step: stats.substeps as f64 / stats.steps as f64,
        solver: args.solver.name(),
        manning: args.manning,
        sim_s_per_s: DT as f64 / seconds,
        paired: 0.0,
    })
}

/// Times the GPU solver on the scene; the adapter's name goes to stderr.
fn measure_gpu(
    level: &Level,
    n: u32,
    steps: u64,
    args: &BenchArgs,
) -> Result<BenchRow, BenchError> {
    let options = spillway::gpu::BenchOptions {
        no_dry_skip: args.no_dry_skip,
        ..Default::default()
    };
    let r = spillway::gpu::bench_with(level, steps as usize, options)
        .map_err(|source| BenchError::Gpu { n, source })?;
    let paired = if r.paired_share > 0.0 {
        format!(
            "; {:.0} % of the sub-steps two at a time in the pair pass",
            r.paired_share * 100.0
        )
    } else {
        String::new()
    };
    note(&format!(
        "{n}×{n} on {} ({}{paired})",
        r.adapter,
        if r.gpu_timed {
            "GPU timestamps"
        } else {
            "wall clock"
        }
    ));
    Ok(BenchRow {
        n,
        backend: args.backend.name(),
        section: args.section.name(),
        pipe_advection: args.pipe_advection,
        threads: rayon::current_num_threads(),
        steps: r.steps as u64,
        ms_per_step: r.ms_per_step,
        gpu_timed: r.gpu_timed,
        gcells: r.gcells_per_s,
        rtkc: r.gcells_per_s * 1e9 * DT as f64 / 1000.0,
        volume_rel_error: r.volume_rel_err,
        // As the solver ran them: sub-steps past one a step warn below, and a step that ran
        // short counts only the time it ran.
        substeps_per_step: r.substeps_per_step,
        solver: args.solver.name(),
        manning: args.manning,
        sim_s_per_s: r.sim_seconds_per_step / (r.ms_per_step / 1e3),
        paired: r.paired_share,
    })
}

/// Runs `spillway bench`.
pub fn run(args: &BenchArgs) -> CliResult {
    let args = &BenchArgs {
        backend: args.backend.resolve(),
        ..args.clone()
    };
    init_threads(args.threads.map(usize::from))?;
    let vectors = args.cpu_vectors.apply();
    let mut rows = Vec::new();
    if !args.json {
        let workers = match args.backend {
            Backend::Cpu => format!("{}, {vectors}", threads_label(rayon::current_num_threads())),
            _ => threads_label(rayon::current_num_threads()),
        };
        say(&format!(
            "spillway {} ({}, {}, {} section{}{}):\n{:>6} {:>10} {:>12} {:>12} {:>12} {:>9} {:>10}",
            args.backend.name(),
            workers,
            args.solver.name(),
            args.section.name(),
            if args.pipe_advection {
                ", pipe advection"
            } else {
                ""
            },
            args.manning
                .map(|n| format!(", Manning n = {n}"))
                .unwrap_or_default(),
            "n",
            "ms/step",
            "Gcell/s",
            "rtkc@25ms",
            "vol_rel_err",
            "substeps",
            "sim s/s"
        ))?;
    }
    let mut failed = None;
    for &n in &args.sizes {
        // A GPU step is so short that the peers' batch (5 steps at 8192²) would time the
        // submission, not the step: GPU batches run at least 200 steps.
        let steps = args.steps.unwrap_or_else(|| match args.backend {
            Backend::Gpu => default_steps(n).max(200),
            _ => default_steps(n),
        });
        let row = match measure(n, steps, args) {
            Ok(row) => row,
            Err(e) => {
                // The sizes measured so far are still printed (as JSON, they were lost).
                failed = Some(CliError::failure(e.to_string()));
                break;
            }
        };
        if row.substeps_per_step > 1.0 {
            note(&format!(
                "warning: {n}×{n}: the solver sub-stepped ({:.2} sub-steps per step); the \
                 comparison with the peers is not like for like",
                row.substeps_per_step
            ));
        }
        if !args.json {
            say(&format!(
                "{:>6} {:>10.4} {:>12.3} {:>12.0} {:>12.2e} {:>9.2} {:>10.1}",
                row.n,
                row.ms_per_step,
                row.gcells,
                row.rtkc,
                row.volume_rel_error,
                row.substeps_per_step,
                row.sim_s_per_s
            ))?;
        }
        rows.push(row);
    }
    if args.json {
        let text = serde_json::to_string(&rows)
            .map_err(|e| CliError::failure(format!("cannot write the results as JSON: {e}")))?;
        say(&text)?;
    }
    failed.map_or(Ok(()), Err)
}
