//! The terrain mesh's tiles. Every tile is the same 65 × 65 grid of vertices (plus a skirt of
//! 4 × 65 vertices hanging below its edges), numbered so one index buffer serves them all; the
//! vertex shader reads each vertex's height from the height texture. A tile is drawn at one of
//! several levels of detail (every vertex, every 2nd, 4th, ...), chosen so its quads stay a few
//! pixels wide on screen; the skirts hide the cracks between neighbours of different detail.
//! Tiles outside the view are culled on the CPU.

use std::ops::Range;

use spillway::Level;

use crate::TILE_QUADS;
use crate::math::{Mat4, Vec3};

/// Vertex strides of the levels of detail, finest first.
pub const STRIDES: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

/// How many levels of detail there are.
pub const LODS: usize = STRIDES.len();

/// Vertices of a tile's grid (the skirt vertices follow them).
pub const GRID_VERTICES: u32 = (TILE_QUADS + 1) * (TILE_QUADS + 1);

/// A vertex buffer for the origins of `tiles` tiles.
pub(crate) fn tile_buffer(device: &wgpu::Device, tiles: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("viewport visible tiles"),
        size: (tiles.max(1) * 8) as u64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Index of grid vertex `(i, j)` of a tile.
fn grid(i: u32, j: u32) -> u16 {
    (j * (TILE_QUADS + 1) + i) as u16
}

/// Index of the skirt vertex below grid vertex `k` of edge `edge` (0 top, 1 bottom, 2 left,
/// 3 right).
fn skirt(edge: u32, k: u32) -> u16 {
    (GRID_VERTICES + edge * (TILE_QUADS + 1) + k) as u16
}

/// The indices of every level of detail, one after another, and the range of each.
pub(crate) fn tile_indices() -> (Vec<u16>, Vec<Range<u32>>) {
    let q = TILE_QUADS;
    let mut out = Vec::new();
    let mut ranges = Vec::new();
    for s in STRIDES {
        let start = out.len() as u32;
        for j in (0..q).step_by(s as usize) {
            for i in (0..q).step_by(s as usize) {
                let (v00, v10) = (grid(i, j), grid(i + s, j));
                let (v01, v11) = (grid(i, j + s), grid(i + s, j + s));
                out.extend_from_slice(&[v00, v01, v10, v10, v01, v11]);
            }
        }
        // Skirts: a strip hanging below each edge.
        for k in (0..q).step_by(s as usize) {
            let edges = [
                (grid(k, 0), grid(k + s, 0), 0),
                (grid(k, q), grid(k + s, q), 1),
                (grid(0, k), grid(0, k + s), 2),
                (grid(q, k), grid(q, k + s), 3),
            ];
            for (a, b, edge) in edges {
                let (a2, b2) = (skirt(edge, k), skirt(edge, k + s));
                out.extend_from_slice(&[a, b, a2, b, b2, a2]);
            }
        }
        ranges.push(start..out.len() as u32);
    }
    (out, ranges)
}

/// How the camera sees the tiles: for culling and for choosing each tile's detail.
pub(crate) struct View<'a> {
    /// The view-projection matrix.
    pub view_proj: &'a Mat4,
    /// The eye position.
    pub eye: Vec3,
    /// Pixels per metre at one metre from the eye.
    pub pixels_per_metre: f32,
    /// Whether coarser detail may be used far away.
    pub lod: bool,
    /// Widest a quad may look on screen before a finer level of detail is used, pixels.
    pub quad_pixels: f32,
}

/// Origins (in cells) of the tiles whose bounding box may be in view, grouped by level of
/// detail (finest first), nearest rows first within each, and how many tiles each level
/// holds.
pub(crate) fn visible_tiles(
    level: &Level,
    range: (f32, f32),
    view: &View<'_>,
) -> (Vec<[u32; 2]>, [usize; LODS]) {
    let (nx, ny) = (level.nx() as u32, level.ny() as u32);
    let cs = level.cell_size;
    let mut by_lod: [Vec<[u32; 2]>; LODS] = Default::default();
    let t = TILE_QUADS;
    // Nearest rows and columns first, so the nearer tiles hide the farther ones' pixels
    // before they are shaded.
    let near_first = |count: u32, eye: f32| {
        let mut starts: Vec<u32> = (0..count.saturating_sub(1)).step_by(t as usize).collect();
        let middle = |s: u32| (s as f32 + 0.5 * t as f32) * cs;
        starts.sort_by(|a, b| {
            (middle(*a) - eye)
                .abs()
                .total_cmp(&(middle(*b) - eye).abs())
        });
        starts
    };
    let columns = near_first(nx, view.eye.x);
    for ty in near_first(ny, view.eye.y) {
        for &tx in &columns {
            let lo = Vec3::new((tx as f32 + 0.5) * cs, (ty as f32 + 0.5) * cs, range.0);
            let hi = Vec3::new(
                ((tx + t).min(nx - 1) as f32 + 0.5) * cs,
                ((ty + t).min(ny - 1) as f32 + 0.5) * cs,
                range.1,
            );
            if culled(view.view_proj, lo, hi) {
                continue;
            }
            by_lod[detail(view, cs, lo, hi)].push([tx, ty]);
        }
    }
    let counts = by_lod.each_ref().map(Vec::len);
    (by_lod.concat(), counts)
}

/// Whether the box `lo..hi` lies wholly outside one plane of the view frustum.
fn culled(view_proj: &Mat4, lo: Vec3, hi: Vec3) -> bool {
    let corners = [
        Vec3::new(lo.x, lo.y, lo.z),
        Vec3::new(hi.x, lo.y, lo.z),
        Vec3::new(lo.x, hi.y, lo.z),
        Vec3::new(hi.x, hi.y, lo.z),
        Vec3::new(lo.x, lo.y, hi.z),
        Vec3::new(hi.x, lo.y, hi.z),
        Vec3::new(lo.x, hi.y, hi.z),
        Vec3::new(hi.x, hi.y, hi.z),
    ];
    let clip = corners.map(|c| view_proj.project(c));
    let outside = |f: &dyn Fn(&[f32; 4]) -> bool| clip.iter().all(f);
    outside(&|c| c[0] < -c[3])
        || outside(&|c| c[0] > c[3])
        || outside(&|c| c[1] < -c[3])
        || outside(&|c| c[1] > c[3])
        || outside(&|c| c[2] < 0.0)
        || outside(&|c| c[2] > c[3])
}

/// The level of detail for the box `lo..hi`: the coarsest whose quads, at the box's nearest
/// point, look at most [`View::quad_pixels`] wide.
fn detail(view: &View<'_>, cell_size: f32, lo: Vec3, hi: Vec3) -> usize {
    if !view.lod {
        return 0;
    }
    let nearest = Vec3::new(
        view.eye.x.clamp(lo.x, hi.x),
        view.eye.y.clamp(lo.y, hi.y),
        view.eye.z.clamp(lo.z, hi.z),
    );
    let distance = (nearest - view.eye).length().max(1e-3);
    let quad_pixels = cell_size * view.pixels_per_metre / distance;
    STRIDES
        .iter()
        .rposition(|s| *s as f32 * quad_pixels <= view.quad_pixels)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_of_detail_indexes_inside_the_tile() {
        let (indices, ranges) = tile_indices();
        assert_eq!(ranges.len(), STRIDES.len());
        let max = GRID_VERTICES + 4 * (TILE_QUADS + 1);
        assert!(indices.iter().all(|i| (*i as u32) < max));
        // The finest level has two triangles per quad plus its skirts.
        let q = TILE_QUADS;
        assert_eq!(ranges[0].len() as u32, q * q * 6 + 4 * q * 6);
    }
}
