//! Momentum-conserving upwind advection of the shallow-water face velocities (Stelling and
//! Duinmeijer 2003): the advective acceleration at a face is the upwind momentum flux through
//! the control volume around it minus the velocity times the mass flux, divided by the face
//! depth. Unlike semi-Lagrangian advection it moves bores at the right speed and carries
//! momentum to a wet-dry front, which the dam-break tests (Ritter, Stoker) check.
//!
//! Each row is a set of equal-length slices (the faces and their neighbours shifted by one) and
//! every choice a select, not a branch, so the compiler vectorises the rows; the expressions are
//! those of `shaders/momentum.wgsl`, in the same order.

use super::kernel::PassGrid;
use super::swe::DRY;
use super::wide::Row;

/// The x-face velocities of one row advected: the faces `1..nx` of row `j`, from the row's
/// velocities `u` (`nx + 1`), those of the rows above and below (`up`, `down`: the row itself at
/// the map's top and bottom), its depths `d` (`nx`), its x-face discharges `qx` (`nx + 1`) and
/// the y-face discharges above and below its cells (`top`, `bottom`: `nx`).
struct URow<'a> {
    inv: f32,
    dt: f32,
    u: &'a [f32],
    up: &'a [f32],
    down: &'a [f32],
    d: &'a [f32],
    qx: &'a [f32],
    top: &'a [f32],
    bottom: &'a [f32],
}

impl Row for URow<'_> {
    #[inline(always)]
    fn run(&self, out: &mut [f32]) -> f32 {
        let (inv, dt) = (self.inv, self.dt);
        let n = self.d.len() - 1;
        let (u, qx) = (self.u, self.qx);
        let (ul, uc, ur) = (&u[..n], &u[1..=n], &u[2..n + 2]);
        let (ut, ub) = (&self.up[1..=n], &self.down[1..=n]);
        let (dl, dr) = (&self.d[..n], &self.d[1..=n]);
        let (q0, q1, q2) = (&qx[..n], &qx[1..=n], &qx[2..n + 2]);
        let (tl, tr) = (&self.top[..n], &self.top[1..=n]);
        let (bl, br) = (&self.bottom[..n], &self.bottom[1..=n]);
        let out = &mut out[1..=n];
        for i in 0..n {
            let uu = uc[i];
            let hbar = 0.5 * (dl[i] + dr[i]);
            let ql = 0.5 * (q0[i] * inv + q1[i] * inv);
            let qr = 0.5 * (q1[i] * inv + q2[i] * inv);
            let west = if ql > 0.0 { ul[i] } else { uu };
            let east = if qr > 0.0 { uu } else { ur[i] };
            let ax = qr * east - ql * west - uu * (qr - ql);
            let qt = 0.5 * (tl[i] * inv + tr[i] * inv);
            let qb = 0.5 * (bl[i] * inv + br[i] * inv);
            let north = if qt > 0.0 { ut[i] } else { uu };
            let south = if qb <= 0.0 { ub[i] } else { uu };
            let ay = qb * south - qt * north - uu * (qb - qt);
            let advected = uu - dt * inv * (ax + ay) / hbar;
            out[i] = if hbar <= DRY { uu } else { advected };
        }
        0.0
    }
}

/// The y-face velocities of one interior face row `j` (between cell rows `j - 1` and `j`)
/// advected, from the row's velocities `v` and those of the face rows above and below (`nx`
/// each), the depths of the cells above and below (`d_up`, `d_down`), the y-face discharges of
/// the three face rows (`q_up`, `q`, `q_down`) and the x-face discharges of the two cell rows
/// (`x_up`, `x_down`: `nx + 1`).
struct VRow<'a> {
    inv: f32,
    dt: f32,
    v: &'a [f32],
    v_up: &'a [f32],
    v_down: &'a [f32],
    d_up: &'a [f32],
    d_down: &'a [f32],
    q_up: &'a [f32],
    q: &'a [f32],
    q_down: &'a [f32],
    x_up: &'a [f32],
    x_down: &'a [f32],
}

impl VRow<'_> {
    /// Face `i` with its west and east neighbours' velocities (its own at the map's sides); a
    /// method, not a closure, so it is inlined into the AVX2 caller.
    #[inline(always)]
    fn face(&self, i: usize, west: f32, east: f32) -> f32 {
        let ys = [
            self.v_up[i],
            self.v_down[i],
            self.q_up[i],
            self.q[i],
            self.q_down[i],
        ];
        let xs = [
            self.x_up[i],
            self.x_down[i],
            self.x_up[i + 1],
            self.x_down[i + 1],
        ];
        let h = [self.d_up[i], self.d_down[i]];
        v_face(self.v[i], [west, east], h, ys, xs, self.inv, self.dt)
    }
}

impl Row for VRow<'_> {
    #[inline(always)]
    fn run(&self, out: &mut [f32]) -> f32 {
        let (inv, dt) = (self.inv, self.dt);
        let n = self.v.len();
        let (v, vt, vb) = (self.v, &self.v_up[..n], &self.v_down[..n]);
        let (dn, ds) = (&self.d_up[..n], &self.d_down[..n]);
        let (q0, q1, q2) = (&self.q_up[..n], &self.q[..n], &self.q_down[..n]);
        let (lt, lb) = (&self.x_up[..n], &self.x_down[..n]);
        let (rt, rb) = (&self.x_up[1..=n], &self.x_down[1..=n]);
        let out = &mut out[..n];
        if n == 1 {
            out[0] = self.face(0, v[0], v[0]);
            return 0.0;
        }
        out[0] = self.face(0, v[0], v[1]);
        out[n - 1] = self.face(n - 1, v[n - 2], v[n - 1]);
        let m = n - 2;
        let (west, vc, east) = (&v[..m], &v[1..=m], &v[2..]);
        let (vt, vb, dn, ds) = (&vt[1..=m], &vb[1..=m], &dn[1..=m], &ds[1..=m]);
        let (q0, q1, q2) = (&q0[1..=m], &q1[1..=m], &q2[1..=m]);
        let (lt, lb, rt, rb) = (&lt[1..=m], &lb[1..=m], &rt[1..=m], &rb[1..=m]);
        let inner = &mut out[1..=m];
        for i in 0..m {
            let ys = [vt[i], vb[i], q0[i], q1[i], q2[i]];
            let xs = [lt[i], lb[i], rt[i], rb[i]];
            inner[i] = v_face(vc[i], [west[i], east[i]], [dn[i], ds[i]], ys, xs, inv, dt);
        }
        0.0
    }
}

/// One y-face velocity advected: its own `vv`, its west and east neighbours' `we`, the depths
/// above and below `h`, the velocities above and below and the discharges above, at and below
/// it `ys`, and the x-face discharges west (above, below) and east (above, below) `xs`.
#[inline(always)]
fn v_face(
    vv: f32,
    we: [f32; 2],
    h: [f32; 2],
    ys: [f32; 5],
    xs: [f32; 4],
    inv: f32,
    dt: f32,
) -> f32 {
    let [vt, vb, q0, q1, q2] = ys;
    let [lt, lb, rt, rb] = xs;
    let hbar = 0.5 * (h[0] + h[1]);
    let qt = 0.5 * (q0 * inv + q1 * inv);
    let qb = 0.5 * (q1 * inv + q2 * inv);
    let north = if qt > 0.0 { vt } else { vv };
    let south = if qb > 0.0 { vv } else { vb };
    let ay = qb * south - qt * north - vv * (qb - qt);
    let ql = 0.5 * (lt * inv + lb * inv);
    let qr = 0.5 * (rt * inv + rb * inv);
    let west = if ql > 0.0 { we[0] } else { vv };
    let east = if qr <= 0.0 { we[1] } else { vv };
    let ax = qr * east - ql * west - vv * (qr - ql);
    let advected = vv - dt * inv * (ax + ay) / hbar;
    if hbar <= DRY { vv } else { advected }
}

/// What the momentum advection of one face row reads: the face velocities `u`, `v`, the depths
/// and the last step's limited discharges `qx`, `qy` (m³/s).
#[derive(Clone, Copy)]
pub(crate) struct Momentum<'a> {
    pub grid: PassGrid,
    pub u: &'a [f32],
    pub v: &'a [f32],
    pub depth: &'a [f32],
    pub qx: &'a [f32],
    pub qy: &'a [f32],
}

impl<'a> Momentum<'a> {
    /// The row of x-faces `j` between the cells `lo..hi` of the row (written to
    /// `out[lo + 1..hi]`; the faces at `lo` and `hi` are left as they are): the whole row is
    /// `(0, nx)`.
    #[inline(always)]
    fn x_faces(&self, j: usize, (lo, hi): (usize, usize)) -> URow<'a> {
        let PassGrid { nx, ny, dt, dx } = self.grid;
        let w = nx + 1;
        let urow = |j: usize| &self.u[j * w + lo..=j * w + hi];
        URow {
            inv: 1.0 / dx,
            dt,
            u: urow(j),
            up: urow(j.max(1) - 1),
            down: urow((j + 1).min(ny - 1)),
            d: &self.depth[j * nx + lo..j * nx + hi],
            qx: &self.qx[j * w + lo..=j * w + hi],
            top: &self.qy[j * nx + lo..j * nx + hi],
            bottom: &self.qy[(j + 1) * nx + lo..(j + 1) * nx + hi],
        }
    }

    /// The interior row of y-faces `j` (`0 < j < ny`) of the columns `lo..hi`, whose outer
    /// faces take their own velocity for the one beyond (at the map's sides, where nothing is
    /// beyond; inside it, where the window's edge is quiet and the velocity is not used).
    #[inline(always)]
    fn y_faces(&self, j: usize, (lo, hi): (usize, usize)) -> VRow<'a> {
        let PassGrid { nx, dt, dx, .. } = self.grid;
        let w = nx + 1;
        let vrow = |j: usize| &self.v[j * nx + lo..j * nx + hi];
        let cells = |j: usize| &self.depth[j * nx + lo..j * nx + hi];
        let yrow = |j: usize| &self.qy[j * nx + lo..j * nx + hi];
        let xrow = |j: usize| &self.qx[j * w + lo..=j * w + hi];
        VRow {
            inv: 1.0 / dx,
            dt,
            v: vrow(j),
            v_up: vrow(j - 1),
            v_down: vrow(j + 1),
            d_up: cells(j - 1),
            d_down: cells(j),
            q_up: yrow(j - 1),
            q: yrow(j),
            q_down: yrow(j + 1),
            x_up: xrow(j - 1),
            x_down: xrow(j),
        }
    }

    /// The advected velocities of the x-faces of row `j` between the cells `lo..hi` into
    /// `out[lo + 1..hi]` (`(0, nx)`: the interior faces), in the caller's vector width (the
    /// caller is compiled for it).
    #[inline(always)]
    pub fn x_row(&self, j: usize, (lo, hi): (usize, usize), out: &mut [f32]) {
        self.x_faces(j, (lo, hi)).run(&mut out[lo..=hi]);
    }

    /// The advected velocities of the interior y-face row `j` (`0 < j < ny`) of the columns
    /// `lo..hi` into `out[lo..hi]`.
    #[inline(always)]
    pub fn y_row(&self, j: usize, (lo, hi): (usize, usize), out: &mut [f32]) {
        self.y_faces(j, (lo, hi)).run(&mut out[lo..hi]);
    }
}

#[cfg(test)]
impl super::swe::Velocities {
    /// Advects both velocity components over `g.dt` using the last step's limited discharges
    /// `qx`, `qy` (m³/s) and the current depths (the solver advects row by row inside the flow
    /// pass, [`Momentum`]; the tests compare the rows with a plain loop through this).
    pub fn advect_conservative(&mut self, g: PassGrid, depth: &[f32], qx: &[f32], qy: &[f32]) {
        use super::wide::wide;
        use rayon::prelude::*;
        let PassGrid { nx, ny, .. } = g;
        let w = nx + 1;
        let (u, v) = (&self.u, &self.v);
        let m = Momentum {
            grid: g,
            u,
            v,
            depth,
            qx,
            qy,
        };
        self.u_adv
            .par_chunks_mut(w)
            .enumerate()
            .for_each(|(j, row)| {
                row[0] = u[j * w];
                row[nx] = u[j * w + nx];
                wide(&m.x_faces(j, (0, nx)), row);
            });
        self.v_adv
            .par_chunks_mut(nx)
            .enumerate()
            .for_each(|(j, row)| {
                if j == 0 || j == ny {
                    row.copy_from_slice(&v[j * nx..(j + 1) * nx]);
                    return;
                }
                wide(&m.y_faces(j, (0, nx)), row);
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The advection as a plain loop over faces with branches (the code the rows replaced).
    fn reference(g: PassGrid, u: &[f32], v: &[f32], d: &[f32], qx: &[f32], qy: &[f32]) -> Vec<f32> {
        let PassGrid { nx, ny, dt, dx } = g;
        let (w, inv) = (nx + 1, 1.0 / dx);
        let mut out = u.to_vec();
        for j in 0..ny {
            for i in 1..nx {
                let uu = u[j * w + i];
                let hbar = 0.5 * (d[j * nx + i - 1] + d[j * nx + i]);
                if hbar <= DRY {
                    continue;
                }
                let ql = 0.5 * (qx[j * w + i - 1] * inv + qx[j * w + i] * inv);
                let qr = 0.5 * (qx[j * w + i] * inv + qx[j * w + i + 1] * inv);
                let ul = if ql > 0.0 { u[j * w + i - 1] } else { uu };
                let ur = if qr > 0.0 { uu } else { u[j * w + i + 1] };
                let ax = qr * ur - ql * ul - uu * (qr - ql);
                let qt = 0.5 * (qy[j * nx + i - 1] * inv + qy[j * nx + i] * inv);
                let qb = 0.5 * (qy[(j + 1) * nx + i - 1] * inv + qy[(j + 1) * nx + i] * inv);
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
                out[j * w + i] = uu - dt * inv * (ax + ay) / hbar;
            }
        }
        let mut vout = v.to_vec();
        for j in 1..ny {
            for i in 0..nx {
                let vv = v[j * nx + i];
                let hbar = 0.5 * (d[(j - 1) * nx + i] + d[j * nx + i]);
                if hbar <= DRY {
                    continue;
                }
                let qt = 0.5 * (qy[(j - 1) * nx + i] * inv + qy[j * nx + i] * inv);
                let qb = 0.5 * (qy[j * nx + i] * inv + qy[(j + 1) * nx + i] * inv);
                let vt = if qt > 0.0 { v[(j - 1) * nx + i] } else { vv };
                let vb = if qb > 0.0 { vv } else { v[(j + 1) * nx + i] };
                let ay = qb * vb - qt * vt - vv * (qb - qt);
                let ql = 0.5 * (qx[(j - 1) * w + i] * inv + qx[j * w + i] * inv);
                let qr = 0.5 * (qx[(j - 1) * w + i + 1] * inv + qx[j * w + i + 1] * inv);
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
                vout[j * nx + i] = vv - dt * inv * (ax + ay) / hbar;
            }
        }
        out.extend(vout);
        out
    }

    #[test]
    fn the_vectorised_rows_advect_exactly_as_the_plain_loop() {
        let mut seed = 7u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        for (nx, ny) in [(1, 1), (1, 5), (5, 1), (2, 2), (37, 23), (64, 9)] {
            let g = PassGrid {
                nx,
                ny,
                dt: 0.05,
                dx: 1.5,
            };
            let mut field =
                |n: usize, scale: f32| (0..n).map(|_| next() * scale).collect::<Vec<_>>();
            let (u, v) = (field((nx + 1) * ny, 4.0), field(nx * (ny + 1), 4.0));
            let (qx, qy) = (field((nx + 1) * ny, 6.0), field(nx * (ny + 1), 6.0));
            // Depths from dry (a third of the cells, some exactly 0) to 2 m.
            let d: Vec<f32> = field(nx * ny, 4.0).iter().map(|x| x.max(0.0)).collect();
            let mut vel = super::super::swe::Velocities::zero(nx, ny);
            vel.u.copy_from_slice(&u);
            vel.v.copy_from_slice(&v);
            vel.advect_conservative(g, &d, &qx, &qy);
            let got: Vec<u32> = vel
                .u_adv
                .iter()
                .chain(&vel.v_adv)
                .map(|x| x.to_bits())
                .collect();
            let want: Vec<u32> = reference(g, &u, &v, &d, &qx, &qy)
                .iter()
                .map(|x| x.to_bits())
                .collect();
            assert_eq!(got, want, "{nx} × {ny}");
        }
    }
}
