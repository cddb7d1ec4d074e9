//! Hydrograph sources and sinks on the GPU move what the CPU moves: the schedule is evaluated
//! in the forcing pass at each sub-step's start, from the GPU's own clock.

use spillway::SolverKind;
use spillway::gpu::GpuSimulation;
use spillway_tests::flooded_basin;

use crate::support::{max_diff, run_cpu};

#[test]
fn the_gpu_follows_hydrographs_as_the_cpu_does() {
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let level = flooded_basin(solver);
        let steps = 1200; // 60 s
        let cpu = run_cpu(&level, steps);
        let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
        gpu.step_n(steps, level.params.dt).expect("steps");
        let (g, c) = (gpu.stats().expect("stats"), cpu.stats());
        let (depth, _) = max_diff(&gpu.read_depth().unwrap(), cpu.depth());
        println!(
            "{solver:?}: inflow GPU {:.4} CPU {:.4} m³, outflow GPU {:.4} CPU {:.4} m³, depth {depth:.2e} m",
            g.inflow, c.inflow, g.outflow, c.outflow
        );
        assert!((g.inflow - c.inflow).abs() < 1e-3 * c.inflow, "{solver:?}");
        assert!(
            (g.outflow - c.outflow).abs() < 1e-2 * c.outflow,
            "{solver:?}"
        );
        assert!(
            g.balance_error.abs() < 1e-5,
            "{solver:?}: {}",
            g.balance_error
        );
        assert!(depth < 1e-2, "{solver:?}: {depth}");
    }
}
