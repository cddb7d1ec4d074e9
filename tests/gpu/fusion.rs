//! The fused flow pass (advection, flow and store in one dispatch) computes what the three
//! passes compute, and agrees with the CPU as they do, for every physics it runs: the pipes with
//! momentum advection (face-depth and upwind sections), the conservative shallow-water mode, and
//! Manning friction with a roughness grid.

use spillway::gpu::{Fusion, GpuSimulation};
use spillway::level::{Advection, CrossSection, Friction, SolverKind};
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
