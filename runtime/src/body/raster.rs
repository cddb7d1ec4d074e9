//! Rasterising a posed mesh from above and below (Kellomäki 2014 §3.3) into blocker columns.
//!
//! Each cell is sampled at `samples × samples` points on a regular sub-grid. At each point a
//! vertical line meets the mesh's triangles: the lowest hit is the body's bottom there, the
//! highest its top (what a depth buffer rendered from below and from above would hold). A cell's
//! column is the lowest bottom and highest top of its hit points, and its cover the share of
//! points hit. Triangles seen edge-on (vertical walls) are skipped: a closed mesh is hit through
//! its top and bottom faces.

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
}

impl Coverage {
    /// Rasterises `mesh` placed by `pose` over `grid` with `samples × samples` points per cell
    /// (clamped to `1..=MAX_SAMPLES`). Parts outside the grid are cut off; a body entirely
    /// outside covers nothing.
    pub fn rasterise(mesh: &TriMesh, pose: &Pose, grid: CellGrid, samples: u32) -> Coverage {
        // The posed corners only: the triangles are the mesh's own.
        let posed = TriMesh {
            positions: mesh.positions.iter().map(|&p| pose.apply(p)).collect(),
            ..TriMesh::default()
        };
        let mut s = samples.clamp(1, MAX_SAMPLES) as usize;
        let dx = grid.cell_size;
        let empty = Coverage {
            cell_size: dx,
            ..Coverage::default()
        };
        let Some((lo, hi)) = posed.bounds() else {
            return empty;
        };
        if dx.is_nan() || dx <= 0.0 || lo.iter().chain(&hi).any(|v| !v.is_finite()) {
            return empty;
        }
        let cell = |v: f32, n: usize| ((v / dx).floor().max(0.0) as usize).min(n);
        let (i0, i1) = (cell(lo[0], grid.nx), cell(hi[0], grid.nx - 1) + 1);
        let (j0, j1) = (cell(lo[1], grid.ny), cell(hi[1], grid.ny - 1) + 1);
        if hi[0] < 0.0 || hi[1] < 0.0 || i0 >= grid.nx || j0 >= grid.ny || i1 <= i0 || j1 <= j0 {
            return empty;
        }
        let (w, h) = (i1 - i0, j1 - j0);
        // A body over a large part of a large map: fewer samples, at most 2^24 of them.
        while s > 1 && w * h * s * s > 1 << 24 {
            s -= 1;
        }
        let (sw, sh) = (w * s, h * s);
        let mut low = vec![f32::INFINITY; sw * sh];
        let mut high = vec![f32::NEG_INFINITY; sw * sh];
        // Corners in sample units of the window: sample (a, b), at world x = (i0·s + a + ½)·step,
        // sits at (a, b). Barycentric weights do not change under this scaling and shift.
        let per_metre = s as f32 / dx;
        let (ox, oy) = ((i0 * s) as f32 + 0.5, (j0 * s) as f32 + 0.5);
        let local = TriMesh {
            positions: posed
                .positions
                .iter()
                .map(|p| [p[0] * per_metre - ox, p[1] * per_metre - oy, p[2]])
                .collect(),
            ..TriMesh::default()
        };
        let flat = 1e-12 * per_metre * per_metre;
        let (top_a, top_b) = (sw as f32, sh as f32);
        for t in &mesh.triangles {
            let Some([p, q, r]) = corners(&local, t) else {
                continue;
            };
            let (x_lo, x_hi) = (p[0].min(q[0]).min(r[0]), p[0].max(q[0]).max(r[0]));
            let (y_lo, y_hi) = (p[1].min(q[1]).min(r[1]), p[1].max(q[1]).max(r[1]));
            let a0 = ceil(x_lo.clamp(-1.0, top_a)).max(0) as usize;
            let a1 = ((floor(x_hi.clamp(-1.0, top_a)) + 1).max(0) as usize).min(sw);
            let b0 = ceil(y_lo.clamp(-1.0, top_b)).max(0) as usize;
            let b1 = ((floor(y_hi.clamp(-1.0, top_b)) + 1).max(0) as usize).min(sh);
            if a0 >= a1 || b0 >= b1 {
                continue;
            }
            let area = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
            if area.abs() < flat {
                continue;
            }
            let inv = 1.0 / area;
            for b in b0..b1 {
                let y = b as f32;
                for a in a0..a1 {
                    let x = a as f32;
                    // Barycentric weights; a point on an edge counts for both triangles.
                    let wq = ((x - p[0]) * (r[1] - p[1]) - (y - p[1]) * (r[0] - p[0])) * inv;
                    let wr = ((q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])) * inv;
                    let wp = 1.0 - wq - wr;
                    if wp < -1e-6 || wq < -1e-6 || wr < -1e-6 {
                        continue;
                    }
                    let z = wp * p[2] + wq * q[2] + wr * r[2];
                    let k = b * sw + a;
                    low[k] = low[k].min(z);
                    high[k] = high[k].max(z);
                }
            }
        }
        let mut out = Coverage {
            i0,
            j0,
            width: w,
            height: h,
            cell_size: dx,
            bottom: vec![f32::INFINITY; w * h],
            top: vec![f32::NEG_INFINITY; w * h],
            cover: vec![0.0; w * h],
            mean_bottom: vec![0.0; w * h],
            thickness: vec![0.0; w * h],
        };
        let per_cell = (s * s) as f32;
        for b in 0..sh {
            for a in 0..sw {
                let k = b * sw + a;
                if low[k] > high[k] {
                    continue;
                }
                let c = (b / s) * w + a / s;
                out.bottom[c] = out.bottom[c].min(low[k]);
                out.top[c] = out.top[c].max(high[k]);
                out.cover[c] += 1.0 / per_cell;
                out.mean_bottom[c] += low[k];
                out.thickness[c] += high[k] - low[k];
            }
        }
        for c in 0..w * h {
            let hits = (out.cover[c] * per_cell).round();
            if hits > 0.0 {
                out.mean_bottom[c] /= hits;
                out.thickness[c] /= hits;
            }
        }
        out
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

    /// Adds the body's columns to `blockers` (merged with any already there). A fully covered
    /// cell blocks the body's whole extent over it (lowest bottom to highest top); a partly
    /// covered one gets the mean column over its covered part, so that the water it displaces
    /// is the body's volume there.
    pub fn add_to(&self, blockers: &mut Blockers) {
        for k in 0..self.window_cells() {
            let c = self.cover[k];
            if c <= 0.0 {
                continue;
            }
            let (i, j) = (self.i0 + k % self.width, self.j0 + k / self.width);
            if c >= BLOCKED_COVER {
                blockers.add_column(i, j, self.bottom[k], self.top[k], c);
            } else {
                let b = self.mean_bottom[k];
                blockers.add_column(i, j, b, b + self.thickness[k], c);
            }
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

fn corners(mesh: &TriMesh, t: &[u32; 3]) -> Option<[[f32; 3]; 3]> {
    let get = |i: u32| mesh.positions.get(i as usize).copied();
    let c = [get(t[0])?, get(t[1])?, get(t[2])?];
    c.iter().flatten().all(|v| v.is_finite()).then_some(c)
}
