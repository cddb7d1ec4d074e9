//! The editor's live-water frame, offscreen, on the same code path as the app: each frame the
//! `Preview` steps the GPU solver on the renderer's device by the frame's share of simulated
//! time and the `TerrainRenderer` draws terrain and water from the solver's buffers at
//! 1920 × 1080, then waits for the GPU. Reports ms per frame and steps per frame at several
//! speed factors, and the fastest real-time multiple that still fits a 60 Hz frame.
//!
//! `cargo bench -p spillway-editor --bench preview [-- --size N] [--no-maps] [--no-keyframes]
//! [--quality low|medium|high] [--speeds 1,10,100] [--frames N] [--in-flight 1|2|3] [--bodies N]
//! [--budget MS] [--vsync] [--frames-png DIR]` (`--budget` sets the preview's step budget, 13 ms by
//! default; `--vsync` shows frames on a 60 Hz clock, as a window's swapchain does, and tells
//! the preview the time that passed; `--in-flight 2` lets the next frame start while the GPU finishes the one
//! before, as the editor's window does with its swapchain's two frames of latency); (`--bodies` drops N bodies into the reservoir; `--frames-png` writes screenshot series of
//! the `dam_break_valley` and `river_valley` samples at 1920 × 1080 instead; `--no-maps` runs
//! the water without keeping the maps of the run, and `--no-keyframes` without the timeline's
//! keyframes, which the editor both keeps; `--quality` the water's look, High by default). The
//! worst frame is reported too: a frame that takes a keyframe waits for its read-back.

use std::time::Instant;

use spillway::Level;
use spillway::bench::{self, BenchScene};
use spillway_editor::document::Changes;
use spillway_editor::preview::Preview;
use spillway_render::{Camera, Overlays, Scene, TerrainRenderer};
use spillway_render::{WaterQuality, WaterStyle, level_bounds};

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn gpu(n: usize) -> Option<(wgpu::Device, wgpu::Queue, String)> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .ok()?;
    let name = adapter.get_info().name;
    let wanted = wgpu::Limits {
        max_texture_dimension_2d: 8192,
        ..spillway::gpu::preferred_limits(n.max(4096), n.max(4096))
    };
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("preview bench"),
        required_limits: wanted.or_worse_values_from(&adapter.limits()),
        ..Default::default()
    }))
    .ok()?;
    Some((device, queue, name))
}

/// The water's look asked for (`--quality`), High by default.
fn quality() -> WaterQuality {
    match arg("--quality").as_deref() {
        Some("low") => WaterQuality::Low,
        Some("medium") => WaterQuality::Medium,
        _ => WaterQuality::High,
    }
}

/// Where a frame's wall time went, milliseconds summed over frames: syncing the preview with
/// the level, the preview's frame (encoding steps, read-backs, keyframes), recording the
/// render, and waiting for the GPU.
#[derive(Default)]
struct Phases([f64; 4]);

/// Adds `count` bodies (crates, logs, barrels, boulders, planks in turn; the bundled assets)
/// in a fixed scatter over the valley's reservoir along its channel, 1 m above the water.
fn scatter(level: &mut Level, count: usize) {
    // The working tree's assets, also when the binary runs from a copy of the tree elsewhere.
    let assets = match std::fs::canonicalize("assets") {
        Ok(here) if here.join("crate.glb").is_file() => here,
        _ => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets"),
    };
    let kinds = bench::BODY_KINDS;
    let s = level.nx() as f32;
    let mut next = bench::scatter_numbers(99);
    for b in 0..count {
        let (name, density) = kinds[b % kinds.len()];
        let fx = 0.06 + 0.2 * next();
        let y = s * (0.5 + 0.1 * (fx * 6.0).sin() + 0.06 * (next() - 0.5));
        let gltf = assets.join(format!("{name}.glb"));
        level.bodies.push(spillway::level::Body {
            name: format!("{name} {b}"),
            gltf: gltf.to_string_lossy().into_owned(),
            translation: [fx * s, y, 18.0 + next()],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            density,
            dynamic: true,
            coupling: Default::default(),
            collider: Default::default(),
        });
    }
}

/// Frames the GPU may still be working on when the next one starts: 1 waits for each frame's
/// GPU work before the next (the default), 2 lets the CPU prepare a frame while the GPU finishes
/// the one before, as a window's swapchain does (eframe asks wgpu for its default, two frames
/// of latency).
#[derive(Default)]
struct InFlight {
    most: usize,
    marks: std::collections::VecDeque<wgpu::SubmissionIndex>,
}

impl InFlight {
    /// Marks the end of a frame's GPU work and waits until at most `most - 1` frames are left
    /// unfinished.
    fn end_frame(&mut self, dev: (&wgpu::Device, &wgpu::Queue)) {
        self.marks.push_back(dev.1.submit([]));
        while self.marks.len() >= self.most.max(1) {
            let Some(oldest) = self.marks.pop_front() else {
                break;
            };
            let _ = dev.0.poll(wgpu::PollType::Wait {
                submission_index: Some(oldest),
                timeout: None,
            });
        }
    }
}

/// One editor frame: simulation, then render, then a GPU wait (for this frame's work, or with
/// frames in flight for an earlier frame's).
#[allow(clippy::too_many_arguments)]
fn frame(
    preview: &mut Preview,
    renderer: &mut TerrainRenderer,
    level: &Level,
    scene: &Scene,
    dev: (&wgpu::Device, &wgpu::Queue),
    (time, real_dt): (f32, f32),
    phases: &mut Phases,
    in_flight: &mut InFlight,
) {
    let mut clock = Instant::now();
    let mut lap = |k: usize| {
        phases.0[k] += clock.elapsed().as_secs_f64() * 1000.0;
        clock = Instant::now();
    };
    preview.sync_bodies(&level.bodies, |body| {
        let file = std::path::Path::new(&body.gltf);
        let root = file.parent()?;
        let limits = spillway::body::import::ImportLimits::default();
        Some(std::sync::Arc::new(
            spillway::body::import::import(file, root, &limits).ok()?,
        ))
    });
    preview.sync(level, &Changes::default());
    lap(0);
    preview.frame(
        level,
        dev.0,
        dev.1,
        real_dt,
        Some((level.nx() / 2, level.ny() / 2)),
    );
    lap(1);
    let style = WaterStyle {
        overlay: spillway_render::WaterOverlay::None,
        time,
        depth_scale: 10.0,
        speed_scale: 3.0,
        blend: preview.blend(),
        quality: quality(),
    };
    renderer.set_quad_pixels(style.quality.quad_pixels());
    renderer.set_water(preview.water().map(|w| (w, style)));
    renderer.submit_with_frame(preview.take_commands());
    renderer.render(level, scene);
    lap(2);
    in_flight.end_frame(dev);
    lap(3);
}

/// Where the measured frames' body steps spent their time, ms a body step (`physics`, rapier,
/// runs beside `block`, `displace` and `advance`; `waited` is the wait for it after them).
fn body_phases(
    before: &spillway::body::world::StepTimes,
    after: &spillway::body::world::StepTimes,
) {
    let n = after.steps.saturating_sub(before.steps).max(1) as f64;
    let per = |a: f64, b: f64| (a - b) * 1e3 / n;
    println!(
        "{:>10} {} body steps, ms each: rasterise {:.3} (take {:.3} beside it), read {:.3}, forces \
         {:.3}, block {:.3}, displace {:.3}, advance {:.3}, waited {:.3}; rapier {:.3}",
        "",
        after.steps - before.steps,
        per(after.rasterise, before.rasterise),
        per(after.take, before.take),
        per(after.read, before.read),
        per(after.forces, before.forces),
        per(after.block, before.block),
        per(after.displace, before.displace),
        per(after.advance, before.advance),
        per(after.waited, before.waited),
        per(after.physics, before.physics),
    );
}

fn scene_for(level: &Level, renderer: &TerrainRenderer, size: [u32; 2]) -> Scene {
    let mut camera = Camera::default();
    let bounds = level_bounds(level, renderer.height_range());
    camera.reset(&bounds, size[0] as f32 / size[1] as f32);
    Scene {
        camera,
        overlays: Overlays::default(),
        brush: None,
        size,
    }
}

fn main() {
    let n: usize = arg("--size").and_then(|s| s.parse().ok()).unwrap_or(1024);
    let Some((device, queue, name)) = gpu(n) else {
        println!("no GPU adapter: nothing to measure");
        return;
    };
    if let Some(dir) = arg("--frames-png") {
        return series(&device, &queue, &dir);
    }
    let maps = !std::env::args().any(|a| a == "--no-maps");
    let vsync = std::env::args().any(|a| a == "--vsync");
    let keyframes = !std::env::args().any(|a| a == "--no-keyframes");
    let in_flight_frames: usize = arg("--in-flight")
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .clamp(1, 3);
    let slow = name.contains("llvmpipe");
    println!(
        "GPU: {name}; level {n} × {n} cells, frames 1920 × 1080, {}, water quality {}, maps of \
         the run {}, keyframes {}",
        if in_flight_frames == 1 {
            "GPU wait each frame".to_string()
        } else {
            format!("{in_flight_frames} frames in flight")
        },
        quality().name(),
        if maps { "kept" } else { "not kept" },
        if keyframes { "kept" } else { "not kept" }
    );
    let mut level = bench::scene(n, BenchScene::Valley);
    let bodies: usize = arg("--bodies").and_then(|s| s.parse().ok()).unwrap_or(0);
    scatter(&mut level, bodies);
    if bodies > 0 {
        println!("{bodies} bodies dropped into the reservoir");
    }
    let mut renderer = TerrainRenderer::new(&device, &queue);
    renderer.sync(&level, &spillway_render::Dirty::everything());
    let scene = scene_for(&level, &renderer, [1920, 1080]);
    let frames = if slow {
        3
    } else {
        arg("--frames").and_then(|s| s.parse().ok()).unwrap_or(240)
    };
    let speeds: Vec<f32> = arg("--speeds")
        .map(|s| s.split(',').filter_map(|v| v.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1.0, 10.0, 30.0, 100.0, 300.0, 1000.0]);
    println!(
        "{:>10} {:>12} {:>12} {:>10} {:>10} {:>10} {:>12}",
        "speed", "steps/frame", "ms/frame", "frames/s", "worst ms", "keyframes", "sim s/wall s"
    );
    let mut best = 0.0f32;
    for speed in speeds {
        let mut preview = Preview::new();
        if let Some(ms) = arg("--budget").and_then(|s| s.parse::<f64>().ok()) {
            preview.step_budget = std::time::Duration::from_secs_f64(ms.max(0.0) / 1000.0);
        }
        preview.speed = speed;
        preview.record_maps = maps;
        preview.timeline.recording = keyframes;
        preview.play();
        let mut time = 0.0;
        // Warm up: build the simulation and the pipelines (the first frame starts the water).
        let mut start = Vec::new();
        for _ in 0..3 {
            let one = Instant::now();
            frame(
                &mut preview,
                &mut renderer,
                &level,
                &scene,
                (&device, &queue),
                (time, 1.0 / 60.0),
                &mut Phases::default(),
                &mut InFlight::default(),
            );
            start.push(format!("{:.3}", one.elapsed().as_secs_f64() * 1000.0));
        }
        let mut phases = Phases::default();
        let mut in_flight = InFlight {
            most: in_flight_frames,
            ..InFlight::default()
        };
        let times_before = preview.body_step_times().unwrap_or_default();
        let t = Instant::now();
        let mut steps = 0;
        let mut worst = 0.0f64;
        let mut worst_phases = [0.0; 4];
        // With `--vsync`, frames are shown on a 60 Hz clock as a window's swapchain (FIFO)
        // shows them: a frame that ends before its tick waits for it, and the next frame starts
        // there; one that ends late is shown at the first tick after it ends, while the next
        // frame starts at once (the swapchain has an image free). Each frame is told the time
        // between the last two ticks that showed a frame, as the editor's window is.
        let tick = std::time::Duration::from_secs_f64(1.0 / 60.0);
        let (mut deadline, mut real_dt, mut missed) = (t + tick, 1.0 / 60.0, 0);
        for _ in 0..frames {
            time += real_dt;
            let one = Instant::now();
            let before = phases.0;
            frame(
                &mut preview,
                &mut renderer,
                &level,
                &scene,
                (&device, &queue),
                (time, real_dt),
                &mut phases,
                &mut in_flight,
            );
            let took = one.elapsed().as_secs_f64() * 1000.0;
            if took > worst {
                worst = took;
                worst_phases = std::array::from_fn(|k| phases.0[k] - before[k]);
            }
            steps += preview.last_steps;
            if vsync {
                let now = Instant::now();
                let mut ticks = 1;
                while deadline < now {
                    deadline += tick;
                    ticks += 1;
                }
                if ticks == 1 {
                    std::thread::sleep(deadline - now);
                }
                missed += ticks - 1;
                real_dt = ticks as f32 / 60.0;
                deadline += tick;
            }
        }
        if vsync {
            println!("{:>10} 60 Hz ticks missed: {missed}", "");
        }
        // The last frames' GPU work counts too.
        renderer.wait_idle();
        let ms = t.elapsed().as_secs_f64() * 1000.0 / frames as f64;
        let per = steps as f64 / frames as f64;
        let keys = preview.timeline.branch().keys.len();
        // Simulated seconds per wall second: the steps run over the frames' own time (frames
        // quicker than 60 Hz run more simulated time than the speed asks of a 60 Hz frame).
        let rate = per * level.params.dt as f64 / (ms / 1000.0);
        println!(
            "{speed:>9}× {per:>12.2} {ms:>12.3} {:>10.1} {worst:>10.3} {keys:>10} {rate:>12.2}",
            1000.0 / ms
        );
        let f = frames as f64;
        println!(
            "{:>10} sync {:.3}, preview frame {:.3}, render {:.3}, GPU wait {:.3} ms/frame",
            "",
            phases.0[0] / f,
            phases.0[1] / f,
            phases.0[2] / f,
            phases.0[3] / f
        );
        println!("{:>10} warm-up frames {} ms", "", start.join(", "));
        if bodies > 0 {
            println!(
                "{:>10} bodies: 1 step per {} water steps at the end",
                "", preview.body_stride.steps
            );
            if let Some(after) = preview.body_step_times() {
                body_phases(&times_before, &after);
            }
        }
        let [sync, step, render, wait] = worst_phases;
        println!(
            "{:>10} worst frame: sync {sync:.3}, preview frame {step:.3}, render {render:.3}, \
             GPU wait {wait:.3} ms",
            ""
        );
        // On the 60 Hz clock a frame takes a whole tick however quick it is, so the mean is
        // 1000/60 ms give or take the clock's rounding: there no missed tick is what keeps 60
        // frames/s.
        if (vsync && missed == 0) || (!vsync && ms <= 1000.0 / 60.0) {
            best = speed;
        }
        if let Some(e) = &preview.error {
            println!("  preview error: {e}");
        }
        if slow {
            break;
        }
    }
    println!("fastest speed tried that keeps 60 frames/s: {best}× real time");
    if !slow {
        costs(&level, &mut renderer, &scene, (&device, &queue));
    }
}

/// The cost of a frame's parts alone, paused water: drawing it, and reading its figures.
fn costs(
    level: &Level,
    renderer: &mut TerrainRenderer,
    scene: &Scene,
    dev: (&wgpu::Device, &wgpu::Queue),
) {
    let mut preview = Preview::new();
    preview.step_once();
    let settle = |preview: &mut Preview, renderer: &mut TerrainRenderer| {
        let phases = &mut Phases::default();
        frame(
            preview,
            renderer,
            level,
            scene,
            dev,
            (0.0, 1.0 / 60.0),
            phases,
            &mut InFlight::default(),
        );
    };
    settle(&mut preview, renderer);
    let timed = |f: &mut dyn FnMut()| {
        f();
        let t = Instant::now();
        for _ in 0..30 {
            f();
        }
        t.elapsed().as_secs_f64() * 1000.0 / 30.0
    };
    let drawing = |renderer: &mut TerrainRenderer| {
        timed(&mut || {
            renderer.render(level, scene);
            renderer.wait_idle();
        })
    };
    let draw = drawing(renderer);
    let (tiles, triangles) = (renderer.visible_tiles(), renderer.triangles());
    renderer.set_water(None);
    let ground = drawing(renderer);
    settle(&mut preview, renderer);
    let stats = timed(&mut || {
        preview.wait_stats();
    });
    println!(
        "paused: drawing {draw:.3} ms/frame ({tiles} tiles, {triangles} triangles; without \
         the water {ground:.3}), the water's figures {stats:.3} ms (waited for)"
    );
}

/// Renders a dam break of the bundled `dam_break_valley` sample and the `river_valley` sample
/// as PNG frames of 1920 × 1080 into `dir`.
fn series(device: &wgpu::Device, queue: &wgpu::Queue, dir: &str) {
    for (name, speed) in [("dam_break_valley", 4.0), ("river_valley", 20.0)] {
        sample_series(device, queue, dir, name, speed);
    }
}

/// `name`'s water from its start at `speed` × real time, a frame every 10 (a sixth of a
/// second of wall time), as `dir/NAME_KK.png`.
fn sample_series(device: &wgpu::Device, queue: &wgpu::Queue, dir: &str, name: &str, speed: f32) {
    let path = format!("projects/{name}/level.ron");
    let path = if std::path::Path::new(&path).exists() {
        path
    } else {
        format!("../{path}")
    };
    let level = spillway::level::file::load(path.as_ref()).expect("the sample loads");
    std::fs::create_dir_all(dir).expect("the output folder");
    let mut renderer = TerrainRenderer::new(device, queue);
    renderer.sync(&level, &spillway_render::Dirty::everything());
    let mut scene = scene_for(&level, &renderer, [1920, 1080]);
    // Closer than the whole level, looking along it.
    scene.camera.distance *= 0.6;
    let mut preview = Preview::new();
    preview.speed = speed;
    preview.play();
    for k in 0..=60 {
        frame(
            &mut preview,
            &mut renderer,
            &level,
            &scene,
            (device, queue),
            (k as f32 / 60.0, 1.0 / 60.0),
            &mut Phases::default(),
            &mut InFlight::default(),
        );
        if k % 10 == 0 {
            let (w, h, px) = renderer.read_pixels().expect("pixels");
            let img = image::RgbaImage::from_raw(w, h, px).expect("size matches");
            let out = format!("{dir}/{name}_{:02}.png", k / 10);
            img.save(&out).expect("write png");
            println!("t = {:.2} s → {out}", preview.time());
        }
    }
}
