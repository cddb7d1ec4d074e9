//! Volume balance in closed and open basins, absorbing open edges, fixed levels and inflows.

use spillway::level::{Boundary, BoundaryKind, Edge, SolverKind};
use spillway::{Grid, Level, Simulation};
use spillway_tests::*;

const SOLVERS: [SolverKind; 2] = [SolverKind::Pipes, SolverKind::Swe];

/// A 32×24 basin on a slope with a sloshing hump of water.
fn sloshing_basin(solver: SolverKind) -> Level {
    let (nx, ny) = (32, 24);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |i, j| {
        0.05 * i as f32 + 0.3 * ((i + 2 * j) as f32 * 0.4).sin()
    });
    level.water = Grid::from_fn(nx, ny, |i, j| {
        let r2 = ((i as f32 - 10.0).powi(2) + (j as f32 - 12.0).powi(2)) / 16.0;
        (1.5 - level.terrain.get(i, j)).max(0.0) + 0.8 * (-r2).exp()
    });
    level.params.solver = solver;
    level.params.friction = spillway::level::Friction::NONE;
    level.params.dt = 0.05;
    level
}

#[test]
fn closed_basin_conserves_volume_over_100k_steps() {
    for solver in SOLVERS {
        let level = sloshing_basin(solver);
        let mut sim = Simulation::new(&level).unwrap();
        for _ in 0..100_000 {
            sim.step(level.params.dt).unwrap();
        }
        let s = sim.stats();
        println!(
            "{solver:?}: closed basin balance error {:e} after {} steps",
            s.balance_error, s.steps
        );
        assert!(
            s.balance_error.abs() < 1e-6,
            "{solver:?}: {}",
            s.balance_error
        );
        assert_eq!(s.inflow, 0.0);
        assert_eq!(s.outflow, 0.0);
        assert_healthy(&sim);
    }
}

#[test]
fn ledger_balances_sources_sinks_and_open_edges_over_100k_steps() {
    for solver in SOLVERS {
        let mut level = sloshing_basin(solver);
        level.sources.push(spillway::level::Source {
            name: "spring".into(),
            shape: spillway::level::Shape::Circle {
                x: 5.0,
                y: 5.0,
                radius: 2.0,
            },
            kind: spillway::level::SourceKind::Rate { m3_per_s: 0.5 },
            enabled: true,
        });
        level.sinks.push(spillway::level::Sink {
            name: "drain".into(),
            shape: spillway::level::Shape::Point { x: 20.5, y: 20.5 },
            kind: spillway::level::SinkKind::Rate { m3_per_s: 0.2 },
            enabled: true,
        });
        level.boundaries.push(Boundary {
            edge: Edge::East,
            start: 4,
            end: 20,
            kind: BoundaryKind::Open,
        });
        level.boundaries.push(Boundary {
            edge: Edge::North,
            start: 0,
            end: 8,
            kind: BoundaryKind::Inflow { m3_per_s: 0.3 },
        });
        let mut sim = Simulation::new(&level).unwrap();
        for _ in 0..100_000 {
            sim.step(level.params.dt).unwrap();
        }
        let s = sim.stats();
        println!(
            "{solver:?}: open basin in {:.1} out {:.1} m³, balance error {:e}",
            s.inflow, s.outflow, s.balance_error
        );
        assert!(
            s.inflow > 1000.0 && s.outflow > 100.0,
            "water must pass through: {s:?}"
        );
        assert!(
            s.balance_error.abs() < 1e-6,
            "{solver:?}: {}",
            s.balance_error
        );
        assert_healthy(&sim);
    }
}

#[test]
fn open_edges_absorb_waves() {
    for solver in SOLVERS {
        let (n, dx) = (400, 0.5f32);
        let mut open = channel(n, dx, solver, |x| {
            2.0 + 0.05 * (-((x - 100.0) / 5.0).powi(2)).exp()
        });
        let walled = open.clone();
        open_ends(&mut open);
        let mut results = Vec::new();
        for level in [&open, &walled] {
            let mut sim = Simulation::new(level).unwrap();
            let e0 = energy(&sim, 2.0);
            // Both halves of the hump reach an edge within 100 m / 4.4 m/s ≈ 23 s; wait 60 s.
            sim.advance(60.0).unwrap();
            results.push(energy(&sim, 2.0) / e0);
        }
        println!(
            "{solver:?}: energy left {:.2}% with open ends, {:.2}% with walls",
            results[0] * 100.0,
            results[1] * 100.0
        );
        assert!(
            results[0] < 0.10,
            "{solver:?}: open edges reflected {:.1}% of the energy",
            results[0] * 100.0
        );
        assert!(results[1] > 0.5, "walls must keep the wave");
    }
}

#[test]
fn fixed_level_edge_fills_to_its_level() {
    for solver in SOLVERS {
        let mut level = Level::flat(40, 10, 1.0, 0.0);
        level.water = Grid::filled(40, 10, 0.5);
        level.params.solver = solver;
        level.params.friction = spillway::level::Friction::Linear { per_second: 0.3 };
        level.boundaries.push(Boundary {
            edge: Edge::West,
            start: 0,
            end: 10,
            kind: BoundaryKind::FixedLevel { surface: 1.2 },
        });
        let mut sim = Simulation::new(&level).unwrap();
        sim.advance(300.0).unwrap();
        let far = sim.surface_at(38.5, 5.0);
        println!("{solver:?}: far end surface {far:.4} m");
        assert!((far - 1.2).abs() < 0.01, "{solver:?}: far end at {far}");
        let s = sim.stats();
        assert!(s.balance_error.abs() < 1e-6);
    }
}

#[test]
fn inflow_edge_adds_its_rate() {
    for solver in SOLVERS {
        let mut level = Level::flat(20, 20, 1.0, 0.0);
        level.water = Grid::filled(20, 20, 0.2);
        level.params.solver = solver;
        level.boundaries.push(Boundary {
            edge: Edge::South,
            start: 5,
            end: 15,
            kind: BoundaryKind::Inflow { m3_per_s: 2.0 },
        });
        let mut sim = Simulation::new(&level).unwrap();
        let v0 = sim.volume();
        sim.advance(50.0).unwrap();
        let added = sim.volume() - v0;
        println!("{solver:?}: inflow added {added:.4} m³ of 100");
        assert!((added - 100.0).abs() < 1e-3, "{solver:?}: added {added}");
    }
}
