//! What the editor's timeline costs: the Valley scene (`spillway::bench::BenchScene::Valley`,
//! the preview bench's: a reservoir released by a gate at 5 s, a river, a lower lake) run on the
//! GPU for `--seconds` of simulated time, with a keyframe (`spillway::snapshot::Snapshot` of a
//! `bake_into`) every `--every` simulated seconds, as the editor's preview keeps them. Prints
//! the keyframes' memory (compressed, and raw for comparison), what taking one costs (the
//! read-back and the compression), and what going back to one costs (decompression and a new
//! GPU simulation).
//!
//! ```text
//! cargo run --release -p spillway --example keyframes --features gpu -- \
//!     [--size 1024] [--seconds 3600] [--every 5]
//! ```
//!
//! `--every` is more than 0 s, `--seconds` 0 or more, `--size` 2 to 8192 cells a side;
//! `KEYFRAME_DUMP=DIR` writes the last keyframe's depth and faces into `DIR` as raw `f32`.

use std::error::Error;
use std::time::{Duration, Instant};

use spillway::bench::{BenchScene, scene};
use spillway::gpu::GpuSimulation;
use spillway::snapshot::Snapshot;

fn main() -> Result<(), Box<dyn Error>> {
    let (mut size, mut seconds, mut every) = (1024usize, 3600.0f64, 5.0f64);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let value = args.next().ok_or(format!("{a} needs a value"))?;
        match a.as_str() {
            "--size" => size = value.parse()?,
            "--seconds" => seconds = value.parse()?,
            "--every" => every = value.parse()?,
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    // A keyframe every 0 s never reached the end (keyframes without bound); a negative time
    // took none and the picks below underflowed.
    if !(every.is_finite() && every > 0.0) {
        return Err(format!("--every {every}: a positive number of seconds").into());
    }
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(format!("--seconds {seconds}: zero or more seconds").into());
    }
    if !(2..=8192).contains(&size) {
        return Err(format!("--size {size}: 2 to 8192 cells a side").into());
    }
    let level = scene(size, BenchScene::Valley);
    let mut sim = GpuSimulation::headless(&level)?;
    println!(
        "{} on {}: {seconds} s simulated, a keyframe every {every} s",
        level.name,
        sim.adapter_name()
    );
    let started = Instant::now();
    let mut keys: Vec<Snapshot> = Vec::new();
    let (mut capture, mut compress) = (Duration::ZERO, Duration::ZERO);
    let mut next = 0.0;
    let mut stepping = Duration::ZERO;
    while next <= seconds + 1e-9 {
        let t0 = Instant::now();
        let now = sim.stats()?.time;
        if next > now {
            sim.advance(next - now)?;
            sim.stats()?;
        }
        stepping += t0.elapsed();
        let t1 = Instant::now();
        let baked = sim.bake_into(&level)?;
        let t2 = Instant::now();
        keys.push(Snapshot::of(&baked));
        capture += t2 - t1;
        compress += t2.elapsed();
        next += every;
    }
    let n = keys.len();
    let bytes: usize = keys.iter().map(Snapshot::bytes).sum();
    let raw: usize = keys.iter().map(Snapshot::raw_bytes).sum();
    let largest = keys.iter().map(Snapshot::bytes).max().unwrap_or(0);
    let mib = |b: usize| b as f64 / (1u64 << 20) as f64;
    println!(
        "{n} keyframes: {:.1} MiB ({:.3} x raw {:.1} MiB), {:.2} MiB each on average, largest {:.2} MiB",
        mib(bytes),
        bytes as f64 / raw.max(1) as f64,
        mib(raw),
        mib(bytes) / n.max(1) as f64,
        mib(largest)
    );
    println!(
        "taking one: read-back {:.1} ms, compression {:.1} ms (mean); stepping {:.1} s in all",
        capture.as_secs_f64() * 1e3 / n.max(1) as f64,
        compress.as_secs_f64() * 1e3 / n.max(1) as f64,
        stepping.as_secs_f64()
    );
    let mut restore = Duration::ZERO;
    let picks: Vec<usize> = (0..5).map(|i| i * (n - 1) / 4).collect();
    for &k in &picks {
        let t = Instant::now();
        let start = keys[k].restore(&level)?;
        let mut again = GpuSimulation::new(&start, sim.device(), sim.queue())?;
        again.stats()?;
        restore += t.elapsed();
    }
    println!(
        "going back to one: {:.1} ms (mean of {}: decompression and a new simulation on the same device)",
        restore.as_secs_f64() * 1e3 / picks.len() as f64,
        picks.len()
    );
    if let (Ok(dir), Some(last)) = (std::env::var("KEYFRAME_DUMP"), keys.last()) {
        let state = last.restore(&level)?;
        let flow = state.flow.unwrap_or_default();
        for (name, grid) in [
            ("depth", &state.water.data),
            ("fx", &flow.flow_x),
            ("fy", &flow.flow_y),
        ] {
            let bytes: Vec<u8> = grid.iter().flat_map(|v| v.to_le_bytes()).collect();
            std::fs::write(format!("{dir}/{name}.f32"), bytes)?;
        }
    }
    println!("wall {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}
