//! The fused flow pass (advection, flow and store in one dispatch) computes what the three
//! passes compute, and agrees with the CPU as they do, for every physics it runs: the pipes with
//! momentum advection (face-depth and upwind sections), the conservative shallow-water mode, and
//! Manning friction with a roughness grid; on a grid of several strips each way, where the
//! pass's workgroups meet.

use spillway::gpu::{Fusion, GpuSimulation};
use spillway::level::{
    Advection, Boundary, BoundaryKind, CrossSection, Edge, Friction, Shape, SolverKind, Source,
    SourceKind,
};
use spillway::{Grid, Level};

use crate::support::{busy_scene, gpu, max_diff, run_cpu, run_gpu};

const STEPS: usize = 600;

fn run(level: &Level, fusion: Fusion) -> GpuSimulation {
    let mut sim = gpu(level);
    sim.set_fusion(fusion);
    run_gpu(&mut sim, STEPS, 100);
    sim
}

fn check(level: &Level, label: &str) {
    let cpu = run_cpu(level, STEPS);
    let mut fused = run(level, Fusion::Always);
    let mut apart = run(level, Fusion::Never);
    let (f, a) = (fused.stats().unwrap(), apart.stats().unwrap());
    let depth = fused.read_depth().unwrap();
    let (to_cpu, _) = max_diff(cpu.depth(), &depth);
    let (to_apart, cell) = max_diff(&apart.read_depth().unwrap(), &depth);
    let (qx, qy) = fused.read_discharges().unwrap();
    let (ax, ay) = apart.read_discharges().unwrap();
    let to_apart_q = max_diff(&ax, &qx).0.max(max_diff(&ay, &qy).0);
    println!(
        "{label}: fused against three passes: max |Δdepth| {to_apart:.2e} m at cell {cell}, \
         |Δq| {to_apart_q:.2e} m³/s; against the CPU {to_cpu:.2e} m; sub-steps {}/{}/{}",
        f.substeps,
        a.substeps,
        cpu.stats().substeps
    );
    assert!(to_apart <= 1e-5, "{label}: {to_apart} m from three passes");
    assert!(
        to_apart_q <= 1e-5,
        "{label}: {to_apart_q} m³/s from three passes"
    );
    assert!(to_cpu <= 1e-3, "{label}: {to_cpu} m from the CPU");
    assert_eq!(f.substeps, cpu.stats().substeps, "{label}: sub-steps");
    assert_eq!(f.substeps, a.substeps, "{label}: sub-steps");
    assert!(
        (f.volume - a.volume).abs() <= 1e-6 * a.volume.max(1.0),
        "{label}: volume {} against {}",
        f.volume,
        a.volume
    );
}

#[test]
fn the_fused_pass_matches_three_passes_and_the_cpu() {
    for cs in [CrossSection::FaceDepth, CrossSection::Upwind] {
        let mut level = busy_scene(SolverKind::Pipes);
        level.params.cross_section = cs;
        level.params.pipe_advection = true;
        check(&level, &format!("pipes {cs:?} with advection"));
    }
    let mut level = busy_scene(SolverKind::Swe);
    level.params.advection = Advection::Conservative;
    check(&level, "SWE conservative");
    let mut level = busy_scene(SolverKind::Pipes);
    level.params.pipe_advection = true;
    level.params.friction = Friction::Manning { n: 0.03 };
    level.roughness = Some(Grid::from_fn(level.nx(), level.ny(), |i, j| {
        0.013 + 0.09 * ((3 * i + 5 * j) % 11) as f32 / 10.0
    }));
    check(
        &level,
        "pipes with advection, Manning with a roughness grid",
    );
}

/// A 262 × 61 valley (three strips across, three down on a software adapter, whose strips are
/// 124 columns and 27 rows; thirteen down on a GPU, which cuts a grid this small in strips of 5
/// rows: `gpu::flow::strips_for`) with a dam break running east across the strips' seams, a hump of water
/// spreading both ways over a seam, rain, a source, an open east edge and an inflow on the north.
fn wide_scene(solver: SolverKind) -> Level {
    let (nx, ny) = (262, 61);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |i, j| {
        let (x, y) = (i as f32 / nx as f32, j as f32 / ny as f32);
        2.0 * (9.0 * x).sin() * (5.0 * y).cos() - 1.5 * x
    });
    level.water = Grid::from_fn(nx, ny, |i, j| {
        let dam = if i < 110 { 2.5 } else { -1.0 };
        let hump = if (i as i32 - 248).pow(2) + (j as i32 - 27).pow(2) < 64 {
            1.2
        } else {
            0.0
        };
        (dam - level.terrain.get(i, j)).max(0.0) + hump
    });
    let p = &mut level.params;
    p.solver = solver;
    p.dt = 0.05;
    p.friction = Friction::Manning { n: 0.03 };
    p.rain_mm_per_hour = 90.0;
    level.sources.push(Source {
        name: "spring".into(),
        shape: Shape::Circle {
            x: 180.0,
            y: 54.0,
            radius: 3.0,
        },
        kind: SourceKind::Rate { m3_per_s: 2.0 },
        enabled: true,
    });
    level.boundaries = vec![
        Boundary {
            edge: Edge::East,
            start: 0,
            end: ny as u32,
            kind: BoundaryKind::Open,
        },
        Boundary {
            edge: Edge::North,
            start: 120,
            end: 130,
            kind: BoundaryKind::Inflow { m3_per_s: 1.0 },
        },
    ];
    level
}

#[test]
fn the_fused_pass_matches_three_passes_where_its_strips_meet() {
    let mut level = wide_scene(SolverKind::Pipes);
    level.params.pipe_advection = true;
    check(&level, "pipes with advection, 262 × 61");
    let mut level = wide_scene(SolverKind::Swe);
    level.params.advection = Advection::Conservative;
    check(&level, "SWE conservative, 262 × 61");
}
