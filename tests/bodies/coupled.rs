//! Bodies and water acting on each other in a rapier3d world (`BodyWorld`, feature `rapier`):
//! a crate floats at the depth its density implies, a boulder sinks and rests on the bed, a log
//! drifts with the river, removing or knocking over a dam releases a flood, and 200 moving bodies
//! keep the water's volume balance.

use std::sync::Arc;

use spillway::body::TriMesh;
use spillway::body::world::{BodyId, BodyWorld};
use spillway::level::Level;
use spillway::{Grid, Simulation};

use super::{
    assert_poses_finite, asset, body, channel, crowd, crowded_river_level, discharge_at, river,
};

/// A walled `n × n` lake of `dx` cells, `depth` deep over a flat bed at 0.
pub(super) fn lake(n: usize, dx: f32, depth: f32) -> Simulation {
    let mut level = Level::flat(n, n, dx, 0.0);
    level.water = Grid::filled(n, n, depth);
    Simulation::new(&level).unwrap()
}

pub(super) fn run(world: &mut BodyWorld, sim: &mut Simulation, seconds: f32) {
    let dt = sim.params().dt;
    for _ in 0..(seconds / dt).round() as usize {
        world.step(sim, dt).expect("stable");
    }
}

pub(super) fn mesh(name: &str) -> Arc<TriMesh> {
    Arc::new(asset(name))
}

#[test]
fn a_crate_floats_with_the_submerged_fraction_its_density_implies() {
    for density in [300.0f32, 500.0, 800.0] {
        let mut sim = lake(96, 0.25, 2.0);
        let mut world = BodyWorld::new(&sim);
        let id = world.add(&body("crate", [12.0, 12.0, 2.6], density), mesh("crate"));
        run(&mut world, &mut sim, 15.0);
        // Mean over 5 s: the crate rides the small waves it made.
        let (mut sum, mut n) = (0.0, 0);
        let dt = sim.params().dt;
        for _ in 0..(5.0 / dt) as usize {
            world.step(&mut sim, dt).unwrap();
            sum += world.water_forces(id).unwrap().submerged_fraction;
            n += 1;
        }
        let fraction = sum / n as f32;
        let expected = density / 1000.0;
        let v = world.velocity(id).unwrap();
        println!(
            "density {density}: submerged {fraction:.3} (expected {expected}), z {:.3}, v {v:?}",
            world.pose(id).unwrap().translation[2]
        );
        assert!(
            (fraction - expected).abs() < 0.1 * expected,
            "density {density}: submerged fraction {fraction} vs {expected}"
        );
        let s = sim.stats();
        assert!(s.balance_error.abs() < 1e-6, "balance {}", s.balance_error);
    }
}

#[test]
fn a_boulder_sinks_and_rests_on_the_bed() {
    let mut sim = lake(48, 0.25, 2.0);
    let mut world = BodyWorld::new(&sim);
    let id = world.add(&body("boulder", [6.0, 6.0, 2.5], 2600.0), mesh("boulder"));
    assert_eq!(world.blocks(id), Some(true));
    run(&mut world, &mut sim, 15.0);
    let pose = world.pose(id).unwrap();
    let lowest = asset("boulder")
        .posed(&pose)
        .positions
        .iter()
        .fold(f32::INFINITY, |a, p| a.min(p[2]));
    let v = world.velocity(id).unwrap();
    println!("boulder rests with its lowest point at {lowest:.3} m, v {v:?}");
    assert!(lowest.abs() < 0.1, "resting on the bed at 0: {lowest}");
    assert!(v.iter().all(|c| c.abs() < 0.05), "at rest: {v:?}");
    let f = world.water_forces(id).unwrap();
    assert!(f.submerged_fraction > 0.95, "under water: {f:?}");
    assert!(sim.stats().balance_error.abs() < 1e-6);
}

/// Drifts a log along the river for 8 s (after 4 s to settle) with the world's water constants
/// changed by `fluid`; returns the log's speed and the mean surface speed beside it, m/s.
fn log_drift(fluid: impl Fn(&mut spillway::body::forces::Fluid)) -> (f64, f64) {
    let mut sim = Simulation::new(&river()).unwrap();
    sim.advance(60.0).unwrap();
    let mut world = BodyWorld::new(&sim);
    fluid(&mut world.fluid);
    // The log across the flow's direction would roll; along it, it drifts.
    let id = world.add(&body("log", [12.0, 3.0, 0.3], 600.0), mesh("log"));
    run(&mut world, &mut sim, 4.0);
    let x0 = world.pose(id).unwrap().translation[0];
    let (mut water, mut n) = (0.0f64, 0);
    let dt = sim.params().dt;
    let seconds = 8.0;
    for _ in 0..(seconds / dt).round() as usize {
        world.step(&mut sim, dt).unwrap();
        let p = world.pose(id).unwrap().translation;
        water += surface_speed(&sim, p[0], p[1] + 1.0);
        n += 1;
    }
    let x1 = world.pose(id).unwrap().translation[0];
    ((x1 - x0) as f64 / seconds as f64, water / n as f64)
}

#[test]
fn a_log_drifts_with_the_river_through_drag() {
    // Drag alone (no damping): the log runs with the surface.
    let (log, water) = log_drift(|f| f.linear_damping = 0.0);
    println!("drag only: log {log:.3} m/s, surface flow {water:.3} m/s");
    assert!(water > 0.3, "the river flows: {water}");
    assert!(
        (log - water).abs() < 0.2 * water,
        "log {log} vs water {water}"
    );
    // The world's own damping toward rest slows it a little.
    let (damped, water) = log_drift(|_| {});
    println!("with damping: log {damped:.3} m/s, surface flow {water:.3} m/s");
    assert!(
        damped > 0.6 * water && damped <= log * 1.05,
        "log {damped} vs water {water}"
    );
    // Without drag nothing carries it: the current moves a log only through drag.
    let (still, water) = log_drift(|f| f.drag = 0.0);
    println!("no drag: log {still:.3} m/s, surface flow {water:.3} m/s");
    assert!(still.abs() < 0.2 * water, "log {still} vs water {water}");
}

/// x-velocity of the water at a point (the cell's mean face discharge over depth).
fn surface_speed(sim: &Simulation, x: f32, y: f32) -> f64 {
    let dx = sim.cell_size();
    let (i, j) = ((x / dx) as usize, (y / dx) as usize);
    let (i, j) = (i.min(sim.nx() - 1), j.min(sim.ny() - 1));
    let h = sim.depth()[j * sim.nx() + i].max(1e-3);
    let (qx, _) = sim.discharges();
    let q = 0.5 * (qx[j * (sim.nx() + 1) + i] + qx[j * (sim.nx() + 1) + i + 1]);
    (q / (h * dx)) as f64
}

/// A channel dammed by three heavy crates at x = 15.5 m (pipes solver).
fn dammed_channel() -> (Simulation, BodyWorld, Vec<BodyId>) {
    dammed_channel_on(spillway::SolverKind::Pipes)
}

/// Mean and peak discharge 5 m below the dam over `seconds`.
fn discharge(world: &mut BodyWorld, sim: &mut Simulation, seconds: f32) -> (f64, f64) {
    discharge_coarse(world, sim, seconds, 1)
}

/// [`discharge`] with the bodies stepping once per `stride` water steps (`step_coarse`).
fn discharge_coarse(
    world: &mut BodyWorld,
    sim: &mut Simulation,
    seconds: f32,
    stride: usize,
) -> (f64, f64) {
    let dt = sim.params().dt;
    let steps = (seconds / (dt * stride as f32)).round() as usize;
    let (mut sum, mut peak) = (0.0, 0.0f64);
    for _ in 0..steps {
        world.step_coarse(sim, dt, stride).unwrap();
        let q = discharge_at(sim, 42);
        sum += q;
        peak = peak.max(q);
    }
    (sum / steps as f64, peak)
}

#[test]
fn coarse_body_steps_keep_the_dam_and_the_floaters_and_lose_no_water() {
    // One water step per body step is the coupled step itself, bit for bit.
    let (mut a, mut wa, _) = dammed_channel();
    let (mut b, mut wb, _) = dammed_channel();
    let dt = a.params().dt;
    for _ in 0..40 {
        wa.step(&mut a, dt).unwrap();
        wb.step_coarse(&mut b, dt, 1).unwrap();
    }
    assert!(a.depth() == b.depth(), "step_coarse(.., 1) is step");
    // Five water steps per body step (the preview's stride at 30× on 20 ms steps): the crates
    // still hold the river back, and the water keeps its balance.
    let (mut sim, mut world, ids) = dammed_channel();
    let (held, _) = discharge_coarse(&mut world, &mut sim, 4.0, 5);
    for id in ids {
        assert!(world.remove(id));
    }
    let (_, released) = discharge_coarse(&mut world, &mut sim, 8.0, 5);
    println!("coarse steps: dammed {held:.4} m³/s, released peak {released:.4} m³/s");
    assert!(held < 0.04, "the crates hold the water back: {held}");
    assert!(released > 0.4, "the flood follows: {released}");
    assert!(sim.stats().balance_error.abs() < 1e-6);
    // A crate of density 500 floats half under, as with every step coupled.
    let mut sim = lake(96, 0.25, 2.0);
    let mut world = BodyWorld::new(&sim);
    let id = world.add(&body("crate", [12.0, 12.0, 2.6], 500.0), mesh("crate"));
    let dt = sim.params().dt;
    let stride = ((0.1 / dt).floor() as usize).max(2);
    let (mut sum, mut n) = (0.0, 0);
    for k in 0..(20.0 / (dt * stride as f32)) as usize {
        world.step_coarse(&mut sim, dt, stride).unwrap();
        if k as f32 * dt * stride as f32 > 15.0 {
            sum += world.water_forces(id).unwrap().submerged_fraction;
            n += 1;
        }
    }
    let fraction = sum / n as f32;
    println!("coarse steps ({stride} water steps each): crate submerged {fraction:.3} of 0.5");
    assert!(
        (fraction - 0.5).abs() < 0.05,
        "submerged fraction {fraction}"
    );
    assert!(sim.stats().balance_error.abs() < 1e-6);
}

#[test]
fn deleting_the_dam_releases_a_flood_wave() {
    let (mut sim, mut world, ids) = dammed_channel();
    let (held, _) = discharge(&mut world, &mut sim, 4.0);
    for id in ids {
        assert!(world.remove(id));
    }
    let (_, released) = discharge(&mut world, &mut sim, 8.0);
    println!(
        "downstream: dammed {held:.4} m³/s, after deleting the crates peak {released:.4} m³/s"
    );
    assert!(held < 0.04, "the crates hold the water back: {held}");
    assert!(
        released > 0.4,
        "the stored water floods down, more than the 0.4 m³/s inflow: {released}"
    );
    assert!(sim.stats().balance_error.abs() < 1e-6);
}

#[test]
fn knocking_the_dam_over_releases_a_flood_wave() {
    let (mut sim, mut world, ids) = dammed_channel();
    let (held, _) = discharge(&mut world, &mut sim, 4.0);
    let z0: Vec<f32> = ids
        .iter()
        .map(|&id| world.pose(id).unwrap().translation[2])
        .collect();
    for &id in &ids {
        let p = world.pose(id).unwrap().translation;
        // A hard shove downstream at the top of each 2500 kg crate (10 m/s: since the ground
        // reaches the map's edge the side crates no longer tip off it, and 12000 N·s, 4.8 m/s,
        // slid two of them 0.8 m, too little to open the dam).
        assert!(world.push(id, [25000.0, 0.0, 0.0], [p[0] - 0.5, p[1], p[2] + 0.5]));
    }
    let (_, released) = discharge(&mut world, &mut sim, 8.0);
    let moved: Vec<f32> = ids
        .iter()
        .map(|&id| world.pose(id).unwrap().translation[0] - 15.5)
        .collect();
    println!(
        "downstream: dammed {held:.4} m³/s, knocked over {released:.4} m³/s; crates moved {moved:?} (z0 {z0:?})"
    );
    assert!(
        moved.iter().all(|&m| m > 0.5),
        "the crates were shoved: {moved:?}"
    );
    assert!(
        released > 0.4,
        "the flood follows: peak {released} vs {held} held"
    );
    assert!(sim.stats().balance_error.abs() < 1e-6);
}

/// A 40 m × 40 m basin on 0.5 m cells, a river running round it: a source in one corner, a sink
/// in the opposite one, and 200 bodies of every kind dropped over it.
pub(super) fn crowded_river() -> (Simulation, BodyWorld) {
    let level = crowded_river_level();
    let mut sim = Simulation::new(&level).unwrap();
    let mut world = BodyWorld::new(&sim);
    world.set_edges(&level.boundaries, &level.params.default_boundary);
    crowd(&mut world);
    sim.step(sim.params().dt).unwrap();
    (sim, world)
}

#[test]
fn two_hundred_moving_bodies_keep_the_volume_balance_for_100000_steps() {
    let steps: usize = std::env::var("SPILLWAY_CROWD_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let (mut sim, mut world) = crowded_river();
    let dt = sim.params().dt;
    let started = std::time::Instant::now();
    let mut moving_min = usize::MAX;
    for step in 0..steps {
        world.step(&mut sim, dt).expect("no blow-up");
        if step % 5000 == 4999 {
            let moving = world
                .ids()
                .into_iter()
                .filter(|&id| world.velocity(id).unwrap().iter().any(|v| v.abs() > 1e-3))
                .count();
            moving_min = moving_min.min(moving);
            let s = sim.stats();
            println!(
                "step {}: balance {:.2e}, {moving} bodies moving, {:.2} ms/step",
                step + 1,
                s.balance_error,
                started.elapsed().as_secs_f64() * 1e3 / (step + 1) as f64
            );
            assert!(s.balance_error.abs() < 1e-5, "balance {}", s.balance_error);
            assert!(sim.depth().iter().all(|d| d.is_finite() && *d >= 0.0));
            let fast = super::stability::fastest(&world);
            assert!(fast < 12.0, "a body moves at {fast} m/s");
            let left = world
                .ids()
                .into_iter()
                .filter(|&id| world.has_left(id) == Some(true));
            assert_eq!(left.count(), 0, "bodies left the walled basin");
            assert_poses_finite(&world);
        }
    }
    let s = sim.stats();
    println!(
        "after {steps} steps: balance {:.2e}, at least {moving_min} bodies moving",
        s.balance_error
    );
    assert!(s.balance_error.abs() < 1e-5, "balance {}", s.balance_error);
    assert!(sim.depth().iter().all(|d| d.is_finite() && *d >= 0.0));
}

/// A channel dammed by three heavy crates at x = 15.5 m, filled behind them for 40 s, on
/// `solver`.
fn dammed_channel_on(solver: spillway::SolverKind) -> (Simulation, BodyWorld, Vec<BodyId>) {
    let mut level = channel(30.0, 3.0, 0.5, 0.4);
    level.params.solver = solver;
    let mut sim = Simulation::new(&level).unwrap();
    let mut world = BodyWorld::new(&sim);
    let crate_mesh = mesh("crate");
    let ids = (0..3)
        .map(|k| {
            world.add(
                &body("crate", [15.5, 0.5 + k as f32, 0.5], 2500.0),
                crate_mesh.clone(),
            )
        })
        .collect();
    run(&mut world, &mut sim, 40.0);
    (sim, world, ids)
}

#[test]
fn a_dam_of_crates_holds_on_a_shallow_water_level_and_a_floater_rides_it() {
    // The shallow-water solver blocks as the pipes solver does: the crates hold the river back
    // until they are deleted.
    let (mut sim, mut world, ids) = dammed_channel_on(spillway::SolverKind::Swe);
    let floater = world.add(&body("crate", [8.0, 1.5, 1.0], 500.0), mesh("crate"));
    let (held, _) = discharge(&mut world, &mut sim, 4.0);
    for id in ids {
        assert!(world.remove(id));
    }
    let (_, released) = discharge(&mut world, &mut sim, 8.0);
    println!("shallow water: dammed {held:.4} m³/s, after deleting the crates peak {released:.4}");
    assert!(held < 0.04, "the crates hold the water back: {held}");
    assert!(released > 0.4, "the stored water floods down: {released}");
    assert!(world.pose(floater).is_some());
    assert!(sim.stats().balance_error.abs() < 1e-6);
    assert!(sim.depth().iter().all(|d| d.is_finite() && *d >= 0.0));
}

/// How a lake rises around a blocking body set on its bed, averaged over 20 s.
struct Rise {
    /// The body's volume over the lake's area, m.
    expected: f64,
    /// Mean rise of the cells away from the body, m.
    mean: f64,
    /// Highest mean rise of a cell away from the body, m.
    worst: f64,
    /// Highest mean rise of the effective surface over the body, m.
    over: f64,
}

/// A 24 m × 24 m lake 2 m deep with `body` (of mesh `name`, heavy, a blocker) set on its bed in
/// the middle. The waves of its sudden arrival slosh on between the walls: the surface is
/// averaged over 20 s after 100 s.
fn lake_rise(body: &spillway::level::Body, name: &str) -> Rise {
    let (n, dx) = (96, 0.25);
    let mut sim = lake(n, dx, 2.0);
    let mut world = BodyWorld::new(&sim);
    let shape = mesh(name);
    let volume = shape.volume();
    world.add(body, shape);
    run(&mut world, &mut sim, 100.0);
    let dt = sim.params().dt;
    let mut mean_surface = vec![0.0f64; n * n];
    let steps = (20.0 / dt).round() as usize;
    for _ in 0..steps {
        world.step(&mut sim, dt).unwrap();
        for (m, s) in mean_surface.iter_mut().zip(sim.effective_surface()) {
            *m += s as f64 / steps as f64;
        }
    }
    assert!(sim.stats().balance_error.abs() < 1e-6);
    let area = (n as f32 * dx).powi(2) as f64;
    let near = |k: usize, r: f32| {
        let (x, y) = (
            (k % n) as f32 * dx + 0.5 * dx,
            (k / n) as f32 * dx + 0.5 * dx,
        );
        (x - 12.0).abs() < r && (y - 12.0).abs() < r
    };
    let open: Vec<f64> = (0..n * n)
        .filter(|&k| !near(k, 1.75))
        .map(|k| mean_surface[k] - 2.0)
        .collect();
    Rise {
        expected: volume / area,
        mean: open.iter().sum::<f64>() / open.len() as f64,
        worst: open.iter().cloned().fold(f64::MIN, f64::max),
        over: (0..n * n)
            .filter(|&k| near(k, 0.4))
            .map(|k| mean_surface[k] - 2.0)
            .fold(f64::MIN, f64::max),
    }
}

#[test]
fn a_crate_set_on_a_lake_bed_raises_the_lake_by_its_volume() {
    check_rise(&body("crate", [12.0, 12.0, 0.5], 2500.0), "crate");
}

#[test]
fn a_log_on_a_lake_bed_displaces_its_volume_through_partly_covered_cells() {
    // A log's round flanks cover its cells' edges in part: those cells displace their share,
    // and the cells it covers whole its mean thickness, wherever the cells meet the log (it
    // rolls to rest somewhere else from each start; blocking the log's whole extent over a
    // covered cell, as the columns did before 2026-12-03, displaced 4.64 % more than its volume
    // from the first start and 8.11 % from the second).
    for y in [12.0, 12.06, 12.125] {
        let mut log = body("log", [12.0, y, 0.3], 2500.0);
        log.coupling = spillway::level::Coupling::Blocker;
        check_rise(&log, "log");
    }
}

/// The lake around `body` rises by its volume over the lake's area (within 5 %), and no cell,
/// open or over the body, by more than twice that.
fn check_rise(body: &spillway::level::Body, name: &str) {
    let r = lake_rise(body, name);
    println!(
        "{name} on the bed: mean rise {:.5} m (its volume over the lake: {:.5} m, {:+.2} %), \
         highest mean rise of an open cell {:.5} m, over the {name} {:.4} m",
        r.mean,
        r.expected,
        100.0 * (r.mean / r.expected - 1.0),
        r.worst,
        r.over
    );
    assert!(
        (r.mean - r.expected).abs() < 0.05 * r.expected,
        "mean rise {}",
        r.mean
    );
    assert!(r.worst < 2.0 * r.expected, "a cell rose {} m", r.worst);
    assert!(
        r.over < 2.0 * r.expected,
        "a hump of {} m over the {name}",
        r.over
    );
}

#[test]
fn a_failed_water_step_leaves_the_bodies_where_they_were() {
    // Rapier steps the bodies while the water steps: when the water's step fails (a spring of
    // 10¹² m³/s makes it run away), the bodies go back to where they were before the step. (The
    // GPU solver refuses such a step on the GPU and reports it with its figures instead.)
    let mut level = Level::flat(32, 32, 1.0, 0.0);
    level.water = Grid::filled(32, 32, 1.0);
    level.sources.push(spillway::level::Source {
        name: "Runaway".into(),
        shape: spillway::level::Shape::Circle {
            x: 24.0,
            y: 24.0,
            radius: 3.0,
        },
        kind: spillway::level::SourceKind::Rate { m3_per_s: 1.0e12 },
        enabled: true,
    });
    let mut sim = Simulation::new(&level).unwrap();
    let mut world = BodyWorld::new(&sim);
    let id = world.add(&body("crate", [8.0, 8.0, 4.0], 500.0), mesh("crate"));
    let state = |world: &BodyWorld| {
        let pose = world.pose(id).expect("in the world");
        let velocity = world.velocity(id).expect("dynamic");
        (pose.translation, pose.rotation, velocity)
    };
    let dt = sim.params().dt;
    let (mut steps, mut failed) = (0, None);
    while failed.is_none() && steps < 1000 {
        let before = state(&world);
        match world.step(&mut sim, dt) {
            Ok(()) => steps += 1,
            Err(e) => failed = Some((e, before)),
        }
    }
    let (error, before) = failed.expect("the runaway spring fails a step");
    println!("after {steps} steps: {error}; the crate {before:?}");
    assert!(error.to_string().contains("ran away"), "{error}");
    // The crate was falling: rapier had moved it when the water failed.
    assert_eq!(state(&world), before, "the crate was put back");
}

#[test]
fn a_body_above_the_water_leaves_it_alone_until_it_comes_down() {
    // A boulder (a blocking body: denser than water) dropped from 4 m over a 1 m deep lake:
    // while it is in the air the lake steps exactly as the lake without it does, with no
    // blockers set; once it is down it blocks.
    let mut plain = lake(64, 0.25, 1.0);
    let mut sim = lake(64, 0.25, 1.0);
    let mut world = BodyWorld::new(&sim);
    let id = world.add(&body("boulder", [8.0, 8.0, 4.0], 2600.0), mesh("boulder"));
    let dt = sim.params().dt;
    let (mut aloft, mut steps) = (0, 0);
    while steps < (3.0 / dt).round() as usize {
        world.step(&mut sim, dt).expect("stable");
        plain.step(dt).expect("stable");
        steps += 1;
        let z = world.pose(id).unwrap().translation[2];
        // The boulder is under 1 m across, so at 2.5 m its lowest point is well above the
        // water and its clearance.
        if z > 2.5 {
            aloft += 1;
            assert!(!sim.has_blockers(), "blockers set at step {steps}, z = {z}");
            assert_eq!(
                sim.depth(),
                plain.depth(),
                "the water moved at step {steps}, z = {z}"
            );
        }
    }
    let z = world.pose(id).unwrap().translation[2];
    println!("{aloft} steps aloft of {steps}; the boulder came to z = {z:.3} m");
    assert!(aloft > 10, "the boulder was aloft {aloft} steps");
    assert!(z < 1.0, "the boulder sank: z = {z}");
    assert!(
        sim.has_blockers(),
        "the boulder blocks once it is in the water"
    );
    assert_ne!(sim.depth(), plain.depth(), "the boulder moved the water");
    assert!(sim.stats().balance_error.abs() < 1e-6);
}
