//! A body's collider from its mesh and [`ColliderShape`]: a convex hull, the triangle mesh
//! itself (static bodies), or a compound of convex parts from a V-HACD decomposition that is
//! made once per mesh and kept with it ([`TriMesh::convex_parts`]).

use rapier3d::parry::transformation::vhacd::{VHACD, VHACDParameters};
use rapier3d::prelude::{ColliderBuilder, Pose as RapierPose, SharedShape, Vector};

use crate::body::TriMesh;
use crate::level::{Body, ColliderShape};

/// The collider of `body` (its mesh scaled by `scale`), with no density or friction set.
pub(super) fn collider(body: &Body, mesh: &TriMesh, scale: [f32; 3]) -> ColliderBuilder {
    let scaled = |points: &[[f32; 3]]| -> Vec<Vector> {
        points
            .iter()
            .map(|p| Vector::new(p[0] * scale[0], p[1] * scale[1], p[2] * scale[2]))
            .collect()
    };
    let hull = || {
        ColliderBuilder::convex_hull(&scaled(&mesh.positions))
            .unwrap_or_else(|| bounds_box(mesh, scale))
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
                ColliderBuilder::compound(parts)
            }
        }
        ColliderShape::Auto if !body.dynamic && !mesh.triangles.is_empty() => {
            ColliderBuilder::trimesh(scaled(&mesh.positions), mesh.triangles.clone())
                .unwrap_or_else(|_| bounds_box(mesh, scale))
        }
        _ => hull(),
    }
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
