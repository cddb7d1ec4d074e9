//! The moving bed on the GPU (`gpu/erosion.rs`, `erosion.wgsl`) against the CPU solver's
//! `sim::erosion`: a river carving its channel into a lake by bedload, by suspended load, and
//! a steep bank slumping, on both solvers; a bake keeps the moved bed.

use spillway::level::{BedloadLaw, Boundary, BoundaryKind, Edge, Sediment, SolverKind, Suspension};
use spillway::{Grid, Level};

use crate::support::{gpu, max_diff, run_cpu, run_gpu};

/// 40 m of channel falling 1 % into a lake 2 m deep (60 × 6 cells of 1 m), clear water coming in
/// at 3 m³/s, with a bank 1.5 m high along the channel's north side for slumping.
fn river(solver: SolverKind, sediment: Sediment) -> Level {
    let (nx, ny) = (60, 6);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.params.solver = solver;
    level.terrain = Grid::from_fn(nx, ny, |i, j| {
        let bed = if i < 40 { 0.01 * (40 - i) as f32 } else { -2.0 };
        if j == 0 && i < 40 { bed + 1.5 } else { bed }
    });
    level.water = Grid::from_fn(nx, ny, |i, j| match (i < 40, j) {
        (true, 0) => 0.0,
        (true, _) => 0.2,
        (false, _) => 2.0,
    });
    level.params.sediment = Some(sediment);
    level.boundaries.push(Boundary {
        edge: Edge::West,
        start: 1,
        end: ny as u32,
        kind: BoundaryKind::Inflow { m3_per_s: 3.0 },
    });
    level.boundaries.push(Boundary {
        edge: Edge::East,
        start: 0,
        end: ny as u32,
        kind: BoundaryKind::Open,
    });
    level
}

fn bedload() -> Sediment {
    spillway_tests::sand()
}

fn suspended() -> Sediment {
    Sediment {
        law: BedloadLaw::MeyerPeterMuller {
            diameter: 0.0005,
            density: 2650.0,
            critical_shields: 0.047,
            friction_factor: 0.03,
        },
        suspension: Some(Suspension {
            critical_shear: 5.0,
            pickup: 1e-4,
            settling: 0.01,
        }),
        ..bedload()
    }
}

/// Runs `level` for `steps` steps on both solvers; returns the largest terrain difference and
/// the CPU's largest bed change.
fn compare(name: &str, level: &Level, steps: usize) -> (f32, f32) {
    let cpu = run_cpu(level, steps);
    let mut sim = gpu(level);
    run_gpu(&mut sim, steps, 100);
    let terrain = sim.read_terrain().unwrap();
    let (diff, cell) = max_diff(cpu.terrain(), &terrain);
    let (moved, _) = max_diff(cpu.terrain(), &level.terrain.data);
    let (water, _) = max_diff(cpu.depth(), &sim.read_depth().unwrap());
    println!(
        "{name}: bed moved up to {moved:.4} m; GPU − CPU bed {diff:.2e} m (cell {cell}), water \
         {water:.2e} m"
    );
    if let Some(load) = cpu.suspended_load() {
        let gpu_load = sim.suspended_load().unwrap().expect("a suspension");
        let (d, _) = max_diff(load, &gpu_load);
        let top = load.iter().fold(0.0f32, |a, &b| a.max(b));
        println!("{name}: suspended load up to {top:.3e} m, GPU − CPU {d:.2e} m");
        assert!(d <= 1e-3 * top.max(1e-6), "{name}: load {d} of {top}");
    }
    (diff, moved)
}

#[test]
fn the_gpu_moves_the_bed_as_the_cpu_does() {
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        for (what, sediment) in [("bedload", bedload()), ("suspended", suspended())] {
            let level = river(solver, sediment);
            let (diff, moved) = compare(&format!("{solver:?} {what}"), &level, 500);
            assert!(
                moved > 0.05,
                "{solver:?} {what}: the bed hardly moved: {moved}"
            );
            assert!(diff < 1e-5, "{solver:?} {what}: {diff} m");
        }
    }
}

#[test]
fn grains_carried_out_of_a_region_settle_there_as_on_the_cpu() {
    // Outside a region grains settle but none is lifted (they stayed in the water for good).
    let mut level = river(SolverKind::Pipes, suspended());
    level.params.sediment.as_mut().unwrap().region = Some(spillway::level::Shape::Box {
        x0: 0.0,
        y0: 0.0,
        x1: 40.0,
        y1: 6.0,
    });
    let (diff, moved) = compare("suspended in a region", &level, 500);
    assert!(moved > 0.01, "the bed hardly moved: {moved}");
    assert!(diff < 1e-5, "{diff} m");
    // The lake outside the region gained grains on both.
    let mut sim = gpu(&level);
    run_gpu(&mut sim, 500, 100);
    let terrain = sim.read_terrain().unwrap();
    let lake: f32 = (0..6)
        .flat_map(|j| (40..60).map(move |i| j * 60 + i))
        .map(|c| terrain[c] - level.terrain.data[c])
        .sum();
    assert!(lake > 0.0, "{lake}");
}

#[test]
fn a_bake_keeps_the_bed_the_water_moved_with_its_grains_settled() {
    let level = river(SolverKind::Pipes, suspended());
    let sum = |z: &[f32]| z.iter().map(|&v| v as f64).sum::<f64>();
    let mut sim = gpu(&level);
    run_gpu(&mut sim, 200, 100);
    let baked = sim.bake_into(&level).unwrap();
    let (moved, _) = max_diff(&baked.terrain.data, &level.terrain.data);
    assert!(moved > 0.01, "the bake kept the old bed");
    // The grains still in the water settle where they are: bed per grain 1 / (1 − 0.4).
    let load = sum(&sim.suspended_load().unwrap().unwrap());
    let settled = sum(&baked.terrain.data) - sum(&sim.read_terrain().unwrap());
    println!("GPU bake: {load:.4} m³ of grains in the water settle as {settled:.4} m³ of bed");
    assert!(
        load > 0.01 && (settled - load / 0.6).abs() < 1e-3 * load,
        "{settled} {load}"
    );
    // On the CPU every grain is in the baked bed, or left the map.
    let cpu = run_cpu(&level, 200);
    let bed = cpu.bed_stats().unwrap();
    let gained = sum(&cpu.bake_into(&level).terrain.data) - sum(&level.terrain.data);
    println!(
        "CPU bake: bed gained {gained:.5} m³, entered − left {:.5} m³",
        bed.entered - bed.left
    );
    assert!(
        (gained - (bed.entered - bed.left)).abs() < 1e-5 * bed.eroded,
        "{gained} {bed:?}"
    );
}

#[test]
fn a_change_of_parameters_mid_run_keeps_the_bed_and_its_grains_in_the_water() {
    // The preview takes a new Manning's n into the running GPU water: the bed was made anew,
    // its grains in the water gone and its bedrock put a layer below the eroded ground.
    let level = river(SolverKind::Pipes, suspended());
    let mut sim = gpu(&level);
    run_gpu(&mut sim, 200, 100);
    let load = |sim: &spillway::gpu::GpuSimulation| sim.suspended_load().unwrap().unwrap();
    let floor = |sim: &mut spillway::gpu::GpuSimulation| {
        sim.bake_into(&level).unwrap().flow.unwrap().bed_floor
    };
    let (load0, floor0, ground0) = (load(&sim), floor(&mut sim), sim.read_terrain().unwrap());
    assert!(load0.iter().any(|&l| l > 0.0), "grains in the water");
    let mut params = level.params.clone();
    params.friction = spillway::level::Friction::Manning { n: 0.035 };
    sim.set_params(&params).unwrap();
    assert_eq!(load(&sim), load0, "the grains in the water");
    assert_eq!(floor(&mut sim), floor0, "the bedrock");
    assert_eq!(sim.read_terrain().unwrap(), ground0);
    // Without a suspension any more, the grains settle where they are.
    params.sediment.as_mut().unwrap().suspension = None;
    sim.set_params(&params).unwrap();
    let sum = |z: &[f32]| z.iter().map(|&v| v as f64).sum::<f64>();
    let settled = sum(&sim.read_terrain().unwrap()) - sum(&ground0);
    let grains = sum(&load0);
    assert!(
        (settled - grains / 0.6).abs() < 1e-3 * grains,
        "{settled} {grains}"
    );
}

/// SWASHES' bedload river resumed from its steady flow state (a bake) on the shallow-water
/// solver: the GPU takes the saved discharges as the CPU does, so the first step at the open
/// outlet, and the bed it moves, match (the GPU once started them at rest: 6.7 cm apart).
#[test]
fn a_resumed_shallow_water_river_moves_the_same_bed_on_both() {
    let (level, _, _) = spillway_tests::bedload::setup(1, 200, SolverKind::Swe).unwrap();
    for steps in [1, 400] {
        let cpu = run_cpu(&level, steps);
        let mut sim = gpu(&level);
        run_gpu(&mut sim, steps, 100);
        let (bed, _) = max_diff(cpu.terrain(), &sim.read_terrain().unwrap());
        let (water, _) = max_diff(cpu.depth(), &sim.read_depth().unwrap());
        println!("after {steps} steps: bed {bed:.1e} m, water {water:.1e} m apart");
        assert!(bed < 1e-6 && water < 1e-6, "bed {bed}, water {water}");
    }
}

/// The editor's keyframes of an eroding level on the GPU: the state read without waiting
/// carries the moved bed (grains in the water settled, as a bake) and its floor, so a scrub
/// back puts the water onto the ground it had then, not onto the authored ground.
#[test]
fn a_keyframe_read_without_waiting_keeps_the_moved_bed() {
    let mut level = river(SolverKind::Pipes, suspended());
    // A gate across the lake: its cells do not erode, and keep the authored ground.
    level.gates.push(spillway::level::Gate {
        name: "weir".into(),
        shape: spillway::level::Shape::Box {
            x0: 50.0,
            y0: 0.0,
            x1: 51.0,
            y1: 6.0,
        },
        crest: -1.0,
        open_at: None,
    });
    let mut sim = gpu(&level);
    run_gpu(&mut sim, 200, 100);
    assert!(sim.request_state().unwrap());
    let state = (sim.poll_state(true).unwrap().unwrap().read()).unwrap();
    let baked = sim.bake_into(&level).unwrap();
    let restored = spillway::snapshot::Snapshot::of_state(&state)
        .restore(&level)
        .unwrap();
    let (moved, _) = max_diff(&baked.terrain.data, &level.terrain.data);
    let (diff, cell) = max_diff(&restored.terrain.data, &baked.terrain.data);
    println!(
        "the bed moved {moved:.4} m; the keyframe's ground is {diff:.1e} m from the bake's at {cell:?}"
    );
    assert!(moved > 0.01, "the river moved no bed: {moved}");
    assert_eq!(restored.terrain.data, baked.terrain.data);
    let floor = &restored.flow.as_ref().unwrap().bed_floor;
    assert_eq!(floor, &baked.flow.as_ref().unwrap().bed_floor);
    assert_eq!(floor.len(), 60 * 6);
}

#[test]
fn a_sub_step_that_blows_up_leaves_the_bed_as_it_was() {
    // The erosion passes ran after a failed sub-step too: its infinite flows gave infinite
    // loads and NaN ground, which the rollback of the water left, so the run blew up at that
    // cell again after every mend.
    let level = river(SolverKind::Pipes, bedload());
    let mut sim = gpu(&level);
    let dt = level.params.dt;
    sim.step_n(5, dt).unwrap();
    let ground = sim.read_terrain().unwrap();
    // Ground no level means (set in memory, past the loader's checks) blows the water up.
    let (i, j, nx) = (20, 3, level.nx());
    sim.update_terrain_region(i, j, 2, 1, &[3e38, -3e38])
        .unwrap();
    sim.step_n(2, dt).unwrap();
    let _ = sim.stats().unwrap();
    assert!(
        sim.status().halted.is_some(),
        "the cliff blows the water up"
    );
    let after = sim.read_terrain().unwrap();
    let bad = (0..after.len())
        .filter(|&c| c != j * nx + i && c != j * nx + i + 1)
        .find(|&c| !after[c].is_finite());
    assert_eq!(bad, None, "non-finite ground at {bad:?}");
    // Mended, the run goes on.
    let mended = [ground[j * nx + i], ground[j * nx + i + 1]];
    sim.update_terrain_region(i, j, 2, 1, &mended).unwrap();
    sim.clear_halt();
    sim.step_n(20, dt).unwrap();
    let _ = sim.stats().unwrap();
    assert_eq!(sim.status().halted, None);
    let terrain = sim.read_terrain().unwrap();
    assert!(terrain.iter().all(|z| z.is_finite()));
}
