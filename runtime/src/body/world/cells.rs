//! Per-cell helpers of the coupling: the cells a coverage covers, the ring of cells around a
//! body, and its submerged volume per cell.

use std::collections::HashMap;

use super::super::raster::{CellGrid, Coverage};

/// Adds `sign ×` the submerged volume (m³) of `c` below `surface` per cell into `out`.
pub(super) fn submerged(
    c: &Coverage,
    surface: &[f32],
    grid: CellGrid,
    area: f32,
    sign: f32,
    out: &mut HashMap<usize, f32>,
) {
    for w in 0..c.window_cells() {
        let (i, j) = (c.i0 + w % c.width, c.j0 + w / c.width);
        if c.cover[w] <= 0.0 || i >= grid.nx || j >= grid.ny {
            continue;
        }
        let k = j * grid.nx + i;
        let under = (surface[k] - c.mean_bottom[w]).clamp(0.0, c.thickness[w].max(0.0));
        if under.is_finite() && under > 0.0 {
            *out.entry(k).or_insert(0.0) += sign * c.cover[w] * under * area;
        }
    }
}

/// Cells next to (not under) either coverage, row-major indices.
pub(super) fn ring(a: &Coverage, b: &Coverage, grid: CellGrid) -> Vec<usize> {
    let covered = |k: usize| {
        let (i, j) = (k % grid.nx, k / grid.nx);
        [a, b].iter().any(|c| {
            i >= c.i0
                && j >= c.j0
                && i < c.i0 + c.width
                && j < c.j0 + c.height
                && c.cover[(j - c.j0) * c.width + (i - c.i0)] > 0.0
        })
    };
    let mut out = Vec::new();
    for c in [a, b].iter().filter(|c| !c.is_empty()) {
        let (i0, j0) = (c.i0.saturating_sub(1), c.j0.saturating_sub(1));
        let (i1, j1) = (
            (c.i0 + c.width + 1).min(grid.nx),
            (c.j0 + c.height + 1).min(grid.ny),
        );
        for j in j0..j1 {
            for i in i0..i1 {
                let k = j * grid.nx + i;
                if !covered(k) {
                    out.push(k);
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Calls `f` with the row-major index of every grid cell `c` covers.
pub(super) fn covered(c: &Coverage, grid: CellGrid, mut f: impl FnMut(usize)) {
    for w in 0..c.window_cells() {
        let (i, j) = (c.i0 + w % c.width, c.j0 + w / c.width);
        if c.cover[w] > 0.0 && i < grid.nx && j < grid.ny {
            f(j * grid.nx + i);
        }
    }
}

/// Calls `f` with every cell of `c`'s window grown by `margin` cells on each side (clipped to
/// the grid): where the body may reach by the next step.
pub(super) fn around(c: &Coverage, grid: CellGrid, margin: usize, mut f: impl FnMut(usize)) {
    if c.is_empty() {
        return;
    }
    let (i0, j0) = (c.i0.saturating_sub(margin), c.j0.saturating_sub(margin));
    let i1 = (c.i0 + c.width + margin).min(grid.nx);
    let j1 = (c.j0 + c.height + margin).min(grid.ny);
    for j in j0..j1 {
        for i in i0..i1 {
            f(j * grid.nx + i);
        }
    }
}
