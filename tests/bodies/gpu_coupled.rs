//! The same coupling on the GPU solver (the editor's preview) as on the CPU: `BodyWorld` drives
//! a `GpuSimulation` (blockers on the GPU, the water under the bodies gathered back, floaters'
//! displacement applied on the GPU), and each scenario gives what it gives on the CPU.
//! Runs on whatever adapter wgpu finds (lavapipe in CI).

use spillway::body::solver::WaterSolver;
use spillway::body::world::{BodyId, BodyWorld};
use spillway::gpu::GpuSimulation;
use spillway::level::Level;
use spillway::{Grid, Simulation};

use super::{assert_poses_finite, asset, body, channel, crowd, crowded_river_level, river};

fn gpu(level: &Level) -> GpuSimulation {
    GpuSimulation::headless(level).expect("a GPU adapter (lavapipe in CI)")
}

fn run<S: WaterSolver>(world: &mut BodyWorld, sim: &mut S, dt: f32, seconds: f32) {
    for _ in 0..(seconds / dt).round() as usize {
        world.step(sim, dt).expect("stable");
    }
}

/// Mean submerged fraction of a crate of `density` over the last 5 of 15 s in a still lake.
fn floating_fraction<S: WaterSolver>(sim: &mut S, dt: f32, density: f32) -> f32 {
    let mut world = BodyWorld::new(sim);
    let id = world.add(
        &body("crate", [12.0, 12.0, 2.6], density),
        asset("crate").into(),
    );
    run(&mut world, sim, dt, 10.0);
    let (mut sum, mut n) = (0.0, 0);
    for _ in 0..(5.0 / dt).round() as usize {
        world.step(sim, dt).unwrap();
        sum += world.water_forces(id).unwrap().submerged_fraction;
        n += 1;
    }
    sum / n as f32
}

#[test]
fn a_crate_floats_on_the_gpu_as_on_the_cpu() {
    let mut level = Level::flat(96, 96, 0.25, 0.0);
    level.water = Grid::filled(96, 96, 2.0);
    let dt = level.params.dt;
    for density in [300.0f32, 700.0] {
        let on_cpu = floating_fraction(&mut Simulation::new(&level).unwrap(), dt, density);
        let mut sim = gpu(&level);
        let on_gpu = floating_fraction(&mut sim, dt, density);
        let expected = density / 1000.0;
        println!("density {density}: submerged {on_gpu:.3} on the GPU, {on_cpu:.3} on the CPU");
        assert!((on_gpu - expected).abs() < 0.1 * expected, "GPU {on_gpu}");
        assert!(
            (on_gpu - on_cpu).abs() < 0.03,
            "GPU {on_gpu} vs CPU {on_cpu}"
        );
        let s = sim.stats().unwrap();
        assert!(s.balance_error.abs() < 1e-5, "balance {}", s.balance_error);
    }
}

#[test]
fn a_boulder_sinks_and_rests_on_the_gpu() {
    let mut level = Level::flat(48, 48, 0.25, 0.0);
    level.water = Grid::filled(48, 48, 2.0);
    let mut sim = gpu(&level);
    let mut world = BodyWorld::new(&sim);
    let id = world.add(
        &body("boulder", [6.0, 6.0, 2.5], 2600.0),
        asset("boulder").into(),
    );
    run(&mut world, &mut sim, level.params.dt, 15.0);
    let lowest = asset("boulder")
        .posed(&world.pose(id).unwrap())
        .positions
        .iter()
        .fold(f32::INFINITY, |a, p| a.min(p[2]));
    let v = world.velocity(id).unwrap();
    println!("GPU: boulder rests with its lowest point at {lowest:.3} m, v {v:?}");
    assert!(lowest.abs() < 0.1, "on the bed: {lowest}");
    assert!(v.iter().all(|c| c.abs() < 0.05), "at rest: {v:?}");
}

/// Discharge through the x-faces of column `i` of the GPU water.
fn gpu_discharge(sim: &GpuSimulation, i: usize) -> f64 {
    let (qx, _) = sim.read_discharges().unwrap();
    let nx = sim.nx();
    (0..sim.ny()).map(|j| qx[j * (nx + 1) + i] as f64).sum()
}

#[test]
fn a_crate_dam_holds_on_the_gpu_and_deleting_it_floods() {
    let level = channel(30.0, 3.0, 0.5, 0.4);
    let dt = level.params.dt;
    let mut sim = gpu(&level);
    let mut world = BodyWorld::new(&sim);
    let ids: Vec<BodyId> = (0..3)
        .map(|k| {
            world.add(
                &body("crate", [15.5, 0.5 + k as f32, 0.5], 2500.0),
                asset("crate").into(),
            )
        })
        .collect();
    run(&mut world, &mut sim, dt, 40.0);
    let measure = |world: &mut BodyWorld, sim: &mut GpuSimulation, seconds: f32| {
        let steps = (seconds / dt).round() as usize;
        let (mut sum, mut peak) = (0.0, 0.0f64);
        for s in 0..steps {
            world.step(sim, dt).unwrap();
            if s % 10 == 0 {
                let q = gpu_discharge(sim, 42);
                sum += q;
                peak = peak.max(q);
            }
        }
        (sum / steps.div_ceil(10) as f64, peak)
    };
    let (held, _) = measure(&mut world, &mut sim, 4.0);
    for id in ids {
        assert!(world.remove(id));
    }
    let (_, released) = measure(&mut world, &mut sim, 8.0);
    println!("GPU downstream: dammed {held:.4} m³/s, after deleting the crates peak {released:.4}");
    assert!(
        held < 0.04,
        "the crates hold the water back on the GPU: {held}"
    );
    assert!(released > 0.4, "the stored water floods down: {released}");
    let s = sim.stats().unwrap();
    assert!(s.balance_error.abs() < 1e-5, "balance {}", s.balance_error);
}

/// Coupled steps of the GPU crowd: `SPILLWAY_GPU_CROWD_STEPS`, else 10⁵ on a real GPU and 1000
/// on lavapipe (a coupled step of 200 bodies takes ~22 ms there on two cores; the 10⁵-step run
/// is made on the device machine).
fn crowd_steps(adapter: &str) -> usize {
    let software = adapter.contains("llvmpipe") || adapter.contains("lavapipe");
    std::env::var("SPILLWAY_GPU_CROWD_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if software { 1000 } else { 100_000 })
}

#[test]
fn two_hundred_moving_bodies_on_the_gpu_keep_the_balance() {
    let level = crowded_river_level();
    let dt = level.params.dt;
    let mut sim = gpu(&level);
    let mut world = BodyWorld::new(&sim);
    crowd(&mut world);
    let steps = crowd_steps(sim.adapter_name());
    let started = std::time::Instant::now();
    // How many bodies moved at the first check: the crowd comes to rest over a long run (on an
    // H100, 154 moving after 5000 steps, 49 after 30 000 and 10 after 10⁵; 159 after the 1000
    // steps lavapipe runs), so it is counted while it still moves.
    let mut moving_first = None;
    let mut done = 0;
    while done < steps {
        let chunk = (steps - done).min(5000);
        run(&mut world, &mut sim, dt, chunk as f32 * dt);
        done += chunk;
        let s = sim.stats().unwrap();
        let moving = world
            .ids()
            .into_iter()
            .filter(|&id| world.velocity(id).unwrap().iter().any(|v| v.abs() > 1e-3))
            .count();
        moving_first.get_or_insert(moving);
        println!(
            "{}: step {done}: balance {:.2e}, {moving} bodies moving, {:.2} ms/step",
            sim.adapter_name(),
            s.balance_error,
            started.elapsed().as_secs_f64() * 1e3 / done as f64
        );
        assert!(s.balance_error.abs() < 1e-5, "balance {}", s.balance_error);
        let depth = sim.read_depth().unwrap();
        assert!(depth.iter().all(|d| d.is_finite() && *d >= 0.0));
        assert_poses_finite(&world);
    }
    assert_eq!(world.ids().len(), 200);
    let moving = moving_first.unwrap_or(0);
    assert!(moving > 100, "the bodies move: {moving} at the first check");
}

#[test]
fn a_log_drifts_with_the_river_on_the_gpu() {
    let level = river();
    let dt = level.params.dt;
    let mut sim = gpu(&level);
    sim.step_n((60.0 / dt).round() as usize, dt).unwrap();
    let mut world = BodyWorld::new(&sim);
    let id = world.add(&body("log", [12.0, 3.0, 0.3], 600.0), asset("log").into());
    run(&mut world, &mut sim, dt, 4.0);
    let x0 = world.pose(id).unwrap().translation[0];
    let (mut water, mut n) = (0.0f64, 0);
    let seconds = 8.0;
    let nx = level.nx();
    for k in 0..(seconds / dt).round() as usize {
        world.step(&mut sim, dt).unwrap();
        if k % 10 == 0 {
            // The surface flow beside the log: mean face discharge over depth.
            let p = world.pose(id).unwrap().translation;
            let (i, j) = ((p[0] / 0.5) as usize, ((p[1] + 1.0) / 0.5) as usize);
            let w = sim.read_cells(&[(j * nx + i.min(nx - 1)) as u32]).unwrap()[0];
            water += (0.5 * (w.qx[0] + w.qx[1]) / (w.depth.max(1e-3) * 0.5)) as f64;
            n += 1;
        }
    }
    let x1 = world.pose(id).unwrap().translation[0];
    let log_speed = ((x1 - x0) / seconds) as f64;
    let water_speed = water / n as f64;
    println!("GPU: log {log_speed:.3} m/s, surface flow {water_speed:.3} m/s");
    assert!(water_speed > 0.3, "the river flows: {water_speed}");
    assert!(
        (log_speed - water_speed).abs() < 0.3 * water_speed,
        "log {log_speed} vs water {water_speed}"
    );
}

#[test]
fn reading_the_water_ahead_gives_the_bodies_the_same_water() {
    // The crowded river run twice on the GPU, reading the water under the bodies at each step
    // or ahead of it (while the rigid bodies step), with water painted in halfway: the same
    // water, the same poses, bit for bit.
    let level = crowded_river_level();
    let dt = level.params.dt;
    let run_with = |ahead: bool| {
        let mut sim = gpu(&level);
        let mut world = BodyWorld::new(&sim);
        world.read_ahead = ahead;
        crowd(&mut world);
        run(&mut world, &mut sim, dt, 1.5);
        // A designer paints water in between two steps: the water read ahead before it is
        // not the water now, and the bodies must not see it.
        let (nx, ny) = (level.nx(), level.ny());
        let mut depth = sim.read_depth().unwrap();
        depth.iter_mut().for_each(|d| *d += 0.2);
        sim.update_water_region(0, 0, nx, ny, &depth).unwrap();
        run(&mut world, &mut sim, dt, 1.5);
        let poses: Vec<[f32; 3]> = (world.ids().iter())
            .filter_map(|&id| world.pose(id).map(|p| p.translation))
            .collect();
        (sim.read_depth().unwrap(), poses, world.step_times())
    };
    let (depth_now, poses_now, times_now) = run_with(false);
    let (depth_ahead, poses_ahead, times_ahead) = run_with(true);
    println!(
        "steps that read water at once: {} of {} reading ahead, {} of {} not",
        times_ahead.read_now, times_ahead.steps, times_now.read_now, times_now.steps
    );
    // The read-ahead foresees where the bodies go: few steps wait for the GPU.
    assert!(
        times_ahead.read_now * 20 <= times_ahead.steps,
        "{} of {} steps read at once",
        times_ahead.read_now,
        times_ahead.steps
    );
    assert!(!poses_now.is_empty());
    assert_eq!(poses_now, poses_ahead, "the bodies moved the same");
    assert!(depth_now == depth_ahead, "the water is the same");
}

#[test]
fn a_change_of_gravity_reaches_the_bodies() {
    // The editor's Level panel sets the running GPU water's gravity: the bodies went on
    // falling and floating at the gravity their world was made with.
    let mut level = Level::flat(16, 16, 1.0, 0.0);
    level.bodies.push(body("crate", [8.0, 8.0, 20.0], 500.0));
    let mut sim = gpu(&level);
    let mesh = std::sync::Arc::new(asset("crate"));
    let mut world = BodyWorld::from_meshes(&level, &sim, vec![mesh]);
    let mut params = level.params.clone();
    params.gravity = 1.62;
    sim.set_params(&params).unwrap();
    let dt = params.dt;
    run(&mut world, &mut sim, dt, 0.5);
    let v = world.velocity(BodyId(0)).expect("in the world")[2];
    println!("falling at {v:.3} m/s after 0.5 s (the Moon's 1.62 m/s² gives 0.81)");
    assert!((v + 0.81).abs() < 0.1, "{v}");
}

#[test]
fn a_blocker_loaded_with_its_baked_water_moves_no_water_on_the_gpu() {
    // As on the CPU (`stability::a_blocker_loaded_with_its_baked_water_moves_no_water`): the
    // water standing on a sunk crate was taken as displaced again, and the lake poured onto it.
    let n = 64;
    let mut level = Level::flat(n, n, 0.25, 0.0);
    level.water = Grid::filled(n, n, 2.0);
    level.bodies.push(body("crate", [8.0, 8.0, 0.5], 2600.0));
    let mesh = std::sync::Arc::new(asset("crate"));
    let mut sim = gpu(&level);
    let mut world = BodyWorld::from_meshes(&level, &sim, vec![mesh.clone()]);
    let dt = level.params.dt;
    run(&mut world, &mut sim, dt, 20.0);
    let mut baked = sim.bake_into(&level).expect("a bake");
    let pose = world.kept_pose(BodyId(0)).expect("in the world");
    (baked.bodies[0].translation, baked.bodies[0].rotation) = (pose.translation, pose.rotation);
    let mut loaded = gpu(&baked);
    let mut again = BodyWorld::from_meshes(&baked, &loaded, vec![mesh]);
    let before = loaded.read_depth().unwrap();
    again.step(&mut loaded, dt).expect("a step");
    let after = loaded.read_depth().unwrap();
    let moved = (after.iter().zip(&before))
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    println!("largest change of depth in the first step on the GPU: {moved:.4} m");
    assert!(moved < 0.02, "{moved} m");
}
