//! Sculpting benchmark on a 2048 × 2048 terrain (`spillway::bench::BenchScene::Hills`): the
//! time of one brush application (a dab of each tool, and a stroke step with undo bookkeeping)
//! and of one viewport frame (uploading the dirty region and rendering offscreen at
//! 1280 × 720, waiting for the GPU).
//!
//! `cargo bench -p spillway-editor --bench sculpt [-- --size N] [--level L.ron] [--png FRAME.png]`

use std::time::Instant;

use spillway::Level;
use spillway::bench::{BenchScene, scene};
use spillway_editor::document::{Change, Changes, Document, Layer};
use spillway_editor::tools::sculpt::{Dab, apply_dab};
use spillway_editor::tools::{Brush, Stroke, Tool};
use spillway_render::level_bounds;
use spillway_render::{Camera, Overlays, Scene, TerrainRenderer};

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn per_op(label: &str, runs: usize, mut f: impl FnMut(usize)) -> f64 {
    f(0);
    let t = Instant::now();
    for i in 0..runs {
        f(i);
    }
    let ms = t.elapsed().as_secs_f64() * 1000.0 / runs as f64;
    println!("{label:<58} {ms:9.3} ms");
    ms
}

fn main() {
    let n: usize = arg("--size").and_then(|s| s.parse().ok()).unwrap_or(2048);
    println!("terrain {n} × {n} cells, brush radius 32 cells (falloff 0.5)");
    let brush = Brush {
        radius: 32.0,
        ..Brush::default()
    };
    if let Some(path) = arg("--level") {
        let level = spillway::level::file::load(path.as_ref()).expect("a valid level");
        look(&level, &arg("--png").unwrap_or_else(|| "level.png".into()));
        return;
    }
    let mut level = scene(n, BenchScene::Hills);
    for tool in [
        Tool::Raise,
        Tool::Smooth,
        Tool::Flatten,
        Tool::Noise,
        Tool::Terrace,
    ] {
        per_op(&format!("dab: {}", tool.name()), 2000, |i| {
            let dab = Dab {
                tool,
                invert: false,
                anchor: 10.0,
                x: n as f32 * 0.15 + (i % (n / 2)) as f32,
                y: n as f32 * 0.35,
                dt: 1.0 / 60.0,
            };
            apply_dab(&brush, &dab, &mut level.terrain, 1.0);
        });
    }
    let mut document = Document::new(level, None);
    let y = n as f32 * 0.5;
    let mut stroke = Stroke::begin(&document, Tool::Raise, false, 40.0, y);
    per_op("stroke step (8 m of drag: dabs + undo tiles)", 1000, |i| {
        let x = 40.0 + ((i * 8) % (n - 80)) as f32;
        stroke.drag_to(&mut document, &brush, x, y, 1.0 / 60.0);
    });
    let t = Instant::now();
    stroke.finish(&mut document, &brush);
    println!(
        "{:<58} {:9.3} ms  ({:.1} MiB of undo)",
        "stroke finish (one command)",
        t.elapsed().as_secs_f64() * 1000.0,
        document.history().bytes() as f64 / (1 << 20) as f64
    );
    let _ = document.take_changes();

    let Some((device, queue, name)) = gpu() else {
        println!("no GPU adapter: frame timings skipped");
        return;
    };
    println!("GPU: {name}");
    let mut renderer = TerrainRenderer::new(&device, &queue);
    let t = Instant::now();
    renderer.sync(document.level(), &spillway_render::Dirty::everything());
    renderer.wait_idle();
    println!(
        "{:<58} {:9.3} ms",
        "first upload (whole terrain)",
        t.elapsed().as_secs_f64() * 1000.0
    );
    let mut camera = Camera::default();
    let bounds = level_bounds(document.level(), renderer.height_range());
    camera.reset(&bounds, 1280.0 / 720.0);
    let mut scene = Scene {
        camera,
        overlays: Overlays::default(),
        brush: None,
        size: [1280, 720],
    };
    let frames = if name.contains("llvmpipe") { 5 } else { 200 };
    renderer.set_lod(false);
    per_op(
        "frame: whole level, full detail, 1280 × 720",
        frames,
        |_| {
            renderer.render(document.level(), &scene);
            renderer.wait_idle();
        },
    );
    report(&renderer);
    renderer.set_lod(true);
    per_op(
        "frame: whole level, level of detail, 1280 × 720",
        frames,
        |_| {
            renderer.render(document.level(), &scene);
            renderer.wait_idle();
        },
    );
    report(&renderer);
    let mut x = 40.0;
    per_op("frame: dab + upload dirty region + render", frames, |_| {
        x = if x > n as f32 - 40.0 { 40.0 } else { x + 8.0 };
        let dab = Dab {
            tool: Tool::Raise,
            invert: false,
            anchor: 0.0,
            x,
            y,
            dt: 1.0 / 60.0,
        };
        let level = document.stroke_level();
        let rect = apply_dab(&brush, &dab, &mut level.terrain, 1.0);
        let mut changes = Changes::default();
        changes.add(&Change::Cells {
            layer: Layer::Terrain,
            rect,
        });
        renderer.sync(document.level(), &changes.dirty());
        scene.brush = None;
        renderer.render(document.level(), &scene);
        renderer.wait_idle();
    });
    scene.camera.distance *= 0.15;
    per_op("frame: close-up (tiles culled)", frames, |_| {
        renderer.render(document.level(), &scene);
        renderer.wait_idle();
    });
    report(&renderer);
    if let Some(path) = arg("--png") {
        scene.camera.distance /= 0.15;
        renderer.render(document.level(), &scene);
        match renderer.read_pixels() {
            Ok((w, h, px)) => {
                let img = image::RgbaImage::from_raw(w, h, px).expect("size matches");
                img.save(&path).expect("write png");
                println!("wrote {path}");
            }
            Err(e) => println!("read-back failed: {e}"),
        }
    }
}

fn report(renderer: &TerrainRenderer) {
    println!(
        "  {} tiles, {:.2} M triangles drawn",
        renderer.visible_tiles(),
        renderer.triangles() as f64 / 1e6
    );
}

/// Renders `level` from the reset view (contours on with `--contours`) into `png`.
fn look(level: &Level, png: &str) {
    let (device, queue, _) = gpu().expect("a GPU adapter");
    let mut renderer = TerrainRenderer::new(&device, &queue);
    renderer.sync(level, &spillway_render::Dirty::everything());
    let mut camera = Camera::default();
    camera.reset(
        &level_bounds(level, renderer.height_range()),
        1280.0 / 720.0,
    );
    let scene = Scene {
        camera,
        overlays: Overlays {
            contours: std::env::args().any(|a| a == "--contours"),
            ..Overlays::default()
        },
        brush: None,
        size: [1280, 720],
    };
    renderer.render(level, &scene);
    let (w, h, px) = renderer.read_pixels().expect("read-back");
    image::RgbaImage::from_raw(w, h, px)
        .expect("size")
        .save(png)
        .expect("write png");
}

fn gpu() -> Option<(wgpu::Device, wgpu::Queue, String)> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .ok()?;
    let name = adapter.get_info().name;
    let limits = wgpu::Limits::default().using_resolution(adapter.limits());
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("sculpt bench"),
        required_limits: limits,
        ..Default::default()
    }))
    .ok()?;
    Some((device, queue, name))
}
