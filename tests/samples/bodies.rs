//! The samples with rigid bodies (feature `rapier`): each loads from disk, its bodies go into a
//! `BodyWorld` with their files from the project's `bodies/` folder, and the scenario it was made
//! for happens. `crate_dam`: the row of crates cuts the discharge past the dam line by ≥ 90 %
//! against the same level without bodies while the pool is below the crate tops, then the pool
//! spills over them and the crates stay put (within half a crate). `dam_knockdown`: the stacked-crate dam holds the
//! reservoir for 20 s, and once its crates are removed the flood reaches the village in 30 s.

use std::path::PathBuf;
use std::time::Instant;

use spillway::body::world::{BodyId, BodyWorld};
use spillway::level::file;
use spillway::{Level, Simulation};

/// The level of sample `name` and its folder.
fn load(name: &str) -> (Level, PathBuf) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../projects/{name}"));
    let level = file::load(&dir.join("level.ron"))
        .unwrap_or_else(|e| panic!("sample {name} does not load: {e}"));
    (level, dir)
}

/// The simulation and body world of `level`, body files from `dir`.
fn start(level: &Level, dir: &std::path::Path) -> (Simulation, BodyWorld) {
    let sim = Simulation::new(level).unwrap_or_else(|e| panic!("{}: {e}", level.name));
    let world = BodyWorld::from_level(level, &sim, dir).unwrap_or_else(|e| panic!("{e}"));
    (sim, world)
}

/// Discharge (m³/s) through the x-faces on the west side of column `i`, summed over the width.
fn discharge_at(sim: &Simulation, i: usize) -> f64 {
    let (qx, _) = sim.discharges();
    (0..sim.ny())
        .map(|j| qx[j * (sim.nx() + 1) + i] as f64)
        .sum()
}

/// Highest water surface (terrain + depth) of the wet cells of column `i`.
fn surface_at_column(sim: &Simulation, i: usize) -> f32 {
    let (nx, ny) = (sim.nx(), sim.ny());
    (0..ny)
        .map(|j| j * nx + i)
        .filter(|&k| sim.depth()[k] > 1e-3)
        .map(|k| sim.terrain()[k] + sim.depth()[k])
        .fold(f32::NEG_INFINITY, f32::max)
}

/// Largest horizontal distance any of `ids` moved from `start`.
fn moved(world: &BodyWorld, ids: &[BodyId], start: &[[f32; 3]]) -> f32 {
    ids.iter()
        .zip(start)
        .map(|(&id, s)| {
            let p = world.pose(id).expect("in the world").translation;
            ((p[0] - s[0]).powi(2) + (p[1] - s[1]).powi(2)).sqrt()
        })
        .fold(0.0, f32::max)
}

fn positions(world: &BodyWorld, ids: &[BodyId]) -> Vec<[f32; 3]> {
    ids.iter()
        .map(|&id| world.pose(id).expect("in the world").translation)
        .collect()
}

#[test]
fn crate_dam_holds_the_river_back_then_spills_over_the_crates() {
    let started = Instant::now();
    let (level, dir) = load("crate_dam");
    assert!(level.flow.is_some(), "crate_dam is baked");
    let crates: Vec<usize> = (0..level.bodies.len())
        .filter(|&b| level.bodies[b].name.starts_with("dam crate"))
        .collect();
    assert_eq!(crates.len(), 8, "a row of eight crates");
    let dam_x = level.bodies[crates[0]].translation[0];
    let dx = level.cell_size;
    let dam_i = (dam_x / dx) as usize;
    // Measured 4 m below the dam, the surface 2 m above it.
    let (gauge, pool) = (dam_i + 4, dam_i - 2);
    let inflow = 3.0;

    let (mut sim, mut world) = start(&level, &dir);
    let mut open = level.clone();
    open.bodies.clear();
    let (mut free, mut free_world) = start(&open, &dir);
    let ids: Vec<BodyId> = crates.iter().map(|&b| BodyId(b)).collect();
    let placed = positions(&world, &ids);
    let top = |world: &BodyWorld| {
        ids.iter()
            .map(|&id| world.pose(id).unwrap().translation[2] + 0.5)
            .fold(f32::INFINITY, f32::min)
    };
    let surface0 = surface_at_column(&sim, pool);
    println!(
        "crate_dam: baked at t = {:.0} s, pool surface {surface0:.3} m, crate tops {:.3} m",
        sim.stats().time,
        top(&world)
    );
    assert!(
        surface0 < top(&world) - 0.2,
        "the pool starts below the tops"
    );

    // While the pool stays below the crate tops, the same steps with and without the crates.
    let dt = level.params.dt;
    let (mut dammed, mut undammed, mut t) = (0.0f64, 0.0f64, 0.0f32);
    while surface_at_column(&sim, pool) < top(&world) - 0.02 {
        world.step(&mut sim, dt).expect("stable");
        free_world.step(&mut free, dt).expect("stable");
        dammed += discharge_at(&sim, gauge) * dt as f64;
        undammed += discharge_at(&free, gauge) * dt as f64;
        t += dt;
        assert!(t < 120.0, "the pool did not reach the crate tops in 120 s");
    }
    let cut = 1.0 - dammed / undammed;
    println!(
        "crate_dam: {t:.1} s until the pool reached the crate tops; past the dam line {dammed:.2} m³ \
         with the crates, {undammed:.2} m³ without: cut {:.1} %",
        100.0 * cut
    );
    assert!(
        undammed > 50.0,
        "without the crates the river passes: {undammed}"
    );
    assert!(cut >= 0.9, "the crates cut the discharge by only {cut}");

    // Then the pool spills over the crates, which stay where they are.
    let spill_start = t;
    let mut spill = 0.0;
    while spill < 0.5 * inflow {
        world.step(&mut sim, dt).expect("stable");
        spill = discharge_at(&sim, gauge);
        t += dt;
        assert!(
            t < spill_start + 60.0,
            "no spill over the crates 60 s after the pool reached their tops ({spill} m³/s)"
        );
    }
    let spilled_at = t;
    // 20 s more of the spill (it grows as the pool rises over the tops).
    let mut mean = 0.0;
    for _ in 0..(20.0 / dt).round() as usize {
        world.step(&mut sim, dt).expect("stable");
        mean += discharge_at(&sim, gauge) * dt as f64 / 20.0;
    }
    let shift = moved(&world, &ids, &placed);
    let stats = sim.stats();
    println!(
        "crate_dam: spilling over the crates {:.1} s after the pool reached their tops; mean \
         discharge over the next 20 s {mean:.2} m³/s (inflow {inflow}); pool surface {:.3} m over \
         the tops at {:.3} m; crates moved at most {shift:.3} m; balance {:.1e}; {:.1} s wall",
        spilled_at - spill_start,
        surface_at_column(&sim, pool),
        top(&world),
        stats.balance_error,
        started.elapsed().as_secs_f64()
    );
    assert!(surface_at_column(&sim, pool) > top(&world), "over the tops");
    assert!(mean > 0.5 * inflow, "the river spills: {mean}");
    // The first rush over the tops jolts the crates a little (about 0.25 m); then they stand.
    assert!(shift < 0.5, "the crates hold: moved {shift} m");
    assert!(stats.balance_error.abs() < 1e-5, "{stats:?}");
}

#[test]
fn dam_knockdown_holds_then_floods_the_village_once_the_crates_are_gone() {
    let started = Instant::now();
    let (level, dir) = load("dam_knockdown");
    let dam: Vec<usize> = (0..level.bodies.len())
        .filter(|&b| level.bodies[b].name.starts_with("dam crate"))
        .collect();
    assert_eq!(dam.len(), 20, "two rows of ten crates");
    assert!(dam.iter().all(|&b| level.bodies[b].dynamic));
    let dam_x = level.bodies[dam[0]].translation[0];
    let village: Vec<usize> = (0..level.bodies.len())
        .filter(|&b| level.bodies[b].translation[0] > dam_x + 20.0)
        .collect();
    assert!(village.len() >= 5, "a village downstream");
    assert!(village.iter().all(|&b| !level.bodies[b].dynamic));
    let village_x0 = village
        .iter()
        .map(|&b| level.bodies[b].translation[0])
        .fold(f32::INFINITY, f32::min)
        - 3.0;
    let (w, h) = (
        level.nx() as f32 * level.cell_size,
        level.ny() as f32 * level.cell_size,
    );
    let (mut sim, mut world) = start(&level, &dir);
    let stored = sim.stats().volume_initial;
    let ids: Vec<BodyId> = dam.iter().map(|&b| BodyId(b)).collect();
    let placed = positions(&world, &ids);
    let dt = level.params.dt;

    // The dam holds for 20 s.
    for _ in 0..(20.0 / dt).round() as usize {
        world.step(&mut sim, dt).expect("stable");
    }
    let below = sim.region_volume(dam_x + 1.0, 0.0, w, h);
    let shift = moved(&world, &ids, &placed);
    println!(
        "dam_knockdown: after 20 s {below:.3} m³ of the reservoir's {stored:.0} m³ lie below the \
         dam; dam crates moved at most {shift:.3} m"
    );
    assert!(below < 1e-3 * stored, "the dam leaks: {below} m³ below it");
    assert!(shift < 0.1, "the dam crates stand: moved {shift} m");

    // The designer deletes the dam crates.
    for &id in &ids {
        assert!(world.remove(id));
    }
    let reached = |sim: &Simulation| {
        let nx = sim.nx();
        sim.depth()
            .iter()
            .enumerate()
            .filter(|&(k, _)| (k % nx) as f32 * level.cell_size >= village_x0)
            .any(|(_, &d)| d > 0.1)
    };
    let mut t = 0.0f32;
    while !reached(&sim) {
        world.step(&mut sim, dt).expect("stable");
        t += dt;
        assert!(t < 30.0, "the flood has not reached the village 30 s after");
    }
    let at_village = t;
    for _ in 0..(10.0 / dt).round() as usize {
        world.step(&mut sim, dt).expect("stable");
    }
    let stats = sim.stats();
    let village_water = sim.region_volume(village_x0, 0.0, w, h);
    println!(
        "dam_knockdown: the flood reached the village (x ≥ {village_x0:.0} m) {at_village:.1} s \
         after the dam crates were removed; 10 s later {village_water:.0} m³ stand in it, {:.0} m³ \
         left through the east edge; balance {:.1e}; {:.1} s wall",
        stats.outflow,
        stats.balance_error,
        started.elapsed().as_secs_f64()
    );
    assert!(
        village_water > 50.0,
        "the village floods: {village_water} m³"
    );
    assert!(stats.balance_error.abs() < 1e-5, "{stats:?}");
}
