//! A source and a sink that follow a hydrograph move the volume under their curves: the ledger
//! balances to 1e-6 and the inflow matches the schedule's integral (the rate is taken at the
//! middle of each sub-step: exact on a straight stretch of the curve, whatever the step).

use spillway::Simulation;
use spillway::level::SolverKind;
use spillway_tests::flooded_basin;

#[test]
fn a_flood_hydrograph_adds_the_area_under_its_curve() {
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let level = flooded_basin(solver);
        let mut sim = Simulation::new(&level).unwrap();
        sim.advance(60.0).unwrap();
        let s = sim.stats();
        let expected_in = 200.0; // 0.5 × 10 m³/s × 40 s
        let expected_out = 6.0 * 10.0; // six cycles of 10 m³ each
        println!(
            "{solver:?}: in {:.4} m³ (curve {expected_in}), out {:.4} m³ (curve {expected_out}), \
             balance error {:.2e}",
            s.inflow, s.outflow, s.balance_error
        );
        assert!(
            s.balance_error.abs() < 1e-6,
            "{solver:?}: {}",
            s.balance_error
        );
        assert!(
            (s.inflow - expected_in).abs() < expected_in * 1e-3,
            "{solver:?}: {}",
            s.inflow
        );
        assert!(
            (s.outflow - expected_out).abs() < expected_out * 1e-2,
            "{solver:?}: {}",
            s.outflow
        );
    }
}

#[test]
fn edges_follow_an_inflow_hydrograph_and_a_tide() {
    use spillway::level::{Boundary, BoundaryKind};
    use spillway_tests::tidal_channel;
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        // The inflow alone (the east edge a wall): the ledger takes in the curve's area.
        let mut level = tidal_channel(solver);
        level.boundaries.truncate(1);
        let mut sim = Simulation::new(&level).unwrap();
        sim.advance(80.0).unwrap();
        let s = sim.stats();
        println!(
            "{solver:?}: inflow {:.4} m³ (curve 240), balance {:.1e}",
            s.inflow, s.balance_error
        );
        assert!((s.inflow - 240.0).abs() < 240.0 * 1e-3, "{}", s.inflow);
        assert!(s.balance_error.abs() < 1e-6);

        // The tide alone: the water at the east edge rises and falls with it.
        let mut level = tidal_channel(solver);
        level.boundaries.remove(0);
        let tide = match &level.boundaries[0] {
            Boundary {
                kind: BoundaryKind::Tide(t),
                ..
            } => t.clone(),
            _ => unreachable!(),
        };
        let mut sim = Simulation::new(&level).unwrap();
        let nx = level.nx();
        let mut worst = 0.0f32;
        for k in 1..=24 {
            sim.advance(10.0).unwrap();
            let t = 10.0 * k as f64;
            let edge: f32 = (0..level.ny())
                .map(|j| sim.depth()[j * nx + nx - 1])
                .sum::<f32>()
                / level.ny() as f32;
            worst = worst.max((edge - tide.at(t)).abs());
        }
        let s = sim.stats();
        println!(
            "{solver:?}: the east cells follow the tide within {worst:.3} m over two periods, \
             balance {:.1e}",
            s.balance_error
        );
        // The cells lag the outside by the seconds the water takes to cross the edge.
        assert!(worst < 0.1, "{solver:?}: {worst}");
        assert!(s.balance_error.abs() < 1e-6);
    }
}

#[test]
fn a_rising_hydrograph_adds_its_area_in_long_steps_too() {
    // Two steps of a second: the rate read at each sub-step's start gave 0 then 10 m³/s, 10 m³
    // for the 15 under the curve.
    let mut sim = Simulation::new(&spillway_tests::rising_source()).unwrap();
    sim.step(1.0).unwrap();
    sim.step(1.0).unwrap();
    let inflow = sim.stats().inflow;
    println!("inflow {inflow:.4} m³ of 15 under the curve");
    assert!((inflow - 15.0).abs() < 1e-3, "{inflow}");
}
