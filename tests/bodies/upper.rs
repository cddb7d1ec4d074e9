//! Water on top of a raised body (Kellomäki 2014 §3.1): rain on a table stands on its top and
//! runs off its edges instead of falling through it into the gap below.

use spillway::body::Pose;
use spillway::level::Level;
use spillway::{Grid, Simulation};

use super::{asset, blockers};

/// The volume ledger holds.
fn assert_balance(sim: &Simulation) {
    let stats = sim.stats();
    assert!(
        stats.balance_error.abs() < 1e-6,
        "balance {}",
        stats.balance_error
    );
}

/// A dry 20 m × 20 m walled field of 0.5 m cells under `mm_per_hour` of rain.
fn field(mm_per_hour: f32) -> Level {
    let mut level = Level::flat(40, 40, 0.5, 0.0);
    level.water = Grid::filled(40, 40, 0.0);
    level.params.rain_mm_per_hour = mm_per_hour;
    level
}

/// A 4 m × 4 m table top in the middle of the field, 0.2 m thick, its underside 1 m up.
fn table() -> Pose {
    Pose {
        translation: [10.0, 10.0, 1.1],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [4.0, 4.0, 0.2],
    }
}

#[test]
fn rain_on_a_table_stands_on_its_top_and_runs_off_its_edges() {
    // 36 m/h: 1 cm of rain a second.
    let level = field(36_000.0);
    let mut sim = Simulation::new(&level).unwrap();
    let b = blockers(&sim, &[(&asset("crate"), table())]);
    sim.set_blockers(&b).unwrap();
    let nx = sim.nx();
    let centre = 20 * nx + 20;
    let top = 1.2;
    let mut on_top = Vec::new();
    for second in 1..=10 {
        sim.advance(1.0).unwrap();
        let s = sim.drawn_surface();
        // Water on the table: the surface over its 8 × 8 cells above its top.
        let film: f32 = (16..24)
            .flat_map(|j| (16..24).map(move |i| j * nx + i))
            .map(|k| (s[k] - top).max(0.0))
            .sum::<f32>()
            / 64.0;
        let under = sim.depth()[centre];
        println!(
            "t = {second} s: surface at the centre {:.4} m, mean film on top {film:.4} m, \
             depth at the centre {under:.4} m, beside the table {:.4} m",
            s[centre],
            sim.depth()[20 * nx + 4]
        );
        on_top.push((s[centre], film));
    }
    let (centre_surface, _) = on_top[0];
    assert!(
        centre_surface > top,
        "after 1 s of rain the water stands on the table: surface {centre_surface} m"
    );
    // It runs off the edges: 10 cm has fallen on the table, a film of a few centimetres stays.
    let (_, film) = on_top[9];
    assert!(
        film > 0.005 && film < 0.05,
        "the film on the table after 10 s: {film} m"
    );
    assert_balance(&sim);
}

#[test]
fn rain_on_a_low_table_fills_its_gap_and_then_stands_over_it() {
    // The same rain on a table whose underside is 0.1 m up: the water around it and the
    // runoff fill the gap within seconds; from then on the water on top is the cell's excess
    // and still stands over the table, the volume kept throughout.
    let level = field(36_000.0);
    let mut sim = Simulation::new(&level).unwrap();
    let mut pose = table();
    pose.translation[2] = 0.2;
    let b = blockers(&sim, &[(&asset("crate"), pose)]);
    sim.set_blockers(&b).unwrap();
    let nx = sim.nx();
    let centre = 20 * nx + 20;
    sim.advance(2.0).unwrap();
    let early = sim.drawn_surface()[centre];
    let under = sim.depth()[centre];
    println!("t = 2 s: surface {early:.4} m, depth {under:.4} m");
    assert!(
        early > 0.3,
        "the rain stands on the table at first: {early}"
    );
    sim.advance(18.0).unwrap();
    let late = sim.drawn_surface()[centre];
    let depth = sim.depth()[centre];
    let beside = sim.depth()[20 * nx + 4];
    println!("t = 20 s: surface {late:.4} m, depth {depth:.4} m, beside {beside:.4} m");
    let film = late - 0.3;
    assert!(
        film > 0.005 && film < 0.05,
        "a film runs off the table as before: {film} m"
    );
    assert!(
        depth - film > 0.095,
        "the gap has filled under it: {} m of 0.1",
        depth - film
    );
    assert!(
        beside < 0.3,
        "the water around is below the table's top: {beside}"
    );
    assert_balance(&sim);
}

#[test]
fn water_over_a_submerged_raised_body_is_part_of_the_lake() {
    // A lake 1 m deep over the walled field, no rain; a slab 0.2 m thick with its underside
    // 0.3 m up is set into it. The water around stands over the slab, so the gap is full and
    // the water on top is one with it and with the lake: drawn where the lake is, and the waves
    // the slab's displaced water makes in the closed field stay as small as without the upper
    // columns (a build that kept the two apart here pumped water in under the slab and out over
    // it, and the discharges grew past 1 m³/s).
    let mut level = field(0.0);
    level.water = Grid::filled(40, 40, 1.0);
    let mut sim = Simulation::new(&level).unwrap();
    let mut pose = table();
    pose.translation[2] = 0.4;
    let b = blockers(&sim, &[(&asset("crate"), pose)]);
    sim.set_blockers(&b).unwrap();
    let centre = 20 * sim.nx() + 20;
    let mut largest = 0.0f32;
    for _ in 0..12 {
        sim.advance(5.0).unwrap();
        let drawn = sim.drawn_surface();
        let effective = sim.effective_surface();
        let (lo, hi) = drawn
            .iter()
            .fold((f32::MAX, f32::MIN), |(a, b), &s| (a.min(s), b.max(s)));
        let (qx, qy) = sim.discharges();
        let q = qx.iter().chain(qy).fold(0.0f32, |m, q| m.max(q.abs()));
        largest = largest.max(q);
        println!(
            "t = {:.0} s: lake {lo:.4}..{hi:.4} m, over the slab {:.4} m, largest discharge {q:.3e} m³/s",
            sim.time(),
            drawn[centre]
        );
        assert_eq!(drawn[centre], effective[centre], "one column over the slab");
        assert!(
            drawn[centre] >= lo && drawn[centre] <= hi,
            "the water over the slab is the lake's: {} in {lo}..{hi}",
            drawn[centre]
        );
        assert!(hi - lo < 0.2, "the lake stays near level: {lo}..{hi}");
    }
    assert!(largest < 0.1, "the waves stay small: {largest} m³/s");
    assert_balance(&sim);
}

#[cfg(feature = "rapier")]
#[test]
fn rain_lands_on_a_fixed_table_above_dry_ground_in_a_coupled_run() {
    // A fixed table top 1 m over dry ground is wholly above the water, which would leave it
    // out of the water's step; in rain it takes part, and the rain stands on it.
    use spillway::body::world::BodyWorld;
    let level = field(36_000.0);
    let mut sim = Simulation::new(&level).unwrap();
    let mut world = BodyWorld::new(&sim);
    let mut table_body = super::body("crate", table().translation, 2400.0);
    table_body.scale = table().scale;
    table_body.dynamic = false;
    let id = world.add(&table_body, std::sync::Arc::new(asset("crate")));
    let dt = sim.params().dt;
    for _ in 0..(2.0 / dt).round() as usize {
        world.step(&mut sim, dt).expect("stable");
    }
    let centre = 20 * sim.nx() + 20;
    let drawn = sim.drawn_surface()[centre];
    println!(
        "after 2 s: drawn surface over the table {drawn:.4} m, pose {:?}",
        world.pose(id).map(|p| p.translation)
    );
    assert!(sim.has_blockers(), "the table takes part in the rain");
    assert!(
        drawn > 1.2 && drawn < 1.25,
        "the rain stands on the table: {drawn}"
    );
}
