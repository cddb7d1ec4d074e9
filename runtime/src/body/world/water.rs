//! The water's side of a coupled step: what each body reads of the water, where it may reach
//! by the next step, the blockers and the water the floaters push aside.

use super::cells::{Window, merge, push_aside, see_through};
use super::{BodyWorld, MARGIN, MAX_REACH, Slot};
use crate::body::raster::CellGrid;
use crate::body::solver::{SolverError, WaterSolver};
use crate::sim::blocking::{BlockerError, Blockers};

impl BodyWorld {
    /// Reads the water under and around every body (each body's window grown by one cell, now
    /// and at the last step), and gives each floater the surface as if it were not there
    /// ([`see_through`]). `taken` says whether the last step's read-ahead was taken into the
    /// copy ([`WaterSolver::take_cells`]); what it did not foresee is read now; returns
    /// whether some was.
    pub(super) fn read_water<S: WaterSolver + ?Sized>(
        &mut self,
        sim: &mut S,
        taken: bool,
    ) -> Result<bool, SolverError> {
        let grid = self.grid;
        let mut missing = Vec::new();
        for slot in self.slots.iter_mut().flatten() {
            let need = Window::union(
                Window::around(&slot.coverage, grid, 1),
                Window::around(&slot.previous, grid, 1),
            );
            let requested = slot.requested.take().filter(|_| taken);
            if let Some(need) = need
                && !requested.is_some_and(|r| r.contains(&need))
            {
                missing.extend(need.cells(grid.nx));
            }
        }
        if !missing.is_empty() {
            sim.read_cells(&missing, &mut self.water)?;
        }
        let mut around = std::mem::take(&mut self.scratch.surfaces);
        for slot in self.slots.iter().flatten().filter(|s| !s.blocks) {
            see_through(&slot.coverage, grid, &mut self.water, &mut around);
        }
        self.scratch.surfaces = around;
        Ok(!missing.is_empty())
    }

    /// How far each body's window may get by the next step of `dt`: [`MARGIN`] cells, the
    /// cells its velocity carries it across that way (half again, for acceleration), and on
    /// every side the cells its spin sweeps its outline across. In a step long enough for a
    /// body at rest to move by 1/200 of a cell (gravity's `g·dt²/2`: the preview's coarser
    /// body steps, not one of 1/60 s), one cell more on every side: bodies the forces wake or
    /// tip over otherwise shift their outline across a sample unforeseen (`body_bench
    /// --stride 2|3|5` read at once in 12, 21 and 41 steps of 100 on lavapipe without it).
    pub(super) fn foresee(&mut self, dt: f32) {
        let cell = self.grid.cell_size.max(f32::MIN_POSITIVE);
        let restless = usize::from(0.5 * self.fluid.gravity * dt * dt > cell / 200.0);
        let cells = |v: f32| {
            let c = (v * dt / cell).ceil();
            if c.is_finite() {
                (c.max(0.0) as usize).min(MAX_REACH)
            } else {
                MAX_REACH
            }
        };
        for slot in self.slots.iter_mut().flatten() {
            let Some(rb) = self.physics.bodies.get(slot.handle) else {
                continue;
            };
            let (v, w) = (rb.linvel(), rb.angvel());
            let radius = slot.coverage.width.max(slot.coverage.height) as f32 * cell / 2.0;
            let spin = cells(w.length() * radius);
            let least = MARGIN + restless + spin;
            slot.reach = [
                least + cells(-1.5 * v.x),
                least + cells(-1.5 * v.y),
                least + cells(1.5 * v.x),
                least + cells(1.5 * v.y),
            ];
        }
    }
}

/// The blocking bodies that are not wholly above the water, as the solver's blockers; in rain,
/// every blocking body (the rain lands on it and runs off its edges).
pub(super) fn block<S: WaterSolver + ?Sized>(
    slots: &[Option<Box<Slot>>],
    blockers: &mut Blockers,
    grid: CellGrid,
    surface: &[f32],
    sim: &mut S,
) -> Result<(), BlockerError> {
    blockers.clear();
    let rain = sim.rains();
    for slot in slots.iter().flatten().filter(|s| s.blocks) {
        if rain || !above_water(slot, grid, surface) {
            slot.coverage.add_to(blockers);
            if slot.settle {
                for (i, j, ..) in slot.coverage.cells() {
                    blockers.settle(i, j);
                }
            }
        }
    }
    sim.set_blockers(blockers)
}

/// How far above the highest water around it a blocking body's lowest point must be for it to
/// stay out of the water's step (metres). A surge rising at 1 m/s climbs 1.7 cm in a step of
/// 1/60 s, so a body the water is about to reach takes part a few steps before it does.
pub const CLEARANCE: f32 = 0.1;

/// Whether a blocking body is wholly above the water: its lowest point more than [`CLEARANCE`]
/// above the highest surface over its cells and the ring around them (dry ground counts as a
/// surface, so a body resting on the ground always takes part). Such a body is left out of the
/// blockers (except in rain, which lands on it), so the water steps as if it were not there,
/// with no blocked faces to compute.
fn above_water(slot: &Slot, grid: CellGrid, surface: &[f32]) -> bool {
    let bottom = slot
        .coverage
        .cells()
        .map(|(_, _, bottom, _, _)| bottom)
        .fold(f32::INFINITY, f32::min);
    let Some(window) = Window::around(&slot.coverage, grid, 1) else {
        return false;
    };
    let highest = window
        .cells(grid.nx)
        .map(|k| surface[k])
        .fold(f32::NEG_INFINITY, f32::max);
    bottom.is_finite() && highest.is_finite() && bottom > highest + CLEARANCE
}

/// Floaters push the water aside as they move (Thürey et al., [`push_aside`]): a body at rest
/// moves no water; only motion makes waves. What all floaters move is summed per cell into
/// `moved`, to be handed to the solver at once.
pub(super) fn push_floaters(
    slots: &[Option<Box<Slot>>],
    grid: CellGrid,
    surface: &[f32],
    depth: &mut [f32],
    moved: &mut Vec<(usize, f32)>,
    delta: &mut Vec<f32>,
    keys: &mut Vec<u64>,
) {
    moved.clear();
    for slot in slots.iter().flatten().filter(|s| !s.blocks) {
        push_aside(
            &slot.coverage,
            &slot.previous,
            grid,
            surface,
            depth,
            moved,
            delta,
        );
    }
    merge(moved, keys);
}

/// Asks the solver to read back, while the rigid bodies step, the water each body will need
/// next step: its window grown by the cells it may reach ([`BodyWorld::foresee`]).
pub(super) fn request<S: WaterSolver + ?Sized>(
    slots: &mut [Option<Box<Slot>>],
    grid: CellGrid,
    sim: &mut S,
) -> Result<(), SolverError> {
    let mut cells = Vec::new();
    for slot in slots.iter_mut().flatten() {
        slot.requested = Window::reach(&slot.coverage, grid, slot.reach);
        if let Some(w) = slot.requested {
            cells.extend(w.cells(grid.nx));
        }
    }
    sim.request_cells(&cells)
}
