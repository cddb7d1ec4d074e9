//! SWASHES' bedload solutions (dimension 1, type 5; Berthon, Cordier, Delestre and Le 2012): a
//! steady river of q = 1 m²/s over a bed that the flow lowers evenly by β·t, since the bedload
//! `A·u³` grows linearly downstream. Choice 1 uses Grass's law with SWASHES' `A`; choice 2
//! Meyer-Peter and Müller with SWASHES' grains (d = 0.5 mm, 2600 kg/m³, f = 0.25), whose `A`
//! SWASHES' solution takes without the critical Shields number, so the run does too.

use spillway::level::{
    BedloadLaw, Boundary, BoundaryKind, Edge, FlowState, Friction, Level, Sediment, SolverKind,
};
use spillway::{Grid, Simulation};

use crate::swashes::{Backend, Outcome, Reference};

/// The number after `key=` in SWASHES' header (`beta=0.005 m^2/s` → 0.005).
fn header_value(r: &Reference, key: &str) -> Option<f64> {
    r.header.iter().find_map(|line| {
        line.split([',', ' '])
            .find_map(|token| token.strip_prefix(key))
            .and_then(|v| v.parse().ok())
    })
}

/// Runs bedload case `choice` (1 Grass, 2 Meyer-Peter and Müller) on `cells` cells with
/// `solver` on `backend`; the error is the L1 error of the bed, the balance the bed's (the
/// CPU's ledger; NaN on the GPU, which keeps none).
pub fn run(
    choice: u32,
    cells: usize,
    solver: SolverKind,
    backend: Backend,
) -> Result<Outcome, String> {
    let (level, r, t) = setup(choice, cells, solver)?;
    let n = level.nx();
    let (terrain, depth, balance, seconds) = match backend {
        Backend::Cpu => {
            let mut sim = Simulation::new(&level).map_err(|e| e.to_string())?;
            sim.advance(t).map_err(|e| e.to_string())?;
            let bed = sim.bed_stats().ok_or("no bed")?;
            let (z, h) = (sim.terrain().to_vec(), sim.depth().to_vec());
            (z, h, bed.balance_error, sim.time())
        }
        Backend::Gpu => run_gpu(&level, t)?,
    };
    let (mut err, mut sum) = (0.0, 0.0);
    for (i, &z) in r.z.iter().take(n).enumerate() {
        let ours = (terrain[i] + terrain[n + i]) as f64 / 2.0;
        if std::env::var_os("SPILLWAY_SWASHES_DUMP").is_some() {
            let h = depth[i];
            eprintln!(
                "{:>8.4} {:>10.5} {:>10.5} {h:>10.5} {:>10.5}",
                r.x[i], ours, z, r.h[i]
            );
        }
        err += (ours - z).abs();
        sum += z.abs();
    }
    Ok(Outcome {
        l1: err / sum.max(1e-12),
        balance,
        seconds,
    })
}

/// The level of bedload case `choice` on `cells` cells with `solver` (2 cells wide, the river
/// steady, the bed β·t above SWASHES' at t), SWASHES' reference, and t.
pub fn setup(
    choice: u32,
    cells: usize,
    solver: SolverKind,
) -> Result<(Level, Reference, f64), String> {
    let r = Reference::compute([1, 5, 1, choice], cells, None)?;
    let t = r.param("Time value").ok_or("no time in SWASHES' header")?;
    let beta = header_value(&r, "beta=").ok_or("no beta")?;
    let q = header_value(&r, "q=").ok_or("no q")?;
    let law = if choice == 1 {
        BedloadLaw::Grass {
            a: header_value(&r, "A=").ok_or("no A")? as f32,
        }
    } else {
        BedloadLaw::MeyerPeterMuller {
            diameter: header_value(&r, "d=").ok_or("no d")? as f32,
            density: header_value(&r, "rs=").ok_or("no rs")? as f32,
            critical_shields: 0.0,
            friction_factor: header_value(&r, "f=").ok_or("no f")? as f32,
        }
    };
    // SWASHES ends this solution with a row of zeros: the cells are the rows before it.
    let n = r.x.iter().take_while(|&&x| x > 1e-9).count();
    let dx = (2.0 * r.x[0]) as f32;
    // The bed at t = 0 stood β·t higher everywhere; the river is steady.
    let z0 = |i: usize| (r.z[i] + beta * t) as f32;
    let mut level = Level::flat(n, 2, dx, 0.0);
    level.terrain = Grid::from_fn(n, 2, |i, _| z0(i));
    level.water = Grid::from_fn(n, 2, |i, _| r.h[i] as f32);
    level.params.solver = solver;
    level.params.friction = Friction::NONE;
    level.params.dt = 0.005;
    level.params.sediment = Some(Sediment {
        law,
        porosity: 0.0,
        talus_degrees: 90.0,
        slump_per_second: 0.0,
        clear_inflow: false,
        layer: 5.0,
        speedup: 1.0,
        suspension: None,
        region: None,
    });
    let width = 2.0 * dx as f64;
    for (edge, kind) in [
        (
            Edge::West,
            BoundaryKind::Inflow {
                m3_per_s: (q * width) as f32,
            },
        ),
        (Edge::East, BoundaryKind::Open),
    ] {
        level.boundaries.push(Boundary {
            edge,
            start: 0,
            end: 2,
            kind,
        });
    }
    // Faces carry q; pipes hold discharges, the shallow-water solver velocities (of the
    // upwind cell) with the discharges as its second field.
    let per_face = (q * dx as f64) as f32;
    let speed = |f: usize| (q / r.h[f.saturating_sub(1).min(n - 1)]) as f32;
    let (flow_x, aux_x): (Vec<f32>, Vec<f32>) = (0..2)
        .flat_map(|_| 0..=n)
        .map(|f| match solver {
            SolverKind::Pipes => (per_face, per_face),
            SolverKind::Swe => (speed(f), per_face),
        })
        .unzip();
    level.flow = Some(FlowState {
        solver,
        flow_x,
        flow_y: vec![0.0; n * 3],
        aux_x: if solver == SolverKind::Swe {
            aux_x
        } else {
            Vec::new()
        },
        aux_y: if solver == SolverKind::Swe {
            vec![0.0; n * 3]
        } else {
            Vec::new()
        },
        ..Default::default()
    });
    Ok((level, r, t))
}

/// Terrain, depth, balance (NaN) and simulated time after `seconds` of `level` on the GPU.
#[cfg(feature = "gpu")]
fn run_gpu(level: &Level, seconds: f64) -> Result<(Vec<f32>, Vec<f32>, f64, f64), String> {
    let fail = |e: spillway::gpu::GpuError| e.to_string();
    let mut sim = spillway::gpu::GpuSimulation::headless(level).map_err(fail)?;
    let dt = level.params.dt;
    let steps = (seconds / dt as f64).round() as usize;
    let mut done = 0;
    while done < steps {
        let n = 200.min(steps - done);
        sim.step_n(n, dt).map_err(fail)?;
        sim.catch_up(dt).map_err(fail)?;
        done += n;
    }
    let time = sim.stats().map_err(fail)?.time;
    let terrain = sim.read_terrain().map_err(fail)?;
    let depth = sim.read_depth().map_err(fail)?;
    Ok((terrain, depth, f64::NAN, time))
}

#[cfg(not(feature = "gpu"))]
fn run_gpu(_: &Level, _: f64) -> Result<(Vec<f32>, Vec<f32>, f64, f64), String> {
    Err("the GPU backend needs the `gpu` feature of spillway-tests".into())
}
