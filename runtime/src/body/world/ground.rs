//! The ground under a world's bodies: the terrain as a heightfield collider, and walls along
//! the map's edges where the water meets a wall, so that bodies stay in a walled level and
//! leave only where the water can (an open edge, an outlet, an inflow).

use rapier3d::prelude::{ColliderBuilder, Pose as RapierPose, Rotation, Vector};

use super::BodyWorld;
use super::motion::FALL_BELOW;
use crate::body::raster::CellGrid;
use crate::level::{Boundary, BoundaryKind, Edge};

/// Thickness of a wall along the map's edge, metres.
const WALL_THICKNESS: f32 = 1.0;

/// How far a wall along the map's edge rises above the highest ground, metres.
const WALL_ABOVE: f32 = 20.0;

/// Room between the map's edge and its wall, metres: bodies placed flush with the edge (a dam
/// of crates across a channel, wall to wall) are not pressed together by the walls.
const WALL_CLEARANCE: f32 = 0.05;

impl BodyWorld {
    /// Replaces the terrain's colliders (after sculpting): `terrain` is row-major, one height
    /// per cell centre of the world's grid. The ground is heightfield tiles, each from as few
    /// samples as keep it within [`GROUND_TOLERANCE`](super::GROUND_TOLERANCE) of every sample (`world/tiles.rs`).
    /// Called again on the same grid (a gate that lowered its cells), only the tiles with a
    /// changed sample are made again.
    pub fn set_terrain(&mut self, terrain: &[f32]) {
        let CellGrid { nx, ny, .. } = self.grid;
        (self.floor, self.ceiling) = (f32::NEG_INFINITY, f32::NEG_INFINITY);
        if nx < 2 || ny < 2 || terrain.len() != nx * ny {
            self.terrain.clear(&mut self.physics);
            self.build_walls();
            return;
        }
        let finite = terrain.iter().copied().filter(|h| h.is_finite());
        self.floor = finite.clone().fold(f32::INFINITY, f32::min);
        self.ceiling = finite.fold(f32::NEG_INFINITY, f32::max);
        self.terrain.set(&mut self.physics, terrain, self.grid);
        // The walls reach from under the lowest ground to over the highest.
        self.build_walls();
    }

    /// Walls for the bodies along the map's edges, from the level's `boundaries` and its
    /// `default` boundary (`params.default_boundary`, for the edge cells no boundary covers),
    /// read as the water reads them (the default, then each boundary in order over it): every
    /// stretch of an edge that is a wall for the water is a wall for the bodies too, from under
    /// the lowest ground to 20 m over the highest, and past the map's corners where it reaches
    /// them. Elsewhere (open, fixed-level, inflow, tide or hydrograph edges) a body carried
    /// over the edge falls and is set aside ([`Self::has_left`]). Without this call (a world
    /// made by [`Self::new`]) there are no walls. Cheap when the boundaries did not change.
    pub fn set_edges(&mut self, boundaries: &[Boundary], default: &BoundaryKind) {
        if let Some((b, d)) = &self.edges
            && b.as_slice() == boundaries
            && d == default
        {
            return;
        }
        self.edges = Some((boundaries.to_vec(), default.clone()));
        self.build_walls();
    }

    /// The triangles of the ground's colliders (two per cell where every sample is kept,
    /// fewer where the ground is flat enough for fewer).
    pub fn ground_triangles(&self) -> usize {
        self.terrain.triangles()
    }

    /// Makes the walls of [`Self::set_edges`] afresh for the boundaries and terrain now.
    fn build_walls(&mut self) {
        for h in std::mem::take(&mut self.walls) {
            self.physics.remove_collider(h);
        }
        let Some((boundaries, default)) = &self.edges else {
            return;
        };
        if !(self.floor.is_finite() && self.ceiling.is_finite()) {
            return;
        }
        let CellGrid { nx, ny, cell_size } = self.grid;
        let (bottom, top) = (self.floor - FALL_BELOW, self.ceiling + WALL_ABOVE);
        let mut walls = Vec::new();
        for edge in Edge::ALL {
            let along = match edge {
                Edge::West | Edge::East => ny,
                Edge::North | Edge::South => nx,
            };
            for (start, end) in closed_stretches(boundaries, default, edge, along) {
                // Each wall's inner face is just past the map's edge, where a designer places
                // bodies up to; the ground reaches under it. A wall that reaches a corner of the
                // map goes on past it by its clearance and thickness, so no gap is left where
                // two walls meet.
                let past = WALL_CLEARANCE + WALL_THICKNESS;
                let a = start as f32 * cell_size - if start == 0 { past } else { 0.0 };
                let b = end as f32 * cell_size + if end == along { past } else { 0.0 };
                let half = [WALL_THICKNESS / 2.0, (b - a) / 2.0, (top - bottom) / 2.0];
                let middle = (a + b) / 2.0;
                let out = WALL_CLEARANCE + WALL_THICKNESS / 2.0;
                let (x, y, hx, hy) = match edge {
                    Edge::West => (-out, middle, half[0], half[1]),
                    Edge::East => (nx as f32 * cell_size + out, middle, half[0], half[1]),
                    Edge::North => (middle, -out, half[1], half[0]),
                    Edge::South => (middle, ny as f32 * cell_size + out, half[1], half[0]),
                };
                let z = (bottom + top) / 2.0;
                let wall = ColliderBuilder::cuboid(hx, hy, half[2])
                    .position(RapierPose::from_parts(
                        Vector::new(x, y, z),
                        Rotation::IDENTITY,
                    ))
                    .friction(0.0);
                walls.push(self.physics.insert_collider(wall, None));
            }
        }
        self.walls = walls;
    }
}

/// The stretches `[start, end)` of cells along `edge` (of `along` cells) where the water meets
/// a wall: the `default` kind, then each boundary on the edge in order over it, as the solvers
/// read them (`sim::boundary`).
fn closed_stretches(
    boundaries: &[Boundary],
    default: &BoundaryKind,
    edge: Edge,
    along: usize,
) -> Vec<(usize, usize)> {
    let mut open = vec![*default != BoundaryKind::Wall; along];
    for b in boundaries.iter().filter(|b| b.edge == edge) {
        let (s, e) = ((b.start as usize).min(along), (b.end as usize).min(along));
        open[s..e.max(s)].fill(b.kind != BoundaryKind::Wall);
    }
    let mut out = Vec::new();
    let mut start = None;
    for (k, &o) in open.iter().chain(std::iter::once(&true)).enumerate() {
        match (o, start) {
            (false, None) => start = Some(k),
            (true, Some(s)) => {
                out.push((s, k));
                start = None;
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outlet_opens_its_stretch_of_the_wall() {
        let outlet = Boundary {
            edge: Edge::East,
            start: 3,
            end: 6,
            kind: BoundaryKind::Open,
        };
        let wall = BoundaryKind::Wall;
        assert_eq!(closed_stretches(&[], &wall, Edge::East, 10), vec![(0, 10)]);
        let b = [outlet];
        assert_eq!(
            closed_stretches(&b, &wall, Edge::East, 10),
            vec![(0, 3), (6, 10)]
        );
        assert_eq!(closed_stretches(&b, &wall, Edge::West, 10), vec![(0, 10)]);
        let whole = Boundary {
            start: 0,
            end: 99,
            ..b[0].clone()
        };
        assert!(closed_stretches(&[whole], &wall, Edge::East, 10).is_empty());
    }

    #[test]
    fn an_open_default_leaves_only_the_walls_laid_over_it() {
        let open = BoundaryKind::Open;
        assert!(closed_stretches(&[], &open, Edge::North, 10).is_empty());
        let wall = Boundary {
            edge: Edge::North,
            start: 2,
            end: 5,
            kind: BoundaryKind::Wall,
        };
        let b = [wall.clone()];
        assert_eq!(closed_stretches(&b, &open, Edge::North, 10), vec![(2, 5)]);
        // Later boundaries win, as in the solvers: an inflow over part of the wall opens it.
        let inflow = Boundary {
            start: 4,
            end: 8,
            kind: BoundaryKind::Inflow { m3_per_s: 1.0 },
            ..wall
        };
        let b = [b[0].clone(), inflow];
        assert_eq!(closed_stretches(&b, &open, Edge::North, 10), vec![(2, 4)]);
    }
}
