//! Two steps in one pass (the pair pass, temporal blocking) give what two flow passes give, on a
//! grid of several strips each way, for the peers' constant pipe, for face-depth sections with
//! Manning's n from a roughness grid, and with rain, and with momentum advection (the pipes' and
//! the shallow-water mode's, as the fused flow pass runs it): the same time,
//! steps and sub-steps, the same water to the last bits (the pair adds each cell's carry one
//! step later), the volume as exactly; and the control pass pairs only the steps it may (not a
//! lone step at a batch's end, and none where one sub-step of twice the length would not be
//! stable), and there pairs a step's own two sub-steps.

use spillway::gpu::{Fusion, GpuSimulation, Pairing};
use spillway::level::{Advection, BoundaryKind, CrossSection, Friction, SolverKind};
use spillway::{Grid, Level};

use crate::support::{gpu, max_diff, run_cpu, run_gpu};

/// A 300 × 170 walled basin of 1 m cells: hills, a lake and a column of water let go.
fn basin(section: CrossSection, friction: Friction) -> Level {
    let (nx, ny) = (300, 170);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |i, j| {
        let (x, y) = (i as f32 / nx as f32, j as f32 / ny as f32);
        1.0 + 0.8 * (7.0 * x).sin() * (5.0 * y).cos() + 0.5 * x
    });
    level.water = Grid::from_fn(nx, ny, |i, j| {
        let lake = (1.4 - level.terrain.get(i, j)).max(0.0);
        let column = if i < 60 { 1.5 } else { 0.0 };
        lake + column
    });
    let p = &mut level.params;
    p.solver = SolverKind::Pipes;
    p.pipe_advection = false;
    p.cross_section = section;
    p.friction = friction;
    p.default_boundary = BoundaryKind::Wall;
    p.dt = 0.04;
    p.cfl = 0.5;
    level
}

fn run(level: &Level, pairing: Pairing, steps: usize) -> GpuSimulation {
    let mut sim = gpu(level);
    sim.set_pairing(pairing);
    // The pair advects as the fused flow pass does; this grid is too small for it by default.
    sim.set_fusion(Fusion::Always);
    run_gpu(&mut sim, steps, 25);
    sim
}

/// Runs `level` paired and not; returns the sub-steps that ran paired.
fn same_either_way(level: &Level, label: &str, steps: usize) -> u32 {
    let mut paired = run(level, Pairing::Always, steps);
    let mut apart = run(level, Pairing::Never, steps);
    let (p, a) = (paired.stats().unwrap(), apart.stats().unwrap());
    let depth = paired.read_depth().unwrap();
    let (to_apart, cell) = max_diff(&apart.read_depth().unwrap(), &depth);
    let (qx, qy) = paired.read_discharges().unwrap();
    let (ax, ay) = apart.read_discharges().unwrap();
    let to_apart_q = max_diff(&ax, &qx).0.max(max_diff(&ay, &qy).0);
    let (to_cpu, _) = max_diff(run_cpu(level, steps).depth(), &depth);
    let n = paired.status().paired_substeps;
    println!(
        "{label}: {n} sub-steps paired in {steps} steps; against one pass a sub-step: max |Δdepth| {to_apart:e} \
         m at cell {cell}, |Δq| {to_apart_q:e} m³/s; against the CPU {to_cpu:.2e} m; volume \
         {} and {} m³",
        p.volume, a.volume
    );
    assert_eq!(apart.status().paired_substeps, 0, "{label}: Never paired");
    assert!(
        to_apart <= 1e-5,
        "{label}: depth {to_apart} m apart at cell {cell}"
    );
    assert!(
        to_apart_q <= 1e-5,
        "{label}: discharges {to_apart_q} m³/s apart"
    );
    let balance = (p.volume - a.volume).abs() / a.volume;
    // The water in the cells; the carries held back differ by a step.
    assert!(
        balance <= 1e-8,
        "{label}: volume {} against {}",
        p.volume,
        a.volume
    );
    assert_eq!(p.time, a.time, "{label}: time");
    assert_eq!(p.steps, a.steps, "{label}: steps");
    assert_eq!(p.substeps, a.substeps, "{label}: sub-steps");
    assert!(to_cpu <= 1e-3, "{label}: {to_cpu} m from the CPU");
    n
}

#[test]
fn a_pair_pass_gives_what_two_flow_passes_give() {
    // 61 steps in batches of 10, 50 and 1: each batch pairs its steps two by two and runs an
    // odd last one alone.
    let steps = 61;
    let peers = basin(
        CrossSection::Constant,
        Friction::Linear { per_second: 0.04 },
    );
    let n = same_either_way(&peers, "constant pipe", steps);
    assert_eq!(n, 60, "every batch's steps in pairs but the lone last one");

    let mut manning = basin(CrossSection::FaceDepth, Friction::Manning { n: 0.03 });
    manning.roughness = Some(Grid::from_fn(manning.nx(), manning.ny(), |i, j| {
        0.013 + 0.09 * ((3 * i + 5 * j) % 11) as f32 / 10.0
    }));
    manning.params.rain_mm_per_hour = 360.0;
    let n = same_either_way(&manning, "face depth, Manning grid, rain", steps);
    assert!(n > 0, "some steps paired");
}

#[test]
fn momentum_pairs_give_what_two_fused_flow_passes_give() {
    let steps = 61;
    // Steps short enough that a pair's twice as long sub-step stays stable as the column falls.
    let mut pipes = basin(CrossSection::FaceDepth, Friction::Manning { n: 0.03 });
    pipes.params.pipe_advection = true;
    pipes.params.dt = 0.02;
    let n = same_either_way(&pipes, "face depth, momentum advection, Manning", steps);
    assert!(n >= 40, "most steps paired ({n})");

    let mut swe = basin(
        CrossSection::FaceDepth,
        Friction::Linear { per_second: 0.04 },
    );
    swe.params.solver = SolverKind::Swe;
    swe.params.advection = Advection::Conservative;
    swe.params.rain_mm_per_hour = 360.0;
    swe.params.dt = 0.02;
    let n = same_either_way(&swe, "shallow water, conservative advection, rain", steps);
    assert!(n >= 40, "most steps paired ({n})");
}

#[test]
fn steps_of_two_sub_steps_run_them_as_one_pair() {
    // 2 × 0.12 s is past the stable sub-step over 2.9 m of water at CFL 0.5 (0.094 s), so no
    // two steps pair; one 0.12 s step takes two sub-steps, and those pair. The water is the
    // same as one pass a sub-step, to the last bits.
    let mut level = basin(
        CrossSection::Constant,
        Friction::Linear { per_second: 0.04 },
    );
    level.params.dt = 0.12;
    let steps = 20;
    let n = same_either_way(&level, "long steps", steps);
    assert_eq!(
        n as usize,
        2 * steps,
        "each step's two sub-steps as one pair, and no two steps"
    );

    let mut swe = basin(CrossSection::FaceDepth, Friction::Manning { n: 0.03 });
    swe.params.solver = SolverKind::Swe;
    swe.params.dt = 0.12;
    let n = same_either_way(&swe, "shallow water, long steps", steps);
    assert!(n as usize >= steps, "sub-steps paired ({n})");

    let mut default = basin(CrossSection::FaceDepth, Friction::Manning { n: 0.03 });
    default.params.pipe_advection = true;
    default.params.dt = 0.12;
    let n = same_either_way(
        &default,
        "face depth, momentum advection, long steps",
        steps,
    );
    assert!(n as usize >= steps, "sub-steps paired ({n})");
}

#[test]
fn a_dam_breaks_front_held_in_sub_step_pairs_as_in_single_passes() {
    // A metre of water released over a dry flat at a Courant number of 1, steps of 1.6 cells
    // over the wave speed √(g·h₀): each takes two sub-steps or more (three while the gravity
    // waves' limit of 1/√2 of a cell holds them), the first two paired. The front runs at
    // 2√(g·h₀), past a cell a sub-step, so its films are held to dx over the sub-step's length:
    // a pair that held them over the step's length ran them at half that speed.
    let (nx, ny) = (300, 24);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.water = Grid::from_fn(nx, ny, |i, _| if i < 80 { 1.0 } else { 0.0 });
    let p = &mut level.params;
    p.solver = SolverKind::Swe;
    p.advection = Advection::Conservative;
    p.cross_section = CrossSection::FaceDepth;
    p.friction = Friction::Linear { per_second: 0.0 };
    p.default_boundary = BoundaryKind::Wall;
    p.cfl = 1.0;
    p.dt = 1.6 / (p.gravity * 1.0).sqrt();
    let steps = 12;
    let n = same_either_way(&level, "dam break, films at the front", steps);
    assert!(n as usize >= steps, "sub-steps paired ({n})");
}
