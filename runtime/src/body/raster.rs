//! Rasterising a posed mesh from above and below (Kellomäki 2014 §3.3) into blocker columns.
//!
//! Each cell is sampled at `samples × samples` points on a regular sub-grid. At each point a
//! vertical line meets the mesh's triangles: the lowest hit is the body's bottom there, the
//! highest its top (what a depth buffer rendered from below and from above would hold). A cell's
//! column spans the lowest bottom and highest top of its hit points, with the mean bottom and
//! mean thickness of the hit points beside them, and its cover is the share of points hit.
//! Triangles seen edge-on (vertical walls) are skipped: a closed mesh is hit through its top and
//! bottom faces.

use super::{Pose, TriMesh};
use crate::sim::blocking::{BLOCKED_COVER, Blockers};

/// The most sub-samples per cell side.
pub const MAX_SAMPLES: u32 = 8;

/// The grid the water lives on: `nx × ny` cells of `cell_size` metres, cell `(0, 0)` at the
/// world origin corner.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CellGrid {
    /// Cells along x.
    pub nx: usize,
    /// Cells along y.
    pub ny: usize,
    /// Cell edge length, metres.
    pub cell_size: f32,
}

/// One body's blocker columns over a window of cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coverage {
    /// First covered column of the window.
    pub i0: usize,
    /// First covered row of the window.
    pub j0: usize,
    /// Window width, cells.
    pub width: usize,
    /// Window height, cells.
    pub height: usize,
    /// Cell size, metres.
    pub cell_size: f32,
    /// Lowest point of the body over each window cell (metres; `+∞` where uncovered).
    pub bottom: Vec<f32>,
    /// Highest point over each window cell (metres; `-∞` where uncovered).
    pub top: Vec<f32>,
    /// Share of the cell the body covers seen from above, 0..1.
    pub cover: Vec<f32>,
    /// Mean bottom height over the covered part of each cell (metres; 0 where uncovered).
    pub mean_bottom: Vec<f32>,
    /// Mean thickness of the body over the covered part of each cell (metres): with `cover`
    /// and the cell area, the body's volume over the cell.
    pub thickness: Vec<f32>,
    /// Where the body's volume over each cell stands, world x and y (metres): its samples'
    /// mean weighted by thickness, where the water's forces on the cell act (a log off the
    /// middle of its cells felt its lift at their centres: a roll of 0.3 m × its weight).
    pub centre: Vec<[f32; 2]>,
}

impl Coverage {
    /// Rasterises `mesh` placed by `pose` over `grid` with `samples × samples` points per cell
    /// (clamped to `1..=MAX_SAMPLES`). Parts outside the grid are cut off; a body entirely
    /// outside covers nothing.
    pub fn rasterise(mesh: &TriMesh, pose: &Pose, grid: CellGrid, samples: u32) -> Coverage {
        let mut out = Coverage::default();
        out.rasterise_into(mesh, pose, grid, samples);
        out
    }

    /// [`Coverage::rasterise`] into this coverage, reusing its buffers (a body rasterised
    /// every step allocates nothing once its buffers are big enough).
    pub fn rasterise_into(&mut self, mesh: &TriMesh, pose: &Pose, grid: CellGrid, samples: u32) {
        SCRATCH.with_borrow_mut(|scratch| self.rasterise_with(scratch, mesh, pose, grid, samples))
    }

    fn rasterise_with(
        &mut self,
        scratch: &mut Scratch,
        mesh: &TriMesh,
        pose: &Pose,
        grid: CellGrid,
        samples: u32,
    ) {
        let dx = grid.cell_size;
        self.clear(dx);
        // The posed corners only: the triangles are the mesh's own.
        let local = &mut scratch.local;
        pose.apply_all(&mesh.positions, local);
        let mut s = samples.clamp(1, MAX_SAMPLES) as usize;
        let Some((lo, hi)) = bounds(local) else {
            return;
        };
        if dx.is_nan()
            || dx <= 0.0
            || grid.nx == 0
            || grid.ny == 0
            || lo.iter().chain(&hi).any(|v| !v.is_finite())
        {
            return;
        }
        let cell = |v: f32, n: usize| ((v / dx).floor().max(0.0) as usize).min(n);
        let (i0, i1) = (cell(lo[0], grid.nx), cell(hi[0], grid.nx - 1) + 1);
        let (j0, j1) = (cell(lo[1], grid.ny), cell(hi[1], grid.ny - 1) + 1);
        if hi[0] < 0.0 || hi[1] < 0.0 || i0 >= grid.nx || j0 >= grid.ny || i1 <= i0 || j1 <= j0 {
            return;
        }
        let (w, h) = (i1 - i0, j1 - j0);
        // A body over a large part of a large map: fewer samples, at most 2^24 of them.
        while s > 1 && w * h * s * s > 1 << 24 {
            s -= 1;
        }
        let (sw, sh) = (w * s, h * s);
        let (low, high) = (&mut scratch.low, &mut scratch.high);
        low.clear();
        low.resize(sw * sh, f32::INFINITY);
        high.clear();
        high.resize(sw * sh, f32::NEG_INFINITY);
        // Corners in sample units of the window: sample (a, b), at world x = (i0·s + a + ½)·step,
        // sits at (a, b). Barycentric weights do not change under this scaling and shift.
        let per_metre = s as f32 / dx;
        let (ox, oy) = ((i0 * s) as f32 + 0.5, (j0 * s) as f32 + 0.5);
        let (top_a, top_b) = (sw as f32, sh as f32);
        // Each corner's sample range along x and y: the first sample column (row) at or after
        // it and the last at or before it, so a triangle's samples lie between its corners'
        // (ceil and floor commute with min and max: the same range as from its bounds).
        let reach = &mut scratch.reach;
        reach.clear();
        let mut finite = true;
        for p in local.iter_mut() {
            *p = [p[0] * per_metre - ox, p[1] * per_metre - oy, p[2]];
            finite &= p.iter().all(|v| v.is_finite());
            let (x, y) = (p[0].clamp(-1.0, top_a), p[1].clamp(-1.0, top_b));
            reach.push([ceil(x), floor(x), ceil(y), floor(y)]);
        }
        // The triangles that hold a sample, with their sample windows, without a branch per
        // triangle (most of a fine mesh's triangles lie between the samples).
        let hits = &mut scratch.hits;
        hits.clear();
        hits.resize(mesh.triangles.len(), (0, [0; 4]));
        let mut n = 0;
        for (k, t) in mesh.triangles.iter().enumerate() {
            let [Some(p), Some(q), Some(r)] = t.map(|i| reach.get(i as usize)) else {
                continue;
            };
            let a0 = p[0].min(q[0]).min(r[0]).max(0);
            let a1 = (p[1].max(q[1]).max(r[1]) + 1).max(0).min(sw as i32);
            let b0 = p[2].min(q[2]).min(r[2]).max(0);
            let b1 = (p[3].max(q[3]).max(r[3]) + 1).max(0).min(sh as i32);
            hits[n] = (k as u32, [a0, a1, b0, b1]);
            n += usize::from(a0 < a1 && b0 < b1);
        }
        let flat = 1e-12 * per_metre * per_metre;
        for &(k, [a0, a1, b0, b1]) in &hits[..n] {
            let Some([p, q, r]) = corners(local, &mesh.triangles[k as usize], finite) else {
                continue;
            };
            let (a0, a1, b0, b1) = (a0 as usize, a1 as usize, b0 as usize, b1 as usize);
            let area = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
            if area.abs() < flat {
                continue;
            }
            let inv = 1.0 / area;
            for b in b0..b1 {
                let y = b as f32;
                let row = b * sw;
                let (low, high) = (&mut low[row + a0..row + a1], &mut high[row + a0..row + a1]);
                for (a, (lo, hi)) in (a0..a1).zip(low.iter_mut().zip(high.iter_mut())) {
                    let x = a as f32;
                    // Barycentric weights; a point on an edge counts for both triangles.
                    let wq = ((x - p[0]) * (r[1] - p[1]) - (y - p[1]) * (r[0] - p[0])) * inv;
                    let wr = ((q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])) * inv;
                    let wp = 1.0 - wq - wr;
                    if wp < -1e-6 || wq < -1e-6 || wr < -1e-6 {
                        continue;
                    }
                    let z = wp * p[2] + wq * q[2] + wr * r[2];
                    *lo = lo.min(z);
                    *hi = hi.max(z);
                }
            }
        }
        self.i0 = i0;
        self.j0 = j0;
        self.width = w;
        self.height = h;
        let cells = w * h;
        self.bottom.resize(cells, f32::INFINITY);
        self.top.resize(cells, f32::NEG_INFINITY);
        self.cover.resize(cells, 0.0);
        self.mean_bottom.resize(cells, 0.0);
        self.thickness.resize(cells, 0.0);
        self.centre.resize(cells, [0.0; 2]);
        let per_cell = (s * s) as f32;
        let step = dx / s as f32;
        // Cell by cell, each cell's samples row by row (the order the sums are taken in).
        for cb in 0..h {
            for ca in 0..w {
                let c = cb * w + ca;
                // Sample positions summed plain and weighted by thickness.
                let (mut plain, mut weighted, mut weight) = ([0.0f32; 2], [0.0f32; 2], 0.0f32);
                for b in cb * s..cb * s + s {
                    let row = b * sw + ca * s;
                    let y = ((j0 * s + b) as f32 + 0.5) * step;
                    for (a, k) in (ca * s..).zip(row..row + s) {
                        if low[k] > high[k] {
                            continue;
                        }
                        let x = ((i0 * s + a) as f32 + 0.5) * step;
                        let t = high[k] - low[k];
                        self.bottom[c] = self.bottom[c].min(low[k]);
                        self.top[c] = self.top[c].max(high[k]);
                        self.cover[c] += 1.0 / per_cell;
                        self.mean_bottom[c] += low[k];
                        self.thickness[c] += t;
                        plain = [plain[0] + x, plain[1] + y];
                        weighted = [weighted[0] + t * x, weighted[1] + t * y];
                        weight += t;
                    }
                }
                let hits = (self.cover[c] * per_cell).round();
                if hits > 0.0 {
                    self.mean_bottom[c] /= hits;
                    self.thickness[c] /= hits;
                    self.centre[c] = if weight > 0.0 {
                        weighted.map(|v| v / weight)
                    } else {
                        plain.map(|v| v / hits)
                    };
                }
            }
        }
    }

    /// No cells, buffers kept.
    fn clear(&mut self, cell_size: f32) {
        self.i0 = 0;
        self.j0 = 0;
        self.width = 0;
        self.height = 0;
        self.cell_size = cell_size;
        self.bottom.clear();
        self.top.clear();
        self.cover.clear();
        self.mean_bottom.clear();
        self.thickness.clear();
        self.centre.clear();
    }

    /// Whether the body covers no cell.
    pub fn is_empty(&self) -> bool {
        self.cover.iter().all(|&c| c <= 0.0)
    }

    /// Number of window cells every per-cell vector really holds (a coverage built by hand
    /// with short vectors is read only that far).
    pub fn window_cells(&self) -> usize {
        (self.width.saturating_mul(self.height))
            .min(self.bottom.len())
            .min(self.top.len())
            .min(self.cover.len())
            .min(self.mean_bottom.len())
            .min(self.thickness.len())
    }

    /// The covered cells: `(i, j, bottom, top, cover)` in grid coordinates.
    pub fn cells(&self) -> impl Iterator<Item = (usize, usize, f32, f32, f32)> + '_ {
        (0..self.window_cells()).filter_map(move |k| {
            let c = self.cover[k];
            (c > 0.0).then(|| {
                let (a, b) = (k % self.width, k / self.width);
                (self.i0 + a, self.j0 + b, self.bottom[k], self.top[k], c)
            })
        })
    }

    /// Volume of the body from its samples, `Σ cover · thickness · cell²` (m³): exact for a
    /// body convex along the vertical, up to the sampling.
    pub fn volume(&self) -> f64 {
        let area = (self.cell_size as f64).powi(2);
        self.cover
            .iter()
            .zip(&self.thickness)
            .map(|(&c, &t)| c as f64 * t as f64 * area)
            .sum()
    }

    /// Adds the body's columns to `blockers` (merged with any already there), each as thick as
    /// the body's mean thickness over the cell, so that the water it displaces is the body's
    /// volume there. A fully covered cell's column stands on the body's lowest point over it
    /// (no water passes under a body where it touches the ground); a partly covered one's on
    /// the mean bottom of its covered part. (A fully covered cell once blocked the body's whole
    /// extent over it, lowest bottom to highest top: a log resting on a lake bed then displaced
    /// up to 8.11 % more than its volume, by where the cells met its round flanks.)
    pub fn add_to(&self, blockers: &mut Blockers) {
        for k in 0..self.window_cells() {
            let c = self.cover[k];
            if c <= 0.0 {
                continue;
            }
            let (i, j) = (self.i0 + k % self.width, self.j0 + k / self.width);
            let b = if c >= BLOCKED_COVER {
                self.bottom[k]
            } else {
                self.mean_bottom[k]
            };
            blockers.add_column(i, j, b, b + self.thickness[k], c);
        }
    }
}

/// `⌊v⌋` of a value clamped to the sample range (`-1..=n`, so it fits an `i32`), without the
/// library call `f32::floor` costs on targets without SSE 4.1.
fn floor(v: f32) -> i32 {
    let t = v as i32;
    if (t as f32) > v { t - 1 } else { t }
}

/// `⌈v⌉` of a value clamped to the sample range, as [`floor`].
fn ceil(v: f32) -> i32 {
    let t = v as i32;
    if (t as f32) < v { t + 1 } else { t }
}

/// The corners of triangle `t`, `None` where an index is out of range or (unless every
/// position is known to be `finite`) a corner is not finite.
fn corners(positions: &[[f32; 3]], t: &[u32; 3], finite: bool) -> Option<[[f32; 3]; 3]> {
    let get = |i: u32| positions.get(i as usize).copied();
    let c = [get(t[0])?, get(t[1])?, get(t[2])?];
    (finite || c.iter().flatten().all(|v| v.is_finite())).then_some(c)
}

/// Lowest and highest corner of `points` per axis, as [`TriMesh::bounds`].
fn bounds(points: &[[f32; 3]]) -> Option<([f32; 3], [f32; 3])> {
    let first = *points.first()?;
    Some(points.iter().fold((first, first), |(lo, hi), p| {
        (
            [lo[0].min(p[0]), lo[1].min(p[1]), lo[2].min(p[2])],
            [hi[0].max(p[0]), hi[1].max(p[1]), hi[2].max(p[2])],
        )
    }))
}

/// Per-thread buffers of the rasteriser: the corners in sample units, their sample ranges, the
/// triangles that hold a sample and each sample's lowest and highest hit.
#[derive(Default)]
struct Scratch {
    local: Vec<[f32; 3]>,
    low: Vec<f32>,
    high: Vec<f32>,
    /// Each corner's first and last sample column and row ([`Coverage::rasterise`]).
    reach: Vec<[i32; 4]>,
    /// The triangles holding a sample and their sample windows.
    hits: Vec<(u32, [i32; 4])>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}
