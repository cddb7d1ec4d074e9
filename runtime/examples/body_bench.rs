//! What the rigid-body coupling costs per step: N bodies (crates, logs, barrels, boulders)
//! dropped on a lake of `size`² cells of 1 m (`spillway::bench::BenchScene::Lake`), coupled
//! with the water through `BodyWorld`, one step per 60 Hz frame of simulated time (`dt` =
//! 1/60 s; `--scene` puts them on the hills or the valley instead). For each N it prints the time of a coupled step (bodies rasterised, blockers set,
//! the water under them gathered back, forces, floaters' displacement, the water step, rapier)
//! next to a water-only step.
//!
//! ```text
//! cargo run --release -p spillway --example body_bench --features gpu,rapier -- \
//!     [--backend gpu|cpu] [--size 1024] [--bodies 0,50,200] [--steps 300] [--sync] \
//!     [--physics-threads N] [--stride N] [--scene lake|hills|valley]
//! ```
//!
//! `--sync` turns the read-ahead of the water under the bodies off (`BodyWorld::read_ahead`):
//! each step then waits for the GPU's copy. `--physics-threads` sets the workers of the pool
//! rapier steps on (`BodyWorld::set_physics_threads`; by default the cores, from 2 to 8). `--stride N` times
//! the preview's coarser body steps at fast-forward (`BodyWorld::step_coarse`): N water steps of
//! 1/60 s under one rigid-body step of N/60 s; the coupled figures are then per body step.
//! `ground_ms` is the time `BodyWorld::new` took (mostly the ground's tiles) and
//! `ground_triangles` how many triangles the ground kept.

use std::error::Error;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use spillway::Simulation;
use spillway::bench::{BenchScene, scene};
use spillway::body::import::{ImportLimits, import_body};
use spillway::body::solver::WaterSolver;
use spillway::body::world::{BodyWorld, StepTimes};
use spillway::gpu::GpuSimulation;
use spillway::level::{Body, Coupling};

/// One simulated 60 Hz frame, seconds.
const DT: f32 = 1.0 / 60.0;

struct Options {
    gpu: bool,
    size: usize,
    bodies: Vec<usize>,
    steps: usize,
    sync: bool,
    threads: Option<usize>,
    stride: usize,
    scene: BenchScene,
}

fn options() -> Result<Options, Box<dyn Error>> {
    let mut o = Options {
        gpu: true,
        size: 1024,
        bodies: vec![0, 50, 200],
        steps: 300,
        sync: false,
        threads: None,
        stride: 1,
        scene: BenchScene::Lake,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--backend" => o.gpu = value()? == "gpu",
            "--size" => o.size = value()?.parse()?,
            "--bodies" => {
                o.bodies = value()?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?
            }
            "--steps" => o.steps = value()?.parse()?,
            "--sync" => o.sync = true,
            "--physics-threads" => o.threads = Some(value()?.parse()?),
            "--stride" => o.stride = value()?.parse::<usize>()?.max(1),
            "--scene" => {
                o.scene = match value()?.as_str() {
                    "lake" => BenchScene::Lake,
                    "hills" => BenchScene::Hills,
                    "valley" => BenchScene::Valley,
                    other => return Err(format!("unknown scene {other}").into()),
                }
            }
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    Ok(o)
}

/// Adds `count` bodies in a fixed scatter over the middle of the map, 1.5 to 2.5 m up (over
/// the ground of `lift`, the hills' or the valley's; the lake's bed is taken as 0).
fn scatter(
    world: &mut BodyWorld,
    n: usize,
    count: usize,
    lift: Option<&spillway::Grid>,
) -> Result<(), Box<dyn Error>> {
    // The working tree's assets, also when the binary runs from a copy of the tree elsewhere.
    let root = match PathBuf::from("assets") {
        here if here.join("crate.glb").is_file() => here,
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets"),
    };
    let kinds = spillway::bench::BODY_KINDS;
    let meshes = kinds
        .iter()
        .map(|(k, _)| {
            Ok(Arc::new(import_body(
                &root,
                &format!("{k}.glb"),
                &ImportLimits::default(),
            )?))
        })
        .collect::<Result<Vec<_>, Box<dyn Error>>>()?;
    let mut next = spillway::bench::scatter_numbers(99);
    let span = n as f32 * 0.8;
    for b in 0..count {
        let k = b % kinds.len();
        let (name, density) = kinds[k];
        let (x, y) = (
            n as f32 * 0.1 + span * next(),
            n as f32 * 0.1 + span * next(),
        );
        let ground = lift.map_or(0.0, |g| g.get(x as usize, y as usize));
        let body = Body {
            name: format!("{name} {b}"),
            gltf: format!("{name}.glb"),
            translation: [x, y, ground + 1.5 + next()],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            density,
            dynamic: true,
            coupling: Coupling::Auto,
            collider: Default::default(),
        };
        world.add(&body, meshes[k].clone());
    }
    Ok(())
}

/// Milliseconds per coupled step with `count` bodies, per water-only step, and where the
/// coupled steps' time went (ms per step, by phase).
fn measure<S: WaterSolver>(
    sim: &mut S,
    level: &spillway::level::Level,
    o: &Options,
    count: usize,
    finish: &mut dyn FnMut(&mut S),
) -> Result<(f64, f64, String), Box<dyn Error>> {
    let (n, steps) = (o.size, o.steps);
    let built = Instant::now();
    let mut world = BodyWorld::new(sim);
    let ground_ms = built.elapsed().as_secs_f64() * 1e3;
    world.read_ahead = !o.sync;
    if let Some(threads) = o.threads {
        world.set_physics_threads(threads);
    }
    let lift = (o.scene != BenchScene::Lake).then_some(&level.terrain);
    scatter(&mut world, n, count, lift)?;
    for _ in 0..30 {
        world.step_coarse(sim, DT, o.stride)?;
    }
    finish(sim);
    let before = world.step_times();
    let asleep = |world: &BodyWorld| {
        (world.ids().into_iter())
            .filter(|&id| world.asleep(id) == Some(true))
            .count()
    };
    let (asleep_first, mut asleep_sum) = (asleep(&world), 0);
    let t = Instant::now();
    for s in 0..steps {
        world.step_coarse(sim, DT, o.stride)?;
        if s % 10 == 9 {
            asleep_sum += asleep(&world);
        }
    }
    finish(sim);
    let coupled = t.elapsed().as_secs_f64() * 1e3 / steps as f64;
    let after = world.step_times();
    // The fastest body at the end (a blow-up of the coupling shows here).
    let fastest = world
        .ids()
        .into_iter()
        .filter_map(|id| world.velocity(id))
        .map(|v| v.iter().map(|c| c * c).sum::<f32>().sqrt())
        .fold(0.0f32, f32::max);
    let per = |a: f64, b: f64| (a - b) * 1e3 / steps as f64;
    let phases = format!(
        "{{\"rasterise\": {:.3}, \"take\": {:.3}, \"block\": {:.3}, \"read\": {:.3}, \"forces\": {:.3}, \
         \"displace\": {:.3}, \"advance\": {:.3}, \"physics\": {:.3}, \"waited\": {:.3}, \"rapier_started\": {:.3}}}, \"steps_read_now\": {}, \"fastest_body_m_per_s\": {:.2}, \"asleep\": {{\"first\": {asleep_first}, \"mean\": {:.1}, \"last\": {}}}, \"ground_ms\": {ground_ms:.1}, \"ground_triangles\": {}, \"rapier_stages_ms\": {}",
        per(after.rasterise, before.rasterise),
        per(after.take, before.take),
        per(after.block, before.block),
        per(after.read, before.read),
        per(after.forces, before.forces),
        per(after.displace, before.displace),
        per(after.advance, before.advance),
        per(after.physics, before.physics),
        per(after.waited, before.waited),
        per(after.started, before.started),
        after.read_now - before.read_now,
        fastest,
        asleep_sum as f64 / (steps / 10).max(1) as f64,
        asleep(&world),
        world.ground_triangles(),
        stages(&before, &after, steps),
    );
    let t = Instant::now();
    for _ in 0..steps {
        sim.advance(DT)?;
    }
    finish(sim);
    let water = t.elapsed().as_secs_f64() * 1e3 / steps as f64;
    Ok((coupled, water, phases))
}

/// Rapier's own stages per step (ms) between two readings, by name; `null` where they were
/// not timed (built without the feature `rapier-profile`).
fn stages(before: &StepTimes, after: &StepTimes, steps: usize) -> String {
    const NAMES: [&str; 10] = [
        "step",
        "user_changes",
        "update",
        "collision_detection",
        "broad_phase",
        "narrow_phase",
        "islands",
        "constraints",
        "solver",
        "ccd",
    ];
    if after.rapier_stages.iter().all(|&s| s == 0.0) {
        return "null".into();
    }
    let fields: Vec<String> = NAMES
        .iter()
        .zip(after.rapier_stages.iter().zip(&before.rapier_stages))
        .map(|(name, (a, b))| format!("\"{name}\": {:.3}", (a - b) * 1e3 / steps as f64))
        .collect();
    format!("{{{}}}", fields.join(", "))
}

fn main() -> Result<(), Box<dyn Error>> {
    let o = options()?;
    let level = scene(o.size, o.scene);
    let backend = if o.gpu { "gpu" } else { "cpu" };
    for &count in &o.bodies {
        let (coupled, water, phases) = if o.gpu {
            let mut sim = GpuSimulation::headless(&level)?;
            println!("adapter: {}", sim.adapter_name());
            measure(&mut sim, &level, &o, count, &mut |s: &mut GpuSimulation| {
                let _ = s.stats();
            })?
        } else {
            let mut sim = Simulation::new(&level)?;
            measure(&mut sim, &level, &o, count, &mut |_| {})?
        };
        println!(
            "{{\"backend\": \"{backend}\", \"size\": {}, \"bodies\": {count}, \"coupled_ms_per_step\": {coupled:.3}, \"water_ms_per_step\": {water:.3}, \"fits_60hz\": {}, \"read_ahead\": {}, \"stride\": {}, \"phases_ms\": {phases}}}",
            o.size,
            coupled < 1000.0 / 60.0,
            !o.sync,
            o.stride
        );
    }
    Ok(())
}
