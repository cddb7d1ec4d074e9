//! Bodies at rest sleep (rapier leaves them and their contacts out of its steps) and wake when
//! the world around them changes: the ground dug away under a boulder, a lake rising over a
//! grounded crate, the crate under another deleted; a floater in a slow current never sleeps.

use spillway::Simulation;
use spillway::body::world::BodyWorld;
use spillway::level::{Shape, Source, SourceKind};

use super::body;
use super::coupled::{lake, mesh, run};

/// The lowest point of body `id`'s mesh `name` as it sits, metres.
fn lowest(world: &BodyWorld, id: spillway::body::world::BodyId, name: &str) -> f32 {
    let pose = world.pose(id).unwrap();
    (mesh(name).posed(&pose).positions.iter()).fold(f32::INFINITY, |a, p| a.min(p[2]))
}

#[test]
fn a_boulder_at_rest_on_the_bed_sleeps_and_wakes_when_the_bed_is_dug_away() {
    let mut sim = lake(48, 0.25, 2.0);
    let mut world = BodyWorld::new(&sim);
    let id = world.add(&body("boulder", [6.0, 6.0, 2.5], 2600.0), mesh("boulder"));
    run(&mut world, &mut sim, 8.0);
    let resting = lowest(&world, id, "boulder");
    println!(
        "boulder asleep {:?}, lowest point {resting:.3} m",
        world.asleep(id)
    );
    assert_eq!(
        world.asleep(id),
        Some(true),
        "at rest on the bed, it sleeps"
    );
    assert!(resting.abs() < 0.1, "on the bed at 0: {resting}");
    // Asleep, it stays where it was, step after step.
    let pose = world.pose(id).unwrap();
    run(&mut world, &mut sim, 1.0);
    assert_eq!(world.pose(id), Some(pose));
    // A pit 1 m deep dug under it (the ground as the editor's brush changes it): it falls in.
    let n = sim.nx();
    let terrain: Vec<f32> = (0..n * n)
        .map(|k| {
            let (i, j) = ((k % n) as f32 * 0.25, (k / n) as f32 * 0.25);
            if (i - 6.0).abs() < 2.5 && (j - 6.0).abs() < 2.5 {
                -1.0
            } else {
                0.0
            }
        })
        .collect();
    world.set_terrain(&terrain);
    run(&mut world, &mut sim, 3.0);
    let fallen = lowest(&world, id, "boulder");
    println!("after the pit: lowest point {fallen:.3} m");
    assert!(
        (fallen + 1.0).abs() < 0.1,
        "on the pit's floor at -1: {fallen}"
    );
}

#[test]
fn a_crate_asleep_on_a_dry_bed_floats_up_when_the_lake_rises_over_it() {
    // 0.2 m of water: too shallow to float a 1 m crate of density 500, which rests on the bed.
    let mut sim = lake(64, 0.25, 0.2);
    let mut world = BodyWorld::new(&sim);
    let id = world.add(&body("crate", [8.0, 8.0, 0.6], 500.0), mesh("crate"));
    run(&mut world, &mut sim, 6.0);
    println!(
        "crate asleep {:?}, bottom {:.3} m",
        world.asleep(id),
        lowest(&world, id, "crate")
    );
    assert_eq!(
        world.asleep(id),
        Some(true),
        "grounded and still, it sleeps"
    );
    // Rain over the whole lake (256 m²) raises it by 1 cm a second, 0.8 m in all, with no
    // current to wake the crate: its buoyancy must.
    let mut level = spillway::level::Level::flat(64, 64, 0.25, 0.0);
    level.sources = vec![Source {
        name: "rain".into(),
        shape: Shape::Box {
            x0: 10.0,
            y0: 0.0,
            x1: 16.0,
            y1: 16.0,
        },
        kind: SourceKind::Rate { m3_per_s: 2.56 },
        enabled: true,
    }];
    sim.set_sources_sinks(&level).unwrap();
    let mut bottom = Vec::new();
    for _ in 0..8 {
        run(&mut world, &mut sim, 10.0);
        bottom.push(lowest(&world, id, "crate"));
    }
    level.sources.clear();
    sim.set_sources_sinks(&level).unwrap();
    run(&mut world, &mut sim, 10.0);
    // A cube of half water's density floats tilted on an edge (as a real one does), its lowest
    // edge 0.71 m down: the submerged share, not the lowest point, says how it floats.
    let dt = sim.params().dt;
    let (mut submerged, mut steps) = (0.0, 0);
    for _ in 0..(5.0 / dt).round() as usize {
        world.step(&mut sim, dt).unwrap();
        submerged += world.water_forces(id).unwrap().submerged_fraction;
        steps += 1;
    }
    let submerged = submerged / steps as f32;
    let surface = sim.volume() / (16.0 * 16.0);
    let last = lowest(&world, id, "crate");
    println!(
        "crate bottom every 10 s while the lake rose {bottom:.3?}; lake {surface:.3} m, bottom \
         {last:.3} m, submerged {submerged:.3}"
    );
    assert!(
        (surface - 1.0).abs() < 0.01,
        "the lake rose to 1 m: {surface}"
    );
    // Afloat at its density's share, not left on the bed under water (its lowest point at 0):
    // floating on an edge that point is 0.29 m up, on a corner 0.13 m.
    assert!(last > 0.1, "off the bed: its lowest point at {last}");
    assert!((submerged - 0.5).abs() < 0.1, "submerged share {submerged}");
}

#[test]
fn a_floater_in_a_slow_current_drifts_instead_of_sleeping() {
    // The river of the log-drift test fed with a sixth of its flow: about 0.08 m/s, a current
    // whose drag on a log at rest is far under what wakes a sleeping body. A log once asleep
    // here would stay put, so it must never fall asleep: the current keeps it moving above
    // rapier's sleep threshold (a looser threshold, rapier's older 0.4 m/s, would fail this).
    let mut level = super::river();
    level.boundaries[0].kind = spillway::level::BoundaryKind::Inflow { m3_per_s: 0.5 };
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(60.0).unwrap();
    let mut world = BodyWorld::new(&sim);
    // Drag alone, as in the log-drift test: the damping toward rest would slow it further.
    world.fluid.linear_damping = 0.0;
    let id = world.add(&body("log", [12.0, 3.0, 0.3], 600.0), mesh("log"));
    let dt = sim.params().dt;
    let (mut asleep, mut x0) = (0, 0.0);
    for step in 0..(25.0 / dt).round() as usize {
        world.step(&mut sim, dt).unwrap();
        asleep += usize::from(world.asleep(id) == Some(true));
        if step == (5.0 / dt).round() as usize {
            x0 = world.pose(id).unwrap().translation[0];
        }
    }
    let x1 = world.pose(id).unwrap().translation[0];
    let speed = (x1 - x0) / 20.0;
    let water = 0.5 / 6.0;
    println!("log {speed:.4} m/s in water of {water:.4} m/s (mean), asleep in {asleep} steps");
    assert_eq!(asleep, 0, "the current keeps it moving: it never sleeps");
    assert!(
        speed > 0.4 * water,
        "the log drifts with the current: {speed} m/s"
    );
}

#[test]
fn a_crate_set_on_a_still_lake_comes_to_rest_and_sleeps() {
    // A 64 m lake, 2 m deep: the crate pushes its draft's water aside as it is set down, and
    // the heave that push starts dies away (without the floaters' heave damping it kept going
    // at 0.3 to 0.37 m/s for 40 s).
    let mut sim = lake(256, 0.25, 2.0);
    let mut world = BodyWorld::new(&sim);
    let id = world.add(&body("crate", [32.0, 32.0, 2.0], 500.0), mesh("crate"));
    run(&mut world, &mut sim, 25.0);
    let dt = sim.params().dt;
    let (mut fastest, mut asleep, mut steps) = (0.0f32, 0, 0);
    for _ in 0..(15.0 / dt).round() as usize {
        world.step(&mut sim, dt).unwrap();
        fastest = fastest.max(world.velocity(id).unwrap()[2].abs());
        asleep += usize::from(world.asleep(id) == Some(true));
        steps += 1;
    }
    println!(
        "over the last 15 s: fastest heave {fastest:.3} m/s, asleep {asleep} of {steps} steps"
    );
    assert!(fastest < 0.05, "at rest: heave up to {fastest} m/s");
    assert!(
        2 * asleep > steps,
        "asleep most of the time: {asleep} of {steps}"
    );
}

#[test]
fn a_crate_asleep_on_another_falls_when_the_one_under_it_is_deleted() {
    // Dry ground: two 1 m crates stacked, both asleep.
    let mut sim = lake(32, 0.25, 0.0);
    let mut world = BodyWorld::new(&sim);
    let under = world.add(&body("crate", [4.0, 4.0, 0.5], 500.0), mesh("crate"));
    let over = world.add(&body("crate", [4.0, 4.0, 1.5], 500.0), mesh("crate"));
    run(&mut world, &mut sim, 3.0);
    assert_eq!(world.asleep(under), Some(true));
    assert_eq!(world.asleep(over), Some(true));
    let stacked = lowest(&world, over, "crate");
    assert!(
        (stacked - 1.0).abs() < 0.05,
        "on the other crate: {stacked}"
    );
    assert!(world.remove(under));
    run(&mut world, &mut sim, 2.0);
    let fallen = lowest(&world, over, "crate");
    println!("top crate's lowest point: {stacked:.3} m stacked, {fallen:.3} m after the delete");
    assert!(fallen.abs() < 0.05, "on the ground: {fallen}");
}
