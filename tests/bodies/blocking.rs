//! Blocking bodies in the pipes solver: a crate dam holds the river until the water tops it, a
//! body with clearance lets water under it but not through it, and no blockers means the plain
//! solver, bit for bit.

use spillway::body::Pose;
use spillway::level::BoundaryKind;
use spillway::sim::blocking::Blockers;
use spillway::{Grid, Simulation};

use super::{asset, blockers, channel, discharge_at, surface_at_column};

/// Mean downstream discharge over `seconds`, sampled every step.
fn mean_discharge(sim: &mut Simulation, column: usize, seconds: f64) -> f64 {
    let steps = (seconds / sim.params().dt as f64).round() as usize;
    let mut sum = 0.0;
    for _ in 0..steps {
        sim.step(sim.params().dt).expect("stable");
        sum += discharge_at(sim, column);
    }
    sum / steps as f64
}

#[test]
fn a_row_of_crates_dams_the_channel_until_the_water_tops_it() {
    // 30 m × 3 m channel, 0.5 m cells, 0.3 m³/s in at the west end; three 1 m crates across it
    // at x = 15..16 m, resting on the bed.
    let level = channel(30.0, 3.0, 0.5, 0.3);
    let crate_mesh = asset("crate");
    let mut free = Simulation::new(&level).unwrap();
    let mut dammed = Simulation::new(&level).unwrap();
    let crates: Vec<_> = (0..3)
        .map(|k| (&crate_mesh, Pose::at([15.5, 0.5 + k as f32, 0.5])))
        .collect();
    let b = blockers(&dammed, &crates);
    assert_eq!(b.covered_cells(), 2 * 6);
    dammed.set_blockers(&b).unwrap();
    let downstream = 50; // x = 25 m
    // 100 s: with Manning's friction the front takes its time over the dry bed.
    free.advance(100.0).unwrap();
    dammed.advance(100.0).unwrap();
    let q_free = mean_discharge(&mut free, downstream, 10.0);
    let q_dam = mean_discharge(&mut dammed, downstream, 10.0);
    let upstream = surface_at_column(&dammed, 25);
    println!(
        "below the top: free {q_free:.4} m³/s, dammed {q_dam:.5} m³/s, upstream surface {upstream:.3} m"
    );
    assert!(
        upstream > 0.2 && upstream < 1.0,
        "upstream surface {upstream}"
    );
    assert!(
        q_free > 0.25,
        "the free channel carries the inflow: {q_free}"
    );
    assert!(
        q_dam.abs() < 0.1 * q_free,
        "the dam passes {q_dam} of {q_free}"
    );
    // Keep filling until the water is over the crates' top: it spills over.
    let mut t = 110.0;
    while surface_at_column(&dammed, 25) < 1.1 && t < 600.0 {
        dammed.advance(10.0).unwrap();
        t += 10.0;
    }
    let over = mean_discharge(&mut dammed, downstream, 20.0);
    let upstream = surface_at_column(&dammed, 25);
    println!("over the top at t = {t} s: upstream {upstream:.3} m, downstream {over:.4} m³/s");
    assert!(upstream > 1.0, "water rose above the crates: {upstream}");
    assert!(over > 0.1, "water flows over the crates: {over}");
    let s = dammed.stats();
    assert!(s.balance_error.abs() < 1e-6, "balance {}", s.balance_error);
}

/// A 2 m long slab spanning the channel, `bottom..bottom + 0.6` high.
fn slab(bottom: f32) -> Pose {
    Pose {
        translation: [15.0, 1.5, bottom + 0.3],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [2.0, 3.0, 0.6],
    }
}

#[test]
fn water_passes_under_a_body_with_clearance_and_not_through_it() {
    let level = channel(30.0, 3.0, 0.5, 0.3);
    let crate_mesh = asset("crate");
    let run = |pose: Option<Pose>| {
        let mut sim = Simulation::new(&level).unwrap();
        if let Some(p) = pose {
            let b = blockers(&sim, &[(&crate_mesh, p)]);
            sim.set_blockers(&b).unwrap();
        }
        sim.advance(50.0).unwrap();
        let q = mean_discharge(&mut sim, 50, 10.0);
        (q, surface_at_column(&sim, 25), sim.stats().balance_error)
    };
    let (q_free, h_free, _) = run(None);
    let (q_under, h_under, bal) = run(Some(slab(0.5)));
    let (q_solid, h_solid, _) = run(Some(slab(0.0)));
    println!(
        "free {q_free:.4} m³/s (h {h_free:.3}), 0.5 m clearance {q_under:.4} (h {h_under:.3}), none {q_solid:.5} (h {h_solid:.3})"
    );
    assert!(
        h_under < 0.5,
        "the water stays below the clearance: {h_under}"
    );
    assert!(
        q_under > 0.9 * q_free,
        "water passes under: {q_under} of {q_free}"
    );
    assert!(
        q_solid.abs() < 0.1 * q_free,
        "the same body on the bed blocks: {q_solid}"
    );
    assert!(bal.abs() < 1e-6, "balance {bal}");
}

#[test]
fn a_flooded_gap_passes_water_only_through_its_height() {
    // The channel ends in a lake held at 0.4 m, so the water under the slab (0.1 m clearance,
    // top at 0.7 m) is flooded: all of the inflow still passes under it, throttled by the gap
    // (a head drop across the slab), none over it, none lost or gained.
    let mut level = channel(30.0, 3.0, 0.5, 0.3);
    level.boundaries[1].kind = BoundaryKind::FixedLevel { surface: 0.4 };
    level.water = Grid::filled(level.nx(), level.ny(), 0.4);
    let crate_mesh = asset("crate");
    let run = |pose: Option<Pose>| {
        let mut sim = Simulation::new(&level).unwrap();
        if let Some(p) = pose {
            let b = blockers(&sim, &[(&crate_mesh, p)]);
            sim.set_blockers(&b).unwrap();
        }
        sim.advance(150.0).unwrap();
        let q = mean_discharge(&mut sim, 40, 20.0);
        let drop = surface_at_column(&sim, 20) - surface_at_column(&sim, 40);
        (
            q,
            drop,
            surface_at_column(&sim, 20),
            sim.stats().balance_error,
        )
    };
    let (q_free, drop_free, _, _) = run(None);
    let (q_gap, drop_gap, upstream, bal) = run(Some(slab(0.1)));
    println!(
        "flooded gap: free {q_free:.4} m³/s, head drop {drop_free:.4} m; under the slab {q_gap:.4} m³/s, drop {drop_gap:.4} m, upstream {upstream:.3} m"
    );
    assert!(
        (q_gap / 0.3 - 1.0).abs() < 0.1,
        "all the inflow passes under: {q_gap}"
    );
    assert!(
        drop_gap > drop_free + 0.02,
        "the gap throttles: {drop_gap} vs {drop_free}"
    );
    assert!(upstream < 0.7, "no water over the slab: {upstream}");
    assert!(bal.abs() < 1e-6, "balance {bal}");
}

#[test]
fn no_blockers_is_the_plain_solver_bit_for_bit() {
    let level = channel(20.0, 3.0, 0.5, 0.3);
    let mut plain = Simulation::new(&level).unwrap();
    let mut cleared = Simulation::new(&level).unwrap();
    let empty = Blockers::new(cleared.nx(), cleared.ny());
    cleared.set_blockers(&empty).unwrap();
    assert!(!cleared.has_blockers());
    for _ in 0..300 {
        plain.step(0.02).unwrap();
        cleared.step(0.02).unwrap();
    }
    assert_eq!(plain.depth(), cleared.depth());
    assert_eq!(plain.discharges(), cleared.discharges());
    let wrong = Blockers::new(3, 3);
    assert!(cleared.set_blockers(&wrong).is_err());
}

#[test]
fn a_dam_of_crates_off_the_grid_still_holds() {
    // The same dam shifted by a half and an eighth of a cell, and turned by 0.2 rad: partly
    // covered cells keep their free part, and the faces between covered cells stay shut.
    let level = channel(30.0, 3.0, 0.5, 0.3);
    let crate_mesh = asset("crate");
    let mut free = Simulation::new(&level).unwrap();
    free.advance(50.0).unwrap();
    let q_free = mean_discharge(&mut free, 50, 10.0);
    for (shift, yaw) in [(0.25f32, 0.0f32), (0.0625, 0.0), (0.0, 0.2)] {
        let mut sim = Simulation::new(&level).unwrap();
        let (s, c) = ((yaw / 2.0).sin(), (yaw / 2.0).cos());
        let crates: Vec<_> = (0..3)
            .map(|k| {
                let pose = Pose {
                    translation: [15.5 + shift, 0.5 + k as f32, 0.5],
                    rotation: [0.0, 0.0, s, c],
                    scale: [1.0; 3],
                };
                (&crate_mesh, pose)
            })
            .collect();
        let b = blockers(&sim, &crates);
        sim.set_blockers(&b).unwrap();
        sim.advance(50.0).unwrap();
        let q = mean_discharge(&mut sim, 50, 10.0);
        let up = surface_at_column(&sim, 25);
        println!("shift {shift} m, yaw {yaw} rad: {q:.5} of {q_free:.4} m³/s, upstream {up:.3} m");
        assert!(
            up < 1.0 && q.abs() < 0.1 * q_free,
            "shift {shift}, yaw {yaw}: {q}"
        );
    }
}

#[test]
fn water_runs_under_the_cart_between_its_wheels() {
    // A 2 m wide channel on 0.25 m cells; the cart (0.55 m clearance) stands across it.
    let level = channel(30.0, 2.0, 0.25, 0.2);
    let cart = asset("cart");
    let run = |with_cart: bool| {
        let mut sim = Simulation::new(&level).unwrap();
        if with_cart {
            let b = blockers(&sim, &[(&cart, Pose::at([15.0, 1.0, 0.575]))]);
            sim.set_blockers(&b).unwrap();
        }
        sim.advance(120.0).unwrap();
        let q = mean_discharge(&mut sim, 100, 10.0);
        // Depth under the chassis, between the wheels.
        let under = sim.depth()[4 * sim.nx() + 60];
        (q, under)
    };
    let (q_free, _) = run(false);
    let (q_cart, under) = run(true);
    println!("cart: {q_cart:.4} of {q_free:.4} m³/s pass, {under:.3} m of water under it");
    assert!(q_cart > 0.9 * q_free, "{q_cart} of {q_free}");
    assert!(under > 0.01, "water under the chassis: {under}");
}

#[test]
fn unusable_blockers_are_refused() {
    let mut b = Blockers::new(4, 4);
    assert!(!b.add_column(4, 0, 0.0, 1.0, 1.0), "outside the grid");
    assert!(!b.add_column(0, 0, f32::NAN, 1.0, 1.0));
    assert!(!b.add_column(0, 0, 1.0, 0.0, 1.0), "top below bottom");
    assert!(!b.add_column(0, 0, 0.0, 1.0, 0.0), "no cover");
    assert!(b.is_empty());
    assert!(b.add_column(1, 1, 0.0, 1.0, 0.7));
    assert!(b.add_column(1, 1, 0.5, 2.0, 0.7));
    assert_eq!(b.column(1, 1), Some((0.0, 2.0, 1.0)));
    let mut level = spillway::Level::flat(4, 4, 1.0, 0.0);
    let mut sim = Simulation::new(&level).unwrap();
    b.kappa = f32::NAN;
    assert!(sim.set_blockers(&b).is_err());
    b.kappa = 0.5;
    sim.set_blockers(&b).unwrap();
    assert!(sim.has_blockers());
    sim.clear_blockers();
    assert!(!sim.has_blockers());
    // The shallow-water solver takes blockers too.
    level.params.solver = spillway::SolverKind::Swe;
    let mut swe = Simulation::new(&level).unwrap();
    swe.set_blockers(&b).unwrap();
    assert!(swe.has_blockers());
    b.alpha = 0.0;
    assert!(matches!(
        swe.set_blockers(&b),
        Err(spillway::sim::blocking::BlockerError::Alpha(_))
    ));
}

#[test]
fn the_point_queries_read_the_water_around_a_blocker_not_a_pit() {
    // A crate 1 m tall on the bed of a lake 2 m deep: the cells under it hold 1 m of water
    // above it, and the queries read the ground plus that, 1 m below the lake around.
    let mut level = spillway::Level::flat(16, 16, 1.0, 0.0);
    level.water = Grid::filled(16, 16, 2.0);
    let mut sim = Simulation::new(&level).unwrap();
    let mut crate_ = Blockers::new(16, 16);
    for j in 6..10 {
        for i in 6..10 {
            crate_.add_column(i, j, 0.0, 1.0, 1.0);
        }
    }
    sim.set_blockers(&crate_).unwrap();
    sim.advance(200.0).unwrap();
    let around = sim.effective_surface_at(8 * 16 + 8);
    let (surface, depth) = (sim.surface_at(8.5, 8.5), sim.depth_at(8.5, 8.5));
    println!("around {around:.3} m; surface_at {surface:.3} m, depth_at {depth:.3} m");
    assert!(
        (surface - around).abs() < 0.01,
        "{surface} against {around}"
    );
    assert!((depth - around).abs() < 0.01, "{depth} on ground at 0 m");
    // Beside the crate, the lake as it stands.
    let open = sim.surface_at(2.5, 2.5);
    println!("the lake beside it: {open:.3} m");
    assert!((open - around).abs() < 0.05, "{open} against {around}");
}
