//! The bodies' ground (feature `rapier`): heightfield tiles that keep fewer samples where the
//! terrain is flat enough (`spillway::body::world::GROUND_TOLERANCE`), every sample where it
//! is not, and bodies rest on it where they rest on the terrain.

use std::path::PathBuf;

use spillway::Simulation;
use spillway::bench::{BenchScene, scene};
use spillway::body::world::{BodyWorld, GROUND_TOLERANCE};
use spillway::level::{Body, Coupling, Level};

use super::asset;

/// A dry crate of `density` at `at`.
fn crate_at(at: [f32; 3]) -> Body {
    Body {
        name: "crate".into(),
        gltf: "crate.glb".into(),
        translation: at,
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
        density: 400.0,
        dynamic: true,
        coupling: Coupling::Auto,
        collider: Default::default(),
    }
}

/// Two triangles a cell: the ground when every sample is kept.
fn every_sample(level: &Level) -> usize {
    2 * (level.nx() + 1) * (level.ny() + 1)
}

#[test]
fn a_smooth_lake_bed_is_ground_of_few_triangles_and_a_crate_rests_on_it_as_on_the_terrain() {
    // The body bench's lake: a bed undulating by 0.4 m over 90 to 125 m, 1 m of water.
    let mut level = scene(256, BenchScene::Lake);
    level.water = spillway::Grid::filled(256, 256, 0.0);
    let sim = Simulation::new(&level).unwrap();
    let mut world = BodyWorld::new(&sim);
    let (kept, all) = (world.ground_triangles(), every_sample(&level));
    println!("lake bed 256²: {kept} of {all} triangles");
    assert!(kept * 8 < all, "{kept} of {all}");
    // A crate dropped on the dry bed comes to rest where it would on the full heightfield:
    // its bottom within the tolerance (and rapier's contact allowance) of the terrain.
    let mesh = std::sync::Arc::new(asset("crate"));
    let bottom = mesh
        .positions
        .iter()
        .map(|p| p[2])
        .fold(f32::INFINITY, f32::min);
    let mut sim = sim;
    let spots = [[60.3, 80.7], [128.0, 128.0], [200.5, 40.2], [33.3, 190.9]];
    let ids: Vec<_> = (spots.iter())
        .map(|&[x, y]| world.add(&crate_at([x, y, 1.5]), mesh.clone()))
        .collect();
    let dt = sim.params().dt;
    for _ in 0..(4.0 / dt) as usize {
        world.step(&mut sim, dt).unwrap();
    }
    for (&id, [x, y]) in ids.iter().zip(spots) {
        let p = world.pose(id).unwrap().translation;
        let (i, j) = (p[0] as usize, p[1] as usize);
        let ground = level.terrain.get(i, j);
        let rest = p[2] + bottom;
        println!("crate at ({x}, {y}): bottom {rest:.4}, terrain {ground:.4}");
        // The cell's centre is up to 0.7 m from the crate's corners on a bed sloping at most
        // 0.2·0.07 per metre: 1 cm, the tolerance and rapier's allowance on top.
        assert!(
            (rest - ground).abs() < 0.01 + GROUND_TOLERANCE + 0.02,
            "({x}, {y}): bottom at {rest}, terrain {ground}"
        );
    }
}

#[test]
fn the_sample_projects_grounds_keep_at_most_every_sample_and_the_flat_river_valley_half() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../projects");
    let mut projects: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("level.ron").is_file())
        .collect();
    projects.sort();
    assert!(projects.len() >= 8);
    for dir in projects {
        let level = spillway::level::file::load(&dir.join("level.ron")).unwrap();
        let sim = Simulation::new(&level).unwrap();
        let world = BodyWorld::new(&sim);
        let (kept, all) = (world.ground_triangles(), every_sample(&level));
        println!(
            "{}: {kept} of {all} ground triangles ({:.1} %)",
            dir.file_name().unwrap().to_string_lossy(),
            100.0 * kept as f64 / all as f64
        );
        assert!(kept > 0 && kept <= all);
        // Its wide flat floodplain: about half the triangles go (that a tile is never coarser
        // than its ground allows is checked sample by sample in the runtime's unit tests).
        if dir.ends_with("river_valley") {
            assert!(kept * 10 < all * 6, "river_valley kept {kept} of {all}");
        }
    }
}
