//! The moving bed (`params.sediment`) on the CPU solver: a river carves its channel and builds
//! a delta where it enters a lake, a steep pile slumps to its angle of repose, gates do not
//! erode, and every grain is accounted for (the bed's balance to 1e-6). SWASHES' bedload
//! solutions are in `tests/validation`.

use spillway::Simulation;
use spillway::level::{
    BedloadLaw, Boundary, BoundaryKind, Edge, Gate, Level, Sediment, Shape, SolverKind, Suspension,
};

fn sand(talus: f32, slump: f32) -> Sediment {
    Sediment {
        law: BedloadLaw::Grass { a: 0.002 },
        porosity: 0.4,
        talus_degrees: talus,
        slump_per_second: slump,
        clear_inflow: true,
        layer: 5.0,
        speedup: 1.0,
        suspension: None,
        region: None,
    }
}

/// 40 m of channel falling 1 % into a lake 2 m deep and 20 m long (60 × 6 cells of 1 m), clear
/// water coming in at 3 m³/s, over a bed of `sediment`.
fn river_into_lake(sediment: Sediment) -> Level {
    let (nx, ny) = (60, 6);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.terrain =
        spillway::Grid::from_fn(
            nx,
            ny,
            |i, _| {
                if i < 40 { 0.01 * (40 - i) as f32 } else { -2.0 }
            },
        );
    level.water = spillway::Grid::from_fn(nx, ny, |i, _| if i < 40 { 0.2 } else { 2.0 });
    level.params.sediment = Some(sediment);
    level.boundaries.push(Boundary {
        edge: Edge::West,
        start: 0,
        end: ny as u32,
        kind: BoundaryKind::Inflow { m3_per_s: 3.0 },
    });
    level
}

#[test]
fn a_river_carves_its_channel_and_builds_a_delta_in_the_lake() {
    for solver in [SolverKind::Pipes, SolverKind::Swe] {
        let mut level = river_into_lake(sand(90.0, 0.0));
        level.params.solver = solver;
        let (nx, ny) = (60, 6);
        let before = level.terrain.data.clone();
        let mut sim = Simulation::new(&level).unwrap();
        sim.advance(60.0).unwrap();
        let change = |i0: usize, i1: usize| -> f64 {
            (0..ny)
                .flat_map(|j| (i0..i1).map(move |i| j * nx + i))
                .map(|c| (sim.terrain()[c] - before[c]) as f64)
                .sum()
        };
        let (channel, delta) = (change(0, 10), change(40, 46));
        let bed = sim.bed_stats().expect("a moving bed");
        println!(
            "{solver:?}: upper channel {channel:+.3} m³, delta {delta:+.3} m³; eroded {:.3}, deposited \
             {:.3}, entered {:.3}, left {:.3} m³, balance {:.1e}",
            bed.eroded, bed.deposited, bed.entered, bed.left, bed.balance_error
        );
        assert!(
            channel < -0.1,
            "{solver:?}: the channel did not deepen: {channel}"
        );
        assert!(delta > 0.1, "{solver:?}: no delta: {delta}");
        assert!(bed.balance_error.abs() < 1e-6, "{}", bed.balance_error);
        assert!(sim.stats().balance_error.abs() < 1e-6);
    }
}

/// The steepest step between neighbours of an `n × n` terrain, metres per metre of 1 m cells.
fn steepest(t: &[f32], n: usize) -> f32 {
    let mut steepest = 0.0f32;
    for j in 0..n {
        for i in 0..n - 1 {
            steepest = steepest.max((t[j * n + i] - t[j * n + i + 1]).abs());
            steepest = steepest.max((t[i * n + j] - t[(i + 1) * n + j]).abs());
        }
    }
    steepest
}

/// A dry cone rising 2 m per metre (63°) on `n × n` cells of 1 m.
fn cone(n: usize) -> Level {
    let mut level = Level::flat(n, n, 1.0, 0.0);
    level.terrain = spillway::Grid::from_fn(n, n, |i, j| {
        let r = ((i as f32 - 14.5).powi(2) + (j as f32 - 14.5).powi(2)).sqrt();
        (12.0 - 2.0 * r).max(0.0)
    });
    level
}

#[test]
fn the_speedup_ages_slumping_as_it_ages_the_bedload() {
    // Slumping took no `speedup`: under the Erode tool's ×100 the banks the water cut a hundred
    // times faster slumped at the real-time rate, and stood far past their angle of repose.
    let n = 30;
    let run = |speedup: f32| {
        let mut level = cone(n);
        level.params.sediment = Some(Sediment {
            layer: 20.0,
            speedup,
            ..sand(30.0, 0.1)
        });
        let mut sim = Simulation::new(&level).unwrap();
        sim.advance(6.0).unwrap();
        steepest(sim.terrain(), n)
    };
    let (real_time, aged) = (run(1.0), run(100.0));
    println!("steepest after 6 s: {real_time:.3} in real time, {aged:.3} at ×100");
    assert!(real_time > 1.5, "{real_time}");
    assert!(aged < 0.5774 * 1.02, "{aged}");
}

#[test]
fn a_steep_pile_slumps_to_its_angle_of_repose_and_keeps_its_volume() {
    let n = 30;
    let mut level = cone(n);
    // Loose to well below the cone's foot: the pile may spread as far as it needs to.
    level.params.sediment = Some(Sediment {
        layer: 20.0,
        speedup: 1.0,
        suspension: None,
        region: None,
        ..sand(30.0, 1.0)
    });
    let volume: f64 = level.terrain.data.iter().map(|&z| z as f64).sum();
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(60.0).unwrap();
    let t = sim.terrain();
    let steepest = steepest(t, n);
    let after: f64 = t.iter().map(|&z| z as f64).sum();
    let bed = sim.bed_stats().unwrap();
    println!(
        "steepest step {steepest:.4} m per metre (tan 30° = 0.5774), volume {volume:.4} → \
         {after:.4} m³, balance {:.1e}",
        bed.balance_error
    );
    assert!(steepest < 0.5774 * 1.02, "{steepest}");
    assert!(((after - volume) / volume).abs() < 1e-6, "{volume} {after}");
    assert!(bed.balance_error.abs() < 1e-6);
}

#[test]
fn a_spike_slumping_as_fast_as_it_may_stops_at_its_angle_of_repose_not_below() {
    // One 4 m spike on dry level ground slumping at the cap, its angle of repose 45° (1 m a
    // cell): each of its four faces moved a quarter of the 3 m excess, and it fell 0.75 m
    // past its angle of repose (on ground at rest a spike became a pit).
    let n = 9;
    let mut level = Level::flat(n, n, 1.0, 0.0);
    level.terrain.set(4, 4, 4.0);
    level.params.sediment = Some(sand(45.0, 1000.0));
    let mut sim = Simulation::new(&level).unwrap();
    let dt = level.params.dt;
    let mut lowest = f32::INFINITY;
    for _ in 0..20 {
        sim.step(dt).unwrap();
        let t = sim.terrain();
        let rise = t[4 * n + 4] - t[4 * n + 5];
        lowest = lowest.min(rise);
    }
    println!("the spike over its neighbour, at its lowest: {lowest:.4} m");
    assert!(lowest > 1.0 - 1e-3, "{lowest} m: past the angle of repose");
}

#[test]
fn a_closed_gate_does_not_erode() {
    let mut level = Level::flat(20, 4, 1.0, 0.0);
    level.water = spillway::Grid::from_fn(20, 4, |i, _| if i < 8 { 2.0 } else { 0.0 });
    level.gates.push(Gate {
        name: "dam".into(),
        shape: Shape::Box {
            x0: 9.0,
            y0: 0.0,
            x1: 10.0,
            y1: 4.0,
        },
        crest: 3.0,
        open_at: None,
    });
    level.params.sediment = Some(sand(30.0, 1.0));
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(20.0).unwrap();
    assert!(
        (0..4).all(|j| sim.terrain()[j * 20 + 9] == 3.0),
        "the gate's crest moved"
    );
    assert!(sim.bed_stats().unwrap().balance_error.abs() < 1e-6);
}

/// The river of the delta test moving its bed in suspension only.
fn suspended_river() -> Level {
    river_into_lake(Sediment {
        law: BedloadLaw::Grass { a: 0.0 },
        suspension: Some(Suspension {
            critical_shear: 5.0,
            pickup: 1e-4,
            settling: 0.01,
        }),
        ..sand(90.0, 0.0)
    })
}

#[test]
fn grains_carried_out_of_a_region_settle_there_and_a_bake_keeps_every_one() {
    // The Erode tool's Box over the channel only: grains the river lifted in it and carried
    // into the lake outside never settled there, and the bake dropped them.
    let mut level = suspended_river();
    level.params.sediment.as_mut().unwrap().region = Some(Shape::Box {
        x0: 0.0,
        y0: 0.0,
        x1: 40.0,
        y1: 6.0,
    });
    let sum = |z: &[f32]| z.iter().map(|&v| v as f64).sum::<f64>();
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(60.0).unwrap();
    let bed = sim.bed_stats().unwrap();
    let lake: f64 = (0..6)
        .flat_map(|j| (40..60).map(move |i| j * 60 + i))
        .map(|c| (sim.terrain()[c] - level.terrain.data[c]) as f64)
        .sum();
    let gained = sum(&sim.bake_into(&level).terrain.data) - sum(&level.terrain.data);
    println!(
        "eroded {:.4} m³ in the channel, {lake:.4} m³ settled in the lake; the bake gained \
         {gained:.2e} m³ (entered − left {:.2e})",
        bed.eroded,
        bed.entered - bed.left
    );
    assert!(bed.eroded > 0.01 && lake > 0.1, "{bed:?} {lake}");
    assert!((gained - (bed.entered - bed.left)).abs() < 1e-5 * bed.eroded);
    assert!(bed.balance_error.abs() < 1e-6);
}

#[test]
fn a_river_lifts_grains_that_settle_in_the_lake_and_every_grain_is_accounted_for() {
    // The river of the delta test, moving its bed in suspension only: the flow lifts grains
    // where it runs fast and shallow, carries them, and they settle where it slows in the lake.
    let (nx, ny) = (60, 6);
    let level = suspended_river();
    let before = level.terrain.data.clone();
    // The same river through an open outlet carries grains out of the map: booked as left.
    let mut open = level.clone();
    open.params.default_boundary = BoundaryKind::Open;
    let mut through = Simulation::new(&open).unwrap();
    through.advance(60.0).unwrap();
    let out = through.bed_stats().unwrap();
    println!(
        "open outlet: left {:.4} m³ of bed, balance {:.1e}",
        out.left, out.balance_error
    );
    assert!(out.left > 0.01 && out.balance_error.abs() < 1e-6, "{out:?}");
    let mut sim = Simulation::new(&level).unwrap();
    let mut worst = 0.0f64;
    for _ in 0..6 {
        sim.advance(10.0).unwrap();
        worst = worst.max(sim.bed_stats().unwrap().balance_error.abs());
        let load = sim.suspended_load().expect("a suspension");
        assert!(load.iter().all(|l| l.is_finite() && *l >= -1e-9));
    }
    let change = |i0: usize, i1: usize| -> f64 {
        (0..ny)
            .flat_map(|j| (i0..i1).map(move |i| j * nx + i))
            .map(|c| (sim.terrain()[c] - before[c]) as f64)
            .sum()
    };
    let (channel, mouth, far) = (change(0, 40), change(40, 48), change(52, 60));
    let bed = sim.bed_stats().unwrap();
    println!(
        "channel {channel:+.4} m³, lake mouth {mouth:+.4} m³, far lake {far:+.4} m³; eroded {:.4} = \
         suspended {:.4} + deposited {:.4} (+ left {:.4} − entered {:.4}); worst balance {worst:.1e}",
        bed.eroded, bed.suspended, bed.deposited, bed.left, bed.entered
    );
    assert!(channel < -0.05, "the channel gave no grains: {channel}");
    assert!(mouth > 0.01, "nothing settled at the mouth: {mouth}");
    assert!(mouth > far, "settled far rather than where the flow slows");
    assert!(bed.suspended > 0.0);
    assert!(worst < 1e-6, "{worst}");
    assert!(sim.stats().balance_error.abs() < 1e-6);
}

#[test]
fn a_region_confines_the_moving_bed() {
    // The delta river with its bed loose only between 10 m and 20 m down the channel.
    let (nx, ny) = (60, 6);
    let level = river_into_lake(Sediment {
        region: Some(Shape::Box {
            x0: 10.0,
            y0: 0.0,
            x1: 20.0,
            y1: 6.0,
        }),
        ..sand(90.0, 0.0)
    });
    level.validate(&Default::default()).unwrap();
    let before = level.terrain.data.clone();
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(30.0).unwrap();
    let moved: Vec<usize> = (0..nx * ny)
        .filter(|&c| sim.terrain()[c] != before[c])
        .map(|c| c % nx)
        .collect();
    println!(
        "{} cells moved, columns {:?} to {:?}",
        moved.len(),
        moved.iter().min(),
        moved.iter().max()
    );
    assert!(moved.len() > 20, "the region's bed did not move");
    assert!(moved.iter().all(|&i| (10..20).contains(&i)), "{moved:?}");
    assert!(sim.bed_stats().unwrap().balance_error.abs() < 1e-6);
    // A region with its corners swapped is refused by name.
    let mut bad = level.clone();
    bad.params.sediment.as_mut().unwrap().region = Some(Shape::Box {
        x0: 20.0,
        y0: 0.0,
        x1: 10.0,
        y1: 6.0,
    });
    let e = bad.validate(&Default::default()).unwrap_err().to_string();
    assert!(e.contains("params.sediment.region"), "{e}");
}

#[test]
fn a_baked_or_rewound_eroding_level_cuts_no_deeper_than_its_loose_layer() {
    // A thin loose layer (2 cm) that a fast-forwarded river cuts through within 20 s.
    let layer = 0.02;
    let level = river_into_lake(Sediment {
        layer,
        speedup: 50.0,
        ..sand(90.0, 0.0)
    });
    let authored = level.terrain.data.clone();
    let deepest = |terrain: &[f32]| {
        (authored.iter().zip(terrain))
            .map(|(a, t)| a - t)
            .fold(0.0f32, f32::max)
    };
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(20.0).unwrap();
    let first = deepest(sim.terrain());
    assert!(
        first > 0.9 * layer,
        "the river did not reach the layer's floor: {first}"
    );
    // Baked, saved and loaded as a game would, then run on: the floor came with it.
    let baked = sim.bake_into(&level);
    assert_eq!(baked.flow.as_ref().unwrap().bed_floor.len(), 60 * 6);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("baked.ron");
    spillway::level::file::save(&baked, &path).unwrap();
    let loaded = spillway::level::file::load(&path).unwrap();
    assert_eq!(loaded.state_hash(), baked.state_hash());
    let mut again = Simulation::new(&loaded).unwrap();
    again.advance(40.0).unwrap();
    let cut = deepest(again.terrain());
    println!("deepest cut {first:.5} m after 20 s, {cut:.5} m after a bake and 40 s more");
    assert!(
        cut <= layer + 1e-4,
        "the bake gave the river a new layer: {cut}"
    );
    // A snapshot (the editor's timeline, a game's rewind) puts back the moved bed and its
    // floor, not the authored ground.
    let back = spillway::snapshot::Snapshot::of(&baked)
        .restore(&level)
        .unwrap();
    assert_eq!(back.terrain.data, baked.terrain.data);
    assert_eq!(back.state_hash(), baked.state_hash());
}
