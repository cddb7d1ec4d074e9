//! Experiment for issue 21: does marching two steps per pass (temporal blocking) pay on the
//! peers' constant-pipe step? `pair_march.wgsl` holds a one-step march (`single`, the flow
//! pass stripped to the peers' physics) and a two-step one (`pair`); this runs both on the
//! peers' scene (`spillway::bench::scene`, `BenchScene::PEERS`).
//!
//! `pair_march check [N] [PAIRS]` runs 2k singles and k pairs from the same state on an N × N grid and
//! compares depth, discharges and carry bit for bit. `pair_march [SIZE ...] [--steps N] [--tw W]
//! [--th H] [--pair-th H]` prints Gcell/s of each (steps of 25 ms, one cell-update a step).

use std::error::Error;
use std::time::Instant;

use spillway::bench::{BenchScene, scene};
use wgpu::util::DeviceExt;

const SHADER: &str = include_str!("pair_march.wgsl");

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    nx: u32,
    ny: u32,
    par: u32,
    pad0: u32,
    fric: f32,
    g_dt: f32,
    c: f32,
    vol_rate: f32,
}

struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// Timestamps of the first and last dispatch of a run, where the device has them.
    stamps: Option<wgpu::QuerySet>,
}

fn gpu() -> Result<Gpu, Box<dyn Error>> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let mut adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
    adapters.sort_by_key(|a| a.get_info().device_type == wgpu::DeviceType::Cpu);
    let adapter = adapters.into_iter().next().ok_or("no Vulkan adapter")?;
    eprintln!("adapter: {}", adapter.get_info().name);
    let features = adapter.features() & wgpu::Features::TIMESTAMP_QUERY;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("pair march"),
        required_features: features,
        required_limits: adapter.limits(),
        ..Default::default()
    }))?;
    let stamps = (!features.is_empty()).then(|| {
        device.create_query_set(&wgpu::QuerySetDescriptor {
            label: None,
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        })
    });
    Ok(Gpu {
        device,
        queue,
        stamps,
    })
}

/// The state's buffers (two halves each) and a bind group per current half.
struct State {
    depth: wgpu::Buffer,
    qx: wgpu::Buffer,
    qy: wgpu::Buffer,
    carry: wgpu::Buffer,
    groups: [wgpu::BindGroup; 2],
    n: usize,
}

struct Kernels {
    layout: wgpu::BindGroupLayout,
    single: wgpu::ComputePipeline,
    pair: wgpu::ComputePipeline,
    tile: (u32, u32, u32),
}

fn kernels(g: &Gpu, tw: u32, th: u32, pair_th: u32) -> Kernels {
    let storage = |read_only| wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Storage { read_only },
        has_dynamic_offset: false,
        min_binding_size: None,
    };
    let entries: Vec<wgpu::BindGroupLayoutEntry> = (0..6)
        .map(|i| wgpu::BindGroupLayoutEntry {
            binding: i,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: match i {
                0 => wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                1 => storage(true),
                _ => storage(false),
            },
            count: None,
        })
        .collect();
    let layout = g
        .device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &entries,
        });
    let pl = g
        .device
        .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
    let pipeline = |th: u32, entry: &str| {
        let code = format!("const TW: u32 = {tw}u;\nconst TH: u32 = {th}u;\n{SHADER}");
        // SAFETY: as the runtime's passes (gpu::kernel): our shader, every index in bounds.
        let module = unsafe {
            g.device.create_shader_module_trusted(
                wgpu::ShaderModuleDescriptor {
                    label: Some(entry),
                    source: wgpu::ShaderSource::Wgsl(code.into()),
                },
                wgpu::ShaderRuntimeChecks::unchecked(),
            )
        };
        g.device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&pl),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
    };
    Kernels {
        single: pipeline(th, "single"),
        pair: pipeline(pair_th, "pair"),
        layout,
        tile: (tw, th, pair_th),
    }
}

fn state(g: &Gpu, k: &Kernels, n: usize) -> State {
    let level = scene(n, BenchScene::PEERS);
    let (dt, dx, g_acc) = (0.025f32, 1.0f32, 9.81f32);
    let buffer = |data: &[f32]| {
        g.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: bytemuck::cast_slice(data),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            })
    };
    let cells = n * n;
    let mut depth = level.water.data.clone();
    depth.resize(2 * cells, 0.0);
    let terrain = buffer(&level.terrain.data);
    let depth = buffer(&depth);
    let qx = buffer(&vec![0.0; 2 * (n + 1) * n]);
    let qy = buffer(&vec![0.0; 2 * n * (n + 1)]);
    let carry = buffer(&vec![0.0; 2 * cells]);
    let groups = [0u32, 1].map(|par| {
        let params = Params {
            nx: n as u32,
            ny: n as u32,
            par,
            pad0: 0,
            fric: 0.999,
            g_dt: g_acc * dt / dx,
            c: dt / (dx * dx),
            vol_rate: dx * dx / dt,
        };
        let uniform = g
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let entries: Vec<wgpu::BindGroupEntry> = [&uniform, &terrain, &depth, &qx, &qy, &carry]
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        g.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &k.layout,
            entries: &entries,
        })
    });
    State {
        depth,
        qx,
        qy,
        carry,
        groups,
        n,
    }
}

/// Records `dispatches` marches from half `par` on; returns the half the state ends in and
/// the seconds the GPU took (by its timestamps where it has them, else the wall clock).
fn run(
    g: &Gpu,
    k: &Kernels,
    s: &State,
    pair: bool,
    dispatches: usize,
    mut par: usize,
) -> (usize, f64) {
    let start = Instant::now();
    let (tw, th, pth) = k.tile;
    let n = s.n as u32;
    let (cols, rows, pipeline) = if pair {
        (tw - 8, pth, &k.pair)
    } else {
        (tw - 4, th, &k.single)
    };
    let mut encoder = g.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: g.stamps.as_ref().map(|q| wgpu::ComputePassTimestampWrites {
                query_set: q,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: Some(1),
            }),
        });
        pass.set_pipeline(pipeline);
        for _ in 0..dispatches {
            pass.set_bind_group(0, &s.groups[par], &[]);
            pass.dispatch_workgroups(n.div_ceil(cols), n.div_ceil(rows), 1);
            par ^= 1;
        }
    }
    let resolved = g.stamps.as_ref().map(|q| {
        let b = g.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 16,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        encoder.resolve_query_set(q, 0..2, &b, 0);
        b
    });
    g.queue.submit([encoder.finish()]);
    g.device
        .poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: None,
        })
        .expect("poll");
    let wall = start.elapsed().as_secs_f64();
    let secs = match resolved {
        Some(b) => {
            let ticks: Vec<u64> = read(g, &b)
                .chunks_exact(2)
                .map(|w| u64::from(w[0].to_bits()) | (u64::from(w[1].to_bits()) << 32))
                .collect();
            ticks[1].saturating_sub(ticks[0]) as f64 * f64::from(g.queue.get_timestamp_period())
                / 1e9
        }
        None => wall,
    };
    (par, secs)
}

fn read(g: &Gpu, b: &wgpu::Buffer) -> Vec<f32> {
    let staging = g.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: b.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = g.device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(b, 0, &staging, 0, b.size());
    g.queue.submit([encoder.finish()]);
    staging.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    g.device
        .poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: None,
        })
        .expect("poll");
    let view = staging.get_mapped_range(..).expect("mapped");
    bytemuck::cast_slice::<u8, f32>(&view).to_vec()
}

/// Half `par` of each of the state's grids.
fn halves(g: &Gpu, s: &State, par: usize) -> Vec<(&'static str, Vec<f32>)> {
    [
        ("depth", &s.depth),
        ("qx", &s.qx),
        ("qy", &s.qy),
        ("carry", &s.carry),
    ]
    .into_iter()
    .map(|(name, b)| {
        let all = read(g, b);
        let half = all.len() / 2;
        (name, all[par * half..(par + 1) * half].to_vec())
    })
    .collect()
}

fn check(g: &Gpu, k: &Kernels, n: usize, pairs: usize) -> Result<(), Box<dyn Error>> {
    let a = state(g, k, n);
    let b = state(g, k, n);
    let (pa, _) = run(g, k, &a, false, 2 * pairs, 0);
    let (pb, _) = run(g, k, &b, true, pairs, 0);
    let (ha, hb) = (halves(g, &a, pa), halves(g, &b, pb));
    let mut same = true;
    for ((name, x), (_, y)) in ha.iter().zip(&hb) {
        let differ = x
            .iter()
            .zip(y)
            .filter(|(p, q)| p.to_bits() != q.to_bits())
            .count();
        let worst = x
            .iter()
            .zip(y)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0f32, f32::max);
        println!("{name}: {differ} of {} differ, max |Δ| {worst:e}", x.len());
        same &= differ == 0;
    }
    let start = scene(n, BenchScene::PEERS).water.data;
    let moved = start.iter().zip(&hb[0].1).filter(|(p, q)| p != q).count();
    println!("{moved} of {} cells' depth moved", start.len());
    let volume = |d: &[f32]| d.iter().map(|&v| f64::from(v)).sum::<f64>();
    println!(
        "volume: {} singles, {} pairs, {} at the start",
        volume(&ha[0].1),
        volume(&hb[0].1),
        scene(n, BenchScene::PEERS).water.sum()
    );
    if same {
        println!(
            "{n}²: {} singles and {pairs} pairs agree bit for bit",
            2 * pairs
        );
        Ok(())
    } else {
        Err("the pair march differs from two single marches".into())
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opt = |name: &str, default: u32| -> Result<u32, Box<dyn Error>> {
        match args.iter().position(|a| a == name) {
            Some(i) => Ok(args.get(i + 1).ok_or("missing value")?.parse()?),
            None => Ok(default),
        }
    };
    let (tw, th) = (opt("--tw", 128)?, opt("--th", 27)?);
    let pair_th = opt("--pair-th", th)?;
    let steps = opt("--steps", 200)? as usize;
    let g = gpu()?;
    let k = kernels(&g, tw, th, pair_th);
    if args.first().map(String::as_str) == Some("check") {
        let n = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(300);
        let pairs = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(5);
        return check(&g, &k, n, pairs);
    }
    let sizes: Vec<usize> = args
        .iter()
        .take_while(|a| !a.starts_with("--"))
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    println!(
        "tile {tw}×{th}, pair {tw}×{pair_th}; Gcell/s (cell-steps per second, {} timing)",
        if g.stamps.is_some() { "GPU" } else { "wall" }
    );
    println!("     n   single     pair   ratio");
    for n in sizes {
        let s = state(&g, &k, n);
        let (mut par, _) = run(&g, &k, &s, false, 20, 0);
        (par, _) = run(&g, &k, &s, true, 10, par);
        let cells = (n * n) as f64;
        let (par, t) = run(&g, &k, &s, false, steps, par);
        let single = cells * steps as f64 / t / 1e9;
        let (_, t) = run(&g, &k, &s, true, steps / 2, par);
        let pair = cells * (2 * (steps / 2)) as f64 / t / 1e9;
        println!("{n:>6} {single:>8.2} {pair:>8.2} {:>7.3}", pair / single);
    }
    Ok(())
}
