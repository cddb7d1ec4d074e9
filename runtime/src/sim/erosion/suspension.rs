//! Suspended load on the CPU solver (`level::Suspension`): after the bedload, the grains in the
//! water move with it through every face (upwind, in flux form, so what leaves one cell enters
//! its neighbour), then each wet cell exchanges grains with its bed: the flow picks up
//! `pickup·(τ/τc − 1)` where its bed shear stress `τ` passes the critical one, and the load
//! settles at `settling × concentration`, implicitly, so no step settles more than the water
//! holds. A cell that dries lays its whole load down.
//!
//! The concentration a face carries is its upwind cell's load over the water that was in that
//! cell during the sub-step (what stayed plus what left), so no cell sends out more grains than
//! it holds and the load never goes negative. Load and bed keep the part of their change `f32`
//! could not hold (compensated summation), and the ledger books what crosses the map's edges:
//! eroded = suspended + deposited (+ left − entered) to rounding.

use crate::level::{Friction, Suspension};

use super::super::boundary::{EdgeCell, Edges, edge_cell};
use super::super::kernel::PassGrid;
use super::{Bed, DRY};

/// Water density, kg/m³: the bed shear stress is `ρ·u*²`.
const RHO: f32 = 1000.0;

/// How rough the bed is, for the shear stress the flow puts on it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Roughness<'a> {
    /// Manning's `n`, level-wide: `u*² = g·n²·u² / h^(1/3)`.
    Manning(f32),
    /// Manning's `n` per cell.
    Grid(&'a [f32]),
    /// Chézy's `C`: `u*² = g·u² / C²`.
    Chezy(f32),
}

impl<'a> Roughness<'a> {
    /// The roughness of a level with `friction` and an optional per-cell Manning grid; the
    /// linear law, which has none, shears as a natural channel (`n` = 0.03).
    pub fn new(friction: Friction, grid: Option<&'a [f32]>) -> Self {
        match (friction, grid) {
            (Friction::Manning { .. }, Some(g)) => Self::Grid(g),
            (Friction::Manning { n }, None) => Self::Manning(n),
            (Friction::Chezy { c }, _) => Self::Chezy(c),
            (Friction::Linear { .. }, _) => Self::Manning(crate::level::DEFAULT_MANNING_N),
        }
    }

    /// The bed shear stress (Pa) under water `h` deep moving at speed² `u2` in cell `c`.
    fn shear(&self, c: usize, u2: f32, h: f32, g: f32) -> f32 {
        let k = match *self {
            Self::Manning(n) => n * n / h.cbrt(),
            Self::Grid(n) => n[c] * n[c] / h.cbrt(),
            Self::Chezy(c) => 1.0 / (c * c).max(1e-6),
        };
        RHO * g * k * u2
    }
}

/// The grains carried in the water.
#[derive(Clone, Debug)]
pub(crate) struct Suspended {
    pub(crate) law: Suspension,
    /// Per cell: grains in the water, m³ of grain per m² (a depth of solid grains).
    pub load: Vec<f32>,
    /// Per cell: the load change `f32` could not hold yet.
    carry: Vec<f32>,
    /// Scratch: per cell, concentration (grain over water volume) of the sub-step.
    conc: Vec<f32>,
    /// Scratch: per cell, grains moved in by the faces, m³ (summed exactly enough that what
    /// one cell gives its neighbour receives).
    moved: Vec<f64>,
}

impl Suspended {
    /// Clear water over `cells` cells.
    pub fn new(law: Suspension, cells: usize) -> Self {
        Self {
            law,
            load: vec![0.0; cells],
            carry: vec![0.0; cells],
            conc: vec![0.0; cells],
            moved: vec![0.0; cells],
        }
    }

    /// Grains in the water per cell, m³ per m², compensation included.
    pub fn settled(&self) -> Vec<f32> {
        (self.load.iter().zip(&self.carry))
            .map(|(l, c)| l + c)
            .collect()
    }

    /// Grains in the water, m³ (compensation included).
    pub fn total(&self, area: f64) -> f64 {
        let sum: f64 = (self.load.iter().zip(&self.carry))
            .map(|(l, c)| *l as f64 + *c as f64)
            .sum();
        sum * area
    }
}

impl Bed {
    /// Carries the suspended load with the sub-step's flows, then lets every cell exchange
    /// grains with its bed.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn suspend(
        &mut self,
        terrain: &mut [f32],
        depth: &[f32],
        (qx, qy): (&[f32], &[f32]),
        edges: &Edges,
        grid: PassGrid,
        g: f32,
        rough: Roughness,
    ) {
        let Some(mut s) = self.suspended.take() else {
            return;
        };
        let PassGrid { nx, ny, dt, dx } = grid;
        let area = dx * dx;
        // The water each cell held during the sub-step: what stayed plus what left.
        for j in 0..ny {
            for i in 0..nx {
                let c = j * nx + i;
                let out = (-qx[j * (nx + 1) + i]).max(0.0)
                    + qx[j * (nx + 1) + i + 1].max(0.0)
                    + (-qy[j * nx + i]).max(0.0)
                    + qy[(j + 1) * nx + i].max(0.0);
                let through = depth[c] * area + out * dt;
                s.conc[c] = if through > 1e-9 {
                    s.load[c] * area / through
                } else {
                    0.0
                };
            }
        }
        // Grains through the faces, upwind.
        s.moved.fill(0.0);
        for j in 0..ny {
            for i in 1..nx {
                let (a, b) = (j * nx + i - 1, j * nx + i);
                let q = qx[j * (nx + 1) + i];
                let f = (q * if q > 0.0 { s.conc[a] } else { s.conc[b] } * dt) as f64;
                s.moved[a] -= f;
                s.moved[b] += f;
            }
        }
        for j in 1..ny {
            for i in 0..nx {
                let (a, b) = ((j - 1) * nx + i, j * nx + i);
                let q = qy[j * nx + i];
                let f = (q * if q > 0.0 { s.conc[a] } else { s.conc[b] } * dt) as f64;
                s.moved[a] -= f;
                s.moved[b] += f;
            }
        }
        // Border faces: out at the cell's concentration; in as much (a river in balance) or
        // none (clear inflow); walls pass none. `sign` turns a discharge into an inflow.
        let clear = self.clear_inflow;
        let border = |e: usize, k: usize, q: f32, conc: &[f32]| -> (usize, f32) {
            let c = edge_cell(e, k, nx, ny);
            let inflow = if e == 0 || e == 2 { q } else { -q };
            let f = match edges.cells[e][k] {
                EdgeCell::Wall => 0.0,
                _ if clear && inflow > 0.0 => 0.0,
                _ => inflow * conc[c] * dt,
            };
            (c, f)
        };
        let mut crossed = Vec::with_capacity(2 * (nx + ny));
        for k in 0..ny {
            crossed.push(border(0, k, qx[k * (nx + 1)], &s.conc));
            crossed.push(border(1, k, qx[k * (nx + 1) + nx], &s.conc));
        }
        for k in 0..nx {
            crossed.push(border(2, k, qy[k], &s.conc));
            crossed.push(border(3, k, qy[ny * nx + k], &s.conc));
        }
        for (c, f) in crossed {
            s.moved[c] += f as f64;
            self.book(f as f64 * self.swell as f64);
        }
        // Pick-up and settling, cell by cell.
        let law = s.law;
        for j in 0..ny {
            for i in 0..nx {
                let c = j * nx + i;
                let advected = s.load[c] + (s.moved[c] / area as f64) as f32;
                let h = depth[c];
                // Outside a region grains settle but none is lifted (they stayed in the water
                // for good there, and bakes dropped them); on gates and breaches neither.
                let (lifted, settled) = if !self.settles[c] {
                    (0.0, 0.0)
                } else if h <= DRY {
                    (0.0, advected.max(0.0))
                } else {
                    let u = 0.5 * (qx[j * (nx + 1) + i] + qx[j * (nx + 1) + i + 1]) / (h * dx);
                    let v = 0.5 * (qy[j * nx + i] + qy[(j + 1) * nx + i]) / (h * dx);
                    let tau = rough.shear(c, u * u + v * v, h, g);
                    let excess = (tau / law.critical_shear - 1.0).max(0.0);
                    let room = (terrain[c] - self.floor[c]).max(0.0) / self.swell;
                    let lifted = match self.erodible[c] {
                        true => (law.pickup * excess * dt).min(room),
                        false => 0.0,
                    };
                    let kept = (advected + lifted) / (1.0 + law.settling * dt / h);
                    (lifted, advected + lifted - kept)
                };
                let change =
                    s.moved[c] / area as f64 + (lifted as f64 - settled as f64) + s.carry[c] as f64;
                let old = s.load[c] as f64;
                s.load[c] = (old + change) as f32;
                s.carry[c] = (old + change - s.load[c] as f64) as f32;
                if lifted != settled {
                    self.shift(terrain, c, self.swell * (settled - lifted));
                }
            }
        }
        self.suspended = Some(s);
    }
}
