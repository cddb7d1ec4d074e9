//! A body's collider from its mesh and [`ColliderShape`]: a convex hull, the triangle mesh
//! itself (static bodies), or a compound of convex parts from a V-HACD decomposition that is
//! made once per mesh and kept with it ([`TriMesh::convex_parts`]).

use rapier3d::parry::transformation::vhacd::{VHACD, VHACDParameters};
use rapier3d::prelude::{ColliderBuilder, Pose as RapierPose, SharedShape, Vector};

use crate::body::TriMesh;
use crate::level::{Body, ColliderShape};

/// The most corners a body's convex hull keeps for contacts. Rapier's work per body (bounds,
/// support points, contact search) grows with them: a 162-corner boulder costs several times
/// an 8-corner crate.
pub const HULL_CORNERS: usize = 48;

/// The collider of `body` (its mesh scaled by `scale`) with `density` (kg/m³), no friction
/// set. A convex hull of more than [`HULL_CORNERS`] corners collides as the hull of its
/// corners farthest out in as many directions, and keeps the full hull's mass and inertia.
pub(super) fn collider(
    body: &Body,
    mesh: &TriMesh,
    scale: [f32; 3],
    density: f32,
) -> ColliderBuilder {
    let scaled = |points: &[[f32; 3]]| -> Vec<Vector> {
        points
            .iter()
            .map(|p| Vector::new(p[0] * scale[0], p[1] * scale[1], p[2] * scale[2]))
            .collect()
    };
    let hull = || {
        let points = scaled(&mesh.positions);
        let Some(full) = SharedShape::convex_hull(&points) else {
            return bounds_box(mesh, scale).density(density);
        };
        let density = density * filled_share(mesh, scale, &full);
        let corners = full.as_convex_polyhedron().map_or(&[][..], |c| c.points());
        if thin_box(corners) {
            // The hull is the box of the mesh's bounds.
            return bounds_box(mesh, scale).density(density);
        }
        if corners.len() <= HULL_CORNERS {
            return ColliderBuilder::new(full).density(density);
        }
        let mass = full.mass_properties(density);
        match SharedShape::convex_hull(&outermost(corners, HULL_CORNERS)) {
            Some(simple) => ColliderBuilder::new(simple).mass_properties(mass),
            None => ColliderBuilder::new(full).density(density),
        }
    };
    match body.collider {
        ColliderShape::ConvexDecomposition if !mesh.triangles.is_empty() => {
            let parts: Vec<(RapierPose, SharedShape)> = mesh
                .convex_parts(decompose)
                .iter()
                .filter_map(|part| SharedShape::convex_hull(&scaled(part)))
                .map(|shape| (RapierPose::IDENTITY, shape))
                .collect();
            if parts.is_empty() {
                hull()
            } else {
                ColliderBuilder::compound(parts).density(density)
            }
        }
        ColliderShape::Auto if !body.dynamic && !mesh.triangles.is_empty() => {
            ColliderBuilder::trimesh(scaled(&mesh.positions), mesh.triangles.clone())
                .unwrap_or_else(|_| bounds_box(mesh, scale))
                .density(density)
        }
        _ => hull(),
    }
}

/// The share of its convex hull a hollow mesh fills (a trough, a cart), by which the hull's
/// density is scaled so that the body weighs `density × mesh volume`, as the editor shows it
/// (the hull alone weighed a 5 cm-walled trough of 500 kg/m³ five times over, and it sank);
/// 1 for a mesh that fills at least [`FILLED`] of its hull (left exactly as it was) and for one
/// that is not solid ([`TriMesh::is_solid`]: its volume says nothing), else at least
/// [`MIN_FILLED`].
fn filled_share(mesh: &TriMesh, scale: [f32; 3], hull: &SharedShape) -> f32 {
    if !mesh.is_solid() {
        // An open or inside-out mesh's volume says nothing of its material.
        return 1.0;
    }
    let material = mesh.volume() as f32 * (scale[0] * scale[1] * scale[2]).abs();
    let share = material / hull.mass_properties(1.0).mass();
    if share.is_finite() && share < FILLED {
        share.max(MIN_FILLED)
    } else {
        1.0
    }
}

/// The share of its hull at and above which a mesh counts as solid ([`filled_share`]).
const FILLED: f32 = 0.98;

/// The least share of its hull a mesh's mass is taken from ([`filled_share`]).
const MIN_FILLED: f32 = 0.05;

/// Thinnest side of a box, as a share of its longest, below which it collides as a rapier
/// cuboid instead of a hull (see [`thin_box`]).
const THIN: f32 = 0.25;

/// Whether a hull's corners are the eight of its bounds, with its thinnest side under [`THIN`]
/// of its longest (a plank): such a hull collides as a cuboid ([`bounds_box`]), the same solid,
/// because rapier's continuous collision detection, which sweeps every body moving more than
/// half its thinnest side in a step (thin ones often), asks a hull for its mass properties and
/// a hull triangulates itself to answer, while a cuboid answers at once. (Crates stay hulls: as
/// cuboids they slid where they tumbled, `docs/gpu.md`.)
fn thin_box(corners: &[Vector]) -> bool {
    let Some(&first) = corners.first() else {
        return false;
    };
    let (mut lo, mut hi) = (first, first);
    for p in corners {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let on_bounds = |v: f32, a: f32, b: f32| v == a || v == b;
    let boxed = corners.iter().all(|p| {
        on_bounds(p.x, lo.x, hi.x) && on_bounds(p.y, lo.y, hi.y) && on_bounds(p.z, lo.z, hi.z)
    });
    let size = hi - lo;
    let (thin, long) = (size.min_element(), size.max_element());
    corners.len() == 8 && boxed && thin > 0.0 && thin < THIN * long
}

/// The points of `points` farthest out along `count` directions spread evenly over the sphere
/// (a Fibonacci lattice), each once: the corners of an inscribed hull that keeps the shape's
/// extent in every direction.
fn outermost(points: &[Vector], count: usize) -> Vec<Vector> {
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    let mut chosen: Vec<usize> = (0..count)
        .filter_map(|k| {
            let z = 1.0 - 2.0 * (k as f32 + 0.5) / count as f32;
            let r = (1.0 - z * z).max(0.0).sqrt();
            let (s, c) = (golden * k as f32).sin_cos();
            let d = Vector::new(r * c, r * s, z);
            (0..points.len()).max_by(|&a, &b| points[a].dot(d).total_cmp(&points[b].dot(d)))
        })
        .collect();
    chosen.sort_unstable();
    chosen.dedup();
    chosen.into_iter().map(|k| points[k]).collect()
}

/// Cuts `mesh` into convex parts with V-HACD (parry's defaults: a 64³ voxel grid), each part
/// as the points of its exact convex hull in the mesh's frame.
pub fn decompose(mesh: &TriMesh) -> Vec<Vec<[f32; 3]>> {
    let points: Vec<Vector> = mesh
        .positions
        .iter()
        .map(|p| Vector::new(p[0], p[1], p[2]))
        .collect();
    let triangles: Vec<[u32; 3]> = mesh
        .triangles
        .iter()
        .copied()
        .filter(|t| t.iter().all(|&i| (i as usize) < points.len()))
        .collect();
    if points.iter().any(|p| !p.is_finite()) || triangles.is_empty() {
        return Vec::new();
    }
    let params = VHACDParameters::default();
    VHACD::decompose(&params, &points, &triangles, true)
        .compute_exact_convex_hulls(&points, &triangles)
        .into_iter()
        .map(|(hull, _)| hull.iter().map(|p| [p.x, p.y, p.z]).collect())
        .filter(|part: &Vec<[f32; 3]>| part.len() >= 4)
        .collect()
}

/// A box of the mesh's scaled bounds, for meshes rapier cannot hull.
pub(super) fn bounds_box(mesh: &TriMesh, scale: [f32; 3]) -> ColliderBuilder {
    let (lo, hi) = mesh.bounds().unwrap_or(([-0.5; 3], [0.5; 3]));
    let half = |a: usize| ((hi[a] - lo[a]) * scale[a].abs() / 2.0).max(0.01);
    let mid = |a: usize| (hi[a] + lo[a]) * scale[a] / 2.0;
    ColliderBuilder::cuboid(half(0), half(1), half(2)).translation(Vector::new(
        mid(0),
        mid(1),
        mid(2),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corners(size: [f32; 3], turn: f32) -> Vec<Vector> {
        let (s, c) = turn.sin_cos();
        (0..8)
            .map(|k| {
                let p = [0, 1, 2].map(|a| if k >> a & 1 == 1 { 0.5 } else { -0.5 } * size[a]);
                Vector::new(c * p[0] - s * p[1], s * p[0] + c * p[1], p[2])
            })
            .collect()
    }

    #[test]
    fn a_plank_collides_as_a_cuboid_and_a_crate_as_its_hull() {
        let plank = corners([2.0, 0.3, 0.05], 0.0);
        assert!(thin_box(&plank), "a plank is a thin box");
        let positions = plank.iter().map(|p| [p.x, p.y, p.z]).collect();
        let body = crate::level::Body {
            name: "plank".into(),
            gltf: "plank.glb".into(),
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            density: 500.0,
            dynamic: true,
            coupling: Default::default(),
            collider: Default::default(),
        };
        let built = collider(&body, &TriMesh::new(positions, Vec::new()), [1.0; 3], 500.0);
        let half = built.shape.as_cuboid().expect("a cuboid").half_extents;
        assert_eq!([half.x, half.y, half.z], [1.0, 0.15, 0.025]);
        assert!(!thin_box(&corners([1.0, 1.0, 1.0], 0.0)), "a crate");
        assert!(
            !thin_box(&corners([2.0, 0.3, 0.05], 0.3)),
            "not along the axes"
        );
        assert!(!thin_box(&plank[..7]), "seven corners");
    }
}
