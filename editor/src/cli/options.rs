//! Command-line options shared by several subcommands, and their value checks (a bad value is
//! a usage error, exit code 2, before anything is read or run).

use clap::{Args, ValueEnum};
use spillway::level::{BoundaryKind, Friction, Params};
use spillway::{Level, Simulation, SolverKind};
use thiserror::Error;

use super::CliError;

/// Where the simulation runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The GPU where a hardware GPU adapter exists, else the CPU.
    #[default]
    Auto,
    /// The runtime's multi-threaded CPU solver.
    Cpu,
    /// The GPU solver (wgpu; lavapipe works where there is no GPU).
    Gpu,
}

/// The widest vectors the CPU solver may use (`--cpu-vectors`); results are bit-identical at
/// every width, only the speed changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum CpuVectors {
    /// The widest the CPU has.
    #[default]
    Auto,
    /// AVX-512, where the CPU has it.
    Avx512,
    /// AVX2, where the CPU has it.
    Avx2,
    /// The target's baseline (SSE2 on x86-64).
    Baseline,
}

impl CpuVectors {
    /// Caps the CPU solver's vectors for the rest of the process; returns what it will use
    /// (`avx512`, `avx2` or `baseline`).
    pub fn apply(self) -> &'static str {
        use spillway::sim::{Vectors, cap_vectors, vectors};
        cap_vectors(match self {
            CpuVectors::Auto => None,
            CpuVectors::Avx512 => Some(Vectors::Avx512),
            CpuVectors::Avx2 => Some(Vectors::Avx2),
            CpuVectors::Baseline => Some(Vectors::Baseline),
        });
        vectors().name()
    }
}

impl Backend {
    /// The lower-case name used on the command line and in JSON (`auto` is resolved first).
    pub fn name(self) -> &'static str {
        match self.resolve() {
            Backend::Cpu | Backend::Auto => "cpu",
            Backend::Gpu => "gpu",
        }
    }

    /// The backend actually used: `Auto` becomes `Gpu` when a hardware (not software) GPU
    /// adapter is present, `Cpu` otherwise; `Cpu` and `Gpu` stay as asked.
    pub fn resolve(self) -> Backend {
        match self {
            Backend::Auto if spillway::gpu::hardware_adapter().is_some() => Backend::Gpu,
            Backend::Auto => Backend::Cpu,
            other => other,
        }
    }
}

/// Which solver integrates the water.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SolverArg {
    /// Virtual pipes.
    Pipes,
    /// Shallow-water equations.
    Swe,
}

impl From<SolverArg> for SolverKind {
    fn from(s: SolverArg) -> Self {
        match s {
            SolverArg::Pipes => SolverKind::Pipes,
            SolverArg::Swe => SolverKind::Swe,
        }
    }
}

/// The default condition on map edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BoundaryArg {
    /// No flow through the edge.
    Wall,
    /// Water and waves leave freely.
    Open,
}

impl From<BoundaryArg> for BoundaryKind {
    fn from(b: BoundaryArg) -> Self {
        match b {
            BoundaryArg::Wall => BoundaryKind::Wall,
            BoundaryArg::Open => BoundaryKind::Open,
        }
    }
}

/// Solver parameters a command may set or override.
#[derive(Clone, Debug, Default, Args)]
pub struct SolverOverrides {
    /// Solver: virtual pipes or shallow-water equations.
    #[arg(long, value_enum)]
    pub solver: Option<SolverArg>,
    /// Manning's roughness n for the whole level (0 ≤ N ≤ 1; a roughness grid, if the level
    /// has one, still sets n per cell).
    #[arg(long, value_name = "N", value_parser = parse_manning, conflicts_with = "friction")]
    pub manning: Option<f32>,
    /// Linear friction instead of Manning's: the fraction of flow lost per second (0 ≤ F < 1).
    #[arg(long, value_name = "F", value_parser = parse_friction)]
    pub friction: Option<f32>,
    /// Time step in seconds (0.0001 ≤ S ≤ 10); longer than stable steps are sub-stepped.
    #[arg(long, value_name = "S", value_parser = parse_dt)]
    pub dt: Option<f32>,
}

impl SolverOverrides {
    /// Writes the given values into `params`.
    pub fn apply(&self, params: &mut Params) {
        if let Some(s) = self.solver {
            params.solver = s.into();
        }
        if let Some(n) = self.manning {
            params.friction = Friction::Manning { n };
        }
        if let Some(f) = self.friction {
            params.friction = Friction::Linear { per_second: f };
        }
        if let Some(dt) = self.dt {
            params.dt = dt;
        }
    }
}

/// Builds the CPU simulation of `level` (loaded from `path`), naming the file on failure.
pub fn simulation(level: &Level, path: &std::path::Path) -> Result<Simulation, CliError> {
    Simulation::new(level).map_err(|e| {
        CliError::failure(format!(
            "{}: cannot simulate the level: {e}",
            path.display()
        ))
    })
}

/// Why a value given to an option is refused (clap names the option and the text given).
#[derive(Clone, Debug, Error, PartialEq)]
pub enum OptionError {
    /// The text is not a number.
    #[error("`{text}` is not a number")]
    NotANumber {
        /// The text given.
        text: String,
        /// The parser's reason.
        #[source]
        source: std::num::ParseFloatError,
    },
    /// The number is infinite or NaN.
    #[error("{0} is not a finite number")]
    NotFinite(f32),
    /// Zero or negative where only positive numbers make sense.
    #[error("{0} must be greater than 0")]
    NotPositive(f32),
    /// A linear friction outside 0 ≤ F < 1.
    #[error("{0} is outside 0 ≤ friction < 1")]
    Friction(f32),
    /// A Manning's n outside 0 ≤ n ≤ 1.
    #[error("{0} is outside 0 ≤ n ≤ 1")]
    Manning(f32),
    /// More simulated seconds than a run may ask for.
    #[error("{0:e} s is more than the {MAX_RUN_SECONDS:e} s (about 116 days) a run may simulate")]
    TooLong(f32),
    /// A time step outside [`spillway::level::ranges::TIME_STEP`].
    #[error("{} s is outside the 0.0001 to 10 s a step may take", spillway::level::ranges::number(*.0))]
    StepOutside(f32),
    /// A RAW size that is not two whole numbers joined by `x`.
    #[error("`{0}` is not a size in samples such as 1025x1025")]
    RawSize(String),
    /// A RAW size no level may have (a side under 2 or past the size limits).
    #[error("`{0}` is no level's size: {1}")]
    RawSizeRefused(String, String),
    /// A cell size outside [`spillway::level::ranges::CELL_SIZE`].
    #[error("{0} m is outside the 0.01 to 1000 m a cell may measure")]
    CellSize(f32),
}

/// A finite number.
pub(crate) fn number(s: &str) -> Result<f32, OptionError> {
    let v: f32 = s.trim().parse().map_err(|source| OptionError::NotANumber {
        text: s.to_owned(),
        source,
    })?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(OptionError::NotFinite(v))
    }
}

/// A RAW heightmap's size, `WIDTHxHEIGHT` in samples (`1025x1025`).
pub fn parse_raw_size(s: &str) -> Result<(usize, usize), OptionError> {
    let bad = || OptionError::RawSize(s.to_owned());
    let (w, h) = s.split_once(['x', 'X', '×']).ok_or_else(bad)?;
    let side = |t: &str| t.trim().parse::<usize>().map_err(|_| bad());
    let (w, h) = (side(w)?, side(h)?);
    spillway::level::Limits::default()
        .check_size(w, h)
        .map_err(|e| OptionError::RawSizeRefused(s.to_owned(), e.reason))?;
    Ok((w, h))
}

/// A finite number greater than zero.
pub fn parse_positive(s: &str) -> Result<f32, OptionError> {
    let v = number(s)?;
    if v > 0.0 {
        Ok(v)
    } else {
        Err(OptionError::NotPositive(v))
    }
}

/// Most simulated seconds `sim --seconds` and `bake --max-seconds` take: a typo such as
/// `1e30` is refused at once rather than run for ever.
pub const MAX_RUN_SECONDS: f32 = 1e7;

/// Most steps `sim --steps` takes: a typo such as `18446744073709551615` is refused at once
/// rather than run for ever.
pub const MAX_RUN_STEPS: u64 = 1_000_000_000;

/// A number of steps, at most [`MAX_RUN_STEPS`] (0 runs none: the initial state's hash).
pub fn parse_steps(s: &str) -> Result<u64, String> {
    let n: u64 =
        (s.trim().parse()).map_err(|e| format!("`{s}` is not a whole number of steps: {e}"))?;
    if n > MAX_RUN_STEPS {
        return Err(format!(
            "{n} steps is more than the {MAX_RUN_STEPS} a run may take"
        ));
    }
    Ok(n)
}

/// The steps `seconds` take at `dt` (at least one: `--seconds 0.001` with a 0.02 s step runs
/// one, not none), refused past [`MAX_RUN_STEPS`] (a level with a tiny step ran for ever).
pub fn steps_for(seconds: f64, dt: f32) -> Result<u64, String> {
    let n = (seconds / dt as f64).round().max(1.0);
    if n <= MAX_RUN_STEPS as f64 {
        Ok(n as u64)
    } else {
        Err(format!(
            "{seconds} s in steps of {dt} s is {n:.3e} steps, more than the {MAX_RUN_STEPS} a \
             run may take"
        ))
    }
}

/// A finite number of seconds, more than 0, at most [`MAX_RUN_SECONDS`].
pub fn parse_seconds(s: &str) -> Result<f64, OptionError> {
    let v = number(s)?;
    if v <= 0.0 {
        Err(OptionError::NotPositive(v))
    } else if v > MAX_RUN_SECONDS {
        Err(OptionError::TooLong(v))
    } else {
        Ok(v as f64)
    }
}

/// A run's longest simulated time: more than 0 s, at most [`MAX_RUN_SECONDS`].
pub fn parse_max_seconds(s: &str) -> Result<f32, OptionError> {
    let v = parse_positive(s)?;
    if v > MAX_RUN_SECONDS {
        Err(OptionError::TooLong(v))
    } else {
        Ok(v)
    }
}

fn parse_friction(s: &str) -> Result<f32, OptionError> {
    let v = number(s)?;
    if (0.0..1.0).contains(&v) {
        Ok(v)
    } else {
        Err(OptionError::Friction(v))
    }
}

fn parse_manning(s: &str) -> Result<f32, OptionError> {
    let v = number(s)?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(OptionError::Manning(v))
    }
}

fn parse_dt(s: &str) -> Result<f32, OptionError> {
    let v = parse_positive(s)?;
    if spillway::level::ranges::TIME_STEP.contains(&v) {
        Ok(v)
    } else {
        Err(OptionError::StepOutside(v))
    }
}

/// A cell size within [`spillway::level::ranges::CELL_SIZE`], metres.
pub fn parse_cell_size(s: &str) -> Result<f32, OptionError> {
    let v = number(s)?;
    if spillway::level::ranges::CELL_SIZE.contains(&v) {
        Ok(v)
    } else {
        Err(OptionError::CellSize(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_say_what_is_wrong() {
        let cases: [(Result<f32, OptionError>, &str); 7] = [
            (parse_positive("abc"), "`abc` is not a number"),
            (parse_positive("inf"), "inf is not a finite number"),
            (parse_positive("0"), "0 must be greater than 0"),
            (parse_manning("2"), "2 is outside 0 ≤ n ≤ 1"),
            (
                parse_dt("11"),
                "11 s is outside the 0.0001 to 10 s a step may take",
            ),
            (
                parse_dt("1e-30"),
                "1e-30 s is outside the 0.0001 to 10 s a step may take",
            ),
            (
                parse_cell_size("5000"),
                "5000 m is outside the 0.01 to 1000 m a cell may measure",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got.unwrap_err().to_string(), want);
        }
        assert_eq!(parse_seconds("1.5"), Ok(1.5));
        // Zero (and what f32 reads as zero) ran no step though the help says at least one.
        for zero in ["0", "-0", "1e-300"] {
            assert!(matches!(
                parse_seconds(zero),
                Err(OptionError::NotPositive(_))
            ));
        }
        assert_eq!(parse_steps("0"), Ok(0));
        assert!(parse_steps("18446744073709551615").is_err());
        assert_eq!(
            parse_seconds("1e30").unwrap_err().to_string(),
            "1e30 s is more than the 1e7 s (about 116 days) a run may simulate"
        );
        assert_eq!(parse_max_seconds("1e7"), Ok(1e7));
        assert_eq!(parse_max_seconds("2e7"), Err(OptionError::TooLong(2e7)));
    }
}
