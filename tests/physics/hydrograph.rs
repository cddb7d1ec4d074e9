//! A source and a sink that follow a hydrograph move the volume under their curves: the ledger
//! balances to 1e-6 and the inflow matches the schedule's integral (the rate is taken at the
//! start of each sub-step, so within a sub-step's share of the slope).

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
