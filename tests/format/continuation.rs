//! A baked level continues exactly: a level run `n` steps, baked (saved with its water and flow
//! state), loaded and run `m` more steps ends bit-identical to the same level run `n + m` steps
//! straight, for every solver configuration, with sources, sinks, rain, open edges and a gate
//! opened by a trigger before the bake.

use spillway::level::{
    Advection, Boundary, BoundaryKind, Edge, Gate, Level, Shape, Sink, SinkKind, SolverKind,
    Source, SourceKind, file,
};
use spillway::{Grid, Simulation};

use super::temp_level_path;

/// A 40 × 32 valley with a dam of water behind a gate, a spring, a drain, rain and an open
/// east edge.
fn valley(solver: SolverKind, tweak: impl FnOnce(&mut Level)) -> Level {
    let (nx, ny) = (40, 32);
    let mut level = Level::flat(nx, ny, 0.5, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |x, y| {
        let (x, y) = (x as f32, y as f32);
        0.02 * (x - 20.0).abs() + 0.3 * (0.4 * y).sin() * (0.3 * x).cos() - 0.01 * x
    });
    level.water = Grid::from_fn(
        nx,
        ny,
        |x, y| {
            if x < 12 { 1.5 + 0.01 * y as f32 } else { 0.0 }
        },
    );
    level.params.solver = solver;
    level.params.dt = 0.05;
    level.params.rain_mm_per_hour = 30.0;
    level.sources = vec![Source {
        name: "spring".into(),
        shape: Shape::Circle {
            x: 4.0,
            y: 8.0,
            radius: 1.0,
        },
        kind: SourceKind::Rate { m3_per_s: 0.2 },
        enabled: true,
    }];
    level.sinks = vec![Sink {
        name: "drain".into(),
        shape: Shape::Point { x: 15.0, y: 12.0 },
        kind: SinkKind::Rate { m3_per_s: 0.05 },
        enabled: true,
    }];
    level.boundaries = vec![Boundary {
        edge: Edge::East,
        start: 0,
        end: ny as u32,
        kind: BoundaryKind::Open,
    }];
    level.gates = vec![
        Gate {
            name: "sluice".into(),
            shape: Shape::Box {
                x0: 6.0,
                y0: 0.0,
                x1: 6.5,
                y1: 16.0,
            },
            crest: 3.0,
            open_at: None,
        },
        Gate {
            name: "timed".into(),
            shape: Shape::Box {
                x0: 12.0,
                y0: 4.0,
                x1: 13.0,
                y1: 10.0,
            },
            crest: 2.0,
            open_at: Some(1.0),
        },
    ];
    tweak(&mut level);
    level
}

/// Runs `steps` steps of the level's dt; the trigger opens the sluice after step 30.
fn run(sim: &mut Simulation, from: u64, steps: u64) {
    let dt = sim.params().dt;
    for k in from..from + steps {
        if k == 30 {
            assert!(sim.open_gate("sluice"), "the sluice opens once");
        }
        sim.step(dt).unwrap_or_else(|e| panic!("step {k}: {e}"));
    }
}

/// The state hash straight through and after a bake at `n`, and the baked level's path.
fn straight_and_resumed(level: &Level, n: u64, m: u64) -> (u64, u64) {
    let mut straight = Simulation::new(level).expect("valid level");
    run(&mut straight, 0, n + m);
    let straight_hash = straight.bake_into(level).state_hash();

    let mut first = Simulation::new(level).expect("valid level");
    run(&mut first, 0, n);
    let (_dir, path) = temp_level_path();
    file::save(&first.bake_into(level), &path).expect("save the bake");
    let baked = file::load(&path).expect("load the bake");
    let mut resumed = Simulation::new(&baked).expect("valid baked level");
    run(&mut resumed, n, m);
    (straight_hash, resumed.bake_into(&baked).state_hash())
}

fn assert_continues(name: &str, level: Level) {
    for (n, m) in [(45, 60), (7, 3)] {
        let (a, b) = straight_and_resumed(&level, n, m);
        assert_eq!(
            a,
            b,
            "{name}: baked after {n} steps and run {m} more differs from {} straight",
            n + m
        );
    }
}

#[test]
fn pipes_with_momentum_continue_bit_for_bit() {
    assert_continues("pipes", valley(SolverKind::Pipes, |_| {}));
}

#[test]
fn classic_pipes_continue_bit_for_bit() {
    let level = valley(SolverKind::Pipes, |l| l.params.pipe_advection = false);
    assert_continues("classic pipes", level);
}

#[test]
fn swe_continues_bit_for_bit() {
    assert_continues("swe", valley(SolverKind::Swe, |_| {}));
}

#[test]
fn semi_lagrangian_swe_continues_bit_for_bit() {
    let level = valley(SolverKind::Swe, |l| {
        l.params.advection = Advection::SemiLagrangian
    });
    assert_continues("semi-Lagrangian swe", level);
}

#[test]
fn the_hash_sees_one_bit() {
    let level = valley(SolverKind::Pipes, |_| {});
    let mut sim = Simulation::new(&level).expect("valid level");
    run(&mut sim, 0, 5);
    let mut baked = sim.bake_into(&level);
    let before = baked.state_hash();
    let flow = baked.flow.as_mut().expect("flow state");
    flow.carry[17] = f32::from_bits(flow.carry[17].to_bits() ^ 1);
    assert_ne!(before, baked.state_hash(), "a flipped bit of the carry");
}
