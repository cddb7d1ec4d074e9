//! Reading gauges ([`crate::level::Gauge`]): the stage (depth and surface) at a point and the
//! discharge across a line. A discharge line counts the faces between the cells whose centres
//! lie on opposite sides of it (a staircase of cell sides along the line, within its length),
//! so what it reads is exactly the water crossing that staircase: a steady river's inflow,
//! whatever the line's angle. A line on the map's edge (or within half a cell of it) counts
//! the edge's own faces: the water leaving over an open edge, or entering from an inflow.

use super::Simulation;
use crate::level::GaugeKind;

/// A face of the grid: an x-face (between columns, index into the `(nx+1)·ny` x-discharges) or
/// a y-face (between rows, index into the `nx·(ny+1)` y-discharges).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Face {
    /// An x-face.
    X(usize),
    /// A y-face.
    Y(usize),
}

/// What a gauge reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GaugeReading {
    /// Depth and water surface at the gauge's cell, metres.
    Stage {
        /// Depth, metres.
        depth: f32,
        /// Terrain plus depth, metres.
        surface: f32,
    },
    /// Discharge across the line, m³/s, positive along `(to − from)` turned a quarter
    /// anticlockwise as the map is drawn (eastward for a line drawn from north to south).
    Discharge(f32),
}

impl GaugeReading {
    /// The value plotted: the surface of a stage gauge, the discharge of a line.
    pub fn value(self) -> f32 {
        match self {
            GaugeReading::Stage { surface, .. } => surface,
            GaugeReading::Discharge(q) => q,
        }
    }
}

/// The cell of world point `(x, y)` in an `nx × ny` grid of `dx` metre cells (clamped).
pub fn cell_of(x: f32, y: f32, nx: usize, ny: usize, dx: f32) -> usize {
    let i = ((x / dx).floor().max(0.0) as usize).min(nx - 1);
    let j = ((y / dx).floor().max(0.0) as usize).min(ny - 1);
    j * nx + i
}

/// The faces a discharge line from `from` to `to` counts in an `nx × ny` grid of `dx` metre
/// cells, each with the sign that makes flow across the line in its positive direction
/// positive.
pub fn line_faces(nx: usize, ny: usize, dx: f32, from: [f32; 2], to: [f32; 2]) -> Vec<(Face, f32)> {
    let d = [to[0] - from[0], to[1] - from[1]];
    let len2 = d[0] * d[0] + d[1] * d[1];
    if len2.is_nan() || len2 <= 0.0 || nx == 0 || ny == 0 {
        return Vec::new();
    }
    // The positive side: `d` turned a quarter anticlockwise as the map is drawn (x right, y
    // down).
    let n = [d[1], -d[0]];
    let side = |p: [f32; 2]| n[0] * (p[0] - from[0]) + n[1] * (p[1] - from[1]) >= 0.0;
    let along = |p: [f32; 2]| {
        let t = ((p[0] - from[0]) * d[0] + (p[1] - from[1]) * d[1]) / len2;
        (0.0..=1.0).contains(&t)
    };
    // Cells by signed index: -1 and n are the ghosts past the map's edges, so a line on the
    // edge or within half a cell of it counts the outer faces, where the water leaves or
    // enters the map.
    let centre = |i: isize, j: isize| [(i as f32 + 0.5) * dx, (j as f32 + 0.5) * dx];
    let (nxi, nyi) = (nx as isize, ny as isize);
    let cell = |v: f32, count: isize| ((v / dx).floor().max(-1.0) as isize).min(count);
    let (i0, i1) = (
        (cell(from[0].min(to[0]), nxi) - 1).max(-1),
        (cell(from[0].max(to[0]), nxi) + 1).min(nxi),
    );
    let (j0, j1) = (
        (cell(from[1].min(to[1]), nyi) - 1).max(-1),
        (cell(from[1].max(to[1]), nyi) + 1).min(nyi),
    );
    let mut faces = Vec::new();
    for j in j0..=j1 {
        for i in i0..=i1 {
            let c = centre(i, j);
            // The x-face between columns i and i + 1, on a row of the map.
            if i < i1 && (0..nyi).contains(&j) {
                let r = centre(i + 1, j);
                let mid = [(i + 1) as f32 * dx, c[1]];
                if side(c) != side(r) && along(mid) {
                    let k = j as usize * (nx + 1) + (i + 1) as usize;
                    faces.push((Face::X(k), if side(r) { 1.0 } else { -1.0 }));
                }
            }
            // The y-face between rows j and j + 1, on a column of the map.
            if j < j1 && (0..nxi).contains(&i) {
                let b = centre(i, j + 1);
                let mid = [c[0], (j + 1) as f32 * dx];
                if side(c) != side(b) && along(mid) {
                    let k = (j + 1) as usize * nx + i as usize;
                    faces.push((Face::Y(k), if side(b) { 1.0 } else { -1.0 }));
                }
            }
        }
    }
    faces
}

impl Simulation {
    /// What gauge `kind` reads now.
    pub fn gauge(&self, kind: &GaugeKind) -> GaugeReading {
        match *kind {
            GaugeKind::Stage { x, y } => {
                let k = cell_of(x, y, self.nx, self.ny, self.dx);
                GaugeReading::Stage {
                    depth: self.depth[k],
                    surface: self.terrain[k] + self.depth[k],
                }
            }
            GaugeKind::Discharge { from, to } => {
                let q = line_faces(self.nx, self.ny, self.dx, from, to)
                    .into_iter()
                    .map(|(face, sign)| {
                        sign * match face {
                            Face::X(k) => self.qx[k],
                            Face::Y(k) => self.qy[k],
                        }
                    })
                    .sum();
                GaugeReading::Discharge(q)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_across_columns_counts_one_x_face_per_row_it_spans() {
        // From north to south at x = 10.3 m across rows 2..=5 of 1 m cells: the x-faces at
        // x = 10 m (between columns 9 and 10) of those rows, eastward positive.
        let faces = line_faces(20, 10, 1.0, [10.3, 2.2], [10.3, 5.8]);
        let want: Vec<(Face, f32)> = (2..=5).map(|j| (Face::X(j * 21 + 10), 1.0)).collect();
        assert_eq!(faces, want);
        // Drawn the other way round, the sign turns.
        let back = line_faces(20, 10, 1.0, [10.3, 5.8], [10.3, 2.2]);
        assert!(back.iter().all(|(_, s)| *s == -1.0));
    }

    #[test]
    fn a_diagonal_line_cuts_a_staircase() {
        let faces = line_faces(30, 30, 1.0, [5.0, 5.0], [15.0, 15.0]);
        let x = faces
            .iter()
            .filter(|(f, _)| matches!(f, Face::X(_)))
            .count();
        let y = faces.len() - x;
        assert!(x >= 9 && y >= 9, "{faces:?}");
    }
}
