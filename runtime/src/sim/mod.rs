//! The CPU water simulation: a `Simulation` built from a `Level`, stepped by either solver.
//!
//! One step: sources, sinks and rain (`forcing`) → border faces (`boundary`) → momentum
//! (pipes: `pipes`; shallow water: `swe`) → the fused limit-and-depth pass (`kernel`) →
//! ghost columns and the volume ledger. Steps longer than the CFL limit are sub-stepped.
//! Blocking bodies ([`blocking`], `Simulation::set_blockers`) change the faces they touch (pipes
//! and shallow-water solvers alike).
//! All passes are multi-threaded with rayon and bit-reproducible for any thread count.

mod advect;
pub mod blocking;
pub(crate) mod boundary;
pub(crate) mod breach;
mod displace;
pub mod erosion;
pub(crate) mod forcing;
pub(crate) mod friction;
pub(crate) mod gates;
pub mod gauges;
mod kernel;
pub mod maps;
mod pipes;
mod query;
mod quiet;
mod state;
mod step;
pub(crate) mod structures;
mod swe;
mod wide;
pub use wide::{Vectors, cap_vectors, vectors};

use thiserror::Error;

use crate::level::{FlowState, Level, Params, SolverKind};

use blocking::Blocking;
use boundary::Edges;
pub use breach::BreachState;
use forcing::Patch;
use gates::Gates;
pub use gates::{GateState, closed_ground};
use kernel::PassGrid;

/// The most sub-steps one step may take before the water counts as running away.
pub const MAX_SUBSTEPS: u32 = 1000;

/// Volume and health figures of a running simulation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    /// Simulated time, seconds.
    pub time: f64,
    /// Steps taken (sub-steps counted separately in `substeps`).
    pub steps: u64,
    /// Sub-steps taken.
    pub substeps: u64,
    /// Water volume at the start, m³.
    pub volume_initial: f64,
    /// Water volume now, m³.
    pub volume: f64,
    /// Cumulative water added by sources, rain and edges, m³.
    pub inflow: f64,
    /// Cumulative water removed by sinks and edges, m³.
    pub outflow: f64,
    /// Water held inside floating bodies now, m³ (pushed down by them, see
    /// `Simulation::displace`); zero without floaters.
    pub displaced: f64,
    /// `(volume + displaced - (volume_initial + inflow - outflow)) / max(volume_initial + inflow, 1e-9)`.
    pub balance_error: f64,
    /// Largest depth, metres.
    pub max_depth: f32,
    /// Number of cells deeper than 1 mm.
    pub wet_cells: usize,
}

/// A step that went wrong. [`StepError::Runaway`] and [`StepError::BadTimeStep`] leave the
/// state as it was; after [`StepError::BlowUp`] the sub-steps before the failing one are
/// kept, and so is what the failing sub-step's sinks took (counted in the volume balance), but
/// not its flow, nor the water its sources and rain added with it: no non-finite value enters
/// the water.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum StepError {
    /// The solver produced a non-finite value; the sub-step's flow was thrown away.
    #[error(
        "the water blew up at cell (x={x}, y={y}) at t={time:.3} s; the sub-step's flow was thrown away"
    )]
    BlowUp {
        /// Cell column.
        x: usize,
        /// Cell row.
        y: usize,
        /// Simulated time of the failed step, seconds.
        time: f64,
    },
    /// The step asked for would need more than `MAX_SUBSTEPS` CFL sub-steps: waves or
    /// currents became that fast, or the step is that long (a game's frame after a long
    /// stall: step by less time). Nothing was changed, not even a gate due to open.
    #[error(
        "the water ran away (wave plus flow speed {speed:.1} m/s: the step asked for would need more than {MAX_SUBSTEPS} CFL sub-steps; step by less time) at t={time:.3} s; the step was not taken"
    )]
    Runaway {
        /// Wave plus flow speed, m/s.
        speed: f32,
        /// Simulated time, seconds.
        time: f64,
    },
    /// The requested step length is not a positive finite number.
    #[error("the time step {0} s is not a positive finite number")]
    BadTimeStep(f32),
    /// The span asked of an `advance` is not a finite number of seconds ≥ 0.
    #[error("the span {0} s to advance by is not a finite number ≥ 0")]
    BadSpan(f64),
}

/// Why a level cannot be simulated.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum SimError {
    /// A grid does not match the level's size.
    #[error("grid `{0}` does not match the level's size")]
    GridSize(&'static str),
    /// The level is smaller than 2×2 cells.
    #[error("the level must be at least 2×2 cells")]
    TooSmall,
    /// A source, sink or structure handed to a running simulation that no level may have (a
    /// NaN rate), named by its field.
    #[error("the level cannot be simulated: {0}")]
    Invalid(#[from] crate::level::ValidationError),
}

/// Checks that `level` can be simulated and returns its initial depths (negatives clamped) and
/// the saved flow state that belongs to its solver, if any. Shared by the CPU and GPU solvers.
pub(crate) fn start_state(level: &Level) -> Result<(Vec<f32>, Option<&FlowState>), SimError> {
    let (nx, ny) = (level.nx(), level.ny());
    if nx < 2 || ny < 2 {
        return Err(SimError::TooSmall);
    }
    if level.terrain.data.len() != nx * ny {
        return Err(SimError::GridSize("terrain"));
    }
    if level.water.nx != nx || level.water.ny != ny || level.water.data.len() != nx * ny {
        return Err(SimError::GridSize("water"));
    }
    let depth: Vec<f32> = level.water.data.iter().map(|d| d.max(0.0)).collect();
    let saved = level
        .flow
        .as_ref()
        .filter(|f| f.solver == level.params.solver);
    if let Some(f) = saved
        && (f.flow_x.len() != (nx + 1) * ny || f.flow_y.len() != nx * (ny + 1))
    {
        return Err(SimError::GridSize("flow"));
    }
    Ok((depth, saved))
}

/// A saved state's fastest speed (m/s) for the CFL limit of its first step, held to what a
/// step of the level's `dt` can follow in half of [`MAX_SUBSTEPS`] sub-steps (the other half
/// left to the waves): only a step sets it again, so a larger one (a file edited by hand, a
/// Runaway kept) made every step a runaway. Shared by the CPU and GPU solvers.
pub(crate) fn followable_speed(speed: f32, params: &Params, dx: f32) -> f32 {
    let most = 0.5 * MAX_SUBSTEPS as f32 * params.cfl * dx / params.dt;
    if speed.is_finite() && most.is_finite() {
        speed.clamp(0.0, most)
    } else {
        0.0
    }
}

/// The longest stable sub-step, seconds, on water `depth` m deep at its deepest running
/// `speed` m/s at its fastest (the GPU's `control.wgsl` plans alike): the level's Courant
/// number of a cell crossed by the fastest wave and current, and no more than 1/√2 of a cell
/// crossed by a gravity wave alone, their limit on a grid of two dimensions (asked a Courant
/// number of 1, a still lake stepped at 0.926 grew a checkerboard of decimetres).
/// Infinite on dry, still ground.
pub(crate) fn stable_substep(params: &Params, dx: f32, depth: f32, speed: f32) -> f32 {
    let wave = (params.gravity * depth).sqrt();
    let fastest = wave + speed;
    if fastest.is_nan() || fastest <= 0.0 {
        return f32::INFINITY;
    }
    let mut stable = params.cfl * dx / fastest;
    if wave > 0.0 {
        stable = stable.min(std::f32::consts::FRAC_1_SQRT_2 * dx / wave);
    }
    stable
}

/// Manning's `n` per cell that the solvers use: the roughness grid of a Manning level.
pub(crate) fn roughness_of(level: &Level) -> Option<Vec<f32>> {
    match (&level.roughness, level.params.friction) {
        (Some(g), crate::level::Friction::Manning { .. })
            if g.data.len() == level.nx() * level.ny() =>
        {
            Some(g.data.clone())
        }
        _ => None,
    }
}

/// A water simulation on the CPU.
pub struct Simulation {
    nx: usize,
    ny: usize,
    dx: f32,
    params: crate::level::Params,
    terrain: Vec<f32>,
    depth: Vec<f32>,
    depth_next: Vec<f32>,
    /// Per-cell depth change that `f32` could not hold yet (compensated summation).
    carry: Vec<f32>,
    /// Limited face discharges of the last step, m³/s.
    qx: Vec<f32>,
    qy: Vec<f32>,
    qx_next: Vec<f32>,
    qy_next: Vec<f32>,
    /// Face velocities of the shallow-water solver (empty for pipes).
    swe: Option<swe::Velocities>,
    /// Scratch velocities of the pipes solver with momentum advection.
    pipe_momentum: Option<swe::Velocities>,
    edges: Edges,
    patches: Vec<Patch>,
    gates: Gates,
    /// Culverts, weirs and sluice gates.
    structures: structures::Structures,
    time: f64,
    steps: u64,
    substeps: u64,
    volume_initial: f64,
    inflow: f64,
    outflow: f64,
    /// Water held by floating bodies (`displace`), m³.
    displaced: f64,
    max_depth: f32,
    /// Blocking bodies; `None` runs the plain solver.
    blocking: Option<Box<Blocking>>,
    /// Manning's `n` per cell (a Manning level with a roughness grid).
    roughness: Option<Vec<f32>>,
    /// The speed films are held to in this step: one cell a sub-step, `dx / sub-step`, m/s, not
    /// the Courant number asked, so a thin front keeps its speed when the step is sub-stepped
    /// (`docs/gpu.md`, "A film is now held to one cell a sub-step").
    film_cap: f32,
    /// The maps of the run, when kept (`record_maps`).
    maps: Option<Box<maps::RunMaps>>,
    /// The moving bed, for a level with sediment.
    bed: Option<Box<erosion::Bed>>,
    /// Whether the flow pass skips dry ground far from any water ([`Self::set_skip_dry`]).
    skip_dry: bool,
}

impl Simulation {
    /// Builds a simulation of `level`, continuing from its saved flow state if it has one for
    /// the level's solver.
    pub fn new(level: &Level) -> Result<Self, SimError> {
        let (nx, ny) = (level.nx(), level.ny());
        let (depth, saved) = start_state(level)?;
        let mut edges = Edges::new(level, &depth, saved.map(|f| f.ghost.as_slice()));
        let dx = level.cell_size;
        let gates = Gates::new(level);
        let structures = structures::Structures::new(level);
        let fixed = fixed_cells(&gates, &structures);
        let mut terrain = level.terrain.data.clone();
        gates.close(&mut terrain);
        let (mut qx, mut qy) = (vec![0.0; (nx + 1) * ny], vec![0.0; nx * (ny + 1)]);
        // The second face field of a format-2 bake, when it has one of the right size.
        let aux =
            saved.filter(|f| f.aux_x.len() == (nx + 1) * ny && f.aux_y.len() == nx * (ny + 1));
        let swe = match level.params.solver {
            SolverKind::Pipes => {
                if let Some(f) = saved {
                    qx.copy_from_slice(&f.flow_x);
                    qy.copy_from_slice(&f.flow_y);
                    edges.load_border_flows(&qx, &qy, nx, ny);
                }
                None
            }
            SolverKind::Swe => {
                if let Some(f) = aux {
                    qx.copy_from_slice(&f.aux_x);
                    qy.copy_from_slice(&f.aux_y);
                    edges.load_border_flows(&qx, &qy, nx, ny);
                }
                Some(match saved {
                    Some(f) => swe::Velocities::from_saved(nx, ny, &f.flow_x, &f.flow_y),
                    None => swe::Velocities::zero(nx, ny),
                })
            }
        };
        let carry = match saved {
            Some(f) if f.carry.len() == nx * ny => f.carry.clone(),
            _ => vec![0.0; nx * ny],
        };
        let floor = level.flow.as_ref().map(|f| f.bed_floor.as_slice());
        let bed = (level.params.sediment.as_ref())
            .map(|s| Box::new(erosion::Bed::new(s, (nx, ny, dx), &terrain, &fixed, floor)));
        let mut sim = Self {
            nx,
            ny,
            dx,
            params: level.params.clone(),
            terrain,
            depth_next: vec![0.0; nx * ny],
            carry,
            depth,
            qx_next: qx.clone(),
            qy_next: qy.clone(),
            qx,
            qy,
            swe,
            pipe_momentum: (level.params.solver == SolverKind::Pipes
                && level.params.pipe_advection)
                .then(|| swe::Velocities::zero(nx, ny)),
            edges,
            patches: forcing::patches(level),
            gates,
            structures,
            time: saved.map_or(0.0, |f| f.time),
            steps: 0,
            substeps: 0,
            volume_initial: 0.0,
            inflow: 0.0,
            outflow: 0.0,
            displaced: 0.0,
            max_depth: 0.0,
            blocking: None,
            roughness: roughness_of(level),
            film_cap: f32::INFINITY,
            maps: None,
            bed,
            skip_dry: true,
        };
        sim.volume_initial = sim.volume();
        let grid = PassGrid {
            nx,
            ny,
            dt: sim.params.dt,
            dx,
        };
        if let Some(m) = sim.pipe_momentum.as_mut() {
            match aux {
                Some(f) => *m = swe::Velocities::from_saved(nx, ny, &f.aux_x, &f.aux_y),
                None => m.store(grid, &sim.depth, (&sim.qx, &sim.qy), false, f32::INFINITY),
            }
        }
        // The saved fastest speed, else the saved faces': either held to what a step can follow
        // (a saved face of 1e30 m/s gave a CFL limit no step could meet).
        if let Some(v) = sim.swe.as_mut().or(sim.pipe_momentum.as_mut()) {
            let speed = saved.and_then(|f| f.max_speed).unwrap_or(v.max_speed);
            v.max_speed = followable_speed(speed, &sim.params, dx);
        }
        sim.max_depth = sim.depth.iter().fold(0.0f32, |a, &b| a.max(b));
        Ok(sim)
    }

    /// Cells along x.
    pub fn nx(&self) -> usize {
        self.nx
    }

    /// Cells along y.
    pub fn ny(&self) -> usize {
        self.ny
    }

    /// Cell size, metres.
    pub fn cell_size(&self) -> f32 {
        self.dx
    }

    /// The parameters in use.
    pub fn params(&self) -> &crate::level::Params {
        &self.params
    }

    /// Water depth per cell, row-major, metres.
    pub fn depth(&self) -> &[f32] {
        &self.depth
    }

    /// Terrain height per cell, row-major, metres.
    pub fn terrain(&self) -> &[f32] {
        &self.terrain
    }

    /// Limited face discharges of the last step, m³/s: x-faces `(nx+1)·ny`, y-faces `nx·(ny+1)`.
    pub fn discharges(&self) -> (&[f32], &[f32]) {
        (&self.qx, &self.qy)
    }

    /// Total water volume now, m³ (summed in a fixed order).
    pub fn volume(&self) -> f64 {
        let s: f64 = self
            .depth
            .chunks(4096)
            .map(|c| c.iter().map(|&d| d as f64).sum::<f64>())
            .sum();
        s * (self.dx as f64) * (self.dx as f64)
    }

    /// Simulated time, seconds (cheaper than [`Self::stats`]).
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Volume and health figures.
    pub fn stats(&self) -> Stats {
        let volume = self.volume();
        let expected = self.volume_initial + self.inflow - self.outflow - self.displaced;
        Stats {
            time: self.time,
            steps: self.steps,
            substeps: self.substeps,
            volume_initial: self.volume_initial,
            volume,
            inflow: self.inflow,
            outflow: self.outflow,
            displaced: self.displaced,
            balance_error: (volume - expected) / (self.volume_initial + self.inflow).max(1e-9),
            max_depth: self.max_depth,
            wet_cells: self.depth.iter().filter(|&&d| d > 1e-3).count(),
        }
    }

    /// Opens every gate called `name` (a game's trigger; gates sharing one open together):
    /// their cells get their terrain back and the water they held is released at the next
    /// step. Returns whether a closed gate of that name existed.
    pub fn open_gate(&mut self, name: &str) -> bool {
        let mut opened = false;
        while let Some(i) = self.gates.closed(name) {
            self.gates.open(i, &mut self.terrain);
            opened = true;
        }
        opened
    }

    /// Every gate of the level and whether it has opened.
    pub fn gates(&self) -> Vec<GateState> {
        self.gates.states()
    }

    /// Starts every breach called `name` (a game's trigger; breaches sharing one start
    /// together): from the next step each opens as its growth says. Returns whether a breach
    /// of that name that had not started existed.
    pub fn start_breach(&mut self, name: &str) -> bool {
        self.structures.start_breach(name)
    }

    /// What the water has done to the bed (`None`: the level has no sediment).
    pub fn bed_stats(&self) -> Option<erosion::BedStats> {
        self.bed.as_ref().map(|b| b.stats())
    }

    /// The grains carried in the water per cell, m³ per m², row-major (`None`: the level's
    /// sediment has no suspension).
    pub fn suspended_load(&self) -> Option<&[f32]> {
        self.bed.as_ref().and_then(|b| b.suspended_load())
    }

    /// Every breach of the level and how far it has opened.
    pub fn breaches(&self) -> Vec<BreachState> {
        self.structures.breach_states()
    }

    /// The discharge of each of the level's structures in the last sub-step, m³/s, in the
    /// level's order: across a weir or gate line, positive the way a discharge gauge drawn
    /// along it counts; through a culvert, from its `from` end to its `to` end.
    pub fn structure_flows(&self) -> &[f32] {
        &self.structures.flows
    }

    /// The longest stable step for the current state (the level's Courant number of a cell,
    /// and 1/√2 of a cell for a gravity wave alone: `sim::stable_substep`).
    pub fn stable_dt(&self) -> f32 {
        stable_substep(&self.params, self.dx, self.max_depth, self.max_current())
    }

    /// The fastest current the sub-steps are planned by, m/s (0 without advected velocities).
    fn max_current(&self) -> f32 {
        let advected = self.swe.as_ref().or(self.pipe_momentum.as_ref());
        advected.map_or(0.0, |v| v.max_speed)
    }

    /// Whether steps leave out the columns of dry ground with no water within a few cells
    /// (on by default; pipes with momentum advection, the runtime's default physics, and the
    /// shallow-water solver with conservative advection, outside blockers). The water is the same bit for bit either way (`sim::quiet`); a switch for
    /// benchmarks and the test that proves it.
    pub fn set_skip_dry(&mut self, skip: bool) {
        self.skip_dry = skip;
    }

    /// Advances by `dt` seconds, sub-stepping to stay within the CFL limit (at most
    /// `MAX_SUBSTEPS` sub-steps: a longer step returns [`StepError::Runaway`] having changed
    /// nothing). On a blow-up the flow of the sub-step that failed is thrown away and an error
    /// returned (see [`StepError`]).
    pub fn step(&mut self, dt: f32) -> Result<(), StepError> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(StepError::BadTimeStep(dt));
        }
        let needed = (dt / self.stable_dt()).ceil().max(1.0);
        if needed > MAX_SUBSTEPS as f32 {
            // The fastest wave and current, as the GPU reports them.
            let speed = (self.params.gravity * self.max_depth).sqrt() + self.max_current();
            return Err(StepError::Runaway {
                speed,
                time: self.time,
            });
        }
        while let Some(i) = self.gates.due(self.time, dt) {
            self.gates.open(i, &mut self.terrain);
        }
        let n = needed as u32;
        let sub = dt / n as f32;
        self.film_cap = self.dx / sub;
        for _ in 0..n {
            self.substep(sub)?;
        }
        self.steps += 1;
        self.update_maps();
        Ok(())
    }

    /// Advances by `seconds` in steps of the level's `dt`, rounded to the nearest whole
    /// number of steps (less than half a step runs none; a game stepping by its frame time
    /// uses [`Self::step`]); returns the number of steps. It returns when they have all run:
    /// a long span takes as long as its steps. A span that is not a finite number ≥ 0 is
    /// refused ([`StepError::BadSpan`]) and nothing runs.
    pub fn advance(&mut self, seconds: f64) -> Result<u64, StepError> {
        if !(seconds.is_finite() && seconds >= 0.0) {
            return Err(StepError::BadSpan(seconds));
        }
        let dt = self.params.dt;
        let n = (seconds / dt as f64).round().max(0.0) as u64;
        for _ in 0..n {
            self.step(dt)?;
        }
        Ok(n)
    }
}

/// The cells whose ground a moving bed leaves to others: a gate's (it holds its crest until it
/// opens) and a breach's (the breach cuts them as it opens, from the ground it started from;
/// a bake keeps that ground and how far the breach had opened, which cuts it again on load).
pub(crate) fn fixed_cells(gates: &Gates, structures: &structures::Structures) -> Vec<u32> {
    let gate_cells = gates.0.iter().flat_map(|g| g.cells.iter().copied());
    let cut_cells = (structures.cuts.iter()).flat_map(|c| c.cells.iter().map(|&(cell, _, _)| cell));
    gate_cells.chain(cut_cells).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advance_refuses_a_span_that_is_no_number_of_seconds() {
        let mut sim = Simulation::new(&Level::flat(4, 4, 1.0, 0.0)).unwrap();
        // Infinity ran u64::MAX steps (a hang); NaN ran none and said nothing.
        for bad in [f64::NAN, f64::INFINITY, -1.0] {
            let refused = sim.advance(bad);
            assert!(
                matches!(refused, Err(StepError::BadSpan(_))),
                "{bad}: {refused:?}"
            );
        }
        assert_eq!(sim.steps, 0);
        let dt = sim.params.dt as f64;
        assert_eq!(sim.advance(0.5), Ok((0.5 / dt).round() as u64));
    }
}
