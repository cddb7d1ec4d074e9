//! The solvers against SWASHES' analytic solutions (`spillway_tests::swashes`): every case on
//! the CPU with both solvers, and with `--features gpu` on the GPU (lavapipe in CI) with both.
//! Each must stay within the L1 depth error the issue sets; the measured table is
//! `docs/validation.md` (`cargo run --release -p spillway-tests --features gpu --example
//! validation -- --write docs/validation.md`).

use spillway::SolverKind;
use spillway_tests::swashes::{Backend, CASES, Case};

fn case(name: &str) -> &'static Case {
    CASES
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no case {name}"))
}

fn check(name: &str, backend: Backend) {
    let case = case(name);
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let o = case
            .run(backend, solver)
            .unwrap_or_else(|e| panic!("{name} ({solver:?}): {e}"));
        println!(
            "{name}, {} {solver:?}: L1 {:.3} % (limit {:.0} %), balance {:.1e} after {:.1} s",
            backend.name(),
            100.0 * o.l1,
            100.0 * case.limit,
            o.balance,
            o.seconds
        );
        assert!(
            o.l1 <= case.limit,
            "{name} ({} {solver:?}): L1 {:.3} % above {:.0} %",
            backend.name(),
            100.0 * o.l1,
            100.0 * case.limit
        );
        assert!(o.balance.abs() < 1e-6, "{name}: balance {}", o.balance);
    }
}

/// One test per case and backend: `cpu::NAME`, and with the `gpu` feature `gpu::NAME`.
macro_rules! cases {
    ($($test:ident => $name:expr),* $(,)?) => {
        mod cpu {
            $(
                #[test]
                fn $test() {
                    super::check($name, super::Backend::Cpu);
                }
            )*
        }

        #[cfg(feature = "gpu")]
        mod gpu {
            $(
                #[test]
                fn $test() {
                    super::check($name, super::Backend::Gpu);
                }
            )*
        }
    };
}

cases! {
    steady_flow_over_a_bump_subcritical => "bump, subcritical",
    steady_flow_over_a_bump_transcritical => "bump, transcritical",
    steady_flow_over_a_bump_with_a_hydraulic_jump => "bump, transcritical with a hydraulic jump",
    macdonald_channel_with_manning_friction => "MacDonald, subcritical, Manning",
    macdonald_channel_with_manning_friction_and_rain => "MacDonald, subcritical, Manning, rain",
    thacker_planar_surface_in_a_parabola => "Thacker, planar surface in a parabola (1-D)",
    thacker_planar_surface_in_a_paraboloid => "Thacker, planar surface in a paraboloid (2-D)",
    stoker_wet_dam_break => "dam break, wet (Stoker)",
    ritter_dry_dam_break => "dam break, dry (Ritter)",
    dressler_dam_break_with_chezy_friction => "dam break, dry, Chézy friction (Dressler)",
    dam_break_over_a_step => "dam break over a step",
    sluice_gate_on_a_dry_domain => "sluice gate, dry downstream",
    sluice_gate_with_free_flow_on_a_wet_domain => "sluice gate, wet downstream, free flow",
    sluice_gate_with_tailwater_at_the_opening => "sluice gate, tailwater at the gate's opening",
}

#[test]
fn every_case_is_tested() {
    assert_eq!(CASES.len(), 14, "add the new case to the lists above");
}

/// SWASHES' bedload solutions (type 5) against the moving bed: the L1 error of the bed within
/// 5 %, on the CPU with every grain accounted for, and with the `gpu` feature on the GPU too
/// (`tests/support/bedload.rs`).
mod bedload {
    use spillway::SolverKind;
    use spillway_tests::swashes::Backend;

    fn check(choice: u32, name: &str, backend: Backend) {
        for solver in [SolverKind::Pipes, SolverKind::Swe] {
            let o = spillway_tests::bedload::run(choice, 200, solver, backend)
                .unwrap_or_else(|e| panic!("{name} ({solver:?}): {e}"));
            println!(
                "{name}, {} {solver:?}: bed L1 {:.3} % (limit 5 %), bed balance {:.1e} after {:.1} s",
                backend.name(),
                100.0 * o.l1,
                o.balance,
                o.seconds
            );
            assert!(
                o.l1 <= 0.05,
                "{name} ({solver:?}): bed L1 {:.3} %",
                100.0 * o.l1
            );
            if backend == Backend::Cpu {
                assert!(o.balance.abs() < 1e-6, "{name}: bed balance {}", o.balance);
            }
        }
    }

    #[test]
    fn bedload_with_grass_law() {
        check(1, "bedload, Grass", Backend::Cpu);
    }

    #[test]
    fn bedload_with_meyer_peter_and_muller_law() {
        check(2, "bedload, Meyer-Peter & Müller", Backend::Cpu);
    }

    #[cfg(feature = "gpu")]
    #[test]
    fn bedload_with_grass_law_on_the_gpu() {
        check(1, "bedload, Grass", Backend::Gpu);
    }

    #[cfg(feature = "gpu")]
    #[test]
    fn bedload_with_meyer_peter_and_muller_law_on_the_gpu() {
        check(2, "bedload, Meyer-Peter & Müller", Backend::Gpu);
    }
}
