//! The GPU-side state: the uniform and control blocks shared by every pass (mirroring
//! `shaders/common.wgsl`), the per-sub-step constant table, and the buffers themselves.

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use crate::level::{Advection, CrossSection, Friction, Params, SolverKind};
use crate::sim::MAX_SUBSTEPS;

/// Slots of the heavy passes' workgroup counts in `GridUniform::groups`.
pub(crate) const SLOT_FLOW: usize = 0;
pub(crate) const SLOT_FORCING: usize = 1;
pub(crate) const SLOT_EDGES: usize = 2;
pub(crate) const SLOT_ADVECT: usize = 3;
pub(crate) const SLOT_STORE: usize = 4;
/// The pair pass's workgroups (read by the control pass, which counts the strips that ran).
pub(crate) const SLOT_PAIR: usize = 5;

/// Bytes of the control block at the start of the `aux` buffer.
pub(crate) const CONTROL_BYTES: u64 = 256;
/// Bytes of the sub-step constant table after it (entries 0..=MAX_SUBSTEPS).
pub(crate) const TABLE_BYTES: u64 = (MAX_SUBSTEPS as u64 + 1) * 32;

/// `struct Grid` of common.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(crate) struct GridUniform {
    pub nx: u32,
    pub ny: u32,
    pub cells: u32,
    pub perimeter: u32,
    pub half_d: u32,
    pub half_qx: u32,
    pub half_qy: u32,
    pub k_max: u32,
    pub dx: f32,
    pub gravity: f32,
    pub cfl: f32,
    pub dt: f32,
    pub patch_count: u32,
    pub edge_groups: u32,
    pub max_substeps: u32,
    pub inv_dx: f32,
    pub groups: [[u32; 4]; 8],
    /// Always 0 (hides error-free sums from the shader compiler).
    pub zero: u32,
    /// Word offset of the structures in the patch table (0: none).
    pub structures: u32,
    /// Stamp blocks along x (`gpu::quiet`).
    pub quiet_cols: u32,
    /// Whether flow and pair strips with no water around are left out (1) or not (0).
    pub quiet_on: u32,
}

/// `struct Control` of common.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(crate) struct ControlBlock {
    pub n: u32,
    pub k: u32,
    pub running: u32,
    pub parity: u32,
    pub halted: u32,
    pub steps: u32,
    pub substeps: u32,
    pub clamped: u32,
    pub needed: u32,
    pub blowup_cell: u32,
    pub max_depth: f32,
    pub max_speed: f32,
    pub time_hi: f32,
    pub time_lo: f32,
    pub rain_hi: f32,
    pub rain_lo: f32,
    pub runaway_speed: f32,
    /// Sub-steps the step under way runs: `n`, or `k_max` when the step needed more than were
    /// encoded (each then as short as `n` asks, so it stays stable, and the step simulates less
    /// than `dt`; counted in `clamped`).
    pub count: u32,
    /// The open sub-step is a pair: two steps of one sub-step each in one pass.
    pub pair: u32,
    /// The step about to begin already ran, as the second of a pair.
    pub skip: u32,
    /// Steps run in pairs so far.
    pub paired: u32,
    /// Flow or pair dispatches run (`gpu::quiet`'s tick).
    pub tick: u32,
    /// Flow or pair strips left out with no water around.
    pub quiet: u32,
    /// Flow or pair strips dispatched by the sub-steps that ran.
    pub strips: u32,
    /// `max_depth` and `max_speed` of the last sub-step kept (a failed one's go back to them).
    pub good_depth: f32,
    pub good_speed: f32,
    pub pad: [u32; 38],
}

/// `struct StepConsts` of common.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct StepConsts {
    pub dt: f32,
    pub fric: f32,
    pub g_dt: f32,
    pub c: f32,
    pub vol_rate: f32,
    pub rain: f32,
    pub s: f32,
    /// Bed friction coefficient: `g·dt·n²` (Manning), `g·dt` (Manning with a roughness grid,
    /// times the face's `n²` in the shader) or `g·dt/C²` (Chézy); 0 for the linear law.
    pub fk: f32,
}

/// The constants of every possible sub-step count `n` (index) of a step of `dt` seconds,
/// computed with the same `f32` expressions as `Simulation::substep`; `rough`: the level has a
/// roughness grid in use.
pub(crate) fn step_table(p: &Params, dx: f32, dt: f32, rough: bool) -> Vec<StepConsts> {
    let rain_m_per_s = p.rain_mm_per_hour / 1000.0 / 3600.0;
    let mut table = vec![StepConsts::default(); MAX_SUBSTEPS as usize + 1];
    for (n, e) in table.iter_mut().enumerate().skip(1) {
        let sub = dt / n as f32;
        let g_dt = p.gravity * sub;
        let (fric, fk) = match p.friction {
            Friction::Linear { per_second } => ((1.0 - per_second).powf(sub), 0.0),
            Friction::Manning { .. } if rough => (1.0, g_dt),
            Friction::Manning { n } => (1.0, g_dt * n * n),
            Friction::Chezy { c } => (1.0, g_dt / (c * c)),
        };
        *e = StepConsts {
            dt: sub,
            fric,
            g_dt,
            c: sub / (dx * dx),
            vol_rate: dx * dx / sub,
            rain: rain_m_per_s * sub,
            s: sub / dx,
            fk,
        };
    }
    table
}

/// What the shaders are specialised for (the constants prepended to every pass).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Config {
    /// 0 pipes, 1 pipes with momentum advection, 2 shallow water.
    pub mode: u32,
    /// Cross-section rule (0 upwind, 1 face depth, 2 mean, 3 constant).
    pub section: u32,
    pub rain: bool,
    pub semi_lagrangian: bool,
    /// Bed friction law: 0 linear, 1 Manning, 2 Chézy.
    pub friction: u32,
    /// Manning's `n` per cell follows the terrain in the terrain buffer (a roughness grid).
    pub rough: bool,
    /// Flow-pass strips: threads per workgroup (columns, halo included) and rows per strip.
    pub tile: (u32, u32),
    /// The flow pass also advects and stores the face velocities (its fused variant).
    pub fused: bool,
    /// The grid makes enough strips for leaving dry ones out to pay (`gpu::quiet::pays`).
    pub dry: bool,
}

impl Config {
    pub fn new(p: &Params, rough: bool, tile: (u32, u32)) -> Self {
        let mode = match (p.solver, p.pipe_advection) {
            (SolverKind::Pipes, false) => 0,
            (SolverKind::Pipes, true) => 1,
            (SolverKind::Swe, _) => 2,
        };
        // The shallow-water edges use upwind sections (Simulation::substep).
        let cs = if p.solver == SolverKind::Swe {
            CrossSection::Upwind
        } else {
            p.cross_section
        };
        let section = match cs {
            CrossSection::Upwind => 0,
            CrossSection::FaceDepth => 1,
            CrossSection::Mean => 2,
            CrossSection::Constant => 3,
        };
        Self {
            mode,
            section,
            rain: p.rain_mm_per_hour > 0.0,
            semi_lagrangian: p.solver == SolverKind::Swe
                && p.advection == Advection::SemiLagrangian,
            friction: match p.friction {
                Friction::Linear { .. } => 0,
                Friction::Manning { .. } => 1,
                Friction::Chezy { .. } => 2,
            },
            rough: rough && matches!(p.friction, Friction::Manning { .. }),
            tile,
            fused: false,
            dry: false,
        }
    }

    /// Whether face velocities are kept (and advected, and their speed limits the step).
    pub fn advects(&self) -> bool {
        self.mode != 0
    }

    /// Whether the flow pass can do the advection and store passes' work (momentum-conserving
    /// advection; the caller leaves it to them in sub-steps with blockers or structures).
    pub fn fusable(&self) -> bool {
        self.advects() && !self.semi_lagrangian
    }

    /// Whether the fused flow pass and the pair pass may leave out strips with no water around
    /// (`gpu::quiet`): momentum-conserving advection without rain, which falls on every cell,
    /// on a grid where that pays.
    pub fn quiet(&self) -> bool {
        self.fusable() && !self.rain && self.dry
    }

    /// WGSL constants prepended to every pass.
    pub fn prelude(&self) -> String {
        format!(
            "const MODE: u32 = {}u;\nconst SECTION: u32 = {}u;\nconst RAIN: bool = {};\nconst SPEED: bool = {};\n\
             const EXTEND: bool = {};\nconst FRICTION: u32 = {}u;\nconst ROUGH: bool = {};\n\
             const TW: u32 = {}u;\nconst TH: u32 = {}u;\nconst FUSED: bool = {};\nconst QUIET: bool = {};\n",
            self.mode,
            self.section,
            self.rain,
            self.advects(),
            self.semi_lagrangian,
            self.friction,
            self.rough,
            self.tile.0,
            self.tile.1,
            self.fused,
            self.quiet()
        )
    }
}

/// Bytes of workgroup memory the flow pass needs for strips of `tw` threads (four
/// double-buffered rows: terrain, depth, limiting factors and accelerated left faces; a single
/// one for the fused variant's speeds; four atomics and two flags).
pub(crate) fn tile_bytes(tw: u32, _th: u32) -> u32 {
    4 * 9 * tw + 24
}

/// Every buffer of a GPU simulation.
pub(crate) struct Buffers {
    pub grid: wgpu::Buffer,
    pub aux: wgpu::Buffer,
    pub terrain: wgpu::Buffer,
    pub depth: wgpu::Buffer,
    pub qx: wgpu::Buffer,
    pub qy: wgpu::Buffer,
    pub carry: wgpu::Buffer,
    pub vel: wgpu::Buffer,
    pub adv: wgpu::Buffer,
    pub edges: wgpu::Buffer,
    pub ledger: wgpu::Buffer,
    pub patches: wgpu::Buffer,
    /// Per breach: whether it has started, and how far it has opened (bits of an `f32`).
    pub breaches: wgpu::Buffer,
    pub view: wgpu::Buffer,
    pub partials: wgpu::Buffer,
    pub rect: wgpu::Buffer,
}

/// Usage of the state grids: bound by the passes, by a renderer, copied for readback and
/// written for uploads.
pub(crate) const STATE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

/// A buffer holding `data` (at least 4 bytes, so empty lists still bind).
pub(crate) fn init(
    device: &wgpu::Device,
    label: &str,
    data: &[u8],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    if data.len() >= 16 && data.len().is_multiple_of(4) {
        return device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: data,
            usage,
        });
    }
    let mut padded = data.to_vec();
    padded.resize(data.len().max(16).next_multiple_of(4), 0);
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: &padded,
        usage,
    })
}

/// A zeroed buffer of `bytes` bytes (at least 16).
pub(crate) fn zeroed(
    device: &wgpu::Device,
    label: &str,
    bytes: u64,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(16).next_multiple_of(4),
        usage,
        mapped_at_creation: false,
    })
}

/// Two copies of `half` (the two halves of a ping-pong grid).
pub(crate) fn doubled(half: &[f32]) -> Vec<f32> {
    let mut v = Vec::with_capacity(half.len() * 2);
    v.extend_from_slice(half);
    v.extend_from_slice(half);
    v
}
