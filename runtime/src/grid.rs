//! `Grid`: a dense row-major 2D array of `f32` cell values (terrain heights, water depths).

/// A row-major `nx × ny` array of cell values; index `(x, y)` is `data[y * nx + x]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// Number of cells along x (columns).
    pub nx: usize,
    /// Number of cells along y (rows).
    pub ny: usize,
    /// Cell values, row by row.
    pub data: Vec<f32>,
}

impl Grid {
    /// A grid of `nx × ny` cells, all set to `value`.
    pub fn filled(nx: usize, ny: usize, value: f32) -> Self {
        Self {
            nx,
            ny,
            data: vec![value; nx * ny],
        }
    }

    /// A grid whose cell `(x, y)` is `f(x, y)`.
    pub fn from_fn(nx: usize, ny: usize, mut f: impl FnMut(usize, usize) -> f32) -> Self {
        let mut data = Vec::with_capacity(nx * ny);
        for y in 0..ny {
            for x in 0..nx {
                data.push(f(x, y));
            }
        }
        Self { nx, ny, data }
    }

    /// The value of cell `(x, y)`.
    ///
    /// # Panics
    /// Where `(x, y)` is off the grid (`x == nx` read the next row's first cell).
    #[inline]
    pub fn get(&self, x: usize, y: usize) -> f32 {
        self.data[self.index(x, y)]
    }

    /// Sets cell `(x, y)` to `v`.
    ///
    /// # Panics
    /// Where `(x, y)` is off the grid.
    #[inline]
    pub fn set(&mut self, x: usize, y: usize, v: f32) {
        let i = self.index(x, y);
        self.data[i] = v;
    }

    /// The index of cell `(x, y)` in `data`, checked to lie on the grid.
    #[inline]
    fn index(&self, x: usize, y: usize) -> usize {
        assert!(
            x < self.nx && y < self.ny,
            "cell ({x}, {y}) is off the {} × {} grid",
            self.nx,
            self.ny
        );
        y * self.nx + x
    }

    /// Bilinear interpolation between cell centres at fractional cell coordinates `(fx, fy)`,
    /// where cell `(x, y)` has its centre at `(x + 0.5, y + 0.5)`; clamped to the grid.
    pub fn sample(&self, fx: f32, fy: f32) -> f32 {
        bilinear(&self.data, self.nx, self.ny, fx - 0.5, fy - 0.5)
    }

    /// The sum of all values, accumulated in `f64` in a fixed order.
    pub fn sum(&self) -> f64 {
        self.data.iter().map(|&v| v as f64).sum()
    }
}

/// Bilinear sample of a row-major `nx × ny` array at lattice coordinates `(x, y)` (the sample
/// points are at integer coordinates), clamped to the array's extent.
#[inline]
pub fn bilinear(data: &[f32], nx: usize, ny: usize, x: f32, y: f32) -> f32 {
    let x = x.clamp(0.0, (nx - 1) as f32);
    let y = y.clamp(0.0, (ny - 1) as f32);
    let x0 = (x.floor() as usize).min(nx.saturating_sub(2));
    let y0 = (y.floor() as usize).min(ny.saturating_sub(2));
    let x1 = (x0 + 1).min(nx - 1);
    let y1 = (y0 + 1).min(ny - 1);
    let tx = x - x0 as f32;
    let ty = y - y0 as f32;
    let a = data[y0 * nx + x0] * (1.0 - tx) + data[y0 * nx + x1] * tx;
    let b = data[y1 * nx + x0] * (1.0 - tx) + data[y1 * nx + x1] * tx;
    a * (1.0 - ty) + b * ty
}

/// Bilinear sample of a row-major `nx × ny` array at lattice point `(i, j)` moved by
/// `(ox, oy)` lattice units, clamped to the array's extent. The move is split into whole
/// units and a fraction before it meets the index: taken as `i as f32 + ox`, it was rounded
/// to the spacing of `f32` near `i` (a 2⁻¹¹ unit past 4096), so a slow current far east on a
/// large map moved by a quarter more or less than the same current near the origin.
/// The GPU's `advect.wgsl` samples alike.
#[inline]
pub(crate) fn bilinear_from(
    data: &[f32],
    (nx, ny): (usize, usize),
    (i, j): (usize, usize),
    (ox, oy): (f32, f32),
) -> f32 {
    let (x0, x1, tx) = tap(i, ox, nx);
    let (y0, y1, ty) = tap(j, oy, ny);
    let a = data[y0 * nx + x0] * (1.0 - tx) + data[y0 * nx + x1] * tx;
    let b = data[y1 * nx + x0] * (1.0 - tx) + data[y1 * nx + x1] * tx;
    a * (1.0 - ty) + b * ty
}

/// The two samples either side of `i + o` along an axis of `n` samples and the weight of the
/// second, clamped to the axis.
#[inline]
fn tap(i: usize, o: f32, n: usize) -> (usize, usize, f32) {
    let o = o.clamp(-(n as f32), n as f32);
    let whole = o.floor();
    let k = i as i64 + whole as i64;
    if k < 0 {
        (0, 0, 0.0)
    } else if k >= n as i64 - 1 {
        (n - 1, n - 1, 0.0)
    } else {
        (k as usize, k as usize + 1, o - whole)
    }
}

#[cfg(test)]
mod tests {
    use super::Grid;

    #[test]
    fn a_slow_current_far_east_moves_as_far_as_near_the_origin() {
        // A ten-thousandth of a cell's move at i = 8100 was rounded away (f32 past 4096).
        let nx = 8200;
        let data: Vec<f32> = (0..nx).map(|i| (i % 2) as f32).collect();
        let moved = |i: usize| super::bilinear_from(&data, (nx, 1), (i, 0), (-1e-4, 0.0));
        let (near, far) = (moved(100), moved(8100));
        println!("moved 1e-4 of a cell: {near} at i = 100, {far} at i = 8100");
        assert!((near - 1e-4).abs() < 1e-7, "{near}");
        assert_eq!(far, near);
        // Clamped at both ends, as the plain sample is.
        let at = |i, o| super::bilinear_from(&data, (nx, 1), (i, 0), (o, 0.0));
        assert_eq!(at(3, -10.0), data[0]);
        assert_eq!(at(nx - 3, 10.0), data[nx - 1]);
        assert_eq!(at(nx - 1, 0.0), data[nx - 1]);
        assert_eq!(at(5, 1e30), data[nx - 1]);
        for (i, o) in [(0, 0.25), (7, -2.5), (nx - 2, 0.5), (100, 0.0)] {
            let plain = super::bilinear(&data, nx, 1, i as f32 + o, 0.0);
            assert!((at(i, o) - plain).abs() < 1e-6, "{i} {o}");
        }
    }

    #[test]
    #[should_panic(expected = "cell (4, 0) is off the 4 × 3 grid")]
    fn a_cell_past_the_east_edge_is_refused_not_read_from_the_next_row() {
        let g = Grid::from_fn(4, 3, |x, y| (10 * y + x) as f32);
        assert_eq!(g.get(3, 0), 3.0);
        // Read the next row's first cell (10.0), silently.
        let _ = g.get(4, 0);
    }
}
