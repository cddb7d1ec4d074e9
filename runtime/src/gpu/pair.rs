//! Owner of the pair pass (`shaders/pair.wgsl`): two sub-steps in one march over the state
//! (temporal blocking), where the control pass opens a pair (two steps of one sub-step each, or
//! a step's first two sub-steps): the plain pipes, and with momentum advection (the pipes' and
//! the shallow-water mode's) where the flow pass fuses it.

use super::GpuError;
use super::flow::{FUSE_FROM, strips_in_env};
use super::kernel::{Bind, Kernel, dispatch};
use super::state::{Buffers, Config};

const SOURCE: &str = concat!(
    "const LATE_SUM: bool = true;\n",
    include_str!("../../shaders/momentum.wgsl"),
    include_str!("../../shaders/pair.wgsl")
);

/// Rows per strip tried for the plain pipes, tallest first: the tallest that still gives
/// [`PLAIN_FROM`] strips wins. One H100, the peers' constant pipe in 128-thread strips
/// (`SPILLWAY_PAIR_TILE=128xROWS gpu_bench 2048 4096 --physics peers`): 69.97 Gcell/s at 2048²
/// in 27 rows, 77.85 in 40; at 4096² 98.28, 97.95 and 97.27 in 27, 40 and 54 rows.
const ROWS: [u32; 3] = [54, 40, 27];

/// Strips from which [`Pairing::Auto`] pairs the plain pipes: 40 rows at 2048² (936 strips).
pub const PLAIN_FROM: u32 = 768;

/// Rows per strip with momentum advection, paired by [`Pairing::Auto`] where they make
/// [`FUSE_FROM`] strips (4096² and up). One H100, the runtime's default physics in 128-thread
/// strips: at 4096² 35.23 Gcell/s in 27 rows, 36.04 in 40, 36.56 and 36.71 in 54; at 2048²,
/// where 54 rows make 684 strips, no shape tried was more than 1.4 % faster than one fused pass
/// a step (24.92 to 27.46 against 27.16 and 27.08), and the 128-thread ones were slower.
const ADV_ROWS: u32 = 54;

/// Threads of a pair workgroup (its strips are 8 columns narrower). One H100, the peers'
/// constant pipe at 4096² in 54 rows (`gpu_bench --physics peers`): 97.27 and 97.40 Gcell/s in
/// 128-thread strips with one slot per workgroup row, 94.80 in 64 and 95.93 in 96. With two
/// slots per row (as the flow pass keeps), 64 threads had been the faster: 89.26 against 82.30.
const PAIR_THREADS: u32 = 128;

/// When pairs are recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pairing {
    /// Where the grid makes enough strips ([`PLAIN_FROM`] of 27 rows or more for the plain
    /// pipes, [`FUSE_FROM`] of 54 with momentum advection): on fewer, the pair's nine halo rows
    /// a strip and its longer march cost more than the second pass they save. A step's own
    /// first two sub-steps pair where steps need two or more.
    #[default]
    Auto,
    /// Whenever the steps allow it (in the shortest strips where the grid is small), a step's
    /// own sub-steps in every mode.
    Always,
    /// Never: one flow pass a sub-step.
    Never,
}

/// Bytes of workgroup memory the pass needs for `tw` threads: eight rows, seven words and the
/// step's constants, and
/// with momentum advection (`adv`) six rows more (advection and speeds).
fn pair_bytes(tw: u32, adv: bool) -> u32 {
    4 * (8 + if adv { 6 } else { 0 }) * tw + 60
}

/// Environment variable overriding the pair strips, `THREADSxROWS` (a benchmark tuning knob).
pub const PAIR_TILE_ENV: &str = "SPILLWAY_PAIR_TILE";

/// The pair strips asked for in `SPILLWAY_PAIR_TILE`, if well-formed (16 threads or more: the
/// strips are 8 columns narrower).
fn tile_from_env() -> Option<(u32, u32)> {
    strips_in_env(PAIR_TILE_ENV, 16)
}

/// The pair pass, for an `nx × ny` grid, in two builds: one for pairs of two steps, one for a
/// step's own first two sub-steps (`SUB`: films held over the sub-steps' length, read from the
/// constants' table, where the steps' build reads the step's from the uniform).
pub(crate) struct PairPass {
    kernels: [Kernel; 2],
    groups_bound: [wgpu::BindGroup; 2],
    /// Workgroups of a dispatch.
    pub groups: [u32; 4],
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
        let asked = tile_from_env();
        let tw = asked.map_or(PAIR_THREADS.min(config.tile.0), |t| t.0);
        let config = &Config {
            tile: (tw, config.tile.1),
            ..*config
        };
        let adv = config.mode != 0;
        if (adv && !config.fusable())
            || tw <= 8
            || device.limits().max_compute_workgroup_storage_size < pair_bytes(tw, adv)
        {
            return Ok(None);
        }
        let strips = |rows: u32| (nx as u32).div_ceil(tw - 8) * (ny as u32).div_ceil(rows);
        let tall = if adv {
            Some(ADV_ROWS).filter(|&rows| strips(rows) >= FUSE_FROM)
        } else {
            ROWS.into_iter().find(|&rows| strips(rows) >= PLAIN_FROM)
        };
        let rows = asked.map_or(tall.unwrap_or(ROWS[ROWS.len() - 1]), |t| t.1);
        let aw = if adv { tw } else { 1 };
        let rw = Bind::ReadWrite;
        let binds = [Bind::Uniform, rw, Bind::Read, rw, rw, rw, rw, rw];
        let build = |sub: bool| {
            let source = format!(
                "const PH: u32 = {rows}u;\nconst AW: u32 = {aw}u;\nconst SUB: bool = {sub};\n{}{SOURCE}",
                super::quiet::shader(config, true)
            );
            Kernel::new(device, "pair", &source, config, &binds, &["main"])
        };
        let kernels = [build(false)?, build(true)?];
        let groups_bound = kernels.each_ref().map(|k| Self::bind(k, device, bufs));
        Ok(Some(Self {
            kernels,
            groups_bound,
            groups: [
                (nx as u32).div_ceil(tw - 8),
                (ny as u32).div_ceil(rows),
                1,
                0,
            ],
            auto: tall.is_some(),
        }))
    }

    fn bind(kernel: &Kernel, device: &wgpu::Device, b: &Buffers) -> wgpu::BindGroup {
        let buffers = [
            &b.grid, &b.aux, &b.terrain, &b.depth, &b.qx, &b.qy, &b.carry, &b.vel,
        ];
        kernel.bind(device, "pair", &buffers)
    }

    /// Rebinds after buffers were replaced.
    pub fn rebind(&mut self, device: &wgpu::Device, bufs: &Buffers) {
        self.groups_bound = self.kernels.each_ref().map(|k| Self::bind(k, device, bufs));
    }

    /// Whether steps are recorded in pairs under `pairing`.
    pub fn pairs(&self, pairing: Pairing) -> bool {
        match pairing {
            Pairing::Auto => self.auto,
            Pairing::Always => true,
            Pairing::Never => false,
        }
    }

    /// Whether a step's own first two sub-steps run as one pair under `pairing`, where the last
    /// read-back state needs two sub-steps a step or more (`splits`). [`Pairing::Auto`] pairs
    /// them there, where the grid pairs steps: one H100 at 4096², steps of 0.1 s at a Courant
    /// number of 1 (2.07 sub-steps a step) ran 92.31 simulated s a wall second one pass a
    /// sub-step and 105.78 in pairs with the default physics, 81.36 and 104.44 with the
    /// shallow-water mode; steps of 50 ms (1.14 sub-steps, most steps one) ran 1 % slower paired
    /// in either, so a step's sub-steps do not pair where most steps take one
    /// (docs/gpu.md, "A step's own two sub-steps in one pass").
    pub fn pairs_substeps(&self, pairing: Pairing, splits: bool) -> bool {
        match pairing {
            Pairing::Auto => self.auto && splits,
            Pairing::Always => true,
            Pairing::Never => false,
        }
    }

    /// Records the pass for a pair of two steps (it runs only where the control pass opened
    /// one).
    pub fn encode_steps(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.encode(pass, 0);
    }

    /// Records the pass for a step's first two sub-steps (it runs only where the control pass
    /// opened them as a pair).
    pub fn encode_substeps(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.encode(pass, 1);
    }

    fn encode(&self, pass: &mut wgpu::ComputePass<'_>, build: usize) {
        let (kernel, group) = (&self.kernels[build], &self.groups_bound[build]);
        dispatch(pass, &kernel.pipelines[0], group, self.groups);
    }
}
