//! The water as designers judge it, shaded at High quality (the ground seen through the water,
//! absorbed with depth; foam carried by the flow) on lavapipe: a fast river with foam and a dam
//! break, against snapshots in `tests/editor/snapshots/` (the calm lake is in `preview.rs`);
//! each quality draws differently.

use spillway::{Grid, Level};
use spillway_render::WaterQuality;

use crate::preview::{play, river_valley, snapshot, source, untitled};

#[test]
fn snapshot_fast_river_with_foam() {
    let mut level = river_valley();
    level.sources.clear();
    level.sources.push(source(8.0, 64.0, 80.0));
    let mut ed = untitled(level);
    play(&mut ed, 20.0, 60);
    ed.frames(2);
    snapshot(&ed, "water_fast_river");
}

/// A reservoir 4 m deep held in the west third of a valley, released at once.
fn dam_break() -> Level {
    let (nx, ny) = (96, 48);
    let mut level = Level::flat(nx, ny, 2.0, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |x, y| {
        let (fx, fy) = (x as f32 / nx as f32, y as f32 / ny as f32);
        20.0 * (fy - 0.5).powi(2) + 1.0 - fx + 0.3 * (fx * 23.0).sin() * (fy * 17.0).cos()
    });
    level.water = Grid::from_fn(nx, ny, |x, y| {
        if x < 32 {
            (5.0 - level.terrain.get(x, y)).max(0.0)
        } else {
            0.0
        }
    });
    level.params.dt = 0.05;
    level
}

#[test]
fn snapshot_dam_break() {
    let mut ed = untitled(dam_break());
    play(&mut ed, 6.0, 20);
    ed.frames(2);
    snapshot(&ed, "water_dam_break");
}

#[test]
fn each_quality_draws_the_water_differently() {
    let mut ed = untitled(dam_break());
    play(&mut ed, 6.0, 20);
    let mut frames = Vec::new();
    for q in WaterQuality::ALL {
        ed.harness.state_mut().set_water_quality(q);
        ed.frames(2);
        let (_, _, px) = ed.harness.state().viewport_pixels().expect("rendered");
        frames.push(px);
    }
    for (a, b) in [(0, 1), (1, 2)] {
        let differ = (frames[a].chunks_exact(4).zip(frames[b].chunks_exact(4)))
            .filter(|(p, q)| p.iter().zip(*q).any(|(x, y)| x.abs_diff(*y) > 8))
            .count();
        println!(
            "{} vs {}: {differ} pixels differ",
            WaterQuality::ALL[a].name(),
            WaterQuality::ALL[b].name()
        );
        assert!(differ > 500, "{differ}");
    }
}

#[test]
fn the_depth_overlay_has_a_key_with_units() {
    let mut ed = untitled(dam_break());
    play(&mut ed, 6.0, 10);
    ed.harness
        .state_mut()
        .set_water_overlay(spillway_render::WaterOverlay::Depth);
    ed.frames(2);
    let key = ed
        .harness
        .state()
        .water_key()
        .expect("a key for the depth overlay");
    println!("{key}");
    assert!(
        key.starts_with("Depth: 0 m,") && key.ends_with("m and deeper"),
        "{key}"
    );
    ed.harness
        .state_mut()
        .set_water_overlay(spillway_render::WaterOverlay::Velocity);
    ed.frames(2);
    let key = ed
        .harness
        .state()
        .water_key()
        .expect("a key for the speed overlay");
    assert!(key.starts_with("Speed: 0, 1, 2, 3 m/s"), "{key}");
    ed.harness.render().unwrap().save("/tmp/key.png").unwrap();
}

#[test]
#[ignore = "writes a screenshot to /tmp for a person to look at"]
fn look_at_wet_ground() {
    // A patch of water on a slope runs off through the open east edge, leaving its path wet.
    let (nx, ny) = (96, 48);
    let mut level = Level::flat(nx, ny, 2.0, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |x, y| {
        let (fx, fy) = (x as f32 / nx as f32, y as f32 / ny as f32);
        12.0 * (1.0 - fx) + 6.0 * (fy - 0.5).powi(2) + 0.2 * (fx * 31.0).sin()
    });
    level.water = Grid::from_fn(nx, ny, |x, y| {
        if x < 12 && (18..30).contains(&y) {
            1.5
        } else {
            0.0
        }
    });
    level.boundaries.push(spillway::level::Boundary {
        edge: spillway::level::Edge::East,
        start: 0,
        end: ny as u32,
        kind: spillway::level::BoundaryKind::Open,
    });
    let mut ed = untitled(level);
    play(&mut ed, 20.0, 90);
    ed.frames(2);
    ed.harness.render().unwrap().save("/tmp/wet.png").unwrap();
}
