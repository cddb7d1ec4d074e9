//! Shared scenes and measurements for the integration tests: 1-D channels, exact dam-break
//! solutions and energy measures.

use spillway::level::{Boundary, BoundaryKind, CrossSection, Edge, Gate, Level, Shape, SolverKind};
use spillway::{Grid, Simulation};

/// Gravity used by every test scene, m/s².
pub const G: f64 = 9.81;

/// A flat-bottomed channel `n` cells long and 4 wide (walls on the long sides), cell size `dx`,
/// with depth `depth(x)` at each cell centre `x` (metres from the west end).
pub fn channel(n: usize, dx: f32, solver: SolverKind, depth: impl Fn(f32) -> f32) -> Level {
    let mut level = Level::flat(n, 4, dx, 0.0);
    level.water = Grid::from_fn(n, 4, |i, _| depth((i as f32 + 0.5) * dx));
    level.params.solver = solver;
    level.params.friction = spillway::level::Friction::NONE;
    level.params.dt = 0.05;
    level
}

/// Makes the west and east ends of a channel open (absorbing).
pub fn open_ends(level: &mut Level) {
    let ny = level.ny() as u32;
    for edge in [Edge::West, Edge::East] {
        level.boundaries.push(Boundary {
            edge,
            start: 0,
            end: ny,
            kind: BoundaryKind::Open,
        });
    }
}

/// The depth profile along a channel: the mean over its width of each column.
pub fn profile(sim: &Simulation) -> Vec<f64> {
    let (nx, ny) = (sim.nx(), sim.ny());
    (0..nx)
        .map(|i| (0..ny).map(|j| sim.depth()[j * nx + i] as f64).sum::<f64>() / ny as f64)
        .collect()
}

/// Ritter's exact dry-bed dam-break depth at `x` (dam at `x0`, upstream depth `h0`) at time `t`.
pub fn ritter(x: f64, x0: f64, h0: f64, t: f64) -> f64 {
    let c0 = (G * h0).sqrt();
    let xi = (x - x0) / t;
    if xi <= -c0 {
        h0
    } else if xi <= 2.0 * c0 {
        (2.0 * c0 - xi).powi(2) / (9.0 * G)
    } else {
        0.0
    }
}

/// Stoker's wet-bed dam-break solution: returns (middle depth, middle velocity, shock speed).
pub fn stoker_state(h0: f64, h1: f64) -> (f64, f64, f64) {
    let c0 = (G * h0).sqrt();
    let f = |hm: f64| {
        let um_rare = 2.0 * (c0 - (G * hm).sqrt());
        let um_shock = (hm - h1) * (G * (hm + h1) / (2.0 * hm * h1)).sqrt();
        um_rare - um_shock
    };
    let (mut lo, mut hi) = (h1, h0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 { lo = mid } else { hi = mid }
    }
    let hm = 0.5 * (lo + hi);
    let um = 2.0 * (c0 - (G * hm).sqrt());
    (hm, um, hm * um / (hm - h1))
}

/// Stoker's exact wet-bed dam-break depth at `x` at time `t`.
pub fn stoker(x: f64, x0: f64, h0: f64, h1: f64, t: f64) -> f64 {
    let (hm, um, s) = stoker_state(h0, h1);
    let c0 = (G * h0).sqrt();
    let cm = (G * hm).sqrt();
    let xi = (x - x0) / t;
    if xi <= -c0 {
        h0
    } else if xi <= um - cm {
        (2.0 * c0 - xi).powi(2) / (9.0 * G)
    } else if xi <= s {
        hm
    } else {
        h1
    }
}

/// Relative L1 error `Σ|h - e| / Σ|e|` over cells whose centres lie in `[lo, hi]` metres.
pub fn l1_error(h: &[f64], dx: f64, lo: f64, hi: f64, exact: impl Fn(f64) -> f64) -> f64 {
    let (mut err, mut norm) = (0.0, 0.0);
    for (i, &v) in h.iter().enumerate() {
        let x = (i as f64 + 0.5) * dx;
        if x >= lo && x <= hi {
            let e = exact(x);
            err += (v - e).abs();
            norm += e.abs();
        }
    }
    err / norm
}

/// Wave energy of a channel per unit width: potential `½·g·η²` about `rest` plus kinetic
/// `½·h·u²`, summed over cells.
pub fn energy(sim: &Simulation, rest: f32) -> f64 {
    let (nx, ny) = (sim.nx(), sim.ny());
    let dx = sim.cell_size() as f64;
    let mut e = 0.0;
    for j in 0..ny {
        for i in 0..nx {
            let c = j * nx + i;
            let eta = (sim.terrain()[c] + sim.depth()[c] - rest) as f64;
            let (u, v) = sim.cell_velocity(i, j);
            let h = sim.depth()[c] as f64;
            e += 0.5 * G * eta * eta + 0.5 * h * ((u * u + v * v) as f64);
        }
    }
    e * dx / ny as f64
}

/// Every cross-section rule of the pipes solver, for comparisons.
pub const SECTIONS: [CrossSection; 4] = [
    CrossSection::Upwind,
    CrossSection::FaceDepth,
    CrossSection::Mean,
    CrossSection::Constant,
];

/// Asserts every depth is finite and non-negative.
pub fn assert_healthy(sim: &Simulation) {
    for (c, &d) in sim.depth().iter().enumerate() {
        assert!(d.is_finite() && d >= 0.0, "bad depth {d} at cell {c}");
    }
}

/// A channel 40 m long and 4 m wide on flat ground: a reservoir held at `surface` by a fixed
/// level on the west edge, the structure across the channel at x = 20 m, and a free outfall at
/// the east edge.
pub fn structure_channel(
    solver: spillway::SolverKind,
    surface: f32,
    kind: spillway::level::StructureKind,
) -> Level {
    let mut level = Level::flat(40, 4, 1.0, 0.0);
    level.params.solver = solver;
    level.params.friction = spillway::level::Friction::NONE;
    for j in 0..4 {
        for i in 0..20 {
            level.water.set(i, j, surface);
        }
    }
    for (edge, kind) in [
        (
            spillway::level::Edge::West,
            spillway::level::BoundaryKind::FixedLevel { surface },
        ),
        (
            spillway::level::Edge::East,
            spillway::level::BoundaryKind::Open,
        ),
    ] {
        level.boundaries.push(spillway::level::Boundary {
            edge,
            start: 0,
            end: 4,
            kind,
        });
    }
    level.structures.push(spillway::level::Structure {
        name: "structure".into(),
        kind,
    });
    level
}

/// Splits the gate of [`gated_reservoir`] into a south half (`gates[0]`) and a north half
/// (`gates[1]`) of the same name and time.
pub fn gate_in_halves(level: &mut Level) {
    let half = |y0: f32| Shape::Box {
        x0: 20.0,
        y0,
        x1: 22.0,
        y1: y0 + 10.0,
    };
    let mut north = level.gates[0].clone();
    north.shape = half(10.0);
    level.gates[0].shape = half(0.0);
    level.gates.push(north);
}

/// A dry 20 × 6 map of 1 m cells with a gate across x = 8..12 (crest 3 m, opening at 1 s) and
/// `body` on it: a crate set on the crest falls once the gate opens.
pub fn crate_on_a_gate(body: spillway::level::Body) -> Level {
    let mut level = Level::flat(20, 6, 1.0, 0.0);
    level.gates.push(Gate {
        name: "sluice".into(),
        shape: Shape::Box {
            x0: 8.0,
            y0: 0.0,
            x1: 12.0,
            y1: 6.0,
        },
        crest: 3.0,
        open_at: Some(1.0),
    });
    level.bodies.push(body);
    level
}

/// A 60 × 20 channel of 1 m cells: a 2 m reservoir west of a gate across x = 20..22.
pub fn gated_reservoir(open_at: Option<f32>) -> Level {
    let (nx, ny) = (60, 20);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |x, y| 0.01 * ((x * 3 + y * 5) % 7) as f32);
    level.water = Grid::from_fn(nx, ny, |x, _| if x < 20 { 2.0 } else { 0.0 });
    level.gates.push(Gate {
        name: "dam".into(),
        shape: Shape::Box {
            x0: 20.0,
            y0: 0.0,
            x1: 22.0,
            y1: 20.0,
        },
        crest: 3.0,
        open_at,
    });
    level.params.dt = 0.02;
    level
}
pub mod bedload;
pub mod swashes;

/// The value of the environment variable `name`, where it is set and parses (the tests' knobs).
pub fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok()?.parse().ok()
}

/// A walled 40 m × 40 m basin of 2 m cells with a flood wave in (0 → 10 m³/s at 20 s → 0 at
/// 40 s) and a pump in the low corner on a repeating 10 s cycle (0 → 2 m³/s → 0).
pub fn flooded_basin(solver: spillway::SolverKind) -> Level {
    let mut level = Level::flat(20, 20, 2.0, 0.0);
    level.terrain = spillway::Grid::from_fn(20, 20, |i, j| 0.03 * (i + j) as f32);
    level.water = spillway::Grid::filled(20, 20, 0.5);
    level.params.solver = solver;
    level.params.dt = 0.05;
    level.sources.push(spillway::level::Source {
        name: "flood".into(),
        shape: spillway::level::Shape::Circle {
            x: 10.0,
            y: 10.0,
            radius: 3.0,
        },
        kind: spillway::level::SourceKind::Hydrograph(spillway::level::Schedule {
            points: vec![[0.0, 0.0], [20.0, 10.0], [40.0, 0.0]],
            period: None,
        }),
        enabled: true,
    });
    level.sinks.push(spillway::level::Sink {
        name: "pump".into(),
        shape: spillway::level::Shape::Box {
            x0: 0.0,
            y0: 0.0,
            x1: 8.0,
            y1: 8.0,
        },
        kind: spillway::level::SinkKind::Hydrograph(spillway::level::Schedule {
            points: vec![[0.0, 0.0], [5.0, 2.0], [10.0, 0.0]],
            period: Some(10.0),
        }),
        enabled: true,
    });
    level
}

/// A 64 m × 32 m valley of 1 m cells with one of each structure: a reservoir (x < 20, fed
/// 2 m³/s at its west end) behind a weir (crest 2.5 m, the north half of x = 20) and a sluice
/// gate (the south half, shut until 5 s, then lifted to 0.4 m by 10 s); a pool behind an
/// embankment 6 m high at x = 40–41, which a culvert 0.8 m wide crosses; an open east edge.
pub fn structured_valley(solver: SolverKind) -> Level {
    use spillway::level::{Schedule, Source, SourceKind, Structure, StructureKind};
    let mut level = Level::flat(64, 32, 1.0, 0.0);
    level.params.solver = solver;
    level.terrain = Grid::from_fn(64, 32, |i, _| if (40..42).contains(&i) { 6.0 } else { 0.0 });
    level.water = Grid::from_fn(64, 32, |i, _| match i {
        0..20 => 2.8,
        20..40 => 1.0,
        _ => 0.0,
    });
    level.sources.push(Source {
        name: "river".into(),
        shape: Shape::Box {
            x0: 0.0,
            y0: 0.0,
            x1: 2.0,
            y1: 32.0,
        },
        kind: SourceKind::Rate { m3_per_s: 2.0 },
        enabled: true,
    });
    level.boundaries.push(Boundary {
        edge: Edge::East,
        start: 0,
        end: 32,
        kind: BoundaryKind::Open,
    });
    let structure = |name: &str, kind| Structure {
        name: name.into(),
        kind,
    };
    level.structures = vec![
        structure(
            "weir",
            StructureKind::Weir {
                from: [20.0, 0.0],
                to: [20.0, 16.0],
                crest: 2.5,
                coefficient: 0.95,
            },
        ),
        structure(
            "gate",
            StructureKind::SluiceGate {
                from: [20.0, 16.0],
                to: [20.0, 32.0],
                sill: 0.0,
                opening: Schedule {
                    points: vec![[5.0, 0.0], [10.0, 0.4]],
                    period: None,
                },
                contraction: 0.611,
            },
        ),
        structure(
            "culvert",
            StructureKind::Culvert {
                from: [36.5, 16.5],
                to: [45.5, 16.5],
                diameter: 0.8,
                length: 9.0,
                roughness: 0.013,
            },
        ),
    ];
    level
}

/// A 60 m × 20 m channel of 2 m cells on flat ground under 1 m of water: a flood hydrograph
/// enters at its west edge (0 → 8 m³/s at 30 s → 0 at 60 s) and a tide of ±0.5 m about 1 m
/// with a 120 s period holds its east edge.
pub fn tidal_channel(solver: SolverKind) -> Level {
    use spillway::level::Schedule;
    let mut level = Level::flat(30, 10, 2.0, 0.0);
    level.water = Grid::filled(30, 10, 1.0);
    level.params.solver = solver;
    level.params.dt = 0.05;
    level.boundaries = vec![
        Boundary {
            edge: Edge::West,
            start: 0,
            end: 10,
            kind: BoundaryKind::Hydrograph(Schedule {
                points: vec![[0.0, 0.0], [30.0, 8.0], [60.0, 0.0]],
                period: None,
            }),
        },
        Boundary {
            edge: Edge::East,
            start: 0,
            end: 10,
            kind: BoundaryKind::Tide(Schedule {
                points: vec![[0.0, 1.0], [30.0, 1.5], [90.0, 0.5], [120.0, 1.0]],
                period: Some(120.0),
            }),
        },
    ];
    level
}

/// Sand over the whole map moved by Grass's law (`a = 0.002`), loose 5 m deep, slumping past
/// 30° at 0.5 per second, clear water coming in, without suspension: the moving bed the
/// breach, capture and editor tests switch on.
pub fn sand() -> spillway::level::Sediment {
    spillway::level::Sediment {
        law: spillway::level::BedloadLaw::Grass { a: 0.002 },
        porosity: 0.4,
        talus_degrees: 30.0,
        slump_per_second: 0.5,
        clear_inflow: true,
        layer: 5.0,
        speedup: 1.0,
        suspension: None,
        region: None,
    }
}

/// The `breach_dam` sample (`projects/breach_dam`), its breach started by `start` (`None`: as
/// the sample has it).
pub fn breach_dam(start: Option<spillway::level::BreachStart>) -> Level {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/breach_dam/level.ron");
    let mut level = spillway::level::file::load(&path).expect("the breach_dam sample");
    if let (Some(s), spillway::level::StructureKind::Breach { start, .. }) =
        (start, &mut level.structures[0].kind)
    {
        *start = s;
    }
    level
}

/// The sample with a second breach 12 m north of the first, their cuts overlapping: the
/// first opens fully at once, the second starts at once and opens over 1000 s.
pub fn overlapping_breaches() -> Level {
    let mut level = breach_dam(Some(spillway::level::BreachStart::At(0.0)));
    let mut second = level.structures[0].clone();
    second.name = "north".into();
    if let spillway::level::StructureKind::Breach {
        from, to, growth, ..
    } = &mut second.kind
    {
        from[1] += 12.0;
        to[1] += 12.0;
        *growth = spillway::level::BreachGrowth::Steady(1000.0);
    }
    if let spillway::level::StructureKind::Breach { growth, .. } = &mut level.structures[0].kind {
        *growth = spillway::level::BreachGrowth::Steady(0.0);
    }
    level.structures.push(second);
    level
}

/// A dry 8 × 8 map with a source at its middle whose rate rises from 0 to 10 m³/s over the
/// first second and stays there.
pub fn rising_source() -> Level {
    use spillway::level::{Schedule, Shape, Source, SourceKind};
    let mut level = Level::flat(8, 8, 1.0, 0.0);
    level.sources.push(Source {
        name: "flood".into(),
        shape: Shape::Point { x: 4.0, y: 4.0 },
        kind: SourceKind::Hydrograph(Schedule {
            points: vec![[0.0, 0.0], [1.0, 10.0]],
            period: None,
        }),
        enabled: true,
    });
    level
}

/// A dry 4×4 map with 0.5 m of water in cell (1, 1) and two level sources over that cell, each
/// filling to a 1 m surface: together they fill it to 1 m, not 1.5 (0.5 m³ in).
pub fn twin_level_sources(solver: SolverKind) -> Level {
    use spillway::level::{Shape, Source, SourceKind};
    let mut level = Level::flat(4, 4, 1.0, 0.0);
    level.water.set(1, 1, 0.5);
    level.params.solver = solver;
    level.params.dt = 1e-3;
    for name in ["one", "two"] {
        level.sources.push(Source {
            name: name.into(),
            shape: Shape::Point { x: 1.5, y: 1.5 },
            kind: SourceKind::Level {
                surface: 1.0,
                max_m3_per_s: 1000.0,
            },
            enabled: true,
        });
    }
    level
}

/// A lake 1 m deep on a 16 × 16 map of 1 m cells with a spring of 1 m³/s, 2 m across, in its
/// middle (`sources[0]`, "Spring").
pub fn spring_lake() -> Level {
    use spillway::level::{Shape, Source, SourceKind};
    let mut level = Level::flat(16, 16, 1.0, 0.0);
    level.water = spillway::Grid::filled(16, 16, 1.0);
    level.sources.push(Source {
        name: "Spring".into(),
        shape: Shape::Circle {
            x: 8.0,
            y: 8.0,
            radius: 2.0,
        },
        kind: SourceKind::Rate { m3_per_s: 1.0 },
        enabled: true,
    });
    level
}

/// A still lake with its surface at 1 m over a gently rolling bed (the bench's lake, 64 × 64
/// cells of 1 m), a checkerboard of ±1 mm on its surface, stepped at a Courant number of 1
/// (`cfl` 1, steps of 0.25 s: one sub-step at 0.926 by the fastest wave, √(9.81 × 1.4) ×
/// 0.25), by `solver`.
pub fn checkered_lake(solver: spillway::level::SolverKind) -> Level {
    let mut level = spillway::bench::scene(64, spillway::bench::BenchScene::Lake);
    for (c, d) in level.water.data.iter_mut().enumerate() {
        *d += if (c % 64 + c / 64) % 2 == 0 {
            1e-3
        } else {
            -1e-3
        };
    }
    level.params.solver = solver;
    level.params.cfl = 1.0;
    level.params.dt = 0.25;
    level
}

/// The furthest the surface of `level`'s water stands from 1 m, over the cells `depth` wets.
pub fn off_one_metre(level: &Level, depth: &[f32]) -> f32 {
    (level.terrain.data.iter().zip(depth))
        .filter(|(_, d)| **d > 0.0)
        .map(|(b, d)| (b + d - 1.0).abs())
        .fold(0.0, f32::max)
}
