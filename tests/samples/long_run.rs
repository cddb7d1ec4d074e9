//! Long runs: every sample project but the 1024² `river_valley` runs 10⁵ CPU steps with no NaN, no negative depth (checked
//! every 1000 steps) and a volume balance error below 1e-5 relative throughout. The samples
//! with rigid bodies run coupled with their bodies (feature `rapier`); the GPU long runs are in
//! the GPU tests (`tests/gpu/long_run.rs`).

use std::path::PathBuf;
use std::time::Instant;

use spillway::Simulation;
use spillway::level::file;

const STEPS: u64 = 100_000;
const CHECK_EVERY: u64 = 1_000;

fn long_run(name: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../projects/{name}"));
    let level = file::load(&dir.join("level.ron"))
        .unwrap_or_else(|e| panic!("sample {name} does not load: {e}"));
    let mut sim = Simulation::new(&level).unwrap_or_else(|e| panic!("{name}: {e}"));
    #[cfg(feature = "rapier")]
    let mut world = (!level.bodies.is_empty()).then(|| {
        spillway::body::world::BodyWorld::from_level(&level, &sim, &dir)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    });
    let dt = level.params.dt;
    let t0 = Instant::now();
    let mut worst = 0.0f64;
    for k in (0..STEPS).step_by(CHECK_EVERY as usize) {
        for i in 0..CHECK_EVERY {
            #[cfg(feature = "rapier")]
            if let Some(world) = world.as_mut() {
                world
                    .step(&mut sim, dt)
                    .unwrap_or_else(|e| panic!("{name}: coupled step {}: {e}", k + i));
                continue;
            }
            sim.step(dt)
                .unwrap_or_else(|e| panic!("{name}: step {}: {e}", k + i));
        }
        #[cfg(feature = "rapier")]
        if let Some(world) = world.as_ref() {
            for id in world.ids() {
                let p = world.pose(id).expect("in the world");
                assert!(
                    p.translation
                        .iter()
                        .chain(&p.rotation)
                        .all(|v| v.is_finite()),
                    "{name}: after {} steps body {id:?} is at {p:?}",
                    k + CHECK_EVERY
                );
            }
        }
        if let Some(c) = sim
            .depth()
            .iter()
            .position(|d| !(d.is_finite() && *d >= 0.0))
        {
            panic!(
                "{name}: after {} steps depth {} at cell {c} is not a finite number ≥ 0",
                k + CHECK_EVERY,
                sim.depth()[c]
            );
        }
        let stats = sim.stats();
        worst = worst.max(stats.balance_error.abs());
        assert!(
            stats.balance_error.abs() < 1e-5,
            "{name}: after {} steps the balance error is {:e} ({stats:?})",
            k + CHECK_EVERY,
            stats.balance_error
        );
    }
    let stats = sim.stats();
    println!(
        "{name}: {STEPS} steps ({} sub-steps, {:.0} s simulated) in {:.1} s; worst balance error {worst:.2e}, final {:.2e}, volume {:.1} m³ (in {:.1}, out {:.1})",
        stats.substeps,
        stats.time,
        t0.elapsed().as_secs_f64(),
        stats.balance_error,
        stats.volume,
        stats.inflow,
        stats.outflow,
    );
}

#[test]
fn dam_break_valley_runs_100k_steps() {
    long_run("dam_break_valley");
}

#[test]
fn river_gorge_runs_100k_steps() {
    long_run("river_gorge");
}

#[test]
fn flooding_island_runs_100k_steps() {
    long_run("flooding_island");
}

#[cfg(feature = "rapier")]
#[test]
fn crate_dam_runs_100k_coupled_steps() {
    long_run("crate_dam");
}

#[cfg(feature = "rapier")]
#[test]
fn dam_knockdown_runs_100k_coupled_steps() {
    long_run("dam_knockdown");
}

#[test]
fn breach_dam_runs_100k_steps() {
    long_run("breach_dam");
}

#[test]
fn eroded_valley_runs_100k_steps() {
    long_run("eroded_valley");
}
