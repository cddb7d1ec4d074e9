//! A step that needs more CFL sub-steps than the GPU was given never runs unstable ones: it
//! runs the sub-steps it was given, each as short as the water needs, counts itself in
//! `clamped_steps`, and `catch_up` then runs the simulated time it lost, so a command-line run
//! ends at the time it asked for with the water the CPU computes.

use spillway::Grid;
use spillway::level::{Friction, Level};

use crate::support::{gpu_with, max_diff, run_cpu};

/// A 10 m deep reservoir released onto a dry flat: the speed, and so the sub-steps each step
/// needs, grow several-fold within the first steps.
fn dam_break() -> Level {
    let (nx, ny) = (120, 8);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.water = Grid::from_fn(nx, ny, |i, _| if i < 30 { 10.0 } else { 0.0 });
    level.params.friction = Friction::NONE;
    level.params.dt = 0.1;
    level
}

#[test]
fn clamped_steps_stay_stable_are_reported_and_caught_up() {
    let level = dam_break();
    let dt = level.params.dt;
    // No spare sub-steps and no read-back in between: the GPU plans from the still water.
    let mut sim = gpu_with(&level, 0);
    sim.step_n(40, dt).unwrap();
    let before = sim.stats().unwrap();
    let clamped = sim.status().clamped_steps;
    println!(
        "after 40 steps of {dt} s: {clamped} clamped, simulated {:.3} s, balance {:.1e}",
        before.time, before.balance_error
    );
    assert!(clamped > 0, "the scene must outgrow the recorded sub-steps");
    assert!(
        before.time < 40.0 * dt as f64 - 0.5 * dt as f64,
        "clamped steps ran short"
    );
    let depth = sim.read_depth().unwrap();
    assert!(
        depth
            .iter()
            .all(|d| d.is_finite() && *d >= 0.0 && *d <= 10.0)
    );
    assert!(before.balance_error.abs() < 1e-6);

    let added = sim.catch_up(dt).unwrap();
    let after = sim.stats().unwrap();
    println!(
        "catch_up added {added} steps: simulated {:.3} s",
        after.time
    );
    assert!(added > 0);
    assert!((after.time - 40.0 * dt as f64).abs() < 0.5 * dt as f64);
    // Caught up, the water is where the CPU's (which sub-steps as it needs) is, but for the
    // different sub-step lengths the clamped steps took.
    let cpu = run_cpu(&level, 40);
    let (diff, _) = max_diff(cpu.depth(), &sim.read_depth().unwrap());
    println!("max |Δdepth| against the CPU: {diff:.3} m");
    assert!(diff < 0.5, "{diff}");
    let v_cpu = cpu.volume();
    assert!((after.volume - v_cpu).abs() < 1e-4 * v_cpu);
}

#[test]
fn an_interactive_run_catches_up_without_waiting() {
    // As the editor's preview runs: each frame asks for the stats of the steps submitted so
    // far, records its steps, collects whatever read-back has arrived (never waiting) and
    // records the lost time it found again, within the frame.
    let level = dam_break();
    let dt = level.params.dt;
    let mut sim = gpu_with(&level, 0);
    let queue = sim.queue().clone();
    let (mut caught_up, mut most_lost) = (0, 0.0f64);
    for frame in 0..60 {
        sim.request_stats();
        let steps = if frame < 4 { 10 } else { 0 };
        let mut commands = sim.encode_steps(steps, dt).unwrap();
        // Let the read-back arrive (a frame later in the editor; here at once).
        std::thread::sleep(std::time::Duration::from_millis(2));
        let _ = sim.poll_stats();
        most_lost = most_lost.max(sim.lost_time());
        let (more, n) = sim.encode_catch_up(dt, 4000).unwrap();
        commands.extend(more);
        caught_up += n;
        queue.submit(commands);
    }
    let clamped = sim.status().clamped_steps;
    let water = sim.stats().unwrap().time;
    println!(
        "{clamped} clamped steps; at most {most_lost:.3} s lost; {caught_up} steps run again; \
         clock {:.3} s, water {water:.3} s",
        sim.clock()
    );
    assert!(clamped > 0 && most_lost > dt as f64 && caught_up > 0);
    assert!((sim.clock() - 40.0 * dt as f64).abs() < 1e-6);
    assert!(
        (water - sim.clock()).abs() < 0.5 * dt as f64,
        "the water's time {water} s keeps up with the clock {} s",
        sim.clock()
    );
}

#[test]
fn a_gpu_run_goes_on_once_what_blew_it_up_is_mended() {
    // Ground no level means (in memory, past the loader's checks) blows the water up. The
    // failed sub-step left its non-finite residues in the carry and its infinite depth in the
    // figures the next plan reads: mended and let go, the water blew up again at once, or
    // the plan ran away for good.
    let mut level = Level::flat(16, 16, 1.0, 0.0);
    level.water = Grid::filled(16, 16, 1.0);
    level.terrain.set(8, 8, 3e38);
    level.terrain.set(9, 8, -3e38);
    let dt = 0.01;
    let mut sim = gpu_with(&level, 2);
    sim.step_n(2, dt).unwrap();
    let _ = sim.stats().unwrap();
    let halted = sim.status().halted;
    println!("{halted:?}");
    assert!(halted.is_some(), "the cliff blows the water up");
    sim.update_terrain_region(8, 8, 2, 1, &[0.0, 0.0]).unwrap();
    sim.clear_halt();
    sim.step_n(20, dt).unwrap();
    let stats = sim.stats().unwrap();
    assert_eq!(sim.status().halted, None);
    assert!(stats.time > 0.15, "the water ran on: {} s", stats.time);
    let depth = sim.read_depth().unwrap();
    assert!(
        depth
            .iter()
            .all(|d| d.is_finite() && (0.0..2.0).contains(d))
    );
}

/// The dam break run 40 steps on a GPU recording no spare sub-steps, so clamped steps leave
/// the water behind the clock; with the water's own time.
fn lagging() -> (spillway::gpu::GpuSimulation, f64) {
    let level = dam_break();
    let dt = level.params.dt;
    let mut sim = gpu_with(&level, 0);
    sim.step_n(40, dt).unwrap();
    let water = sim.stats().unwrap().time;
    assert!(
        water < sim.clock() - 0.5 * dt as f64,
        "the water lags the clock"
    );
    (sim, water)
}

#[test]
fn a_state_copy_after_clamped_steps_holds_the_waters_own_time() {
    // A keyframe taken while clamped steps left the water behind the clock was stamped with
    // the clock: restored, its water ran on from a time later than it was.
    let (mut sim, water) = lagging();
    assert!(sim.request_state().unwrap());
    let state = sim
        .poll_state(true)
        .expect("asked")
        .unwrap()
        .read()
        .unwrap();
    println!(
        "clock {:.3} s, water {water:.3} s, copy {:.3} s",
        sim.clock(),
        state.flow.time
    );
    assert!(
        (state.flow.time - water).abs() < 1e-6,
        "{} against {water}",
        state.flow.time
    );
}

#[test]
fn gauges_read_after_clamped_steps_carry_the_waters_own_time() {
    // The editor stamped GPU readings with the clock: ahead of the water they read.
    let (sim, water) = lagging();
    let stage = spillway::level::GaugeKind::Stage { x: 10.0, y: 2.0 };
    let (time, readings) = sim.read_gauges_timed(&[stage]).unwrap();
    println!(
        "clock {:.3} s, water {water:.3} s, gauges {time:.3} s",
        sim.clock()
    );
    assert!((time - water).abs() < 1e-6, "{time} against {water}");
    assert_eq!(readings, sim.read_gauges(&[stage]).unwrap());
}
