//! The virtual-pipes flow update (thesis §4.5, lisyarus' blog): each face's discharge is
//! accelerated by the surface difference across it, `Q += dt·g·A/dx·ΔH`, with the pipe
//! cross-section `A` taken from the water depth at the face, so waves travel at sqrt(g·h).

use crate::level::CrossSection;

use super::advect::Momentum;
use super::boundary::Edges;
use super::friction::BedFriction;
use super::kernel::FaceAccel;
use super::quiet::QuietScan;
use super::swe::UpwindRow;
use super::wide::{Row, select};

/// Pipe cross-section per metre of face width for surfaces `hl`, `hr`, depths `dl`, `dr` and
/// terrain `bl`, `br` on the two sides of a face.
#[inline(always)]
pub(crate) fn section(
    cs: CrossSection,
    hl: f32,
    hr: f32,
    dl: f32,
    dr: f32,
    bl: f32,
    br: f32,
) -> f32 {
    match cs {
        CrossSection::Upwind => {
            if hl > hr {
                dl
            } else {
                dr
            }
        }
        CrossSection::FaceDepth => (hl.max(hr) - bl.max(br)).max(0.0),
        CrossSection::Mean => 0.5 * (dl + dr),
        CrossSection::Constant => 1.0,
    }
}

/// Accelerates the pipes' discharges from the previous step's limited flows.
#[derive(Clone, Copy)]
pub(crate) struct PipesAccel<'a> {
    pub nx: usize,
    pub ny: usize,
    pub terrain: &'a [f32],
    pub depth: &'a [f32],
    pub qx: &'a [f32],
    pub qy: &'a [f32],
    pub edges: &'a Edges,
    /// g·dt
    pub g_dt: f32,
    /// Bed friction of this sub-step.
    pub fr: BedFriction<'a>,
    pub cs: CrossSection,
}

impl PipesAccel<'_> {
    /// Accelerates the faces between the cells of two parallel runs: `out[i]` is the face
    /// between cell `i` of (`bl`, `dl`) and cell `i` of (`br`, `dr`) (grid cells `l0 + i` and
    /// `r0 + i`), `q` its old discharge. With the linear friction law, one loop per
    /// cross-section rule, so each loop vectorises.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn faces(
        &self,
        (l0, r0): (usize, usize),
        bl: &[f32],
        dl: &[f32],
        br: &[f32],
        dr: &[f32],
        q: &[f32],
        out: &mut [f32],
    ) {
        let n = out.len();
        let (bl, dl, br, dr, q) = (&bl[..n], &dl[..n], &br[..n], &dr[..n], &q[..n]);
        let (fric, g_dt) = (self.fr.linear_factor(), self.g_dt);
        if !self.fr.is_linear() {
            // One loop per friction law and section rule, and with or without a roughness
            // grid, so no loop chooses per face and each vectorises.
            let args = (bl, dl, br, dr, q, self.fr.n_rows(l0, r0, n));
            let manning = self.fr.is_manning();
            match (manning, self.cs) {
                (true, CrossSection::Constant) => self.friction_faces::<true, 0>(args, out),
                (true, CrossSection::Upwind) => self.friction_faces::<true, 1>(args, out),
                (true, CrossSection::FaceDepth) => self.friction_faces::<true, 2>(args, out),
                (true, CrossSection::Mean) => self.friction_faces::<true, 3>(args, out),
                (false, CrossSection::Constant) => self.friction_faces::<false, 0>(args, out),
                (false, CrossSection::Upwind) => self.friction_faces::<false, 1>(args, out),
                (false, CrossSection::FaceDepth) => self.friction_faces::<false, 2>(args, out),
                (false, CrossSection::Mean) => self.friction_faces::<false, 3>(args, out),
            }
            return;
        }
        match self.cs {
            CrossSection::Constant => {
                for i in 0..n {
                    out[i] = q[i] * fric + g_dt * ((bl[i] + dl[i]) - (br[i] + dr[i]));
                }
            }
            CrossSection::FaceDepth => {
                for i in 0..n {
                    let (hl, hr) = (bl[i] + dl[i], br[i] + dr[i]);
                    let a = (hl.max(hr) - bl[i].max(br[i])).max(0.0);
                    out[i] = q[i] * fric + g_dt * a * (hl - hr);
                }
            }
            CrossSection::Upwind => {
                for i in 0..n {
                    let (hl, hr) = (bl[i] + dl[i], br[i] + dr[i]);
                    let a = if hl > hr { dl[i] } else { dr[i] };
                    out[i] = q[i] * fric + g_dt * a * (hl - hr);
                }
            }
            CrossSection::Mean => {
                for i in 0..n {
                    let (hl, hr) = (bl[i] + dl[i], br[i] + dr[i]);
                    out[i] = q[i] * fric + g_dt * 0.5 * (dl[i] + dr[i]) * (hl - hr);
                }
            }
        }
    }
}

impl PipesAccel<'_> {
    /// [`Self::faces`] under Manning's (`MANNING`) or Chézy's law, with the cross-section rule
    /// `CS` (0 constant, 1 upwind, 2 face depth, 3 mean): the same expressions as
    /// [`section`] and [`BedFriction::discharge`], chosen at compile time.
    #[allow(clippy::type_complexity)]
    #[inline(always)]
    fn friction_faces<const MANNING: bool, const CS: u8>(
        &self,
        (bl, dl, br, dr, q, rows): (
            &[f32],
            &[f32],
            &[f32],
            &[f32],
            &[f32],
            Option<(&[f32], &[f32])>,
        ),
        out: &mut [f32],
    ) {
        let n = out.len();
        let (bl, dl, br, dr, q) = (&bl[..n], &dl[..n], &br[..n], &dr[..n], &q[..n]);
        match rows {
            Some((nl, nr)) => {
                let (nl, nr) = (&nl[..n], &nr[..n]);
                for i in 0..n {
                    let nf = 0.5 * (nl[i] + nr[i]);
                    let cells = (bl[i], dl[i], br[i], dr[i]);
                    out[i] = self.friction_face::<MANNING, CS>(cells, q[i], nf * nf);
                }
            }
            None => {
                for i in 0..n {
                    let cells = (bl[i], dl[i], br[i], dr[i]);
                    out[i] = self.friction_face::<MANNING, CS>(cells, q[i], 1.0);
                }
            }
        }
    }

    /// One face of [`Self::friction_faces`]: beds and depths `(bl, dl, br, dr)` of its two
    /// cells, old discharge `q`, Manning's `n²` (1 without a roughness grid).
    #[inline(always)]
    fn friction_face<const MANNING: bool, const CS: u8>(
        &self,
        (bl, dl, br, dr): (f32, f32, f32, f32),
        q: f32,
        n2: f32,
    ) -> f32 {
        let (hl, hr) = (bl + dl, br + dr);
        let a = match CS {
            0 => 1.0,
            1 => select(hl > hr, dl, dr),
            2 => (hl.max(hr) - bl.max(br)).max(0.0),
            _ => 0.5 * (dl + dr),
        };
        let h = (hl.max(hr) - bl.max(br)).max(0.0);
        self.fr
            .law_discharge::<MANNING>(q, self.g_dt * a * (hl - hr), h, n2)
    }
}

impl PipesAccel<'_> {
    /// The x-faces of row `j` between the cells `lo..hi` (`out[lo + 1..hi]`, and the border
    /// faces where the window reaches them) from the old discharges `q` of that row (`nx + 1`).
    #[inline(always)]
    fn x_row_from(&self, j: usize, q: &[f32], (lo, hi): (usize, usize), out: &mut [f32]) {
        let nx = self.nx;
        let (b, d) = (
            &self.terrain[j * nx..(j + 1) * nx],
            &self.depth[j * nx..(j + 1) * nx],
        );
        if lo == 0 {
            out[0] = self.edges.faces[0][j];
        }
        if hi == nx {
            out[nx] = self.edges.faces[1][j];
        }
        self.faces(
            (j * nx + lo, j * nx + lo + 1),
            &b[lo..hi - 1],
            &d[lo..hi - 1],
            &b[lo + 1..hi],
            &d[lo + 1..hi],
            &q[lo + 1..hi],
            &mut out[lo + 1..hi],
        );
    }

    /// The interior y-face row `j` (`0 < j < ny`) of the columns `lo..hi` from its old
    /// discharges `q` (`nx`).
    #[inline(always)]
    fn y_row_from(&self, j: usize, q: &[f32], (lo, hi): (usize, usize), out: &mut [f32]) {
        let nx = self.nx;
        let (up, down) = (
            (j - 1) * nx + lo..(j - 1) * nx + hi,
            j * nx + lo..j * nx + hi,
        );
        let (t, d) = (self.terrain, self.depth);
        self.faces(
            (up.start, down.start),
            &t[up.clone()],
            &d[up],
            &t[down.clone()],
            &d[down],
            &q[lo..hi],
            &mut out[lo..hi],
        );
    }

    /// The border y-face row `j` (0 or `ny`) of the columns `lo..hi`.
    #[inline(always)]
    fn border_row(&self, j: usize, (lo, hi): (usize, usize), out: &mut [f32]) {
        let edge = if j == 0 { 2 } else { 3 };
        out[lo..hi].copy_from_slice(&self.edges.faces[edge][lo..hi]);
    }
}

impl FaceAccel for PipesAccel<'_> {
    #[inline(always)]
    fn x_row(&self, j: usize, out: &mut [f32], _scratch: &mut [f32]) {
        let nx = self.nx;
        self.x_row_from(j, &self.qx[j * (nx + 1)..(j + 1) * (nx + 1)], (0, nx), out);
    }

    #[inline(always)]
    fn y_row(&self, j: usize, out: &mut [f32], _scratch: &mut [f32]) {
        let nx = self.nx;
        if j == 0 || j == self.ny {
            self.border_row(j, (0, nx), out);
        } else {
            self.y_row_from(j, &self.qy[j * nx..(j + 1) * nx], (0, nx), out);
        }
    }
}

/// The pipes faces with momentum advection done row by row as the flow pass asks for each face
/// row: the advected velocities and their upwind discharges stay in a per-thread row instead
/// of going through two grids (the same expressions in the same order, so the same results).
/// `inner`'s `qx`, `qy` are the last step's limited discharges, which the advection reads.
pub(crate) struct AdvectedPipes<'a> {
    pub inner: PipesAccel<'a>,
    pub momentum: Momentum<'a>,
    /// Whether the flow pass may leave out quiet columns ([`FaceAccel::quiet`]).
    pub skip_dry: bool,
}

impl AdvectedPipes<'_> {
    /// The x-faces of row `j` between the cells `lo..hi` (see [`FaceAccel::x_row_in`]).
    #[inline(always)]
    fn x_faces(&self, j: usize, (lo, hi): (usize, usize), out: &mut [f32], scratch: &mut [f32]) {
        let p = &self.inner;
        let nx = p.nx;
        let (adv, q) = scratch.split_at_mut(nx + 1);
        self.momentum.x_row(j, (lo, hi), adv);
        let (b, d) = (
            &p.terrain[j * nx..(j + 1) * nx],
            &p.depth[j * nx..(j + 1) * nx],
        );
        let faces = UpwindRow {
            u: &adv[lo + 1..hi],
            b: [&b[lo..hi - 1], &b[lo + 1..hi]],
            d: [&d[lo..hi - 1], &d[lo + 1..hi]],
            dx: self.momentum.grid.dx,
        };
        faces.run(&mut q[lo + 1..hi]);
        // The border faces come from the edges.
        p.x_row_from(j, q, (lo, hi), out);
    }

    /// The y-face row `j` of the columns `lo..hi` (see [`FaceAccel::y_row_in`]).
    #[inline(always)]
    fn y_faces(&self, j: usize, (lo, hi): (usize, usize), out: &mut [f32], scratch: &mut [f32]) {
        let p = &self.inner;
        let nx = p.nx;
        if j == 0 || j == p.ny {
            return p.border_row(j, (lo, hi), out);
        }
        let (adv, q) = scratch.split_at_mut(nx);
        self.momentum.y_row(j, (lo, hi), adv);
        let (t, d) = (p.terrain, p.depth);
        let (up, down) = (
            (j - 1) * nx + lo..(j - 1) * nx + hi,
            j * nx + lo..j * nx + hi,
        );
        let faces = UpwindRow {
            u: &adv[lo..hi],
            b: [&t[up.clone()], &t[down.clone()]],
            d: [&d[up], &d[down]],
            dx: self.momentum.grid.dx,
        };
        faces.run(&mut q[lo..hi]);
        p.y_row_from(j, &q[..nx], (lo, hi), out);
    }
}

impl FaceAccel for AdvectedPipes<'_> {
    #[inline(always)]
    fn x_row(&self, j: usize, out: &mut [f32], scratch: &mut [f32]) {
        self.x_faces(j, (0, self.inner.nx), out, scratch);
    }

    #[inline(always)]
    fn y_row(&self, j: usize, out: &mut [f32], scratch: &mut [f32]) {
        self.y_faces(j, (0, self.inner.nx), out, scratch);
    }

    fn quiet(&self) -> Option<QuietScan<'_>> {
        if !self.skip_dry {
            return None;
        }
        // The momentum reads the same discharges the accelerator does (the last step's).
        let p = &self.inner;
        Some(QuietScan::of(p.depth, &self.momentum, p.edges))
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
