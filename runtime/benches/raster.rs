//! What rasterising a body costs (Kellomäki 2014 §3.3; `Coverage::rasterise`): the benchmark
//! bodies (`spillway::bench::BODY_KINDS`, from `assets/`) at 1 m cells and 4 × 4 samples per
//! cell, each in many tumbling poses, as every moving body is rasterised every coupled step.
//! Prints the median microseconds per body over several runs, and a checksum of the columns
//! (the same checksum means the same coverage, bit for bit).
//!
//! Run with `cargo bench -p spillway --features bodies --bench raster` (release build).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use spillway::body::Pose;
use spillway::body::import::{ImportLimits, import_body};
use spillway::body::raster::{CellGrid, Coverage};

const POSES: usize = 400;
const RUNS: usize = 9;

fn main() {
    // `cargo bench` passes `--bench`; under `cargo test --all-targets` it is absent: run once.
    let quick = !std::env::args().any(|a| a == "--bench");
    // The working tree's assets, also when the binary runs from a copy of the tree elsewhere.
    let root = match PathBuf::from("assets") {
        here if here.join("crate.glb").is_file() => here,
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets"),
    };
    let meshes: Vec<_> = spillway::bench::BODY_KINDS
        .iter()
        .map(|(k, _)| import_body(&root, &format!("{k}.glb"), &ImportLimits::default()))
        .collect::<Result<_, _>>()
        .expect("the benchmark bodies import");
    let grid = CellGrid {
        nx: 1024,
        ny: 1024,
        cell_size: 1.0,
    };
    let mut next = spillway::bench::scatter_numbers(7);
    let poses: Vec<Pose> = (0..if quick { 10 } else { POSES })
        .map(|_| {
            let (a, b, c) = (next() * 6.3, next() * 6.3, next() * 6.3);
            let (s, t) = ((a / 2.0).sin(), (a / 2.0).cos());
            let axis = [b.cos() * c.sin(), b.sin() * c.sin(), c.cos()];
            Pose {
                translation: [300.0 + 400.0 * next(), 300.0 + 400.0 * next(), 1.0 + next()],
                rotation: [s * axis[0], s * axis[1], s * axis[2], t],
                scale: [1.0; 3],
            }
        })
        .collect();
    let mut times = Vec::new();
    let mut checksum = 0u64;
    for _ in 0..if quick { 1 } else { RUNS } {
        checksum = 0;
        let t = Instant::now();
        for pose in &poses {
            for mesh in &meshes {
                let c = Coverage::rasterise(mesh, pose, grid, 4);
                for v in c
                    .bottom
                    .iter()
                    .chain(&c.top)
                    .chain(&c.cover)
                    .chain(&c.thickness)
                {
                    checksum = checksum.rotate_left(5) ^ u64::from(v.to_bits());
                }
            }
        }
        times.push(t.elapsed());
    }
    times.sort();
    let median: Duration = times[times.len() / 2];
    let bodies = poses.len() * meshes.len();
    println!(
        "rasterise: {:.3} µs per body ({} bodies of {} kinds; checksum {checksum:016x})",
        median.as_secs_f64() * 1e6 / bodies as f64,
        bodies,
        meshes.len()
    );
    // As a coupled step does it: 200 bodies at once on the thread pool, into their coverages
    // of an earlier step.
    let mut world: Vec<(usize, Pose, Coverage)> = (0..200)
        .map(|b| {
            (
                b % meshes.len(),
                poses[b % poses.len()],
                Coverage::default(),
            )
        })
        .collect();
    let mut times = Vec::new();
    for _ in 0..if quick { 1 } else { 200 } {
        let t = Instant::now();
        world.par_iter_mut().for_each(|(k, pose, c)| {
            c.rasterise_into(&meshes[*k], pose, grid, 4);
        });
        times.push(t.elapsed());
    }
    times.sort();
    println!(
        "200 bodies on {} threads: {:.1} µs (median), {:.1} µs (fastest)",
        rayon::current_num_threads(),
        times[times.len() / 2].as_secs_f64() * 1e6,
        times[0].as_secs_f64() * 1e6
    );
}
