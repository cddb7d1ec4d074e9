//! Collision shapes (feature `rapier`): a dynamic trough keeps its hollow with a convex
//! decomposition (a small crate dropped into it lands on the trough's floor) and loses it with
//! the default convex hull (the crate rests on the hull's lid); the decomposition is made once
//! per mesh and shared by every body using it.

use std::sync::Arc;

use rapier3d::prelude::{SharedShape, Vector};
use spillway::body::TriMesh;
use spillway::body::world::BodyWorld;
use spillway::level::{Body, ColliderShape, Coupling, Level};
use spillway::{Grid, Simulation};

use super::asset;

/// A U-shaped trough 3 m long (x), 1 m deep and 1.2 m wide (y): a 0.3 m floor and 0.5 m walls,
/// closed and outward-facing, origin at its bottom centre.
fn trough() -> TriMesh {
    // The U outline in the x–z plane, counter-clockwise, with the floor's top corners on the
    // outer edges so the faces triangulate without T-junctions.
    let outline: [[f32; 2]; 10] = [
        [-1.5, 0.0],
        [1.5, 0.0],
        [1.5, 0.3],
        [1.5, 1.0],
        [1.0, 1.0],
        [1.0, 0.3],
        [-1.0, 0.3],
        [-1.0, 1.0],
        [-1.5, 1.0],
        [-1.5, 0.3],
    ];
    let (y0, y1) = (-0.6f32, 0.6f32);
    let mut positions = Vec::new();
    for y in [y0, y1] {
        for [x, z] in outline {
            positions.push([x, y, z]);
        }
    }
    let n = outline.len() as u32;
    // The U as three rectangles (floor, walls) on each end face, by outline index.
    let quads = [[0, 1, 2, 9], [9, 6, 7, 8], [5, 2, 3, 4]];
    let mut triangles = Vec::new();
    for q in quads {
        // End face y = y0 faces −y, y = y1 faces +y.
        triangles.push([q[0], q[2], q[1]]);
        triangles.push([q[0], q[3], q[2]]);
        triangles.push([n + q[0], n + q[1], n + q[2]]);
        triangles.push([n + q[0], n + q[2], n + q[3]]);
    }
    for i in 0..n {
        let j = (i + 1) % n;
        triangles.push([i, j, n + j]);
        triangles.push([i, n + j, n + i]);
    }
    TriMesh::new(positions, triangles)
}

fn body(name: &str, gltf: &str, at: [f32; 3], density: f32, collider: ColliderShape) -> Body {
    Body {
        name: name.into(),
        gltf: gltf.into(),
        translation: at,
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
        density,
        dynamic: true,
        coupling: Coupling::Auto,
        collider,
    }
}

/// Where a 0.3 m crate dropped over the middle of a dynamic trough comes to rest (its centre's
/// height), with the trough's collider `shape`.
fn crate_in_trough(shape: ColliderShape, mesh: Arc<TriMesh>) -> f32 {
    let level = Level::flat(16, 16, 1.0, 0.0);
    let mut sim = Simulation::new(&level).expect("dry flat level");
    let mut world = BodyWorld::new(&sim);
    world.add(
        &body("trough", "trough.glb", [8.0, 8.0, 0.0], 2000.0, shape),
        mesh,
    );
    let mut small = body(
        "crate",
        "crate.glb",
        [8.0, 8.0, 2.0],
        500.0,
        ColliderShape::Auto,
    );
    small.scale = [0.3; 3];
    let id = world.add(&small, Arc::new(asset("crate")));
    let dt = sim.params().dt;
    for _ in 0..(3.0 / dt) as usize {
        world.step(&mut sim, dt).expect("stable");
    }
    let z = world.pose(id).expect("in the world").translation[2];
    println!("{shape:?}: the crate rests with its centre at z = {z:.3} m");
    z
}

#[test]
fn a_convex_decomposition_keeps_the_hollow_of_a_dynamic_trough() {
    let mesh = Arc::new(trough());
    let decomposed = crate_in_trough(ColliderShape::ConvexDecomposition, mesh.clone());
    assert!(mesh.has_convex_parts(), "made at the first body");
    let parts = mesh.convex_parts(|_| unreachable!("made once and kept"));
    println!("{} convex parts", parts.len());
    assert!(parts.len() >= 3, "a U needs at least three parts");
    // The crate's centre 0.15 m above the trough's floor (0.3 m), not on the hull's lid (1 m).
    assert!(
        (decomposed - 0.45).abs() < 0.1,
        "on the floor of the trough: {decomposed}"
    );
    let hulled = crate_in_trough(ColliderShape::ConvexHull, Arc::new(trough()));
    assert!(
        (hulled - 1.15).abs() < 0.1,
        "on the lid of the hull: {hulled}"
    );
    // A second body of the same mesh reuses the parts.
    let again = crate_in_trough(ColliderShape::ConvexDecomposition, mesh.clone());
    assert!(Arc::ptr_eq(&parts, &mesh.convex_parts(|_| unreachable!())));
    assert!((again - decomposed).abs() < 1e-3);
}

#[test]
fn the_collider_shape_is_saved_only_when_chosen() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut level = Level::flat(8, 8, 1.0, 0.0);
    level.water = Grid::filled(8, 8, 0.0);
    level.bodies = vec![
        body(
            "a",
            "crate.glb",
            [2.0, 2.0, 0.5],
            500.0,
            ColliderShape::Auto,
        ),
        body(
            "b",
            "crate.glb",
            [5.0, 5.0, 0.5],
            500.0,
            ColliderShape::ConvexDecomposition,
        ),
    ];
    let path = dir.path().join("level.ron");
    spillway::level::file::save(&level, &path).expect("save");
    let text = std::fs::read_to_string(&path).expect("saved");
    assert_eq!(
        text.matches("collider:").count(),
        1,
        "only the chosen shape is written"
    );
    assert_eq!(spillway::level::file::load(&path).expect("load"), level);
}

/// A boulder's hull (162 corners) collides as the hull of its 48 outermost corners, yet
/// weighs its own volume of rock (not the simplified hull's, nor the full hull's: its bumps
/// fill 94 % of it), and rests on the ground at
/// its full extent.
#[test]
fn a_many_cornered_hull_keeps_its_mass_and_rests_at_its_extent() {
    let mesh = asset("boulder");
    let (lo, _) = mesh.bounds().expect("a mesh");
    let hull = hull_of(&mesh);
    // The boulder's bumps fill 94 % of its hull: it weighs its own volume of rock.
    let material = mesh.volume() as f32;
    let level = Level::flat(16, 16, 1.0, 0.0);
    let mut sim = Simulation::new(&level).expect("dry flat level");
    let mut world = BodyWorld::new(&sim);
    let density = 2600.0;
    let id = world.add(
        &body(
            "boulder",
            "boulder.glb",
            [8.0, 8.0, 1.5],
            density,
            ColliderShape::Auto,
        ),
        Arc::new(mesh),
    );
    let mass = world.mass(id).expect("in the world");
    let full = hull.mass_properties(density).mass();
    let own = density * material;
    let dt = sim.params().dt;
    for _ in 0..(3.0 / dt) as usize {
        world.step(&mut sim, dt).expect("stable");
    }
    let z = world.pose(id).expect("in the world").translation[2];
    println!(
        "mass {mass:.1} kg against {own:.1} kg (its volume of rock; the full hull holds \
         {full:.1} kg); resting centre z = {z:.3} m, lowest point {:.3} m below the centre",
        -lo[2]
    );
    assert!(
        (mass / own - 1.0).abs() < 1e-4,
        "mass {mass} kg, its volume of rock {own} kg (the full hull {full} kg)"
    );
    assert!(
        (z + lo[2]).abs() < 0.05,
        "the boulder's lowest point rests at {} m, not on the ground",
        z + lo[2]
    );
}

#[test]
fn a_hollow_body_weighs_its_own_volume_not_its_hull() {
    // The cart's open box and wheels fill half its convex hull: as a hull alone it weighed
    // twice what the editor showed (density × the mesh's volume), and a
    // hollow floater sank though the panel said it was lighter than water.
    let mesh = asset("cart");
    let hull = hull_of(&mesh);
    let material = mesh.volume() as f32;
    let level = Level::flat(16, 16, 1.0, 0.0);
    let sim = Simulation::new(&level).expect("dry flat level");
    let mut world = BodyWorld::new(&sim);
    let density = 600.0;
    let id = world.add(
        &body(
            "cart",
            "cart.glb",
            [8.0, 8.0, 2.0],
            density,
            ColliderShape::Auto,
        ),
        Arc::new(mesh),
    );
    let mass = world.mass(id).expect("in the world");
    let full = hull.mass_properties(density).mass();
    println!(
        "cart: {mass:.1} kg, its own volume {:.1} kg, its hull {full:.1} kg",
        density * material
    );
    assert!(full > 1.5 * density * material, "the cart is hollow");
    assert!(
        (mass / (density * material) - 1.0).abs() < 1e-4,
        "{mass} kg"
    );
}

/// The convex hull of `mesh`'s vertices.
fn hull_of(mesh: &spillway::body::TriMesh) -> SharedShape {
    let points: Vec<Vector> = (mesh.positions.iter())
        .map(|p| Vector::new(p[0], p[1], p[2]))
        .collect();
    SharedShape::convex_hull(&points).expect("a hull")
}
