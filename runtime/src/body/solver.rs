//! What the body coupling needs of a water solver, so one coupling drives the CPU
//! [`Simulation`] (runtime, tests) and the GPU [`GpuSimulation`](crate::gpu::GpuSimulation)
//! (the editor's preview, a game on the GPU) alike.
//!
//! The coupling reads the water only where bodies are ([`WaterSolver::read_cells`] fills a
//! [`WaterCopy`] at the listed cells), so on the GPU it costs one small gather and read-back per
//! coupled step, not a copy of the grid.

use super::forces::Water;
use super::raster::CellGrid;
use crate::sim::blocking::{BlockerError, Blockers};
use crate::sim::{Simulation, StepError};

/// Why a solver could not do what the coupling asked.
#[derive(Debug, thiserror::Error)]
pub enum SolverError {
    /// The water step was refused: a blow-up at a cell (the state is the one before it), a
    /// runaway, a bad time step. A caller can pause at the cell and go on after an edit.
    #[error(transparent)]
    Step(#[from] StepError),
    /// The GPU failed otherwise: a lost device, a failed read-back, a bad request.
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Gpu(crate::gpu::GpuError),
}

impl SolverError {
    /// The refused step, where that is what went wrong.
    pub fn step(&self) -> Option<&StepError> {
        match self {
            SolverError::Step(e) => Some(e),
            #[cfg(feature = "gpu")]
            SolverError::Gpu(_) => None,
        }
    }
}

#[cfg(feature = "gpu")]
impl From<crate::gpu::GpuError> for SolverError {
    fn from(e: crate::gpu::GpuError) -> Self {
        match e {
            crate::gpu::GpuError::Step(step) => SolverError::Step(step),
            other => SolverError::Gpu(other),
        }
    }
}

/// A water solver the bodies can be coupled with.
pub trait WaterSolver {
    /// The solver's grid.
    fn grid(&self) -> CellGrid;
    /// Gravitational acceleration, m/s².
    fn gravity(&self) -> f32;
    /// Whether rain falls on the level (it lands on the bodies too).
    fn rains(&self) -> bool;
    /// Terrain heights, row-major.
    fn read_terrain(&self) -> Result<Vec<f32>, SolverError>;
    /// Sets the two-layer blocking bodies for the next steps (an empty set removes them).
    fn set_blockers(&mut self, blockers: &Blockers) -> Result<(), BlockerError>;
    /// Takes `volume` m³ from each listed cell (negative: gives it); a cell never gives more
    /// than it holds; each cell appears once.
    fn displace(&mut self, changes: &[(usize, f32)]) -> Result<(), SolverError>;
    /// Advances the water by `dt` seconds (the solver sub-steps as its CFL limit needs).
    fn advance(&mut self, dt: f32) -> Result<(), SolverError>;
    /// Advances the water by `n` steps of `dt` seconds: [`Self::advance`] `n` times (the GPU
    /// records them together, with the same passes).
    fn advance_steps(&mut self, dt: f32, n: usize) -> Result<(), SolverError> {
        for _ in 0..n {
            self.advance(dt)?;
        }
        Ok(())
    }
    /// Copies the water at `cells` (row-major, any order, repeats allowed) into `into`:
    /// surface (the effective surface where the solver knows it), depth and the cells' four
    /// face discharges.
    fn read_cells(&mut self, cells: &[usize], into: &mut WaterCopy) -> Result<(), SolverError>;
    /// Starts reading the water at `cells` (any order, repeats allowed) as of the steps so
    /// far, for the next [`Self::take_cells`], without waiting. A solver that reads at once
    /// does nothing.
    fn request_cells(&mut self, cells: &[usize]) -> Result<(), SolverError> {
        let _ = cells;
        Ok(())
    }
    /// Copies what the last [`Self::request_cells`] read (the water as of that request) into
    /// `into` and returns `true`; `false`, copying nothing, when no request is waiting (none
    /// was made, or the water changed since and it was dropped). A solver that reads at once
    /// returns `false`: its caller reads what it needs with [`Self::read_cells`].
    fn take_cells(&mut self, into: &mut WaterCopy) -> Result<bool, SolverError> {
        let _ = into;
        Ok(false)
    }
    /// Whether [`Self::request_cells`] reads ahead (the water comes back while the caller does
    /// other work): a [`BodyWorld`](crate::body::world::BodyWorld) then reads ahead by
    /// default. `false` for a solver that reads at once.
    fn reads_ahead(&self) -> bool {
        false
    }
}

/// A copy of the water at the cells the bodies need, in full-size grids (other cells hold
/// whatever was read last, or zero).
#[derive(Clone, Debug, Default)]
pub struct WaterCopy {
    /// The grid.
    pub grid: CellGrid,
    /// Surface per cell, metres.
    pub surface: Vec<f32>,
    /// Depth per cell, metres.
    pub depth: Vec<f32>,
    /// x-face discharges, `(nx+1)·ny`, m³/s.
    pub qx: Vec<f32>,
    /// y-face discharges, `nx·(ny+1)`, m³/s.
    pub qy: Vec<f32>,
}

impl WaterCopy {
    /// Zeroed grids for `grid`.
    pub fn new(grid: CellGrid) -> Self {
        let (nx, ny) = (grid.nx, grid.ny);
        Self {
            grid,
            surface: vec![0.0; nx * ny],
            depth: vec![0.0; nx * ny],
            qx: vec![0.0; (nx + 1) * ny],
            qy: vec![0.0; nx * (ny + 1)],
        }
    }

    /// The copy as the force model's view of the water.
    pub fn water(&self) -> Water<'_> {
        Water {
            nx: self.grid.nx,
            ny: self.grid.ny,
            cell_size: self.grid.cell_size,
            surface: &self.surface,
            depth: &self.depth,
            terrain: &[],
            qx: &self.qx,
            qy: &self.qy,
        }
    }

    /// Stores one cell's water: surface, depth, west/east and north/south face discharges.
    pub fn set(&mut self, cell: usize, surface: f32, depth: f32, qx: [f32; 2], qy: [f32; 2]) {
        let nx = self.grid.nx;
        let (i, j) = (cell % nx, cell / nx);
        self.surface[cell] = surface;
        self.depth[cell] = depth;
        let west = j * (nx + 1) + i;
        self.qx[west] = qx[0];
        self.qx[west + 1] = qx[1];
        self.qy[cell] = qy[0];
        self.qy[cell + nx] = qy[1];
    }
}

impl WaterSolver for Simulation {
    fn grid(&self) -> CellGrid {
        CellGrid {
            nx: self.nx(),
            ny: self.ny(),
            cell_size: self.cell_size(),
        }
    }

    fn gravity(&self) -> f32 {
        self.params().gravity
    }

    fn rains(&self) -> bool {
        self.params().rain_mm_per_hour > 0.0
    }

    fn read_terrain(&self) -> Result<Vec<f32>, SolverError> {
        Ok(self.terrain().to_vec())
    }

    fn set_blockers(&mut self, blockers: &Blockers) -> Result<(), BlockerError> {
        Simulation::set_blockers(self, blockers)
    }

    fn displace(&mut self, changes: &[(usize, f32)]) -> Result<(), SolverError> {
        Simulation::displace(self, changes);
        Ok(())
    }

    fn advance(&mut self, dt: f32) -> Result<(), SolverError> {
        Ok(self.step(dt)?)
    }

    fn read_cells(&mut self, cells: &[usize], into: &mut WaterCopy) -> Result<(), SolverError> {
        let nx = self.nx();
        let (qx, qy) = self.discharges();
        let depth = self.depth();
        for &k in cells {
            let (i, j) = (k % nx, k / nx);
            let surface = self.effective_surface_at(k);
            let west = j * (nx + 1) + i;
            into.set(
                k,
                surface,
                depth[k],
                [qx[west], qx[west + 1]],
                [qy[k], qy[k + nx]],
            );
        }
        Ok(())
    }
}

#[cfg(feature = "gpu")]
impl WaterSolver for crate::gpu::GpuSimulation {
    fn grid(&self) -> CellGrid {
        CellGrid {
            nx: self.nx(),
            ny: self.ny(),
            cell_size: self.cell_size(),
        }
    }

    fn gravity(&self) -> f32 {
        self.params().gravity
    }

    fn rains(&self) -> bool {
        self.params().rain_mm_per_hour > 0.0
    }

    fn read_terrain(&self) -> Result<Vec<f32>, SolverError> {
        Ok(crate::gpu::GpuSimulation::read_terrain(self)?)
    }

    fn set_blockers(&mut self, blockers: &Blockers) -> Result<(), BlockerError> {
        crate::gpu::GpuSimulation::set_blockers(self, blockers)
    }

    fn displace(&mut self, changes: &[(usize, f32)]) -> Result<(), SolverError> {
        Ok(crate::gpu::GpuSimulation::displace(self, changes)?)
    }

    fn advance(&mut self, dt: f32) -> Result<(), SolverError> {
        Ok(self.step(dt)?)
    }

    fn advance_steps(&mut self, dt: f32, n: usize) -> Result<(), SolverError> {
        Ok(self.step_n(n, dt)?)
    }

    fn read_cells(&mut self, cells: &[usize], into: &mut WaterCopy) -> Result<(), SolverError> {
        let list: Vec<u32> = cells.iter().map(|&k| k as u32).collect();
        let read = crate::gpu::GpuSimulation::read_cells(self, &list)?;
        for (&k, w) in cells.iter().zip(&read) {
            into.set(k, w.surface, w.depth, w.qx, w.qy);
        }
        Ok(())
    }

    fn request_cells(&mut self, cells: &[usize]) -> Result<(), SolverError> {
        let list: Vec<u32> = cells.iter().map(|&k| k as u32).collect();
        Ok(crate::gpu::GpuSimulation::request_cells(self, &list)?)
    }

    fn take_cells(&mut self, into: &mut WaterCopy) -> Result<bool, SolverError> {
        let taken = self.take_cells_with(|k, w| {
            into.set(k as usize, w.surface, w.depth, w.qx, w.qy);
        })?;
        Ok(taken.is_some())
    }

    fn reads_ahead(&self) -> bool {
        true
    }
}
