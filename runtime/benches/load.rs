//! Level loading speed: saves a 2048 × 2048 level with terrain, water and flow state (the
//! benchmark pipe scene of `spillway::bench` with a flow state added) to a temporary folder,
//! then times `level::file::load` and prints the median of several runs.
//!
//! Run with `cargo bench -p spillway --bench load` (release build). Target: under 250 ms.

use std::time::{Duration, Instant};

use spillway::bench::{BenchScene, scene};
use spillway::level::file::{load, save};
use spillway::level::{FlowState, Level, SolverKind};

const SIDE: usize = 2048;
const RUNS: usize = 11;

/// The shared pipe scene (terrain and water) with a flow state on top.
fn level() -> Level {
    let n = SIDE;
    let mut level = scene(n, BenchScene::PEERS);
    level.flow = Some(FlowState {
        solver: SolverKind::Pipes,
        flow_x: (0..(n + 1) * n).map(|i| (i % 1013) as f32 * 1e-3).collect(),
        flow_y: (0..n * (n + 1))
            .map(|i| -((i % 997) as f32) * 1e-3)
            .collect(),
        ghost: Vec::new(),
        time: 60.0,
        ..Default::default()
    });
    level
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; under `cargo test --all-targets` it is absent: run once.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { RUNS };

    let level = level();
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("bench.ron");

    let start = Instant::now();
    save(&level, &path).expect("save");
    let save_time = start.elapsed();
    let bytes: u64 = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").metadata().expect("metadata").len())
        .sum();

    let loaded = load(&path).expect("load");
    assert!(loaded == level, "round trip changed the level");
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
        "load {SIDE}x{SIDE} (terrain, water, flow; {:.1} MiB on disk): median {:.1} ms, min {:.1} ms over {runs} runs; save {:.1} ms",
        bytes as f64 / (1 << 20) as f64,
        median(times).as_secs_f64() * 1e3,
        min.as_secs_f64() * 1e3,
        save_time.as_secs_f64() * 1e3,
    );
}
