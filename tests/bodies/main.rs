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
mod import;
mod raster;

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
