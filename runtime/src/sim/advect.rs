//! Momentum-conserving upwind advection of the shallow-water face velocities (Stelling and
//! Duinmeijer 2003): the advective acceleration at a face is the upwind momentum flux through
//! the control volume around it minus the velocity times the mass flux, divided by the face
//! depth. Unlike semi-Lagrangian advection it moves bores at the right speed and carries
//! momentum to a wet-dry front, which the dam-break tests (Ritter, Stoker) check.

use rayon::prelude::*;

use super::kernel::PassGrid;
use super::swe::{DRY, Velocities};

impl Velocities {
    /// Advects both velocity components over `g.dt` using the last step's limited discharges
    /// `qx`, `qy` (m³/s) and the current depths.
    pub fn advect_conservative(&mut self, g: PassGrid, depth: &[f32], qx: &[f32], qy: &[f32]) {
        let PassGrid { nx, ny, dt, dx } = g;
        let w = nx + 1;
        let inv = 1.0 / dx;
        let (u, v) = (&self.u, &self.v);
        let qxw = |i: usize, j: usize| qx[j * w + i] * inv;
        let qyw = |i: usize, j: usize| qy[j * nx + i] * inv;
        self.u_adv
            .par_chunks_mut(w)
            .enumerate()
            .for_each(|(j, row)| {
                row[0] = u[j * w];
                row[nx] = u[j * w + nx];
                for i in 1..nx {
                    let uu = u[j * w + i];
                    let hbar = 0.5 * (depth[j * nx + i - 1] + depth[j * nx + i]);
                    if hbar <= DRY {
                        row[i] = uu;
                        continue;
                    }
                    let ql = 0.5 * (qxw(i - 1, j) + qxw(i, j));
                    let qr = 0.5 * (qxw(i, j) + qxw(i + 1, j));
                    let ul = if ql > 0.0 { u[j * w + i - 1] } else { uu };
                    let ur = if qr > 0.0 { uu } else { u[j * w + i + 1] };
                    let ax = qr * ur - ql * ul - uu * (qr - ql);
                    let qt = 0.5 * (qyw(i - 1, j) + qyw(i, j));
                    let qb = 0.5 * (qyw(i - 1, j + 1) + qyw(i, j + 1));
                    let ut = if qt > 0.0 && j > 0 {
                        u[(j - 1) * w + i]
                    } else {
                        uu
                    };
                    let ub = if qb <= 0.0 && j + 1 < ny {
                        u[(j + 1) * w + i]
                    } else {
                        uu
                    };
                    let ay = qb * ub - qt * ut - uu * (qb - qt);
                    row[i] = uu - dt * inv * (ax + ay) / hbar;
                }
            });
        self.v_adv
            .par_chunks_mut(nx)
            .enumerate()
            .for_each(|(j, row)| {
                if j == 0 || j == ny {
                    row.copy_from_slice(&v[j * nx..(j + 1) * nx]);
                    return;
                }
                for i in 0..nx {
                    let vv = v[j * nx + i];
                    let hbar = 0.5 * (depth[(j - 1) * nx + i] + depth[j * nx + i]);
                    if hbar <= DRY {
                        row[i] = vv;
                        continue;
                    }
                    let qt = 0.5 * (qyw(i, j - 1) + qyw(i, j));
                    let qb = 0.5 * (qyw(i, j) + qyw(i, j + 1));
                    let vt = if qt > 0.0 { v[(j - 1) * nx + i] } else { vv };
                    let vb = if qb > 0.0 { vv } else { v[(j + 1) * nx + i] };
                    let ay = qb * vb - qt * vt - vv * (qb - qt);
                    let ql = 0.5 * (qxw(i, j - 1) + qxw(i, j));
                    let qr = 0.5 * (qxw(i + 1, j - 1) + qxw(i + 1, j));
                    let vl = if ql > 0.0 && i > 0 {
                        v[j * nx + i - 1]
                    } else {
                        vv
                    };
                    let vr = if qr <= 0.0 && i + 1 < nx {
                        v[j * nx + i + 1]
                    } else {
                        vv
                    };
                    let ax = qr * vr - ql * vl - vv * (qr - ql);
                    row[i] = vv - dt * inv * (ax + ay) / hbar;
                }
            });
    }
}
