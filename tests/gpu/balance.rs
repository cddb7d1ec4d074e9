//! The GPU's volume ledger balances over 10^4 steps with sources, sinks, rain and every edge.

use spillway::level::SolverKind;

use crate::support::{busy_scene, gpu_with, run_gpu, run_gpu_loose};

#[test]
fn ledger_balances_over_10k_steps() {
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let level = busy_scene(solver);
        let mut sim = gpu_with(&level, 0);
        // Sub-steps may clamp when the flow speeds up between read-backs: that changes the
        // sub-step lengths, not what the ledger must account for.
        run_gpu_loose(&mut sim, 10_000, 1000);
        let s = sim.stats().unwrap();
        println!(
            "{solver:?}: balance error {:e} after {} steps (volume {:.1}, in {:.1}, out {:.1}, {} clamped)",
            s.balance_error,
            s.steps,
            s.volume,
            s.inflow,
            s.outflow,
            sim.status().clamped_steps
        );
        assert_eq!(s.steps, 10_000);
        assert!(
            s.inflow > s.volume_initial && s.outflow > 0.0,
            "the scene must move water in and out"
        );
        assert!(
            s.balance_error.abs() < 1e-5,
            "{solver:?}: balance error {}",
            s.balance_error
        );
    }
}

#[test]
fn closed_basin_keeps_its_volume() {
    let mut level = busy_scene(SolverKind::Pipes);
    level.sources.clear();
    level.sinks.clear();
    level.boundaries.clear();
    level.params.rain_mm_per_hour = 0.0;
    let mut sim = gpu_with(&level, 1);
    run_gpu(&mut sim, 10_000, 5000);
    let s = sim.stats().unwrap();
    println!("closed basin: balance error {:e}", s.balance_error);
    assert_eq!((s.inflow, s.outflow), (0.0, 0.0));
    assert!(
        s.balance_error.abs() < 1e-6,
        "balance error {}",
        s.balance_error
    );
}
