//! The shallow-water solver (thesis §4.3): face velocities on the staggered grid are advected
//! semi-Lagrangian, accelerated by the surface gradient, and turned into upwind discharges
//! `Q = u·h_upwind·dx` for the shared limit-and-depth pass.

use rayon::prelude::*;

use crate::grid::bilinear_from;

use super::advect::Momentum;
use super::boundary::Edges;
use super::friction::{BedFriction, FILM};
use super::kernel::{FaceAccel, PassGrid};
use super::quiet::QuietScan;
use super::wide::{Row, select, select_bits, wide};

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
                    *out = bilinear_from(u, (nx + 1, ny), (i, j), (-(uu * s), -(vv * s)));
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
                    *out = bilinear_from(v, (nx, ny + 1), (i, j), (-(uu * s), -(vv * s)));
                }
            });
    }

    /// Takes the velocities the flow pass kept in the advected buffers (see
    /// [`StoreRows`]) as the current ones, with their largest speed.
    pub(crate) fn keep_stored(&mut self, max_speed: f32) {
        std::mem::swap(&mut self.u, &mut self.u_adv);
        std::mem::swap(&mut self.v, &mut self.v_adv);
        self.max_speed = max_speed;
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
        let w = nx + 1;
        let border = |out: &mut f32, m: &mut f32, q: f32, d: f32| border_velocity(out, m, q, d, dx);
        let cells = |j: usize| &d_old[j * nx..(j + 1) * nx];
        let mu = self
            .u_adv
            .par_chunks_mut(w)
            .enumerate()
            .map(|(j, row)| {
                let (q, d) = (&qx[j * w..(j + 1) * w], cells(j));
                let mut m = 0.0f32;
                border(&mut row[0], &mut m, q[0], d[0]);
                border(&mut row[nx], &mut m, q[nx], d[nx - 1]);
                let faces = FaceRow {
                    q: &q[1..nx],
                    d: [&d[..nx - 1], &d[1..]],
                    dx,
                    film_cap,
                };
                m.max(wide(&faces, &mut row[1..nx]))
            })
            .reduce(|| 0.0, f32::max);
        let mv = self
            .v_adv
            .par_chunks_mut(nx)
            .enumerate()
            .map(|(j, row)| {
                let q = &qy[j * nx..(j + 1) * nx];
                let mut m = 0.0f32;
                if j == 0 || j == ny {
                    for ((out, &q), &d) in row.iter_mut().zip(q).zip(cells(j.min(ny - 1))) {
                        border(out, &mut m, q, d);
                    }
                    return m;
                }
                let faces = FaceRow {
                    q,
                    d: [cells(j - 1), cells(j)],
                    dx,
                    film_cap,
                };
                m.max(wide(&faces, row))
            })
            .reduce(|| 0.0, f32::max);
        self.max_speed = mu.max(mv);
        if !extend_fronts {
            // Every face was written: the new velocities are the advected buffers.
            std::mem::swap(&mut self.u, &mut self.u_adv);
            std::mem::swap(&mut self.v, &mut self.v_adv);
            return;
        }
        // A still face takes the velocity of the face behind it when that one flows toward it.
        let extend = |here: f32, behind: f32, ahead: f32| {
            if here != 0.0 {
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
    }
}

/// A border face's velocity: its outside depth is unknown here, so it takes the edge cell's
/// depth `d`, and has no speed at all over a film thinner than `BORDER_FILM`. Raises `m` to
/// its speed.
#[inline(always)]
fn border_velocity(out: &mut f32, m: &mut f32, q: f32, d: f32, dx: f32) {
    *out = 0.0;
    if d > BORDER_FILM {
        *out = q / (d * dx);
        *m = m.max(out.abs());
    }
}

/// What the flow pass needs to keep each face's velocity as it limits the face (the store of
/// [`Velocities::store`] without front extension, done in the caller's vector width).
#[derive(Clone, Copy)]
pub(crate) struct StoreRows {
    pub dx: f32,
    pub film_cap: f32,
}

impl StoreRows {
    /// The velocities of x-face row `q` (`nx + 1` limited discharges) over the cells `d`
    /// (`nx`) into `out`, for the cells `lo..hi` of the row only: the faces between them, and
    /// the border faces where the window reaches them (`(0, nx)`: the whole row). Returns the
    /// largest speed among them.
    #[inline(always)]
    pub fn x_row_in(&self, q: &[f32], d: &[f32], (lo, hi): (usize, usize), out: &mut [f32]) -> f32 {
        let nx = d.len();
        let mut m = 0.0f32;
        // A face at the window's edge inside the map lies between quiet cells.
        if lo == 0 {
            border_velocity(&mut out[0], &mut m, q[0], d[0], self.dx);
        } else {
            out[lo] = 0.0;
        }
        if hi == nx {
            border_velocity(&mut out[nx], &mut m, q[nx], d[nx - 1], self.dx);
        } else {
            out[hi] = 0.0;
        }
        let faces = FaceRow {
            q: &q[lo + 1..hi],
            d: [&d[lo..hi - 1], &d[lo + 1..hi]],
            dx: self.dx,
            film_cap: self.film_cap,
        };
        m.max(faces.run(&mut out[lo + 1..hi]))
    }

    /// The velocities of an interior y-face row `q` between the cells `up` and `down`.
    #[inline(always)]
    pub fn y_row(&self, q: &[f32], up: &[f32], down: &[f32], out: &mut [f32]) -> f32 {
        let faces = FaceRow {
            q,
            d: [up, down],
            dx: self.dx,
            film_cap: self.film_cap,
        };
        0.0f32.max(faces.run(out))
    }

    /// The velocities of a border y-face row `q` beside the cells `d`.
    #[inline(always)]
    pub fn border_row(&self, q: &[f32], d: &[f32], out: &mut [f32]) -> f32 {
        let mut m = 0.0f32;
        for ((out, &q), &d) in out.iter_mut().zip(q).zip(d) {
            border_velocity(out, &mut m, q, d, self.dx);
        }
        m
    }
}

/// Accelerates advected velocities by the surface gradient and returns upwind discharges.
#[derive(Clone, Copy)]
pub(crate) struct SweAccel<'a> {
    pub grid: PassGrid,
    pub terrain: &'a [f32],
    pub depth: &'a [f32],
    /// The advected face velocities: x-faces, y-faces.
    pub adv: (&'a [f32], &'a [f32]),
    pub edges: &'a Edges,
    pub g_dt: f32,
    pub fr: BedFriction<'a>,
}

impl SweAccel<'_> {
    /// The faces between the cells `l0..l0 + n` and `r0..r0 + n` (`n = out.len()`) from their
    /// advected velocities `u`: [`Self::face`] as one loop per friction law, with or without a
    /// roughness grid, every choice a select, so it vectorises.
    #[inline(always)]
    fn faces(&self, (l0, r0): (usize, usize), u: &[f32], out: &mut [f32]) {
        let n = out.len();
        let (t, d) = (self.terrain, self.depth);
        let cells = |k: usize| (&t[k..k + n], &d[k..k + n]);
        let ((bl, dl), (br, dr)) = (cells(l0), cells(r0));
        let rows = self.fr.n_rows(l0, r0, n);
        match (self.fr.law(), rows) {
            (0, None) => self.law_faces::<0>((bl, dl, br, dr), u, None, out),
            (1, None) => self.law_faces::<1>((bl, dl, br, dr), u, None, out),
            (_, None) => self.law_faces::<2>((bl, dl, br, dr), u, None, out),
            (0, rows) => self.law_faces::<0>((bl, dl, br, dr), u, rows, out),
            (1, rows) => self.law_faces::<1>((bl, dl, br, dr), u, rows, out),
            (_, rows) => self.law_faces::<2>((bl, dl, br, dr), u, rows, out),
        }
    }

    #[allow(clippy::type_complexity)]
    #[inline(always)]
    fn law_faces<const LAW: u8>(
        &self,
        (bl, dl, br, dr): (&[f32], &[f32], &[f32], &[f32]),
        u: &[f32],
        rows: Option<(&[f32], &[f32])>,
        out: &mut [f32],
    ) {
        let n = out.len();
        let (bl, dl, br, dr, u) = (&bl[..n], &dl[..n], &br[..n], &dr[..n], &u[..n]);
        match rows {
            Some((nl, nr)) => {
                let (nl, nr) = (&nl[..n], &nr[..n]);
                for i in 0..n {
                    let nf = 0.5 * (nl[i] + nr[i]);
                    out[i] = self.one_face::<LAW>((bl[i], dl[i], br[i], dr[i]), u[i], nf * nf);
                }
            }
            None => {
                for i in 0..n {
                    out[i] = self.one_face::<LAW>((bl[i], dl[i], br[i], dr[i]), u[i], 1.0);
                }
            }
        }
    }

    /// [`Self::face`] without branches, the friction law `LAW` chosen at compile time.
    #[inline(always)]
    fn one_face<const LAW: u8>(
        &self,
        (bl, dl, br, dr): (f32, f32, f32, f32),
        u_adv: f32,
        n2: f32,
    ) -> f32 {
        let (hl, hr) = (bl + dl, br + dr);
        let h_face = hl.max(hr) - bl.max(br);
        let accel = self.g_dt * (hl - hr) / self.grid.dx;
        let u = self.fr.law_velocity::<LAW>(u_adv, accel, h_face, n2);
        let h = select(u > 0.0, dl, dr);
        select(h_face <= DRY, 0.0, u * h * self.grid.dx)
    }

    /// The x-faces of row `j` between the cells `lo..hi` (`out[lo + 1..hi]`, and the border
    /// faces where the window reaches them) from the advected velocities `u` of that row
    /// (`nx + 1`).
    #[inline(always)]
    fn x_row_from(&self, j: usize, u: &[f32], (lo, hi): (usize, usize), out: &mut [f32]) {
        let nx = self.grid.nx;
        if lo == 0 {
            out[0] = self.edges.faces[0][j];
        }
        if hi == nx {
            out[nx] = self.edges.faces[1][j];
        }
        let l0 = j * nx + lo;
        self.faces((l0, l0 + 1), &u[lo + 1..hi], &mut out[lo + 1..hi]);
    }

    /// The y-face row `j` (`0..=ny`; the borders from the edges) of the columns `lo..hi` from
    /// its advected velocities `v` (`nx`; unread on the borders).
    #[inline(always)]
    fn y_row_from(&self, j: usize, v: &[f32], (lo, hi): (usize, usize), out: &mut [f32]) {
        let nx = self.grid.nx;
        if j == 0 || j == self.grid.ny {
            let edge = if j == 0 { 2 } else { 3 };
            out[lo..hi].copy_from_slice(&self.edges.faces[edge][lo..hi]);
        } else {
            let up = (j - 1) * nx + lo;
            self.faces((up, up + nx), &v[lo..hi], &mut out[lo..hi]);
        }
    }
}

impl FaceAccel for SweAccel<'_> {
    #[inline(always)]
    fn x_row(&self, j: usize, out: &mut [f32], _scratch: &mut [f32]) {
        let nx = self.grid.nx;
        self.x_row_from(
            j,
            &self.adv.0[j * (nx + 1)..(j + 1) * (nx + 1)],
            (0, nx),
            out,
        );
    }

    #[inline(always)]
    fn y_row(&self, j: usize, out: &mut [f32], _scratch: &mut [f32]) {
        let nx = self.grid.nx;
        let v = if j == 0 || j == self.grid.ny {
            &[][..]
        } else {
            &self.adv.1[j * nx..(j + 1) * nx]
        };
        self.y_row_from(j, v, (0, nx), out);
    }
}

/// The shallow-water faces with momentum-conserving advection done row by row as the flow pass
/// asks for each face row (the advected velocities stay in a per-band scratch row instead of
/// going through two grids; the same expressions, so the same results). `inner.adv` is unused.
pub(crate) struct AdvectedSwe<'a> {
    pub inner: SweAccel<'a>,
    pub momentum: Momentum<'a>,
    /// Whether the flow pass may leave out quiet columns ([`FaceAccel::quiet`]).
    pub skip_dry: bool,
}

impl AdvectedSwe<'_> {
    /// The x-faces of row `j` between the cells `lo..hi` (see [`FaceAccel::x_row_in`]).
    #[inline(always)]
    fn x_faces(&self, j: usize, (lo, hi): (usize, usize), out: &mut [f32], scratch: &mut [f32]) {
        let adv = &mut scratch[..self.inner.grid.nx + 1];
        self.momentum.x_row(j, (lo, hi), adv);
        self.inner.x_row_from(j, adv, (lo, hi), out);
    }

    /// The y-face row `j` of the columns `lo..hi` (see [`FaceAccel::y_row_in`]).
    #[inline(always)]
    fn y_faces(&self, j: usize, (lo, hi): (usize, usize), out: &mut [f32], scratch: &mut [f32]) {
        let a = &self.inner;
        let adv = &mut scratch[..a.grid.nx];
        if j != 0 && j != a.grid.ny {
            self.momentum.y_row(j, (lo, hi), adv);
        }
        a.y_row_from(j, adv, (lo, hi), out);
    }
}

impl FaceAccel for AdvectedSwe<'_> {
    #[inline(always)]
    fn x_row(&self, j: usize, out: &mut [f32], scratch: &mut [f32]) {
        self.x_faces(j, (0, self.inner.grid.nx), out, scratch);
    }

    #[inline(always)]
    fn y_row(&self, j: usize, out: &mut [f32], scratch: &mut [f32]) {
        self.y_faces(j, (0, self.inner.grid.nx), out, scratch);
    }

    fn quiet(&self) -> Option<QuietScan<'_>> {
        if !self.skip_dry {
            return None;
        }
        let a = &self.inner;
        Some(QuietScan::of(a.depth, &self.momentum, a.edges))
    }

    #[inline(always)]
    fn x_row_in(&self, j: usize, win: (usize, usize), out: &mut [f32], scratch: &mut [f32]) {
        self.x_faces(j, win, out, scratch);
    }

    #[inline(always)]
    fn y_row_in(&self, j: usize, win: (usize, usize), out: &mut [f32], scratch: &mut [f32]) {
        self.y_faces(j, win, out, scratch);
    }
}

/// A row of interior faces for their upwind discharges: their velocities `u`, the beds `b` and
/// depths `d` of the cells on their two sides.
pub(crate) struct UpwindRow<'a> {
    pub u: &'a [f32],
    pub b: [&'a [f32]; 2],
    pub d: [&'a [f32]; 2],
    pub dx: f32,
}

impl Row for UpwindRow<'_> {
    /// `u · d_upwind · dx` per face, none where the face has no wet cross-section.
    #[inline(always)]
    fn run(&self, out: &mut [f32]) -> f32 {
        let (u, n) = (self.u, self.u.len());
        let (bl, br) = (&self.b[0][..n], &self.b[1][..n]);
        let (dl, dr) = (&self.d[0][..n], &self.d[1][..n]);
        let out = &mut out[..n];
        for i in 0..n {
            let section = ((bl[i] + dl[i]).max(br[i] + dr[i]) - bl[i].max(br[i])).max(0.0);
            let up = select(u[i] > 0.0, dl[i], dr[i]);
            let d = select(section <= 0.0, 0.0, up);
            out[i] = u[i] * d * self.dx;
        }
        0.0
    }
}

/// A row of interior faces: their limited discharges `q` and the depths of the cells on their
/// two sides `d`, with the cell size and the step's film speed cap.
struct FaceRow<'a> {
    q: &'a [f32],
    d: [&'a [f32]; 2],
    dx: f32,
    film_cap: f32,
}

impl Row for FaceRow<'_> {
    /// Writes each face's velocity into `out` (none over a dry face; a film's held to the
    /// cap) and returns the largest speed of the faces deeper than a film.
    #[inline(always)]
    fn run(&self, out: &mut [f32]) -> f32 {
        let n = self.q.len();
        let (q, dl, dr) = (self.q, &self.d[0][..n], &self.d[1][..n]);
        let out = &mut out[..n];
        let cap = self.film_cap;
        // Speeds are never negative, and such floats order as their bits do: an integer
        // maximum, which vectorises, gives exactly the float one.
        let mut m = 0u32;
        for i in 0..n {
            // Both sides are loaded and chosen by selects, so the loop vectorises (a branch
            // here made the compiler assemble the upwind depths lane by lane).
            let (qi, l, r) = (q[i], dl[i], dr[i]);
            let h = select(qi > 0.0, l, r);
            let u = qi / (h * self.dx);
            let film = u.max(-cap).min(cap);
            out[i] = select(h <= DRY, 0.0, select(h < FILM, film, u));
            m = m.max(select_bits(h < FILM, 0, u.abs().to_bits()));
        }
        f32::from_bits(m)
    }
}
