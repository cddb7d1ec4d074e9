//! The analytic checks of the CPU solvers, on the GPU: Ritter's dam break and the lake at rest.

use spillway::level::{Advection, SolverKind};
use spillway::{Grid, Level};
use spillway_tests::{G, channel, l1_error, ritter};

use crate::support::{gpu, gpu_profile, gpu_with, run_gpu};

#[test]
fn ritter_dam_break_swe_within_5_percent() {
    const DX: f32 = 0.5;
    const X0: f64 = 200.0;
    const H0: f64 = 1.0;
    const T: f64 = 30.0;
    let level = channel(800, DX, SolverKind::Swe, |x| {
        if (x as f64) < X0 { H0 as f32 } else { 0.0 }
    });
    let mut sim = gpu(&level);
    let steps = (T / level.params.dt as f64).round() as usize;
    run_gpu(&mut sim, steps, 150);
    let stats = sim.stats().unwrap();
    assert!((stats.time - T).abs() < 1e-3, "time {}", stats.time);
    let h = gpu_profile(&sim);
    let c0 = (G * H0).sqrt();
    let err = l1_error(&h, DX as f64, X0 - 1.2 * c0 * T, X0 + 2.2 * c0 * T, |x| {
        ritter(x, X0, H0, T)
    });
    println!("GPU Ritter SWE: L1 {:.2}%", err * 100.0);
    assert!(err <= 0.05, "GPU SWE Ritter L1 error {err}");
}

const LEVEL: f32 = 2.0;

fn hilly_lake(solver: SolverKind) -> Level {
    let (nx, ny) = (48, 40);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |i, j| {
        let (x, y) = (i as f32 / nx as f32, j as f32 / ny as f32);
        1.6 + 1.6 * (7.0 * x).sin() * (5.0 * y).cos() + 0.3 * (23.0 * x + 11.0 * y).sin()
    });
    level.water = Grid::from_fn(nx, ny, |i, j| (LEVEL - level.terrain.get(i, j)).max(0.0));
    level.params.solver = solver;
    level.params.friction = spillway::level::Friction::NONE;
    level.params.dt = 0.05;
    level
}

/// Still water over hilly terrain with islands stays still (≤ 1e-4 m, ≤ 1e-4 m/s).
fn check_lake(level: &Level, steps: usize) {
    // Still water needs one sub-step per step: no spare ones.
    let mut sim = gpu_with(level, 0);
    run_gpu(&mut sim, steps, 2500);
    let depth = sim.read_depth().unwrap();
    let (qx, qy) = sim.read_discharges().unwrap();
    let (nx, ny) = (level.nx(), level.ny());
    let (mut surface_err, mut speed) = (0.0f32, 0.0f32);
    for j in 0..ny {
        for i in 0..nx {
            let c = j * nx + i;
            let h = depth[c];
            if level.water.data[c] > 0.0 {
                surface_err = surface_err.max((level.terrain.data[c] + h - LEVEL).abs());
            } else {
                assert!(h < 1e-4, "island cell ({i},{j}) got wet: {h}");
            }
            if h > 1e-3 {
                let u =
                    0.5 * (qx[j * (nx + 1) + i] + qx[j * (nx + 1) + i + 1]) / (h * level.cell_size);
                let v = 0.5 * (qy[j * nx + i] + qy[(j + 1) * nx + i]) / (h * level.cell_size);
                speed = speed.max(u.hypot(v));
            }
        }
    }
    println!(
        "GPU lake at rest {:?} {:?}: surface error {surface_err:e} m, speed {speed:e} m/s",
        level.params.solver, level.params.advection
    );
    assert!(surface_err < 1e-4, "surface moved by {surface_err} m");
    assert!(speed < 1e-4, "water moves at {speed} m/s");
}

#[test]
fn lake_at_rest_pipes() {
    check_lake(&hilly_lake(SolverKind::Pipes), 10_000);
}

#[test]
fn lake_at_rest_swe_both_advections() {
    for adv in [Advection::Conservative, Advection::SemiLagrangian] {
        let mut level = hilly_lake(SolverKind::Swe);
        level.params.advection = adv;
        check_lake(&level, 5_000);
    }
}

#[test]
fn a_lake_stepped_at_a_courant_number_of_one_stays_still_on_the_gpu() {
    // As on the CPU (physics lake_at_rest): the GPU plans its sub-steps by the same limit.
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let level = spillway_tests::checkered_lake(solver);
        let mut sim = gpu(&level);
        run_gpu(&mut sim, 200, 50);
        let off = spillway_tests::off_one_metre(&level, &sim.read_depth().unwrap());
        println!("{solver:?}: the surface stands up to {off} m off 1 m after 50 s");
        assert!(off < 5e-3, "{solver:?}: {off} m");
    }
}

/// `tests/physics`' thin dam break on the GPU: every face a film, steps of 0.5·dx/c0 at a
/// Courant number of 0.25 (two sub-steps each); a film is held to one cell a sub-step there too.
#[test]
fn a_thin_dam_break_keeps_its_front_speed_at_a_low_courant_number() {
    let (h0, dx, x0, t) = (0.004f64, 0.01f32, 4.0, 6.0);
    let c0 = (G * h0).sqrt();
    for solver in [SolverKind::Swe, SolverKind::Pipes] {
        let mut level = channel(800, dx, solver, |x| {
            if (x as f64) < x0 { h0 as f32 } else { 0.0 }
        });
        level.params.cfl = 0.25;
        level.params.dt = (0.5 * dx as f64 / c0) as f32;
        let mut sim = gpu(&level);
        let steps = (t / level.params.dt as f64).round() as usize;
        run_gpu(&mut sim, steps, 100);
        let time = sim.stats().unwrap().time;
        assert!(
            (time - steps as f64 * level.params.dt as f64).abs() < 1e-3,
            "time {time}"
        );
        let h = gpu_profile(&sim);
        let err = l1_error(&h, dx as f64, x0 - 1.2 * c0 * t, x0 + 2.2 * c0 * t, |x| {
            ritter(x, x0, h0, t)
        });
        println!("GPU thin Ritter ({solver:?}): L1 {:.2}%", err * 100.0);
        assert!(err <= 0.05, "{solver:?}: GPU thin Ritter L1 error {err}");
    }
}
