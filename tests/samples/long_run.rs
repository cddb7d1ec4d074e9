//! Long runs: every sample project runs 10⁵ CPU steps with no NaN, no negative depth (checked
//! every 1000 steps) and a volume balance error below 1e-5 relative throughout.

use std::path::PathBuf;
use std::time::Instant;

use spillway::Simulation;
use spillway::level::file;

const STEPS: u64 = 100_000;
const CHECK_EVERY: u64 = 1_000;

fn long_run(name: &str) {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../projects/{name}/level.ron"));
    let level = file::load(&path).unwrap_or_else(|e| panic!("sample {name} does not load: {e}"));
    let mut sim = Simulation::new(&level).unwrap_or_else(|e| panic!("{name}: {e}"));
    let dt = level.params.dt;
    let t0 = Instant::now();
    let mut worst = 0.0f64;
    for k in (0..STEPS).step_by(CHECK_EVERY as usize) {
        for i in 0..CHECK_EVERY {
            sim.step(dt)
                .unwrap_or_else(|e| panic!("{name}: step {}: {e}", k + i));
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
