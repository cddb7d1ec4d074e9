//! Per-cell work of the coupling, done window by window without maps or sorting: the cells a
//! body needs read, the ring of cells around it, the surface a floater sees and the water it
//! pushes aside.

use super::super::raster::{CellGrid, Coverage};
use super::super::solver::WaterCopy;

/// A rectangle of grid cells: columns `i0..i1`, rows `j0..j1`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Window {
    i0: usize,
    j0: usize,
    i1: usize,
    j1: usize,
}

impl Window {
    /// `c`'s window grown by `margin` cells on each side and clipped to the grid; `None` when
    /// the body covers nothing.
    pub(super) fn around(c: &Coverage, grid: CellGrid, margin: usize) -> Option<Window> {
        if c.is_empty() {
            return None;
        }
        Window::reach(c, grid, [margin; 4])
    }

    /// Where the body over `c` may reach by the next step: `c`'s window grown by `margin`
    /// cells west, south, east and north, clipped to the grid, also when it covers no cell
    /// now (a plank on its edge between the samples); `None` for a body off the map.
    pub(super) fn reach(c: &Coverage, grid: CellGrid, margin: [usize; 4]) -> Option<Window> {
        let w = Window {
            i0: c.i0.saturating_sub(margin[0]),
            j0: c.j0.saturating_sub(margin[1]),
            i1: (c.i0 + c.width + margin[2]).min(grid.nx),
            j1: (c.j0 + c.height + margin[3]).min(grid.ny),
        };
        (c.width > 0 && c.height > 0 && w.i0 < w.i1 && w.j0 < w.j1).then_some(w)
    }

    /// The smallest window holding both (either may be missing).
    pub(super) fn union(a: Option<Window>, b: Option<Window>) -> Option<Window> {
        match (a, b) {
            (Some(a), Some(b)) => Some(Window {
                i0: a.i0.min(b.i0),
                j0: a.j0.min(b.j0),
                i1: a.i1.max(b.i1),
                j1: a.j1.max(b.j1),
            }),
            (a, b) => a.or(b),
        }
    }

    /// Whether every cell of `other` lies in this window.
    pub(super) fn contains(&self, other: &Window) -> bool {
        self.i0 <= other.i0 && self.j0 <= other.j0 && self.i1 >= other.i1 && self.j1 >= other.j1
    }

    /// The window's cells, row-major indices in increasing order.
    pub(super) fn cells(self, nx: usize) -> impl Iterator<Item = usize> {
        (self.j0..self.j1).flat_map(move |j| (self.i0..self.i1).map(move |i| j * nx + i))
    }

    /// Whether cell `(i, j)` lies in the window.
    fn has(&self, i: usize, j: usize) -> bool {
        i >= self.i0 && j >= self.j0 && i < self.i1 && j < self.j1
    }
}

/// Whether `c` covers cell `(i, j)`.
fn covers(c: &Coverage, i: usize, j: usize) -> bool {
    i >= c.i0
        && j >= c.j0
        && i < c.i0 + c.width
        && j < c.j0 + c.height
        && c.cover
            .get((j - c.j0) * c.width + (i - c.i0))
            .is_some_and(|&v| v > 0.0)
}

/// Calls `f` with every cell next to (not under) either coverage, row-major, in increasing
/// order, each once.
pub(super) fn ring(a: &Coverage, b: &Coverage, grid: CellGrid, mut f: impl FnMut(usize)) {
    let (wa, wb) = (Window::around(a, grid, 1), Window::around(b, grid, 1));
    let Some(all) = Window::union(wa, wb) else {
        return;
    };
    for j in all.j0..all.j1 {
        for i in all.i0..all.i1 {
            let near = wa.is_some_and(|w| w.has(i, j)) || wb.is_some_and(|w| w.has(i, j));
            if near && !covers(a, i, j) && !covers(b, i, j) {
                f(j * grid.nx + i);
            }
        }
    }
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

/// The highest point of the body `c` covers (`-∞`: it covers nothing).
fn highest(c: &Coverage) -> f32 {
    c.top.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b))
}

/// Gives a floater the surface as if it were not there: under it at least the mean surface
/// of the wet cells around it whose ground lies below its top, which the waves it makes do not
/// yet show (Kellomäki §4: the surface is "allowed to go through the floating object"); a
/// bank above it is no water it floats in. `around` is scratch space.
pub(super) fn see_through(
    c: &Coverage,
    grid: CellGrid,
    water: &mut WaterCopy,
    around: &mut Vec<f32>,
) {
    around.clear();
    let top = highest(c);
    ring(c, c, grid, |k| {
        if water.depth[k] > 1e-3 && water.surface[k] - water.depth[k] < top {
            around.push(water.surface[k]);
        }
    });
    if around.is_empty() {
        return;
    }
    let level = around.iter().sum::<f32>() / around.len() as f32;
    covered(c, grid, |k| water.surface[k] = water.surface[k].max(level));
}

/// The water a floater pushes aside between its last coverage `previous` and its coverage
/// `now` (Thürey et al.): the change of its submerged volume per cell, both measured against
/// the water copy's `surface` as it is, is taken from (or given to) the cell, no cell giving
/// more than it holds, and the net goes to the ring of cells around the body (water pushed
/// aside in equal shares; water coming back under a risen body from each ring cell in
/// proportion to what it holds, never more, and less of it where the ring holds less). The copy's
/// `depth` is updated (its surface is not read for depth, so the blockers may read it at the
/// same time); every cell's volume (m³ taken, negative: given) is pushed to `moved`. `delta`
/// is scratch space.
pub(super) fn push_aside(
    now: &Coverage,
    previous: &Coverage,
    grid: CellGrid,
    surface: &[f32],
    depth: &mut [f32],
    moved: &mut Vec<(usize, f32)>,
    delta: &mut Vec<f32>,
) {
    let Some(win) = Window::union(
        Window::around(now, grid, 0),
        Window::around(previous, grid, 0),
    ) else {
        return;
    };
    let width = win.i1 - win.i0;
    delta.clear();
    delta.resize(width * (win.j1 - win.j0), 0.0);
    let area = grid.cell_size * grid.cell_size;
    for (c, sign) in [(now, 1.0), (previous, -1.0)] {
        for w in 0..c.window_cells() {
            let (i, j) = (c.i0 + w % c.width, c.j0 + w / c.width);
            if c.cover[w] <= 0.0 || !win.has(i, j) {
                continue;
            }
            let under =
                (surface[j * grid.nx + i] - c.mean_bottom[w]).clamp(0.0, c.thickness[w].max(0.0));
            if under.is_finite() && under > 0.0 {
                delta[(j - win.j0) * width + (i - win.i0)] += sign * c.cover[w] * under * area;
            }
        }
    }
    let mut net = 0.0;
    let start = moved.len();
    for (d, k) in delta.iter().zip(win.cells(grid.nx)) {
        if *d == 0.0 {
            continue;
        }
        // A cell gives no more than it holds (as the copy knows it).
        let taken = d.min(depth[k] * area);
        depth[k] -= taken / area;
        net += taken;
        moved.push((k, taken));
    }
    if moved.len() == start || net == 0.0 {
        return;
    }
    // The ring's cells listed once, after the cells under the body; their share set after.
    // Only cells whose ground lies below the body's top: water pushed onto a bank 3 m up
    // (equal shares) was lifted there from nothing.
    let first = moved.len();
    let top = highest(now).max(highest(previous));
    ring(now, previous, grid, |k| {
        if surface[k] - depth[k] < top {
            moved.push((k, 0.0));
        }
    });
    let count = moved.len() - first;
    if count == 0 {
        // Nowhere to push the water to or take it from: the body moves none.
        for &(k, taken) in &moved[start..] {
            depth[k] += taken / area;
        }
        moved.truncate(start);
        return;
    }
    if net > 0.0 {
        // Water pushed aside: the ring takes equal shares.
        let share = net / count as f32;
        for m in &mut moved[first..] {
            depth[m.0] += share / area;
            m.1 = -share;
        }
        return;
    }
    // The body rose: the ring gives back the water under it, each cell no more than it holds
    // (it gave equal shares, going below dry where it was shallow: water made from nothing).
    let held: f32 = moved[first..]
        .iter()
        .map(|m| depth[m.0].max(0.0) * area)
        .sum();
    let give = (-net).min(held);
    if give < -net {
        // The ring holds less: less water comes back under the body.
        let (mut taken, mut given) = (0.0, 0.0);
        for m in &moved[start..first] {
            if m.1 > 0.0 {
                taken += m.1;
            } else {
                given -= m.1;
            }
        }
        let keep = if given > 0.0 {
            ((taken + give) / given).clamp(0.0, 1.0)
        } else {
            0.0
        };
        for m in &mut moved[start..first] {
            if m.1 < 0.0 {
                let now_given = m.1 * keep;
                depth[m.0] += (m.1 - now_given) / area;
                m.1 = now_given;
            }
        }
    }
    for m in &mut moved[first..] {
        let from = depth[m.0].max(0.0) * area;
        let g = if held > 0.0 {
            give * (from / held)
        } else {
            0.0
        };
        depth[m.0] -= g / area;
        m.1 = g;
    }
}

/// Sums the volumes of each cell listed more than once (bodies side by side), adding them in
/// the order they were listed, and drops cells that end at zero: the list the solver takes,
/// sorted by cell. `keys` is scratch space: each entry's cell and place in the list, sorted
/// as one number (no stable sort of the pairs needed: the place keeps the listed order).
pub(super) fn merge(moved: &mut Vec<(usize, f32)>, keys: &mut Vec<u64>) {
    keys.clear();
    keys.extend(
        moved
            .iter()
            .enumerate()
            .map(|(n, m)| ((m.0 as u64) << 32) | n as u64),
    );
    keys.sort_unstable();
    let mut out = 0;
    let mut n = 0;
    while n < keys.len() {
        let k = keys[n] >> 32;
        let mut sum = 0.0;
        while n < keys.len() && keys[n] >> 32 == k {
            sum += moved[(keys[n] & 0xffff_ffff) as usize].1;
            n += 1;
        }
        if sum != 0.0 {
            keys[out] = (k << 32) | sum.to_bits() as u64;
            out += 1;
        }
    }
    moved.clear();
    moved.extend(
        keys[..out]
            .iter()
            .map(|&w| ((w >> 32) as usize, f32::from_bits(w as u32))),
    );
}

#[cfg(test)]
mod tests {
    use super::merge;

    /// The summed list equals a stable sort by cell and a sum in listed order, bit for bit,
    /// with the cells whose sum cancels dropped.
    #[test]
    fn merge_sums_in_listed_order_and_sorts_by_cell() {
        let mut moved = vec![
            (7, 0.1),
            (3, 1e8),
            (7, 0.2),
            (3, 1.0),
            (5, 0.5),
            (3, -1e8),
            (5, -0.5),
            (9, 0.25),
            (0, -0.0),
        ];
        let mut expected = moved.clone();
        expected.sort_by_key(|m: &(usize, f32)| m.0);
        let mut sums: Vec<(usize, f32)> = Vec::new();
        for (k, v) in expected {
            match sums.last_mut() {
                Some(last) if last.0 == k => last.1 += v,
                _ => sums.push((k, 0.0 + v)),
            }
        }
        sums.retain(|m| m.1 != 0.0);
        let mut keys = Vec::new();
        merge(&mut moved, &mut keys);
        assert_eq!(moved, sums);
        // Cell 3's 1.0 is lost to 1e8 in the listed order and its sum cancels, as 5's does.
        assert_eq!(moved, vec![(7, 0.1f32 + 0.2), (9, 0.25)]);
    }
}
