//! Water to body: buoyancy of a floating crate and a sinking boulder from the effective surface,
//! drag toward the water's speed, and volume balance with bodies moving through a lake.

use spillway::body::Pose;
use spillway::body::forces::{Fluid, Motion, Water, WaterForces, water_forces};
use spillway::body::raster::Coverage;
use spillway::level::Level;
use spillway::{Grid, Simulation};

use super::{asset, blockers, coverage};

/// An 8 m × 8 m walled lake, 2 m deep, on 0.25 m cells.
fn lake() -> Simulation {
    let mut level = Level::flat(32, 32, 0.25, 0.0);
    level.water = Grid::filled(32, 32, 2.0);
    Simulation::new(&level).unwrap()
}

fn forces(sim: &Simulation, cov: &Coverage, motion: &Motion) -> WaterForces {
    let mut surface = Vec::new();
    sim.effective_surface_into(&mut surface);
    water_forces(cov, motion, &Water::of(sim, &surface), &Fluid::default())
}

#[test]
fn a_half_submerged_crate_of_density_500_is_carried_by_its_buoyancy() {
    let mut sim = lake();
    let mesh = asset("crate");
    // Centre at the water line: half of the 1 m crate under water.
    let pose = Pose::at([4.0, 4.0, 2.0]);
    let b = blockers(&sim, &[(&mesh, pose)]);
    sim.set_blockers(&b).unwrap();
    sim.advance(10.0).unwrap();
    let cov = coverage(&sim, &mesh, &pose);
    let motion = Motion {
        center_of_mass: [4.0, 4.0, 2.0],
        ..Motion::default()
    };
    let f = forces(&sim, &cov, &motion);
    let weight = 500.0 * mesh.volume() as f32 * 9.81;
    println!(
        "crate: buoyancy {:.1} N, weight {weight:.1} N, submerged {:.3}, torque {:?}",
        f.buoyancy[2], f.submerged_fraction, f.torque
    );
    assert!(
        (f.buoyancy[2] / weight - 1.0).abs() < 0.1,
        "buoyancy {} vs weight {weight}",
        f.buoyancy[2]
    );
    assert!((f.submerged_fraction - 0.5).abs() < 0.05);
    assert!(
        f.torque.iter().all(|t| t.abs() < 0.02 * weight),
        "symmetric: {:?}",
        f.torque
    );
    assert!(f.linear_damping > 0.0 && f.linear_damping < Fluid::default().linear_damping);
    let s = sim.stats();
    assert!(s.balance_error.abs() < 1e-6, "balance {}", s.balance_error);
}

#[test]
fn a_boulder_of_density_2600_sinks() {
    let sim = lake();
    let mesh = asset("boulder");
    let pose = Pose::at([4.0, 4.0, 1.0]); // fully under the 2 m surface
    let cov = coverage(&sim, &mesh, &pose);
    let motion = Motion {
        center_of_mass: [4.0, 4.0, 1.0],
        ..Motion::default()
    };
    let f = forces(&sim, &cov, &motion);
    let weight = 2600.0 * mesh.volume() as f32 * 9.81;
    println!(
        "boulder: buoyancy {:.1} N, weight {weight:.1} N",
        f.buoyancy[2]
    );
    assert!(f.submerged_fraction > 0.99);
    assert!((f.buoyancy[2] / (1000.0 * 9.81 * mesh.volume() as f32) - 1.0).abs() < 0.1);
    assert!(
        f.buoyancy[2] - weight < -0.5 * weight,
        "net force points down"
    );
}

#[test]
fn drag_pulls_a_body_toward_the_water_speed() {
    let sim = lake();
    let mesh = asset("crate");
    let pose = Pose::at([4.0, 4.0, 2.0]);
    let cov = coverage(&sim, &mesh, &pose);
    let moving = Motion {
        center_of_mass: [4.0, 4.0, 2.0],
        linear_velocity: [1.0, 0.0, 0.0],
        angular_velocity: [0.0; 3],
    };
    let f = forces(&sim, &cov, &moving);
    // Still water: drag opposes the motion, ½·C·ρ·u·ℓ·v² summed over the covered width.
    let expect = 0.5 * 5.0 * 1000.0 * 0.5 * 1.0 * 1.0;
    println!("drag {:?} N, expected about -{expect}", f.drag);
    assert!(f.drag[0] < 0.0 && (f.drag[0] / -expect - 1.0).abs() < 0.15);
    assert!(f.drag[1].abs() < 1e-3 * expect);
}

#[test]
fn volume_is_kept_with_bodies_moving_through_the_water() {
    let mut sim = lake();
    let crate_mesh = asset("crate");
    let boulder = asset("boulder");
    for step in 0..1500 {
        let t = step as f32 * 0.02;
        let bodies = [
            (
                &crate_mesh,
                Pose::at([2.0 + 4.0 * (0.5 + 0.5 * (0.3 * t).sin()), 3.0, 2.0]),
            ),
            (&boulder, Pose::at([5.0, 2.0 + 0.1 * t, 1.8 - 0.02 * t])),
        ];
        let b = blockers(&sim, &bodies);
        sim.set_blockers(&b).unwrap();
        sim.step(0.02).unwrap();
    }
    let s = sim.stats();
    println!(
        "moving bodies: balance {:.2e}, max depth {:.3}",
        s.balance_error, s.max_depth
    );
    assert!(s.balance_error.abs() < 1e-6, "balance {}", s.balance_error);
    assert!(sim.depth().iter().all(|d| d.is_finite()));
}

#[test]
fn fast_bodies_plunging_and_crossing_stay_stable() {
    // A cart driven to and fro through the lake at up to 2 m/s (fully under water) and a crate
    // dropped from 2 m above the surface to the bed at 4 m/s.
    let mut sim = lake();
    let cart = asset("cart");
    let crate_mesh = asset("crate");
    let mut max_depth = 0.0f32;
    for step in 0..1000 {
        let t = step as f32 * 0.02;
        let x = 4.0 + 1.5 * (1.333 * t).sin();
        let z = (4.0 - 4.0 * t).max(0.5);
        let bodies = [
            (&cart, Pose::at([x, 5.5, 0.575])),
            (&crate_mesh, Pose::at([2.5, 2.5, z])),
        ];
        let b = blockers(&sim, &bodies);
        sim.set_blockers(&b).unwrap();
        sim.step(0.02).expect("stable with fast bodies");
        max_depth = max_depth.max(sim.stats().max_depth);
    }
    let s = sim.stats();
    println!(
        "fast bodies: balance {:.2e}, largest depth {max_depth:.3} m",
        s.balance_error
    );
    assert!(s.balance_error.abs() < 1e-6);
    assert!(max_depth < 3.5, "no runaway spikes: {max_depth}");
    assert!(sim.effective_surface().iter().all(|s| s.is_finite()));
}

#[test]
fn a_submerged_boulder_raises_the_lake_by_its_volume_and_stays_under_it() {
    let mut sim = lake();
    let mesh = asset("boulder");
    let pose = Pose::at([4.0, 4.0, 0.6]); // resting near the bed, its top 1.2 m under water
    let cov = coverage(&sim, &mesh, &pose);
    let b = blockers(&sim, &[(&mesh, pose)]);
    sim.set_blockers(&b).unwrap();
    sim.advance(20.0).unwrap();
    // The lake sloshes for a long while: compare means, not points. Fully covered cells hold
    // the gap under the boulder and the water over it; the rest of the lake rises by the
    // volume of their columns.
    let surface = sim.effective_surface();
    let (mut free, mut over, mut columns) = (Vec::new(), Vec::new(), 0.0f64);
    for j in 0..sim.ny() {
        for i in 0..sim.nx() {
            let s = surface[j * sim.nx() + i] as f64;
            match b.column(i, j) {
                Some((lo, hi, c)) if c >= 0.99 => {
                    over.push(s);
                    columns += (hi - lo) as f64 * 0.0625;
                }
                Some(_) => {}
                None => free.push(s),
            }
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let rise = mean(&free) - 2.0;
    let expect = columns / (free.len() as f64 * 0.0625);
    println!(
        "boulder under water: lake +{rise:.4} m (columns/area {expect:.4}), surface over it {:.4} m, around {:.4} m",
        mean(&over),
        mean(&free)
    );
    assert!((rise / expect - 1.0).abs() < 0.15, "{rise} vs {expect}");
    assert!(
        (mean(&over) - mean(&free)).abs() < 0.05,
        "the surface runs on over the boulder"
    );
    let f = forces(&sim, &cov, &Motion::default());
    assert!(f.submerged_fraction > 0.99);
}

#[test]
fn density_chooses_floaters_and_blockers_unless_the_body_says() {
    use spillway::body::blocks_water;
    use spillway::level::{Body, Coupling};
    let mut body = Body {
        name: "crate".into(),
        gltf: "assets/crate.glb".into(),
        translation: [0.0; 3],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
        density: 500.0,
        dynamic: true,
        coupling: Coupling::Auto,
        collider: Default::default(),
    };
    assert!(!blocks_water(&body));
    body.density = 2600.0;
    assert!(blocks_water(&body));
    body.coupling = Coupling::Floater;
    assert!(!blocks_water(&body));
    body.density = 100.0;
    body.coupling = Coupling::Blocker;
    assert!(blocks_water(&body));
}

#[test]
fn a_body_sunk_into_dry_ground_feels_no_water() {
    // Dry ground at 1 m, a crate whose lower 0.3 m lies below it (as on a slope, where the
    // collider runs below a cell's centre height): buoyancy and drag came from that part.
    let mut level = Level::flat(32, 32, 0.25, 1.0);
    level.water = Grid::filled(32, 32, 0.0);
    let sim = Simulation::new(&level).unwrap();
    let mesh = asset("crate");
    let pose = Pose::at([4.0, 4.0, 1.2]);
    let cov = coverage(&sim, &mesh, &pose);
    let motion = Motion {
        center_of_mass: [4.0, 4.0, 1.2],
        linear_velocity: [2.0, 0.0, 0.0],
        ..Motion::default()
    };
    let f = forces(&sim, &cov, &motion);
    assert_eq!((f.buoyancy[2], f.drag[0]), (0.0, 0.0), "{f:?}");
    assert_eq!(f.submerged_volume, 0.0);
}

#[test]
fn a_log_off_the_middle_of_its_cells_feels_no_roll() {
    // Buoyancy and drag acted at each cell's centre: a log along x with its axis at y = 10.2
    // on 1 m cells had all its lift 0.3 m to one side, a roll torque of ~560 N·m that its
    // round shape should not feel.
    let mut level = Level::flat(20, 20, 1.0, 0.0);
    level.water = Grid::filled(20, 20, 2.0);
    let sim = Simulation::new(&level).unwrap();
    let mesh = asset("log");
    let (lo, hi) = mesh.bounds().expect("a mesh");
    let along_x = hi[0] - lo[0] > hi[1] - lo[1];
    let at = if along_x {
        [10.0, 10.2, 2.0]
    } else {
        [10.2, 10.0, 2.0]
    };
    let pose = Pose::at(at);
    let cov = coverage(&sim, &mesh, &pose);
    let motion = Motion {
        center_of_mass: at,
        ..Motion::default()
    };
    let f = forces(&sim, &cov, &motion);
    let roll = if along_x { f.torque[0] } else { f.torque[1] };
    println!(
        "log: buoyancy {:.1} N, roll torque {roll:.2} N·m",
        f.buoyancy[2]
    );
    assert!(f.buoyancy[2] > 100.0, "it floats: {:?}", f.buoyancy);
    assert!(
        roll.abs() < 0.01 * f.buoyancy[2],
        "roll {roll} N·m for {} N of lift",
        f.buoyancy[2]
    );
}
