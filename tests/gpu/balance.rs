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

#[test]
fn water_moved_by_floaters_keeps_the_rain_too_small_to_show_yet() {
    // On a 10 m deep lake a sixtieth of a second of 20 mm/h rain is below half a step of
    // f32 at 10 m: it waits in each cell's carry until enough has come. The GPU's floater
    // displacement cleared the carry of every cell it touched (the CPU's kept it), so the rain
    // under a floater was counted in but never arrived.
    use spillway::{Grid, Level, Simulation};
    let (nx, ny) = (16, 16);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.water = Grid::filled(nx, ny, 10.0);
    level.params.rain_mm_per_hour = 20.0;
    level.params.dt = 1.0 / 60.0;
    let dt = level.params.dt;
    let touched: Vec<(usize, f32)> = (0..nx * ny).map(|c| (c, 1e-12)).collect();
    let mut cpu = Simulation::new(&level).unwrap();
    let mut gpu = gpu_with(&level, 2);
    for _ in 0..600 {
        cpu.step(dt).unwrap();
        cpu.displace(&touched);
        gpu.step_n(1, dt).unwrap();
        gpu.displace(&touched).unwrap();
    }
    let (g, c) = (gpu.stats().unwrap(), cpu.stats());
    println!(
        "after 10 s: volume GPU {:.6} CPU {:.6} m³, balance GPU {:.1e} CPU {:.1e}",
        g.volume, c.volume, g.balance_error, c.balance_error
    );
    let rain = 256.0 * 20e-3 / 360.0;
    assert!(
        c.volume - 2560.0 > 0.9 * rain,
        "the CPU's lake took the rain"
    );
    assert!(
        (g.volume - c.volume).abs() < 0.05 * rain,
        "{} vs {}",
        g.volume,
        c.volume
    );
}

#[test]
fn water_pushed_from_cell_to_cell_is_no_inflow_or_outflow() {
    // A floater pushes water aside every coupled step: the GPU booked the gross volumes in
    // both inflow and outflow, so they climbed while the boats moved; the CPU books neither.
    use spillway::{Grid, Level, Simulation};
    let mut level = Level::flat(8, 8, 1.0, 0.0);
    level.water = Grid::filled(8, 8, 1.0);
    let push = [(27usize, 0.5f32), (28, -0.5)];
    let back = [(27usize, -0.5f32), (28, 0.5)];
    let mut cpu = Simulation::new(&level).unwrap();
    let mut gpu = gpu_with(&level, 2);
    for k in 0..100 {
        let moved = if k % 2 == 0 { &push } else { &back };
        cpu.displace(moved);
        gpu.displace(moved).unwrap();
        cpu.step(0.01).unwrap();
        gpu.step_n(1, 0.01).unwrap();
    }
    let (g, c) = (gpu.stats().unwrap(), cpu.stats());
    println!(
        "inflow GPU {:.2e} CPU {:.2e}, outflow GPU {:.2e} CPU {:.2e} m³",
        g.inflow, c.inflow, g.outflow, c.outflow
    );
    assert!(g.inflow.abs() < 1e-3 && g.outflow.abs() < 1e-3, "{g:?}");
    assert!(g.balance_error.abs() < 1e-5, "{}", g.balance_error);
}
