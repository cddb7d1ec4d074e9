//! The shared renderer drawing what a designer looks at, straight through
//! `spillway_render::TerrainRenderer` on the machine's adapter (lavapipe in CI): contour lines
//! over level ground, bodies with no ground in view, and the water behind a placement ghost.

use spillway::{Grid, Level};
use spillway_render::math::Vec3;
use spillway_render::{BodyInstance, Camera, MeshId, Scene, TerrainRenderer};

/// A renderer on the machine's adapter, for a level of `nx` × `ny` cells.
fn renderer(nx: usize, ny: usize) -> TerrainRenderer {
    let (device, queue) = crate::support::gpu_device(nx, ny);
    TerrainRenderer::new(&device, &queue)
}

fn frame(renderer: &mut TerrainRenderer, level: &Level, scene: &Scene) -> Vec<u8> {
    renderer.render(level, scene);
    renderer.read_pixels().expect("a frame").2
}

/// Mean of the red, green and blue samples of `pixels` (RGBA).
fn brightness(pixels: &[u8]) -> f64 {
    let sum: u64 = pixels
        .chunks_exact(4)
        .map(|p| p[..3].iter().map(|&c| c as u64).sum::<u64>())
        .sum();
    sum as f64 / (pixels.len() / 4 * 3) as f64
}

#[test]
fn contour_lines_leave_level_ground_its_colour() {
    // A new level is level ground at 0 m, a whole contour's height: with contours on, all of
    // it was drawn as one line, nearly black. A hill in the middle gives the lines to draw.
    let n = 64;
    let mut level = Level::flat(n, n, 1.0, 0.0);
    level.terrain = Grid::from_fn(n, n, |x, y| {
        let r = ((x as f32 - 32.0).powi(2) + (y as f32 - 32.0).powi(2)).sqrt();
        (8.0 - r).max(0.0)
    });
    let mut renderer = renderer(n, n);
    renderer.sync(&level, &spillway_render::Dirty::everything());
    let mut scene = Scene {
        camera: Camera {
            target: Vec3::new(32.0, 32.0, 0.0),
            yaw: 0.0,
            pitch: 0.9,
            distance: 70.0,
        },
        overlays: Default::default(),
        brush: None,
        size: [320, 240],
    };
    let plain = brightness(&frame(&mut renderer, &level, &scene));
    scene.overlays.contours = true;
    let lined = brightness(&frame(&mut renderer, &level, &scene));
    println!("mean brightness {plain:.1} without contours, {lined:.1} with");
    assert!(lined > 0.85 * plain, "{lined:.1} against {plain:.1}");
    assert!(lined < plain, "the hill's lines are drawn");
}

#[test]
fn a_body_seen_against_the_sky_is_drawn() {
    // A crate lifted 40 m, looked at from below with no ground in view: it vanished (bodies
    // were drawn only with terrain tiles in view).
    let n = 32;
    let level = Level::flat(n, n, 1.0, 0.0);
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/crate.glb");
    let mesh =
        spillway::body::import::import(&file, file.parent().expect("dir"), &Default::default())
            .expect("the bundled crate");
    let mut renderer = renderer(n, n);
    renderer.sync(&level, &spillway_render::Dirty::everything());
    renderer.upload_body_mesh(MeshId(1), &mesh);
    let target = Vec3::new(16.0, 16.0, 40.0);
    let scene = Scene {
        camera: Camera {
            target,
            yaw: 0.3,
            pitch: -1.2,
            distance: 12.0,
        },
        overlays: Default::default(),
        brush: None,
        size: [320, 240],
    };
    let sky = frame(&mut renderer, &level, &scene);
    assert_eq!(renderer.visible_tiles(), 0, "no ground in view");
    renderer.set_bodies(&[BodyInstance {
        mesh: MeshId(1),
        pose: spillway::body::Pose {
            translation: [target.x, target.y, target.z],
            scale: [3.0; 3],
            ..Default::default()
        },
        colour: [0.6, 0.4, 0.2, 1.0],
        selected: false,
    }]);
    let with_crate = frame(&mut renderer, &level, &scene);
    let drawn = (sky.chunks_exact(4).zip(with_crate.chunks_exact(4)))
        .filter(|(p, q)| p.iter().zip(*q).any(|(x, y)| x.abs_diff(*y) > 8))
        .count();
    println!("{drawn} pixels of crate");
    assert!(drawn > 1000, "{drawn} pixels of crate");
}

#[test]
fn a_runs_map_draws_each_cell_as_it_is() {
    // Run maps drew the largest value within a pixel around: seen from afar, cells never
    // reached beside a reached stripe were drawn reached, and the flooded area widened by
    // several cells, unlike the exported map.
    let n = 256;
    let level = Level::flat(n, n, 1.0, 0.0);
    let mut renderer = renderer(n, n);
    renderer.sync(&level, &spillway_render::Dirty::everything());
    let never = spillway::sim::maps::NEVER;
    let arrival = Grid::from_fn(n, n, |x, _| if x == 128 { 10.0 } else { never });
    assert!(renderer.set_cell_values(&arrival));
    let mut scene = Scene {
        camera: Camera {
            target: Vec3::new(128.0, 128.0, 0.0),
            yaw: 0.0,
            pitch: 1.2,
            distance: 400.0,
        },
        overlays: Default::default(),
        brush: None,
        size: [320, 240],
    };
    let plain = frame(&mut renderer, &level, &scene);
    let mut drawn = |cells| {
        scene.overlays.cells = cells;
        crate::support::changed_pixels(&plain, &frame(&mut renderer, &level, &scene))
    };
    let (lo, hi) = (0.0, 20.0);
    let widened = drawn(spillway_render::CellOverlay::Ramp { lo, hi });
    let own = drawn(spillway_render::CellOverlay::Map { lo, hi });
    println!("pixels the stripe colours: {widened} as streams, {own} as a map");
    assert!(own > 0, "the stripe is drawn");
    assert!(2 * own < widened, "{own} against {widened}");
}

#[test]
fn the_water_behind_a_placement_ghost_shows_through_it() {
    // A ghost crate held 2 m over a lake, seen from above: the ghost wrote depth and was drawn
    // before the water, so the water behind it was never drawn (the ghost showed dry ground).
    // The water's colours change between two frames: the ghost's own pixels must change too.
    use spillway_render::{WaterOverlay, WaterQuality, WaterStyle};
    let n = 32;
    let mut level = Level::flat(n, n, 1.0, 0.0);
    level.water = Grid::filled(n, n, 1.0);
    let (device, queue) = crate::support::gpu_device(n, n);
    let sim = spillway::gpu::GpuSimulation::new(&level, &device, &queue).expect("the water");
    let mut renderer = TerrainRenderer::new(&device, &queue);
    renderer.sync(&level, &spillway_render::Dirty::everything());
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/crate.glb");
    let mesh =
        spillway::body::import::import(&file, file.parent().expect("dir"), &Default::default())
            .expect("the bundled crate");
    renderer.upload_body_mesh(MeshId(1), &mesh);
    let ghost = BodyInstance {
        mesh: MeshId(1),
        pose: spillway::body::Pose {
            translation: [16.0, 16.0, 3.0],
            scale: [4.0; 3],
            ..Default::default()
        },
        colour: [0.55, 0.85, 0.55, 0.35],
        selected: false,
    };
    let scene = Scene {
        camera: Camera {
            target: Vec3::new(16.0, 16.0, 1.0),
            yaw: 0.2,
            pitch: 1.1,
            distance: 30.0,
        },
        overlays: Default::default(),
        brush: None,
        size: [320, 240],
    };
    // Colour-mapped (one pass: the map's top moves) and shaded at High (the water in a pass of
    // its own: a lake 3 m deep instead).
    let mut deeper = level.clone();
    deeper.water = Grid::filled(n, n, 3.0);
    let sim3 = spillway::gpu::GpuSimulation::new(&deeper, &device, &queue).expect("the water");
    let deep = |scale| WaterStyle {
        overlay: WaterOverlay::Depth,
        depth_scale: scale,
        ..WaterStyle::shaded(0.0)
    };
    let high = WaterStyle {
        quality: WaterQuality::High,
        ..WaterStyle::shaded(0.0)
    };
    for (name, a, b) in [
        ("colour map", (&sim, deep(2.0)), (&sim, deep(40.0))),
        ("High", (&sim, high), (&sim3, high)),
    ] {
        let mut frame = |(sim, style): (&spillway::gpu::GpuSimulation, WaterStyle),
                         bodies: &[BodyInstance]| {
            renderer.set_bodies(bodies);
            renderer.set_water(Some((sim.water_view(), style)));
            frame(&mut renderer, &level, &scene)
        };
        let (plain, ghosted) = (frame(a, &[]), frame(a, &[ghost]));
        let other = frame(b, &[ghost]);
        let px = |f: &[u8], i: usize| [f[4 * i], f[4 * i + 1], f[4 * i + 2]];
        let differ = |p: [u8; 3], q: [u8; 3]| p.iter().zip(q).any(|(x, y)| x.abs_diff(y) > 2);
        let in_ghost: Vec<usize> = (0..plain.len() / 4)
            .filter(|&i| differ(px(&plain, i), px(&ghosted, i)))
            .collect();
        let through = in_ghost
            .iter()
            .filter(|&&i| differ(px(&ghosted, i), px(&other, i)))
            .count();
        println!(
            "{name}: {} pixels of ghost, {through} show the water's change",
            in_ghost.len()
        );
        assert!(in_ghost.len() > 1000, "{name}: the ghost is in view");
        assert!(
            through > in_ghost.len() / 2,
            "{name}: {through} of {}",
            in_ghost.len()
        );
    }
}
