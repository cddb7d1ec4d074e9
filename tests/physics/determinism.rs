//! The same level gives bit-identical water, run after run and for any thread count.

use spillway::level::{Boundary, BoundaryKind, Edge, Shape, SolverKind, Source, SourceKind};
use spillway::{Grid, Level, Simulation};

fn scene(solver: SolverKind) -> Level {
    let (nx, ny) = (70, 150); // several row bands, odd widths
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |i, j| {
        (i as f32 * 0.3).sin() + (j as f32 * 0.11).cos() * 2.0
    });
    level.water = Grid::from_fn(nx, ny, |i, j| {
        if j < 40 {
            (3.0 - level.terrain.get(i, j)).max(0.0)
        } else {
            0.0
        }
    });
    level.params.solver = solver;
    level.sources.push(Source {
        name: "s".into(),
        shape: Shape::Circle {
            x: 30.0,
            y: 100.0,
            radius: 6.0,
        },
        kind: SourceKind::Rate { m3_per_s: 5.0 },
        enabled: true,
    });
    level.boundaries.push(Boundary {
        edge: Edge::South,
        start: 0,
        end: 70,
        kind: BoundaryKind::Open,
    });
    level
}

fn run(level: &Level, threads: usize) -> (Vec<u32>, Vec<u32>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut sim = Simulation::new(level).unwrap();
        sim.advance(30.0).unwrap();
        let (qx, _) = sim.discharges();
        (
            sim.depth().iter().map(|d| d.to_bits()).collect(),
            qx.iter().map(|q| q.to_bits()).collect(),
        )
    })
}

#[test]
fn bit_identical_across_runs_and_thread_counts() {
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let level = scene(solver);
        let a = run(&level, 1);
        let b = run(&level, 1);
        let c = run(&level, 2);
        let d = run(&level, 5);
        assert!(a == b, "{solver:?}: two runs differ");
        assert!(
            a == c && a == d,
            "{solver:?}: thread count changes the result"
        );
    }
}
