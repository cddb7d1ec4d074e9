//! Level loading speed and file size: a baked 2048 × 2048 level (the benchmark pipe scene of
//! `spillway::bench`, run 200 steps on the CPU solver and baked, so its water and flow state
//! are real) saved to a temporary folder, compressed (the default) and raw; prints the bytes on
//! disk against the raw bytes of its grids, and the median load time of several runs of each.
//!
//! Run with `cargo bench -p spillway --bench load` (release build). Targets: compressed at most
//! 0.6 × the raw grids, loading in under 100 ms on 2 cores.

use std::time::{Duration, Instant};

use spillway::bench::{BenchScene, scene};
use spillway::level::Level;
use spillway::level::file::{GridStorage, load, save_with};

const SIDE: usize = 2048;
const RUNS: usize = 11;

/// The shared pipe scene run `steps` steps on the CPU and baked (a quick run under
/// `cargo test`).
fn level(steps: usize) -> Level {
    let level = scene(SIDE, BenchScene::PEERS);
    let mut sim = spillway::Simulation::new(&level).expect("a valid scene");
    for _ in 0..steps {
        sim.step(level.params.dt).expect("a step");
    }
    sim.bake_into(&level)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; under `cargo test --all-targets` it is absent: run once.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { RUNS };

    let level = level(if quick { 2 } else { 200 });
    let raw_bytes = {
        let f = level.flow.as_ref();
        let flows = f.map_or(0, |f| {
            f.flow_x.len() + f.flow_y.len() + f.carry.len() + f.aux_x.len() + f.aux_y.len()
        });
        4 * (level.terrain.data.len() + level.water.data.len() + flows) as u64
    };
    for storage in [GridStorage::Compressed, GridStorage::Raw] {
        measure(&level, storage, raw_bytes, runs);
    }
}

/// Saves `level` stored as `storage`, checks it loads unchanged, and prints its size and the
/// median of `runs` loads.
fn measure(level: &Level, storage: GridStorage, raw_bytes: u64, runs: usize) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("bench.ron");

    let start = Instant::now();
    save_with(level, &path, storage, &mut |_| true).expect("save");
    let save_time = start.elapsed();
    let bytes: u64 = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").metadata().expect("metadata").len())
        .sum();

    let loaded = load(&path).expect("load");
    assert!(&loaded == level, "round trip changed the level");
    drop(loaded);

    let times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let level = load(&path).expect("load");
            let elapsed = start.elapsed();
            drop(level);
            elapsed
        })
        .collect();
    let min = times.iter().min().copied().unwrap_or_default();
    println!(
        "{storage:?}: baked {SIDE}x{SIDE} (terrain, water, flow): {:.1} MiB on disk, {:.3} x the \
         raw grids ({:.1} MiB); load median {:.1} ms, min {:.1} ms over {runs} runs; save {:.1} ms",
        bytes as f64 / (1 << 20) as f64,
        bytes as f64 / raw_bytes as f64,
        raw_bytes as f64 / (1 << 20) as f64,
        median(times).as_secs_f64() * 1e3,
        min.as_secs_f64() * 1e3,
        save_time.as_secs_f64() * 1e3,
    );
}
