//! Sources, sinks and rain add and remove exactly what they say, and the ledger records it.

use spillway::level::{Shape, Sink, SinkKind, SolverKind, Source, SourceKind};
use spillway::{Grid, Level, Simulation};

fn basin(solver: SolverKind) -> Level {
    let mut level = Level::flat(30, 30, 2.0, 0.0);
    level.terrain = Grid::from_fn(30, 30, |i, j| 0.02 * (i + j) as f32);
    level.water = Grid::filled(30, 30, 0.3);
    level.params.solver = solver;
    level
}

#[test]
fn rate_source_adds_rate_times_time() {
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let mut level = basin(solver);
        level.sources.push(Source {
            name: "spring".into(),
            shape: Shape::Circle {
                x: 20.0,
                y: 20.0,
                radius: 5.0,
            },
            kind: SourceKind::Rate { m3_per_s: 3.0 },
            enabled: true,
        });
        let mut sim = Simulation::new(&level).unwrap();
        sim.advance(40.0).unwrap();
        let s = sim.stats();
        let added = s.volume - s.volume_initial;
        println!("{solver:?}: added {added} m³ (expected 120)");
        assert!((added - 120.0).abs() < 120.0 * 1e-5, "{solver:?}: {added}");
        assert!((s.inflow - 120.0).abs() < 120.0 * 1e-5);
    }
}

#[test]
fn level_source_fills_to_its_surface_within_capacity() {
    let mut level = basin(SolverKind::Pipes);
    level.water = Grid::filled(30, 30, 0.0);
    level.params.friction = spillway::level::Friction::Linear { per_second: 0.5 };
    level.sources.push(Source {
        name: "lake feed".into(),
        shape: Shape::Box {
            x0: 0.0,
            y0: 0.0,
            x1: 60.0,
            y1: 60.0,
        },
        kind: SourceKind::Level {
            surface: 0.8,
            max_m3_per_s: 50.0,
        },
        enabled: true,
    });
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(1.0).unwrap();
    assert!(
        sim.stats().inflow <= 50.0 * 1.0 + 1e-3,
        "capacity exceeded: {}",
        sim.stats().inflow
    );
    sim.advance(400.0).unwrap();
    // Cells below 0.8 m terrain are filled to 0.8; higher ground stays dry.
    assert!(
        (sim.surface_at(3.0, 3.0) - 0.8).abs() < 1e-3,
        "surface {}",
        sim.surface_at(3.0, 3.0)
    );
    assert!(sim.depth_at(57.0, 57.0) < 1e-3);
    assert!(sim.stats().balance_error.abs() < 1e-6);
}

#[test]
fn sinks_remove_water_but_never_below_dry() {
    let mut level = basin(SolverKind::Pipes);
    level.sinks.push(Sink {
        name: "drain".into(),
        shape: Shape::Point { x: 1.0, y: 1.0 },
        kind: SinkKind::Rate { m3_per_s: 2.0 },
        enabled: true,
    });
    level.sinks.push(Sink {
        name: "overflow".into(),
        shape: Shape::Circle {
            x: 50.0,
            y: 50.0,
            radius: 4.0,
        },
        kind: SinkKind::Level {
            surface: 1.0,
            max_m3_per_s: 10.0,
        },
        enabled: true,
    });
    let mut sim = Simulation::new(&level).unwrap();
    let v0 = sim.volume();
    sim.advance(20.0).unwrap();
    let s = sim.stats();
    println!("sinks removed {} m³", s.outflow);
    assert!(s.outflow > 30.0 && s.outflow < 40.0 + 10.0 * 20.0);
    assert!((v0 - s.outflow - s.volume).abs() < v0 * 1e-6);
    assert!(sim.depth().iter().all(|&d| d >= 0.0));
    // The level sink drains the cells above 1 m surface: none remain near it after a while.
    sim.advance(600.0).unwrap();
    assert!(sim.stats().balance_error.abs() < 1e-6);
    assert!(
        sim.volume() < v0 * 0.01,
        "the drain empties the basin: {}",
        sim.volume()
    );
}

#[test]
fn rain_falls_everywhere() {
    let mut level = basin(SolverKind::Swe);
    level.params.rain_mm_per_hour = 36_000.0; // 1 cm/s, a designer's test storm
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(10.0).unwrap();
    let s = sim.stats();
    let expected = 0.01 * 10.0 * 60.0 * 60.0;
    assert!(
        (s.inflow - expected).abs() < expected * 1e-5,
        "rain {} vs {expected}",
        s.inflow
    );
    assert!(s.balance_error.abs() < 1e-6);
}

#[test]
fn two_level_sources_on_a_cell_fill_it_once() {
    // Each filled the cell's whole shortfall, the other's water not counted: 1.5 m for 1.
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let level = spillway_tests::twin_level_sources(solver);
        let mut sim = Simulation::new(&level).unwrap();
        sim.step(level.params.dt).unwrap();
        let inflow = sim.stats().inflow;
        println!("{solver:?}: {inflow:.4} m³ in for 0.5");
        assert!((inflow - 0.5).abs() < 0.01, "{solver:?}: {inflow} m³");
    }
}
