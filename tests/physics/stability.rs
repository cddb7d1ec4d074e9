//! No NaN and no negative depth ever leave a step, whatever the input; steps beyond the CFL
//! limit are sub-stepped.

use spillway::level::{Advection, Boundary, BoundaryKind, CrossSection, Edge, SolverKind};
use spillway::{Grid, Level, Simulation};
use spillway_tests::assert_healthy;

/// A small deterministic pseudo-random generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

#[test]
fn chaotic_inputs_never_produce_nan_or_negative_depth() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for case in 0..24 {
        let (nx, ny) = (
            8 + (rng.next() * 40.0) as usize,
            8 + (rng.next() * 40.0) as usize,
        );
        let mut level = Level::flat(nx, ny, 0.1 + rng.next() * 5.0, 0.0);
        // Cliffs, spikes and towers of water next to dry cells.
        level.terrain = Grid::from_fn(nx, ny, |_, _| (rng.next() - 0.5) * 200.0);
        level.water = Grid::from_fn(nx, ny, |_, _| {
            if rng.next() < 0.5 {
                0.0
            } else {
                rng.next() * 50.0
            }
        });
        level.params.solver = if case % 2 == 0 {
            SolverKind::Pipes
        } else {
            SolverKind::Swe
        };
        level.params.cross_section = [
            CrossSection::Upwind,
            CrossSection::FaceDepth,
            CrossSection::Mean,
            CrossSection::Constant,
        ][case % 4];
        level.params.advection = if case % 3 == 0 {
            Advection::SemiLagrangian
        } else {
            Advection::Conservative
        };
        level.params.pipe_advection = case % 5 != 0;
        level.params.friction = spillway::level::Friction::Linear {
            per_second: rng.next() * 0.99,
        };
        level.params.dt = 0.01 + rng.next() * 2.0; // far beyond the CFL limit
        let kinds = [
            BoundaryKind::Open,
            BoundaryKind::Wall,
            BoundaryKind::FixedLevel { surface: 30.0 },
            BoundaryKind::Inflow { m3_per_s: 100.0 },
        ];
        for (e, edge) in Edge::ALL.into_iter().enumerate() {
            let len = if e < 2 { ny } else { nx } as u32;
            level.boundaries.push(Boundary {
                edge,
                start: 0,
                end: len / 2,
                kind: kinds[(case + e) % 4].clone(),
            });
        }
        let mut sim = Simulation::new(&level).unwrap();
        for _ in 0..60 {
            // A step may refuse (runaway), but it must never poison the state.
            if sim.step(level.params.dt).is_err() {
                break;
            }
            assert_healthy(&sim);
        }
        assert_healthy(&sim);
        let s = sim.stats();
        assert!(
            s.volume.is_finite() && s.balance_error.is_finite(),
            "case {case}: {s:?}"
        );
    }
}

#[test]
fn long_steps_are_sub_stepped() {
    let mut level = Level::flat(40, 40, 1.0, 0.0);
    level.water = Grid::from_fn(40, 40, |i, _| if i < 20 { 10.0 } else { 0.5 });
    level.params.dt = 1.0; // ten times the CFL limit over 10 m of water
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(20.0).unwrap();
    let s = sim.stats();
    assert_eq!(s.steps, 20);
    assert!(s.substeps >= 20 * 10, "only {} sub-steps", s.substeps);
    assert!(s.balance_error.abs() < 1e-6);
    assert_healthy(&sim);
}

#[test]
fn bad_time_steps_are_refused() {
    let level = Level::flat(4, 4, 1.0, 0.0);
    let mut sim = Simulation::new(&level).unwrap();
    for dt in [f32::NAN, -1.0, 0.0, f32::INFINITY] {
        assert!(sim.step(dt).is_err(), "dt {dt} accepted");
    }
    assert_eq!(sim.stats().steps, 0);
}

#[test]
fn water_given_back_sets_the_step_and_no_query_answers_nan() {
    // A game's `displace`: water given back raised a cell but not the solver's max depth, so
    // the next step took one sub-step where the CFL limit needed fourteen; a volume too large
    // for a small cell made its depth infinite. A NaN query point answered NaN.
    let mut sim = Simulation::new(&Level::flat(64, 64, 1.0, 0.0)).unwrap();
    assert_eq!(sim.stable_dt(), f32::INFINITY);
    sim.displace(&[(2080, -500.0)]);
    assert!(sim.stats().max_depth >= 500.0 && sim.stable_dt() < 0.02);
    sim.step(0.1).unwrap();
    assert_healthy(&sim);
    let mut small = Simulation::new(&Level::flat(64, 64, 0.5, 0.0)).unwrap();
    assert_eq!(small.displace(&[(100, -1e38)]), vec![0.0]);
    assert!(small.stats().volume.is_finite());
    small.step(0.02).unwrap();
    for (x, y) in [
        (f32::NAN, 10.0),
        (10.0, f32::NAN),
        (f32::INFINITY, f32::NEG_INFINITY),
    ] {
        let v = sim.velocity_at(x, y);
        let answers = [sim.depth_at(x, y), sim.surface_at(x, y), v.0, v.1];
        assert!(
            answers.iter().all(|a| a.is_finite()),
            "({x}, {y}): {answers:?}"
        );
    }
}

#[test]
fn a_blow_up_leaves_no_non_finite_value_in_the_state() {
    // Ground no level means (in memory, past the loader's checks) blows the water up. The
    // failed pass left non-finite residues in its cells' carry (every later step blew up
    // there, whatever the water) and kept its face velocities.
    let mut level = Level::flat(16, 16, 1.0, 0.0);
    level.water = Grid::filled(16, 16, 1.0);
    level.terrain.set(8, 8, 3e38);
    level.terrain.set(9, 8, -3e38);
    let mut sim = Simulation::new(&level).unwrap();
    let err = sim.step(0.01).expect_err("the cliff blows the water up");
    println!("{err}");
    let flow = sim.bake_into(&level).flow.expect("a flow state");
    for (name, values) in [
        ("carry", &flow.carry),
        ("aux_x", &flow.aux_x),
        ("aux_y", &flow.aux_y),
        ("flow_x", &flow.flow_x),
    ] {
        let bad = values.iter().position(|v| !v.is_finite());
        assert_eq!(bad, None, "{name}");
    }
}

#[test]
fn a_nan_rate_is_refused_when_handed_over_and_its_blow_up_leaves_the_ledger_finite() {
    use spillway::level::SourceKind;
    let level = spillway_tests::spring_lake();
    let mut sim = Simulation::new(&level).unwrap();
    sim.step(0.01).unwrap();
    // A game's slider handing over a NaN rate: refused, by name, and nothing taken.
    let mut bad = level.clone();
    bad.sources[0].kind = SourceKind::Rate { m3_per_s: f32::NAN };
    let err = sim.set_sources_sinks(&bad).expect_err("a NaN rate");
    assert!(
        err.to_string().contains("sources[0].kind.m3_per_s"),
        "{err}"
    );
    sim.step(0.01).expect("the spring runs on as it was");
    // Built with one (no check in memory), the step blows up; mended, the run goes on and its
    // ledger is a number again (the NaN it booked stayed for good).
    let mut sim = Simulation::new(&bad).unwrap();
    sim.step(0.01).expect_err("a NaN spring blows the water up");
    sim.set_sources_sinks(&level).unwrap();
    for _ in 0..10 {
        sim.step(0.01).unwrap();
    }
    let stats = sim.stats();
    assert!(
        stats.inflow.is_finite() && stats.balance_error.abs() < 1e-6,
        "{stats:?}"
    );
    assert_healthy(&sim);
}

#[test]
fn a_blow_up_books_only_the_water_it_keeps() {
    // The failed sub-step's sources and rain went into the water it threw away, yet were
    // booked as inflow: the balance was off by them after every blow-up.
    use spillway::level::{Shape, Source, SourceKind};
    let mut level = Level::flat(32, 32, 1.0, 0.0);
    level.water = Grid::filled(32, 32, 0.5);
    level.params.rain_mm_per_hour = 3600.0;
    level.sources.push(Source {
        name: "Spring".into(),
        shape: Shape::Circle {
            x: 16.0,
            y: 16.0,
            radius: 2.0,
        },
        kind: SourceKind::Rate { m3_per_s: 50.0 },
        enabled: true,
    });
    level.terrain.set(8, 8, 3e38);
    level.terrain.set(9, 8, -3e38);
    let mut sim = Simulation::new(&level).unwrap();
    sim.step(0.01).expect_err("the cliff blows the water up");
    let stats = sim.stats();
    println!("{stats:?}");
    assert!(stats.balance_error.abs() < 1e-6, "{stats:?}");
}

#[test]
fn a_saved_speed_no_step_can_follow_is_held_to_one_that_can() {
    // A baked level whose saved fastest speed (edited by hand, or kept after a runaway) needs
    // more sub-steps than a step takes: every step ran away, and only a step sets it again.
    let mut level = Level::flat(16, 16, 1.0, 0.0);
    level.water = Grid::from_fn(16, 16, |x, _| if x < 8 { 1.0 } else { 0.1 });
    let mut sim = Simulation::new(&level).unwrap();
    sim.step(level.params.dt).unwrap();
    let mut baked = sim.bake_into(&level);
    baked.flow.as_mut().expect("flow").max_speed = Some(1e5);
    let mut again = Simulation::new(&baked).unwrap();
    again.step(level.params.dt).expect("the step runs");
    assert_healthy(&again);
}

#[test]
fn a_saved_face_no_step_can_follow_is_held_to_one_that_can_without_a_saved_speed() {
    // The same with `max_speed` absent: the speed is taken from the saved faces, and one face
    // of 1e5 m/s (a hand edit) made every step run away on both solvers.
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let mut level = Level::flat(16, 16, 1.0, 0.0);
        level.water = Grid::from_fn(16, 16, |x, _| if x < 8 { 1.0 } else { 0.1 });
        level.params.solver = solver;
        let mut sim = Simulation::new(&level).unwrap();
        sim.step(level.params.dt).unwrap();
        let mut baked = sim.bake_into(&level);
        let flow = baked.flow.as_mut().expect("flow");
        flow.max_speed = None;
        match solver {
            SolverKind::Pipes => flow.aux_x[40] = 1e5,
            SolverKind::Swe => flow.flow_x[40] = 1e5,
        }
        baked.validate(&Default::default()).expect("a valid level");
        let mut again = Simulation::new(&baked).unwrap();
        again
            .step(level.params.dt)
            .unwrap_or_else(|e| panic!("{solver:?}: {e}"));
        assert_healthy(&again);
    }
}

#[test]
fn the_roughest_friction_a_level_may_have_keeps_the_water_finite() {
    // A lake beside dry ground under each law at the rough end of its range: Chézy's c below
    // 0.001 made g·dt/c² infinite, and a face at rest gave ∞ × 0 = NaN (it is refused now).
    use spillway::level::Friction;
    for friction in [
        Friction::Chezy { c: 1e-3 },
        Friction::Manning { n: 1.0 },
        Friction::Linear {
            per_second: 0.999_999,
        },
    ] {
        for solver in [SolverKind::Pipes, SolverKind::Swe] {
            let mut level = Level::flat(16, 16, 1.0, 0.0);
            level.water = Grid::from_fn(16, 16, |x, _| if x < 8 { 1.0 } else { 0.0 });
            level.params.friction = friction;
            level.params.solver = solver;
            level.validate(&Default::default()).expect("a valid level");
            let mut sim = Simulation::new(&level).unwrap();
            for _ in 0..20 {
                sim.step(level.params.dt)
                    .unwrap_or_else(|e| panic!("{friction:?} {solver:?}: {e}"));
            }
            assert_healthy(&sim);
        }
    }
}
