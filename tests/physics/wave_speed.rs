//! A small wave travels at sqrt(g·h): twice as fast over 4 m of water as over 1 m.

use spillway::Simulation;
use spillway::level::SolverKind;
use spillway_tests::*;

/// Speed of the right-going crest of a small Gaussian hump on still water of depth `h`.
fn crest_speed(solver: SolverKind, h: f32) -> f64 {
    let (n, dx) = (1200, 0.5f32);
    let x0 = 150.0f32;
    let level = channel(n, dx, solver, |x| {
        h + 0.01 * (-((x - x0) / 4.0).powi(2)).exp()
    });
    let mut sim = Simulation::new(&level).unwrap();
    let crest = |sim: &Simulation| {
        let p = profile(sim);
        let start = (x0 / dx) as usize + 20;
        let (i, _) = p[start..]
            .iter()
            .enumerate()
            .fold((0, f64::MIN), |a, (i, &v)| if v > a.1 { (i, v) } else { a });
        (start + i) as f64 * dx as f64
    };
    sim.advance(8.0).unwrap();
    let (t1, c1) = (sim.stats().time, crest(&sim));
    sim.advance(16.0).unwrap();
    let (t2, c2) = (sim.stats().time, crest(&sim));
    (c2 - c1) / (t2 - t1)
}

#[test]
fn waves_travel_at_sqrt_gh() {
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let shallow = crest_speed(solver, 1.0);
        let deep = crest_speed(solver, 4.0);
        println!(
            "{solver:?}: {shallow:.3} m/s over 1 m, {deep:.3} m/s over 4 m (exact {:.3}, {:.3})",
            G.sqrt(),
            (4.0 * G).sqrt()
        );
        assert!(
            (shallow / G.sqrt() - 1.0).abs() < 0.05,
            "{solver:?} speed over 1 m: {shallow}"
        );
        assert!(
            (deep / (4.0 * G).sqrt() - 1.0).abs() < 0.05,
            "{solver:?} speed over 4 m: {deep}"
        );
        assert!(
            (deep / shallow - 2.0).abs() < 0.1,
            "{solver:?} ratio {}",
            deep / shallow
        );
    }
}
