//! Tests of the bake (`bake.rs`): the end estimate, settling, and stopping.

use super::*;

fn points(rates: &[f32]) -> Vec<BakePoint> {
    rates
        .iter()
        .enumerate()
        .map(|(i, &rate)| BakePoint {
            seconds: (i + 1) as f64,
            rate,
            wall: (i + 1) as f64 * 0.5,
        })
        .collect()
}

#[test]
fn progress_never_goes_back_on_a_noisy_rate() {
    let p = points(&[1.0, 1e-1, 1e-2, 2e-2, 5e-3, 1e-2]);
    let shown: Vec<f32> = (1..=p.len())
        .map(|n| progress(&p[..n], BakeSettings::default()))
        .collect();
    assert!(shown.windows(2).all(|w| w[1] >= w[0]), "{shown:?}");
    assert!((shown[2] - 2.0 / 3.0).abs() < 1e-6, "{shown:?}");
}

#[test]
fn the_estimate_follows_a_falling_rate_to_the_tolerance() {
    // The rate falls tenfold per simulated second: 1e-3 is 2 s past 1e-1; at 0.5 s of
    // wall time per simulated second, 1 s left.
    let p = points(&[10.0, 1.0, 1e-1]);
    let left = estimate_left(&p, BakeSettings::default()).unwrap();
    assert!((left - 1.0).abs() < 1e-6, "{left}");
}

#[test]
fn a_quiet_second_in_a_noisy_fall_is_not_taken_for_the_end() {
    // The rate's trend falls a decade per 40 simulated seconds, 1e-2 at 40 s: 1e-3 is
    // 40 s (20 s of wall time) away. Around the trend it jumps ×2 and ×½, and the last
    // second happens to be ten times quieter than the trend.
    let noise = [1.0, 2.0, 0.5, 1.0, 0.5, 2.0];
    let rates: Vec<f32> = (1..=40)
        .map(|t| {
            let trend = 10f32.powf(-1.0 - t as f32 / 40.0);
            trend * if t == 40 { 0.1 } else { noise[t % noise.len()] }
        })
        .collect();
    let left = estimate_left(&points(&rates), BakeSettings::default()).unwrap();
    assert!((left - 20.0).abs() < 0.3 * 20.0, "{left} s left for 20 s");
}

#[test]
fn a_rate_that_does_not_fall_runs_to_the_time_limit() {
    let p = points(&[1.0, 1.0, 1.0]);
    let settings = BakeSettings {
        max_seconds: 13.0,
        ..BakeSettings::default()
    };
    let left = estimate_left(&p, settings).unwrap();
    assert!((left - 5.0).abs() < 1e-6, "{left}");
}

#[test]
fn a_stop_is_heeded_within_a_few_steps() {
    // The flag was read once a simulated second: 50 steps here, minutes on a large level
    // on the CPU.
    let mut level = Level::flat(16, 16, 1.0, 0.0);
    level.water = spillway::Grid::from_fn(16, 16, |x, _| if x < 8 { 1.0 } else { 0.0 });
    level.params.dt = 0.02;
    let mut sim = Simulation::new(&level).unwrap();
    let asked = std::cell::Cell::new(0);
    let stop = || {
        asked.set(asked.get() + 1);
        true
    };
    let outcome = settle_until(
        &mut sim,
        1e-9,
        100.0,
        |_, _| ControlFlow::Continue(()),
        &stop,
    )
    .unwrap();
    assert!(outcome.cancelled && !outcome.steady);
    assert_eq!(asked.get(), 1);
    assert!(
        outcome.seconds <= STOP_EVERY as f64 * 0.02 + 1e-9,
        "{}",
        outcome.seconds
    );
}

#[test]
fn a_still_level_settles_at_once() {
    let level = Level::flat(16, 16, 1.0, 0.0);
    let mut sim = Simulation::new(&level).unwrap();
    let outcome = settle(&mut sim, 1e-3, 10.0, |_, _| ControlFlow::Continue(())).unwrap();
    assert!(outcome.steady && !outcome.cancelled);
    assert!((outcome.seconds - 1.0).abs() < 1e-6, "{outcome:?}");
}

/// Polls `job` until it ends (a minute at most).
fn end_of(job: &mut BakeJob) -> BakeEnd {
    for _ in 0..6000 {
        if let Some(end) = job.poll() {
            return end;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the bake never ended");
}

#[test]
fn the_solver_is_readied_on_the_bakes_thread() {
    // A body whose file is missing ends the bake as failed, told through its reports (the
    // solver and the bodies were readied on the UI thread, holding the window).
    let dir = tempfile::tempdir().expect("temp dir");
    let mut level = Level::flat(8, 8, 1.0, 0.0);
    level.bodies.push(crate::document::bodies::test_body(
        "Crate",
        "missing.glb",
        [4.0, 4.0, 0.5],
    ));
    let settings = BakeSettings {
        tolerance: 1e-3,
        max_seconds: 5.0,
    };
    let mut job =
        BakeJob::start(level.clone(), dir.path().into(), settings, None).expect("a thread");
    assert!(matches!(end_of(&mut job), BakeEnd::Failed(_)));
    // Without it the bake runs, and says where once its solver is ready.
    level.bodies.clear();
    let mut job = BakeJob::start(level, dir.path().into(), settings, None).expect("a thread");
    assert!(matches!(end_of(&mut job), BakeEnd::Finished(..)));
    assert_eq!(job.backend, "CPU");
}

#[test]
fn the_bodies_physics_takes_no_more_workers_than_the_runs_pool() {
    // `spillway bake --threads 1` ran the bodies' physics on up to 8 more workers.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    let mut level = Level::flat(8, 8, 1.0, 0.0);
    let body = crate::document::bodies::test_body("Crate", "crate.glb", [4.0, 4.0, 0.5]);
    level.bodies.push(body);
    for (pool, want) in [(1, 2), (3, 3), (16, 8)] {
        let threads = rayon::ThreadPoolBuilder::new().num_threads(pool).build();
        let coupled = threads.expect("a pool").install(|| {
            let sim = spillway::Simulation::new(&level).expect("a level");
            Coupled::new(sim, &level, &root, true).expect("the crate")
        });
        let world = coupled.world.expect("a world");
        assert_eq!(world.physics_threads(), want, "in a pool of {pool}");
    }
}

#[test]
fn the_bodies_stand_on_the_ground_as_the_water_runs_over_it() {
    // A crate on a gate's crest stayed up in the air through `spillway sim` and `bake` once the
    // gate opened (the bodies kept the ground the run began on).
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    let body = crate::document::bodies::test_body("Crate", "crate.glb", [10.0, 3.0, 3.6]);
    let level = spillway_tests::crate_on_a_gate(body);
    let sim = spillway::Simulation::new(&level).expect("a level");
    let mut coupled = Coupled::new(sim, &level, &root, true).expect("the crate");
    // Three seconds handed over at once, as `spillway sim` and the GPU's bake do (the ground
    // was looked at once a call: here only after the three seconds).
    let steps = (3.0 / level.params.dt).round() as u64;
    coupled.run_steps(steps).expect("steps");
    let world = coupled.world.as_ref().expect("a world");
    let z = world
        .pose(world.ids()[0])
        .expect("in the world")
        .translation[2];
    assert!(z < 1.0, "the crate at {z} m");
}
