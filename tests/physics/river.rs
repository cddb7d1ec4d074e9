//! A river as a designer builds one: a 1 km channel on a 0.5 % slope with Manning's n = 0.035,
//! fed 20 m³/s by an inflow edge and leaving through an open edge. Starting dry, it must settle
//! at the normal depth and speed of Manning's formula, leave without backing up at the outlet,
//! and keep its volume ledger exact over 10⁵ steps.

use spillway::level::{Boundary, BoundaryKind, Edge, Friction};
use spillway::{Grid, Level, Simulation, SolverKind};

const LENGTH: f32 = 1000.0;
const DX: f32 = 2.0;
const WIDTH_CELLS: usize = 10;
const SLOPE: f64 = 0.005;
const N: f64 = 0.035;
const Q: f64 = 20.0;

fn river(solver: SolverKind) -> Level {
    let nx = (LENGTH / DX) as usize;
    let mut level = Level::flat(nx, WIDTH_CELLS, DX, 0.0);
    level.terrain = Grid::from_fn(nx, WIDTH_CELLS, |i, _| {
        (SLOPE * (LENGTH as f64 - (i as f64 + 0.5) * DX as f64)) as f32
    });
    level.params.solver = solver;
    level.params.friction = Friction::Manning { n: N as f32 };
    level.params.dt = 0.02;
    for (edge, kind) in [
        (Edge::West, BoundaryKind::Inflow { m3_per_s: Q as f32 }),
        (Edge::East, BoundaryKind::Open),
    ] {
        level.boundaries.push(Boundary {
            edge,
            start: 0,
            end: WIDTH_CELLS as u32,
            kind,
        });
    }
    level
}

/// Manning's normal depth and speed of a wide channel: `q = h^(5/3)·S^(1/2)/n` per metre.
fn normal_flow() -> (f64, f64) {
    let q = Q / (WIDTH_CELLS as f64 * DX as f64);
    let h = (q * N / SLOPE.sqrt()).powf(0.6);
    (h, q / h)
}

/// Mean depth and speed of the cells whose centres lie in `x0..x1` metres.
fn reach(sim: &Simulation, x0: f32, x1: f32) -> (f64, f64) {
    let (nx, ny) = (sim.nx(), sim.ny());
    let (qx, _) = sim.discharges();
    let (mut h, mut u, mut n) = (0.0, 0.0, 0.0);
    for i in 0..nx {
        let x = (i as f32 + 0.5) * DX;
        if x < x0 || x >= x1 {
            continue;
        }
        for j in 0..ny {
            let d = sim.depth()[j * nx + i] as f64;
            // The discharge at the cell's centre: the mean of its two x-faces, per metre.
            let q = 0.5 * (qx[j * (nx + 1) + i] + qx[j * (nx + 1) + i + 1]) as f64 / DX as f64;
            h += d;
            u += q / d;
            n += 1.0;
        }
    }
    (h / n, u / n)
}

#[test]
fn a_1_km_river_settles_at_manning_normal_depth_and_drains_through_an_open_edge() {
    let (h_n, u_n) = normal_flow();
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let level = river(solver);
        let mut sim = Simulation::new(&level).unwrap();
        let mut worst_balance = 0.0f64;
        for k in 0..100_000u32 {
            sim.step(level.params.dt).unwrap();
            if k % 1000 == 999 {
                worst_balance = worst_balance.max(sim.stats().balance_error.abs());
            }
        }
        let s = sim.stats();
        let (h, u) = reach(&sim, 300.0, 700.0);
        let (h_out, _) = reach(&sim, LENGTH - 4.0 * DX, LENGTH);
        let q_out = s.outflow;
        println!(
            "{solver:?}: normal depth {h_n:.4} m, speed {u_n:.4} m/s; mid-reach {h:.4} m, \
             {u:.4} m/s ({:+.2} %, {:+.2} %); outlet {h_out:.4} m; balance {:e} (worst {:e}); \
             {:.1} m³ out of {:.1} m³ in, {} sub-steps",
            100.0 * (h / h_n - 1.0),
            100.0 * (u / u_n - 1.0),
            s.balance_error,
            worst_balance,
            q_out,
            s.inflow,
            s.substeps,
        );
        assert!(
            (h / h_n - 1.0).abs() < 0.05,
            "{solver:?}: depth {h} vs {h_n}"
        );
        assert!(
            (u / u_n - 1.0).abs() < 0.05,
            "{solver:?}: speed {u} vs {u_n}"
        );
        // The outlet does not back the river up: no deeper than the normal depth (+5 %).
        assert!(h_out < 1.05 * h_n, "{solver:?}: outlet {h_out} vs {h_n}");
        // Steady: what leaves is what enters (over the last 1000 steps).
        let before = sim.stats();
        sim.advance(20.0).unwrap();
        let after = sim.stats();
        let rate_out = (after.outflow - before.outflow) / 20.0;
        assert!(
            (rate_out / Q - 1.0).abs() < 0.01,
            "{solver:?}: {rate_out} m³/s leave of {Q}"
        );
        assert!(worst_balance < 1e-6, "{solver:?}: balance {worst_balance}");
        assert!(sim.depth().iter().all(|d| d.is_finite() && *d >= 0.0));
    }
}

#[test]
fn manning_slows_thin_films_that_linear_friction_lets_race() {
    // A 1 cm film on a 5 % slope: Manning's law gives h^(2/3)·S^(1/2)/n ≈ 0.3 m/s; the old
    // linear law (0.02 per second) lets it reach g·S/0.02 ≈ 24 m/s.
    let speed = |friction: Friction| {
        let mut level = Level::flat(200, 4, 1.0, 0.0);
        level.terrain = Grid::from_fn(200, 4, |i, _| 0.05 * (200 - i) as f32);
        level.water = Grid::filled(200, 4, 0.01);
        level.params.friction = friction;
        level.params.dt = 0.02;
        let mut sim = Simulation::new(&level).unwrap();
        sim.advance(10.0).unwrap();
        let (qx, _) = sim.discharges();
        let nx = sim.nx();
        // Mid-slope speed, row 1.
        let i = 100;
        let d = sim.depth()[nx + i];
        (qx[(nx + 1) + i] / (d * level.cell_size), d)
    };
    let (manning, d) = speed(Friction::Manning { n: 0.035 });
    let (linear, _) = speed(Friction::Linear { per_second: 0.02 });
    println!("film speed: Manning {manning:.3} m/s at {d:.4} m, linear {linear:.3} m/s");
    let expected = d.powf(2.0 / 3.0) * 0.05f32.sqrt() / 0.035;
    assert!(
        (manning / expected - 1.0).abs() < 0.1,
        "{manning} vs {expected}"
    );
    assert!(linear > 5.0 * manning);
}

/// A 200 m reach of the same river, settled: 20 000 steps of 0.02 s.
fn settled_reach() -> (Level, Simulation) {
    let mut level = river(SolverKind::Pipes);
    let nx = 100;
    level.terrain = Grid::from_fn(nx, WIDTH_CELLS, |i, _| {
        (SLOPE * (200.0 - (i as f64 + 0.5) * DX as f64)) as f32
    });
    level.water = Grid::filled(nx, WIDTH_CELLS, 0.0);
    let mut sim = Simulation::new(&level).unwrap();
    for _ in 0..20_000 {
        sim.step(level.params.dt).unwrap();
    }
    (level, sim)
}

#[test]
fn a_discharge_line_across_a_steady_river_reads_its_inflow_within_1_percent() {
    use spillway::level::GaugeKind;
    let (_, sim) = settled_reach();
    let width = WIDTH_CELLS as f32 * DX;
    for (label, from, to) in [
        ("straight", [101.0, 0.0], [101.0, width]),
        ("slanted", [80.0, 0.0], [120.0, width]),
        ("reversed", [101.0, width], [101.0, 0.0]),
    ] {
        let q = sim.gauge(&GaugeKind::Discharge { from, to }).value();
        println!("{label}: {q:.4} m³/s of {Q}");
        let expect = if label == "reversed" { -Q } else { Q };
        assert!(
            ((q as f64 - expect) / Q).abs() < 0.01,
            "{label}: {q} m³/s, inflow {Q}"
        );
    }
    // A stage gauge in the middle reads the normal depth above the bed.
    let (h, _) = normal_flow();
    let reading = sim.gauge(&GaugeKind::Stage { x: 101.0, y: 10.0 });
    let spillway::sim::gauges::GaugeReading::Stage { depth, .. } = reading else {
        panic!("{reading:?}");
    };
    assert!(
        ((depth as f64 - h) / h).abs() < 0.05,
        "{depth} m, normal {h:.3} m"
    );
}
