//! Integration tests: samples. The first samples load, run 20 simulated seconds on the CPU
//! without NaN or negative depth, keep their mass balance, and show the event they were made
//! for (the dam breaks, the river flows in, the sea floods the island); every sample runs long
//! in `long_run.rs`. The
//! samples with rigid bodies (`crate_dam`, `dam_knockdown`) are run in a body world with
//! feature `rapier` (`cargo test -p spillway-tests --features rapier --test samples`). The
//! large `river_valley` (1024 × 1024 cells, tens of milliseconds a CPU step) runs only 40 steps.

#[cfg(feature = "rapier")]
mod bodies;
mod long_run;

use std::path::PathBuf;

use spillway::level::{BoundaryKind, Edge, Friction, file};
use spillway::{Level, Simulation, Stats};

/// A sample after 20 simulated seconds.
struct Run {
    level: Level,
    sim: Simulation,
    stats: Stats,
    wet_before: usize,
}

fn run_sample(name: &str) -> Run {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../projects/{name}/level.ron"));
    let level = file::load(&path).unwrap_or_else(|e| panic!("sample {name} does not load: {e}"));
    let mut sim = Simulation::new(&level).unwrap_or_else(|e| panic!("{name}: {e}"));
    let wet_before = sim.stats().wet_cells;
    let before = sim.depth().to_vec();
    sim.advance(20.0).unwrap_or_else(|e| panic!("{name}: {e}"));
    let stats = sim.stats();

    assert!(
        (stats.time - 20.0).abs() < 1e-3,
        "{name}: ran {} s, not 20",
        stats.time
    );
    if let Some(i) = sim
        .depth()
        .iter()
        .position(|d| !(d.is_finite() && *d >= 0.0))
    {
        panic!(
            "{name}: depth {} at cell {i} is not a finite number ≥ 0",
            sim.depth()[i]
        );
    }
    assert!(
        stats.balance_error.abs() < 1e-5,
        "{name}: mass balance error {:e} (stats {stats:?})",
        stats.balance_error
    );
    let moved = sim
        .depth()
        .iter()
        .zip(&before)
        .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
    assert!(
        moved > 0.1,
        "{name}: the water hardly moved (largest depth change {moved} m)"
    );
    Run {
        level,
        sim,
        stats,
        wet_before,
    }
}

#[test]
fn dam_break_valley_floods_the_valley_below_the_dam() {
    let Run {
        level,
        sim,
        stats,
        wet_before,
    } = run_sample("dam_break_valley");
    let (w, h) = (
        level.nx() as f32 * level.cell_size,
        level.ny() as f32 * level.cell_size,
    );
    let dam_x = 100.0;
    let initial_below = {
        let mut s = 0.0;
        for j in 0..level.ny() {
            for i in 0..level.nx() {
                if (i as f32 + 0.5) * level.cell_size > dam_x {
                    s += level.water.get(i, j) as f64;
                }
            }
        }
        s
    };
    assert_eq!(initial_below, 0.0, "the valley below the dam starts dry");
    let below = sim.region_volume(dam_x, 0.0, w, h);
    assert!(
        below > 0.3 * stats.volume_initial,
        "only {below:.0} m³ of {:.0} m³ passed the dam line",
        stats.volume_initial
    );
    assert!(stats.wet_cells > wet_before, "the wetted area did not grow");
}

#[test]
fn river_gorge_spring_feeds_the_river_down_the_channel() {
    let Run {
        level, sim, stats, ..
    } = run_sample("river_gorge");
    assert!(
        (stats.inflow - 40.0 * 20.0).abs() < 0.01 * 800.0,
        "the spring delivered {:.1} m³ in 20 s, expected 800",
        stats.inflow
    );
    // The river has left the inflow edge: rows 10–50 m downstream, dry at the start, are wet
    // across the channel.
    let nx = level.nx();
    for j in 5..25 {
        let was_dry = (0..nx).all(|i| level.water.get(i, j) == 0.0);
        let wet = sim.depth()[j * nx..(j + 1) * nx]
            .iter()
            .filter(|&&d| d > 1e-3)
            .count();
        assert!(
            was_dry && wet >= 3,
            "row {j}: {wet} wet cells; the river has not run down"
        );
    }
}

#[test]
fn flooding_island_sea_rises_over_the_plain() {
    let Run {
        level,
        stats,
        wet_before,
        ..
    } = run_sample("flooding_island");
    assert!(
        stats.inflow > 1000.0,
        "the sea edge let in only {:.1} m³",
        stats.inflow
    );
    let cells = level.nx() * level.ny();
    assert!(
        stats.wet_cells > wet_before + cells / 10,
        "the flooded area grew from {wet_before} to only {} cells",
        stats.wet_cells
    );
    assert!(stats.wet_cells < cells, "the hills should stay dry");
}

#[test]
fn river_valley_loads_and_runs_with_its_roughness_inflow_and_lake() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../projects/river_valley/level.ron");
    let level = file::load(&path).unwrap_or_else(|e| panic!("river_valley does not load: {e}"));
    assert_eq!((level.nx(), level.ny()), (1024, 1024));
    assert!(
        matches!(level.params.friction, Friction::Manning { .. }),
        "{:?}",
        level.params.friction
    );
    let n = level.roughness.as_ref().expect("a roughness grid");
    let (lo, hi) = n
        .data
        .iter()
        .fold((f32::MAX, f32::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    assert!(
        (lo - 0.03).abs() < 1e-3 && (hi - 0.1).abs() < 1e-3,
        "Manning's n from gravel 0.03 to forest 0.1, got {lo}..{hi}"
    );
    let inflow: f32 = level
        .boundaries
        .iter()
        .filter_map(|b| match (b.edge, &b.kind) {
            (Edge::West, BoundaryKind::Inflow { m3_per_s }) => Some(*m3_per_s),
            _ => None,
        })
        .sum();
    assert_eq!(inflow, 40.0, "{:?}", level.boundaries);
    assert!(
        level
            .boundaries
            .iter()
            .any(|b| b.edge == Edge::East && b.kind == BoundaryKind::Open),
        "{:?}",
        level.boundaries
    );
    // The lake starts filled: its deepest cell holds several metres of water.
    let deepest = level
        .water
        .data
        .iter()
        .enumerate()
        .fold((0, 0.0f32), |m, (i, &d)| if d > m.1 { (i, d) } else { m });
    assert!(deepest.1 > 5.0, "the lake is not filled: {deepest:?}");

    let mut sim = Simulation::new(&level).unwrap_or_else(|e| panic!("river_valley: {e}"));
    let steps = 40;
    for k in 0..steps {
        sim.step(level.params.dt)
            .unwrap_or_else(|e| panic!("river_valley: step {k}: {e}"));
    }
    let stats = sim.stats();
    if let Some(i) = sim
        .depth()
        .iter()
        .position(|d| !(d.is_finite() && *d >= 0.0))
    {
        panic!(
            "river_valley: depth {} at cell {i} is not a finite number ≥ 0",
            sim.depth()[i]
        );
    }
    assert!(
        stats.balance_error.abs() < 1e-5,
        "river_valley: mass balance error {:e} (stats {stats:?})",
        stats.balance_error
    );
    let seconds = steps as f64 * level.params.dt as f64;
    let expected = 40.0 * seconds;
    assert!(
        (stats.inflow - expected).abs() < 0.01 * expected,
        "the west edge let in {:.1} m³ in {seconds:.1} s, expected {expected:.1}",
        stats.inflow,
    );
    // Baked: the river already runs through the lake and the gorge and out of the east edge.
    assert!(
        stats.outflow > 0.95 * expected,
        "the baked river let out {:.1} m³ of {expected:.1} in {seconds:.1} s",
        stats.outflow
    );
    assert!(
        sim.depth()[deepest.0] > deepest.1 - 0.05,
        "the lake drained: {} m at its deepest cell, was {}",
        sim.depth()[deepest.0],
        deepest.1
    );
}
