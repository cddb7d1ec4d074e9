//! 1-D dam breaks against the exact solutions: Ritter (dry bed) and Stoker (wet bed).

use spillway::Simulation;
use spillway::level::{CrossSection, SolverKind};
use spillway_tests::*;

const DX: f32 = 0.5;
const N: usize = 800;
const X0: f64 = 200.0;
const H0: f64 = 1.0;
const T: f64 = 30.0;

/// Runs a dam break with downstream depth `h1` and returns the depth profile at time `T`.
fn run(solver: SolverKind, section: CrossSection, h1: f32) -> Vec<f64> {
    run_with(solver, section, h1, |_| {})
}

fn run_with(
    solver: SolverKind,
    section: CrossSection,
    h1: f32,
    tweak: impl Fn(&mut spillway::Level),
) -> Vec<f64> {
    let mut level = channel(
        N,
        DX,
        solver,
        |x| if (x as f64) < X0 { H0 as f32 } else { h1 },
    );
    level.params.cross_section = section;
    tweak(&mut level);
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(T).unwrap();
    assert!((sim.stats().time - T).abs() < 1e-3);
    assert_healthy(&sim);
    profile(&sim)
}

fn ritter_error(h: &[f64]) -> f64 {
    let c0 = (G * H0).sqrt();
    l1_error(h, DX as f64, X0 - 1.2 * c0 * T, X0 + 2.2 * c0 * T, |x| {
        ritter(x, X0, H0, T)
    })
}

fn stoker_error(h: &[f64], h1: f64) -> f64 {
    let c0 = (G * H0).sqrt();
    let (_, _, s) = stoker_state(H0, h1);
    l1_error(h, DX as f64, X0 - 1.2 * c0 * T, X0 + 1.2 * s * T, |x| {
        stoker(x, X0, H0, h1, T)
    })
}

/// Volume per unit width that has passed the dam site.
fn passed(h: &[f64]) -> f64 {
    h.iter()
        .enumerate()
        .filter(|(i, _)| (*i as f64 + 0.5) * DX as f64 > X0)
        .map(|(_, v)| v * DX as f64)
        .sum()
}

#[test]
fn ritter_swe_matches_exact_profile_and_discharge() {
    let h = run(SolverKind::Swe, CrossSection::Upwind, 0.0);
    let err = ritter_error(&h);
    let exact = 8.0 / 27.0 * H0 * (G * H0).sqrt() * T;
    let vol = passed(&h);
    println!(
        "Ritter SWE: L1 {:.2}%, passed {vol:.3} vs exact {exact:.3}",
        err * 100.0
    );
    assert!(err <= 0.05, "SWE Ritter L1 error {err}");
    assert!(
        (vol - exact).abs() / exact <= 0.05,
        "passed volume {vol} vs {exact}"
    );
}

#[test]
fn ritter_pipes_within_15_percent_and_sections_compared() {
    let mut results = Vec::new();
    for advect in [true, false] {
        for cs in SECTIONS {
            let h = run_with(SolverKind::Pipes, cs, 0.0, |l| {
                l.params.pipe_advection = advect
            });
            let err = ritter_error(&h);
            println!(
                "Ritter pipes, cross-section {cs:?}, momentum advection {advect}: L1 {:.2}%",
                err * 100.0
            );
            results.push((cs, advect, err));
        }
    }
    let find = |cs, adv| results.iter().find(|r| r.0 == cs && r.1 == adv).unwrap().2;
    let default = find(CrossSection::default(), true);
    assert!(default <= 0.15, "pipes Ritter L1 error {default}");
    // The depth-aware default must beat the classic constant pipe, with and without advection.
    assert!(default < find(CrossSection::Constant, true));
    assert!(find(CrossSection::Upwind, false) < find(CrossSection::Constant, false));
    // Plain pipes have no momentum transport: the front stalls and the error is large.
    assert!(find(CrossSection::Upwind, false) > 0.2);
}

#[test]
fn ritter_semi_lagrangian_swe_is_close() {
    let h = run_with(SolverKind::Swe, CrossSection::Upwind, 0.0, |l| {
        l.params.advection = spillway::level::Advection::SemiLagrangian
    });
    let err = ritter_error(&h);
    println!("Ritter SWE semi-Lagrangian: L1 {:.2}%", err * 100.0);
    assert!(err <= 0.10, "semi-Lagrangian Ritter L1 error {err}");
}

#[test]
fn stoker_swe_matches_exact_profile() {
    for h1 in [0.1f32, 0.3] {
        let h = run(SolverKind::Swe, CrossSection::Upwind, h1);
        let err = stoker_error(&h, h1 as f64);
        println!("Stoker SWE h1={h1}: L1 {:.2}%", err * 100.0);
        assert!(err <= 0.05, "SWE Stoker L1 error {err} (h1 = {h1})");
    }
}

#[test]
fn stoker_pipes_within_15_percent() {
    for h1 in [0.1f32, 0.3] {
        let h = run(SolverKind::Pipes, CrossSection::default(), h1);
        let err = stoker_error(&h, h1 as f64);
        println!("Stoker pipes h1={h1}: L1 {:.2}%", err * 100.0);
        assert!(err <= 0.15, "pipes Stoker L1 error {err} (h1 = {h1})");
    }
}

/// A dam break thinner than a film (`sim::friction::FILM`, 5 mm: every face of it is a film)
/// keeps its front's speed when the Courant number asked is low and the step is sub-stepped:
/// a film's speed is held to one cell a sub-step. (Held to `cfl·dx / dt` of the whole step, as
/// it was, the front here could not pass 0.5·√(g·h₀), a quarter of its speed, and the L1 error
/// was 18.77 % with the SWE mode.)
#[test]
fn a_thin_dam_break_keeps_its_front_speed_at_a_low_courant_number() {
    let (h0, dx, n, x0, t) = (0.004f64, 0.01f32, 800, 4.0, 6.0);
    let c0 = (G * h0).sqrt();
    for solver in [SolverKind::Swe, SolverKind::Pipes] {
        let mut level = channel(
            n,
            dx,
            solver,
            |x| if (x as f64) < x0 { h0 as f32 } else { 0.0 },
        );
        // Steps of 0.5·dx/c0 at a Courant number of 0.25: two sub-steps each.
        level.params.cfl = 0.25;
        level.params.dt = (0.5 * dx as f64 / c0) as f32;
        let mut sim = Simulation::new(&level).unwrap();
        sim.advance(t).unwrap();
        assert_healthy(&sim);
        let h = profile(&sim);
        let err = l1_error(&h, dx as f64, x0 - 1.2 * c0 * t, x0 + 2.2 * c0 * t, |x| {
            ritter(x, x0, h0, t)
        });
        println!(
            "thin Ritter ({solver:?}, h0 {h0} m): L1 {:.2}%",
            err * 100.0
        );
        assert!(err <= 0.05, "{solver:?}: thin Ritter L1 error {err}");
    }
}
