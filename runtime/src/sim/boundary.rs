//! Edge conditions: walls, open (absorbing) edges, fixed outside levels and inflows.
//!
//! Each edge cell has one condition. Open and fixed-level edges put a ghost cell outside the
//! map whose terrain equals the edge cell's; the border face between them is accelerated like
//! an interior pipe, with the bed friction of the edge cell on a fixed-level edge (an open
//! edge's face has no bed to rub on). An open edge's ghost surface
//! follows Müller's radiation rule (seed 004): `g_new = (c·dt·u + g·dx) / (dx + c·dt)` with
//! `c = sqrt(g·h)`, so waves leave the map.
//!
//! An open edge is also an outfall. Where the water next to it flows out of the map as a river
//! (Froude number at least [`OPEN_FROUDE`]), the border face carries on the flow of the face
//! behind it (zero gradient, scaled by the ratio
//! of the two depths it leaves), so a steady river leaves at its own depth: the normal depth of
//! a uniform river, or whatever depth a supercritical one arrives with. Where the water next to
//! it is still or flows inward, the ghost column absorbs waves as before. A fixed-level edge
//! imposes its outside level while the water leaving through it is subcritical (what a river
//! needs downstream when its outlet level is known: SWASHES' outflow condition); where the
//! water arrives supercritical (Froude ≥ 1) no downstream level can hold it, and the edge lets
//! it out like an open one.

use crate::level::{Boundary, BoundaryKind, CrossSection, Edge, Level};

use super::friction::BedFriction;
use super::kernel::PassGrid;
use super::pipes::section;
use super::swe::DRY;

/// The condition of one edge cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum EdgeCell {
    /// No flow.
    Wall,
    /// Absorbing edge with a ghost column.
    Open,
    /// Outside water stands at this surface height.
    Fixed(f32),
    /// Fixed discharge into the map through this cell's border face, m³/s.
    Inflow(f32),
}

/// Conditions, ghost surfaces and border-face discharges of the four edges, in the order
/// West, East, North, South (`Edge::ALL`).
#[derive(Clone, Debug)]
pub(crate) struct Edges {
    pub cells: [Vec<EdgeCell>; 4],
    /// Ghost surface height per edge cell (used by open edges).
    pub ghost: [Vec<f32>; 4],
    /// Limited border discharges of the last step, positive along +x / +y.
    pub q: [Vec<f32>; 4],
    /// Accelerated, unlimited border discharges for the step under way.
    pub faces: [Vec<f32>; 4],
    /// Segments that follow a schedule.
    pub schedules: Vec<EdgeSchedule>,
}

/// The edge cell `k` of `edge` as a grid cell index.
#[inline]
pub(crate) fn edge_cell(edge: usize, k: usize, nx: usize, ny: usize) -> usize {
    match edge {
        0 => k * nx,
        1 => k * nx + nx - 1,
        2 => k,
        _ => (ny - 1) * nx + k,
    }
}

/// The outfall discharge (m³/s, out of the map) of open edge cell `k` of `edge`: where the
/// face behind the edge cell carried water toward the edge in the last step, the same flow
/// scaled by the edge cell's depth over the depth it came from (zero gradient of the speed; the
/// ratio at most [`MAX_OUTFALL_RATIO`], so a deep pool at the edge cannot empty in one step
/// because a thin stream runs into it). `None` where that face is still or flows inward, the
/// cell behind is dry, or the water behind leaves at a Froude number below `min_froude`
/// ([`OPEN_FROUDE`] for open edges, so a wave on still water, whose Froude number is its
/// relative height, is left to the ghost column; 1 for fixed-level edges).
#[inline]
fn outfall(
    edge: usize,
    k: usize,
    depth: &[f32],
    (qx, qy): (&[f32], &[f32]),
    grid: PassGrid,
    (gravity, min_froude): (f32, f32),
) -> Option<f32> {
    let PassGrid { nx, ny, dx, .. } = grid;
    let c = edge_cell(edge, k, nx, ny);
    // The face between the edge cell and the one behind it, and that cell.
    let (q_behind, behind) = match edge {
        0 => (-qx[k * (nx + 1) + 1], c + 1),
        1 => (qx[k * (nx + 1) + nx - 1], c - 1),
        2 => (-qy[nx + k], c + nx),
        _ => (qy[(ny - 1) * nx + k], c - nx),
    };
    let (d_edge, d_behind) = (depth[c], depth[behind]);
    // u ≥ Fr·sqrt(g·h), squared: q² ≥ Fr²·g·h³·dx².
    let leaves = q_behind * q_behind
        >= min_froude * min_froude * gravity * d_behind * d_behind * d_behind * dx * dx;
    (q_behind > 0.0 && d_behind > DRY && leaves)
        .then(|| q_behind * (d_edge / d_behind).min(MAX_OUTFALL_RATIO))
}

/// The largest ratio of the edge cell's depth to the depth behind it that an outfall uses.
pub(crate) const MAX_OUTFALL_RATIO: f32 = 2.0;

/// The Froude number from which water flowing out of an open edge is a river leaving (an
/// outfall) rather than a wave passing (the ghost column).
pub(crate) const OPEN_FROUDE: f32 = 0.1;

/// Sign that turns a discharge into the map into a +x / +y discharge on this edge.
#[inline]
fn inward(edge: usize) -> f32 {
    if edge == 0 || edge == 2 { 1.0 } else { -1.0 }
}

fn edge_index(e: Edge) -> usize {
    match e {
        Edge::West => 0,
        Edge::East => 1,
        Edge::North => 2,
        Edge::South => 3,
    }
}

fn condition(kind: &BoundaryKind, cells_in_segment: usize) -> EdgeCell {
    match kind {
        BoundaryKind::Wall => EdgeCell::Wall,
        BoundaryKind::Open => EdgeCell::Open,
        BoundaryKind::FixedLevel { surface } => EdgeCell::Fixed(*surface),
        BoundaryKind::Inflow { m3_per_s } => EdgeCell::Inflow(*m3_per_s / cells_in_segment as f32),
        BoundaryKind::Tide(s) => EdgeCell::Fixed(s.at(0.0)),
        BoundaryKind::Hydrograph(s) => EdgeCell::Inflow(s.at(0.0) / cells_in_segment as f32),
    }
}

/// A segment whose condition follows a schedule: edge, cells, and whether it is a tide (else
/// an inflow, its schedule already divided among the cells).
#[derive(Clone, Debug)]
pub(crate) struct EdgeSchedule {
    pub edge: usize,
    pub cells: std::ops::Range<usize>,
    pub tide: bool,
    pub schedule: crate::level::Schedule,
}

/// The scheduled segments among `boundaries` of an `nx × ny` level, in their order; an
/// inflow's values are per cell.
pub(crate) fn edge_schedules(boundaries: &[Boundary], nx: usize, ny: usize) -> Vec<EdgeSchedule> {
    let lens = [ny, ny, nx, nx];
    boundaries
        .iter()
        .filter_map(|b| {
            let e = edge_index(b.edge);
            let end = (b.end as usize).min(lens[e]);
            let start = (b.start as usize).min(end);
            let (tide, mut schedule) = match &b.kind {
                BoundaryKind::Tide(s) => (true, s.clone()),
                BoundaryKind::Hydrograph(s) => (false, s.clone()),
                _ => return None,
            };
            if !tide {
                let n = (end - start).max(1) as f32;
                schedule.points.iter_mut().for_each(|p| p[1] /= n);
            }
            Some(EdgeSchedule {
                edge: e,
                cells: start..end,
                tide,
                schedule,
            })
        })
        .collect()
}

impl Edges {
    /// Builds the edge conditions of `level`, starting ghosts at the current surface unless a
    /// saved ghost state of the right length is given.
    pub fn new(level: &Level, depth: &[f32], saved_ghost: Option<&[f32]>) -> Self {
        let (nx, ny) = (level.nx(), level.ny());
        let lens = [ny, ny, nx, nx];
        let default = condition(&level.params.default_boundary, 1);
        let mut cells: [Vec<EdgeCell>; 4] = lens.map(|n| vec![default; n]);
        for b in &level.boundaries {
            let e = edge_index(b.edge);
            let end = (b.end as usize).min(lens[e]);
            let start = (b.start as usize).min(end);
            let c = condition(&b.kind, end - start);
            for cell in &mut cells[e][start..end] {
                *cell = c;
            }
        }
        let mut ghost: [Vec<f32>; 4] = lens.map(|n| vec![0.0; n]);
        let total: usize = lens.iter().sum();
        let mut saved = saved_ghost.filter(|g| g.len() == total).map(|g| g.iter());
        for e in 0..4 {
            for k in 0..lens[e] {
                let c = edge_cell(e, k, nx, ny);
                let surface = level.terrain.data[c] + depth[c];
                ghost[e][k] = saved
                    .as_mut()
                    .and_then(|s| s.next().copied())
                    .unwrap_or(surface);
            }
        }
        Self {
            cells,
            ghost,
            q: lens.map(|n| vec![0.0; n]),
            faces: lens.map(|n| vec![0.0; n]),
            schedules: edge_schedules(&level.boundaries, nx, ny),
        }
    }

    /// Sets the scheduled segments' levels and inflows to their values at simulated `time`.
    pub fn follow(&mut self, time: f64) {
        for s in &self.schedules {
            let v = s.schedule.at(time);
            // (`time` is the sub-step's middle: see `Simulation::substep`.)
            let c = if s.tide {
                EdgeCell::Fixed(v)
            } else {
                EdgeCell::Inflow(v)
            };
            self.cells[s.edge][s.cells.clone()].fill(c);
        }
    }

    /// Ghost surfaces flattened in edge order, for saving.
    pub fn ghost_flat(&self) -> Vec<f32> {
        self.ghost.iter().flatten().copied().collect()
    }

    /// Takes the border discharges from saved face arrays, so a saved state continues exactly.
    pub fn load_border_flows(&mut self, qx: &[f32], qy: &[f32], nx: usize, ny: usize) {
        for k in 0..ny {
            self.q[0][k] = qx[k * (nx + 1)];
            self.q[1][k] = qx[k * (nx + 1) + nx];
        }
        for k in 0..nx {
            self.q[2][k] = qy[k];
            self.q[3][k] = qy[ny * nx + k];
        }
    }

    /// Accelerates the border faces for a step of `dt` seconds; `qx`, `qy` are the limited
    /// discharges of the last step (an open edge's outfall carries on the face behind it).
    #[allow(clippy::too_many_arguments)]
    pub fn accelerate(
        &mut self,
        terrain: &[f32],
        depth: &[f32],
        (qx, qy): (&[f32], &[f32]),
        grid: PassGrid,
        g_dt: f32,
        fr: &BedFriction,
        cs: CrossSection,
    ) {
        let PassGrid { nx, ny, .. } = grid;
        let gravity = g_dt / grid.dt;
        for e in 0..4 {
            let s = inward(e);
            for k in 0..self.cells[e].len() {
                let c = edge_cell(e, k, nx, ny);
                let outfall = match self.cells[e][k] {
                    EdgeCell::Open => outfall(e, k, depth, (qx, qy), grid, (gravity, OPEN_FROUDE)),
                    EdgeCell::Fixed(_) => outfall(e, k, depth, (qx, qy), grid, (gravity, 1.0)),
                    _ => None,
                };
                self.faces[e][k] = match (self.cells[e][k], outfall) {
                    (_, Some(q_out)) => -s * q_out,
                    (EdgeCell::Wall, _) => 0.0,
                    (EdgeCell::Inflow(q), _) => s * q,
                    (EdgeCell::Open | EdgeCell::Fixed(_), _) => {
                        let b = terrain[c];
                        let h_in = b + depth[c];
                        let h_out = match self.cells[e][k] {
                            EdgeCell::Fixed(level) => level.max(b),
                            _ => self.ghost[e][k].max(b),
                        };
                        // Outside → inside along +x/+y on West/North, the reverse on East/South.
                        let (hl, hr, dl, dr) = if s > 0.0 {
                            (h_out, h_in, h_out - b, depth[c])
                        } else {
                            (h_in, h_out, depth[c], h_out - b)
                        };
                        let a = section(cs, hl, hr, dl, dr, b, b);
                        let accel = g_dt * a * (hl - hr);
                        match self.cells[e][k] {
                            // The face to the outside world has no bed to rub on: a slow river
                            // keeps its flow through it instead of backing up.
                            EdgeCell::Open => self.q[e][k] + accel,
                            _ => {
                                let h = hl.max(hr) - b;
                                fr.discharge(self.q[e][k], accel, h, fr.cell_n2(c))
                            }
                        }
                    }
                };
            }
        }
    }

    /// After a pass: keeps the limited border flows, relaxes open ghosts toward the new surface
    /// and returns the volumes that entered and left through the edges in `dt` seconds.
    #[allow(clippy::too_many_arguments)]
    pub fn finish(
        &mut self,
        qx: &[f32],
        qy: &[f32],
        terrain: &[f32],
        depth: &[f32],
        nx: usize,
        ny: usize,
        gravity: f32,
        dt: f32,
        dx: f32,
    ) -> (f64, f64) {
        let (mut inflow, mut outflow) = (0.0f64, 0.0f64);
        for e in 0..4 {
            let s = inward(e);
            for k in 0..self.cells[e].len() {
                let q = match e {
                    0 => qx[k * (nx + 1)],
                    1 => qx[k * (nx + 1) + nx],
                    2 => qy[k],
                    _ => qy[ny * nx + k],
                };
                self.q[e][k] = q;
                let into = (s * q) as f64 * dt as f64;
                if into > 0.0 {
                    inflow += into;
                } else {
                    outflow -= into;
                }
                if self.cells[e][k] == EdgeCell::Open {
                    let c_i = edge_cell(e, k, nx, ny);
                    let b = terrain[c_i];
                    let u = b + depth[c_i];
                    let g = self.ghost[e][k];
                    let h = depth[c_i].max(g - b).max(0.0);
                    let c = (gravity * h).sqrt();
                    self.ghost[e][k] = (c * dt * u + g * dx) / (dx + c * dt);
                }
            }
        }
        (inflow, outflow)
    }
}
