//! Owner of the pair pass (`shaders/pair.wgsl`): two steps in one march over the state (temporal
//! blocking), where the control pass opens a pair: the plain pipes, and with momentum advection
//! (the pipes' and the shallow-water mode's) where the flow pass fuses it.

use super::GpuError;
use super::flow::FUSE_FROM;
use super::kernel::{Bind, Kernel, dispatch};
use super::sim::TABLE_OFFSET;
use super::state::{Buffers, Config, StepConsts};

const SOURCE: &str = concat!(
    include_str!("../../shaders/momentum.wgsl"),
    include_str!("../../shaders/pair.wgsl")
);

/// Rows per strip tried, tallest first: the tallest that still gives [`FUSE_FROM`] strips
/// wins. One H100, the peers' constant pipe in the standalone experiment the pass came from
/// (`docs/gpu.md`, "Two steps a pass"): 83.95 Gcell/s at 4096² in 27 rows, 86.61 in 40, 86.38 in
/// 54; at 8192² 87.98, 93.59 and 95.37.
const ROWS: [u32; 3] = [54, 40, 27];

/// Threads of a pair workgroup (its strips are 8 columns narrower). One H100, the peers'
/// constant pipe (`gpu_bench 2048 4096 8192 --physics peers`, two runs): 75.81 and 76.15
/// Gcell/s at 2048², 89.26 and 89.41 at 4096², 94.79 and 94.97 at 8192² in 64-thread strips,
/// against 60.40 and 60.66, 82.30 and 82.53, 93.62 and 93.91 in the flow pass's 128.
const PAIR_THREADS: u32 = 64;

/// When pairs are recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pairing {
    /// Where the grid makes at least [`FUSE_FROM`] strips of 27 rows or more: on fewer, the
    /// pair's nine halo rows a strip cost more than the second pass they save.
    #[default]
    Auto,
    /// Whenever the steps allow it (in the shortest strips where the grid is small).
    Always,
    /// Never: one flow pass a sub-step.
    Never,
}

/// Bytes of one entry of the sub-step constant table.
const CONSTS: u64 = std::mem::size_of::<StepConsts>() as u64;

/// Bytes of workgroup memory the pass needs for `tw` threads: eight double-buffered rows, six
/// single ones (advection and speeds) and four words.
fn pair_bytes(tw: u32) -> u32 {
    4 * 22 * tw + 16
}

/// The pair pass, for an `nx × ny` grid.
pub(crate) struct PairPass {
    kernel: Kernel,
    group: wgpu::BindGroup,
    /// The constants of a one-sub-step step, copied from the table before each batch.
    consts: wgpu::Buffer,
    groups: [u32; 4],
    /// Whether [`Pairing::Auto`] pairs (the grid makes enough strips).
    auto: bool,
}

impl PairPass {
    /// Compiles the pass where `config` runs the plain pipes or a momentum advection the flow
    /// pass can fuse (not the semi-Lagrangian one) and the device has the workgroup memory;
    /// `None` elsewhere.
    pub fn new(
        device: &wgpu::Device,
        config: &Config,
        bufs: &Buffers,
        (nx, ny): (usize, usize),
    ) -> Result<Option<Self>, GpuError> {
        let tw = PAIR_THREADS.min(config.tile.0);
        let config = &Config {
            tile: (tw, config.tile.1),
            ..*config
        };
        if (config.mode != 0 && !config.fusable())
            || tw <= 8
            || device.limits().max_compute_workgroup_storage_size < pair_bytes(tw)
        {
            return Ok(None);
        }
        let strips = |rows: u32| (nx as u32).div_ceil(tw - 8) * (ny as u32).div_ceil(rows);
        let tall = ROWS.into_iter().find(|&rows| strips(rows) >= FUSE_FROM);
        let rows = tall.unwrap_or(ROWS[ROWS.len() - 1]);
        let source = format!("const PH: u32 = {rows}u;\n{SOURCE}");
        let rw = Bind::ReadWrite;
        let binds = [Bind::Uniform, rw, Bind::Read, rw, rw, rw, rw, Bind::Uniform, rw];
        let kernel = Kernel::new(device, "pair", &source, config, &binds, &["main"])?;
        let consts = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("pair constants"),
            size: CONSTS,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let group = Self::bind(&kernel, device, bufs, &consts);
        Ok(Some(Self {
            kernel,
            group,
            consts,
            groups: [
                (nx as u32).div_ceil(tw - 8),
                (ny as u32).div_ceil(rows),
                1,
                0,
            ],
            auto: tall.is_some(),
        }))
    }

    fn bind(
        kernel: &Kernel,
        device: &wgpu::Device,
        b: &Buffers,
        consts: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        let buffers = [
            &b.grid, &b.aux, &b.terrain, &b.depth, &b.qx, &b.qy, &b.carry, consts, &b.vel,
        ];
        kernel.bind(device, "pair", &buffers)
    }

    /// Rebinds after buffers were replaced.
    pub fn rebind(&mut self, device: &wgpu::Device, bufs: &Buffers) {
        self.group = Self::bind(&self.kernel, device, bufs, &self.consts);
    }

    /// Copies the table's constants of a one-sub-step step (`aux.consts[1]`) to the pass's
    /// uniform: record before the steps of a batch.
    pub fn copy_consts(&self, encoder: &mut wgpu::CommandEncoder, aux: &wgpu::Buffer) {
        encoder.copy_buffer_to_buffer(aux, TABLE_OFFSET + CONSTS, &self.consts, 0, CONSTS);
    }

    /// Whether steps are recorded in pairs under `pairing`.
    pub fn pairs(&self, pairing: Pairing) -> bool {
        match pairing {
            Pairing::Auto => self.auto,
            Pairing::Always => true,
            Pairing::Never => false,
        }
    }

    /// Records the pass (runs only while the control pass has a pair open).
    pub fn encode(&self, pass: &mut wgpu::ComputePass<'_>) {
        dispatch(pass, &self.kernel.pipelines[0], &self.group, self.groups);
    }
}
