//! Queries a game makes of the water: depth, surface and velocity at a world point, and volumes.

use super::Simulation;

/// Water under this deep (metres) is a film: dry ground to the point queries.
const FILM: f32 = 1e-3;

/// The water and the ground at a world point, from the four cell centres around it.
#[derive(Default)]
struct Around {
    /// The ground, bilinear.
    ground: f32,
    /// The depth, bilinear.
    depth: f32,
    /// The surface over the wet cells (`None`: all four dry).
    surface: Option<f32>,
}

impl Simulation {
    /// Water depth at world point `(x, y)` (metres), between the four cell centres around it:
    /// the bilinear depth, but no more than the water's surface (interpolated over the wet
    /// cells among them) stands above the ground (interpolated over all four). Inside a lake
    /// that is the bilinear depth; at a shore it falls to zero where the bank rises out of the
    /// water, instead of spreading the lake's depth up a dry bank above its level. Films
    /// under 1 mm count as dry there. Where a blocker stands, the water counts from the ground
    /// up to its effective surface ([`Self::effective_surface_at`]): the water around a crate
    /// standing in it, the body within it.
    pub fn depth_at(&self, x: f32, y: f32) -> f32 {
        let q = self.around(x, y);
        let above = q.surface.map_or(0.0, |s| (s - q.ground).max(0.0));
        q.depth.min(above).max(0.0)
    }

    /// Water surface height at world point `(x, y)`, metres: the ground there (bilinear) plus
    /// [`Self::depth_at`], so the ground itself where it is dry.
    pub fn surface_at(&self, x: f32, y: f32) -> f32 {
        let q = self.around(x, y);
        let above = q.surface.map_or(0.0, |s| (s - q.ground).max(0.0));
        q.ground + q.depth.min(above).max(0.0)
    }

    /// World point `(x, y)` in cell-centre units, held to the grid: a point off the map reads
    /// the nearest edge, a NaN coordinate as 0 (the map's first row or column), so every query
    /// of a NaN point answers with the same corner's water instead of NaN.
    fn between_centres(&self, x: f32, y: f32) -> (f32, f32) {
        let centre = |v: f32, n: usize| {
            let f = v / self.dx - 0.5;
            if f.is_nan() {
                0.0
            } else {
                f.clamp(0.0, (n - 1) as f32)
            }
        };
        (centre(x, self.nx), centre(y, self.ny))
    }

    /// The water and the ground at `(x, y)` from the four cell centres around it.
    fn around(&self, x: f32, y: f32) -> Around {
        let (fx, fy) = self.between_centres(x, y);
        let (i0, j0) = (
            (fx as usize).min(self.nx.saturating_sub(2)),
            (fy as usize).min(self.ny.saturating_sub(2)),
        );
        let (tx, ty) = (fx - i0 as f32, fy - j0 as f32);
        let mut q = Around::default();
        let (mut surface, mut wet) = (0.0, 0.0);
        for (di, dj, w) in [
            (0, 0, (1.0 - tx) * (1.0 - ty)),
            (1, 0, tx * (1.0 - ty)),
            (0, 1, (1.0 - tx) * ty),
            (1, 1, tx * ty),
        ] {
            let (i, j) = ((i0 + di).min(self.nx - 1), (j0 + dj).min(self.ny - 1));
            let k = j * self.nx + i;
            let t = self.terrain[k];
            // Under a blocker the water stands at its effective surface (on a crate, beside
            // it, below it), not at the ground plus the water the cell holds (a pit a crate's
            // height deep wherever a body stood).
            let h = match self.blocking.as_deref() {
                Some(b) => (b.effective(k, &self.terrain, &self.depth) - t).max(0.0),
                None => self.depth[k],
            };
            q.ground += w * t;
            q.depth += w * h;
            if h > FILM && w > 0.0 {
                surface += w * (t + h);
                wet += w;
            }
        }
        q.surface = (wet > 0.0).then(|| surface / wet);
        q
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
        let (fx, fy) = self.between_centres(x, y);
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

#[cfg(test)]
mod tests {
    use crate::{Level, Simulation};

    /// Two columns of 1 m cells: a lake 1 m deep on ground at `low` (x = 0..1 m) beside dry
    /// ground at `high` (x = 1..2 m).
    fn shore(low: f32, high: f32) -> Simulation {
        let mut level = Level::flat(2, 2, 1.0, 0.0);
        for j in 0..2 {
            level.terrain.set(0, j, low);
            level.terrain.set(1, j, high);
            level.water.set(0, j, 1.0);
        }
        Simulation::new(&level).unwrap()
    }

    #[test]
    fn a_dry_bank_above_the_lake_holds_no_water() {
        let sim = shore(0.0, 5.0);
        // At the lake's centre: its depth and surface.
        assert_eq!(sim.depth_at(0.5, 1.0), 1.0);
        assert_eq!(sim.surface_at(0.5, 1.0), 1.0);
        // The ground rises linearly between the centres and leaves the water a fifth of the
        // way: beyond, dry ground (the bilinear depth said 0.1 m at x = 1.4 m, 4.6 m up).
        assert_eq!(sim.depth_at(1.4, 1.0), 0.0);
        assert!((sim.surface_at(1.4, 1.0) - 4.5).abs() < 1e-5);
        assert!((sim.depth_at(0.6, 1.0) - 0.5).abs() < 1e-5);
        assert!((sim.surface_at(0.6, 1.0) - 1.0).abs() < 1e-5);
    }

    #[test]
    fn water_on_a_ledge_does_not_pour_over_the_drop_below_it() {
        // The lake 10 m up, dry ground at 0 beside it: the depth falls to zero across the
        // gap (never the 10 m between the lake's surface and the ground below).
        let sim = shore(10.0, 0.0);
        let mut last = f32::INFINITY;
        for k in 0..=10 {
            let x = 0.5 + 0.1 * k as f32;
            let d = sim.depth_at(x, 1.0);
            assert!(d <= 1.0 && d <= last + 1e-6, "{d} m at x = {x}");
            last = d;
        }
        assert_eq!(sim.depth_at(1.5, 1.0), 0.0);
    }
}
