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
        let differ = crate::support::changed_pixels(&frames[a], &frames[b]);
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

/// Pixels that differ by more than 8 levels in a channel between two frames.

#[test]
fn the_water_never_shows_what_stands_in_front_of_it() {
    // An 8 m wall across a lake, seen from the south over the wall: the lake lies behind it,
    // its surface falling steeply towards the wall, so High's refraction bends the view of the
    // pixels just above the wall's top down onto the wall. The wall is recoloured (the cell
    // overlay) between two frames: only the wall's own pixels may change. At Low, which does
    // not refract, they are exactly the wall's.
    let (nx, ny) = (64, 64);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    let wall = |y: usize| (40..44).contains(&y);
    level.terrain = Grid::from_fn(nx, ny, |_, y| if wall(y) { 8.0 } else { 0.0 });
    level.water = Grid::from_fn(nx, ny, |_, y| {
        if y < 40 {
            1.0 + 0.1 * (40 - y) as f32
        } else {
            0.0
        }
    });
    let (device, queue) = crate::support::gpu_device(nx, ny);
    let sim = spillway::gpu::GpuSimulation::new(&level, &device, &queue).expect("the water");
    let mut renderer = spillway_render::TerrainRenderer::new(&device, &queue);
    renderer.sync(&level, &spillway_render::Dirty::everything());
    let marks = Grid::from_fn(nx, ny, |_, y| if wall(y) { 1.0 } else { 0.0 });
    assert!(renderer.set_cell_values(&marks));
    let camera = spillway_render::Camera {
        target: spillway_render::math::Vec3::new(32.0, 36.0, 3.0),
        yaw: 0.0,
        pitch: 0.35,
        distance: 45.0,
    };
    let mut changes = Vec::new();
    for quality in [WaterQuality::Low, WaterQuality::High] {
        let style = spillway_render::WaterStyle {
            quality,
            ..spillway_render::WaterStyle::shaded(0.0)
        };
        let mut frame = |cells| {
            let mut scene = spillway_render::Scene {
                camera,
                overlays: Default::default(),
                brush: None,
                size: [320, 240],
            };
            scene.overlays.cells = cells;
            renderer.set_water(Some((sim.water_view(), style)));
            renderer.render(&level, &scene);
            renderer.read_pixels().expect("a frame").2
        };
        let plain = frame(spillway_render::CellOverlay::None);
        let marked = frame(spillway_render::CellOverlay::Ramp { lo: 0.0, hi: 1.0 });
        changes.push(crate::support::changed_pixels(&plain, &marked));
    }
    let (low, high) = (changes[0], changes[1]);
    println!("pixels the wall's colour changes: {low} at Low, {high} at High");
    assert!(low > 2000, "the wall is in view: {low}");
    assert!(
        high <= low + low / 100,
        "{high} at High against {low} at Low"
    );
}

#[test]
fn the_change_overlay_shows_water_gone_on_the_cpu_solver() {
    // A dry vertex lay 5 cm under the ground unless the run's wetted map lifted it: without
    // that map (the CPU solver) a drained lake drew no change at all.
    let mut level = Level::flat(40, 40, 1.0, 0.0);
    level.water = Grid::filled(40, 40, 0.5);
    level.sinks.push(spillway::level::Sink {
        name: "drain".into(),
        shape: spillway::level::Shape::Box {
            x0: 0.0,
            y0: 0.0,
            x1: 40.0,
            y1: 40.0,
        },
        kind: spillway::level::SinkKind::Level {
            surface: -1.0,
            max_m3_per_s: 1.0e4,
        },
        enabled: true,
    });
    let mut ed = untitled(level);
    ed.click("CPU solver");
    play(&mut ed, 6.0, 10);
    let depth = ed.harness.state().preview().read_depth().expect("depth");
    assert!(depth.iter().all(|&d| d < 1e-3), "the lake drained");
    let mut frames = Vec::new();
    for overlay in [
        spillway_render::WaterOverlay::None,
        spillway_render::WaterOverlay::Difference,
    ] {
        ed.harness.state_mut().set_water_overlay(overlay);
        ed.frames(2);
        frames.push(ed.harness.state().viewport_pixels().expect("rendered").2);
    }
    let differ = crate::support::changed_pixels(&frames[0], &frames[1]);
    println!("{differ} pixels show the lake gone");
    assert!(differ > 5000, "{differ}");
}
