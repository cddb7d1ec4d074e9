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

#[cfg(test)]
mod tests {
    use super::Grid;

    #[test]
    #[should_panic(expected = "cell (4, 0) is off the 4 × 3 grid")]
    fn a_cell_past_the_east_edge_is_refused_not_read_from_the_next_row() {
        let g = Grid::from_fn(4, 3, |x, y| (10 * y + x) as f32);
        assert_eq!(g.get(3, 0), 3.0);
        // Read the next row's first cell (10.0), silently.
        let _ = g.get(4, 0);
    }
}
