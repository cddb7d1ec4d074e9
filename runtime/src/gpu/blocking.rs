//! Owner of the blocked pass (`shaders/blocking.wgsl`) and of the upper flow
//! (`shaders/upper.wgsl`): two-layer blocking bodies in the GPU solver (pipes and shallow
//! water), as [`crate::sim::blocking`] does it on the CPU. Both work in the tiles of
//! `shaders/tiles.wgsl`.
//!
//! With no blockers nothing of this runs and the step records exactly the plain passes. With
//! blockers, each sub-step records five small dispatches over the tiles around the covered
//! cells (one 16 × 16 workgroup per 12 × 12 tile): `save` before the flow pass; `faces`, the
//! upper flow's `flow` and `settle`, and `surface` after it (see the shaders for what each
//! does).

use crate::sim::blocking::{BLOCKED_COVER, BlockerError, Blockers, film, partial_surface};

use super::GpuError;
use super::kernel::{Bind, BoundGroup, Kernel};
use super::readback::read_f32;
use super::sim::GpuSimulation;
use super::state::{Buffers, Config};
use super::tiles::{FLAG_INIT, FLAG_SETTLED, H_ALPHA, Tiles, Write};

const SOURCE: &str = concat!(
    include_str!("../../shaders/blockers.wgsl"),
    include_str!("../../shaders/tiles.wgsl"),
    include_str!("../../shaders/blocking.wgsl")
);

const UPPER_SOURCE: &str = concat!(
    include_str!("../../shaders/blockers.wgsl"),
    include_str!("../../shaders/tiles.wgsl"),
    include_str!("../../shaders/upper.wgsl")
);

/// The blocked pass and the upper flow, compiled for one configuration.
pub(crate) struct BlockingPass {
    config: Config,
    kernel: Kernel,
    upper: Kernel,
    group: BoundGroup,
    upper_group: BoundGroup,
    groups: [u32; 3],
}

impl BlockingPass {
    fn new(device: &wgpu::Device, config: &Config) -> Result<Self, GpuError> {
        let rw = Bind::ReadWrite;
        let binds = [
            Bind::Uniform,
            rw,
            Bind::Read,
            rw,
            rw,
            rw,
            rw,
            rw,
            Bind::Read,
        ];
        let kernel = Kernel::new(
            device,
            "blocking",
            SOURCE,
            config,
            &binds,
            &["save", "faces", "surface"],
        )?;
        let upper = Kernel::new(
            device,
            "upper",
            UPPER_SOURCE,
            config,
            &[Bind::Uniform, rw, Bind::Read, rw, rw],
            &["flow", "settle"],
        )?;
        Ok(Self {
            config: *config,
            kernel,
            upper,
            group: BoundGroup::default(),
            upper_group: BoundGroup::default(),
            groups: [0, 1, 1],
        })
    }

    /// Binds the pass to the solver's buffers and `blk` with `capacity` slots.
    fn bind(&mut self, device: &wgpu::Device, b: &Buffers, blk: &wgpu::Buffer, capacity: usize) {
        let bufs = [
            &b.grid, &b.aux, &b.terrain, &b.depth, &b.qx, &b.qy, &b.carry, blk, &b.adv,
        ];
        self.group.bind(&self.kernel, device, "blocking", &bufs);
        let bufs = [&b.grid, &b.aux, &b.terrain, &b.depth, blk];
        self.upper_group.bind(&self.upper, device, "upper", &bufs);
        let cap = capacity.max(1) as u32;
        self.groups = [cap.min(65535), cap.div_ceil(65535), 1];
    }

    fn encode(&self, pass: &mut wgpu::ComputePass<'_>, entry: usize) {
        if let Some(group) = self.group.group() {
            pass.set_pipeline(&self.kernel.pipelines[entry]);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(self.groups[0], self.groups[1], self.groups[2]);
        }
    }

    fn encode_upper(&self, pass: &mut wgpu::ComputePass<'_>, entry: usize) {
        if let Some(group) = self.upper_group.group() {
            pass.set_pipeline(&self.upper.pipelines[entry]);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(self.groups[0], self.groups[1], self.groups[2]);
        }
    }

    /// Records the part before the flow pass (saves carries, starts new surfaces).
    pub fn encode_before(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.encode(pass, 0);
    }

    /// Records the blocked faces and depths, right after the flow pass (before the
    /// structures, which cut those faces back).
    pub fn encode_faces(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.encode(pass, 1);
    }

    /// Records the upper flow and the effective surface, once the sub-step's water is settled
    /// (after the structures and the edges, as the CPU's `flow_upper` and `update_surface`).
    pub fn encode_upper_surface(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.encode_upper(pass, 0);
        self.encode_upper(pass, 1);
        self.encode(pass, 2);
    }
}

/// Dispatches a blocked sub-step adds.
pub(crate) const DISPATCHES: u32 = 5;

/// The blockers of a GPU simulation: tile bookkeeping, the `blk` buffer and the compiled pass.
pub(crate) struct GpuBlockers {
    tiles: Tiles,
    buffer: wgpu::Buffer,
    pass: Option<BlockingPass>,
    active: bool,
    /// The words of one update, uploaded at once and copied to their places from here.
    upload: Option<wgpu::Buffer>,
}

impl GpuBlockers {
    /// No blockers yet on an `nx × ny` grid: a buffer with an empty header and map.
    pub fn idle(device: &wgpu::Device, nx: usize, ny: usize) -> Self {
        let tiles = Tiles::new(nx, ny);
        let buffer = blk_buffer(device, tiles.words(0));
        Self {
            tiles,
            buffer,
            pass: None,
            active: false,
            upload: None,
        }
    }

    /// The compiled pass, while blockers are set.
    pub fn pass(&self) -> Option<&BlockingPass> {
        self.pass.as_ref().filter(|_| self.active)
    }
}

impl GpuBlockers {
    /// Writes `writes` into the `blk` buffer, in order. Many writes (a moving body changes
    /// every tile it touches, each step) go up as one upload copied to their places by one
    /// submission: a queue write each cost about as much as the rest of the update.
    fn write(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, writes: Vec<Write>) {
        if writes.len() <= 2 {
            for w in &writes {
                queue.write_buffer(
                    &self.buffer,
                    4 * w.word as u64,
                    bytemuck::cast_slice(&w.data),
                );
            }
            return;
        }
        // Runs of words that follow one another go as one copy.
        let mut runs: Vec<(usize, usize, usize)> = Vec::new(); // (from, to word, length)
        let mut total = 0;
        for w in &writes {
            match runs.last_mut() {
                Some((_, to, len)) if *to + *len == w.word => *len += w.data.len(),
                _ => runs.push((total, w.word, w.data.len())),
            }
            total += w.data.len();
        }
        let size = 4 * total as u64;
        if self.upload.as_ref().is_none_or(|u| u.size() < size) {
            self.upload = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("blocker upload"),
                size: size.next_power_of_two().max(4096),
                usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        let upload = self.upload.as_ref().expect("made just above");
        // The words go straight into the queue's staging memory, not through a copy of them
        // (`None`: wgpu refused the write and reported why to the device's error handler, as
        // `write_buffer` does).
        let Some(mut view) =
            wgpu::BufferSize::new(size).and_then(|size| queue.write_buffer_with(upload, 0, size))
        else {
            return;
        };
        let mut at = 0;
        for w in &writes {
            let bytes: &[u8] = bytemuck::cast_slice(&w.data);
            view.slice(at..at + bytes.len()).copy_from_slice(bytes);
            at += bytes.len();
        }
        drop(view);
        let mut encoder = device.create_command_encoder(&Default::default());
        for (from, to, len) in runs {
            encoder.copy_buffer_to_buffer(
                upload,
                4 * from as u64,
                &self.buffer,
                4 * to as u64,
                4 * len as u64,
            );
        }
        queue.submit([encoder.finish()]);
    }
}

fn blk_buffer(device: &wgpu::Device, words: usize) -> wgpu::Buffer {
    use wgpu::BufferUsages as U;
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("blockers"),
        size: (4 * words as u64).max(16),
        usage: U::STORAGE | U::COPY_DST | U::COPY_SRC,
        mapped_at_creation: false,
    })
}

impl GpuSimulation {
    /// Sets the blocking bodies for the next steps, as `Simulation::set_blockers` does on the
    /// CPU (Kellomäki 2014 §3, see [`crate::sim::blocking`]): same checks and errors, same
    /// physics. Empty blockers switch blocking off, and the solver records exactly its plain
    /// passes. Uploads only what changed since the last call: the columns of the 12 × 12 tiles
    /// whose columns changed (4 KiB each) and a few words per tile that comes or goes.
    pub fn set_blockers(&mut self, blockers: &Blockers) -> Result<(), BlockerError> {
        blockers.check(self.nx, self.ny)?;
        if blockers.is_empty() {
            self.clear_blockers();
            return Ok(());
        }
        let device = self.ctx.device.clone();
        let b = self.blockers.get_or_insert_with(|| {
            let tiles = Tiles::new(self.nx, self.ny);
            let buffer = blk_buffer(&device, tiles.words(0));
            GpuBlockers {
                tiles,
                buffer,
                pass: None,
                active: false,
                upload: None,
            }
        });
        let before = b.tiles.capacity();
        let writes = b.tiles.update(blockers);
        let queue = &self.ctx.queue;
        if b.tiles.capacity() > before {
            // Grow (doubling) and copy the old slots, whose surfaces must survive.
            let capacity = b.tiles.capacity().max(2 * before).max(16);
            let buffer = blk_buffer(&device, b.tiles.words(capacity));
            let mut encoder = device.create_command_encoder(&Default::default());
            let old = b.tiles.words(before) as u64 * 4;
            encoder.copy_buffer_to_buffer(&b.buffer, 0, &buffer, 0, old.min(b.buffer.size()));
            queue.submit([encoder.finish()]);
            b.buffer = buffer;
            b.tiles.reserve(capacity);
        }
        let header = b.tiles.header(b.tiles.capacity());
        b.write(
            &device,
            queue,
            std::iter::once(header).chain(writes).collect(),
        );
        b.active = true;
        Ok(())
    }

    /// Removes all blocking bodies: steps record the plain passes only, as before any blockers.
    pub fn clear_blockers(&mut self) {
        if let Some(b) = self.blockers.as_mut()
            && b.active
        {
            let empty = Blockers::new(self.nx, self.ny);
            for w in b.tiles.update(&empty) {
                self.ctx.queue.write_buffer(
                    &b.buffer,
                    4 * w.word as u64,
                    bytemuck::cast_slice(&w.data),
                );
            }
            b.active = false;
        }
    }

    /// The blocker buffer, for a renderer that draws the effective surface (what buoyancy uses:
    /// no dents where bodies hold the water down) with [`super::BLOCKERS_WGSL`]'s
    /// `effective_surface`. It may be replaced when blockers are set: compare it each frame.
    /// Without blockers its header is empty and `effective_surface` is terrain + depth.
    pub fn blocker_view(&self) -> &wgpu::Buffer {
        let b = self.blockers.as_ref();
        &b.expect("made with the simulation").buffer
    }

    /// The `blk` buffer while blockers are set (for the gather pass).
    pub(crate) fn blocker_buffer(&self) -> Option<&wgpu::Buffer> {
        self.blockers
            .as_ref()
            .filter(|b| b.active)
            .map(|b| &b.buffer)
    }

    /// Whether blocking bodies are set.
    pub fn has_blockers(&self) -> bool {
        self.blockers.as_ref().is_some_and(|b| b.active)
    }

    /// Prepares the blocked pass for the next steps (compiled and bound on demand); `false` for
    /// the plain solver. Marks the last upload's new surfaces as started.
    pub(crate) fn prepare_blocked(&mut self) -> Result<bool, GpuError> {
        let config = self.passes.config;
        let Some(b) = self.blockers.as_mut().filter(|b| b.active) else {
            return Ok(false);
        };
        if b.pass.as_ref().is_none_or(|p| p.config != config) {
            b.pass = Some(BlockingPass::new(&self.ctx.device, &config)?);
        }
        let pass = b.pass.as_mut().expect("compiled just above");
        // Bound for every batch of steps (a group made again only where the solver replaced a
        // buffer).
        pass.bind(&self.ctx.device, &self.bufs, &b.buffer, b.tiles.capacity());
        b.tiles.stepped();
        Ok(true)
    }

    /// The effective surface per cell, row-major (metres), waiting for the recorded steps:
    /// terrain + depth, except under blocking bodies, where it estimates the surface the water
    /// would have without the body, and beside a body in a partly covered cell (as
    /// `Simulation::effective_surface`; buoyancy uses it).
    pub fn effective_surface(&self) -> Result<Vec<f32>, GpuError> {
        self.surfaces(false)
    }

    /// The surface to draw per cell, row-major (metres), waiting for the recorded steps: the
    /// effective surface, except over a body raised off the terrain that sticks out of the
    /// water around it, where it is the top of the water standing on it (as
    /// `Simulation::drawn_surface`; the water renderer draws it).
    pub fn drawn_surface(&self) -> Result<Vec<f32>, GpuError> {
        self.surfaces(true)
    }

    fn surfaces(&self, drawn: bool) -> Result<Vec<f32>, GpuError> {
        let depth = self.read_depth()?;
        let terrain = read_f32(
            &self.ctx.device,
            &self.ctx.queue,
            &self.bufs.terrain,
            0,
            self.nx * self.ny,
        )?;
        let mut out: Vec<f32> = terrain.iter().zip(&depth).map(|(b, d)| b + d).collect();
        if let Some(b) = self.blockers.as_ref().filter(|b| b.active) {
            let words = b.tiles.words(b.tiles.capacity());
            let blk = read_f32(&self.ctx.device, &self.ctx.queue, &b.buffer, 0, words)?;
            // The slots hold the latent water before the next sub-step's release.
            let keep = 1.0 - blk[H_ALPHA];
            for (k, column, latent) in b.tiles.cell_words() {
                let c = blk[column];
                if c > 0.0 && c < BLOCKED_COVER {
                    let zb = blk[column + 1].max(terrain[k]);
                    let wet = (depth[k] - blk[latent] * keep).max(0.0);
                    out[k] = partial_surface(c, zb, blk[column + 2].max(zb), terrain[k], wet);
                }
            }
            for (k, column, w) in b.tiles.surface_words(self.parity()? as usize) {
                let flags = blk[column + 3].to_bits();
                if flags & FLAG_INIT == 0 {
                    out[k] = blk[w];
                } else if flags & FLAG_SETTLED != 0 {
                    // Not yet stepped: its surface starts as the save pass will start it.
                    let zb = blk[column + 1].max(terrain[k]);
                    let zt = blk[column + 2].max(zb);
                    out[k] = partial_surface(blk[column].min(1.0), zb, zt, terrain[k], depth[k]);
                }
            }
            if drawn {
                for (k, column, up) in b.tiles.upper_words(self.parity()? as usize) {
                    let zb = blk[column + 1].max(terrain[k]);
                    let zt = blk[column + 2].max(zb);
                    let fresh = blk[column + 3].to_bits() & FLAG_INIT != 0;
                    if !fresh && blk[up] > 0.0 && film(zb - terrain[k], out[k], zt) {
                        out[k] = zt + blk[up];
                    }
                }
            }
        }
        Ok(out)
    }
}
