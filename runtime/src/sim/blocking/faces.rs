//! The blocked faces (Kellomäki 2014 §3.4): the rule for a face touching a covered cell, and the
//! flow updates of the pipes and shallow-water solvers that apply it around the bodies.

use super::super::advect::Momentum;
use super::super::friction::BedFriction;
use super::super::kernel::{FaceAccel, PassGrid};
use super::super::pipes::{AdvectedPipes, PipesAccel};
use super::super::swe::{AdvectedSwe, SweAccel};
use super::{Blocking, Column};

impl Blocking {
    /// The accelerated discharge of the face between cells `l` and `r` (interior faces only).
    #[inline]
    fn face(
        &self,
        l: usize,
        r: usize,
        q: f32,
        t: &[f32],
        d: &[f32],
        (g_dt, fr, cap): (f32, &BedFriction, f32),
    ) -> f32 {
        let (bl, br) = (t[l], t[r]);
        let (cl, cr) = (self.cover[l], self.cover[r]);
        let a = self.side(l, t, d);
        let b = self.side(r, t, d);
        let covered = |k: usize| self.cover[k] > 0.0;
        let side_bottom = |k: usize| {
            if covered(k) {
                self.bottom[k]
            } else {
                f32::INFINITY
            }
        };
        let side_top = |k: usize| {
            if covered(k) {
                self.top[k]
            } else {
                f32::NEG_INFINITY
            }
        };
        let zb = side_bottom(l).min(side_bottom(r));
        let zt = side_top(l).max(side_top(r));
        let w = (cl + cr).min(1.0);
        let z0 = bl.max(br);
        let a_low = (a.t_low.max(b.t_low).min(zb) - z0).max(0.0);
        // Over a raised body that sticks out of the water, the upper interface is the upper
        // flow's (`Blocking::flow_upper`), which keeps that water on top of the body; toward
        // another stored cell of one column it stays this face's.
        let a_up = if (a.raised && !b.joined) || (b.raised && !a.joined) {
            0.0
        } else {
            (a.up.max(b.up) - zt.max(z0)).max(0.0)
        };
        let top = |c: &Column| if c.has_up { c.t_low.max(c.up) } else { c.t_low };
        let a_open = (top(&a).max(top(&b)) - z0).max(0.0);
        let drive = w * (a_low * (a.p_low - b.p_low) + a_up * (a.up - b.up))
            + (1.0 - w) * a_open * (a.p_low - b.p_low);
        let section = w * (a_low + a_up) + (1.0 - w) * a_open;
        let limit = section * cap;
        let n2 = fr.face_n2(l, r);
        fr.discharge(q, g_dt * drive, section, n2)
            .clamp(-limit, limit)
    }
}

/// The pipes flow update with blockers: plain pipes faces, then every interior face touching a
/// covered cell recomputed with the blocked rule. With `momentum`, the old discharges are the
/// advected ones, computed row by row as [`AdvectedPipes`] does; else `inner`'s.
pub(crate) struct BlockedPipes<'a> {
    pub inner: PipesAccel<'a>,
    pub blocking: &'a Blocking,
    pub grid: PassGrid,
    pub momentum: Option<Momentum<'a>>,
}

impl BlockedPipes<'_> {
    /// `|Q|` per metre of open section that empties that section in one step, `dx² / dt`.
    fn cap(&self) -> f32 {
        self.grid.dx * self.grid.dx / self.grid.dt
    }
}

impl FaceAccel for BlockedPipes<'_> {
    #[inline(always)]
    fn x_row(&self, j: usize, out: &mut [f32], scratch: &mut [f32]) {
        let (nx, b, p) = (self.grid.nx, self.blocking, &self.inner);
        let w = nx + 1;
        // The row's old discharges: the advected ones the plain faces were made from.
        let q: &[f32] = match self.momentum {
            Some(momentum) => {
                let plain = AdvectedPipes {
                    inner: *p,
                    momentum,
                    skip_dry: false,
                };
                plain.x_row(j, out, scratch);
                &scratch[w..2 * w]
            }
            None => {
                p.x_row(j, out, scratch);
                &p.qx[j * w..(j + 1) * w]
            }
        };
        let cap = self.cap();
        for &i in &b.rows[j] {
            let i = i as usize;
            for f in [i, i + 1] {
                if f >= 1 && f < nx {
                    let (l, r) = (j * nx + f - 1, j * nx + f);
                    out[f] = b.face(l, r, q[f], p.terrain, p.depth, (p.g_dt, &p.fr, cap));
                }
            }
        }
    }

    #[inline(always)]
    fn y_row(&self, j: usize, out: &mut [f32], scratch: &mut [f32]) {
        let (nx, ny, b, p) = (self.grid.nx, self.grid.ny, self.blocking, &self.inner);
        let q: &[f32] = match self.momentum {
            Some(momentum) => {
                let plain = AdvectedPipes {
                    inner: *p,
                    momentum,
                    skip_dry: false,
                };
                plain.y_row(j, out, scratch);
                &scratch[nx..2 * nx]
            }
            None => {
                p.y_row(j, out, scratch);
                &p.qy[(j * nx).min(p.qy.len())..]
            }
        };
        if j == 0 || j >= ny {
            return;
        }
        let cap = self.cap();
        for &i in b.rows[j - 1].iter().chain(&b.rows[j]) {
            let i = i as usize;
            let (l, r) = ((j - 1) * nx + i, j * nx + i);
            out[i] = b.face(l, r, q[i], p.terrain, p.depth, (p.g_dt, &p.fr, cap));
        }
    }
}

/// The shallow-water flow update with blockers: plain SWE faces, then every interior face
/// touching a covered cell recomputed with the blocked rule, its old discharge the advected
/// face velocity times the upwind depth (zero across a dry face), as the GPU's blocked pass
/// does. The velocities are then kept from the limited discharges as everywhere.
pub(crate) struct BlockedSwe<'a> {
    pub inner: SweAccel<'a>,
    pub blocking: &'a Blocking,
    pub grid: PassGrid,
    /// Conservative advection row by row, as [`AdvectedSwe`] does; else `inner.adv`.
    pub momentum: Option<Momentum<'a>>,
}

impl BlockedSwe<'_> {
    /// The old discharge of the face between `l` and `r` from its advected velocity `u`.
    fn old_q(&self, l: usize, r: usize, u: f32) -> f32 {
        let (t, d) = (self.inner.terrain, self.inner.depth);
        let wet = (t[l] + d[l]).max(t[r] + d[r]) - t[l].max(t[r]) > 0.0;
        if !wet {
            return 0.0;
        }
        u * if u > 0.0 { d[l] } else { d[r] } * self.grid.dx
    }

    fn face(&self, l: usize, r: usize, u: f32) -> f32 {
        let a = &self.inner;
        let cap = self.grid.dx * self.grid.dx / self.grid.dt;
        let q = self.old_q(l, r, u);
        self.blocking
            .face(l, r, q, a.terrain, a.depth, (a.g_dt, &a.fr, cap))
    }
}

impl FaceAccel for BlockedSwe<'_> {
    #[inline(always)]
    fn x_row(&self, j: usize, out: &mut [f32], scratch: &mut [f32]) {
        let nx = self.grid.nx;
        let w = nx + 1;
        // The row's advected velocities, which the plain faces were made from.
        let u: &[f32] = match self.momentum {
            Some(momentum) => {
                let plain = AdvectedSwe {
                    inner: self.inner,
                    momentum,
                    skip_dry: false,
                };
                plain.x_row(j, out, scratch);
                &scratch[..w]
            }
            None => {
                self.inner.x_row(j, out, scratch);
                &self.inner.adv.0[j * w..(j + 1) * w]
            }
        };
        for &i in &self.blocking.rows[j] {
            let i = i as usize;
            for f in [i, i + 1] {
                if f >= 1 && f < nx {
                    out[f] = self.face(j * nx + f - 1, j * nx + f, u[f]);
                }
            }
        }
    }

    #[inline(always)]
    fn y_row(&self, j: usize, out: &mut [f32], scratch: &mut [f32]) {
        let (nx, ny, b) = (self.grid.nx, self.grid.ny, self.blocking);
        if j == 0 || j >= ny {
            return self.inner.y_row(j, out, scratch);
        }
        let v: &[f32] = match self.momentum {
            Some(momentum) => {
                let plain = AdvectedSwe {
                    inner: self.inner,
                    momentum,
                    skip_dry: false,
                };
                plain.y_row(j, out, scratch);
                &scratch[..nx]
            }
            None => {
                self.inner.y_row(j, out, scratch);
                &self.inner.adv.1[j * nx..(j + 1) * nx]
            }
        };
        for &i in b.rows[j - 1].iter().chain(&b.rows[j]) {
            let i = i as usize;
            out[i] = self.face((j - 1) * nx + i, j * nx + i, v[i]);
        }
    }
}
