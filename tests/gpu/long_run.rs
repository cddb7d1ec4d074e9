//! Long runs on the GPU: every sample project but the 1024² `river_valley` runs 10⁵ steps on the GPU solver with no NaN and
//! no negative depth (the whole depth grid read back every 5000 steps) and a volume balance
//! error below 1e-5 relative at every read-back (every 500 steps). On lavapipe (CI) the runs are
//! cut to 1000 steps; the 10⁵-step runs are made on a real GPU, see [`steps`]. The samples with blocking bodies run with the
//! bodies' blockers at their authored poses (the coupled CPU long runs are in the samples tests).

use std::path::{Path, PathBuf};
use std::time::Instant;

use spillway::body::import::{ImportLimits, import_body};
use spillway::body::raster::{CellGrid, Coverage};
use spillway::body::{Pose, blocks_water};
use spillway::level::file;
use spillway::sim::blocking::Blockers;
use spillway::{Level, gpu::GpuSimulation};

/// Steps of a long run on `adapter`: 10⁵ on a real GPU, 1000 on lavapipe (a software adapter
/// takes ~8 ms a step on two cores, so 10⁵ steps would take a quarter of an hour per sample).
/// `SPILLWAY_GPU_LONG_STEPS` overrides both (rounded up to a multiple of [`CHUNK`]).
fn steps(adapter: &str) -> usize {
    let software = adapter.contains("llvmpipe") || adapter.contains("lavapipe");
    std::env::var("SPILLWAY_GPU_LONG_STEPS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .map_or(if software { 1_000 } else { 100_000 }, |n| {
            n.div_ceil(CHUNK).max(1) * CHUNK
        })
}

const CHECK_EVERY: usize = 5_000;

/// Long runs go in chunks this long between stats read-backs (so the recorded sub-step count
/// follows the flow).
const CHUNK: usize = 500;

/// The blockers of `level`'s blocking bodies at their authored poses, files from `dir`.
fn authored_blockers(level: &Level, dir: &Path) -> Option<Blockers> {
    let grid = CellGrid {
        nx: level.nx(),
        ny: level.ny(),
        cell_size: level.cell_size,
    };
    let mut blockers = Blockers::new(level.nx(), level.ny());
    for body in level.bodies.iter().filter(|b| blocks_water(b)) {
        let mesh = import_body(dir, &body.gltf, &ImportLimits::default())
            .unwrap_or_else(|e| panic!("{}: {e}", level.name));
        Coverage::rasterise(&mesh, &Pose::of(body), grid, 4).add_to(&mut blockers);
    }
    (!blockers.is_empty()).then_some(blockers)
}

fn long_run(name: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../projects/{name}"));
    let level = file::load(&dir.join("level.ron"))
        .unwrap_or_else(|e| panic!("sample {name} does not load: {e}"));
    let mut sim = GpuSimulation::headless(&level)
        .expect("a GPU adapter (install mesa-vulkan-drivers for lavapipe)");
    let blocked = match authored_blockers(&level, &dir) {
        Some(b) => {
            sim.set_blockers(&b)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            b.covered_cells()
        }
        None => 0,
    };
    let dt = level.params.dt;
    let t0 = Instant::now();
    let mut worst = 0.0f64;
    let mut done = 0;
    let steps = steps(sim.adapter_name());
    while done < steps {
        sim.step_n(CHUNK, dt)
            .unwrap_or_else(|e| panic!("{name}: steps {done}..: {e}"));
        done += CHUNK;
        let stats = sim
            .stats()
            .unwrap_or_else(|e| panic!("{name}: after {done} steps: {e}"));
        worst = worst.max(stats.balance_error.abs());
        assert!(
            stats.balance_error.abs() < 1e-5,
            "{name}: after {done} steps the balance error is {:e} ({stats:?})",
            stats.balance_error
        );
        if done % CHECK_EVERY == 0 || done == steps {
            let depth = sim.read_depth().expect("depth read-back");
            if let Some(c) = depth.iter().position(|d| !(d.is_finite() && *d >= 0.0)) {
                panic!(
                    "{name}: after {done} steps depth {} at cell {c} is not a finite number ≥ 0",
                    depth[c]
                );
            }
        }
    }
    let status = sim.status();
    assert!(status.halted.is_none(), "{name}: {:?}", status.halted);
    let stats = sim.stats().expect("stats");
    assert_eq!(stats.steps as usize, steps, "{name}: steps run");
    println!(
        "{name} on {}: {steps} GPU steps ({} sub-steps, {:.0} s simulated, {blocked} blocked cells) \
         in {:.1} s; worst balance error {worst:.2e}, final {:.2e}, volume {:.1} m³ (in {:.1}, out {:.1})",
        sim.adapter_name(),
        stats.substeps,
        stats.time,
        t0.elapsed().as_secs_f64(),
        stats.balance_error,
        stats.volume,
        stats.inflow,
        stats.outflow,
    );
}

#[test]
fn dam_break_valley_runs_100k_gpu_steps() {
    long_run("dam_break_valley");
}

#[test]
fn river_gorge_runs_100k_gpu_steps() {
    long_run("river_gorge");
}

#[test]
fn flooding_island_runs_100k_gpu_steps() {
    long_run("flooding_island");
}

#[test]
fn crate_dam_runs_100k_gpu_steps() {
    long_run("crate_dam");
}

#[test]
fn dam_knockdown_runs_100k_gpu_steps() {
    long_run("dam_knockdown");
}

#[test]
fn breach_dam_runs_100k_gpu_steps() {
    long_run("breach_dam");
}

#[test]
fn eroded_valley_runs_100k_gpu_steps() {
    long_run("eroded_valley");
}
