//! Dry strips left out (`GpuSimulation::set_dry_skip`, here `DrySkip::Always`, since lavapipe
//! leaves none out by default): the fused flow pass and the pair pass leave out strips with no
//! water around, and the water is the same as with every strip run:
//! depth, both discharges, both face velocities and the carries, value for value (a zero may
//! keep the sign it had), with the same time, sub-steps and volume. On a valley a river enters
//! from the west edge, a spring far from it starts after 4 s (the forcing pass must wake its
//! dry strips), water is painted into dry ground mid-run (an upload must wake them too), and
//! the east edge is open; and on a walled basin whose steps run in pairs.

use spillway::gpu::{DrySkip, GpuSimulation, Pairing};
use spillway::level::{
    Boundary, BoundaryKind, Edge, Friction, Schedule, Shape, SolverKind, Source, SourceKind,
};
use spillway::snapshot::WaterState;
use spillway::{Grid, Level};

use crate::support::gpu;

/// Three strips across (124 columns each on lavapipe), 96 rows, 1 m cells.
const NX: usize = 372;
const NY: usize = 96;

/// A valley falling to the east: a river in at the west edge, a spring at (300, 30) from 4 s,
/// an open east edge.
fn valley(solver: SolverKind) -> Level {
    let mut level = Level::flat(NX, NY, 1.0, 0.0);
    level.terrain = Grid::from_fn(NX, NY, |i, j| {
        3.0 - 0.006 * i as f32 + 0.03 * (j as f32 - 48.0).abs() + 0.1 * (0.3 * i as f32).sin()
    });
    let p = &mut level.params;
    p.solver = solver;
    p.pipe_advection = true;
    p.friction = Friction::Manning { n: 0.03 };
    p.default_boundary = BoundaryKind::Wall;
    p.dt = 0.05;
    level.boundaries = vec![
        Boundary {
            edge: Edge::West,
            start: 40,
            end: 56,
            kind: BoundaryKind::Inflow { m3_per_s: 4.0 },
        },
        Boundary {
            edge: Edge::East,
            start: 0,
            end: NY as u32,
            kind: BoundaryKind::Open,
        },
    ];
    level.sources.push(Source {
        name: "late spring".into(),
        shape: Shape::Circle {
            x: 300.0,
            y: 30.0,
            radius: 3.0,
        },
        kind: SourceKind::Hydrograph(Schedule {
            points: vec![[0.0, 0.0], [4.0, 0.0], [4.05, 2.0], [100.0, 2.0]],
            period: None,
        }),
        enabled: true,
    });
    level
}

/// A 372 × 96 walled basin: a column of water let go at the west end, the rest dry.
fn basin() -> Level {
    let mut level = Level::flat(NX, NY, 1.0, 0.0);
    level.terrain = Grid::from_fn(NX, NY, |i, j| {
        1.0 + 0.004 * i as f32 + 0.2 * (0.2 * j as f32).sin()
    });
    level.water = Grid::from_fn(NX, NY, |i, _| if i < 30 { 1.5 } else { 0.0 });
    let p = &mut level.params;
    p.solver = SolverKind::Pipes;
    p.pipe_advection = true;
    p.friction = Friction::Manning { n: 0.03 };
    p.default_boundary = BoundaryKind::Wall;
    p.dt = 0.02;
    p.cfl = 0.5;
    level
}

/// Steps `sim` `steps` times in chunks of 20 (stats read after each), painting water into the
/// dry ground at (320..330, 70..80) after `paint` steps.
fn run(sim: &mut GpuSimulation, steps: usize, paint: Option<usize>) {
    let dt = sim.params().dt;
    let mut done = 0;
    while done < steps {
        if paint == Some(done) {
            sim.update_water_region(320, 70, 10, 10, &[0.4; 100])
                .expect("water painted");
        }
        let k = 20.min(steps - done);
        sim.step_n(k, dt).expect("steps recorded");
        sim.stats().expect("stats");
        done += k;
    }
    assert!(sim.status().halted.is_none(), "{:?}", sim.status().halted);
}

fn state(sim: &mut GpuSimulation) -> WaterState {
    assert!(sim.request_state().expect("copy requested"));
    let copy = sim.poll_state(true).expect("copy ready").expect("copy");
    copy.read().expect("state")
}

/// Values that differ (`==`: a zero's sign does not count), and the first of them.
fn differ(a: &[f32], b: &[f32]) -> (usize, Option<usize>) {
    assert_eq!(a.len(), b.len());
    let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
    (diff.len(), diff.first().copied())
}

/// Runs `level` with and without dry strips left out and asserts the same water; returns the
/// share of strips left out.
fn same_water(level: &Level, pairing: Pairing, steps: usize, paint: Option<usize>) -> f64 {
    let mut runs = [true, false].map(|on| {
        let mut sim = gpu(level);
        sim.set_pairing(pairing);
        let skip = if on { DrySkip::Always } else { DrySkip::Never };
        sim.set_dry_skip(skip).expect("passes rebuilt");
        run(&mut sim, steps, paint);
        sim
    });
    let [skip, all] = &mut runs;
    let (s, a) = (skip.stats().unwrap(), all.stats().unwrap());
    assert_eq!(s.time, a.time, "time");
    assert_eq!(s.substeps, a.substeps, "sub-steps");
    assert_eq!(s.volume, a.volume, "volume");
    let (ws, wa) = (state(skip), state(all));
    for (name, x, y) in [
        ("depth", &ws.depth, &wa.depth),
        ("x-faces", &ws.flow.flow_x, &wa.flow.flow_x),
        ("y-faces", &ws.flow.flow_y, &wa.flow.flow_y),
        ("carry", &ws.flow.carry, &wa.flow.carry),
        ("x velocities", &ws.flow.aux_x, &wa.flow.aux_x),
        ("y velocities", &ws.flow.aux_y, &wa.flow.aux_y),
    ] {
        let (n, first) = differ(x, y);
        assert_eq!(n, 0, "{name}: {n} values differ, the first at {first:?}");
    }
    let (st, at) = (skip.status(), all.status());
    assert_eq!(at.quiet_strips, 0, "strips left out with the skip off");
    let share = f64::from(st.quiet_strips) / f64::from(st.quiet_strips + st.busy_strips).max(1.0);
    println!(
        "{} of {} strips left out ({:.3}), {} paired sub-steps, volume {:.3} m³",
        st.quiet_strips,
        st.quiet_strips + st.busy_strips,
        share,
        st.paired_substeps,
        s.volume
    );
    share
}

#[test]
fn dry_strips_left_out_give_the_same_water_as_every_strip_run() {
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let level = valley(solver);
        // 12 s: the spring runs from 4 s, the water painted in at 6 s.
        let share = same_water(&level, Pairing::Never, 240, Some(120));
        assert!(
            share > 0.05,
            "{solver:?}: only {share} of the strips left out"
        );
    }
}

#[test]
fn dry_strips_left_out_in_pairs_give_the_same_water() {
    let level = basin();
    let share = same_water(&level, Pairing::Always, 200, None);
    assert!(share > 0.2, "only {share} of the strips left out");
}
