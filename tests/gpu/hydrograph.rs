//! Hydrograph sources and sinks on the GPU move what the CPU moves: the schedule is evaluated
//! in the forcing pass at each sub-step's middle, from the GPU's own clock. A source started by
//! name (a game's trigger) runs from the next step on both solvers.

use spillway::SolverKind;
use spillway::gpu::GpuSimulation;
use spillway_tests::flooded_basin;

use crate::support::{max_diff, run_cpu};

/// Runs `level` `steps` steps on both solvers and checks the GPU moved what the CPU moved:
/// inflow within 0.1 %, outflow within 1 %, depths within 1 cm, its ledger balanced.
fn same_volumes(level: &spillway::Level, steps: usize, solver: SolverKind) {
    let cpu = run_cpu(level, steps);
    let mut gpu = GpuSimulation::headless(level).expect("a GPU");
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

#[test]
fn the_gpu_follows_hydrographs_as_the_cpu_does() {
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        same_volumes(&flooded_basin(solver), 1200, solver); // 60 s
    }
}

#[test]
fn a_source_started_by_name_runs_from_the_next_step_on_both_solvers() {
    use spillway::Simulation;
    use spillway::level::{Shape, Source, SourceKind};
    let mut level = flooded_basin(SolverKind::Pipes);
    level.sources.clear();
    level.sinks.clear();
    level.sources.push(Source {
        name: "lever".into(),
        shape: Shape::Point { x: 20.0, y: 20.0 },
        kind: SourceKind::Rate { m3_per_s: 3.0 },
        enabled: false,
    });
    let dt = level.params.dt;
    let mut cpu = Simulation::new(&level).unwrap();
    let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
    cpu.advance(2.0).unwrap();
    gpu.step_n(40, dt).unwrap();
    assert_eq!(gpu.stats().unwrap().inflow, 0.0);
    assert!(level.set_running("lever", true));
    cpu.set_sources_sinks(&level).unwrap();
    gpu.set_sources_sinks(&level).unwrap();
    cpu.advance(4.0).unwrap();
    gpu.step_n(80, dt).unwrap();
    let (c, g) = (cpu.stats().inflow, gpu.stats().unwrap().inflow);
    println!("after the trigger: CPU {c:.5} m³, GPU {g:.5} m³ (3 m³/s × 4 s = 12)");
    assert!(
        (c - 12.0).abs() < 1e-3 && (g - 12.0).abs() < 1e-3,
        "{c} {g}"
    );
    assert!(!level.set_running("no such source", true));
}

#[test]
fn the_gpu_follows_edge_hydrographs_and_tides_as_the_cpu_does() {
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        same_volumes(&spillway_tests::tidal_channel(solver), 2000, solver); // 100 s
    }
}

#[test]
fn a_rising_hydrograph_adds_its_area_in_long_steps_on_the_gpu() {
    // As on the CPU (`physics::hydrograph`): read at each sub-step's start, ten steps of 0.2 s
    // gave 14 m³ of the 15 under the curve. (A step that needs more sub-steps than recorded
    // runs short: its time runs again, and the curve is integrated to the clock reached.)
    let mut gpu = GpuSimulation::headless(&spillway_tests::rising_source()).expect("a GPU");
    gpu.step_n(10, 0.2).expect("steps");
    gpu.catch_up(0.2).expect("the time lost");
    let t = gpu.clock();
    let under = if t <= 1.0 {
        5.0 * t * t
    } else {
        5.0 + 10.0 * (t - 1.0)
    };
    let inflow = gpu.stats().expect("stats").inflow;
    println!("inflow {inflow:.4} m³ of {under:.4} under the curve to {t:.4} s");
    assert!(t > 1.5, "{t}");
    assert!((inflow - under).abs() < 1e-2, "{inflow} for {under}");
}

#[test]
fn a_source_started_by_name_leaves_the_edges_schedules_running() {
    // The edges' schedules lie after the sources in the GPU's table: a source started by name
    // moved them, and the tide and hydrograph edges read the source's words as theirs (the
    // river stopped).
    use spillway::Simulation;
    use spillway::level::{Shape, Source, SourceKind};
    let mut level = spillway_tests::tidal_channel(SolverKind::Pipes);
    level.sources.push(Source {
        name: "lever".into(),
        shape: Shape::Point { x: 20.0, y: 5.0 },
        kind: SourceKind::Rate { m3_per_s: 2.0 },
        enabled: false,
    });
    let dt = level.params.dt;
    let mut cpu = Simulation::new(&level).unwrap();
    let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
    cpu.advance(20.0).unwrap();
    gpu.step_n(400, dt).unwrap();
    assert!(level.set_running("lever", true));
    cpu.set_sources_sinks(&level).unwrap();
    gpu.set_sources_sinks(&level).unwrap();
    cpu.advance(20.0).unwrap();
    gpu.step_n(400, dt).unwrap();
    let (c, g) = (cpu.stats(), gpu.stats().unwrap());
    let (depth, _) = max_diff(&gpu.read_depth().unwrap(), cpu.depth());
    println!(
        "after the trigger: inflow CPU {:.3} GPU {:.3} m³, outflow CPU {:.3} GPU {:.3} m³, depth {depth:.2e} m",
        c.inflow, g.inflow, c.outflow, g.outflow
    );
    assert!((g.inflow - c.inflow).abs() < 1e-3 * c.inflow);
    assert!((g.outflow - c.outflow).abs() < 1e-2 * c.outflow);
    assert!(depth < 1e-2, "{depth}");
}

#[test]
fn two_level_sources_on_a_cell_fill_it_once_as_on_the_cpu() {
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let level = spillway_tests::twin_level_sources(solver);
        let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
        gpu.step_n(1, level.params.dt).unwrap();
        let inflow = gpu.stats().unwrap().inflow;
        println!("{solver:?}: {inflow:.4} m³ in for 0.5");
        assert!((inflow - 0.5).abs() < 0.01, "{solver:?}: {inflow} m³");
    }
}

#[test]
fn a_repeating_hydrograph_of_a_level_saved_years_in_follows_the_cpu() {
    // Saved at 1e8 s, a 12 s cycle: the GPU wrapped its time in f32 (whole 8 s apart there) and
    // sampled the cycle only at 0, 4 and 8 s, held 8 s each; the CPU wraps in f64.
    use spillway::Simulation;
    use spillway::level::{Schedule, Shape, Source, SourceKind};
    let mut level = flooded_basin(SolverKind::Pipes);
    level.sources.clear();
    level.sinks.clear();
    level.sources.push(Source {
        name: "pulse".into(),
        shape: Shape::Point { x: 20.0, y: 20.0 },
        kind: SourceKind::Hydrograph(Schedule {
            points: vec![[0.0, 0.0], [6.0, 10.0], [12.0, 0.0]],
            period: Some(12.0),
        }),
        enabled: true,
    });
    let mut saved = Simulation::new(&level).unwrap().bake_into(&level);
    saved.flow.as_mut().expect("a flow state").time = 1e8 + 1.0;
    let dt = saved.params.dt;
    let mut cpu = Simulation::new(&saved).unwrap();
    let mut gpu = GpuSimulation::headless(&saved).expect("a GPU");
    cpu.advance(3.0).unwrap();
    gpu.step_n((3.0 / dt).round() as usize, dt).unwrap();
    let (c, g) = (cpu.stats().inflow, gpu.stats().unwrap().inflow);
    println!("3 s from 1e8 + 1 s: CPU {c:.4} m³, GPU {g:.4} m³");
    assert!((g - c).abs() < 1e-2 * c, "{c} {g}");
}
