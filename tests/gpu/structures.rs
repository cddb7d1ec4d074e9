//! Culverts, weirs and sluice gates on the GPU do what the CPU does: the structures pass runs
//! the CPU's laws in the CPU's order after the flow pass, with the gate's opening schedule read
//! from the GPU's own clock.

use spillway::SolverKind;
use spillway::gpu::GpuSimulation;
use spillway_tests::structured_valley;

use crate::support::{max_diff, run_cpu};

#[test]
fn the_gpu_runs_structures_as_the_cpu_does() {
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let level = structured_valley(solver);
        let steps = 750; // 15 s: the gate opens from 5 s to 10 s
        let cpu = run_cpu(&level, steps);
        let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
        gpu.step_n(steps, level.params.dt).expect("steps");
        let (g, c) = (gpu.stats().expect("stats"), cpu.stats());
        let gd = gpu.read_depth().unwrap();
        let (depth, _) = max_diff(&gd, cpu.depth());
        let nx = level.nx();
        let beyond = |d: &[f32], i0: usize| -> f64 {
            (0..level.ny())
                .flat_map(|j| (i0..nx).map(move |i| j * nx + i))
                .map(|c| d[c] as f64)
                .sum()
        };
        let (g_pool, c_pool) = (beyond(&gd, 20), beyond(cpu.depth(), 20));
        let (g_out, c_out) = (beyond(&gd, 42), beyond(cpu.depth(), 42));
        println!(
            "{solver:?}: below the weir and gate GPU {g_pool:.3} CPU {c_pool:.3} m³, beyond \
             the culvert GPU {g_out:.4} CPU {c_out:.4} m³, depth {depth:.2e} m, balance GPU \
             {:.1e} CPU {:.1e}",
            g.balance_error, c.balance_error
        );
        assert!(c_out > 0.1, "{solver:?}: the culvert passed nothing");
        assert!((g_pool - c_pool).abs() < 1e-3 * c_pool, "{solver:?}");
        assert!((g_out - c_out).abs() < 2e-2 * c_out, "{solver:?}");
        assert!(
            g.balance_error.abs() < 1e-6,
            "{solver:?}: {}",
            g.balance_error
        );
        assert!(
            c.balance_error.abs() < 1e-6,
            "{solver:?}: {}",
            c.balance_error
        );
        assert!(depth < 1e-2, "{solver:?}: {depth}");
    }
}
