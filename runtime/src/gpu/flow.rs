//! Owner of the flow pass (`shaders/flow.wgsl`): the fused accelerate-limit-depth step.

use super::GpuError;
use super::kernel::{Bind, Kernel, dispatch};
use super::state::{Buffers, Config, GridUniform, SLOT_FLOW, tile_bytes};

const SOURCE: &str = include_str!("../../shaders/flow.wgsl");

/// Strips tried in order of preference (threads per workgroup, rows per strip); the first
/// that fits the device's workgroup memory wins.
const TILES: [(u32, u32); 2] = [(128, 27), (64, 27)];

/// Environment variable overriding the flow strips, `THREADSxROWS` (a benchmark tuning knob).
pub const TILE_ENV: &str = "SPILLWAY_GPU_TILE";

/// The strips asked for in `SPILLWAY_GPU_TILE`, if well-formed.
fn tile_from_env() -> Option<(u32, u32)> {
    let v = std::env::var(TILE_ENV).ok()?;
    let (w, h) = v.split_once('x')?;
    let (w, h) = (w.trim().parse().ok()?, h.trim().parse().ok()?);
    (matches!(w, 8..=256) && matches!(h, 1..=1024)).then_some((w, h))
}

/// The largest preferred tile whose workgroup memory fits in `limit` bytes.
pub(crate) fn pick_tile(limit: u32) -> Option<(u32, u32)> {
    tile_from_env()
        .filter(|&(w, h)| tile_bytes(w, h) <= limit)
        .or_else(|| TILES.into_iter().find(|&(w, h)| tile_bytes(w, h) <= limit))
}

/// The smallest tile (the least workgroup memory any device must offer).
pub(crate) fn smallest_tile() -> (u32, u32) {
    TILES[TILES.len() - 1]
}

/// Workgroups of the flow pass for an `nx × ny` grid: strips of `tile.0 - 4` output columns
/// and `tile.1` rows.
pub(crate) fn groups(nx: usize, ny: usize, tile: (u32, u32)) -> [u32; 3] {
    [
        (nx as u32).div_ceil(tile.0 - 4),
        (ny as u32).div_ceil(tile.1),
        1,
    ]
}

/// The flow pass.
pub(crate) struct FlowPass {
    kernel: Kernel,
    group: wgpu::BindGroup,
}

impl FlowPass {
    /// Compiles the pass for `config` and binds it to `bufs`.
    pub fn new(device: &wgpu::Device, config: &Config, bufs: &Buffers) -> Result<Self, GpuError> {
        let rw = Bind::ReadWrite;
        let binds = [Bind::Uniform, rw, Bind::Read, rw, rw, rw, rw, Bind::Read];
        let kernel = Kernel::new(device, "flow", SOURCE, config, &binds, &["main"])?;
        let group = Self::bind(&kernel, device, bufs);
        Ok(Self { kernel, group })
    }

    fn bind(kernel: &Kernel, device: &wgpu::Device, b: &Buffers) -> wgpu::BindGroup {
        kernel.bind(
            device,
            "flow",
            &[
                &b.grid, &b.aux, &b.terrain, &b.depth, &b.qx, &b.qy, &b.carry, &b.adv,
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
            grid.groups[SLOT_FLOW],
        );
    }
}
