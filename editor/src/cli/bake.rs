//! `spillway bake`: run a level until its water settles (or a time limit), then save it with the
//! settled depths and flow state so a game starts with rivers already flowing.
//!
//! Settling is measured once per simulated second: the change rate is the largest
//! `|Δdepth| / Δt` over all cells across that second. The bake is steady when the rate falls
//! below the tolerance.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use spillway::Simulation;
use spillway::gpu::GpuSimulation;
use spillway::level::file;

use super::options::{Backend, parse_positive, simulation};
use super::{CliError, CliResult, create_parent, say};

/// Arguments of `spillway bake`.
#[derive(Clone, Debug, Args)]
pub struct BakeArgs {
    /// The level file to bake (.ron).
    #[arg(value_name = "LEVEL.ron")]
    pub level: PathBuf,
    /// The baked level file to write (.ron; may be the input).
    #[arg(short = 'o', long = "output", value_name = "OUT.ron")]
    pub output: PathBuf,
    /// Steady when the largest depth change rate over a simulated second is below TOL (m/s).
    #[arg(long, value_name = "TOL", default_value_t = 1e-3, value_parser = parse_positive)]
    pub until_steady: f32,
    /// Stop after this many simulated seconds even if not steady.
    #[arg(long, value_name = "S", default_value_t = 600.0, value_parser = parse_positive)]
    pub max_seconds: f32,
    /// Where the simulation runs (auto: the GPU where a hardware GPU exists).
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: Backend,
}

/// How a bake ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BakeOutcome {
    /// Simulated seconds run by the bake.
    pub seconds: f64,
    /// Change rate over the last measured interval, m/s (infinite if nothing was run).
    pub rate: f32,
    /// Whether the rate fell below the tolerance.
    pub steady: bool,
}

/// A simulation a bake can settle: the CPU [`Simulation`] or the GPU solver.
pub trait Settling {
    /// The level's time step, seconds.
    fn dt(&self) -> f32;
    /// Runs `n` steps of [`Settling::dt`].
    fn run_steps(&mut self, n: u64) -> Result<(), String>;
    /// The depth grid now, row-major, metres.
    fn depth_now(&mut self) -> Result<Vec<f32>, String>;
}

impl Settling for Simulation {
    fn dt(&self) -> f32 {
        self.params().dt
    }

    fn run_steps(&mut self, n: u64) -> Result<(), String> {
        let dt = self.params().dt;
        (0..n).try_for_each(|_| self.step(dt).map_err(|e| e.to_string()))
    }

    fn depth_now(&mut self) -> Result<Vec<f32>, String> {
        Ok(self.depth().to_vec())
    }
}

impl Settling for GpuSimulation {
    fn dt(&self) -> f32 {
        self.params().dt
    }

    fn run_steps(&mut self, n: u64) -> Result<(), String> {
        let dt = self.params().dt;
        self.step_n(n as usize, dt).map_err(|e| e.to_string())?;
        // Steps that needed more sub-steps than were encoded ran short: run the lost time.
        self.catch_up(dt).map(|_| ()).map_err(|e| e.to_string())
    }

    fn depth_now(&mut self) -> Result<Vec<f32>, String> {
        self.read_depth().map_err(|e| e.to_string())
    }
}

/// Steps `sim` in intervals of one simulated second until the largest depth change rate over an
/// interval is below `tolerance` (m/s) or `max_seconds` have been simulated. `progress` is told
/// the seconds simulated and the latest rate after every interval.
pub fn settle(
    sim: &mut impl Settling,
    tolerance: f32,
    max_seconds: f64,
    mut progress: impl FnMut(f64, f32),
) -> Result<BakeOutcome, String> {
    let dt = sim.dt();
    let per_second = ((1.0 / dt as f64).round() as u64).max(1);
    let max_steps = (max_seconds / dt as f64).round() as u64;
    let mut previous = sim.depth_now()?;
    let mut outcome = BakeOutcome {
        seconds: 0.0,
        rate: f32::INFINITY,
        steady: false,
    };
    let mut taken = 0;
    while taken < max_steps {
        let n = per_second.min(max_steps - taken);
        sim.run_steps(n)?;
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
        progress(outcome.seconds, outcome.rate);
        if outcome.rate < tolerance {
            outcome.steady = true;
            break;
        }
    }
    Ok(outcome)
}

/// Runs `spillway bake`.
pub fn run(args: &BakeArgs) -> CliResult {
    let path = &args.level;
    let level = file::load(path).map_err(|e| CliError::failure(e.to_string()))?;
    let max_seconds = args.max_seconds as f64;

    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new(max_seconds.ceil() as u64);
        let style = ProgressStyle::with_template(
            "baking {bar:40} {pos}/{len} s simulated, change {msg} ({elapsed})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar
    });
    let progress = |seconds: f64, rate: f32| {
        if let Some(bar) = &bar {
            bar.set_position(seconds.floor() as u64);
            bar.set_message(format!("{rate:.2e} m/s"));
        }
    };
    let failed = |e: String| CliError::failure(format!("{}: the bake failed: {e}", path.display()));
    let (outcome, baked) = if args.backend.resolve() == Backend::Gpu {
        let mut sim = GpuSimulation::headless(&level).map_err(|e| failed(e.to_string()))?;
        let outcome = settle(&mut sim, args.until_steady, max_seconds, progress);
        let baked =
            outcome.and_then(|o| Ok((o, sim.bake_into(&level).map_err(|e| e.to_string())?)));
        baked.map_err(failed)?
    } else {
        let mut sim = simulation(&level, path)?;
        let outcome = settle(&mut sim, args.until_steady, max_seconds, progress);
        let outcome = outcome.map_err(failed)?;
        (outcome, sim.bake_into(&level))
    };
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    create_parent(&args.output)?;
    file::save(&baked, &args.output).map_err(|e| CliError::failure(e.to_string()))?;
    let verdict = if outcome.steady {
        format!("steady (below {} m/s)", args.until_steady)
    } else {
        format!(
            "not steady after the {} s limit (tolerance {} m/s)",
            args.max_seconds, args.until_steady
        )
    };
    say(&format!(
        "baked {} → {}: {:.1} s simulated, final change rate {:.3e} m/s, {verdict}",
        path.display(),
        args.output.display(),
        outcome.seconds,
        outcome.rate
    ))
}
