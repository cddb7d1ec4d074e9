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

#[test]
fn the_gpu_opens_a_breach_as_the_cpu_does() {
    use spillway::level::file;
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../projects/breach_dam/level.ron");
    let mut level = file::load(&path).expect("the breach_dam sample");
    // Started by its trigger after 5 s, and by overtopping in a second run.
    if let spillway::level::StructureKind::Breach { start, .. } = &mut level.structures[0].kind {
        *start = spillway::level::BreachStart::Trigger;
    }
    let dt = level.params.dt;
    let mut cpu = spillway::Simulation::new(&level).unwrap();
    let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
    cpu.advance(5.0).unwrap();
    gpu.step_n(100, dt).unwrap();
    assert!(cpu.start_breach("dam breach"));
    assert!(gpu.start_breach("dam breach").unwrap());
    // Started once: a second call says so on both solvers (the GPU said `true` again).
    assert!(!cpu.start_breach("dam breach"));
    assert!(!gpu.start_breach("dam breach").unwrap());
    assert!(!gpu.start_breach("no such breach").unwrap());
    // Two breaches of one name (one trigger): both start.
    let mut twin = level.clone();
    twin.structures.push(level.structures[0].clone());
    let mut twins = GpuSimulation::headless(&twin).expect("a GPU");
    assert!(twins.start_breach("dam breach").unwrap());
    let started = twins.breaches().unwrap();
    assert!(
        started.len() == 2 && started.iter().all(|b| b.started),
        "{started:?}"
    );
    for _ in 0..1400 {
        cpu.step(dt).unwrap();
    }
    gpu.step_n(1400, dt).unwrap();
    let (g, c) = (gpu.stats().unwrap(), cpu.stats());
    let (depth, _) = max_diff(&gpu.read_depth().unwrap(), cpu.depth());
    println!(
        "after 75 s: outflow GPU {:.2} CPU {:.2} m³, depth {depth:.2e} m, balance GPU {:.1e}",
        g.outflow, c.outflow, g.balance_error
    );
    assert!(c.outflow > 1000.0, "{}", c.outflow);
    assert!((g.outflow - c.outflow).abs() < 1e-2 * c.outflow);
    assert!(g.balance_error.abs() < 1e-6, "{}", g.balance_error);
    // A game reads how far it has opened: fully, 60 s after it started.
    let (gb, cb) = (gpu.breaches().unwrap(), cpu.breaches());
    assert_eq!(gb, cb);
    assert!(cb[0].started && cb[0].progress == 1.0, "{cb:?}");
    assert!(depth < 1e-2, "{depth}");

    let level = structured_breach(level);
    let cpu = run_cpu(&level, 2400);
    let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
    gpu.step_n(2400, dt).unwrap();
    let (g, c) = (gpu.stats().unwrap(), cpu.stats());
    println!(
        "overtopping, after 120 s: outflow GPU {:.2} CPU {:.2} m³",
        g.outflow, c.outflow
    );
    assert!(c.outflow > 1000.0, "{}", c.outflow);
    assert!((g.outflow - c.outflow).abs() < 2e-2 * c.outflow);
}

/// The sample as it is: started when the river tops the dam.
fn structured_breach(mut level: spillway::Level) -> spillway::Level {
    if let spillway::level::StructureKind::Breach { start, .. } = &mut level.structures[0].kind {
        *start = spillway::level::BreachStart::Overtopping(0.05);
    }
    level
}

#[test]
fn a_gpu_snapshot_taken_while_a_breach_opens_restores_it() {
    use spillway::level::file;
    use spillway::snapshot::Snapshot;
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../projects/breach_dam/level.ron");
    let mut level = file::load(&path).expect("the breach_dam sample");
    if let spillway::level::StructureKind::Breach { start, .. } = &mut level.structures[0].kind {
        *start = spillway::level::BreachStart::At(5.0);
    }
    let dt = level.params.dt;
    let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
    gpu.step_n(600, dt).unwrap(); // 30 s: the breach is under half open
    assert!(gpu.request_state().unwrap());
    let copy = gpu.poll_state(true).expect("asked").unwrap();
    let state = copy.read().unwrap();
    assert!(state.breaches[0].started && state.breaches[0].progress > 0.3);
    let restored = Snapshot::of_state(&state).restore(&level).unwrap();
    let mut again = GpuSimulation::headless(&restored).expect("a GPU");
    gpu.step_n(400, dt).unwrap();
    again.step_n(400, dt).unwrap();
    let (depth, _) = max_diff(&gpu.read_depth().unwrap(), &again.read_depth().unwrap());
    println!(
        "20 s after a snapshot at {:.1}: {:?} vs {:?}, depth {depth:.2e} m",
        state.flow.time,
        gpu.breaches().unwrap(),
        again.breaches().unwrap()
    );
    assert_eq!(gpu.breaches().unwrap(), again.breaches().unwrap());
    assert_eq!(gpu.read_terrain().unwrap(), again.read_terrain().unwrap());
    assert!(depth < 1e-4, "{depth}");
}

#[test]
fn a_breachs_state_stays_with_it_when_the_structures_change() {
    // Two breaches on triggers in the sample's dam; the first is started. Deleting it (the
    // editor's live edit) must not hand its state to the second, which held its slot next;
    // renaming a breach keeps its state.
    let mut level = spillway_tests::breach_dam(Some(spillway::level::BreachStart::Trigger));
    let mut second = level.structures[0].clone();
    second.name = "second".into();
    level.structures.push(second);
    let first = level.structures[0].name.clone();
    let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
    assert!(gpu.start_breach(&first).unwrap());
    gpu.step_n(100, level.params.dt).unwrap();
    let opened = gpu.breaches().unwrap()[0].clone();
    assert!(opened.started && opened.progress > 0.0, "{opened:?}");

    let mut renamed = level.clone();
    renamed.structures[0].name = "first, renamed".into();
    gpu.set_sources_sinks(&renamed).unwrap();
    let now = gpu.breaches().unwrap();
    assert_eq!(
        (now[0].started, now[0].progress),
        (true, opened.progress),
        "{now:?}"
    );
    assert!(!now[1].started, "{now:?}");

    let mut without = renamed.clone();
    without.structures.remove(0);
    gpu.set_sources_sinks(&without).unwrap();
    let now = gpu.breaches().unwrap();
    assert_eq!(now.len(), 1);
    assert_eq!(now[0].name, "second");
    assert!(!now[0].started && now[0].progress == 0.0, "{now:?}");
    // Two breaches of one name, one started by its time, the other waiting: an edit leaves
    // each its own state, as on the CPU (`physics::breach`).
    let mut twins = spillway_tests::breach_dam(Some(spillway::level::BreachStart::At(0.5)));
    let mut waiting = twins.structures[0].clone();
    if let spillway::level::StructureKind::Breach { start, .. } = &mut waiting.kind {
        *start = spillway::level::BreachStart::Trigger;
    }
    twins.structures.push(waiting);
    let mut gpu = GpuSimulation::headless(&twins).expect("a GPU");
    gpu.step_n(100, twins.params.dt).unwrap();
    let before = gpu.breaches().unwrap();
    assert!(before[0].started && !before[1].started, "{before:?}");
    gpu.set_sources_sinks(&twins).unwrap();
    assert_eq!(gpu.breaches().unwrap(), before);
}

#[test]
fn a_moving_bed_on_the_gpu_leaves_a_breachs_ground_to_the_breach() {
    // As on the CPU (`physics::breach`): the bake keeps the dam's ground where the breach cut.
    let mut level = spillway_tests::breach_dam(Some(spillway::level::BreachStart::At(1.0)));
    level.params.sediment = Some(spillway_tests::sand());
    let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
    gpu.step_n((30.0 / level.params.dt) as usize, level.params.dt)
        .unwrap();
    let cell = 30 * level.nx() + 44;
    let cut = gpu.read_terrain().unwrap()[cell];
    assert!(cut < 11.0, "the breach cut the dam: {cut}");
    let baked = gpu.bake_into(&level).unwrap();
    assert_eq!(baked.terrain.data[cell], 12.0, "the dam's own ground");
}

#[test]
fn a_breach_added_to_an_eroding_run_keeps_the_bed_as_it_is() {
    // A new breach's cells leave the moving bed; the bed keeps its grains in the water (it was
    // built again from the terrain, the water's grains gone and its floor lowered).
    use spillway::level::{Sediment, StructureKind, Suspension};
    let mut level = spillway_tests::breach_dam(None);
    let breach = level.structures.remove(0);
    assert!(matches!(breach.kind, StructureKind::Breach { .. }));
    level.params.sediment = Some(Sediment {
        suspension: Some(Suspension {
            critical_shear: 0.5,
            pickup: 1e-3,
            settling: 0.01,
        }),
        ..spillway_tests::sand()
    });
    let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
    gpu.step_n(200, level.params.dt).unwrap();
    let before = gpu.suspended_load().unwrap().expect("suspension");
    let carried: f32 = before.iter().sum();
    assert!(carried > 0.0, "the river carries grains");
    let mut with_breach = level.clone();
    with_breach.structures.push(breach);
    gpu.set_sources_sinks(&with_breach).unwrap();
    let after = gpu.suspended_load().unwrap().expect("suspension");
    assert_eq!(after, before, "the grains in the water stay");
}

#[test]
fn an_overlapping_breach_leaves_the_deeper_cut_cut_on_the_gpu_too() {
    let level = spillway_tests::overlapping_breaches();
    let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
    gpu.step_n(20, level.params.dt).unwrap();
    let bottom = gpu.read_terrain().unwrap()[30 * level.nx() + 44];
    assert_eq!(
        bottom, 4.0,
        "the first breach's bottom, under the second's reach"
    );
}

#[test]
fn a_gate_clear_of_the_water_is_a_weir_over_its_sill_like_the_cpu() {
    // As `physics::structures`: clear of the water, a raised sill's gate left its faces free.
    let gate = spillway::level::StructureKind::SluiceGate {
        from: [20.0, 0.0],
        to: [20.0, 4.0],
        sill: 1.5,
        opening: spillway::level::Schedule::constant(0.55),
        contraction: 0.611,
    };
    let level = spillway_tests::structure_channel(SolverKind::Pipes, 2.0, gate);
    let steps = 1500;
    let cpu = run_cpu(&level, steps);
    let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
    gpu.step_n(steps, level.params.dt).expect("steps");
    let (depth, _) = max_diff(&gpu.read_depth().unwrap(), cpu.depth());
    let (g, c) = (gpu.stats().expect("stats"), cpu.stats());
    println!(
        "out: GPU {:.3} CPU {:.3} m³; depth {depth:.2e} m",
        g.outflow, c.outflow
    );
    assert!((g.outflow - c.outflow).abs() < 1e-3 * c.outflow);
    // Over the sill as a weir: 2.41 m³/s at most, not the 30 m³/s of 2 m flowing freely.
    assert!(
        c.outflow < 2.5 * steps as f64 * level.params.dt as f64,
        "{}",
        c.outflow
    );
}
