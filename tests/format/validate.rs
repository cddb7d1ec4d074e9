//! `Level::validate` finds the first bad value and names it with a field path.

use spillway::Grid;
use spillway::level::{BoundaryKind, FlowState, Level, Limits, Shape, SolverKind};

use crate::rich_level;

/// The field path `validate` reports after `edit`, or `None` if the level is valid.
fn field_after(edit: impl FnOnce(&mut Level)) -> Option<String> {
    let mut level = rich_level(12, 9);
    edit(&mut level);
    level.validate(&Limits::default()).err().map(|e| e.field)
}

fn assert_field(edit: impl FnOnce(&mut Level), field: &str) {
    assert_eq!(field_after(edit).as_deref(), Some(field));
}

#[test]
fn valid_levels_pass() {
    assert_eq!(field_after(|_| {}), None);
    assert!(
        Level::flat(2, 2, 1.0, 0.0)
            .validate(&Limits::default())
            .is_ok()
    );
}

#[test]
fn sizes() {
    let small = Level::flat(1, 5, 1.0, 0.0);
    assert_eq!(
        small
            .validate(&Limits::default())
            .expect_err("1 wide")
            .field,
        "size.nx"
    );
    let limits = Limits {
        max_side: 10,
        ..Limits::default()
    };
    let err = rich_level(12, 9).validate(&limits).expect_err("too wide");
    assert_eq!(err.field, "size.nx");
    assert!(err.reason.contains("limit"), "{}", err.reason);
    let limits = Limits {
        max_cells: 100,
        ..Limits::default()
    };
    assert_eq!(
        rich_level(12, 9)
            .validate(&limits)
            .expect_err("too many")
            .field,
        "size"
    );
    let limits = Limits {
        max_bodies: 1,
        ..Limits::default()
    };
    assert_eq!(
        rich_level(12, 9)
            .validate(&limits)
            .expect_err("bodies")
            .field,
        "bodies"
    );
    assert_field(|l| l.water = Grid::filled(12, 8, 0.0), "water");
    assert_field(
        |l| {
            l.terrain.data.pop();
        },
        "terrain",
    );
    assert_field(
        |l| {
            l.flow = Some(FlowState {
                solver: SolverKind::Pipes,
                flow_x: vec![0.0; 12 * 9],
                flow_y: vec![0.0; 12 * 10],
                ghost: Vec::new(),
                time: 0.0,
                ..Default::default()
            })
        },
        "flow.flow_x",
    );
}

#[test]
fn cells_are_named_by_coordinates() {
    assert_field(|l| l.terrain.set(3, 7, f32::NAN), "terrain(x=3, y=7)");
    assert_field(|l| l.water.set(11, 0, -1e-9), "water(x=11, y=0)");
    assert_field(|l| l.water.set(0, 8, f32::INFINITY), "water(x=0, y=8)");
    assert_field(
        |l| l.flow.as_mut().expect("flow").flow_y[12 * 9 + 5] = f32::NAN,
        "flow.flow_y(x=5, y=9)",
    );
    assert_field(
        |l| l.flow.as_mut().expect("flow").ghost[2] = f32::NAN,
        "flow.ghost[2]",
    );
    assert_field(|l| l.flow.as_mut().expect("flow").time = -1.0, "flow.time");
}

#[test]
fn scalars_and_parameters() {
    assert_field(|l| l.cell_size = 0.0, "cell_size");
    assert_field(|l| l.cell_size = f32::NAN, "cell_size");
    assert_field(|l| l.params.gravity = -9.81, "params.gravity");
    assert_field(|l| l.params.dt = 0.0, "params.dt");
    assert_field(|l| l.params.dt = 10.5, "params.dt");
    assert!(field_after(|l| l.params.dt = 10.0).is_none());
    use spillway::level::Friction;
    let linear = |f: f32| Friction::Linear { per_second: f };
    assert_field(
        |l| l.params.friction = linear(1.0),
        "params.friction.per_second",
    );
    assert_field(
        |l| l.params.friction = linear(-0.1),
        "params.friction.per_second",
    );
    assert!(field_after(|l| l.params.friction = linear(0.0)).is_none());
    let manning = |n: f32| Friction::Manning { n };
    assert_field(|l| l.params.friction = manning(-0.01), "params.friction.n");
    assert_field(
        |l| l.params.friction = manning(f32::NAN),
        "params.friction.n",
    );
    assert_field(|l| l.params.friction = manning(1.5), "params.friction.n");
    assert!(field_after(|l| l.params.friction = manning(0.0)).is_none());
    assert_field(
        |l| l.params.friction = Friction::Chezy { c: 0.0 },
        "params.friction.c",
    );
    assert_field(
        |l| l.params.friction = Friction::Chezy { c: f32::INFINITY },
        "params.friction.c",
    );
    // So small that g·dt/c² is infinite: the first step gave NaN.
    assert_field(
        |l| l.params.friction = Friction::Chezy { c: 1e-20 },
        "params.friction.c",
    );
    // A roughness grid: the level's size, and every n a number in 0..=1.
    assert_field(
        |l| l.roughness = Some(spillway::Grid::filled(3, 3, 0.03)),
        "roughness",
    );
    assert_field(
        |l| {
            let mut g = spillway::Grid::filled(l.nx(), l.ny(), 0.03);
            g.set(2, 1, -0.5);
            l.roughness = Some(g);
        },
        "roughness(x=2, y=1)",
    );
    assert_field(
        |l| {
            let mut g = spillway::Grid::filled(l.nx(), l.ny(), 0.03);
            g.set(1, 0, f32::NAN);
            l.roughness = Some(g);
        },
        "roughness(x=1, y=0)",
    );
    assert_field(|l| l.params.cfl = 0.0, "params.cfl");
    assert_field(|l| l.params.cfl = 1.01, "params.cfl");
    assert_field(
        |l| l.params.rain_mm_per_hour = -1.0,
        "params.rain_mm_per_hour",
    );
    assert_field(
        |l| l.params.default_boundary = BoundaryKind::FixedLevel { surface: f32::NAN },
        "params.default_boundary.surface",
    );
}

#[test]
fn objects() {
    assert_field(
        |l| {
            l.sources[1].shape = Shape::Circle {
                x: 1.0,
                y: 1.0,
                radius: -2.0,
            }
        },
        "sources[1].shape.radius",
    );
    assert_field(
        |l| {
            l.sources[0].shape = Shape::Point {
                x: f32::NAN,
                y: 0.0,
            }
        },
        "sources[0].shape.x",
    );
    assert_field(
        |l| {
            l.sinks[0].shape = Shape::Box {
                x0: 2.0,
                y0: 0.0,
                x1: 1.0,
                y1: 1.0,
            }
        },
        "sinks[0].shape.x1",
    );
    assert_field(
        |l| l.sources[0].kind = spillway::level::SourceKind::Rate { m3_per_s: -1.0 },
        "sources[0].kind.m3_per_s",
    );
    assert_field(
        |l| {
            l.sinks[1].kind = spillway::level::SinkKind::Level {
                surface: 0.0,
                max_m3_per_s: f32::NAN,
            }
        },
        "sinks[1].kind.max_m3_per_s",
    );
    // Wholly off the 6 m × 4.5 m map (it would pour into the nearest edge cell); reaching
    // onto it from outside is fine.
    assert_field(
        |l| {
            l.sources[0].shape = Shape::Box {
                x0: 5000.0,
                y0: 1.0,
                x1: 5024.0,
                y1: 2.0,
            }
        },
        "sources[0].shape",
    );
    assert_field(
        |l| l.sinks[0].shape = Shape::Point { x: 3.0, y: -0.5 },
        "sinks[0].shape",
    );
    assert_field(
        |l| {
            l.gates.push(spillway::level::Gate {
                name: "far".into(),
                shape: Shape::Circle {
                    x: -3.0,
                    y: 2.0,
                    radius: 2.0,
                },
                crest: 1.0,
                open_at: None,
            })
        },
        &format!("gates[{}].shape", rich_level(12, 9).gates.len()),
    );
    assert!(
        field_after(|l| l.sources[0].shape = Shape::Circle {
            x: -1.0,
            y: 2.0,
            radius: 1.5
        })
        .is_none()
    );
    assert_field(|l| l.boundaries[1].end = 10, "boundaries[1].end"); // East edge is ny = 9 long
    assert!(field_after(|l| l.boundaries[1].end = 9).is_none());
    assert_field(|l| l.boundaries[2].end = 0, "boundaries[2].end"); // start 0 == end 0
    assert_field(
        |l| l.boundaries[3].kind = BoundaryKind::Inflow { m3_per_s: -3.0 },
        "boundaries[3].kind.m3_per_s",
    );
    assert_field(|l| l.bodies[0].scale[2] = 0.0, "bodies[0].scale[2]");
    assert_field(|l| l.bodies[1].density = -1.0, "bodies[1].density");
    assert_field(|l| l.bodies[0].rotation = [0.0; 4], "bodies[0].rotation");
    assert_field(
        |l| l.bodies[0].rotation[3] = f32::NAN,
        "bodies[0].rotation[3]",
    );
    assert_field(
        |l| l.bodies[0].translation[1] = f32::INFINITY,
        "bodies[0].translation[1]",
    );
    assert_field(|l| l.bodies[1].gltf = String::new(), "bodies[1].gltf");
    assert_field(
        |l| l.bodies[1].gltf = "/abs/rock.glb".into(),
        "bodies[1].gltf",
    );
    assert_field(
        |l| l.bodies[1].gltf = "C:\\rock.glb".into(),
        "bodies[1].gltf",
    );
}

#[test]
fn error_displays_field_and_reason() {
    let mut level = rich_level(12, 9);
    level.params.dt = 11.0;
    let err = level.validate(&Limits::default()).expect_err("dt");
    assert_eq!(
        err.to_string(),
        "invalid `params.dt`: 11 s is outside 1e-4 to 10 s"
    );
}

#[test]
fn hydrograph_points_are_checked() {
    use spillway::level::{Schedule, SourceKind};
    let set = |points: Vec<[f32; 2]>, period| {
        move |l: &mut Level| {
            l.sources[2].kind = SourceKind::Hydrograph(Schedule { points, period });
        }
    };
    assert_eq!(field_after(set(vec![[0.0, 1.0], [10.0, 2.0]], None)), None);
    assert_field(set(vec![], None), "sources[2].kind.points");
    assert_field(
        set(vec![[0.0, 1.0], [10.0, 2.0], [5.0, 1.0]], None),
        "sources[2].kind.points[2]",
    );
    assert_field(
        set(vec![[0.0, f32::NAN]], None),
        "sources[2].kind.points[0]",
    );
    assert_field(set(vec![[0.0, -1.0]], None), "sources[2].kind.points[0]");
    assert_field(set(vec![[0.0, 1.0]], Some(0.0)), "sources[2].kind.period");
    assert_field(
        set(vec![[0.0, 1.0]; Schedule::MAX_POINTS + 1], None),
        "sources[2].kind.points",
    );
}

#[test]
fn structures_are_checked() {
    use spillway::level::{Schedule, StructureKind};
    let set = |kind: StructureKind| move |l: &mut Level| l.structures[0].kind = kind;
    let culvert = |from: [f32; 2], diameter: f32| StructureKind::Culvert {
        from,
        to: [2.0, 2.0],
        diameter,
        length: 5.0,
        roughness: 0.013,
    };
    assert_eq!(field_after(set(culvert([1.0, 1.0], 0.5))), None);
    assert_field(set(culvert([-1.0, 1.0], 0.5)), "structures[0].kind.from");
    assert_field(
        set(culvert([f32::NAN, 1.0], 0.5)),
        "structures[0].kind.from",
    );
    assert_field(set(culvert([2.0, 2.0], 0.5)), "structures[0].kind.to");
    assert_field(set(culvert([1.0, 1.0], 0.0)), "structures[0].kind.diameter");
    assert_field(
        set(StructureKind::Weir {
            from: [1.0, 0.0],
            to: [1.0, 2.0],
            crest: f32::INFINITY,
            coefficient: 0.9,
        }),
        "structures[0].kind.crest",
    );
    assert_field(
        set(StructureKind::SluiceGate {
            from: [1.0, 0.0],
            to: [1.0, 2.0],
            sill: 0.0,
            opening: Schedule {
                points: vec![[0.0, -0.5]],
                period: None,
            },
            contraction: 0.611,
        }),
        "structures[0].kind.opening.points[0]",
    );
    // Structures that would move no water load as errors, not as silent ornaments: a weir
    // drawn along the map's west edge or too short to cross a face between two cells (0.5 m
    // cells here), a culvert within one cell.
    let weir = |from: [f32; 2], to: [f32; 2]| StructureKind::Weir {
        from,
        to,
        crest: 1.0,
        coefficient: 0.9,
    };
    assert_field(set(weir([0.0, 0.0], [0.0, 4.0])), "structures[0].kind");
    assert_field(set(weir([0.05, 3.05], [0.2, 3.2])), "structures[0].kind");
    assert_eq!(field_after(set(weir([0.2, 3.1], [1.7, 3.4]))), None);
    let mut short = culvert([1.05, 1.05], 0.5);
    if let StructureKind::Culvert { to, .. } = &mut short {
        *to = [1.45, 1.4];
    }
    assert_field(set(short), "structures[0].kind.to");
}

/// Finite values no level means (a cell of 1e-30 m, gravity of 1e30 m/s², a lake at 1e38 m)
/// are refused by name on load, not left to make the solver run away at its first step.
#[test]
fn values_no_level_means_are_refused_by_name() {
    use spillway::level::ranges::{CELL_SIZE, GRAVITY, MAX_HEIGHT};
    use spillway::level::{Gate, Schedule, SourceKind};
    assert_field(|l| l.cell_size = 1e-30, "cell_size");
    assert_field(|l| l.cell_size = 1e6, "cell_size");
    for cell_size in [*CELL_SIZE.start(), *CELL_SIZE.end()] {
        let level = Level::flat(2, 2, cell_size, 0.0);
        assert!(level.validate(&Limits::default()).is_ok(), "{cell_size} m");
    }
    assert_field(|l| l.params.gravity = 1e30, "params.gravity");
    assert_field(|l| l.params.gravity = 1e-30, "params.gravity");
    assert!(field_after(|l| l.params.gravity = *GRAVITY.end()).is_none());
    assert_field(
        |l| l.terrain.set(4, 2, 2.0 * MAX_HEIGHT),
        "terrain(x=4, y=2)",
    );
    assert_field(
        |l| l.terrain.set(0, 1, -2.0 * MAX_HEIGHT),
        "terrain(x=0, y=1)",
    );
    assert!(field_after(|l| l.terrain.set(4, 2, -MAX_HEIGHT)).is_none());
    assert_field(|l| l.water.set(5, 5, 2.0 * MAX_HEIGHT), "water(x=5, y=5)");
    assert_field(
        |l| l.params.default_boundary = BoundaryKind::FixedLevel { surface: 1e38 },
        "params.default_boundary.surface",
    );
    assert_field(
        |l| {
            l.params.default_boundary = BoundaryKind::Tide(Schedule {
                points: vec![[0.0, 1.0], [60.0, -1e9]],
                period: None,
            })
        },
        "params.default_boundary",
    );
    // A discharge as the default edge: each edge cell took all of it.
    assert_field(
        |l| l.params.default_boundary = BoundaryKind::Inflow { m3_per_s: 1.0 },
        "params.default_boundary",
    );
    // A schedule as the default edge is refused even when it is well formed (the CPU held
    // its first value and the GPU read no schedule).
    assert_field(
        |l| {
            l.params.default_boundary = BoundaryKind::Hydrograph(Schedule {
                points: vec![[0.0, 1.0], [60.0, 5.0]],
                period: None,
            })
        },
        "params.default_boundary",
    );
    assert_field(
        |l| {
            l.sources[1].kind = SourceKind::Level {
                surface: 5e6,
                max_m3_per_s: 1.0,
            }
        },
        "sources[1].kind.surface",
    );
    assert_field(
        |l| {
            l.gates = vec![Gate {
                name: "sluice".into(),
                shape: Shape::Point { x: 1.0, y: 1.0 },
                crest: 1e20,
                open_at: None,
            }]
        },
        "gates[0].crest",
    );
    // A time step, a rate or rain no level means (a tiny step hung `sim` and `bake`; a rate of
    // 3e38 made the first step's inflow infinite).
    assert_field(|l| l.params.dt = 1e-30, "params.dt");
    assert_field(
        |l| l.params.rain_mm_per_hour = 1e9,
        "params.rain_mm_per_hour",
    );
    assert_field(
        |l| l.sources[0].kind = SourceKind::Rate { m3_per_s: 3e38 },
        "sources[0].kind.m3_per_s",
    );
    assert!(field_after(|l| l.sources[0].kind = SourceKind::Rate { m3_per_s: 1e7 }).is_none());
    // A saved flow the solver could not go on from: a clock that no longer moves, edge
    // ghosts of the wrong count.
    fn flow(l: &mut Level) -> &mut FlowState {
        l.flow.as_mut().expect("rich_level has flow")
    }
    assert_field(|l| flow(l).time = 1e300, "flow.time");
    assert_field(|l| flow(l).ghost.truncate(3), "flow.ghost");
    assert_field(|l| flow(l).ghost[5] = 1e30, "flow.ghost[5]");
    assert!(field_after(|l| flow(l).ghost.clear()).is_none());
    // A carry of 1e30 m was folded into the depth at the first step: a lake of 1e30 m.
    assert_field(|l| flow(l).carry[7] = 1e30, "flow.carry(x=7, y=0)");
    assert_field(|l| flow(l).carry[7] = -2e6, "flow.carry(x=7, y=0)");
    // Stretches of one edge that overlap: which held depended on their kinds.
    assert_field(
        |l| {
            l.boundaries = vec![
                spillway::level::Boundary {
                    edge: spillway::level::Edge::West,
                    start: 0,
                    end: 6,
                    kind: BoundaryKind::Inflow { m3_per_s: 10.0 },
                },
                spillway::level::Boundary {
                    edge: spillway::level::Edge::West,
                    start: 5,
                    end: 9,
                    kind: BoundaryKind::Wall,
                },
            ]
        },
        "boundaries[1]",
    );
    // The message says what the range is.
    let mut level = crate::rich_level(12, 9);
    level.params.gravity = 1e30;
    let e = level.validate(&Limits::default()).unwrap_err();
    assert!(e.to_string().contains("outside 0.1 to 100 m/s²"), "{e}");
}
