//! Sources and sinks on the GPU: the same rasterisation as the CPU solver (`sim::forcing`), a
//! patch table uploaded once per edit, and the owner of the forcing pass
//! (`shaders/forcing.wgsl`).

use crate::level::{Level, SinkKind, SourceKind};
use crate::sim::forcing::rasterise;

use super::GpuError;
use super::kernel::{Bind, Kernel, dispatch};
use super::state::{Buffers, Config, GridUniform, SLOT_FORCING};

const SOURCE: &str = include_str!("../../shaders/forcing.wgsl");

/// Words of a patch header in the patch table.
const HEADER: usize = 8;

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
