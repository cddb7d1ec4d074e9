//! Water on top of a raised body (Kellomäki 2014 §3.1): rain on a table stands on its top and
//! runs off its edges instead of falling through it into the gap below.

use spillway::body::Pose;
use spillway::level::Level;
use spillway::{Grid, Simulation};

use super::{asset, blockers};

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
        let s = sim.effective_surface();
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
    let stats = sim.stats();
    assert!(
        stats.balance_error.abs() < 1e-6,
        "balance {}",
        stats.balance_error
    );
}
