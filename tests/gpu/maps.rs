//! The maps of a run (max depth, max speed, arrival time, hazard) kept on the GPU agree with the
//! CPU's on a dam break through a gate that opens at 0.5 s.

use spillway::Simulation;
use spillway::gpu::GpuSimulation;
use spillway::sim::maps::{NEVER, RunMaps};
use spillway_tests::gated_reservoir;

/// Largest difference of two maps.
fn worst(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn the_gpu_keeps_the_maps_of_a_dam_break_as_the_cpu_does() {
    maps_agree(0.0);
}

#[test]
fn a_level_saved_later_in_its_run_keeps_its_arrival_times_on_both() {
    // The GPU stamped arrivals with its own clock, from 0 at every start: a level saved at
    // 40 s read 0 s where the CPU read 40 s.
    maps_agree(40.0);
}

/// The dam break through a gate opening 0.5 s after `start`, from a state saved at `start`.
fn maps_agree(start: f64) {
    let mut level = gated_reservoir(Some(start as f32 + 0.5));
    if start > 0.0 {
        level = Simulation::new(&level).expect("a level").bake_into(&level);
        level.flow.as_mut().expect("a flow state").time = start;
    }
    let steps = 250; // 5 s of 0.02 s
    let mut cpu = Simulation::new(&level).expect("a valid level");
    cpu.record_maps();
    for _ in 0..steps {
        cpu.step(level.params.dt).expect("a step");
    }
    let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
    gpu.record_maps().expect("maps");
    gpu.step_n(steps, level.params.dt).expect("steps");
    let g: RunMaps = gpu.read_maps().expect("read").expect("kept");
    let c = cpu.maps().expect("kept");
    let dd = worst(&g.max_depth, &c.max_depth);
    let ds = worst(&g.max_speed, &c.max_speed);
    let dh = worst(&g.hazard, &c.hazard);
    let reached = |m: &RunMaps| m.arrival.iter().filter(|&&t| t != NEVER).count();
    // Arrival: the same cells, at the same step (within one step of 0.02 s).
    let da = g
        .arrival
        .iter()
        .zip(&c.arrival)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0f32, f32::max);
    println!(
        "max depth {dd:.2e} m, max speed {ds:.2e} m/s, hazard {dh:.2e} m²/s, arrival {da:.3} s; \
         reached {} / {} cells",
        reached(&g),
        reached(c)
    );
    assert!(dd <= 1e-3, "max depth differs by {dd}");
    assert!(ds <= 1e-2, "max speed differs by {ds}");
    assert!(dh <= 1e-2, "hazard differs by {dh}");
    assert!(da <= 0.021, "arrival differs by {da} s");
    // The flood went through the gate: cells beyond it were reached after it opened, the far
    // end later than near the gate; the reservoir's cells were wet from the start.
    let (nx, at) = (level.nx(), |x: usize| c.arrival[10 * 60 + x] - start as f32);
    assert_eq!(at(5), 0.0, "wet from the start");
    assert!(at(25) >= 0.48 && at(25) < at(30), "{} {}", at(25), at(30));
    assert!(c.max_depth[10 * nx + 10] >= 1.9);
}

/// The fused flow pass folds the maps in at each step's last sub-step (where the device grants
/// the bindings) and the maps pass after the steps it did not fold: the same maps either way,
/// with one sub-step a step and with several.
#[test]
fn the_fused_pass_folds_the_maps_as_the_maps_pass_does() {
    use spillway::gpu::Fusion;
    for dt in [0.02, 0.15] {
        let mut level = gated_reservoir(Some(0.5));
        level.params.dt = dt;
        let steps = (4.0 / dt) as usize;
        let run = |fusion: Fusion| {
            let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
            gpu.set_fusion(fusion);
            gpu.record_maps().expect("maps");
            // Batches of uneven length: each batch ends with its state folded in.
            for n in [1, steps / 3, steps - steps / 3 - 1] {
                gpu.step_n(n, dt).expect("steps");
            }
            let substeps = gpu.stats().expect("stats").substeps;
            (gpu.read_maps().expect("read").expect("kept"), substeps)
        };
        let ((fused, fs), (apart, sa)) = (run(Fusion::Always), run(Fusion::Never));
        let mut cpu = Simulation::new(&level).expect("a valid level");
        cpu.record_maps();
        for _ in 0..steps {
            cpu.step(dt).expect("a step");
        }
        let c = cpu.maps().expect("kept");
        let c_substeps = cpu.stats().substeps;
        let pairs = [
            (
                "max depth",
                &fused.max_depth,
                &apart.max_depth,
                &c.max_depth,
            ),
            (
                "max speed",
                &fused.max_speed,
                &apart.max_speed,
                &c.max_speed,
            ),
            ("arrival", &fused.arrival, &apart.arrival, &c.arrival),
            ("hazard", &fused.hazard, &apart.hazard, &c.hazard),
        ];
        for (name, f, a, c) in pairs {
            let (apart, cpu) = (worst(f, a), worst(f, c));
            println!(
                "dt {dt}: {name}: fused against the maps pass {apart:.2e}, against the CPU \
                 {cpu:.2e}; sub-steps {fs}/{sa}/{}",
                c_substeps
            );
            assert!(apart <= 1e-5, "dt {dt}: {name} differs by {apart}");
        }
        assert_eq!(fs, sa, "dt {dt}: sub-steps");
        assert_eq!(fs, c_substeps, "dt {dt}: sub-steps against the CPU");
        assert!(fs > steps as u64 || dt < 0.1, "dt {dt}: {fs} sub-steps");
        let reached = |m: &RunMaps| m.arrival.iter().filter(|&&t| t != NEVER).count();
        assert_eq!(reached(&fused), reached(&apart), "dt {dt}: cells reached");
        assert!(
            reached(&fused) > level.nx() * 10,
            "dt {dt}: the flood went through"
        );
    }
}

/// With a stride of 2 (the editor's preview) the fused pass folds every other step and the
/// last of each call: the maps are those of every step but for peaks and arrivals between
/// folds, and the state a call leaves is always in them.
#[test]
fn a_stride_of_two_folds_every_other_step_and_the_last() {
    use spillway::gpu::Fusion;
    let level = gated_reservoir(Some(0.5));
    let dt = level.params.dt;
    let run = |stride: usize| {
        let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
        gpu.set_fusion(Fusion::Always);
        gpu.record_maps().expect("maps");
        gpu.set_maps_stride(stride);
        // Calls of odd and even length: each ends with its state folded in.
        for n in [1, 2, 77, 91, 80] {
            gpu.step_n(n, dt).expect("steps");
        }
        let depth = gpu.read_depth().expect("depth");
        (gpu.read_maps().expect("read").expect("kept"), depth)
    };
    let ((every, _), (other, depth)) = (run(1), run(2));
    let below = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| *x <= *y + 1e-6);
    assert!(below(&other.max_depth, &every.max_depth), "max depth");
    assert!(below(&other.max_speed, &every.max_speed), "max speed");
    assert!(below(&other.hazard, &every.hazard), "hazard");
    // The last state is in the maps.
    let last = depth
        .iter()
        .zip(&other.max_depth)
        .filter(|(d, m)| **d > **m + 1e-6)
        .count();
    assert_eq!(last, 0, "cells deeper now than their max depth");
    // Arrivals: the same or up to one step later; about half of them later (the fronts
    // arrive at skipped steps as often as at folded ones).
    let (mut both, mut later, mut lost, mut worst_late) = (0, 0, 0, 0.0f32);
    for (a, b) in every.arrival.iter().zip(&other.arrival) {
        match (*a == NEVER, *b == NEVER) {
            (false, false) => {
                both += 1;
                let late = b - a;
                assert!(late >= -1e-4, "an arrival {late} s early");
                worst_late = worst_late.max(late);
                later += (late > 1e-4) as usize;
            }
            (false, true) => lost += 1,
            (true, false) => panic!("arrived only with the stride"),
            (true, true) => {}
        }
    }
    let (dd, ds) = (
        worst(&every.max_depth, &other.max_depth),
        worst(&every.max_speed, &other.max_speed),
    );
    println!(
        "{both} cells reached both ways, {later} of them a step later, {lost} only folding every \
         step; latest by {worst_late:.3} s; max depth within {dd:.2e} m, max speed {ds:.2e} m/s"
    );
    assert!(both > level.nx() * 10, "the flood spread: {both}");
    assert!(worst_late <= dt + 1e-4, "late by {worst_late} s");
    assert!(
        later * 10 > both,
        "every other step folded: {later} of {both} later"
    );
    assert!(lost * 100 <= both, "{lost} cells lost");
}
