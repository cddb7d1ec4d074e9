//! Owner of the stats pass (`shaders/stats.wgsl`): per-workgroup partial volumes and wet-cell
//! counts of the current depth, so a stats readback moves a few kilobytes, not the grid.

use bytemuck::{Pod, Zeroable};

use super::GpuError;
use super::kernel::{Bind, Kernel};
use super::state::{Buffers, Config};

const SOURCE: &str = include_str!("../../shaders/stats.wgsl");

/// Cells summed by one workgroup (`CHUNK` in stats.wgsl).
const CHUNK: usize = 16384;

/// `struct Partial` of stats.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct Partial {
    pub volume_hi: f32,
    pub volume_lo: f32,
    pub wet: u32,
    pub pad: u32,
}

/// Number of partials (workgroups) for a grid of `cells` cells.
pub(crate) fn partial_count(cells: usize) -> usize {
    cells.div_ceil(CHUNK)
}

/// The stats pass.
pub(crate) struct StatsPass {
    kernel: Kernel,
    group: wgpu::BindGroup,
}

impl StatsPass {
    /// Compiles the pass for `config` and binds it to `bufs`.
    pub fn new(device: &wgpu::Device, config: &Config, bufs: &Buffers) -> Result<Self, GpuError> {
        let binds = [Bind::Uniform, Bind::ReadWrite, Bind::Read, Bind::ReadWrite];
        let kernel = Kernel::new(device, "stats", SOURCE, config, &binds, &["volume"])?;
        let group = Self::bind(&kernel, device, bufs);
        Ok(Self { kernel, group })
    }

    fn bind(kernel: &Kernel, device: &wgpu::Device, b: &Buffers) -> wgpu::BindGroup {
        kernel.bind(device, "stats", &[&b.grid, &b.aux, &b.depth, &b.partials])
    }

    /// Rebinds after buffers were replaced.
    pub fn rebind(&mut self, device: &wgpu::Device, bufs: &Buffers) {
        self.group = Self::bind(&self.kernel, device, bufs);
    }

    /// Records the reduction over a grid of `cells` cells.
    pub fn encode(&self, pass: &mut wgpu::ComputePass<'_>, cells: usize) {
        pass.set_pipeline(&self.kernel.pipelines[0]);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups(partial_count(cells) as u32, 1, 1);
    }
}
