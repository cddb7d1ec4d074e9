//! The virtual-pipes flow update (thesis §4.5, lisyarus' blog): each face's discharge is
//! accelerated by the surface difference across it, `Q += dt·g·A/dx·ΔH`, with the pipe
//! cross-section `A` taken from the water depth at the face, so waves travel at sqrt(g·h).

use crate::level::CrossSection;

use super::boundary::Edges;
use super::kernel::FaceAccel;

/// Pipe cross-section per metre of face width for surfaces `hl`, `hr`, depths `dl`, `dr` and
/// terrain `bl`, `br` on the two sides of a face.
#[inline(always)]
pub(crate) fn section(cs: CrossSection, hl: f32, hr: f32, dl: f32, dr: f32, bl: f32, br: f32) -> f32 {
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
    /// Friction factor for this step, `(1 - friction)^dt`.
    pub fric: f32,
    pub cs: CrossSection,
}

impl PipesAccel<'_> {
    #[inline(always)]
    fn face(&self, l: usize, r: usize, q: f32) -> f32 {
        let (bl, br) = (self.terrain[l], self.terrain[r]);
        let (dl, dr) = (self.depth[l], self.depth[r]);
        let (hl, hr) = (bl + dl, br + dr);
        q * self.fric + self.g_dt * section(self.cs, hl, hr, dl, dr, bl, br) * (hl - hr)
    }
}

impl FaceAccel for PipesAccel<'_> {
    fn x_row(&self, j: usize, out: &mut [f32]) {
        let nx = self.nx;
        let row = j * nx;
        let q = &self.qx[j * (nx + 1)..(j + 1) * (nx + 1)];
        out[0] = self.edges.faces[0][j];
        out[nx] = self.edges.faces[1][j];
        for i in 1..nx {
            out[i] = self.face(row + i - 1, row + i, q[i]);
        }
    }

    fn y_row(&self, j: usize, out: &mut [f32]) {
        let nx = self.nx;
        if j == 0 {
            out.copy_from_slice(&self.edges.faces[2]);
        } else if j == self.ny {
            out.copy_from_slice(&self.edges.faces[3]);
        } else {
            let q = &self.qy[j * nx..(j + 1) * nx];
            for i in 0..nx {
                out[i] = self.face((j - 1) * nx + i, j * nx + i, q[i]);
            }
        }
    }
}
