//! The state read back without waiting (`request_state`/`poll_state`, the editor's keyframes)
//! is the state a blocking bake reads, on both solvers, gates included; a snapshot of it
//! restores a simulation that continues as the original does.

use spillway::gpu::GpuSimulation;
use spillway::level::{Sediment, Suspension};
use spillway::snapshot::Snapshot;
use spillway::{Grid, Level, SolverKind};
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
        // The shallow-water solver's discharges (its edges' outfall and first advection
        // started from rest after going back to a keyframe without them).
        assert_eq!(state.flow.aux_x, flow.aux_x, "{solver:?}");
        assert_eq!(state.flow.aux_y, flow.aux_y, "{solver:?}");
        assert!((state.flow.time - flow.time).abs() < 1e-9, "{solver:?}");
        assert!(sim.poll_state(false).is_none(), "taken");
    }
}

/// Steps `sim` `steps` times, copies its state without waiting and asserts that the copy is
/// what a bake reads: depths, both face grids and the second face fields.
fn assert_copy_is_baked(sim: &mut GpuSimulation, level: &Level, steps: usize, what: &str) {
    sim.step_n(steps, level.params.dt).expect("steps");
    assert!(sim.request_state().expect("asked"), "{what}");
    let copy = sim.poll_state(true).expect("asked").expect("copied");
    let state = copy.read().expect("read");
    let baked = sim.bake_into(level).expect("baked");
    let flow = baked.flow.as_ref().expect("a flow state");
    assert_eq!(state.depth, baked.water.data, "{what}");
    assert_eq!(state.flow.flow_x, flow.flow_x, "{what}");
    assert_eq!(state.flow.flow_y, flow.flow_y, "{what}");
    assert_eq!(state.flow.aux_x, flow.aux_x, "{what}");
    assert_eq!(state.flow.aux_y, flow.aux_y, "{what}");
}

#[test]
fn buffers_made_ahead_serve_the_state_copies() {
    // The editor makes a keyframe's read-back buffers as the water starts (making them in the
    // first keyframe's frame stalled an 8192² level's frame for 542.4 to 644.6 ms on an H100):
    // the copies then use them and what they read is what a bake reads.
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let level = busy_scene(solver);
        let mut sim = GpuSimulation::headless(&level).expect("a GPU");
        sim.prepare_state_copy();
        sim.prepare_state_copy();
        for round in 0..2 {
            assert_copy_is_baked(&mut sim, &level, 20, &format!("{solver:?} {round}"));
        }
    }
}

#[test]
fn buffers_kept_ready_follow_a_change_of_the_physics() {
    // Switching the moving bed on (or the other solver) in the middle of a preview adds and
    // grows parts of the copy: their buffers are made in the frame of the change, not in the
    // frame of the next keyframe, and only where the buffers were asked to be kept ready.
    let level = busy_scene(SolverKind::Pipes);
    let mut sim = GpuSimulation::headless(&level).expect("a GPU");
    let mut lazy = GpuSimulation::headless(&level).expect("a GPU");
    assert!(
        !sim.state_copy_ready(),
        "nothing made before it is asked for"
    );
    sim.prepare_state_copy();
    assert!(sim.state_copy_ready());
    let mut moving = level.clone();
    moving.params.sediment = Some(Sediment {
        suspension: Some(Suspension {
            critical_shear: 5.0,
            pickup: 1e-4,
            settling: 0.01,
        }),
        ..spillway_tests::sand()
    });
    sim.set_params(&moving.params).expect("sediment on");
    lazy.set_params(&moving.params).expect("sediment on");
    assert!(sim.state_copy_ready(), "the bed's ground and load parts");
    assert!(!lazy.state_copy_ready(), "not asked for: none made");
    assert_copy_is_baked(&mut sim, &moving, 10, "with a moving bed");
    moving.params.solver = SolverKind::Swe;
    sim.set_params(&moving.params).expect("the other solver");
    assert!(sim.state_copy_ready(), "the velocities' part");
    assert_copy_is_baked(&mut sim, &moving, 10, "shallow water with a moving bed");
}

#[test]
fn a_snapshot_of_the_state_after_a_gate_opened_restores_it_open() {
    let level = gated_reservoir(Some(0.2));
    let mut sim = GpuSimulation::headless(&level).expect("a GPU");
    sim.step_n(25, level.params.dt).expect("steps"); // 0.5 s: the gate has opened
    sim.request_state().expect("asked");
    let state = (sim.poll_state(true).expect("asked").expect("copied").read()).expect("read");
    let opened = (state.gates.iter()).map(|g| (g.name.as_str(), g.open, g.open_at));
    assert_eq!(
        opened.collect::<Vec<_>>(),
        vec![(level.gates[0].name.as_str(), true, Some(0.2))]
    );
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

/// A device that grants no larger buffer than the largest one an `nx × ny` level makes.
fn tight_device(nx: usize, ny: usize) -> (wgpu::Device, wgpu::Queue) {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapter =
        pollster::block_on(instance.request_adapter(&Default::default())).expect("a GPU adapter");
    let big = spillway::gpu::largest_buffer(nx, ny);
    let limits = wgpu::Limits {
        max_buffer_size: big,
        max_storage_buffer_binding_size: big,
        ..spillway::gpu::required_limits(nx, ny)
    };
    let desc = wgpu::DeviceDescriptor {
        label: Some("tight device"),
        required_limits: limits,
        ..Default::default()
    };
    pollster::block_on(adapter.request_device(&desc)).expect("a device")
}

#[test]
fn the_state_is_read_on_a_device_whose_buffers_hold_one_grid_at_most() {
    // A 4096² level on a device granting 512 MiB buffers (the editor's) made one staging buffer
    // of all the grids (537 MB) and failed; each grid now has its own.
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        // Large enough that the face grids, not the fixed tables, are the largest buffers.
        let (nx, ny) = (120, 100);
        let mut level = Level::flat(nx, ny, 2.0, 0.0);
        level.params.solver = solver;
        level.terrain = Grid::from_fn(nx, ny, |i, j| 0.01 * (i + j) as f32);
        level.water = Grid::from_fn(nx, ny, |i, _| if i < 40 { 1.5 } else { 0.2 });
        let (device, queue) = tight_device(nx, ny);
        // The face velocities' two halves.
        assert_eq!(
            spillway::gpu::largest_buffer(nx, ny),
            8 * ((nx + 1) * ny + nx * (ny + 1)) as u64
        );
        assert_eq!(
            device.limits().max_buffer_size,
            spillway::gpu::largest_buffer(nx, ny)
        );
        let mut sim = GpuSimulation::new(&level, &device, &queue).expect("fits the device");
        let whole = 8 * (nx * ny + (nx + 1) * ny + nx * (ny + 1)) as u64;
        assert!(
            whole > device.limits().max_buffer_size,
            "the grids outgrow one buffer"
        );
        // The second copy reuses the first one's staging buffers.
        for round in 0..2 {
            assert_copy_is_baked(&mut sim, &level, 40, &format!("{solver:?} {round}"));
        }
    }
}
