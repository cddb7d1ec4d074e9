//! Queries a game makes of the water: depth, surface and velocity at a world point, and volumes.

use crate::grid::bilinear;

use super::Simulation;

impl Simulation {
    /// Water depth at world point `(x, y)` (metres), bilinear between cell centres.
    pub fn depth_at(&self, x: f32, y: f32) -> f32 {
        let (fx, fy) = (x / self.dx - 0.5, y / self.dx - 0.5);
        bilinear(&self.depth, self.nx, self.ny, fx, fy).max(0.0)
    }

    /// Water surface height (terrain + depth) at world point `(x, y)`, metres.
    pub fn surface_at(&self, x: f32, y: f32) -> f32 {
        let (fx, fy) = (x / self.dx - 0.5, y / self.dx - 0.5);
        bilinear(&self.terrain, self.nx, self.ny, fx, fy) + self.depth_at(x, y)
    }

    /// Depth-averaged water velocity `(vx, vy)` in m/s of cell `(i, j)`; zero where the water
    /// is a film under 1 mm deep, whose speed means nothing to a game.
    ///
    /// # Panics
    /// If `(i, j)` is not a cell of the grid (`i < nx`, `j < ny`); [`Self::velocity_at`] takes
    /// any world point.
    pub fn cell_velocity(&self, i: usize, j: usize) -> (f32, f32) {
        let nx = self.nx;
        assert!(
            i < nx && j < self.ny,
            "cell ({i}, {j}) is outside the {nx}×{} grid",
            self.ny
        );
        let h = self.depth[j * nx + i];
        if h <= 1e-3 {
            return (0.0, 0.0);
        }
        let qx = 0.5 * (self.qx[j * (nx + 1) + i] + self.qx[j * (nx + 1) + i + 1]);
        let qy = 0.5 * (self.qy[j * nx + i] + self.qy[(j + 1) * nx + i]);
        (qx / (h * self.dx), qy / (h * self.dx))
    }

    /// Water velocity at world point `(x, y)` in m/s, bilinear between cell centres.
    pub fn velocity_at(&self, x: f32, y: f32) -> (f32, f32) {
        let fx = (x / self.dx - 0.5).clamp(0.0, (self.nx - 1) as f32);
        let fy = (y / self.dx - 0.5).clamp(0.0, (self.ny - 1) as f32);
        let (i0, j0) = (
            (fx as usize).min(self.nx - 2),
            (fy as usize).min(self.ny - 2),
        );
        let (tx, ty) = (fx - i0 as f32, fy - j0 as f32);
        let mut out = (0.0, 0.0);
        for (di, dj, w) in [
            (0, 0, (1.0 - tx) * (1.0 - ty)),
            (1, 0, tx * (1.0 - ty)),
            (0, 1, (1.0 - tx) * ty),
            (1, 1, tx * ty),
        ] {
            let (u, v) = self.cell_velocity(i0 + di, j0 + dj);
            out.0 += w * u;
            out.1 += w * v;
        }
        out
    }

    /// Water volume (m³) in the cells whose centres lie in the world rectangle
    /// `[x0, x1] × [y0, y1]`.
    pub fn region_volume(&self, x0: f32, y0: f32, x1: f32, y1: f32) -> f64 {
        let to_cell = |v: f32, n: usize| ((v / self.dx - 0.5).ceil().max(0.0) as usize).min(n);
        let to_cell_hi =
            |v: f32, n: usize| (((v / self.dx - 0.5).floor() + 1.0).max(0.0) as usize).min(n);
        let (i0, i1) = (
            to_cell(x0.min(x1), self.nx),
            to_cell_hi(x0.max(x1), self.nx),
        );
        let (j0, j1) = (
            to_cell(y0.min(y1), self.ny),
            to_cell_hi(y0.max(y1), self.ny),
        );
        let mut s = 0.0f64;
        for j in j0..j1 {
            for i in i0..i1 {
                s += self.depth[j * self.nx + i] as f64;
            }
        }
        s * (self.dx as f64).powi(2)
    }

    /// Area (m²) of cells deeper than `threshold` metres: the flooded area.
    pub fn flooded_area(&self, threshold: f32) -> f64 {
        self.depth.iter().filter(|&&d| d > threshold).count() as f64 * (self.dx as f64).powi(2)
    }
}
