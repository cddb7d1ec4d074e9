//! Incremental edits take effect at the next step: an edit of a running simulation gives the
//! same water as a simulation built from the edited level, and bad edits are errors, not panics.

use spillway::gpu::{GpuError, GpuSimulation};
use spillway::level::{
    Boundary, BoundaryKind, CrossSection, Edge, Shape, SolverKind, Source, SourceKind,
};
use spillway::{Grid, Level};

use crate::support::{gpu, max_diff, run_gpu, run_gpu_loose};

/// A 40×20 walled basin, water 1 m deep in the west half.
fn basin(solver: SolverKind) -> Level {
    let mut level = Level::flat(40, 20, 1.0, 0.0);
    level.terrain = Grid::from_fn(40, 20, |i, j| {
        0.01 * i as f32 + 0.05 * ((i + j) as f32 * 0.7).sin()
    });
    level.water = Grid::from_fn(40, 20, |i, _| if i < 20 { 1.0 } else { 0.0 });
    level.params.solver = solver;
    level.params.dt = 0.05;
    level
}

fn same_water(a: &GpuSimulation, b: &GpuSimulation, what: &str) {
    let (diff, cell) = max_diff(&a.read_depth().unwrap(), &b.read_depth().unwrap());
    println!("{what}: max |Δdepth| {diff:e} at cell {cell}");
    assert!(
        diff <= 1e-6,
        "{what}: edited and rebuilt differ by {diff} m at cell {cell}"
    );
}

#[test]
fn terrain_edit_raises_a_wall_the_water_cannot_cross() {
    let mut level = basin(SolverKind::Pipes);
    // Momentum advection lets a bore overtop even a 10 m wall (the CPU solver too: its advected
    // discharges ignore the face section), so the plain pipes show the wall holding.
    level.params.pipe_advection = false;
    let mut edited = gpu(&level);
    edited
        .update_terrain_region(20, 0, 1, 20, &[10.0; 20])
        .unwrap();
    let mut walled = level.clone();
    for j in 0..20 {
        walled.terrain.set(20, j, 10.0);
    }
    let mut rebuilt = gpu(&walled);
    let mut open = gpu(&level);
    for sim in [&mut edited, &mut rebuilt, &mut open] {
        run_gpu(sim, 400, 200);
    }
    same_water(&edited, &rebuilt, "terrain edit");
    let east = |sim: &GpuSimulation| {
        sim.read_depth()
            .unwrap()
            .chunks(40)
            .map(|r| r[21..].iter().sum::<f32>())
            .sum::<f32>()
    };
    assert!(
        east(&edited) < 1e-6,
        "water crossed the wall: {}",
        east(&edited)
    );
    assert!(
        east(&open) > 1.0,
        "without the wall the water must spread east"
    );
}

#[test]
fn terrain_edit_mid_run_takes_effect() {
    let level = basin(SolverKind::Swe);
    let mut sim = gpu(&level);
    run_gpu(&mut sim, 50, 50);
    let before = sim.read_depth().unwrap();
    // A 3 m mound under the water of the west half pushes it away.
    sim.update_terrain_region(5, 5, 6, 6, &[3.0; 36]).unwrap();
    run_gpu_loose(&mut sim, 200, 50);
    let after = sim.read_depth().unwrap();
    // Under Manning's friction a thin film drains slowly (as h^(5/3)): the mound keeps a few
    // millimetres of the half metre it stood under.
    assert!(
        after[8 * 40 + 8] < 1e-2,
        "water stays on the raised mound: {}",
        after[8 * 40 + 8]
    );
    assert!(before[8 * 40 + 8] > 0.5);
    assert!(sim.stats().unwrap().balance_error.abs() < 1e-6);
}

#[test]
fn water_edit_adds_water_and_books_it() {
    let level = basin(SolverKind::Pipes);
    let mut sim = gpu(&level);
    run_gpu(&mut sim, 20, 20);
    let v0 = sim.stats().unwrap().volume;
    sim.update_water_region(30, 5, 5, 4, &[2.0; 20]).unwrap();
    let s = sim.stats().unwrap();
    assert!(
        (s.volume - v0 - 40.0).abs() < 0.05,
        "volume {} -> {}",
        v0,
        s.volume
    );
    assert!(s.max_depth >= 2.0);
    run_gpu(&mut sim, 200, 100);
    let s = sim.stats().unwrap();
    assert!(
        s.balance_error.abs() < 1e-6,
        "painted water must be booked: {}",
        s.balance_error
    );
}

#[test]
fn params_sources_and_boundaries_edits_match_a_rebuilt_level() {
    let level = basin(SolverKind::Pipes);
    let mut target = level.clone();
    target.params.friction = spillway::level::Friction::Linear { per_second: 0.3 };
    target.params.cross_section = CrossSection::Upwind;
    target.params.rain_mm_per_hour = 90.0;
    target.sources.push(Source {
        name: "spring".into(),
        shape: Shape::Circle {
            x: 30.0,
            y: 10.0,
            radius: 3.0,
        },
        kind: SourceKind::Rate { m3_per_s: 2.0 },
        enabled: true,
    });
    target.boundaries.push(Boundary {
        edge: Edge::East,
        start: 5,
        end: 15,
        kind: BoundaryKind::Open,
    });
    target.boundaries.push(Boundary {
        edge: Edge::North,
        start: 0,
        end: 10,
        kind: BoundaryKind::FixedLevel { surface: 0.8 },
    });
    let mut edited = gpu(&level);
    edited.set_params(&target.params).unwrap();
    edited.set_sources_sinks(&target).unwrap();
    edited.set_boundaries(&target).unwrap();
    let mut rebuilt = gpu(&target);
    run_gpu(&mut edited, 300, 100);
    run_gpu(&mut rebuilt, 300, 100);
    same_water(&edited, &rebuilt, "params, sources and edges");
    let (a, b) = (edited.stats().unwrap(), rebuilt.stats().unwrap());
    assert!(
        (a.inflow - b.inflow).abs() < 1e-6 * b.inflow
            && (a.outflow - b.outflow).abs() < 1e-6 * b.outflow.max(1.0)
    );
}

#[test]
fn solver_switch_keeps_the_water() {
    let level = basin(SolverKind::Pipes);
    let mut sim = gpu(&level);
    run_gpu(&mut sim, 100, 100);
    let v = sim.stats().unwrap().volume;
    let mut p = level.params.clone();
    p.solver = SolverKind::Swe;
    sim.set_params(&p).unwrap();
    run_gpu(&mut sim, 200, 100);
    let s = sim.stats().unwrap();
    assert!(
        (s.volume - v).abs() < 1e-6 * v,
        "volume {v} -> {}",
        s.volume
    );
    assert!(s.balance_error.abs() < 1e-6);
}

#[test]
fn bad_edits_are_errors() {
    let level = basin(SolverKind::Pipes);
    let mut sim = gpu(&level);
    assert!(matches!(
        sim.update_terrain_region(35, 0, 10, 2, &[0.0; 20]),
        Err(GpuError::BadInput(_))
    ));
    assert!(matches!(
        sim.update_water_region(0, 0, 2, 2, &[0.0; 3]),
        Err(GpuError::BadInput(_))
    ));
    assert!(matches!(
        sim.update_water_region(usize::MAX, 0, 2, 2, &[0.0; 4]),
        Err(GpuError::BadInput(_))
    ));
    let mut bad = level.params.clone();
    bad.gravity = f32::NAN;
    assert!(matches!(sim.set_params(&bad), Err(GpuError::BadInput(_))));
    bad = level.params.clone();
    bad.dt = 0.0;
    assert!(matches!(sim.set_params(&bad), Err(GpuError::BadInput(_))));
    assert!(matches!(sim.step(f32::NAN), Err(GpuError::Step(_))));
    assert!(matches!(sim.step(-1.0), Err(GpuError::Step(_))));
    // A level with a gate: a region off the grid is refused before the gates' ground is
    // touched (it overflowed the gate's bounds check, and changed what the gate returns to
    // even when the upload was then refused).
    let gated = spillway_tests::gated_reservoir(None);
    let mut sim_g = gpu(&gated);
    let before = sim_g.read_terrain().unwrap();
    assert!(matches!(
        sim_g.update_terrain_region(usize::MAX, 0, 2, 1, &[0.0; 2]),
        Err(GpuError::BadInput(_))
    ));
    let (nx, ny) = (gated.nx(), gated.ny());
    assert!(matches!(
        sim_g.update_terrain_region(0, 0, nx, ny + 1, &vec![-5.0; nx * (ny + 1)]),
        Err(GpuError::BadInput(_))
    ));
    for gate in sim_g.gates() {
        assert!(sim_g.open_gate(&gate.name).unwrap());
    }
    sim_g.step(0.01).unwrap();
    let after = sim_g.read_terrain().unwrap();
    let opened = (before.iter().zip(&after)).filter(|(b, a)| a != b).count();
    assert!(opened > 0, "the gate's cells went back to their ground");
    assert!(
        after.iter().all(|&t| t > -5.0),
        "no refused value reached the ground"
    );
    let small = Level::flat(8, 8, 1.0, 0.0);
    assert!(matches!(
        sim.set_sources_sinks(&small),
        Err(GpuError::BadInput(_))
    ));
    assert!(matches!(
        sim.set_boundaries(&small),
        Err(GpuError::BadInput(_))
    ));
    let mut broken = level.clone();
    broken.water.data.pop();
    assert!(matches!(
        GpuSimulation::headless(&broken),
        Err(GpuError::Level(_))
    ));
    // Still usable afterwards.
    run_gpu(&mut sim, 10, 10);
}

#[test]
fn probe_reads_the_cell_the_full_read_back_sees() {
    let level = basin(SolverKind::Pipes);
    let mut sim = gpu(&level);
    sim.step_n(37, level.params.dt).unwrap();
    let depth = sim.read_depth().unwrap();
    let (dis_x, dis_y) = sim.read_discharges().unwrap();
    let (x, y) = (level.nx() / 3, level.ny() / 2);
    sim.request_probe(x, y);
    let mut reading = None;
    for _ in 0..10_000 {
        reading = sim.poll_probe();
        if reading.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let r = reading.expect("the probe came back");
    let nx = level.nx();
    let cell = y * nx + x;
    assert_eq!((r.x, r.y), (x, y));
    assert_eq!(r.depth, depth[cell]);
    assert_eq!(r.surface, level.terrain.data[cell] + depth[cell]);
    let section = depth[cell] * level.cell_size;
    let u = 0.5 * (dis_x[y * (nx + 1) + x] + dis_x[y * (nx + 1) + x + 1]) / section;
    let v = 0.5 * (dis_y[cell] + dis_y[cell + nx]) / section;
    assert!((r.velocity[0] - u).abs() < 1e-6 && (r.velocity[1] - v).abs() < 1e-6);
    // Outside the grid nothing is asked.
    sim.request_probe(nx, 0);
    assert!(sim.poll_probe().is_none());
}

#[test]
fn gates_open_on_time_and_by_trigger_like_the_cpu() {
    for (open_at, halves) in [(Some(1.0), false), (None, false), (None, true)] {
        let mut level = spillway_tests::gated_reservoir(open_at);
        if halves {
            // Two gates of one name (one trigger): both open.
            spillway_tests::gate_in_halves(&mut level);
        }
        let mut cpu = spillway::Simulation::new(&level).unwrap();
        let mut gpu_sim = gpu(&level);
        for sim_steps in [30usize, 70] {
            for _ in 0..sim_steps {
                cpu.step(level.params.dt).unwrap();
            }
            gpu_sim.step_n(sim_steps, level.params.dt).unwrap();
            if open_at.is_none() && sim_steps == 30 {
                assert!(cpu.open_gate("dam"));
                assert!(gpu_sim.open_gate("dam").unwrap());
            }
        }
        let open = |g: Vec<spillway::sim::GateState>| g.iter().all(|g| g.open);
        assert!(open(gpu_sim.gates()) && open(cpu.gates()));
        let (diff, cell) = max_diff(cpu.depth(), &gpu_sim.read_depth().unwrap());
        println!("gate {open_at:?}: CPU and GPU differ by {diff:e} m at cell {cell}");
        assert!(diff < 1e-3);
        let released: f32 = cpu.depth().iter().skip(23).step_by(60).sum();
        assert!(released > 0.0, "the flood passed the gate");
    }
}

#[test]
fn a_gate_opens_at_the_step_boundary_nearest_its_time_like_the_cpu() {
    // As `physics::gates`: fifty recorded steps of 0.02 s opened the gate at 1 s a step late.
    for (open_at, dt, steps_closed) in [(1.0, 0.02, 50), (2.4, 1.0, 2), (2.6, 1.0, 3)] {
        let mut level = spillway_tests::gated_reservoir(Some(open_at));
        level.params.dt = dt;
        let mut sim = gpu(&level);
        sim.step_n(steps_closed, dt).unwrap();
        assert!(!sim.gates()[0].open, "{open_at} s: open too early");
        sim.step_n(1, dt).unwrap();
        assert!(sim.gates()[0].open, "{open_at} s: still closed");
    }
}

#[test]
fn a_bake_keeps_closed_a_gate_timed_later_that_shares_an_open_ones_name_like_the_cpu() {
    // As `physics::gates`: the GPU's bake marked every gate of an opened one's name open.
    let mut level = spillway_tests::gated_reservoir(Some(1.0));
    let mut north = level.gates[0].clone();
    north.open_at = Some(100.0);
    level.gates.push(north);
    let mut sim = gpu(&level);
    sim.step_n(100, level.params.dt).unwrap();
    let open: Vec<bool> = sim.gates().iter().map(|g| g.open).collect();
    assert_eq!(open, [true, false]);
    let baked = sim.bake_into(&level).unwrap();
    assert_eq!(baked.gates[1].open_at, Some(100.0));
    // Its sides are checked, not only its cells: a transposed level is refused.
    let transposed = Level::flat(level.ny(), level.nx(), 1.0, 0.0);
    assert!(sim.bake_into(&transposed).is_err());
}

#[test]
fn a_step_refused_opens_no_gate() {
    // An infinite step (a frame time of 1/0) reached every gate's time and opened them all
    // before it was refused, as the CPU refuses it having changed nothing.
    let level = spillway_tests::gated_reservoir(Some(100.0));
    let mut sim = gpu(&level);
    for bad in [f32::INFINITY, f32::NAN, -1.0] {
        assert!(sim.step(bad).is_err(), "{bad}");
        assert!(sim.encode_steps(3, bad).is_err(), "{bad}");
        assert!(!sim.gates()[0].open, "{bad} opened the gate");
    }
}

#[test]
fn plain_pipes_take_no_saved_face_speed() {
    // A level baked with momentum advection (its fastest face kept), switched to plain pipes
    // since: the GPU added the saved 30 m/s to every step's wave speed for good.
    let mut level = Level::flat(32, 32, 1.0, 0.0);
    level.water = Grid::filled(32, 32, 1.0);
    level.params.pipe_advection = false;
    let mut baked = spillway::Simulation::new(&level).unwrap().bake_into(&level);
    baked.flow.as_mut().unwrap().max_speed = Some(30.0);
    let mut cpu = spillway::Simulation::new(&baked).unwrap();
    let mut sim = gpu(&baked);
    let dt = baked.params.dt;
    for _ in 0..100 {
        cpu.step(dt).unwrap();
    }
    sim.step_n(100, dt).unwrap();
    let (g, c) = (sim.stats().unwrap(), cpu.stats());
    println!("sub-steps: GPU {}, CPU {}", g.substeps, c.substeps);
    assert_eq!(g.substeps, c.substeps);
}

#[test]
fn a_saved_face_no_step_can_follow_is_held_as_on_the_cpu() {
    // No saved fastest speed, and one saved face of 1e5 m/s (a hand edit): the GPU took the
    // faces' fastest as it was, and its first step's CFL limit was one no step could meet.
    for solver in [spillway::SolverKind::Pipes, spillway::SolverKind::Swe] {
        let mut level = Level::flat(32, 32, 1.0, 0.0);
        level.water = Grid::from_fn(32, 32, |x, _| if x < 16 { 1.0 } else { 0.1 });
        level.params.solver = solver;
        let mut baked = spillway::Simulation::new(&level).unwrap().bake_into(&level);
        let flow = baked.flow.as_mut().unwrap();
        flow.max_speed = None;
        match solver {
            spillway::SolverKind::Pipes => flow.aux_x[40] = 1e5,
            spillway::SolverKind::Swe => flow.flow_x[40] = 1e5,
        }
        let mut cpu = spillway::Simulation::new(&baked).unwrap();
        let mut sim = gpu(&baked);
        let dt = baked.params.dt;
        cpu.step(dt).unwrap();
        sim.step_n(1, dt).unwrap();
        let (g, c) = (sim.stats().unwrap(), cpu.stats());
        println!("{solver:?}: GPU {g:?}\nCPU {c:?}");
        assert_eq!(g.substeps, c.substeps, "{solver:?}");
        assert!(
            g.max_depth.is_finite() && g.balance_error < 1e-6,
            "{solver:?}: {g:?}"
        );
    }
}

#[test]
fn a_shallow_water_bake_resumes_as_the_run_goes_on() {
    // The GPU's bake of the shallow-water solver kept no discharges: resumed, its open edge's
    // outfall and its first advection started from rest.
    use spillway::level::{Boundary, BoundaryKind, Edge};
    let (nx, ny) = (64, 16);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |x, _| 0.01 * (nx - x) as f32);
    level.params.solver = spillway::SolverKind::Swe;
    for (edge, kind) in [
        (Edge::West, BoundaryKind::Inflow { m3_per_s: 5.0 }),
        (Edge::East, BoundaryKind::Open),
    ] {
        let end = ny as u32;
        level.boundaries.push(Boundary {
            edge,
            start: 0,
            end,
            kind,
        });
    }
    let dt = level.params.dt;
    let mut sim = gpu(&level);
    sim.step_n(500, dt).unwrap();
    let baked = sim.bake_into(&level).unwrap();
    let flow = baked.flow.as_ref().unwrap();
    assert_eq!(flow.aux_x.len(), (nx + 1) * ny, "the discharges kept");
    let mut resumed = gpu(&baked);
    for s in [&mut sim, &mut resumed] {
        s.step_n(20, dt).unwrap();
    }
    let (diff, cell) = max_diff(&sim.read_depth().unwrap(), &resumed.read_depth().unwrap());
    println!("20 steps on: the resumed run differs by {diff:.2e} m at cell {cell}");
    assert!(diff < 1e-6, "{diff}");
}

#[test]
fn lowering_the_ground_under_an_open_edge_lets_no_water_in() {
    // The open edges' ghosts stood at the old ground: lowered under them, the dry map drew
    // water in from outside (an outside surface 2 m above the new ground).
    let mut level = Level::flat(16, 8, 1.0, 2.0);
    level.water = Grid::filled(16, 8, 0.0);
    level.params.default_boundary = BoundaryKind::Open;
    let mut sim = gpu(&level);
    run_gpu(&mut sim, 10, 10);
    sim.update_terrain_region(0, 0, 16, 8, &[0.0; 16 * 8])
        .unwrap();
    run_gpu_loose(&mut sim, 200, 100);
    let s = sim.stats().unwrap();
    println!("inflow {:.4} m³, volume {:.4} m³", s.inflow, s.volume);
    assert!(s.volume < 1e-3, "{} m³ came in", s.volume);
}

#[test]
fn a_nan_rate_or_inflow_handed_over_is_refused_by_name_as_on_the_cpu() {
    use spillway::level::SourceKind;
    let mut level = spillway_tests::spring_lake();
    let mut sim = gpu(&level);
    let dt = level.params.dt;
    sim.step_n(2, dt).unwrap();
    level.sources[0].kind = SourceKind::Rate { m3_per_s: f32::NAN };
    let err = sim.set_sources_sinks(&level).expect_err("a NaN rate");
    assert!(
        err.to_string().contains("sources[0].kind.m3_per_s"),
        "{err}"
    );
    // Nor through the edges' setter, which builds the table again from the level; nor a NaN
    // inflow along an edge.
    let err = sim.set_boundaries(&level).expect_err("a NaN rate");
    assert!(
        err.to_string().contains("sources[0].kind.m3_per_s"),
        "{err}"
    );
    let mut edged = level.clone();
    edged.sources[0].kind = SourceKind::Rate { m3_per_s: 1.0 };
    edged.boundaries.push(spillway::level::Boundary {
        edge: spillway::level::Edge::West,
        start: 0,
        end: 16,
        kind: spillway::level::BoundaryKind::Inflow { m3_per_s: f32::NAN },
    });
    let err = sim.set_boundaries(&edged).expect_err("a NaN inflow");
    assert!(err.to_string().contains("boundaries[0]"), "{err}");
    sim.step_n(10, dt).unwrap();
    let stats = sim.stats().unwrap();
    assert!(
        stats.inflow > 0.0 && stats.balance_error.abs() < 1e-6,
        "{stats:?}"
    );
}
