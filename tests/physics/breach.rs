//! Breaches (`StructureKind::Breach`) in the `breach_dam` sample: the dam holds until the
//! water tops it, then the breach cuts down and widens and the flood below it rises with it; a
//! wider breach lets a higher peak through; a breach started by a trigger opens from then on;
//! volume balances to 1e-6.

use std::path::PathBuf;

use spillway::level::{BreachStart, GaugeKind, StructureKind, file};
use spillway::{Level, Simulation};

fn sample() -> Level {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../projects/breach_dam/level.ron");
    file::load(&path).expect("the breach_dam sample")
}

/// The discharge below the dam once a second for `seconds`.
fn hydrograph(level: &Level, seconds: usize) -> (Vec<f32>, Simulation) {
    let mut sim = Simulation::new(level).unwrap();
    let line = level.gauges[0].kind;
    assert!(matches!(line, GaugeKind::Discharge { .. }));
    let q = (0..seconds)
        .map(|_| {
            sim.advance(1.0).unwrap();
            sim.gauge(&line).value()
        })
        .collect();
    (q, sim)
}

/// `baked` saved to a file and loaded back, as a game loads it.
fn through_a_file(baked: &Level) -> Level {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("level.ron");
    file::save(baked, &path).unwrap();
    file::load(&path).unwrap()
}

fn set_width(level: &mut Level, w: f32) {
    if let StructureKind::Breach { width, .. } = &mut level.structures[0].kind {
        *width = w;
    }
}

#[test]
fn the_flood_rises_as_the_breach_widens_and_a_wider_breach_peaks_higher() {
    let level = sample();
    let (q, sim) = hydrograph(&level, 200);
    let peak = q.iter().cloned().fold(0.0f32, f32::max);
    let at_peak = q.iter().position(|&v| v == peak).unwrap();
    // The breach starts when the water tops the dam by 5 cm; before, almost nothing passes.
    let start = q.iter().position(|&v| v > 1.0).expect("the dam breached");
    println!("breach flow from {start} s, peak {peak:.1} m³/s at {at_peak} s: {q:.1?}");
    assert!(start > 10, "the dam held for {start} s");
    // While the breach opens, the flood below it rises.
    let rising = &q[start..at_peak.min(start + 60)];
    let falls = rising.windows(5).filter(|w| w[4] < w[0] - 0.5).count();
    assert_eq!(falls, 0, "{rising:?}");
    assert!(peak > 100.0, "{peak}");
    assert!(sim.stats().balance_error.abs() < 1e-6);

    let mut narrow = level.clone();
    set_width(&mut narrow, 4.0);
    let (qn, _) = hydrograph(&narrow, 200);
    let peak_narrow = qn.iter().cloned().fold(0.0f32, f32::max);
    println!("peak {peak_narrow:.1} m³/s through a breach 4 m wide, {peak:.1} through 16 m");
    assert!(peak > 1.2 * peak_narrow, "{peak} vs {peak_narrow}");
}

#[test]
fn a_breach_waits_for_its_trigger() {
    let mut level = sample();
    if let StructureKind::Breach { start, .. } = &mut level.structures[0].kind {
        *start = BreachStart::Trigger;
    }
    level.sources.clear();
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(20.0).unwrap();
    let crest = sim.terrain()[30 * level.nx() + 44];
    assert_eq!(crest, 12.0, "the dam's crest before the trigger");
    // A second breach of the same name (one trigger for both) starts with it.
    let mut twin = level.clone();
    twin.structures.push(level.structures[0].clone());
    let mut twins = Simulation::new(&twin).unwrap();
    assert!(twins.start_breach("dam breach"));
    assert!(
        twins.breaches().iter().all(|b| b.started),
        "{:?}",
        twins.breaches()
    );
    assert!(sim.start_breach("dam breach"));
    assert!(!sim.start_breach("dam breach"), "already started");
    assert!(!sim.start_breach("no such breach"));
    sim.advance(70.0).unwrap();
    let cut = sim.terrain()[30 * level.nx() + 44];
    println!("the crest cell: {crest} m before, {cut} m 70 s after the trigger");
    assert!(cut < 5.0, "{cut}");
    assert!(sim.stats().outflow > 1000.0);
    assert!(sim.stats().balance_error.abs() < 1e-6);
}

#[test]
fn a_level_baked_while_its_breach_opens_goes_on_bit_for_bit() {
    let mut level = sample();
    if let StructureKind::Breach { start, .. } = &mut level.structures[0].kind {
        *start = BreachStart::At(5.0);
    }
    let mut straight = Simulation::new(&level).unwrap();
    straight.advance(30.0).unwrap();
    let baked = straight.bake_into(&level);
    let opened = match baked.structures[0].kind {
        StructureKind::Breach { opened, .. } => opened,
        _ => unreachable!(),
    };
    println!("baked at 30 s with the breach {opened:?} open");
    assert!(opened.is_some_and(|p| p > 0.3 && p < 0.5), "{opened:?}");
    // Through the file, as a game would load it.
    let loaded = through_a_file(&baked);
    let mut resumed = Simulation::new(&loaded).unwrap();
    straight.advance(40.0).unwrap();
    resumed.advance(40.0).unwrap();
    assert_eq!(straight.breaches(), resumed.breaches());
    assert_eq!(straight.terrain(), resumed.terrain());
    assert_eq!(
        straight.bake_into(&level).state_hash(),
        resumed.bake_into(&loaded).state_hash()
    );
}

#[test]
fn a_moving_bed_leaves_a_breachs_ground_to_the_breach() {
    // The breach cuts the solver's terrain as it opens; a bake of an eroding level wrote that
    // cut into the level's ground (the editor's Erode kept it for good: the dam notched from
    // t = 0 while its breach said closed). The bake keeps the dam and how far the breach had
    // opened, and the level it makes goes on with the same cut.
    let mut level = sample();
    if let StructureKind::Breach { start, .. } = &mut level.structures[0].kind {
        *start = BreachStart::At(1.0);
    }
    level.params.sediment = Some(spillway_tests::sand());
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(30.0).unwrap();
    let cell = 30 * level.nx() + 44;
    let cut = sim.terrain()[cell];
    assert!(cut < 11.0, "the breach cut the dam: {cut}");
    let baked = sim.bake_into(&level);
    assert_eq!(baked.terrain.data[cell], 12.0, "the dam's own ground");
    let StructureKind::Breach { opened, .. } = baked.structures[0].kind else {
        panic!("a breach");
    };
    assert!(opened.is_some_and(|p| p > 0.0), "{opened:?}");
    let mut again = Simulation::new(&baked).unwrap();
    sim.advance(5.0).unwrap();
    again.advance(5.0).unwrap();
    let (a, b) = (sim.terrain()[cell], again.terrain()[cell]);
    println!("the cut cell: {cut} m at 30 s; at 35 s {a} m run on, {b} m from the bake");
    assert!(
        (a - b).abs() < 1e-3,
        "the same cut from the baked level: {a} vs {b}"
    );
}

#[test]
fn a_breachs_state_stays_with_it_when_the_structures_change() {
    // As on the GPU (`gpu::structures`): deleting a started breach handed its state, by
    // position, to the one after it, which cut its dam open at once.
    let mut level = spillway_tests::breach_dam(Some(BreachStart::Trigger));
    let mut second = level.structures[0].clone();
    second.name = "second".into();
    level.structures.push(second);
    let first = level.structures[0].name.clone();
    let mut sim = Simulation::new(&level).unwrap();
    assert!(sim.start_breach(&first));
    sim.advance(2.0).unwrap();
    let opened = sim.breaches()[0].clone();
    assert!(opened.started && opened.progress > 0.0, "{opened:?}");
    let mut renamed = level.clone();
    renamed.structures[0].name = "first, renamed".into();
    sim.set_sources_sinks(&renamed).unwrap();
    let now = sim.breaches();
    assert_eq!((now[0].started, now[0].progress), (true, opened.progress));
    assert!(!now[1].started, "{now:?}");
    let mut without = renamed.clone();
    without.structures.remove(0);
    sim.set_sources_sinks(&without).unwrap();
    let now = sim.breaches();
    assert_eq!(now.len(), 1);
    assert_eq!(now[0].name, "second");
    assert!(!now[0].started && now[0].progress == 0.0, "{now:?}");
    // Two breaches of one name, one started by its time, the other waiting: an edit leaves
    // each its own state (the second took the first's and cut its dam at once).
    let mut twins = spillway_tests::breach_dam(Some(BreachStart::At(0.5)));
    let mut waiting = twins.structures[0].clone();
    if let StructureKind::Breach { start, .. } = &mut waiting.kind {
        *start = BreachStart::Trigger;
    }
    twins.structures.push(waiting);
    let mut sim = Simulation::new(&twins).unwrap();
    sim.advance(2.0).unwrap();
    let before = sim.breaches();
    assert!(before[0].started && !before[1].started, "{before:?}");
    sim.set_sources_sinks(&twins).unwrap();
    assert_eq!(sim.breaches(), before);
}

#[test]
fn a_bake_keeps_each_same_named_breachs_own_state() {
    // Two breaches of one name, one started by its time, the other waiting for a trigger:
    // the bake gave both the started one's progress, and the waiting one was cut open at once
    // when the baked level loaded.
    let mut twins = spillway_tests::breach_dam(Some(BreachStart::At(0.5)));
    let mut waiting = twins.structures[0].clone();
    if let StructureKind::Breach { start, .. } = &mut waiting.kind {
        *start = BreachStart::Trigger;
    }
    twins.structures.push(waiting);
    let mut sim = Simulation::new(&twins).unwrap();
    sim.advance(2.0).unwrap();
    let baked = sim.bake_into(&twins);
    let opened: Vec<Option<f32>> = (baked.structures.iter())
        .map(|s| match s.kind {
            StructureKind::Breach { opened, .. } => opened,
            _ => unreachable!(),
        })
        .collect();
    assert!(opened[0].is_some_and(|p| p > 0.0), "{opened:?}");
    assert_eq!(opened[1], None, "the waiting breach stays closed");
    let resumed = Simulation::new(&baked).unwrap();
    assert_eq!(resumed.breaches(), sim.breaches());
}

#[test]
fn an_overlapping_breach_leaves_the_deeper_cut_cut() {
    // The second breach set its cells to its own shallow cut, raising the first's bottom
    // back up to the dam's crest every sub-step.
    let level = spillway_tests::overlapping_breaches();
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(1.0).unwrap();
    let states = sim.breaches();
    assert!(states.iter().all(|b| b.started), "{states:?}");
    assert_eq!(states[0].progress, 1.0);
    assert!(states[1].progress < 0.01, "{states:?}");
    let bottom = sim.terrain()[30 * level.nx() + 44];
    assert_eq!(
        bottom, 4.0,
        "the first breach's bottom, under the second's reach"
    );
}

#[test]
fn a_breachs_sides_rise_until_they_meet_the_ground() {
    // A dam 10 m high between valley sides rising 1 m a metre from 8 m beside the breach's
    // centreline: its sides reached only as far as the crest's height, leaving the valley
    // sides standing as a wall beyond (15.5 m where the cut's side stood at 11.5 m).
    let n = 40;
    let mut level = Level::flat(n, n, 1.0, 0.0);
    level.terrain = spillway::Grid::from_fn(n, n, |x, y| {
        let dam = if (18..22).contains(&x) { 10.0 } else { 0.0 };
        let side = (y as f32 + 0.5 - 20.0).abs() - 8.0;
        if side > 0.0 {
            f32::max(dam, 10.0 + side)
        } else {
            dam
        }
    });
    level.structures.push(spillway::level::Structure {
        name: "breach".into(),
        kind: StructureKind::Breach {
            from: [15.0, 20.0],
            to: [25.0, 20.0],
            bottom: 0.0,
            width: 4.0,
            side_slope: 1.0,
            start: BreachStart::At(0.0),
            growth: spillway::level::BreachGrowth::Steady(0.0),
            opened: None,
        },
    });
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(0.1).unwrap();
    let at = |y: usize| sim.terrain()[y * n + 20];
    println!(
        "across the cut at x = 20: {:?}",
        (20..40).map(at).collect::<Vec<_>>()
    );
    // 13.5 m from the centreline the side stands 11.5 m high; the valley side was 15.5 m.
    assert_eq!(at(33), 11.5);
    // No step across the cut steeper than its side slope.
    for y in 20..39 {
        assert!(
            (at(y + 1) - at(y)).abs() <= 1.0 + 1e-4,
            "{y}: {} {}",
            at(y),
            at(y + 1)
        );
    }
}

/// Flat ground at 0 m, `held` m of water west of a gate 5 m high called "wall" and a breach
/// from 18.5 to 23.5 m across it, started 0.1 m over its crest and opening over 120 s.
fn gated_breach(held: f32) -> Level {
    use spillway::Grid;
    use spillway::level::{BreachGrowth, Gate, Shape, Structure};
    let (nx, ny) = (40, 12);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.water = Grid::from_fn(nx, ny, |x, _| if x < 20 { held } else { 0.0 });
    level.gates.push(Gate {
        name: "wall".into(),
        shape: Shape::Box {
            x0: 20.0,
            y0: 0.0,
            x1: 22.0,
            y1: ny as f32,
        },
        crest: 5.0,
        open_at: None,
    });
    level.structures.push(Structure {
        name: "breach".into(),
        kind: StructureKind::Breach {
            from: [18.5, 6.0],
            to: [23.5, 6.0],
            bottom: -1.0,
            width: 2.0,
            side_slope: 1.0,
            start: BreachStart::Overtopping(0.1),
            growth: BreachGrowth::Steady(120.0),
            opened: None,
        },
    });
    level.validate(&Default::default()).expect("a valid level");
    level
}

#[test]
fn a_breach_drawn_across_a_closed_gate_cuts_the_gate_as_it_stands() {
    // A gate 5 m high holding 4 m of water, a breach drawn across it: its crest and cells
    // came from the ground under the gate, so it started at once (the water 1 m below the
    // gate's top) and cut the whole width to 0 m at the next sub-step.
    let level = gated_breach(4.0);
    let nx = level.nx();
    let mut sim = Simulation::new(&level).unwrap();
    sim.advance(5.0).unwrap();
    let gate = sim.terrain()[6 * nx + 20];
    let below = sim.region_volume(25.0, 0.0, 40.0, level.ny() as f32);
    println!("gate cell at {gate} m, {below:.3} m³ below it");
    assert_eq!(
        gate, 5.0,
        "the breach cut the gate with the water 1 m under its top"
    );
    assert!(below < 1e-3, "{below} m³ came through");
}

#[test]
fn a_level_baked_after_a_gate_under_its_breach_opened_goes_on_bit_for_bit() {
    // Loaded, the breach took its crest from the ground with the opened gate gone (0 m, not
    // the gate's 5 m): it cut the cells beside the gate half a metre below the ground.
    let level = gated_breach(5.5);
    let mut straight = Simulation::new(&level).unwrap();
    straight.advance(40.0).unwrap();
    let started = straight.breaches()[0].clone();
    assert!(started.started && started.progress > 0.1, "{started:?}");
    assert!(straight.open_gate("wall"));
    straight.advance(2.0).unwrap();
    let baked = straight.bake_into(&level);
    let loaded = through_a_file(&baked);
    let mut resumed = Simulation::new(&loaded).unwrap();
    straight.advance(10.0).unwrap();
    resumed.advance(10.0).unwrap();
    let lowest = |s: &Simulation| s.terrain().iter().copied().fold(f32::INFINITY, f32::min);
    println!(
        "the breach {:?}; lowest ground {} m straight on, {} m loaded",
        straight.breaches()[0],
        lowest(&straight),
        lowest(&resumed)
    );
    assert!(
        straight.terrain() == resumed.terrain(),
        "the ground differs"
    );
    assert_eq!(
        straight.bake_into(&level).state_hash(),
        resumed.bake_into(&loaded).state_hash()
    );
}
