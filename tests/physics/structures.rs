//! Culverts, weirs and sluice gates (`level::structure`): their discharge against their
//! formulas over a range of heads, volume balance to 1e-6, never a negative depth, and a gate
//! opening that follows its schedule. SWASHES' sluice gates are in `tests/validation`.

use spillway::Simulation;
use spillway::level::{Friction, Level, Schedule, SolverKind, Structure, StructureKind};

const G: f32 = 9.81;

use spillway_tests::structure_channel as channel;

/// The structure's mean discharge over the last `last` of `seconds`, m³/s.
fn settled_flow(level: &Level, seconds: f64, last: f64) -> (f32, Simulation) {
    let mut sim = Simulation::new(level).unwrap();
    sim.advance(seconds - last).unwrap();
    let steps = (last / level.params.dt as f64).round() as usize;
    let mut sum = 0.0;
    for _ in 0..steps {
        sim.step(level.params.dt).unwrap();
        sum += sim.structure_flows()[0];
    }
    (sum / steps as f32, sim)
}

#[test]
fn a_weir_passes_the_broad_crested_weir_discharge_over_a_range_of_heads() {
    let (crest, coefficient, width) = (2.0, 0.95, 4.0);
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        for head in [0.1f32, 0.2, 0.4, 0.8] {
            let weir = StructureKind::Weir {
                from: [20.0, 0.0],
                to: [20.0, 4.0],
                crest,
                coefficient,
            };
            let level = channel(solver, crest + head, weir);
            let (q, sim) = settled_flow(&level, 90.0, 10.0);
            let formula =
                coefficient * (2.0f32 / 3.0).powf(1.5) * G.sqrt() * width * head.powf(1.5);
            let s = sim.stats();
            println!(
                "{solver:?}, head {head} m: {q:.4} m³/s, formula {formula:.4} m³/s ({:+.2} %), \
                 balance {:.1e}",
                100.0 * (q / formula - 1.0),
                s.balance_error
            );
            assert!(
                (q / formula - 1.0).abs() < 0.05,
                "{solver:?} {head}: {q} vs {formula}"
            );
            assert!(s.balance_error.abs() < 1e-6, "{}", s.balance_error);
        }
    }
}

#[test]
fn a_weir_holds_water_below_its_crest() {
    let weir = StructureKind::Weir {
        from: [20.0, 0.0],
        to: [20.0, 4.0],
        crest: 2.0,
        coefficient: 0.95,
    };
    let level = channel(SolverKind::Pipes, 1.9, weir);
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(30.0).unwrap();
    let downstream: f32 = (20..40).map(|i| sim.depth()[i]).sum();
    assert_eq!(downstream, 0.0, "water passed a weir it does not top");
    assert_eq!(sim.structure_flows()[0], 0.0);
}

/// Two basins 20 m × 20 m on either side of a 1 m wall 10 m high, their surfaces `head` apart,
/// joined by a culvert.
fn basins(solver: SolverKind, low: f32, head: f32, diameter: f32) -> Level {
    let mut level = Level::flat(41, 20, 1.0, 0.0);
    level.params.solver = solver;
    level.params.friction = Friction::NONE;
    for j in 0..20 {
        level.terrain.set(20, j, 10.0);
        for i in 0..20 {
            level.water.set(i, j, low + head);
            level.water.set(21 + i, j, low);
        }
    }
    level.structures.push(Structure {
        name: "culvert".into(),
        kind: StructureKind::Culvert {
            from: [10.5, 10.5],
            to: [30.5, 10.5],
            diameter,
            length: 10.0,
            roughness: 0.013,
        },
    });
    level
}

fn volume_of(sim: &Simulation, i0: usize, i1: usize) -> f64 {
    let nx = sim.nx();
    (0..sim.ny())
        .flat_map(|j| (i0..i1).map(move |i| j * nx + i))
        .map(|c| sim.depth()[c] as f64)
        .sum()
}

#[test]
fn a_culvert_passes_the_pipe_flow_discharge_over_a_range_of_heads() {
    let (d, length, n) = (0.5f32, 10.0f32, 0.013f32);
    let loss = 1.5 + 2.0 * G * n * n * length / (d / 4.0).powf(4.0 / 3.0);
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        for head in [0.05f32, 0.2, 1.0, 3.0] {
            let level = basins(solver, 2.0, head, d);
            let mut sim = Simulation::new(&level).unwrap();
            let before = volume_of(&sim, 21, 41);
            let seconds = 2.0;
            sim.advance(seconds).unwrap();
            let moved = (volume_of(&sim, 21, 41) - before) / seconds;
            // Both basins move by the volume over their 400 m²: the mean head over the run.
            let mean_head = head - (moved * seconds / 400.0) as f32;
            let area = std::f32::consts::FRAC_PI_4 * d * d;
            let formula = area * (2.0 * G * mean_head / loss).sqrt();
            let s = sim.stats();
            println!(
                "{solver:?}, head {head} m: {moved:.4} m³/s, formula {formula:.4} m³/s ({:+.2} %), \
                 balance {:.1e}",
                100.0 * (moved as f32 / formula - 1.0),
                s.balance_error
            );
            assert!(
                (moved as f32 / formula - 1.0).abs() < 0.05,
                "{solver:?} {head}"
            );
            assert!(s.balance_error.abs() < 1e-6, "{}", s.balance_error);
        }
    }
}

#[test]
fn a_culvert_takes_no_more_than_its_inlet_holds() {
    // A film of 1 cm at the inlet and a dry basin below: the culvert drains it, never below dry.
    let mut level = basins(SolverKind::Pipes, 0.0, 0.01, 1.0);
    for j in 0..20 {
        for i in 21..41 {
            level.terrain.set(i, j, -5.0);
        }
    }
    let mut sim = Simulation::new(&level).unwrap();
    let start = volume_of(&sim, 0, 20);
    for _ in 0..500 {
        sim.step(0.02).unwrap();
        assert!(sim.depth().iter().all(|&d| d >= 0.0 && d.is_finite()));
    }
    let s = sim.stats();
    let moved = volume_of(&sim, 21, 41);
    println!(
        "moved {moved:.4} of {start:.4} m³, balance {:.1e}",
        s.balance_error
    );
    assert!(moved > 0.0 && moved < start);
    assert!(s.balance_error.abs() < 1e-6, "{}", s.balance_error);
}

#[test]
fn a_culvert_passes_no_more_than_its_inlets_water_can_give() {
    // 0.2 m of water at the inlet of a 1 m pipe falling 3 m: the pipe-flow law alone passed
    // 0.68 m³/s through the water's 0.11 m² of pipe, at 6.1 m/s; 0.2 m of water can give it
    // √(2g·0.2) = 1.98 m/s.
    let mut level = basins(SolverKind::Pipes, 0.0, 0.2, 1.0);
    for j in 0..20 {
        for i in 21..41 {
            level.terrain.set(i, j, -3.0);
        }
    }
    let mut sim = Simulation::new(&level).unwrap();
    sim.step(0.02).unwrap();
    let q = sim.structure_flows()[0];
    // The wet segment of a pipe of radius r filled to y: r²/2·(θ − sin θ).
    let (r, y) = (0.5f32, 0.2f32);
    let theta = 2.0 * ((r - y) / r).acos();
    let most = 0.5 * r * r * (theta - theta.sin()) * (2.0 * G * y).sqrt();
    println!("{q:.4} m³/s through a pipe 0.2 m full: at most {most:.4}");
    assert!(q > 0.0 && q <= most * 1.02, "{q} against {most}");
}

#[test]
fn a_sluice_gate_opens_on_its_schedule() {
    // Shut for 5 s, then lifted to 0.3 m over 2 s.
    let gate = StructureKind::SluiceGate {
        from: [20.0, 0.0],
        to: [20.0, 4.0],
        sill: 0.0,
        opening: Schedule {
            points: vec![[5.0, 0.0], [7.0, 0.3]],
            period: None,
        },
        contraction: 0.611,
    };
    let level = channel(SolverKind::Pipes, 2.0, gate);
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(5.0).unwrap();
    assert_eq!(volume_of(&sim, 20, 40), 0.0, "water passed the shut gate");
    sim.advance(25.0).unwrap();
    let q = sim.structure_flows()[0];
    // Free flow under a 0.3 m opening from about 2 m of water (less the approach's losses).
    let y = 0.611 * 0.3;
    let free = 4.0 * y * (2.0 * G * (2.0 - y) / (1.0 - (y / 2.0f32).powi(2))).sqrt();
    println!("after opening: {q:.4} m³/s, free flow from 2 m: {free:.4} m³/s");
    assert!(q > 0.9 * free && q <= free * 1.001, "{q} vs {free}");
    assert!(sim.stats().balance_error.abs() < 1e-6);
}

#[test]
fn a_game_lifts_a_sluice_gate_by_name() {
    let gate = StructureKind::SluiceGate {
        from: [20.0, 0.0],
        to: [20.0, 4.0],
        sill: 0.0,
        opening: Schedule::constant(0.0),
        contraction: 0.611,
    };
    let mut level = channel(SolverKind::Pipes, 2.0, gate);
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(5.0).unwrap();
    assert_eq!(volume_of(&sim, 20, 40), 0.0, "water passed the shut gate");
    assert!(level.set_gate_opening("structure", 0.3));
    sim.set_sources_sinks(&level).unwrap();
    sim.advance(5.0).unwrap();
    assert!(volume_of(&sim, 20, 40) > 1.0);
    assert!(sim.structure_flows()[0] > 1.0);
    assert!(sim.stats().balance_error.abs() < 1e-6);
}

#[test]
fn a_gate_clear_of_the_water_is_a_weir_over_its_sill() {
    // A sill 1.5 m above the ground under 2 m of water: an opening past the 0.5 m over the
    // sill left the faces free, the full 2 m flowing through as if there were no sill (the
    // discharge jumped fourfold between openings of 0.45 and 0.55 m).
    let flow = |opening: f32| {
        let gate = StructureKind::SluiceGate {
            from: [20.0, 0.0],
            to: [20.0, 4.0],
            sill: 1.5,
            opening: Schedule::constant(opening),
            contraction: 0.611,
        };
        let level = channel(SolverKind::Pipes, 2.0, gate);
        settled_flow(&level, 60.0, 10.0).0
    };
    let (under, clear) = (flow(0.45), flow(0.55));
    let weir = (2.0f32 / 3.0).powf(1.5) * G.sqrt() * 4.0 * 0.5f32.powf(1.5);
    println!(
        "opening 0.45 m: {under:.3} m³/s; 0.55 m: {clear:.3} m³/s; weir over the sill {weir:.3}"
    );
    assert!(
        clear <= 1.05 * weir && clear > 0.8 * weir,
        "{clear} vs {weir}"
    );
    assert!((clear / under - 1.0).abs() < 0.3, "{under} → {clear}");
}
