//! The fused flow-limit-depth pass shared by both solvers.
//!
//! Given accelerated, not yet limited face discharges (from [`FaceAccel`]), every face is scaled
//! by the outflow-limiting factor of its upwind cell, so no cell gives more water than it holds,
//! and depths are updated from the limited flows. Rows are processed in bands with rolling row
//! buffers, so each face is accelerated once per band and the pass streams the grids once:
//! it reads terrain, depth and old flows and writes new flows and new depth (28 bytes per cell).
//! Every value depends only on its inputs, never on the band split, so results are bit-identical
//! for any thread count. Where the accelerator says where the water is ([`FaceAccel::quiet`]), a
//! band is computed only over the columns near it ([`super::quiet`]), with the same results.

use rayon::prelude::*;

use super::quiet::{QuietScan, band_window};
use super::swe::StoreRows;
use super::wide::{Vectors, select, vectors};

/// Produces accelerated, unlimited face discharges (m³/s, positive along +x or +y).
pub(crate) trait FaceAccel: Sync {
    /// Fills `out[0..=nx]` with the x-faces of row `j` (faces 0 and nx are the borders), with
    /// `scratch` (at least `2·(nx + 1)` values, the band's) to work in.
    fn x_row(&self, j: usize, out: &mut [f32], scratch: &mut [f32]);
    /// Fills `out[0..nx]` with the y-faces of face row `j` (0..=ny; 0 and ny are the borders),
    /// with `scratch` as [`Self::x_row`].
    fn y_row(&self, j: usize, out: &mut [f32], scratch: &mut [f32]);
    /// The state the step starts from, to find where it can change nothing
    /// ([`super::quiet`]); `None` (the default) where every row is computed whole.
    fn quiet(&self) -> Option<QuietScan<'_>> {
        None
    }
    /// [`Self::x_row`] for the cells `lo..hi` of the row only: fills `out[lo + 1..hi]`, and
    /// `out[0]` and `out[nx]` where the window reaches the borders. Called only where
    /// [`Self::quiet`] is given; the default computes the whole row.
    fn x_row_in(&self, j: usize, _win: (usize, usize), out: &mut [f32], scratch: &mut [f32]) {
        self.x_row(j, out, scratch);
    }
    /// [`Self::y_row`] for the columns `lo..hi` only (`out[lo..hi]`), as [`Self::x_row_in`].
    fn y_row_in(&self, j: usize, _win: (usize, usize), out: &mut [f32], scratch: &mut [f32]) {
        self.y_row(j, out, scratch);
    }
}

/// What the pass saw: the deepest cell, and the first cell that went non-finite.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PassReport {
    /// Largest new depth, metres.
    pub max_depth: f32,
    /// Index of a cell whose new depth was not finite (a blow-up), if any.
    pub blow_up: Option<usize>,
    /// Largest face speed kept, m/s (0 unless the pass keeps the face velocities).
    pub max_speed: f32,
}

/// Where the pass keeps the face velocities of the limited faces (the momentum schemes'
/// store, without front extension): x-face velocities (`(nx+1)·ny`), y-face velocities
/// (`nx·(ny+1)`), and how.
pub(crate) type Store<'a> = (&'a mut [f32], &'a mut [f32], StoreRows);

/// Grid geometry and time step of one pass.
#[derive(Clone, Copy)]
pub(crate) struct PassGrid {
    pub nx: usize,
    pub ny: usize,
    pub dt: f32,
    pub dx: f32,
}

/// Runs the limit-and-update pass, writing `qx_new` (`(nx+1)·ny`), `qy_new` (`nx·(ny+1)`) and
/// `d_new` (`nx·ny`) from `d_old` and the accelerations, and with `store` the velocities of the
/// limited faces.
///
/// `carry` holds, per cell, the part of past depth changes that `f32` could not represent
/// (compensated summation): a lake that rises by less than half an ulp per step still fills,
/// and volume is conserved to far better than `f32` rounding.
#[allow(clippy::too_many_arguments)]
pub(crate) fn limit_and_update(
    acc: &impl FaceAccel,
    g: PassGrid,
    d_old: &[f32],
    qx_new: &mut [f32],
    qy_new: &mut [f32],
    d_new: &mut [f32],
    carry: &mut [f32],
    store: Option<Store>,
) -> PassReport {
    let PassGrid { nx, ny, .. } = g;
    let threads = rayon::current_num_threads().max(1);
    let band = (ny / (threads * 4)).clamp(8, 64).min(ny);
    // Split the outputs into bands of rows; the last band also owns the south border face row.
    let mut bands = Vec::new();
    let (mut qx_rest, mut qy_rest, mut d_rest, mut c_rest) = (qx_new, qy_new, d_new, carry);
    let store_rows = store.as_ref().map(|s| s.2);
    let (mut u_rest, mut v_rest): (&mut [f32], &mut [f32]) = match store {
        Some((u, v, _)) => (u, v),
        None => (&mut [], &mut []),
    };
    let mut j0 = 0;
    while j0 < ny {
        let j1 = (j0 + band).min(ny);
        let rows = j1 - j0;
        let face_rows = if j1 == ny { rows + 1 } else { rows };
        let (qx_b, qx_r) = std::mem::take(&mut qx_rest).split_at_mut(rows * (nx + 1));
        let (qy_b, qy_r) = std::mem::take(&mut qy_rest).split_at_mut(face_rows * nx);
        let (d_b, d_r) = std::mem::take(&mut d_rest).split_at_mut(rows * nx);
        let (c_b, c_r) = std::mem::take(&mut c_rest).split_at_mut(rows * nx);
        let vel = match store_rows {
            Some(_) => {
                let (u_b, u_r) = std::mem::take(&mut u_rest).split_at_mut(rows * (nx + 1));
                let (v_b, v_r) = std::mem::take(&mut v_rest).split_at_mut(face_rows * nx);
                (u_rest, v_rest) = (u_r, v_r);
                Some((u_b, v_b))
            }
            None => None,
        };
        bands.push((
            j0,
            j1,
            qx_b,
            qy_b,
            Rows {
                depth: d_b,
                carry: c_b,
            },
            vel,
        ));
        (qx_rest, qy_rest, d_rest, c_rest) = (qx_r, qy_r, d_r, c_r);
        j0 = j1;
    }
    let reports: Vec<PassReport> = bands
        .into_par_iter()
        .map(|(j0, j1, qx_b, qy_b, d_b, vel)| {
            let band = Band {
                j0,
                j1,
                qx_b,
                qy_b,
                d_b,
                vel: vel.zip(store_rows),
            };
            #[cfg(target_arch = "x86_64")]
            match vectors() {
                // SAFETY: `vectors` never exceeds what the CPU has.
                Vectors::Avx512 => return unsafe { run_band_avx512(acc, g, d_old, band) },
                // SAFETY: as above.
                Vectors::Avx2 => return unsafe { run_band_avx2(acc, g, d_old, band) },
                Vectors::Baseline => {}
            }
            run_band(acc, g, d_old, band)
        })
        .collect();
    reports
        .iter()
        .fold(PassReport::default(), |a, r| PassReport {
            max_depth: a.max_depth.max(r.max_depth),
            blow_up: a.blow_up.or(r.blow_up),
            max_speed: a.max_speed.max(r.max_speed),
        })
}

/// The new depths and carries of a band of rows.
struct Rows<'a> {
    depth: &'a mut [f32],
    carry: &'a mut [f32],
}

/// Outflow-limiting factors of one row: the share of each cell's accelerated outflow it can
/// actually supply this step.
#[inline(always)]
fn limits(ax: &[f32], ay_top: &[f32], ay_bot: &[f32], d: &[f32], vol_rate: f32, k: &mut [f32]) {
    let n = k.len();
    let (ax, ay_top, ay_bot, d) = (&ax[..n + 1], &ay_top[..n], &ay_bot[..n], &d[..n]);
    for i in 0..n {
        let out =
            (-ax[i]).max(0.0) + ax[i + 1].max(0.0) + (-ay_top[i]).max(0.0) + ay_bot[i].max(0.0);
        let vol = d[i] * vol_rate;
        k[i] = select(out > vol, vol / out, 1.0);
    }
}

/// A band's x- and y-face velocities to keep, and how.
type BandVelocities<'a> = ((&'a mut [f32], &'a mut [f32]), StoreRows);

/// The rows `j0..j1` one worker computes, with its slices of the outputs.
struct Band<'a> {
    j0: usize,
    j1: usize,
    qx_b: &'a mut [f32],
    qy_b: &'a mut [f32],
    d_b: Rows<'a>,
    /// The band's x- and y-face velocities to keep, and how.
    vel: Option<BandVelocities<'a>>,
}

/// [`run_band`] compiled for AVX2: the same element-wise IEEE operations in wider registers
/// (no fused multiply-add), so results are bit-identical to the baseline build.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn run_band_avx2(acc: &impl FaceAccel, g: PassGrid, d_old: &[f32], band: Band) -> PassReport {
    run_band(acc, g, d_old, band)
}

/// [`run_band`] compiled for AVX-512 (sixteen lanes), bit-identical as [`run_band_avx2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn run_band_avx512(acc: &impl FaceAccel, g: PassGrid, d_old: &[f32], band: Band) -> PassReport {
    run_band(acc, g, d_old, band)
}

#[inline(always)]
fn run_band(acc: &impl FaceAccel, g: PassGrid, d_old: &[f32], band: Band) -> PassReport {
    let Band {
        j0,
        j1,
        qx_b,
        qy_b,
        mut d_b,
        mut vel,
    } = band;
    let PassGrid { nx, ny, dt, dx } = g;
    // The columns this band's step can change (the whole width unless the accelerator says
    // where the water is): the rest keeps its quiet values, the same bit for bit.
    let window = match acc.quiet() {
        Some(scan) => band_window(&scan, j0, j1, d_b.carry),
        None => Some((0, nx)),
    };
    let Some((lo, hi)) = window else {
        qx_b.fill(0.0);
        qy_b.fill(0.0);
        d_b.depth.copy_from_slice(&d_old[j0 * nx..j1 * nx]);
        if let Some(((ub, vb), _)) = vel {
            ub.fill(0.0);
            vb.fill(0.0);
        }
        return PassReport::default();
    };
    let win = Window { lo, hi, nx };
    let vol_rate = dx * dx / dt;
    let mut ax = vec![0.0f32; nx + 1];
    let mut ay_top = vec![0.0f32; nx];
    let mut ay_bot = vec![0.0f32; nx];
    let mut k_prev = vec![1.0f32; nx];
    let mut k_cur = vec![1.0f32; nx];
    let mut halo = vec![0.0f32; nx]; // limited flows of the face row just past the band
    let mut scratch = vec![0.0f32; 2 * (nx + 1)];
    let mut report = PassReport::default();
    let cells = lo..hi;

    win.y_faces(acc, j0, &mut ay_top, &mut scratch);
    if j0 > 0 {
        // Halo: limiting factors of the row above the band.
        win.x_faces(acc, j0 - 1, &mut ax, &mut scratch);
        win.y_faces(acc, j0 - 1, &mut ay_bot, &mut scratch);
        let row = &d_old[(j0 - 1) * nx..j0 * nx];
        win.limits([&ax, &ay_bot, &ay_top], row, vol_rate, &mut k_prev);
    }
    let last = if j1 < ny { j1 } else { ny - 1 };
    for j in j0..=last {
        win.x_faces(acc, j, &mut ax, &mut scratch);
        win.y_faces(acc, j + 1, &mut ay_bot, &mut scratch);
        let d_row = &d_old[j * nx..(j + 1) * nx];
        win.limits([&ax, &ay_top, &ay_bot], d_row, vol_rate, &mut k_cur);
        let top_k = if j == 0 { 1.0 } else { 0.0 };
        let local = j - j0;
        // Face row j goes straight into the band's output, or into `halo` just past the band.
        let (done, rest) = qy_b.split_at_mut(local * nx);
        let fy_row: &mut [f32] = if j < j1 { &mut rest[..nx] } else { &mut halo };
        let faces = fy_row[cells.clone()].iter_mut().zip(&ay_top[cells.clone()]);
        let ks = k_prev[cells.clone()].iter().zip(&k_cur[cells.clone()]);
        for ((out, &q), (&kp, &kc)) in faces.zip(ks) {
            // From the row above (or from outside the map at j = 0), else from this row.
            *out = q * select(q > 0.0, kp.max(top_k), kc);
        }
        win.quiet_faces(fy_row, 0);
        if let (Some(((_, vb), st)), true) = (vel.as_mut(), j < j1) {
            let (q, out) = (&rest[..nx], &mut vb[local * nx..(local + 1) * nx]);
            let speed = if j == 0 {
                st.border_row(
                    &q[cells.clone()],
                    &d_old[cells.clone()],
                    &mut out[cells.clone()],
                )
            } else {
                let (up, down) = (&d_old[(j - 1) * nx..j * nx], &d_old[j * nx..(j + 1) * nx]);
                let (up, down) = (&up[cells.clone()], &down[cells.clone()]);
                st.y_row(&q[cells.clone()], up, down, &mut out[cells.clone()])
            };
            win.quiet_faces(out, 0);
            report.max_speed = report.max_speed.max(speed);
        }
        if j < j1 {
            let qx_row = &mut qx_b[local * (nx + 1)..(local + 1) * (nx + 1)];
            // Border faces: outflow limited by the edge cell, inflow from outside unlimited.
            if lo == 0 {
                qx_row[0] = if ax[0] > 0.0 { ax[0] } else { ax[0] * k_cur[0] };
            }
            if hi == nx {
                qx_row[nx] = if ax[nx] > 0.0 {
                    ax[nx] * k_cur[nx - 1]
                } else {
                    ax[nx]
                };
            }
            let inner = lo + 1..hi;
            let faces = qx_row[inner.clone()].iter_mut().zip(&ax[inner]);
            for ((out, &q), (&kl, &kr)) in faces.zip(k_cur[lo..hi].iter().zip(&k_cur[lo + 1..hi])) {
                *out = q * select(q > 0.0, kl, kr);
            }
            if lo > 0 {
                qx_row[lo] = 0.0;
            }
            if hi < nx {
                qx_row[hi] = 0.0;
            }
            win.quiet_faces(qx_row, 1);
            if let Some(((ub, _), st)) = vel.as_mut() {
                let out = &mut ub[local * (nx + 1)..(local + 1) * (nx + 1)];
                let speed = st.x_row_in(qx_row, d_row, (lo, hi), out);
                win.quiet_faces(out, 1);
                report.max_speed = report.max_speed.max(speed);
            }
        }
        if j > j0 {
            let fy_prev = &done[(local - 1) * nx..];
            let fy_row: &[f32] = if j < j1 { &rest[..nx] } else { &halo };
            let rows = UpdateRows {
                fy_in: fy_prev,
                fy_out: fy_row,
            };
            update_row(
                j - 1,
                j0,
                g,
                (lo, hi),
                d_old,
                qx_b,
                rows,
                &mut d_b,
                &mut report,
            );
        }
        if j == ny - 1 && j < j1 {
            // South border face row: outflow limited by this row, inflow from outside unlimited.
            let (row, south) = rest.split_at_mut(nx);
            let faces = south[cells.clone()].iter_mut().zip(&ay_bot[cells.clone()]);
            for ((out, &q), &k) in faces.zip(&k_cur[cells.clone()]) {
                *out = if q > 0.0 { q * k } else { q };
            }
            win.quiet_faces(south, 0);
            if let Some(((_, vb), st)) = vel.as_mut() {
                let out = &mut vb[(local + 1) * nx..(local + 2) * nx];
                let speed = st.border_row(
                    &south[cells.clone()],
                    &d_row[cells.clone()],
                    &mut out[cells.clone()],
                );
                win.quiet_faces(out, 0);
                report.max_speed = report.max_speed.max(speed);
            }
            let rows = UpdateRows {
                fy_in: row,
                fy_out: south,
            };
            update_row(j, j0, g, (lo, hi), d_old, qx_b, rows, &mut d_b, &mut report);
        }
        std::mem::swap(&mut k_prev, &mut k_cur);
        std::mem::swap(&mut ay_top, &mut ay_bot);
    }
    report
}

/// The columns `lo..hi` of a band's cells its step computes (of `nx`).
#[derive(Clone, Copy)]
struct Window {
    lo: usize,
    hi: usize,
    nx: usize,
}

impl Window {
    /// The accelerated x-faces of row `j` over the window: the whole row where it is the
    /// whole width, else its faces, with those at its edges (between quiet cells) `+0.0`.
    #[inline(always)]
    fn x_faces(self, acc: &impl FaceAccel, j: usize, out: &mut [f32], scratch: &mut [f32]) {
        let Self { lo, hi, nx } = self;
        if lo == 0 && hi == nx {
            acc.x_row(j, out, scratch);
            return;
        }
        acc.x_row_in(j, (lo, hi), out, scratch);
        if lo > 0 {
            out[lo] = 0.0;
        }
        if hi < nx {
            out[hi] = 0.0;
        }
    }

    /// The accelerated y-faces of face row `j` over the window's columns.
    #[inline(always)]
    fn y_faces(self, acc: &impl FaceAccel, j: usize, out: &mut [f32], scratch: &mut [f32]) {
        if self.lo == 0 && self.hi == self.nx {
            acc.y_row(j, out, scratch);
        } else {
            acc.y_row_in(j, (self.lo, self.hi), out, scratch);
        }
    }

    /// The limiting factors of a row's cells in the window ([`limits`]) from its x-faces and
    /// the y-faces above and below it (`faces`), its depths `d` and `k` whole rows.
    #[inline(always)]
    fn limits(self, faces: [&[f32]; 3], d: &[f32], vol_rate: f32, k: &mut [f32]) {
        let (lo, hi) = (self.lo, self.hi);
        let [ax, top, bottom] = faces;
        limits(
            &ax[lo..=hi],
            &top[lo..hi],
            &bottom[lo..hi],
            &d[lo..hi],
            vol_rate,
            &mut k[lo..hi],
        );
    }

    /// Quiet faces outside the window (`faces_past`: 1 for a row of x-faces, whose last face
    /// is past the last cell): none carries anything.
    #[inline(always)]
    fn quiet_faces(self, row: &mut [f32], faces_past: usize) {
        row[..self.lo].fill(0.0);
        row[self.hi + faces_past..].fill(0.0);
    }
}

/// The limited y-face rows above and below a row of cells.
struct UpdateRows<'a> {
    fy_in: &'a [f32],
    fy_out: &'a [f32],
}

/// New depths and carries of row `r` over the columns `lo..hi` from its limited faces; the
/// quiet cells outside keep their depth and carry.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn update_row(
    r: usize,
    j0: usize,
    g: PassGrid,
    (lo, hi): (usize, usize),
    d_old: &[f32],
    qx_b: &[f32],
    rows: UpdateRows,
    d_b: &mut Rows,
    report: &mut PassReport,
) {
    let nx = g.nx;
    let c = g.dt / (g.dx * g.dx);
    let local = r - j0;
    let qx = &qx_b[local * (nx + 1)..(local + 1) * (nx + 1)];
    let old_row = &d_old[r * nx..(r + 1) * nx];
    let new_row = &mut d_b.depth[local * nx..(local + 1) * nx];
    new_row[..lo].copy_from_slice(&old_row[..lo]);
    new_row[hi..].copy_from_slice(&old_row[hi..]);
    let (ql, qr) = (&qx[lo..hi], &qx[lo + 1..=hi]);
    let (fy_in, fy_out) = (&rows.fy_in[lo..hi], &rows.fy_out[lo..hi]);
    let old = &old_row[lo..hi];
    let new = &mut new_row[lo..hi];
    let carry = &mut d_b.carry[local * nx + lo..local * nx + hi];
    let n = hi - lo;
    let mut finite = true;
    for i in 0..n {
        let t = (ql[i] - qr[i] + fy_in[i] - fy_out[i]) * c + carry[i];
        let v = (old[i] + t).max(0.0);
        finite &= t.is_finite();
        carry[i] = t - (v - old[i]);
        new[i] = v;
    }
    // Lane-wise maximum: a plain f32 max fold would not vectorise.
    let mut lanes = [report.max_depth; 8];
    let chunks = new.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (l, &v) in lanes.iter_mut().zip(chunk) {
            *l = l.max(v);
        }
    }
    let max = rest
        .iter()
        .chain(&lanes)
        .fold(report.max_depth, |a, &v| a.max(v));
    report.max_depth = max;
    if !finite && report.blow_up.is_none() {
        let i = (0..n)
            .find(|&i| !(old[i] + (ql[i] - qr[i] + fy_in[i] - fy_out[i]) * c).is_finite())
            .unwrap_or(0);
        report.blow_up = Some(r * nx + lo + i);
    }
}
