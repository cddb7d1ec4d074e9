//! Sources and sinks on the GPU: the same rasterisation as the CPU solver (`sim::forcing`), a
//! patch table uploaded once per edit, and the owner of the forcing pass
//! (`shaders/forcing.wgsl`).

use crate::level::{Level, Shape, SinkKind, SourceKind};

use super::GpuError;
use super::kernel::{Bind, Kernel, dispatch};
use super::state::{Buffers, Config, GridUniform, SLOT_FORCING};

const SOURCE: &str = include_str!("../../../shaders/forcing.wgsl");

/// Words of a patch header in the patch table.
const HEADER: usize = 8;

/// The cells of `shape`: those whose centres lie inside it, or at least the one containing its
/// reference point. Identical to `sim::forcing::rasterise` (kept in step by the parity tests).
pub(crate) fn rasterise(shape: &Shape, nx: usize, ny: usize, dx: f32) -> Vec<u32> {
    let cell_of = |x: f32, y: f32| {
        let cx = ((x / dx).floor().max(0.0) as usize).min(nx - 1);
        let cy = ((y / dx).floor().max(0.0) as usize).min(ny - 1);
        (cy * nx + cx) as u32
    };
    let (cx, cy) = match *shape {
        Shape::Point { x, y } | Shape::Circle { x, y, .. } => (x, y),
        Shape::Box { x0, y0, x1, y1 } => (0.5 * (x0 + x1), 0.5 * (y0 + y1)),
    };
    let inside = |px: f32, py: f32| match *shape {
        Shape::Point { .. } => false,
        Shape::Circle { x, y, radius } => (px - x).powi(2) + (py - y).powi(2) <= radius * radius,
        Shape::Box { x0, y0, x1, y1 } => {
            px >= x0.min(x1) && px <= x0.max(x1) && py >= y0.min(y1) && py <= y0.max(y1)
        }
    };
    let (lo_x, hi_x, lo_y, hi_y) = match *shape {
        Shape::Point { .. } => (0.0, -1.0, 0.0, -1.0),
        Shape::Circle { x, y, radius } => (x - radius, x + radius, y - radius, y + radius),
        Shape::Box { x0, y0, x1, y1 } => (x0.min(x1), x0.max(x1), y0.min(y1), y0.max(y1)),
    };
    let mut cells = Vec::new();
    if hi_x >= lo_x {
        let i0 = ((lo_x / dx - 0.5).floor().max(0.0) as usize).min(nx);
        let i1 = ((hi_x / dx).ceil().max(0.0) as usize).min(nx);
        let j0 = ((lo_y / dx - 0.5).floor().max(0.0) as usize).min(ny);
        let j1 = ((hi_y / dx).ceil().max(0.0) as usize).min(ny);
        for j in j0..j1 {
            for i in i0..i1 {
                if inside((i as f32 + 0.5) * dx, (j as f32 + 0.5) * dx) {
                    cells.push((j * nx + i) as u32);
                }
            }
        }
    }
    if cells.is_empty() {
        cells.push(cell_of(cx, cy));
    }
    cells
}

/// A rasterised source or sink: cells, rate, (target surface, capacity) if level-driven, and
/// whether it adds water.
type Patch = (Vec<u32>, f32, Option<(f32, f32)>, bool);

/// The patch table of the enabled sources (first) and sinks of `level`, in the CPU's order,
/// and the number of patches.
pub(crate) fn patch_table(level: &Level) -> (Vec<u32>, u32) {
    let (nx, ny, dx) = (level.nx(), level.ny(), level.cell_size);
    let mut patches: Vec<Patch> = Vec::new();
    for s in level.sources.iter().filter(|s| s.enabled) {
        let (rate, lvl) = match s.kind {
            SourceKind::Rate { m3_per_s } => (m3_per_s, None),
            SourceKind::Level {
                surface,
                max_m3_per_s,
            } => (0.0, Some((surface, max_m3_per_s))),
        };
        patches.push((rasterise(&s.shape, nx, ny, dx), rate, lvl, true));
    }
    for s in level.sinks.iter().filter(|s| s.enabled) {
        let (rate, lvl) = match s.kind {
            SinkKind::Rate { m3_per_s } => (m3_per_s, None),
            SinkKind::Level {
                surface,
                max_m3_per_s,
            } => (0.0, Some((surface, max_m3_per_s))),
        };
        patches.push((rasterise(&s.shape, nx, ny, dx), rate, lvl, false));
    }
    let mut table = vec![0u32; patches.len() * HEADER];
    for (p, (cells, rate, lvl, adds)) in patches.iter().enumerate() {
        let (surface, cap) = lvl.unwrap_or((0.0, 0.0));
        let h = &mut table[p * HEADER..(p + 1) * HEADER];
        h[0] = 0; // offset, set below
        h[1] = cells.len() as u32;
        h[2] = lvl.is_some() as u32;
        h[3] = *adds as u32;
        h[4] = rate.to_bits();
        h[5] = surface.to_bits();
        h[6] = cap.to_bits();
    }
    for (p, (cells, ..)) in patches.iter().enumerate() {
        table[p * HEADER] = table.len() as u32;
        table.extend_from_slice(cells);
    }
    (table, patches.len() as u32)
}

/// The forcing pass (one workgroup).
pub(crate) struct ForcingPass {
    kernel: Kernel,
    group: wgpu::BindGroup,
}

impl ForcingPass {
    /// Compiles the pass for `config` and binds it to `bufs`.
    pub fn new(device: &wgpu::Device, config: &Config, bufs: &Buffers) -> Result<Self, GpuError> {
        let rw = Bind::ReadWrite;
        let binds = [Bind::Uniform, rw, Bind::Read, rw, rw, Bind::Read, rw];
        let kernel = Kernel::new(device, "forcing", SOURCE, config, &binds, &["main"])?;
        let group = Self::bind(&kernel, device, bufs);
        Ok(Self { kernel, group })
    }

    fn bind(kernel: &Kernel, device: &wgpu::Device, b: &Buffers) -> wgpu::BindGroup {
        kernel.bind(
            device,
            "forcing",
            &[
                &b.grid, &b.aux, &b.terrain, &b.depth, &b.carry, &b.patches, &b.ledger,
            ],
        )
    }

    /// Rebinds after buffers were replaced.
    pub fn rebind(&mut self, device: &wgpu::Device, bufs: &Buffers) {
        self.group = Self::bind(&self.kernel, device, bufs);
    }

    /// Records the pass (runs only while a sub-step is open).
    pub fn encode(&self, pass: &mut wgpu::ComputePass<'_>, grid: &GridUniform) {
        dispatch(
            pass,
            &self.kernel.pipelines[0],
            &self.group,
            grid.groups[SLOT_FORCING],
        );
    }
}
