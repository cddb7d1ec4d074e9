//! The bed the water moves (`level::Sediment`), on the CPU solver: after each sub-step the
//! bedload through every face (its transport law at the face's speed, carried the way the water
//! goes) and the slumping of slopes steeper than the angle of repose change the terrain by the
//! Exner equation, `∂z/∂t = −∇·q_b / (1 − p)`, in flux form, so what leaves one cell enters its
//! neighbour. Each cell keeps the part of its change that `f32` could not hold yet
//! (compensated summation), and the ledger books what crossed the map's edges, so the bed's
//! volume balances to rounding.
//!
//! At an edge that lets water in or out, the bed carries what its law carries at the edge's
//! flow (an inflow brings in as much as the water can carry, unless `clear_inflow`; an outlet
//! lets out as much); a wall passes none. The cells of gates and breaches are not erodible.

mod suspension;

use crate::level::{BedloadLaw, Sediment};

use super::boundary::{EdgeCell, Edges, edge_cell};
use super::kernel::PassGrid;
pub(crate) use suspension::Roughness;
use suspension::Suspended;

/// Water shallower than this moves no bed (metres).
const DRY: f32 = 1e-3;

/// The most of a slope's excess over the angle of repose that one face moves in a sub-step:
/// a fifth, so a cell giving to all four neighbours at once lands at the angle of repose.
const MAX_SLUMP: f32 = 0.2;

/// Volumes of bed the water has moved, m³ (of bed, pores included).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BedStats {
    /// Bed lowered where it eroded, summed over every sub-step and cell.
    pub eroded: f64,
    /// Bed raised where it settled.
    pub deposited: f64,
    /// Bed brought in across the map's edges.
    pub entered: f64,
    /// Bed carried out across the map's edges.
    pub left: f64,
    /// Grains in the water now, as the bed they would make (`Sediment::suspension`).
    pub suspended: f64,
    /// `(deposited + suspended − eroded) − (entered − left)`, over the larger of eroded and
    /// deposited: zero when every grain is accounted for.
    pub balance_error: f64,
}

/// Which cells of the bed a bake or a keyframe holds: every erodible one, and where grains
/// only settle (outside a region) those that took some or hold some in the water; the rest
/// keep the level's own ground (a wall raised there since stays raised when the run goes back).
#[derive(Clone, Debug)]
pub(crate) struct BedCells {
    /// Per cell: the bed moves there.
    pub erodible: std::sync::Arc<[bool]>,
    /// Per cell: grains settle there.
    pub settles: std::sync::Arc<[bool]>,
    /// Per cell: the bedrock, the loose layer's thickness below the ground the run started on.
    pub floor: std::sync::Arc<[f32]>,
    /// The loose layer's thickness, metres.
    pub layer: f32,
}

impl BedCells {
    /// Whether cell `c`, whose ground is `z` and whose water holds `load`, is the bed's.
    fn held(&self, c: usize, z: f32, load: f32) -> bool {
        if self.erodible[c] {
            return true;
        }
        // Raised above the ground it started on (past `f32`'s rounding of floor + layer).
        let start = self.floor[c] + self.layer;
        self.settles[c] && (load > 0.0 || z > start + 4e-7 * start.abs() + 1e-7)
    }
}

/// Writes `terrain` into `out` at the bed's `cells`, plus `swell × load` (the grains in the
/// water, m³ per m²) where there is a load.
pub(crate) fn settle_into(
    out: &mut [f32],
    terrain: &[f32],
    cells: &BedCells,
    load: Option<&[f32]>,
    swell: f32,
) {
    for (c, z) in out.iter_mut().enumerate() {
        let l = load.map_or(0.0, |l| l[c]);
        if cells.held(c, terrain[c], l) {
            *z = terrain[c] + swell * l;
        }
    }
}

/// The bedload by `law` through a face with discharge `q` (m³/s) whose upwind cell holds `h`.
fn load(law: &BedloadLaw, q: f32, h: f32, g: f32, dx: f32) -> f32 {
    if h <= DRY || q == 0.0 {
        return 0.0;
    }
    law.transport(q / (h * dx), g)
}

/// The moving bed of a simulation.
#[derive(Clone, Debug)]
pub(crate) struct Bed {
    pub(crate) law: BedloadLaw,
    /// `speedup / (1 − porosity)`: bed change per volume of grains moved.
    pub(crate) swell: f32,
    /// Largest stable height difference between neighbours, metres.
    pub(crate) talus_rise: f32,
    pub(crate) slump: f32,
    pub(crate) clear_inflow: bool,
    /// Per cell: the bed change `f32` could not hold yet, metres.
    carry: Vec<f32>,
    /// Per cell: whether the bed there can move (gates cannot).
    pub(crate) erodible: Vec<bool>,
    /// Per cell: whether grains in the water settle there: every cell but the gates' and
    /// breaches' (outside a `region` they settle, but none is lifted).
    pub(crate) settles: Vec<bool>,
    /// Per cell: the bedrock under the loose bed, metres.
    pub(crate) floor: Vec<f32>,
    /// The loose bed's thickness the floor was set below the ground, metres.
    layer: f32,
    /// Per cell: the share of its outgoing flux the bed above its bedrock can supply.
    supply: Vec<f32>,
    /// Face fluxes of the sub-step (bed volume per second over dx), x then y.
    fx: Vec<f32>,
    fy: Vec<f32>,
    /// The grains in the water, with `Sediment::suspension`.
    pub(crate) suspended: Option<Suspended>,
    /// Area of a cell, m².
    area: f32,
    stats: BedStats,
}

impl Bed {
    /// The bed of a level of `nx × ny` cells of `dx` metres whose gates and breaches cover
    /// `fixed` (their ground does not erode: [`super::fixed_cells`]);
    /// `saved` is the floor a baked level carries (`FlowState::bed_floor`), else the floor is
    /// the terrain less the loose layer.
    pub fn new(
        s: &Sediment,
        (nx, ny, dx): (usize, usize, f32),
        terrain: &[f32],
        fixed: &[u32],
        saved: Option<&[f32]>,
    ) -> Self {
        let mut erodible = vec![s.region.is_none(); nx * ny];
        if let Some(shape) = &s.region {
            for c in super::forcing::rasterise(shape, nx, ny, dx) {
                erodible[c as usize] = true;
            }
        }
        let mut settles = vec![true; nx * ny];
        for &c in fixed {
            erodible[c as usize] = false;
            settles[c as usize] = false;
        }
        Self {
            law: s.law,
            swell: s.speedup.max(0.0) / (1.0 - s.porosity.clamp(0.0, 0.9)),
            talus_rise: if s.talus_degrees >= 90.0 {
                f32::INFINITY
            } else {
                s.talus_degrees.to_radians().tan() * dx
            },
            // Slumping is bed change too: `speedup` ages it as it ages the bedload (banks cut
            // a hundred times faster stood far past their angle of repose).
            slump: s.slump_per_second * s.speedup.max(0.0),
            clear_inflow: s.clear_inflow,
            carry: vec![0.0; nx * ny],
            erodible,
            settles,
            floor: match saved {
                Some(f) if f.len() == nx * ny => f.to_vec(),
                _ => terrain.iter().map(|z| z - s.layer.max(0.0)).collect(),
            },
            layer: s.layer.max(0.0),
            supply: vec![1.0; nx * ny],
            fx: vec![0.0; (nx + 1) * ny],
            fy: vec![0.0; nx * (ny + 1)],
            suspended: s.suspension.map(|law| Suspended::new(law, nx * ny)),
            area: dx * dx,
            stats: BedStats::default(),
        }
    }

    /// Takes `fixed` ([`super::fixed_cells`]) as the cells whose ground does not move,
    /// keeping the floor and everything the bed carries.
    pub(crate) fn set_fixed(&mut self, s: &Sediment, grid: (usize, usize, f32), fixed: &[u32]) {
        let fresh = Bed::new(s, grid, &self.floor, fixed, Some(&self.floor));
        (self.erodible, self.settles) = (fresh.erodible, fresh.settles);
    }

    /// The cells' kinds as the GPU's bed holds them: 1 erodible, 2 where grains only settle
    /// (outside a region), 0 neither (gates, breaches).
    #[cfg(feature = "gpu")]
    pub(crate) fn mask(&self) -> Vec<f32> {
        (self.erodible.iter().zip(&self.settles))
            .map(|(&e, &s)| match (e, s) {
                (true, _) => 1.0,
                (false, true) => 2.0,
                (false, false) => 0.0,
            })
            .collect()
    }

    /// What the bed has done so far.
    pub fn stats(&self) -> BedStats {
        let s = self.stats;
        let suspended = (self.suspended.as_ref())
            .map_or(0.0, |l| l.total(self.area as f64) * self.swell as f64);
        // The bed change `f32` has not taken yet is still owed to the bed.
        let owed: f64 = self.carry.iter().map(|&c| c as f64).sum::<f64>() * self.area as f64;
        let scale = s.eroded.max(s.deposited).max(1e-12);
        BedStats {
            suspended,
            balance_error: ((s.deposited + owed + suspended - s.eroded) - (s.entered - s.left))
                / scale,
            ..s
        }
    }

    /// Copies the moved bed (`terrain`, the solver's) into a bake's terrain `out`: every cell
    /// grains settle in (gates keep their ground), with the grains still in the water settled
    /// where they are (a bake keeps no suspended load, so every grain stays in the level).
    pub fn bake(&self, terrain: &[f32], out: &mut [f32]) {
        let load = self.suspended.as_ref().map(|s| s.settled());
        settle_into(out, terrain, &self.cells(), load.as_deref(), self.swell);
    }

    /// The cells a bake or a keyframe holds ([`BedCells`]).
    pub(crate) fn cells(&self) -> BedCells {
        BedCells {
            erodible: self.erodible.as_slice().into(),
            settles: self.settles.as_slice().into(),
            floor: self.floor.as_slice().into(),
            layer: self.layer,
        }
    }

    /// The grains in the water per cell, m³ per m² (`None`: no suspension).
    pub fn suspended_load(&self) -> Option<&[f32]> {
        self.suspended.as_ref().map(|s| s.load.as_slice())
    }

    /// Changes cell `c`'s bed by `change` metres, keeping what `f32` cannot hold yet for the
    /// next change and booking the change actually made.
    fn shift(&mut self, terrain: &mut [f32], c: usize, change: f32) {
        let change = change + self.carry[c];
        let old = terrain[c];
        let new = old + change;
        self.carry[c] = change - (new - old);
        let moved = (new as f64 - old as f64) * self.area as f64;
        if moved < 0.0 {
            self.stats.eroded -= moved;
        } else {
            self.stats.deposited += moved;
        }
        terrain[c] = new;
    }

    /// Moves the bed by one sub-step of `dt` seconds with the water as the flow pass left it:
    /// bedload and slumping, then the suspended load (sheared by a bed of `rough`).
    #[allow(clippy::too_many_arguments)]
    pub fn erode(
        &mut self,
        terrain: &mut [f32],
        depth: &[f32],
        q: (&[f32], &[f32]),
        edges: &Edges,
        grid: PassGrid,
        g: f32,
        rough: Roughness,
    ) {
        if self.swell <= 0.0 {
            return;
        }
        self.bedload(terrain, depth, q, edges, grid, g);
        self.suspend(terrain, depth, q, edges, grid, g, rough);
    }

    /// Bedload and slumping through every face, then Exner.
    fn bedload(
        &mut self,
        terrain: &mut [f32],
        depth: &[f32],
        (qx, qy): (&[f32], &[f32]),
        edges: &Edges,
        grid: PassGrid,
        g: f32,
    ) {
        let PassGrid { nx, ny, dt, dx } = grid;
        // Slumping moves heights, not grains: undo the swell the Exner update applies.
        let unswell = 1.0 / self.swell;
        let up = |q: f32, a: usize, b: usize| if q > 0.0 { depth[a] } else { depth[b] };
        // Interior faces: bedload the way the water goes, and slumping down steep slopes.
        let slump = |za: f32, zb: f32| -> f32 {
            let excess = (za - zb).abs() - self.talus_rise;
            if excess <= 0.0 {
                return 0.0;
            }
            // A fifth of the excess at most per sub-step: a cell giving to its four neighbours
            // then lands at the angle of repose, no lower (a quarter turned a spike into a pit
            // a quarter of its height deep).
            (self.slump * dt).min(MAX_SLUMP) * excess * (za - zb).signum() / dt * unswell
        };
        for j in 0..ny {
            for i in 1..nx {
                let (a, b) = (j * nx + i - 1, j * nx + i);
                let q = qx[j * (nx + 1) + i];
                let mut f = load(&self.law, q, up(q, a, b), g, dx) / dx;
                f += slump(terrain[a], terrain[b]);
                if !(self.erodible[a] && self.erodible[b]) {
                    f = 0.0;
                }
                self.fx[j * (nx + 1) + i] = f;
            }
        }
        for j in 1..ny {
            for i in 0..nx {
                let (a, b) = ((j - 1) * nx + i, j * nx + i);
                let q = qy[j * nx + i];
                let mut f = load(&self.law, q, up(q, a, b), g, dx) / dx;
                f += slump(terrain[a], terrain[b]);
                if !(self.erodible[a] && self.erodible[b]) {
                    f = 0.0;
                }
                self.fy[j * nx + i] = f;
            }
        }
        // Border faces: what the edge's flow carries, none through walls.
        let (law, erodible, clear) = (self.law, &self.erodible, self.clear_inflow);
        let border = |e: usize, k: usize, q: f32| -> f32 {
            let c = edge_cell(e, k, nx, ny);
            // Water coming in across west and north edges flows along +x / +y.
            let inward = if e == 0 || e == 2 { q > 0.0 } else { q < 0.0 };
            match edges.cells[e][k] {
                EdgeCell::Wall => 0.0,
                _ if !erodible[c] || (clear && inward) => 0.0,
                _ => load(&law, q, depth[c], g, dx) / dx,
            }
        };
        for k in 0..ny {
            self.fx[k * (nx + 1)] = border(0, k, qx[k * (nx + 1)]);
            self.fx[k * (nx + 1) + nx] = border(1, k, qx[k * (nx + 1) + nx]);
        }
        for k in 0..nx {
            self.fy[k] = border(2, k, qy[k]);
            self.fy[ny * nx + k] = border(3, k, qy[ny * nx + k]);
        }
        // No cell gives more than the loose bed above its bedrock: its outgoing faces are
        // scaled down together, as the water's outflow is.
        let per = self.swell * dt;
        for j in 0..ny {
            for i in 0..nx {
                let c = j * nx + i;
                let out = (-self.fx[j * (nx + 1) + i]).max(0.0)
                    + self.fx[j * (nx + 1) + i + 1].max(0.0)
                    + (-self.fy[j * nx + i]).max(0.0)
                    + self.fy[(j + 1) * nx + i].max(0.0);
                let room = (terrain[c] - self.floor[c]).max(0.0);
                self.supply[c] = if out * per > room {
                    room / (out * per)
                } else {
                    1.0
                };
            }
        }
        for j in 0..ny {
            for f in 0..=nx {
                let v = &mut self.fx[j * (nx + 1) + f];
                let donor = if *v > 0.0 {
                    f.checked_sub(1)
                } else {
                    (f < nx).then_some(f)
                };
                if let Some(i) = donor {
                    *v *= self.supply[j * nx + i];
                }
            }
        }
        for j in 0..=ny {
            for i in 0..nx {
                let v = &mut self.fy[j * nx + i];
                let donor = if *v > 0.0 {
                    j.checked_sub(1)
                } else {
                    (j < ny).then_some(j)
                };
                if let Some(r) = donor {
                    *v *= self.supply[r * nx + i];
                }
            }
        }
        // Volumes across the edges (bed, m³).
        let bed = (self.swell * dt * dx) as f64;
        for k in 0..ny {
            let (w, e) = (self.fx[k * (nx + 1)], self.fx[k * (nx + 1) + nx]);
            self.book(w as f64 * bed * dx as f64);
            self.book(-e as f64 * bed * dx as f64);
        }
        for k in 0..nx {
            let (n, s) = (self.fy[k], self.fy[ny * nx + k]);
            self.book(n as f64 * bed * dx as f64);
            self.book(-s as f64 * bed * dx as f64);
        }
        // Exner, with the change `f32` cannot hold kept for the next sub-step.
        for j in 0..ny {
            for i in 0..nx {
                let c = j * nx + i;
                if !self.erodible[c] {
                    continue;
                }
                let div = self.fx[j * (nx + 1) + i + 1] - self.fx[j * (nx + 1) + i]
                    + self.fy[(j + 1) * nx + i]
                    - self.fy[j * nx + i];
                self.shift(terrain, c, -per * div);
            }
        }
    }

    /// Books `v` m³ of bed into the map (negative: out of it).
    fn book(&mut self, v: f64) {
        if v > 0.0 {
            self.stats.entered += v;
        } else {
            self.stats.left -= v;
        }
    }
}
