//! [`Blockers`]: the per-cell blocker columns a game or the editor hands to the solver.

use thiserror::Error;

use super::ALPHA;

/// Per-cell blocker columns of all bodies: what a game hands to `Simulation::set_blockers`.
#[derive(Clone, Debug, PartialEq)]
pub struct Blockers {
    nx: usize,
    ny: usize,
    pub(super) bottom: Vec<f32>,
    pub(super) top: Vec<f32>,
    pub(super) cover: Vec<f32>,
    /// Indices of cells with a positive cover, in insertion order (may repeat).
    pub(super) cells: Vec<u32>,
    /// Cells whose water already holds the body over them (a bake loaded, a moment restored):
    /// entering, they take none of it and their surface stands over the body.
    pub(super) settled: Vec<u32>,
    /// Spreading rate of the effective surface under bodies (the paper's `kappa`, 0..1).
    pub kappa: f32,
    /// Share of the water a body has just displaced that rejoins the flow per sub-step (the
    /// paper's `alpha`, 0..1; 1: all at once).
    pub alpha: f32,
}

impl Blockers {
    /// No blockers on an `nx × ny` grid, `kappa` = 0.5.
    pub fn new(nx: usize, ny: usize) -> Self {
        Self {
            nx,
            ny,
            bottom: vec![f32::INFINITY; nx * ny],
            top: vec![f32::NEG_INFINITY; nx * ny],
            cover: vec![0.0; nx * ny],
            cells: Vec::new(),
            settled: Vec::new(),
            kappa: 0.5,
            alpha: ALPHA,
        }
    }

    /// Cells along x.
    pub fn nx(&self) -> usize {
        self.nx
    }

    /// Cells along y.
    pub fn ny(&self) -> usize {
        self.ny
    }

    /// Removes every blocker column (keeps the allocation).
    pub fn clear(&mut self) {
        for &k in &self.cells {
            let k = k as usize;
            self.bottom[k] = f32::INFINITY;
            self.top[k] = f32::NEG_INFINITY;
            self.cover[k] = 0.0;
        }
        self.cells.clear();
        self.settled.clear();
    }

    /// Whether no cell is covered.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Adds a body column over cell `(i, j)`: the body spans heights `bottom..top` (metres) over
    /// `cover` (0..1) of the cell. Columns of several bodies in one cell merge: the lowest bottom,
    /// the highest top, covers added up to 1. Out-of-grid cells, non-finite values, an empty cover
    /// or `top < bottom` are ignored (returns `false`).
    pub fn add_column(&mut self, i: usize, j: usize, bottom: f32, top: f32, cover: f32) -> bool {
        let usable = i < self.nx
            && j < self.ny
            && bottom.is_finite()
            && top.is_finite()
            && top >= bottom
            && cover.is_finite()
            && cover > 0.0;
        if !usable {
            return false;
        }
        let k = j * self.nx + i;
        if self.cover[k] == 0.0 {
            self.cells.push(k as u32);
        }
        self.bottom[k] = self.bottom[k].min(bottom);
        self.top[k] = self.top[k].max(top);
        self.cover[k] = (self.cover[k] + cover).min(1.0);
        true
    }

    /// Marks cell `(i, j)` as one whose water already holds the body over it (the water of a
    /// bake loaded, or of a moment restored, with the body where it rests): where it is newly
    /// covered, the body takes none of its water, and its surface starts over the body (it
    /// took the water standing on a sunk crate as displaced, and the lake poured onto it).
    pub fn settle(&mut self, i: usize, j: usize) {
        if i < self.nx && j < self.ny {
            self.settled.push((j * self.nx + i) as u32);
        }
    }

    /// The column of cell `(i, j)`: `(bottom, top, cover)`, or `None` where nothing covers it.
    pub fn column(&self, i: usize, j: usize) -> Option<(f32, f32, f32)> {
        let k = j.checked_mul(self.nx)?.checked_add(i)?;
        (i < self.nx && j < self.ny && self.cover[k] > 0.0)
            .then(|| (self.bottom[k], self.top[k], self.cover[k]))
    }

    /// Number of covered cells.
    pub fn covered_cells(&self) -> usize {
        self.cells.len()
    }

    /// Whether these blockers fit an `nx × ny` solver: the grid size and a kappa in 0..=1.
    pub fn check(&self, nx: usize, ny: usize) -> Result<(), BlockerError> {
        if self.nx() != nx || self.ny() != ny {
            return Err(BlockerError::Size {
                got_x: self.nx(),
                got_y: self.ny(),
                nx,
                ny,
            });
        }
        if !(0.0..=1.0).contains(&self.kappa) {
            return Err(BlockerError::Kappa(self.kappa));
        }
        if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            return Err(BlockerError::Alpha(self.alpha));
        }
        Ok(())
    }

    /// Indices (`j·nx + i`) of the covered cells, in insertion order (may repeat).
    #[cfg(feature = "gpu")]
    pub(crate) fn covered(&self) -> &[u32] {
        &self.cells
    }

    /// Indices of the cells marked settled ([`Self::settle`]), in marking order (may repeat).
    #[cfg(feature = "gpu")]
    pub(crate) fn settled(&self) -> &[u32] {
        &self.settled
    }
}

/// Why blockers cannot be used.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum BlockerError {
    /// The blockers were made for another grid size.
    #[error("blockers are {got_x}×{got_y} cells but the simulation is {nx}×{ny}")]
    Size {
        /// Blockers along x.
        got_x: usize,
        /// Blockers along y.
        got_y: usize,
        /// Simulation cells along x.
        nx: usize,
        /// Simulation cells along y.
        ny: usize,
    },
    /// `kappa` is not in `0..=1`.
    #[error("kappa {0} is not between 0 and 1")]
    Kappa(f32),
    /// `alpha` is not in `0 < alpha ≤ 1`.
    #[error("alpha {0} is not above 0 and at most 1")]
    Alpha(f32),
}
