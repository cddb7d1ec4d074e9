//! The shallow-water solver (thesis §4.3): face velocities on the staggered grid are advected
//! semi-Lagrangian, accelerated by the surface gradient, and turned into upwind discharges
//! `Q = u·h_upwind·dx` for the shared limit-and-depth pass.

use rayon::prelude::*;

use crate::grid::bilinear;

use super::boundary::Edges;
use super::friction::{BedFriction, FILM};
use super::kernel::{FaceAccel, PassGrid};

/// Depth below which a face is treated as dry (no velocity).
pub(crate) const DRY: f32 = 1e-6;

/// Depth below which a border face carries no velocity (its outside depth is unknown).
const BORDER_FILM: f32 = 0.01;

/// Face velocities (m/s) and their advected copies.
pub(crate) struct Velocities {
    /// x-face velocities, `(nx+1)·ny`.
    pub u: Vec<f32>,
    /// y-face velocities, `nx·(ny+1)`.
    pub v: Vec<f32>,
    pub(crate) u_adv: Vec<f32>,
    pub(crate) v_adv: Vec<f32>,
    /// Largest face speed after the last step, m/s.
    pub max_speed: f32,
}

impl Velocities {
    /// Water at rest.
    pub fn zero(nx: usize, ny: usize) -> Self {
        Self::from_saved(nx, ny, &vec![0.0; (nx + 1) * ny], &vec![0.0; nx * (ny + 1)])
    }

    /// Velocities from a saved flow state.
    pub fn from_saved(_nx: usize, _ny: usize, u: &[f32], v: &[f32]) -> Self {
        let max_speed = u.iter().chain(v).fold(0.0f32, |a, b| a.max(b.abs()));
        Self {
            u: u.to_vec(),
            v: v.to_vec(),
            u_adv: u.to_vec(),
            v_adv: v.to_vec(),
            max_speed,
        }
    }

    /// Semi-Lagrangian advection of both velocity components over `g.dt`.
    pub fn advect_semi_lagrangian(&mut self, g: PassGrid) {
        let PassGrid { nx, ny, dt, dx } = g;
        let s = dt / dx;
        let (u, v) = (&self.u, &self.v);
        self.u_adv
            .par_chunks_mut(nx + 1)
            .enumerate()
            .for_each(|(j, row)| {
                for (i, out) in row.iter_mut().enumerate() {
                    let uu = u[j * (nx + 1) + i];
                    let il = i.saturating_sub(1).min(nx - 1);
                    let ir = i.min(nx - 1);
                    let vv = 0.25
                        * (v[j * nx + il]
                            + v[j * nx + ir]
                            + v[(j + 1) * nx + il]
                            + v[(j + 1) * nx + ir]);
                    *out = bilinear(u, nx + 1, ny, i as f32 - uu * s, j as f32 - vv * s);
                }
            });
        self.v_adv
            .par_chunks_mut(nx)
            .enumerate()
            .for_each(|(j, row)| {
                let ja = j.saturating_sub(1).min(ny - 1);
                let jb = j.min(ny - 1);
                for (i, out) in row.iter_mut().enumerate() {
                    let vv = v[j * nx + i];
                    let w = nx + 1;
                    let uu = 0.25
                        * (u[ja * w + i] + u[ja * w + i + 1] + u[jb * w + i] + u[jb * w + i + 1]);
                    *out = bilinear(v, nx, ny + 1, i as f32 - uu * s, j as f32 - vv * s);
                }
            });
    }

    /// Keeps the velocities implied by the limited discharges `qx`, `qy` and the depths
    /// `d_old` they were computed from. With `extend_fronts` (for semi-Lagrangian advection)
    /// they are extended one face into the dry side of each wet front, so a front carries its
    /// speed forward in the next back-trace. A film's face (upwind depth under [`FILM`]) is
    /// held to `film_cap` m/s and left out of `max_speed`, so thin films never set the step.
    pub fn store(
        &mut self,
        g: PassGrid,
        d_old: &[f32],
        (qx, qy): (&[f32], &[f32]),
        extend_fronts: bool,
        film_cap: f32,
    ) {
        let PassGrid { nx, ny, dx, .. } = g;
        // (velocity, counts toward the CFL speed)
        let vel = |q: f32, dl: f32, dr: f32| {
            let h = if q > 0.0 { dl } else { dr };
            if h <= DRY {
                (0.0, false)
            } else if h < FILM {
                ((q / (h * dx)).clamp(-film_cap, film_cap), false)
            } else {
                (q / (h * dx), true)
            }
        };
        // A border face's outside depth is unknown here: take the edge cell's, and no speed
        // at all over a film thinner than `BORDER_FILM`.
        let border = |q: f32, d: f32| {
            if d > BORDER_FILM {
                (q / (d * dx), true)
            } else {
                (0.0, false)
            }
        };
        let keep = |out: &mut f32, m: &mut f32, (u, counts): (f32, bool)| {
            *out = u;
            if counts {
                *m = m.max(u.abs());
            }
        };
        let mu = self
            .u_adv
            .par_chunks_mut(nx + 1)
            .enumerate()
            .map(|(j, row)| {
                let mut m = 0.0f32;
                for (i, out) in row.iter_mut().enumerate() {
                    let q = qx[j * (nx + 1) + i];
                    let v = if i == 0 || i == nx {
                        border(q, d_old[j * nx + i.min(nx - 1)])
                    } else {
                        vel(q, d_old[j * nx + i - 1], d_old[j * nx + i])
                    };
                    keep(out, &mut m, v);
                }
                m
            })
            .reduce(|| 0.0, f32::max);
        let mv = self
            .v_adv
            .par_chunks_mut(nx)
            .enumerate()
            .map(|(j, row)| {
                let mut m = 0.0f32;
                for (i, out) in row.iter_mut().enumerate() {
                    let q = qy[j * nx + i];
                    let v = if j == 0 || j == ny {
                        border(q, d_old[j.min(ny - 1) * nx + i])
                    } else {
                        vel(q, d_old[(j - 1) * nx + i], d_old[j * nx + i])
                    };
                    keep(out, &mut m, v);
                }
                m
            })
            .reduce(|| 0.0, f32::max);
        // A still face takes the velocity of the face behind it when that one flows toward it.
        let extend = |here: f32, behind: f32, ahead: f32| {
            if here != 0.0 || !extend_fronts {
                here
            } else if behind > 0.0 {
                behind
            } else if ahead < 0.0 {
                ahead
            } else {
                0.0
            }
        };
        let ua = &self.u_adv;
        self.u
            .par_chunks_mut(nx + 1)
            .enumerate()
            .for_each(|(j, row)| {
                let src = &ua[j * (nx + 1)..(j + 1) * (nx + 1)];
                for i in 0..=nx {
                    let behind = if i > 0 { src[i - 1] } else { 0.0 };
                    let ahead = if i < nx { src[i + 1] } else { 0.0 };
                    row[i] = if i == 0 || i == nx {
                        src[i]
                    } else {
                        extend(src[i], behind, ahead)
                    };
                }
            });
        let va = &self.v_adv;
        self.v.par_chunks_mut(nx).enumerate().for_each(|(j, row)| {
            for i in 0..nx {
                let here = va[j * nx + i];
                row[i] = if j == 0 || j == ny {
                    here
                } else {
                    extend(here, va[(j - 1) * nx + i], va[(j + 1) * nx + i])
                };
            }
        });
        self.max_speed = mu.max(mv);
    }
}

impl Velocities {
    /// Replaces `u`, `v` by the upwind discharges (m³/s) of the advected velocities, for the
    /// pipes solver with momentum advection. A face with no wet cross-section (the higher bed
    /// above both surfaces) carries nothing, so momentum never lifts water over a wall or a
    /// closed gate.
    pub fn advected_discharges(&mut self, g: PassGrid, depth: &[f32], terrain: &[f32]) {
        let PassGrid { nx, ny, dx, .. } = g;
        let face = |l: usize, r: usize| {
            let (bl, br) = (terrain[l], terrain[r]);
            ((bl + depth[l]).max(br + depth[r]) - bl.max(br)).max(0.0)
        };
        let (ua, va) = (&self.u_adv, &self.v_adv);
        self.u
            .par_chunks_mut(nx + 1)
            .enumerate()
            .for_each(|(j, row)| {
                for (i, out) in row.iter_mut().enumerate() {
                    let u = ua[j * (nx + 1) + i];
                    let c = if u > 0.0 {
                        i.saturating_sub(1)
                    } else {
                        i.min(nx - 1)
                    };
                    let d = depth[j * nx + c];
                    let d = if i > 0 && i < nx && face(j * nx + i - 1, j * nx + i) <= 0.0 {
                        0.0
                    } else {
                        d
                    };
                    *out = u * d * dx;
                }
            });
        self.v.par_chunks_mut(nx).enumerate().for_each(|(j, row)| {
            for (i, out) in row.iter_mut().enumerate() {
                let v = va[j * nx + i];
                let r = if v > 0.0 {
                    j.saturating_sub(1)
                } else {
                    j.min(ny - 1)
                };
                let d = depth[r * nx + i];
                let d = if j > 0 && j < ny && face((j - 1) * nx + i, j * nx + i) <= 0.0 {
                    0.0
                } else {
                    d
                };
                *out = v * d * dx;
            }
        });
    }
}

/// Accelerates advected velocities by the surface gradient and returns upwind discharges.
pub(crate) struct SweAccel<'a> {
    pub grid: PassGrid,
    pub terrain: &'a [f32],
    pub depth: &'a [f32],
    pub vel: &'a Velocities,
    pub edges: &'a Edges,
    pub g_dt: f32,
    pub fr: BedFriction<'a>,
}

impl SweAccel<'_> {
    #[inline(always)]
    fn face(&self, l: usize, r: usize, u_adv: f32) -> f32 {
        let (bl, br) = (self.terrain[l], self.terrain[r]);
        let (dl, dr) = (self.depth[l], self.depth[r]);
        let (hl, hr) = (bl + dl, br + dr);
        let h_face = hl.max(hr) - bl.max(br);
        if h_face <= DRY {
            return 0.0;
        }
        let accel = self.g_dt * (hl - hr) / self.grid.dx;
        let u = self
            .fr
            .velocity(u_adv, accel, h_face, self.fr.face_n2(l, r));
        let h = if u > 0.0 { dl } else { dr };
        u * h * self.grid.dx
    }
}

impl FaceAccel for SweAccel<'_> {
    #[inline(always)]
    fn x_row(&self, j: usize, out: &mut [f32]) {
        let nx = self.grid.nx;
        let u = &self.vel.u_adv[j * (nx + 1)..(j + 1) * (nx + 1)];
        out[0] = self.edges.faces[0][j];
        out[nx] = self.edges.faces[1][j];
        for i in 1..nx {
            out[i] = self.face(j * nx + i - 1, j * nx + i, u[i]);
        }
    }

    #[inline(always)]
    fn y_row(&self, j: usize, out: &mut [f32]) {
        let nx = self.grid.nx;
        if j == 0 {
            out.copy_from_slice(&self.edges.faces[2]);
        } else if j == self.grid.ny {
            out.copy_from_slice(&self.edges.faces[3]);
        } else {
            let v = &self.vel.v_adv[j * nx..(j + 1) * nx];
            for i in 0..nx {
                out[i] = self.face((j - 1) * nx + i, j * nx + i, v[i]);
            }
        }
    }
}
