//! Coupled steps on several threads at once: the editor bakes beside its live preview, and the
//! tests run side by side, on machines with as few as two cores. Rapier's step waits for work
//! it hands to a thread pool; on a pool with no free worker that wait never ended.

use std::sync::mpsc;
use std::time::Duration;

use spillway::Simulation;
use spillway::body::world::BodyWorld;

use super::{crowd, crowded_river_level};

/// 200 falling and drifting bodies over the crowded river, stepped `steps` times.
fn crowded_steps(steps: usize) -> f64 {
    let mut sim = Simulation::new(&crowded_river_level()).unwrap();
    let mut world = BodyWorld::new(&sim);
    crowd(&mut world);
    let dt = sim.params().dt;
    for _ in 0..steps {
        world.step(&mut sim, dt).expect("stable");
    }
    sim.stats().balance_error
}

#[test]
fn two_worlds_step_at_once_on_a_two_thread_pool_without_waiting_on_each_other() {
    let (done, finished) = mpsc::channel();
    // Two worlds at a time on a pool of two workers, then on two plain threads.
    std::thread::spawn(move || {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let inside = pool.install(|| rayon::join(|| crowded_steps(400), || crowded_steps(400)));
        // Two plain threads (as the tests run): on a 2-core machine rayon's global pool has
        // two workers.
        let outside = std::thread::scope(|s| {
            let a = s.spawn(|| crowded_steps(400));
            let b = s.spawn(|| crowded_steps(400));
            (a.join().unwrap(), b.join().unwrap())
        });
        let _ = done.send([inside.0, inside.1, outside.0, outside.1]);
    });
    let balance = finished
        .recv_timeout(Duration::from_secs(120))
        .expect("four worlds of 400 coupled steps finish within 2 minutes (they deadlocked)");
    for b in balance {
        assert!(b.abs() < 1e-5, "balance {b}");
    }
}
