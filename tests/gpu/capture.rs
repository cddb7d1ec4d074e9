//! The state read back without waiting (`request_state`/`poll_state`, the editor's keyframes)
//! is the state a blocking bake reads, on both solvers, gates included; a snapshot of it
//! restores a simulation that continues as the original does.

use spillway::SolverKind;
use spillway::gpu::GpuSimulation;
use spillway::snapshot::Snapshot;
use spillway_tests::gated_reservoir;

use crate::support::busy_scene;

#[test]
fn the_state_read_without_waiting_is_the_baked_state_on_both_solvers() {
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let level = busy_scene(solver);
        let mut sim = GpuSimulation::headless(&level).expect("a GPU");
        sim.step_n(40, level.params.dt).expect("steps");
        assert!(sim.request_state().expect("asked"));
        assert!(!sim.request_state().expect("asked"), "one at a time");
        let state = (sim.poll_state(true).expect("asked").expect("copied").read()).expect("read");
        let baked = sim.bake_into(&level).expect("baked");
        let flow = baked.flow.as_ref().expect("a flow state");
        assert_eq!(state.depth, baked.water.data, "{solver:?}");
        assert_eq!(state.flow.flow_x, flow.flow_x, "{solver:?}");
        assert_eq!(state.flow.flow_y, flow.flow_y, "{solver:?}");
        assert_eq!(state.flow.ghost, flow.ghost, "{solver:?}");
        assert!((state.flow.time - flow.time).abs() < 1e-9, "{solver:?}");
        assert!(sim.poll_state(false).is_none(), "taken");
    }
}

#[test]
fn a_snapshot_of_the_state_after_a_gate_opened_restores_it_open() {
    let level = gated_reservoir(Some(0.2));
    let mut sim = GpuSimulation::headless(&level).expect("a GPU");
    sim.step_n(25, level.params.dt).expect("steps"); // 0.5 s: the gate has opened
    sim.request_state().expect("asked");
    let state = (sim.poll_state(true).expect("asked").expect("copied").read()).expect("read");
    assert_eq!(state.opened, vec![level.gates[0].name.clone()]);
    let snap = Snapshot::of_state(&state);
    let mut again = GpuSimulation::headless(&snap.restore(&level).unwrap()).expect("a GPU");
    sim.step_n(25, level.params.dt).expect("steps");
    again.step_n(25, level.params.dt).expect("steps");
    let (a, b) = (sim.read_depth().unwrap(), again.read_depth().unwrap());
    let worst = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max);
    println!("restored and continued: {worst} m from the original");
    assert!(worst < 1e-6, "{worst} m");
    assert!(again.gates().iter().all(|g| g.open));
}
