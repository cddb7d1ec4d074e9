//! Owner of the dry strips' stamps (`shaders/quiet.wgsl`): the fused flow pass and the pair
//! pass leave out a strip with no water in its region in either half of the state, as the CPU
//! solver leaves out dry ground (`sim::quiet`), and give the same water.
//!
//! Two stamp words per block of [`BLOCK`] cells follow the border faces in the `aux` buffer:
//! the tick (a flow or pair dispatch run) at which a strip last wrote anything but dry ground
//! over the block (or the forcing pass added water there), and the tick at which a strip last
//! wrote water there. Work the stamps do not see (an upload from the host, the floaters' push,
//! a step with blockers or structures, which run passes that stamp nothing) makes them stale,
//! and the next steps start over: tick and stamps back to 0 (`GpuSimulation::wake_quiet`), so
//! their first two dispatches run every strip.

use super::GpuError;
use super::sim::GpuSimulation;
use super::state::{CONTROL_BYTES, Config, ControlBlock, GridUniform, SLOT_PAIR, TABLE_BYTES};

/// The stamps' blocks, columns × rows (quiet.wgsl's `QB_W`, `QB_H`).
pub(crate) const BLOCK: (usize, usize) = (32, 8);

/// quiet.wgsl, for the passes that include it.
const SHADER: &str = include_str!("../../shaders/quiet.wgsl");

/// Its hooks where no strip is left out: empty, so a pass built without them is the pass as it
/// was before (the hooks' checks and workgroup flags are not in its text at all).
const STUB: &str = "fn quiet_clear() {}
fn quiet_leave_out(t: u32, threads: u32, x0: i32, x1: i32, y0: i32, y1: i32) -> bool { return false; }
fn quiet_ran(t: u32, threads: u32, x0: i32, x1: i32, y0: i32, y1: i32, water: bool) {}
fn quiet_stamp(cell: u32) {}
";

/// The hooks a pass of `config` includes: quiet.wgsl where dry strips may be left out (the
/// fused flow pass, the pair pass and the forcing pass of [`Config::quiet`]), else empty ones.
pub(crate) fn shader(config: &Config, fused: bool) -> &'static str {
    if config.quiet() && fused {
        SHADER
    } else {
        STUB
    }
}

/// Flow strips from which leaving dry strips out pays on a hardware GPU. One H200, the runtime's
/// default physics on the bench scene (`gpu_bench 2048 4096 8192 --physics default`): at 2048²
/// (1292 strips, about one wave of the GPU) a step took as long as its longest strip, and the
/// build that checks and stamps strips ran 0.1589 ms a step against 0.1463 without it, though a
/// quarter of the strips were left out; at 4096² (5016 strips) 0.2925 against 0.4226.
pub const PAYS_FROM: u32 = 2048;

/// Whether leaving dry strips out pays for an `nx × ny` grid in flow strips of `tile`: on a
/// hardware GPU from [`PAYS_FROM`] strips. Not on a software adapter: there the suite's GPU
/// tests (small grids, lavapipe) ran 700.34 s with the checks in every pass, 567.17 s without.
pub(crate) fn pays(device: &wgpu::Device, tile: (u32, u32), nx: usize, ny: usize) -> bool {
    device.adapter_info().device_type != wgpu::DeviceType::Cpu
        && super::flow::groups(nx, ny, tile)[..2]
            .iter()
            .product::<u32>()
            >= PAYS_FROM
}

/// When flow and pair strips with no water around are left out
/// ([`GpuSimulation::set_dry_skip`]); the water is the same either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DrySkip {
    /// Where it pays: on a hardware GPU, on grids of at least [`PAYS_FROM`] flow strips (4096²
    /// and up).
    #[default]
    Auto,
    /// On any grid and adapter (the tests' knob on lavapipe).
    Always,
    /// Never: every strip runs (`--no-dry-skip`).
    Never,
}

/// Stamp blocks along x of an `nx`-wide grid.
pub(crate) fn columns(nx: usize) -> u32 {
    nx.div_ceil(BLOCK.0) as u32
}

/// Stamp words of `grid` (two a block).
pub(crate) fn words(grid: &GridUniform) -> usize {
    2 * grid.quiet_cols as usize * (grid.ny as usize).div_ceil(BLOCK.1)
}

/// Whether dry strips are left out, and whether the stamps still say where water is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Quiet {
    /// Dry strips are left out ([`GpuSimulation::set_dry_skip`]).
    pub on: bool,
    /// Something the stamps do not see has changed the state since they were last right.
    pub stale: bool,
}

impl Default for Quiet {
    fn default() -> Self {
        Self {
            on: true,
            stale: false,
        }
    }
}

impl GpuSimulation {
    /// Sets when flow and pair strips with no water in their region are left out (default
    /// [`DrySkip::Auto`]). The water is the same either way: a strip is left out only where
    /// running it would write what its output half already holds. Where it applies:
    /// momentum-conserving advection (the default physics and the shallow-water mode) without
    /// rain, in steps without blockers or structures. [`DrySkip::Always`] rebuilds the passes
    /// where `Auto` built them without the checks.
    pub fn set_dry_skip(&mut self, skip: DrySkip) -> Result<(), GpuError> {
        let dry = match skip {
            DrySkip::Auto => pays(&self.ctx.device, self.ctx.tile, self.nx, self.ny),
            DrySkip::Always => true,
            DrySkip::Never => self.passes.config.dry,
        };
        if dry != self.passes.config.dry {
            let config = Config {
                dry,
                ..self.passes.config
            };
            self.rebuild_passes(config)?;
            self.rebuild_bed()?;
        }
        self.quiet.on = skip != DrySkip::Never;
        self.quiet.stale = true;
        self.grid.quiet_on = u32::from(self.quiet.on);
        self.ctx
            .queue
            .write_buffer(&self.bufs.grid, 0, bytemuck::bytes_of(&self.grid));
        self.check_device()
    }

    /// Whether strips with no water around may be left out now: [`Self::set_dry_skip`] allows
    /// it and the level's physics and grid have the checks.
    pub fn dry_skip(&self) -> bool {
        self.quiet.on && self.passes.config.quiet()
    }

    /// Puts the pair pass's workgroups in the grid uniform, where the control pass counts the
    /// strips that ran (after the passes were compiled).
    pub(crate) fn share_pair_groups(&mut self) {
        self.grid.groups[SLOT_PAIR] = self.passes.pair.as_ref().map_or([0; 4], |p| p.groups);
        self.ctx
            .queue
            .write_buffer(&self.bufs.grid, 0, bytemuck::bytes_of(&self.grid));
    }

    /// Marks the stamps stale: the state changed where no pass stamped it.
    pub(crate) fn stir(&mut self) {
        self.quiet.stale = true;
    }

    /// Takes whether the stamps are stale: the steps about to be recorded then reset them first
    /// ([`Self::wake_quiet`]).
    pub(crate) fn take_stale(&mut self) -> bool {
        std::mem::take(&mut self.quiet.stale)
    }

    /// Records the stamps' reset into `encoder`, ahead of the steps in it: the tick and every
    /// stamp to 0. In the steps' own command buffer, so it runs after every upload before them
    /// and before every step after them.
    pub(crate) fn wake_quiet(&self, encoder: &mut wgpu::CommandEncoder) {
        let tick = std::mem::offset_of!(ControlBlock, tick) as u64;
        encoder.clear_buffer(&self.bufs.aux, tick, Some(4));
        let words = words(&self.grid) as u64;
        if words > 0 {
            let at = CONTROL_BYTES + TABLE_BYTES + 4 * u64::from(self.grid.perimeter);
            encoder.clear_buffer(&self.bufs.aux, at, Some(4 * words));
        }
    }
}
