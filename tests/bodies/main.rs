//! Rigid bodies and the water (issue 6), CPU side: glTF import of the project's assets and of
//! broken files, blocking bodies in the pipes solver (crate dams, water under a body with
//! clearance), buoyancy and volume balance.

mod blocking;
mod buoyancy;
#[cfg(feature = "rapier")]
mod collider;
#[cfg(feature = "rapier")]
mod coupled;
#[cfg(all(feature = "rapier", feature = "gpu"))]
mod gpu_coupled;
#[cfg(feature = "rapier")]
mod ground;
mod import;
#[cfg(feature = "rapier")]
mod packed;
mod raster;
#[cfg(feature = "rapier")]
mod sleep;
#[cfg(feature = "rapier")]
mod stability;
#[cfg(feature = "rapier")]
mod threads;
mod upper;

use std::path::PathBuf;

use spillway::body::import::{ImportLimits, import};
use spillway::body::raster::{CellGrid, Coverage};
use spillway::body::{Pose, TriMesh};
use spillway::level::{Boundary, BoundaryKind, Edge, Level};
use spillway::sim::blocking::Blockers;
use spillway::{Grid, Simulation};

/// The repository's `assets/` folder.
pub fn assets() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets")
}

/// The mesh of `assets/NAME.glb`.
pub fn asset(name: &str) -> TriMesh {
    let root = assets();
    import(
        &root.join(format!("{name}.glb")),
        &root,
        &ImportLimits::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A flat channel `length × width` metres of `dx` cells, dry, fed with `inflow` m³/s through the
/// west edge and open at the east edge.
pub fn channel(length: f32, width: f32, dx: f32, inflow: f32) -> Level {
    let (nx, ny) = ((length / dx) as usize, (width / dx) as usize);
    let mut level = Level::flat(nx, ny, dx, 0.0);
    level.water = Grid::filled(nx, ny, 0.0);
    level.boundaries = vec![
        Boundary {
            edge: Edge::West,
            start: 0,
            end: ny as u32,
            kind: BoundaryKind::Inflow { m3_per_s: inflow },
        },
        Boundary {
            edge: Edge::East,
            start: 0,
            end: ny as u32,
            kind: BoundaryKind::Open,
        },
    ];
    level
}

/// A 60 m × 6 m river on 0.5 m cells, 1 m deep: 3 m³/s in at the west end, the level held at
/// 1 m at the east end (the log drift scenario).
pub fn river() -> Level {
    let mut level = channel(60.0, 6.0, 0.5, 3.0);
    level.boundaries[1].kind = BoundaryKind::FixedLevel { surface: 1.0 };
    level.water = Grid::filled(level.nx(), level.ny(), 1.0);
    level
}

/// Blocker columns of the meshes placed by the poses on the simulation's grid.
pub fn blockers(sim: &Simulation, bodies: &[(&TriMesh, Pose)]) -> Blockers {
    let mut b = Blockers::new(sim.nx(), sim.ny());
    for (mesh, pose) in bodies {
        coverage(sim, mesh, pose).add_to(&mut b);
    }
    b
}

/// One body's coverage on the simulation's grid (4×4 samples per cell).
pub fn coverage(sim: &Simulation, mesh: &TriMesh, pose: &Pose) -> Coverage {
    let grid = CellGrid {
        nx: sim.nx(),
        ny: sim.ny(),
        cell_size: sim.cell_size(),
    };
    Coverage::rasterise(mesh, pose, grid, 4)
}

/// Discharge (m³/s) through the x-faces of column `i`, summed over the width.
pub fn discharge_at(sim: &Simulation, i: usize) -> f64 {
    let (qx, _) = sim.discharges();
    (0..sim.ny())
        .map(|j| qx[j * (sim.nx() + 1) + i] as f64)
        .sum()
}

/// Mean surface (terrain + depth) of column `i` over the width.
pub fn surface_at_column(sim: &Simulation, i: usize) -> f64 {
    let (nx, ny) = (sim.nx(), sim.ny());
    (0..ny)
        .map(|j| (sim.terrain()[j * nx + i] + sim.depth()[j * nx + i]) as f64)
        .sum::<f64>()
        / ny as f64
}

/// A 40 m square basin of 0.5 m cells, 1.5 m deep, with a 4 m³/s spring in one corner and a
/// 4 m³/s drain in the opposite one: the water runs across it.
#[cfg(feature = "rapier")]
pub fn crowded_river_level() -> Level {
    use spillway::level::{Shape, Sink, SinkKind, Source, SourceKind};
    let n = 80;
    let mut level = Level::flat(n, n, 0.5, 0.0);
    level.water = Grid::filled(n, n, 1.5);
    level.sources.push(Source {
        name: "spring".into(),
        shape: Shape::Circle {
            x: 4.0,
            y: 4.0,
            radius: 2.0,
        },
        kind: SourceKind::Rate { m3_per_s: 4.0 },
        enabled: true,
    });
    level.sinks.push(Sink {
        name: "drain".into(),
        shape: Shape::Circle {
            x: 36.0,
            y: 36.0,
            radius: 2.0,
        },
        kind: SinkKind::Rate { m3_per_s: 4.0 },
        enabled: true,
    });
    level
}

/// Drops 200 bodies of every kind (crates, logs, barrels, planks, boulders) in a fixed
/// pseudo-random scatter over [`crowded_river_level`].
#[cfg(feature = "rapier")]
pub fn crowd(world: &mut spillway::body::world::BodyWorld) {
    use spillway::level::{Body, Coupling};
    let kinds = [
        ("crate", 400.0),
        ("log", 600.0),
        ("barrel", 300.0),
        ("plank", 500.0),
        ("boulder", 2600.0),
    ];
    let meshes: Vec<std::sync::Arc<TriMesh>> = kinds.iter().map(|(k, _)| asset(k).into()).collect();
    // A fixed pseudo-random scatter (no rand crate): a 32-bit LCG.
    let mut seed = 12345u32;
    let mut next = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32
    };
    for b in 0..200 {
        let k = b % kinds.len();
        let at = [3.0 + 34.0 * next(), 3.0 + 34.0 * next(), 2.5 + 3.0 * next()];
        let angle = std::f32::consts::TAU * next();
        let body = Body {
            name: format!("{} {b}", kinds[k].0),
            gltf: format!("{}.glb", kinds[k].0),
            translation: at,
            rotation: [0.0, 0.0, (angle / 2.0).sin(), (angle / 2.0).cos()],
            scale: [1.0; 3],
            density: kinds[k].1,
            dynamic: true,
            coupling: Coupling::Auto,
            collider: Default::default(),
        };
        world.add(&body, meshes[k].clone());
    }
}

/// A dynamic body of `assets/NAME.glb` at `at`, unrotated, coupling from its density.
pub fn body(name: &str, at: [f32; 3], density: f32) -> spillway::level::Body {
    spillway::level::Body {
        name: name.into(),
        gltf: format!("{name}.glb"),
        translation: at,
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
        density,
        dynamic: true,
        coupling: spillway::level::Coupling::Auto,
        collider: Default::default(),
    }
}

/// Asserts that every body of `world` has a finite pose (no NaN left a step).
#[cfg(feature = "rapier")]
pub fn assert_poses_finite(world: &spillway::body::world::BodyWorld) {
    for id in world.ids() {
        let p = world.pose(id).unwrap();
        assert!(
            p.translation
                .iter()
                .chain(&p.rotation)
                .all(|x| x.is_finite()),
            "body {id:?} at {p:?}"
        );
    }
}
