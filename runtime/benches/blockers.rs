//! What handing the blocking bodies to the GPU solver costs each coupled step
//! (`GpuSimulation::set_blockers`: the tiles around the covered cells found, the column blocks
//! of those that changed made and uploaded): 60 bodies of 2 × 2 to 3 × 3 cells on a 1024² map,
//! each moving a little every call, as the crates, logs and barrels of a coupled step do.
//! Prints the median and fastest microseconds per call (the GPU's copy is not waited for).
//!
//! Run with `cargo bench -p spillway --features gpu --bench blockers` (release build; on the
//! best adapter found, else lavapipe).

use std::time::{Duration, Instant};

use spillway::Grid;
use spillway::gpu::GpuSimulation;
use spillway::level::Level;
use spillway::sim::blocking::Blockers;

const CALLS: usize = 400;
const BODIES: usize = 60;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `cargo bench` passes `--bench`; under `cargo test --all-targets` it is absent: run a few.
    let quick = !std::env::args().any(|a| a == "--bench");
    let n = 1024;
    let mut level = Level::flat(n, n, 1.0, 0.0);
    level.water = Grid::filled(n, n, 1.0);
    let mut sim = GpuSimulation::headless(&level)?;
    let mut blockers = Blockers::new(n, n);
    let mut times = Vec::new();
    for call in 0..if quick { 3 } else { CALLS } {
        blockers.clear();
        for body in 0..BODIES {
            let side = 2 + body % 2;
            // A body drifts a cell every 10 calls and heaves a little every call.
            let i = 40 + (body * 97) % 900 + call / 10;
            let j = 40 + (body * 61) % 900;
            let bottom = 0.5 + 0.001 * (call % 50) as f32 + 0.01 * body as f32;
            for dj in 0..side {
                for di in 0..side {
                    let cover = if di + 1 == side { 0.5 } else { 1.0 };
                    blockers.add_column(i + di, j + dj, bottom, bottom + 1.0, cover);
                }
            }
        }
        let t = Instant::now();
        sim.set_blockers(&blockers)?;
        times.push(t.elapsed());
        // Let the GPU take the copies in, outside the timing, as the water's step would.
        sim.device().poll(wgpu::PollType::wait_indefinitely())?;
    }
    let warm: &mut [Duration] = &mut times[if quick { 0 } else { 50 }..];
    warm.sort();
    println!(
        "set_blockers, {BODIES} moving bodies, {n}²: {:.1} µs (median), {:.1} µs (fastest) on {}",
        warm[warm.len() / 2].as_secs_f64() * 1e6,
        warm[0].as_secs_f64() * 1e6,
        sim.adapter_name()
    );
    Ok(())
}
