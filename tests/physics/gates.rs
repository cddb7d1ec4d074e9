//! Gates: a closed gate holds a reservoir back exactly (no water crosses), and opening it, at
//! its time or by its trigger name, releases a flood; volume is conserved throughout.

use spillway::Simulation;
use spillway_tests::gated_reservoir;

/// Water east of the gate, m³.
fn downstream(sim: &Simulation) -> f64 {
    let nx = sim.nx();
    sim.depth()
        .iter()
        .enumerate()
        .filter(|(i, _)| i % nx >= 22)
        .map(|(_, &d)| d as f64)
        .sum()
}

#[test]
fn a_closed_gate_holds_and_its_time_opens_it() {
    let level = gated_reservoir(Some(2.0));
    let mut sim = Simulation::new(&level).expect("sim");
    let v0 = sim.volume();
    sim.advance(1.98).expect("steps");
    assert_eq!(downstream(&sim), 0.0, "nothing crosses a closed gate");
    assert!(!sim.gates()[0].open);
    sim.advance(3.0).expect("steps");
    assert!(sim.gates()[0].open);
    let released = downstream(&sim);
    println!("downstream 3 s after opening: {released:.2} m³ of {v0:.2}");
    assert!(released > 10.0);
    assert!((sim.volume() - v0).abs() < 1e-6 * v0);
}

#[test]
fn a_trigger_opens_a_gate_by_name() {
    let level = gated_reservoir(None);
    let mut sim = Simulation::new(&level).expect("sim");
    sim.advance(5.0).expect("steps");
    assert_eq!(downstream(&sim), 0.0);
    assert!(!sim.open_gate("no such gate"));
    assert!(sim.open_gate("dam"));
    assert!(!sim.open_gate("dam"), "an open gate cannot open again");
    sim.advance(3.0).expect("steps");
    assert!(downstream(&sim) > 10.0);
}

#[test]
fn gates_sharing_a_trigger_name_open_together_and_stay_open_in_a_bake() {
    // The gate in two halves, one name: the trigger opened only the first, and a bake then
    // saved both as open (the bake goes by name), so a save game changed the level.
    let mut level = gated_reservoir(None);
    spillway_tests::gate_in_halves(&mut level);
    let mut sim = Simulation::new(&level).expect("sim");
    sim.advance(1.0).expect("steps");
    assert!(sim.open_gate("dam"));
    assert!(sim.gates().iter().all(|g| g.open), "{:?}", sim.gates());
    assert!(!sim.open_gate("dam"));
    let baked = sim.bake_into(&level);
    assert!(baked.gates.iter().all(|g| g.open_at == Some(0.0)));
    sim.advance(3.0).expect("steps");
    let nx = sim.nx();
    let past =
        |rows: std::ops::Range<usize>| -> f32 { rows.map(|y| sim.depth()[y * nx + 25]).sum() };
    assert!(
        past(2..8) > 1.0 && past(12..18) > 1.0,
        "both halves let the water through"
    );
}

#[test]
fn a_gate_opens_at_the_step_boundary_nearest_its_time() {
    // Fifty steps of 0.02 s sum to a hair under 1 s in `f32` steps: the gate at 1 s opened a
    // step late, at 1.02 s. Steps that do not divide the time open it at the nearer boundary.
    for (open_at, dt, steps_closed) in [(1.0, 0.02, 50), (2.4, 1.0, 2), (2.6, 1.0, 3)] {
        let mut level = gated_reservoir(Some(open_at));
        level.params.dt = dt;
        let mut sim = Simulation::new(&level).expect("sim");
        for _ in 0..steps_closed {
            sim.step(dt).expect("step");
        }
        assert!(
            !sim.gates()[0].open,
            "{open_at} s: open at {} s",
            sim.time()
        );
        sim.step(dt).expect("step");
        assert!(
            sim.gates()[0].open,
            "{open_at} s: closed at {} s",
            sim.time()
        );
    }
}

#[test]
fn a_bake_keeps_closed_a_gate_timed_later_that_shares_an_open_ones_name() {
    // Two halves named "dam", timed 1 s and 100 s apart: after 2 s the bake marked both open
    // (it went by name), so the level loaded from it let the north half's water through.
    let mut level = gated_reservoir(Some(1.0));
    spillway_tests::gate_in_halves(&mut level);
    level.gates[1].open_at = Some(100.0);
    let mut sim = Simulation::new(&level).expect("sim");
    sim.advance(2.0).expect("steps");
    let open = |sim: &Simulation| sim.gates().iter().map(|g| g.open).collect::<Vec<_>>();
    assert_eq!(open(&sim), [true, false]);
    let baked = sim.bake_into(&level);
    assert_eq!(baked.gates[1].open_at, Some(100.0));
    assert_eq!(
        open(&Simulation::new(&baked).expect("the bake")),
        [true, false]
    );
}
