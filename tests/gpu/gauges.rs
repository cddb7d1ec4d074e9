//! Gauges read on the GPU agree with the CPU's: a stage gauge and discharge lines (straight and
//! slanted) across a river filling from an inflow edge.

use spillway::gpu::GpuSimulation;
use spillway::level::{Boundary, BoundaryKind, Edge, Friction, GaugeKind};
use spillway::{Grid, Level, Simulation};

#[test]
fn gauges_on_the_gpu_read_what_the_cpu_reads() {
    let (nx, ny, dx) = (100, 10, 2.0);
    let mut level = Level::flat(nx, ny, dx, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |i, _| 0.005 * (200.0 - (i as f32 + 0.5) * dx));
    level.params.friction = Friction::Manning { n: 0.035 };
    level.params.dt = 0.02;
    // Water in the whole channel, so the river leaves over the east edge within the run.
    level.water = Grid::filled(nx, ny, 0.5);
    for (edge, kind) in [
        (Edge::West, BoundaryKind::Inflow { m3_per_s: 20.0 }),
        (Edge::East, BoundaryKind::Open),
    ] {
        level.boundaries.push(Boundary {
            edge,
            start: 0,
            end: ny as u32,
            kind,
        });
    }
    let gauges = [
        GaugeKind::Stage { x: 41.0, y: 10.0 },
        GaugeKind::Discharge {
            from: [41.0, 0.0],
            to: [41.0, 20.0],
        },
        GaugeKind::Discharge {
            from: [30.0, 0.0],
            to: [50.0, 20.0],
        },
        // On the open east edge, and on the inflow west edge: the water leaving and entering
        // the map (the outer faces were left out: 0 m³/s for ever).
        GaugeKind::Discharge {
            from: [200.0, 0.0],
            to: [200.0, 20.0],
        },
        GaugeKind::Discharge {
            from: [0.0, 0.0],
            to: [0.0, 20.0],
        },
    ];
    let steps = 3000;
    let mut cpu = Simulation::new(&level).expect("valid");
    for _ in 0..steps {
        cpu.step(level.params.dt).expect("a step");
    }
    let mut gpu = GpuSimulation::headless(&level).expect("a GPU");
    gpu.step_n(steps, level.params.dt).expect("steps");
    let on_gpu = gpu.read_gauges(&gauges).expect("read");
    for (g, r) in gauges.iter().zip(&on_gpu) {
        let (c, v) = (cpu.gauge(g).value(), r.value());
        println!("{g:?}: CPU {c:.5}, GPU {v:.5}");
        assert!(
            (c - v).abs() <= 1e-3 * c.abs().max(1.0),
            "{g:?}: {c} vs {v}"
        );
    }
    assert!(on_gpu[1].value() > 1.0, "the river reached the line");
    let (out, inflow) = (cpu.gauge(&gauges[3]).value(), cpu.gauge(&gauges[4]).value());
    println!(
        "leaving {out} m³/s, entering {inflow} m³/s, the river at x = 41 m {}; outflow {} m³, east depth {}",
        on_gpu[1].value(),
        cpu.stats().outflow,
        cpu.depth()[5 * nx + nx - 1]
    );
    assert!(
        (inflow - 20.0).abs() < 1e-3,
        "the inflow edge's 20 m³/s: {inflow}"
    );
    assert!(out > 1.0, "water leaves over the open edge: {out}");
    let stats = cpu.stats();
    assert!(stats.outflow > 0.0);
}
