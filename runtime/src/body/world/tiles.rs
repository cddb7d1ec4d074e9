//! The terrain's collider in tiles, each made of as few of the terrain's samples as keep its
//! ground within [`GROUND_TOLERANCE`] of every sample.
//!
//! Rapier finds a body's contacts with the ground triangle by triangle: every triangle of the
//! heightfield under the body is a contact manifold to build and keep. One triangle per half
//! cell is what a rugged terrain needs, but a lake bed, a plain or a flattened building plot
//! is the same ground from a sample in two, four, eight or sixteen: a crate on such ground
//! then touches two triangles instead of eight to eighteen. So the terrain is cut into tiles
//! and each tile takes the coarsest spacing whose triangles (either diagonal of each coarse
//! cell) pass within [`GROUND_TOLERANCE`] of every sample in it, and every sample elsewhere.
//! Neighbouring tiles share their edge samples, so where a coarse tile meets a fine one their
//! edges differ by at most the tolerance: a step of a centimetre, never a gap.

use rapier3d::prelude::{
    ColliderBuilder, ColliderHandle, PhysicsWorld, Pose as RapierPose, Rotation, Vector,
};
use rayon::prelude::*;

use crate::body::raster::CellGrid;

/// How far a tile's coarser ground may pass from any of the terrain's samples, metres.
pub const GROUND_TOLERANCE: f32 = 0.01;

/// Sample spacings a tile may take, finest first (each divides the next); a tile takes the
/// coarsest that keeps its ground within the tolerance.
const SPACINGS: [usize; 4] = [2, 4, 8, 16];

/// Fewest sample intervals along a tile's side.
const TILE: usize = 64;

/// Most tiles along a side of the map: large maps get larger tiles, so the ground stays a few
/// hundred colliders.
const MOST_TILES: usize = 32;

/// The terrain's samples with one more on every side at the edge cell's height (the ground
/// reaches half a cell past the map's edge), by column `e` (0..nx + 2, west to east) and row
/// `r` (0..ny + 2, from the map's last row, +y, to its first: the heightfield's order).
struct Samples<'a> {
    terrain: &'a [f32],
    nx: usize,
    ny: usize,
}

impl Samples<'_> {
    fn at(&self, e: usize, r: usize) -> f32 {
        let i = e.saturating_sub(1).min(self.nx - 1);
        let row = self.ny.saturating_sub(r).min(self.ny - 1);
        self.terrain[row * self.nx + i]
    }

    /// The terrain's cells under the samples `e0..=e1` of row `r`.
    fn row(&self, r: usize, e0: usize, e1: usize) -> &[f32] {
        let (i0, i1) = (e0.saturating_sub(1), e1.saturating_sub(1).min(self.nx - 1));
        let row = self.ny.saturating_sub(r).min(self.ny - 1);
        &self.terrain[row * self.nx + i0..=row * self.nx + i1]
    }
}

/// One tile: the samples `e0..=e1` × `r0..=r1`, every `spacing`-th.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Tile {
    /// First sample column.
    pub e0: usize,
    /// Last sample column.
    pub e1: usize,
    /// First sample row.
    pub r0: usize,
    /// Last sample row.
    pub r1: usize,
    /// Samples kept: every `spacing`-th along both sides (1: all).
    pub spacing: usize,
}

/// Where the tiles along a side of `n` cells (samples `0..=n + 1`) begin and end: the extra
/// samples at the map's edge (at the edge cell's height, so the ground bends there) in strips
/// of their own, the rest in tiles of `side` sample intervals, and what is left over in tiles
/// of 16·k, 8, 4, 2 and 1 intervals, so that every tile can take every spacing its ground
/// allows.
fn cuts(n: usize, side: usize) -> Vec<usize> {
    let mut cuts: Vec<usize> = std::iter::once(0).chain((1..n).step_by(side)).collect();
    let mut at = *cuts.last().unwrap_or(&0);
    for width in [16, 8, 4, 2] {
        let whole = (n - at) / width * width;
        if whole > 0 && at + whole < n {
            at += whole;
            cuts.push(at);
        }
    }
    cuts.extend([n, n + 1]);
    cuts
}

/// The ground's tiles in a physics world, with the heights they were made from.
#[derive(Default)]
pub(super) struct Ground {
    /// The terrain the tiles were made from (row-major, one height per cell).
    heights: Vec<f32>,
    /// Its grid.
    grid: CellGrid,
    /// Each tile and its collider.
    tiles: Vec<(Tile, ColliderHandle)>,
}

impl Ground {
    /// The terrain the tiles were made from (row-major, one height per cell; empty before
    /// any).
    pub fn heights(&self) -> &[f32] {
        &self.heights
    }

    /// Makes the ground of `terrain` (row-major, one height per cell centre of `grid`, at
    /// least 2 × 2 cells) in `physics`. On the grid of the last call only the tiles with a
    /// sample that changed are made again (a gate that opened, a stroke of the brush), so
    /// their neighbours' contacts stay as they were. Returns how many tiles were made.
    pub fn set(&mut self, physics: &mut PhysicsWorld, terrain: &[f32], grid: CellGrid) -> usize {
        let CellGrid { nx, ny, cell_size } = grid;
        let samples = Samples { terrain, nx, ny };
        let same = grid == self.grid && self.heights.len() == terrain.len();
        if !same {
            self.clear(physics);
            self.tiles = (ranges(nx, ny).into_iter())
                .map(|t| (t, ColliderHandle::invalid()))
                .collect();
        }
        let old = Samples {
            terrain: &self.heights,
            nx,
            ny,
        };
        let stale: Vec<usize> = (0..self.tiles.len())
            .filter(|&k| !same || changed(&old, &samples, self.tiles[k].0))
            .collect();
        // Each tile on its own (rayon's pool).
        let made: Vec<(Tile, ColliderBuilder)> = stale
            .par_iter()
            .map(|&k| make(&samples, self.tiles[k].0, cell_size))
            .collect();
        for (&k, (tile, collider)) in stale.iter().zip(made) {
            physics.remove_collider(self.tiles[k].1);
            self.tiles[k] = (tile, physics.insert_collider(collider, None));
        }
        self.heights.clear();
        self.heights.extend_from_slice(terrain);
        self.grid = grid;
        stale.len()
    }

    /// Takes every tile out of `physics`.
    pub fn clear(&mut self, physics: &mut PhysicsWorld) {
        for (_, h) in self.tiles.drain(..) {
            physics.remove_collider(h);
        }
        self.heights.clear();
        self.grid = CellGrid::default();
    }

    /// The triangles of the tiles.
    pub fn triangles(&self) -> usize {
        (self.tiles.iter())
            .map(|(t, _)| 2 * ((t.e1 - t.e0) / t.spacing) * ((t.r1 - t.r0) / t.spacing))
            .sum()
    }
}

/// The tiles of a grid of `nx × ny` cells, their spacing not chosen yet (0).
fn ranges(nx: usize, ny: usize) -> Vec<Tile> {
    let side = TILE.max((nx.max(ny) + 1).div_ceil(MOST_TILES).next_multiple_of(16));
    let (xs, ys) = (cuts(nx, side), cuts(ny, side));
    (ys.windows(2))
        .flat_map(|r| {
            xs.windows(2).map(move |e| Tile {
                e0: e[0],
                e1: e[1],
                r0: r[0],
                r1: r[1],
                spacing: 0,
            })
        })
        .collect()
}

/// Whether a sample of `tile` differs between `old` and `new` (bit for bit).
fn changed(old: &Samples, new: &Samples, tile: Tile) -> bool {
    (tile.r0..=tile.r1).any(|r| {
        // The samples of a row are cells of one row of the terrain, from column e0 − 1 to
        // e1 − 1 (the edge's extra samples repeat the edge cells).
        let (a, b) = (old.row(r, tile.e0, tile.e1), new.row(r, tile.e0, tile.e1));
        a.iter().zip(b).any(|(x, y)| x.to_bits() != y.to_bits())
    })
}

/// The collider of the samples `range` at the coarsest spacing that divides its sides and
/// keeps its ground within the tolerance, else every sample.
fn make(samples: &Samples, range: Tile, cell_size: f32) -> (Tile, ColliderBuilder) {
    let Tile { e0, e1, r0, r1, .. } = range;
    let spacing = (SPACINGS.iter().rev())
        .find(|&&s| {
            (e1 - e0) % s == 0 && (r1 - r0) % s == 0 && within(samples, (e0, e1, r0, r1), s)
        })
        .copied()
        .unwrap_or(1);
    let tile = Tile { spacing, ..range };
    (tile, collider(samples, tile, cell_size))
}

/// Whether the ground of the samples `e0..=e1` × `r0..=r1` taken every `s`-th passes within
/// [`GROUND_TOLERANCE`] of every sample, whichever diagonal splits each coarse cell (false
/// where a height is not finite).
fn within(samples: &Samples, (e0, e1, r0, r1): (usize, usize, usize, usize), s: usize) -> bool {
    let inv = 1.0 / s as f32;
    for b in (r0..r1).step_by(s) {
        for a in (e0..e1).step_by(s) {
            let (h00, h10) = (samples.at(a, b), samples.at(a + s, b));
            let (h01, h11) = (samples.at(a, b + s), samples.at(a + s, b + s));
            for v in 0..=s {
                for u in 0..=s {
                    let (fx, fy) = (u as f32 * inv, v as f32 * inv);
                    // Split along 00–11, and along 10–01.
                    let main = if fx >= fy {
                        h00 + fx * (h10 - h00) + fy * (h11 - h10)
                    } else {
                        h00 + fy * (h01 - h00) + fx * (h11 - h01)
                    };
                    let anti = if fx + fy <= 1.0 {
                        h00 + fx * (h10 - h00) + fy * (h01 - h00)
                    } else {
                        h11 + (1.0 - fx) * (h01 - h11) + (1.0 - fy) * (h10 - h11)
                    };
                    let h = samples.at(a + u, b + v);
                    let close = (main - h).abs() <= GROUND_TOLERANCE
                        && (anti - h).abs() <= GROUND_TOLERANCE;
                    if !close {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// The heightfield collider of `tile`, placed in the level's frame.
fn collider(samples: &Samples, tile: Tile, cell_size: f32) -> ColliderBuilder {
    let Tile {
        e0,
        e1,
        r0,
        r1,
        spacing: s,
    } = tile;
    let (cols, rows) = ((e1 - e0) / s + 1, (r1 - r0) / s + 1);
    // Column-major, as parry's array keeps them.
    let mut heights = Vec::with_capacity(cols * rows);
    for c in 0..cols {
        for r in 0..rows {
            heights.push(samples.at(e0 + c * s, r0 + r * s));
        }
    }
    let field = rapier3d::parry::utils::Array2::new(rows, cols, heights);
    let scale = Vector::new(
        (e1 - e0) as f32 * cell_size,
        1.0,
        (r1 - r0) as f32 * cell_size,
    );
    // parry's heightfield lies in its x–z plane, rows along z: turned +90° about x its height
    // axis is our z and its rows run along −y. Sample column `e` sits at x = (e − ½)·cell and
    // row `r` at y = (ny + ½ − r)·cell, so the middle of the tile is at their means.
    let ny = samples.ny as f32;
    let middle = Vector::new(
        ((e0 + e1) as f32 / 2.0 - 0.5) * cell_size,
        (ny + 0.5 - (r0 + r1) as f32 / 2.0) * cell_size,
        0.0,
    );
    let at = RapierPose::from_parts(
        middle,
        Rotation::from_rotation_x(std::f32::consts::FRAC_PI_2),
    );
    ColliderBuilder::heightfield(field, scale)
        .position(at)
        .friction(0.8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiles(terrain: &[f32], n: usize) -> Vec<Tile> {
        let samples = Samples {
            terrain,
            nx: n,
            ny: n,
        };
        (ranges(n, n).into_iter())
            .map(|t| make(&samples, t, 1.0).0)
            .collect()
    }

    #[test]
    fn a_changed_cell_makes_again_only_the_tiles_that_hold_it() {
        let n = 200;
        let grid = CellGrid {
            nx: n,
            ny: n,
            cell_size: 1.0,
        };
        let mut terrain: Vec<f32> = (0..n * n).map(|k| 0.001 * (k % 7) as f32).collect();
        let mut physics = PhysicsWorld::new();
        let mut ground = Ground::default();
        let all = ground.set(&mut physics, &terrain, grid);
        assert_eq!(all, ranges(n, n).len());
        assert_eq!(physics.colliders.len(), all);
        // The same terrain: nothing to make.
        assert_eq!(ground.set(&mut physics, &terrain, grid), 0);
        // A cell inside a tile; one on the samples two tiles share (cell 64 is sample 65,
        // where the second tile begins); a map corner (its tile and the edge strips that
        // repeat it).
        for (cell, made) in [((30, 30), 1), ((64, 30), 2), ((0, 0), 4)] {
            terrain[cell.1 * n + cell.0] += 0.5;
            assert_eq!(ground.set(&mut physics, &terrain, grid), made, "{cell:?}");
            let kept: Vec<Tile> = ground.tiles.iter().map(|(t, _)| *t).collect();
            assert_eq!(kept, tiles(&terrain, n));
        }
        assert_eq!(physics.colliders.len(), all);
        // Another grid: all made again.
        let small = CellGrid { nx: 100, ..grid };
        let fewer = ground.set(&mut physics, &terrain[..100 * n], small);
        assert_eq!(fewer, ranges(100, n).len());
        assert_eq!(physics.colliders.len(), fewer);
    }

    #[test]
    fn a_plane_takes_the_coarsest_spacing_and_a_rough_ground_every_sample() {
        let n = 127; // 128 sample intervals: two tiles a side
        let plane: Vec<f32> = (0..n * n)
            .map(|k| 0.3 * (k % n) as f32 - 0.1 * (k / n) as f32)
            .collect();
        let t = tiles(&plane, n);
        // Samples 0, 1, 65, 113, 121, 125, 127, 128 cut each side: the edge's extra samples
        // (at the edge cell's height, so the ground bends there) are strips of their own, and
        // the 62 intervals after the first tile tiles of 48, 8, 4 and 2.
        assert_eq!(t.len(), 49);
        let inner = |t: &&Tile| t.e1 - t.e0 > 1 && t.r1 - t.r0 > 1;
        let spacings: Vec<usize> = t.iter().filter(inner).map(|t| t.spacing).collect();
        let most = [16, 16, 8, 4, 2];
        let expected: Vec<usize> = (most.iter())
            .flat_map(|&r| most.iter().map(move |&e| r.min(e)))
            .collect();
        assert_eq!(spacings, expected, "{t:?}");
        assert!(t.iter().filter(|t| !inner(t)).all(|t| t.spacing == 1));
        let flat = vec![2.0; n * n];
        let t = tiles(&flat, n);
        assert!(t.iter().filter(inner).all(|t| t.spacing > 1));
        // A bump of 5 cm in one cell: its tile keeps every sample, the others stay coarse.
        let mut bump = flat.clone();
        bump[10 * n + 10] += 0.05;
        let coarse = |t: &[Tile]| t.iter().filter(inner).filter(|t| t.spacing > 1).count();
        assert_eq!(coarse(&tiles(&bump, n)), 24);
        // A bump within the tolerance changes nothing.
        let mut small = flat.clone();
        small[10 * n + 10] += 0.009;
        assert_eq!(coarse(&tiles(&small, n)), 25);
        let mut hole = flat;
        hole[70 * n + 3] = f32::NAN;
        assert_eq!(coarse(&tiles(&hole, n)), 24);
    }

    #[test]
    fn the_tiles_cover_every_sample_and_share_their_edges() {
        for n in [2, 3, 63, 64, 65, 200] {
            let t = tiles(&vec![0.0; n * n], n);
            let (mut e, mut r) = (vec![0; n + 2], vec![0; n + 2]);
            for tile in &t {
                assert_eq!((tile.e1 - tile.e0) % tile.spacing, 0);
                assert_eq!((tile.r1 - tile.r0) % tile.spacing, 0);
                if tile.r0 == 0 {
                    (tile.e0..=tile.e1).for_each(|k| e[k] += 1);
                }
                if tile.e0 == 0 {
                    (tile.r0..=tile.r1).for_each(|k| r[k] += 1);
                }
            }
            assert!(e.iter().all(|&c| c >= 1), "n = {n}: {e:?}");
            assert!(r.iter().all(|&c| c >= 1), "n = {n}: {r:?}");
        }
    }
}
