//! A lost GPU device, for real: the device the preview's water runs on is destroyed (wgpu then
//! reports it lost, as after a driver reset). The preview pauses, says so once, moves the water
//! to the CPU solver restarted from the authored water, runs there exactly as the runtime's CPU
//! solver does, draws through the next working device it is handed, and never changes the level.

use spillway::gpu::required_limits;
use spillway::{Grid, Level, Simulation};
use spillway_editor::preview::Preview;

/// A 64 × 32 valley of 1 m cells with a 2 m water column over its west quarter.
fn dam_break() -> Level {
    let (nx, ny) = (64, 32);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |x, y| {
        0.02 * x as f32 + 0.1 * (y as f32 * 0.3).sin()
    });
    level.water = Grid::from_fn(nx, ny, |x, _| if x < 16 { 2.0 } else { 0.0 });
    level
}

/// Two real devices of one adapter (lavapipe in CI), as an editor's window would have, with
/// wgpu's default handling of errors (a panic): the preview must not touch a lost device.
fn devices(level: &Level) -> [(wgpu::Device, wgpu::Queue); 2] {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let options = wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    };
    let adapter = pollster::block_on(instance.request_adapter(&options))
        .expect("a GPU adapter (install mesa-vulkan-drivers for lavapipe)");
    let desc = wgpu::DeviceDescriptor {
        label: Some("editor"),
        required_limits: required_limits(level.nx(), level.ny()),
        ..Default::default()
    };
    [(); 2].map(|_| pollster::block_on(adapter.request_device(&desc)).expect("a device"))
}

fn frames(
    preview: &mut Preview,
    level: &Level,
    (device, queue): &(wgpu::Device, wgpu::Queue),
    n: usize,
) {
    for _ in 0..n {
        preview.frame(level, device, queue, 1.0 / 60.0, Some((20, 16)));
        preview.flush();
    }
}

#[test]
fn a_lost_device_pauses_the_preview_and_the_water_goes_on_on_the_cpu() {
    let level = dam_break();
    let authored = level.clone();
    let [gpu, next] = devices(&level);
    let mut preview = Preview::new();
    preview.speed = 5.0;
    preview.play();
    frames(&mut preview, &level, &gpu, 30);
    let before = preview.wait_stats().expect("the GPU water runs");
    assert!(before.time > 1.0, "{before:?}");
    assert!(!preview.on_cpu());

    // The device goes away under the running preview.
    gpu.0.destroy();
    frames(&mut preview, &level, &gpu, 1);
    let why = preview.gpu_lost.clone().expect("the loss is noticed");
    println!("{why}");
    assert!(why.contains("lost") && why.contains("CPU"), "{why}");
    assert!(preview.on_cpu());
    assert!(!preview.playing, "the preview pauses");
    assert!(preview.take_gpu_lost_news(), "the editor hears of it once");
    assert!(!preview.take_gpu_lost_news());
    assert!(preview.error.is_none(), "{:?}", preview.error);
    assert!(
        preview.time() < 1e-9,
        "restarted from the authored water at t = {}",
        preview.time()
    );
    assert!(
        preview.water().is_none(),
        "nothing is uploaded to the lost device"
    );

    // Play again: the water runs on the CPU and draws through the next device handed over.
    preview.play();
    frames(&mut preview, &level, &next, 40);
    preview.pause();
    let stats = preview.wait_stats().expect("the CPU water runs");
    println!(
        "on the CPU: {:.2} s in {} steps, balance {:.1e}, probe {:?}",
        stats.time, stats.steps, stats.balance_error, preview.probe
    );
    assert!(stats.time > 1.0, "{stats:?}");
    assert!(stats.balance_error.abs() < 1e-6, "{stats:?}");
    assert!(preview.water().is_some(), "the CPU state is drawn");
    assert!(preview.probe.is_some_and(|p| p.depth > 0.0));
    assert!(preview.history.len() > 10, "the plots go on");

    // It is the runtime's CPU solver, step for step.
    let mut cpu = Simulation::new(&level).expect("level");
    for _ in 0..stats.steps {
        cpu.step(level.params.dt).expect("step");
    }
    assert_eq!(preview.read_depth().expect("depth"), cpu.depth());
    assert_eq!(level, authored, "the level is untouched");

    // Reset stays on the CPU (the device is gone) and starts from the authored water again.
    preview.reset();
    preview.step_once();
    frames(&mut preview, &level, &next, 1);
    assert!(preview.on_cpu());
    assert_eq!(preview.wait_stats().expect("stats").steps, 1);
}

/// Pixels of two images of one size whose colours differ by more than 24 in some channel.
fn differing(a: &[u8], b: &[u8]) -> usize {
    a.chunks(4)
        .zip(b.chunks(4))
        .filter(|(p, q)| p.iter().zip(*q).any(|(x, y)| x.abs_diff(*y) > 24))
        .count()
}

#[test]
fn the_cpu_solver_switch_draws_the_same_water_as_the_gpu() {
    let level = dam_break();
    let mut shots = Vec::new();
    for cpu in [false, true] {
        let mut ed = crate::support::editor_with(&level);
        if cpu {
            ed.click("CPU solver");
        }
        ed.frames(2);
        let (_, _, authored) = ed.harness.state().viewport_pixels().expect("drawn");
        for _ in 0..40 {
            ed.click("Step");
        }
        ed.frames(2);
        let preview = ed.harness.state_mut().preview_mut();
        assert_eq!(preview.on_cpu(), cpu);
        let stats = preview.wait_stats().expect("the water runs");
        assert_eq!(stats.steps, 40, "cpu {cpu}");
        let (w, h, pixels) = ed.harness.state().viewport_pixels().expect("drawn");
        let moved = differing(&authored, &pixels);
        println!(
            "cpu {cpu}: {moved} of {} pixels changed as the dam broke",
            w * h
        );
        assert!(moved > (w * h) as usize / 100, "the moving water is drawn");
        shots.push(pixels);
    }
    let off = differing(&shots[0], &shots[1]);
    println!("CPU against GPU: {off} pixels differ");
    assert!(off < shots[0].len() / 4 / 1000, "{off} pixels differ");
}
