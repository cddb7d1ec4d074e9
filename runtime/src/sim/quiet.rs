//! Where a step of the CPU solver can change nothing: dry ground with no water near it.
//!
//! A cell whose depth is exactly `+0.0`, whose four faces carry exactly `+0.0` (discharge and
//! velocity) and whose carry is `+0.0` or below zero comes out of a step exactly as it went
//! in, as long as every cell and face within [`HALO`] cells of it is as quiet: its faces have
//! no wet cross-section, so they accelerate to `+0.0`, its depth stays `+0.0` and its carry
//! stays where it was. The flow pass ([`super::kernel`]) computes each band of rows only over
//! the columns between the first and last cell that is not quiet (widened by [`HALO`]) and
//! writes the quiet values elsewhere; the results are the same bit for bit. Anything else
//! (a negative zero, a film, a border inflow) counts as water.

use super::advect::Momentum;
use super::boundary::Edges;

/// Cells around a cell that is not quiet whose step is still computed. A face between two
/// dry cells has no cross-section and takes nothing from further away, so one cell would do
/// (the test below fails with none and passes with one); four leave a margin.
pub(crate) const HALO: usize = 4;

/// What the scan of a row reads: the state of the step's start.
pub(crate) struct QuietScan<'a> {
    pub nx: usize,
    pub ny: usize,
    pub depth: &'a [f32],
    /// x-face discharges and velocities (`(nx + 1) · ny` each).
    pub qx: &'a [f32],
    pub u: &'a [f32],
    /// y-face discharges and velocities (`nx · (ny + 1)` each).
    pub qy: &'a [f32],
    pub v: &'a [f32],
    /// The accelerated border faces of the step: west, east (`ny`), north, south (`nx`).
    pub borders: [&'a [f32]; 4],
}

impl<'a> QuietScan<'a> {
    /// The scan of a step with momentum advection: the cells' `depth`, the faces' discharges
    /// and velocities `m` advects, and the border faces `edges` accelerated.
    pub(crate) fn of(depth: &'a [f32], m: &Momentum<'a>, edges: &'a Edges) -> Self {
        let f = &edges.faces;
        Self {
            nx: m.grid.nx,
            ny: m.grid.ny,
            depth,
            qx: m.qx,
            u: m.u,
            qy: m.qy,
            v: m.v,
            borders: [&f[0], &f[1], &f[2], &f[3]],
        }
    }
}

/// Whether a value is anything but `+0.0`.
#[inline(always)]
fn water(x: f32) -> bool {
    x.to_bits() != 0
}

/// Cells a scan takes at once: it ORs their bits without a branch, so the loop vectorises,
/// and looks at single cells only inside the chunk where the water starts or ends.
const CHUNK: usize = 64;

/// The first and last (exclusive) column of row `j` whose cell holds water or touches a face
/// that carries any, or `None`. Inlined into the flow pass, so it is compiled for the
/// pass's vector width.
#[inline(always)]
fn row_span(s: &QuietScan, j: usize) -> Option<(usize, usize)> {
    let (nx, w) = (s.nx, s.nx + 1);
    let rows = RowBits {
        depth: &s.depth[j * nx..(j + 1) * nx],
        qx: &s.qx[j * w..(j + 1) * w],
        u: &s.u[j * w..(j + 1) * w],
        qy: [
            &s.qy[j * nx..(j + 1) * nx],
            &s.qy[(j + 1) * nx..(j + 2) * nx],
        ],
        v: [&s.v[j * nx..(j + 1) * nx], &s.v[(j + 1) * nx..(j + 2) * nx]],
        north: (j == 0).then_some(s.borders[2]),
        south: (j + 1 == s.ny).then_some(s.borders[3]),
    };
    let (west, east) = (water(s.borders[0][j]), water(s.borders[1][j]));
    let inside = |forward: bool| rows.end(nx, forward);
    // A border face that carries water wets the cell beside it.
    let first = if west { Some(0) } else { inside(true) };
    let last = if east { Some(nx - 1) } else { inside(false) };
    match (first, last) {
        (Some(a), Some(b)) => Some((a, b + 1)),
        (Some(a), None) => Some((a, a + 1)),
        (None, Some(b)) => Some((b, b + 1)),
        (None, None) => None,
    }
}

/// The rows a scan of one row of cells reads: its depths, its x-faces (`nx + 1`), the
/// y-faces above and below it, and the border faces where it is the first or last row.
struct RowBits<'a> {
    depth: &'a [f32],
    qx: &'a [f32],
    u: &'a [f32],
    qy: [&'a [f32]; 2],
    v: [&'a [f32]; 2],
    north: Option<&'a [f32]>,
    south: Option<&'a [f32]>,
}

impl RowBits<'_> {
    /// The first (`forward`) or last cell of the `nx` that [`Self::any`] finds water at,
    /// a chunk at a time (plain loops: they inline into the flow pass and its vector width).
    #[inline(always)]
    fn end(&self, nx: usize, forward: bool) -> Option<usize> {
        let chunks = nx.div_ceil(CHUNK);
        for n in 0..chunks {
            let k = if forward { n } else { chunks - 1 - n };
            let (a, b) = (k * CHUNK, ((k + 1) * CHUNK).min(nx));
            if self.any(a..b) {
                for m in 0..b - a {
                    let i = if forward { a + m } else { b - 1 - m };
                    if self.any(i..i + 1) {
                        return Some(i);
                    }
                }
            }
        }
        None
    }

    /// Whether any cell of `cells` holds water or touches a face that carries any: one
    /// branch-free loop over equal-length rows, so it vectorises.
    #[inline(always)]
    fn any(&self, cells: std::ops::Range<usize>) -> bool {
        let (a, n) = (cells.start, cells.len());
        let d = &self.depth[a..a + n];
        let (q0, q1) = (&self.qx[a..a + n], &self.qx[a + 1..a + 1 + n]);
        let (u0, u1) = (&self.u[a..a + n], &self.u[a + 1..a + 1 + n]);
        let (y0, y1) = (&self.qy[0][a..a + n], &self.qy[1][a..a + n]);
        let (v0, v1) = (&self.v[0][a..a + n], &self.v[1][a..a + n]);
        let mut bits = 0u32;
        for i in 0..n {
            bits |= d[i].to_bits()
                | q0[i].to_bits()
                | q1[i].to_bits()
                | u0[i].to_bits()
                | u1[i].to_bits()
                | y0[i].to_bits()
                | y1[i].to_bits()
                | v0[i].to_bits()
                | v1[i].to_bits();
        }
        for edge in [self.north, self.south].into_iter().flatten() {
            bits |= edge[a..a + n].iter().fold(0, |m, x| m | x.to_bits());
        }
        bits != 0
    }
}

/// Whether a carry changes its cell's depth in a step: above zero, or a negative zero (which
/// the update turns into `+0.0`).
#[inline(always)]
fn moving(c: f32) -> bool {
    let bits = c.to_bits();
    (bits as i32) > 0 || bits == 0x8000_0000
}

/// The first and last (exclusive) cell of `carry` (a row, or part of one) whose carry
/// [`moves`](moving), scanned a chunk at a time.
#[inline(always)]
fn moving_span(carry: &[f32]) -> Option<(usize, usize)> {
    let n = carry.len();
    let any = |a: usize, b: usize| carry[a..b].iter().fold(false, |m, &c| m | moving(c));
    let end = |forward: bool| {
        let chunks = n.div_ceil(CHUNK);
        for m in 0..chunks {
            let k = if forward { m } else { chunks - 1 - m };
            let (a, b) = (k * CHUNK, ((k + 1) * CHUNK).min(n));
            if any(a, b) {
                for m in 0..b - a {
                    let i = if forward { a + m } else { b - 1 - m };
                    if moving(carry[i]) {
                        return Some(i);
                    }
                }
            }
        }
        None
    };
    let first = end(true)?;
    let last = end(false).unwrap_or(first);
    Some((first, last + 1))
}

/// The columns `lo..hi` a step computes for the band of rows `j0..j1`, whose carries
/// (`carry`, the band's rows) it updates: every cell within [`HALO`] rows and columns of one
/// that is not quiet; the whole width `(0, nx)` where that is most of it (no gain in
/// narrowing), `None` where nothing in the band can change.
#[inline(always)]
pub(crate) fn band_window(
    s: &QuietScan,
    j0: usize,
    j1: usize,
    carry: &[f32],
) -> Option<(usize, usize)> {
    let nx = s.nx;
    let mut span: Option<(usize, usize)> = None;
    let widen = |span: &mut Option<(usize, usize)>, (lo, hi): (usize, usize)| {
        *span = Some(span.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
    };
    for j in j0.saturating_sub(HALO)..(j1 + HALO).min(s.ny) {
        if let Some(cells) = row_span(s, j) {
            widen(&mut span, cells);
        }
    }
    // A carry above zero (or a negative zero) changes its own cell's depth: looked for only
    // where the rows found no water.
    let (lo, hi) = span.unwrap_or((nx, nx));
    for row in carry.chunks_exact(nx) {
        if let Some(cells) = moving_span(&row[..lo]) {
            widen(&mut span, cells);
        }
        if let Some((a, b)) = moving_span(&row[hi..]) {
            widen(&mut span, (hi + a, hi + b));
        }
    }
    let (lo, hi) = span?;
    let (lo, hi) = (lo.saturating_sub(HALO), (hi + HALO).min(nx));
    if 4 * (hi - lo) >= 3 * nx {
        Some((0, nx))
    } else {
        Some((lo, hi))
    }
}

#[cfg(test)]
mod tests {
    use crate::grid::Grid;
    use crate::level::{
        Boundary, BoundaryKind, CrossSection, Edge, Friction, Level, Shape, SolverKind, Source,
        SourceKind,
    };
    use crate::sim::Simulation;

    /// A bumpy 150 × 90 valley: a lake in the south of the west third, dry ground around it
    /// with rivers coming in at the north and west edges and a spring in the dry ground, open
    /// edges (each band of rows computes only its western part while the east stays dry).
    fn valley(friction: Friction) -> Level {
        let mut level = Level::flat(150, 90, 1.0, 0.0);
        level.terrain = Grid::from_fn(150, 90, |i, j| {
            let (x, y) = (i as f32 / 150.0, j as f32 / 90.0);
            4.0 * (6.0 * x).sin() * (5.0 * y).cos() + 3.0 * x
        });
        level.water = Grid::from_fn(150, 90, |i, j| {
            let b = level.terrain.get(i, j);
            if i < 50 && j >= 45 {
                (6.0 - b).max(0.0)
            } else {
                0.0
            }
        });
        level.params.solver = SolverKind::Pipes;
        level.params.pipe_advection = true;
        level.params.cross_section = CrossSection::FaceDepth;
        level.params.friction = friction;
        level.params.default_boundary = BoundaryKind::Open;
        level.boundaries.push(Boundary {
            edge: Edge::North,
            start: 60,
            end: 64,
            kind: BoundaryKind::Inflow { m3_per_s: 3.0 },
        });
        level.boundaries.push(Boundary {
            edge: Edge::West,
            start: 10,
            end: 14,
            kind: BoundaryKind::Inflow { m3_per_s: 2.0 },
        });
        level.sources.push(Source {
            name: "spring".into(),
            shape: Shape::Point { x: 85.5, y: 60.5 },
            kind: SourceKind::Rate { m3_per_s: 0.5 },
            enabled: true,
        });
        level
    }

    #[test]
    fn only_plus_zero_is_quiet() {
        let (nx, ny) = (200, 16);
        let cells = vec![0.0f32; nx * ny];
        let (xf, yf) = (vec![0.0f32; (nx + 1) * ny], vec![0.0f32; nx * (ny + 1)]);
        let (west, east, north) = (vec![0.0f32; ny], vec![0.0f32; ny], vec![0.0f32; nx]);
        let scan = |depth: &[f32], qx: &[f32], west: &[f32], carry: &[f32]| {
            let s = super::QuietScan {
                nx,
                ny,
                depth,
                qx,
                u: &xf,
                qy: &yf,
                v: &yf,
                borders: [west, &east, &north, &north],
            };
            super::band_window(&s, 0, ny, carry)
        };
        let mut carry = vec![-1e-9f32; nx * ny];
        assert_eq!(scan(&cells, &xf, &west, &carry), None);
        carry[5 * nx + 150] = 1e-9;
        assert_eq!(scan(&cells, &xf, &west, &carry), Some((146, 155)));
        carry[5 * nx + 150] = -0.0;
        assert_eq!(scan(&cells, &xf, &west, &carry), Some((146, 155)));
        let mut depth = cells.clone();
        depth[3 * nx + 20] = -0.0;
        assert_eq!(scan(&depth, &xf, &west, &carry), Some((16, 155)));
        let mut qx = xf.clone();
        qx[9 * (nx + 1) + 100] = 1e-30;
        assert_eq!(
            scan(&cells, &qx, &west, &vec![0.0; nx * ny]),
            Some((95, 105))
        );
        let mut inflow = west.clone();
        inflow[2] = 0.5;
        assert_eq!(
            scan(&cells, &xf, &inflow, &vec![0.0; nx * ny]),
            Some((0, 5))
        );
    }

    #[test]
    fn skipping_dry_ground_leaves_the_water_the_same_bit_for_bit() {
        let physics = [
            (SolverKind::Pipes, Friction::Manning { n: 0.03 }),
            (SolverKind::Pipes, Friction::NONE),
            (SolverKind::Swe, Friction::Manning { n: 0.03 }),
            (SolverKind::Swe, Friction::NONE),
        ];
        for (solver, friction) in physics {
            let mut level = valley(friction);
            level.params.solver = solver;
            let mut skipping = Simulation::new(&level).unwrap();
            let mut whole = Simulation::new(&level).unwrap();
            whole.set_skip_dry(false);
            let dt = level.params.dt;
            let mut driest = 0;
            for round in 0..6 {
                for _ in 0..50 {
                    skipping.step(dt).unwrap();
                    whole.step(dt).unwrap();
                }
                let (a, b) = (skipping.bake_into(&level), whole.bake_into(&level));
                assert_eq!(
                    a.state_hash(),
                    b.state_hash(),
                    "{solver:?}, {friction:?}, after {} steps",
                    50 * (round + 1)
                );
                let dry = skipping.depth().iter().filter(|&&d| d == 0.0).count();
                driest = driest.max(dry);
            }
            // Much of the valley was dry for a while, so the skipping had columns to leave out.
            assert!(driest > 150 * 90 / 3, "{driest} dry cells at most");
        }
    }
}
