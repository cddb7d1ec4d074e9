//! The terrain mesh's tiles. Every tile is the same 65 × 65 grid of vertices (plus a skirt of
//! 4 × 65 vertices hanging below its edges), numbered so one index buffer serves them all; the
//! vertex shader reads each vertex's height from the height texture. A tile is drawn at one of
//! several levels of detail (every vertex, every 2nd, 4th, ...), chosen so its quads stay a few
//! pixels wide on screen; the skirts hide the cracks between neighbours of different detail.
//! Far away, one tile's grid spans 2, 4, ... times as many cells (a quadtree), so the number of
//! tiles drawn stays small at any level size. Tiles outside the view are culled on the CPU.

use std::ops::Range;

use crate::TILE_QUADS;
use crate::math::{Mat4, Vec3};

/// Vertex strides of the levels of detail, finest first.
pub const STRIDES: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

/// How many levels of detail there are.
pub const LODS: usize = STRIDES.len();

/// Vertices of a tile's grid (the skirt vertices follow them).
pub const GRID_VERTICES: u32 = (TILE_QUADS + 1) * (TILE_QUADS + 1);

/// A vertex buffer for `tiles` [`Tile`]s.
pub(crate) fn tile_buffer(device: &wgpu::Device, tiles: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("viewport visible tiles"),
        size: (tiles.max(1) * std::mem::size_of::<Tile>()) as u64,
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

/// One tile to draw: the cell of its first vertex, the cells between its grid's vertices
/// (1 for a tile of 64 × 64 cells, 2 for one of 128 × 128 drawn with the same grid, ...), and
/// the cells between the vertices actually drawn (that times the level of detail's stride).
pub(crate) type Tile = [u32; 4];

/// The tiles that may be in view, grouped by the stride of their level of detail (finest
/// first), nearest first within each, and how many each level holds. Tiles come from a
/// quadtree over the level: a far region is drawn as one large tile whose 64 × 64 quads each
/// span many cells, so a zoomed-out 8192² level is a few dozen draws, not 16384.
pub(crate) fn visible_tiles(
    (nx, ny, cell_size): (usize, usize, f32),
    range: (f32, f32),
    view: &View<'_>,
) -> (Vec<Tile>, [usize; LODS]) {
    let (nx, ny) = (nx as u32, ny as u32);
    let mut by_lod: [Vec<Tile>; LODS] = Default::default();
    let mut root = TILE_QUADS;
    while root < nx.max(ny).saturating_sub(1) {
        root *= 2;
    }
    let mut tree = Tree {
        nx,
        ny,
        cs: cell_size,
        range,
        view,
        by_lod: &mut by_lod,
    };
    tree.visit(0, 0, root / TILE_QUADS);
    let counts = by_lod.each_ref().map(Vec::len);
    (by_lod.concat(), counts)
}

/// A walk down the quadtree of tiles.
struct Tree<'a, 'v> {
    nx: u32,
    ny: u32,
    cs: f32,
    range: (f32, f32),
    view: &'a View<'v>,
    by_lod: &'a mut [Vec<Tile>; LODS],
}

impl Tree<'_, '_> {
    /// Visits the tile at cell `(x, y)` whose grid steps `scale` cells: culls it, draws it
    /// when its quads are fine enough, else visits its four quarters, nearest first.
    fn visit(&mut self, x: u32, y: u32, scale: u32) {
        let (nx, ny, cs) = (self.nx, self.ny, self.cs);
        if x >= nx.saturating_sub(1).max(1) || y >= ny.saturating_sub(1).max(1) {
            return;
        }
        let span = TILE_QUADS * scale;
        let lo = Vec3::new((x as f32 + 0.5) * cs, (y as f32 + 0.5) * cs, self.range.0);
        let hi = Vec3::new(
            ((x + span).min(nx - 1) as f32 + 0.5) * cs,
            ((y + span).min(ny - 1) as f32 + 0.5) * cs,
            self.range.1,
        );
        if culled(self.view.view_proj, lo, hi) {
            return;
        }
        let wanted = STRIDES[detail(self.view, cs, lo, hi)];
        if scale <= wanted || scale == 1 {
            // Fine enough: this tile's grid, every `wanted / scale`-th vertex.
            let lod = STRIDES
                .iter()
                .position(|s| *s == (wanted / scale).max(1))
                .unwrap_or(0);
            self.by_lod[lod].push([x, y, scale, STRIDES[lod] * scale]);
            return;
        }
        let half = span / 2;
        let mut quarters = [(x, y), (x + half, y), (x, y + half), (x + half, y + half)];
        let eye = self.view.eye;
        let far = |(qx, qy): (u32, u32)| {
            let centre = |c: u32| (c as f32 + 0.5 * half as f32) * cs;
            (centre(qx) - eye.x).powi(2) + (centre(qy) - eye.y).powi(2)
        };
        quarters.sort_by(|a, b| far(*a).total_cmp(&far(*b)));
        for (qx, qy) in quarters {
            self.visit(qx, qy, scale / 2);
        }
    }
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
    use crate::camera::{Bounds, Camera};

    /// The tiles of an `n × n` level of 1 m cells, heights 0 to 50 m, seen at 1920 × 1080 from
    /// the camera's reset view, moved `closer` times nearer its target.
    fn tiles_seen(n: usize, quad_pixels: f32, closer: f32) -> (Vec<Tile>, [usize; LODS]) {
        let range = (0.0, 50.0);
        let bounds = Bounds {
            min: Vec3::new(0.0, 0.0, range.0),
            max: Vec3::new(n as f32, n as f32, range.1),
        };
        let aspect = 1920.0 / 1080.0;
        let mut camera = Camera::default();
        camera.reset(&bounds, aspect);
        camera.distance /= closer;
        let view_proj = camera.view_proj(aspect, &bounds);
        let view = View {
            view_proj: &view_proj,
            eye: camera.eye(),
            pixels_per_metre: 1080.0 / (2.0 * (crate::FOV_Y * 0.5).tan()),
            lod: true,
            quad_pixels,
        };
        visible_tiles((n, n, 1.0), range, &view)
    }

    #[test]
    fn a_zoomed_out_large_level_is_a_few_large_tiles() {
        // 16384 tiles of 64 × 64 cells; far tiles share a grid over more cells.
        let (tiles, _) = tiles_seen(8192, 12.0, 1.0);
        assert!(tiles.len() <= 64, "{} tiles", tiles.len());
        assert!(tiles.iter().all(|t| t[2] > 1), "{tiles:?}");
        // The tiles cover the level without overlap: their areas add up to it.
        let area: u64 = tiles.iter().map(|t| (64 * t[2] as u64).pow(2)).sum();
        assert_eq!(area, 8192 * 8192);
    }

    #[test]
    fn close_up_the_nearest_tiles_are_drawn_cell_by_cell() {
        let (tiles, counts) = tiles_seen(8192, 3.0, 40.0);
        assert!(counts[0] > 0, "{counts:?}");
        assert_eq!(tiles[0][3], 1, "the finest tiles come first");
        // Finer detail asks for more tiles than coarser detail from the same eye.
        let (coarse, _) = tiles_seen(8192, 12.0, 40.0);
        let quads = |t: &[Tile]| -> u64 {
            t.iter()
                .map(|t| (64 * t[2] as u64 / t[3] as u64).pow(2))
                .sum()
        };
        assert!(
            quads(&coarse) * 2 < quads(&tiles),
            "{} {}",
            quads(&coarse),
            quads(&tiles)
        );
    }

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
