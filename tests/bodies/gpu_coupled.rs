//! The same coupling on the GPU solver (the editor's preview) as on the CPU: `BodyWorld` drives
//! a `GpuSimulation` (blockers on the GPU, the water under the bodies gathered back, floaters'
//! displacement applied on the GPU), and each scenario gives what it gives on the CPU.
//! Runs on whatever adapter wgpu finds (lavapipe in CI).

use spillway::body::solver::WaterSolver;
use spillway::body::world::{BodyId, BodyWorld};
use spillway::gpu::GpuSimulation;
use spillway::level::{Body, Coupling, Level};
use spillway::{Grid, Simulation};

use super::{asset, channel};

fn body(name: &str, at: [f32; 3], density: f32) -> Body {
    Body {
        name: name.into(),
        gltf: format!("{name}.glb"),
        translation: at,
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
        density,
        dynamic: true,
        coupling: Coupling::Auto,
        collider: Default::default(),
    }
}

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

#[test]
fn many_bodies_on_the_gpu_keep_the_balance() {
    // 60 bodies of every kind dropped on a 40 m basin of 0.5 m cells, 1 m deep, for 1000 steps.
    let mut level = Level::flat(80, 80, 0.5, 0.0);
    level.water = Grid::filled(80, 80, 1.0);
    let dt = level.params.dt;
    let mut sim = gpu(&level);
    let mut world = BodyWorld::new(&sim);
    let kinds = [
        ("crate", 400.0),
        ("log", 600.0),
        ("barrel", 300.0),
        ("boulder", 2600.0),
    ];
    let mut seed = 7u32;
    let mut next = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32
    };
    for b in 0..60 {
        let (kind, density) = kinds[b % kinds.len()];
        let at = [3.0 + 34.0 * next(), 3.0 + 34.0 * next(), 1.5 + 2.0 * next()];
        world.add(&body(kind, at, density), asset(kind).into());
    }
    run(&mut world, &mut sim, dt, 1000.0 * dt);
    let s = sim.stats().unwrap();
    let depth = sim.read_depth().unwrap();
    println!(
        "GPU, 60 bodies, 1000 steps: balance {:.2e}, inflow {:.3} m³, outflow {:.3} m³",
        s.balance_error, s.inflow, s.outflow
    );
    assert!(s.balance_error.abs() < 1e-5, "balance {}", s.balance_error);
    assert!(depth.iter().all(|d| d.is_finite() && *d >= 0.0));
    assert!(s.inflow > 0.0, "the floaters moved water");
    for id in world.ids() {
        let p = world.pose(id).unwrap();
        assert!(p.translation.iter().all(|x| x.is_finite()));
    }
}
