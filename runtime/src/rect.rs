//! `CellRect`: a rectangle of grid cells, the unit of change tracking between an editor's
//! document, its commands and a renderer's uploads.

/// A half-open rectangle of cells `x0..x1 × y0..y1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CellRect {
    /// First column (inclusive).
    pub x0: usize,
    /// First row (inclusive).
    pub y0: usize,
    /// Last column (exclusive).
    pub x1: usize,
    /// Last row (exclusive).
    pub y1: usize,
}

impl CellRect {
    /// The rectangle `x0..x1 × y0..y1`.
    pub fn new(x0: usize, y0: usize, x1: usize, y1: usize) -> Self {
        Self { x0, y0, x1, y1 }
    }

    /// Every cell of an `nx × ny` grid.
    pub fn whole(nx: usize, ny: usize) -> Self {
        Self::new(0, 0, nx, ny)
    }

    /// Number of columns.
    pub fn width(&self) -> usize {
        self.x1.saturating_sub(self.x0)
    }

    /// Number of rows.
    pub fn height(&self) -> usize {
        self.y1.saturating_sub(self.y0)
    }

    /// Number of cells.
    pub fn area(&self) -> usize {
        self.width() * self.height()
    }

    /// Whether the rectangle holds no cell.
    pub fn is_empty(&self) -> bool {
        self.area() == 0
    }

    /// The smallest rectangle holding both.
    pub fn union(&self, other: &CellRect) -> CellRect {
        if self.is_empty() {
            return *other;
        }
        if other.is_empty() {
            return *self;
        }
        CellRect::new(
            self.x0.min(other.x0),
            self.y0.min(other.y0),
            self.x1.max(other.x1),
            self.y1.max(other.y1),
        )
    }

    /// The cells in both (possibly empty).
    pub fn intersect(&self, other: &CellRect) -> CellRect {
        let r = CellRect::new(
            self.x0.max(other.x0),
            self.y0.max(other.y0),
            self.x1.min(other.x1),
            self.y1.min(other.y1),
        );
        if r.x0 >= r.x1 || r.y0 >= r.y1 {
            CellRect::new(0, 0, 0, 0)
        } else {
            r
        }
    }

    /// The rectangle grown by `n` cells on every side, clipped to an `nx × ny` grid.
    pub fn grow(&self, n: usize, nx: usize, ny: usize) -> CellRect {
        CellRect::new(
            self.x0.saturating_sub(n),
            self.y0.saturating_sub(n),
            (self.x1 + n).min(nx),
            (self.y1 + n).min(ny),
        )
    }

    /// Whether cell `(x, y)` lies inside.
    pub fn contains(&self, x: usize, y: usize) -> bool {
        x >= self.x0 && x < self.x1 && y >= self.y0 && y < self.y1
    }

    /// The cells whose centres lie within `radius` metres of world point `(cx, cy)` — the
    /// bounding box of a circle — clipped to an `nx × ny` grid of `cell_size` metre cells.
    pub fn around(cx: f32, cy: f32, radius: f32, cell_size: f32, nx: usize, ny: usize) -> Self {
        let lo = |c: f32| ((c - radius) / cell_size - 0.5).ceil().max(0.0);
        let hi = |c: f32| ((c + radius) / cell_size - 0.5).floor() + 1.0;
        let x0 = lo(cx) as usize;
        let y0 = lo(cy) as usize;
        let x1 = (hi(cx).max(0.0) as usize).min(nx);
        let y1 = (hi(cy).max(0.0) as usize).min(ny);
        if !(cx.is_finite() && cy.is_finite() && radius.is_finite()) || x0 >= x1 || y0 >= y1 {
            return CellRect::new(0, 0, 0, 0);
        }
        CellRect::new(x0, y0, x1, y1)
    }
}

/// Copies the cells of `rect` out of a row-major grid `nx` cells wide.
pub fn copy_out(data: &[f32], nx: usize, rect: &CellRect) -> Vec<f32> {
    let mut out = Vec::with_capacity(rect.area());
    for y in rect.y0..rect.y1 {
        out.extend_from_slice(&data[y * nx + rect.x0..y * nx + rect.x1]);
    }
    out
}

/// Writes `values` (row-major, `rect`-sized) into the cells of `rect` of a row-major grid.
pub fn copy_in(data: &mut [f32], nx: usize, rect: &CellRect, values: &[f32]) {
    let w = rect.width();
    for (row, y) in (rect.y0..rect.y1).enumerate() {
        data[y * nx + rect.x0..y * nx + rect.x1].copy_from_slice(&values[row * w..(row + 1) * w]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn around_covers_cells_whose_centres_are_inside() {
        // Cell centres at 0.5, 1.5, ...; a circle at 5.0 radius 1.0 covers centres 4.5 and 5.5.
        let r = CellRect::around(5.0, 5.0, 1.0, 1.0, 100, 100);
        assert_eq!(r, CellRect::new(4, 4, 6, 6));
        assert!(CellRect::around(-50.0, 5.0, 1.0, 1.0, 100, 100).is_empty());
        assert!(CellRect::around(f32::NAN, 5.0, 1.0, 1.0, 100, 100).is_empty());
    }

    #[test]
    fn copy_round_trips() {
        let mut data: Vec<f32> = (0..20).map(|v| v as f32).collect();
        let rect = CellRect::new(1, 1, 3, 3);
        let values = copy_out(&data, 5, &rect);
        assert_eq!(values, vec![6.0, 7.0, 11.0, 12.0]);
        copy_in(&mut data, 5, &rect, &[0.0; 4]);
        assert_eq!(data[6], 0.0);
        assert_eq!(data[13], 13.0);
    }
}
