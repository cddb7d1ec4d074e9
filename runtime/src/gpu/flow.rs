//! Owner of the flow pass (`shaders/flow.wgsl`): the fused accelerate-limit-depth step.

use super::GpuError;
use super::kernel::{Bind, Kernel, dispatch};
use super::state::{Buffers, Config, GridUniform, SLOT_FLOW, tile_bytes};

const SOURCE: &str = concat!(
    "const LATE_SUM: bool = false;\n",
    include_str!("../../shaders/momentum.wgsl"),
    include_str!("../../shaders/flow.wgsl")
);

/// The variants that keep no maps: `fold_depth` and `fold_flow` do nothing.
const NO_MAPS: &str = "const MAPS: bool = false;
fn fold_depth(c: u32, d: f32) -> bool { return false; }
fn fold_flow(c: u32, d: f32, left: f32, right: f32, top: f32, bottom: f32, arrive: f32) {}
";

/// The variant that folds the maps of the run in (`fold_atomic.wgsl`: the maps pass's fold
/// written with atomics, so no thread waits on a map), bound after the nine others.
const MAPS: &str = concat!(
    "const MAPS: bool = true;
@group(0) @binding(9) var<storage, read_write> max_depth: array<atomic<u32>>;
@group(0) @binding(10) var<storage, read_write> max_speed: array<atomic<u32>>;
@group(0) @binding(11) var<storage, read_write> arrival: array<atomic<u32>>;
@group(0) @binding(12) var<storage, read_write> hazard: array<atomic<u32>>;
",
    include_str!("../../shaders/fold_atomic.wgsl")
);

/// Storage buffers the variant that folds the maps in binds: the flow pass's eight and the four
/// maps. A device granting fewer keeps the maps pass.
pub(crate) const FOLD_STORAGE_BUFFERS: u32 = 12;

/// Strips tried in order of preference (threads per workgroup, rows per strip); the first
/// that fits the device's workgroup memory wins.
const TILES: [(u32, u32); 2] = [(128, 27), (64, 27)];

/// Environment variable overriding the flow strips, `THREADSxROWS` (a benchmark tuning knob).
pub const TILE_ENV: &str = "SPILLWAY_GPU_TILE";

/// The strips asked for in `SPILLWAY_GPU_TILE`, if well-formed.
fn tile_from_env() -> Option<(u32, u32)> {
    strips_in_env(TILE_ENV, 8)
}

/// The strips `THREADSxROWS` in the environment variable `name`, if well-formed: at least
/// `fewest` and at most 256 threads, 1 to 1024 rows.
pub(crate) fn strips_in_env(name: &str, fewest: u32) -> Option<(u32, u32)> {
    let v = std::env::var(name).ok()?;
    let (w, h) = v.split_once('x')?;
    let (w, h): (u32, u32) = (w.trim().parse().ok()?, h.trim().parse().ok()?);
    ((fewest..=256).contains(&w) && matches!(h, 1..=1024)).then_some((w, h))
}

/// The largest preferred tile whose workgroup memory fits in `limit` bytes.
pub(crate) fn pick_tile(limit: u32) -> Option<(u32, u32)> {
    tile_from_env()
        .filter(|&(w, h)| tile_bytes(w, h) <= limit)
        .or_else(|| TILES.into_iter().find(|&(w, h)| tile_bytes(w, h) <= limit))
}

/// Strip heights tried for a grid, tallest first: see [`strips_for`].
const ROWS: [u32; 5] = [27, 14, 10, 7, 5];

/// The strips for an `nx × ny` grid on a device whose preferred strips are `tile`: the
/// tallest height in [`ROWS`] that still gives at least [`FUSE_FROM`] strips, else the
/// shortest. A small grid cut in few tall strips leaves the GPU idle while each strip marches
/// down its rows; shorter strips do more halo work but start more at once (one H100: the
/// default physics' step at 1024² 0.0769 ms in 128×27 strips, 0.0589 in 128×7; 512² 0.0459
/// against 0.0261 in 128×5). `SPILLWAY_GPU_TILE` overrides it.
pub(crate) fn strips_for(tile: (u32, u32), nx: usize, ny: usize) -> (u32, u32) {
    if tile_from_env().is_some() {
        return tile;
    }
    let count = |rows: u32| groups(nx, ny, (tile.0, rows))[..2].iter().product::<u32>();
    let rows = ROWS
        .into_iter()
        .find(|&rows| rows <= tile.1 && count(rows) >= FUSE_FROM)
        .unwrap_or(ROWS[ROWS.len() - 1]);
    (tile.0, rows)
}

/// The strips for an `nx × ny` grid on a software adapter (lavapipe), which runs a workgroup's
/// threads as a few vector lanes each and marches every row of a strip whether the grid has it
/// or not: the width in [`TILES`] (no wider than `tile`) and any height up to `tile`'s that
/// march the fewest lanes over the grid (a strip of `r` rows marches `r + 4`), the widest and
/// tallest of equals. On a large grid that is `tile`; a channel two cells wide ran 31 rows a
/// strip for its 2, and a 48-cell-wide basin 128 threads a strip for its 52 columns.
pub(crate) fn software_strips(tile: (u32, u32), nx: usize, ny: usize) -> (u32, u32) {
    if tile_from_env().is_some() {
        return tile;
    }
    let (nx, ny) = (nx.max(1) as u32, ny.max(1) as u32);
    let width = TILES
        .into_iter()
        .map(|t| t.0)
        .filter(|&w| w <= tile.0)
        .min_by_key(|&w| (nx.div_ceil(w - 4) * w, u32::MAX - w))
        .unwrap_or(tile.0);
    let rows = (1..=tile.1.max(1))
        .min_by_key(|&rows| (ny.div_ceil(rows) * (rows + 4), u32::MAX - rows))
        .unwrap_or(tile.1);
    (width, rows)
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

/// When the flow pass also advects and stores the face velocities (momentum-conserving
/// advection, no blockers or structures in the sub-step), replacing three passes with one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fusion {
    /// Where the grid has at least [`FUSE_FROM`] flow strips: the fused pass's rows are longer,
    /// so with fewer strips it leaves the GPU idle. On a software adapter, always.
    #[default]
    Auto,
    /// Whenever the sub-step allows it.
    Always,
    /// Never: three passes, as before fusion.
    Never,
}

/// Flow strips from which [`Fusion::Auto`] fuses. On an H100, 1024² makes 342 strips: 8.410
/// Gcell/s fused against 13.195 in three passes; 2048² makes 1292: 24.698 against 22.296.
pub const FUSE_FROM: u32 = 1024;

/// The flow pass: its plain variant, and where the advection is momentum-conserving, the fused
/// one that also does the advection and store passes' work, and once the maps of the run are
/// kept, the fused one that also folds them in.
pub(crate) struct FlowPass {
    plain: (Kernel, wgpu::BindGroup),
    fused: Option<(Kernel, wgpu::BindGroup)>,
    folding: Option<Folding>,
    /// Flow strips from which [`Fusion::Auto`] fuses: [`FUSE_FROM`], or on a software adapter
    /// none at all. Lavapipe runs the separate advection and store passes in 16 × 16 lattices
    /// of mostly idle lanes on a narrow grid, and gains nothing from more strips at once.
    fuse_from: u32,
}

/// The fused variant that folds the maps of the run in, and the maps it folds into.
struct Folding {
    kernel: Kernel,
    group: wgpu::BindGroup,
    maps: [wgpu::Buffer; 4],
}

/// The flow pass's bindings: the state's, and with `maps` the four maps of the run.
fn binds(maps: bool) -> Vec<Bind> {
    let rw = Bind::ReadWrite;
    let mut binds = vec![
        Bind::Uniform,
        rw,
        Bind::Read,
        rw,
        rw,
        rw,
        rw,
        Bind::Read,
        rw,
    ];
    if maps {
        binds.extend([rw; 4]);
    }
    binds
}

impl FlowPass {
    /// Compiles the pass for `config` and binds it to `bufs`.
    pub fn new(device: &wgpu::Device, config: &Config, bufs: &Buffers) -> Result<Self, GpuError> {
        let compile = |config: &Config| -> Result<(Kernel, wgpu::BindGroup), GpuError> {
            let quiet = super::quiet::shader(config, config.fused);
            let source = format!("{NO_MAPS}{quiet}{SOURCE}");
            let kernel = Kernel::new(device, "flow", &source, config, &binds(false), &["main"])?;
            let group = Self::bind(&kernel, device, bufs, None);
            Ok((kernel, group))
        };
        let fused = Config {
            fused: true,
            ..*config
        };
        let software = device.adapter_info().device_type == wgpu::DeviceType::Cpu;
        Ok(Self {
            plain: compile(config)?,
            fused: config.fusable().then(|| compile(&fused)).transpose()?,
            folding: None,
            fuse_from: if software { 0 } else { FUSE_FROM },
        })
    }

    fn bind(
        kernel: &Kernel,
        device: &wgpu::Device,
        b: &Buffers,
        maps: Option<&[wgpu::Buffer; 4]>,
    ) -> wgpu::BindGroup {
        let mut buffers = vec![
            &b.grid, &b.aux, &b.terrain, &b.depth, &b.qx, &b.qy, &b.carry, &b.adv, &b.vel,
        ];
        buffers.extend(maps.into_iter().flatten());
        kernel.bind(device, "flow", &buffers)
    }

    /// Makes the fused variant fold the maps of the run into `maps` (max depth, max speed,
    /// arrival, hazard) at each step's last sub-step, where there is a fused variant and the
    /// device grants [`FOLD_STORAGE_BUFFERS`] storage bindings; else the maps pass keeps doing
    /// it. Whether it does is [`Self::folds`].
    pub fn fold_into(
        &mut self,
        device: &wgpu::Device,
        config: &Config,
        bufs: &Buffers,
        maps: &[wgpu::Buffer; 4],
    ) -> Result<(), GpuError> {
        self.folding = None;
        if !config.fusable()
            || device.limits().max_storage_buffers_per_shader_stage < FOLD_STORAGE_BUFFERS
        {
            return Ok(());
        }
        let config = Config {
            fused: true,
            ..*config
        };
        let quiet = super::quiet::shader(&config, true);
        let source = format!("{MAPS}{quiet}{SOURCE}");
        let kernel = Kernel::new(device, "flow", &source, &config, &binds(true), &["main"])?;
        let group = Self::bind(&kernel, device, bufs, Some(maps));
        self.folding = Some(Folding {
            kernel,
            group,
            maps: maps.clone(),
        });
        Ok(())
    }

    /// Whether a fused sub-step folds the maps of the run in: wherever there is the variant
    /// ([`Self::fold_into`]). Since the fold waits on none of its atomics, it costs less than
    /// the maps pass at every size measured: on an H100 with the maps of the editor bench's
    /// valley (`gpu_bench N --physics valley --headroom 1 --maps --fusion always|auto`, ms per
    /// step, the fold against the maps pass), 512² 0.0398 against 0.0455 (there `Auto` does not
    /// fuse), 1024² 0.0687 against 0.0729, 2048² 0.1813 and 0.1816 against 0.1900.
    pub fn folds(&self) -> bool {
        self.folding.is_some()
    }

    /// Rebinds after buffers were replaced.
    pub fn rebind(&mut self, device: &wgpu::Device, bufs: &Buffers) {
        for (kernel, group) in std::iter::once(&mut self.plain).chain(self.fused.as_mut()) {
            *group = Self::bind(kernel, device, bufs, None);
        }
        if let Some(f) = self.folding.as_mut() {
            f.group = Self::bind(&f.kernel, device, bufs, Some(&f.maps));
        }
    }

    /// Whether a sub-step of `grid` with neither blockers nor structures runs the fused
    /// variant under `fusion` (then [`Self::encode`] with `fused` replaces the advection, flow
    /// and store passes).
    pub fn fuses(&self, grid: &GridUniform, fusion: Fusion) -> bool {
        let strips = grid.groups[SLOT_FLOW][0] * grid.groups[SLOT_FLOW][1];
        self.fused.is_some()
            && match fusion {
                Fusion::Auto => strips >= self.fuse_from,
                Fusion::Always => true,
                Fusion::Never => false,
            }
    }

    /// Records the pass (runs only while a sub-step is open); `fused` picks the fused variant,
    /// where there is one, and with `fold` the one that folds the maps in (where
    /// [`Self::folds`]).
    pub fn encode(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        grid: &GridUniform,
        fused: bool,
        fold: bool,
    ) {
        let (pipeline, group) = match (&self.fused, &self.folding) {
            (Some(_), Some(f)) if fused && fold => (&f.kernel.pipelines[0], &f.group),
            (Some((k, g)), _) if fused => (&k.pipelines[0], g),
            _ => (&self.plain.0.pipelines[0], &self.plain.1),
        };
        dispatch(pass, pipeline, group, grid.groups[SLOT_FLOW]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_grids_get_short_strips_and_large_ones_keep_the_tall_ones() {
        if tile_from_env().is_some() {
            return; // A benchmark override is in force.
        }
        let strips = |n: usize| strips_for((128, 27), n, n);
        assert_eq!(strips(8192), (128, 27));
        assert_eq!(strips(2048), (128, 27));
        // 1024² in 27-row strips is 342 strips; in 7 rows, 1323.
        assert_eq!(strips(1024), (128, 7));
        assert_eq!(strips(512), (128, 5));
        assert_eq!(strips(16), (128, 5));
        // Never taller than the device's preferred strips, and each pick reaches FUSE_FROM
        // unless it is the shortest.
        for n in [64, 300, 1000, 1500, 3000, 5000] {
            for tile in [(128, 27), (64, 27), (128, 10)] {
                let (w, h) = strips_for(tile, n, n / 2 + 1);
                assert_eq!(w, tile.0);
                assert!(h <= tile.1.max(5));
                let count: u32 = groups(n, n / 2 + 1, (w, h))[..2].iter().product();
                assert!(
                    count >= FUSE_FROM || h == 5,
                    "{n}: {h} rows, {count} strips"
                );
            }
        }
    }

    #[test]
    fn a_software_adapter_marches_no_more_lanes_than_the_grid_needs() {
        if tile_from_env().is_some() {
            return; // A benchmark override is in force.
        }
        // Large grids keep the preferred strips.
        assert_eq!(software_strips((128, 27), 1024, 1024), (128, 27));
        assert_eq!(software_strips((128, 27), 800, 270), (128, 27));
        // A channel two cells wide: 2 rows a strip (6 marched), not 27 (31).
        assert_eq!(software_strips((128, 27), 800, 2), (128, 2));
        // A 48 × 36 basin: 64 threads for its 52 columns, 18 rows a strip (2 × 22 marched
        // against 2 × 31).
        assert_eq!(software_strips((128, 27), 48, 36), (64, 18));
        // Never wider or taller than the device's own strips.
        assert_eq!(software_strips((64, 27), 1000, 1000), (64, 25));
        assert_eq!(software_strips((128, 10), 48, 36), (64, 9));
    }
}
