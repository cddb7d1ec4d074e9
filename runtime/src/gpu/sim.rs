//! `GpuSimulation`: construction from a `Level` (mirroring `Simulation::new`), and the state
//! buffers a renderer can bind.

use crate::level::{Boundary, Level, Params, SolverKind};
use crate::sim::gates::Gates;
use crate::sim::{MAX_SUBSTEPS, SimError};

use super::GpuError;
use super::device::{self, Context};
use super::edges::{EDGE_GROUP, EdgeCell, conditions, perimeter_cell};
use super::forcing::patch_table;
use super::kernel::captured;
use super::pair::Pairing;
use super::passes::{Passes, Plan};
use super::readback::{Report, StatsReadback};
use super::state::{
    Buffers, CONTROL_BYTES, Config, ControlBlock, GridUniform, SLOT_ADVECT, SLOT_EDGES, SLOT_FLOW,
    SLOT_FORCING, SLOT_STORE, STATE, doubled, init, step_table, zeroed,
};
use super::stats::{Partial, partial_count};
use super::{advect::LATTICE, flow, flow::Fusion};

/// A water simulation on the GPU, with the same physics as the CPU [`crate::sim::Simulation`].
///
/// Steps are recorded many to a submission and never wait for the GPU: the number of CFL
/// sub-steps of each step is decided on the GPU from the last sub-step's max depth and speed,
/// exactly as the CPU decides it, among up to `k_max` recorded sub-steps (the CPU picks `k_max`
/// from the most recent asynchronously read-back figures plus a headroom). A step that needs
/// more than `k_max` runs `k_max` sub-steps each as short as the CFL limit asks, so it stays
/// stable but simulates less than `dt`; it is counted in [`GpuStatus::clamped_steps`](super::GpuStatus::clamped_steps), the next
/// read-back raises `k_max`, and [`GpuSimulation::catch_up`] runs the time that was lost.
pub struct GpuSimulation {
    pub(crate) ctx: Context,
    pub(crate) nx: usize,
    pub(crate) ny: usize,
    pub(crate) dx: f32,
    pub(crate) params: Params,
    pub(crate) boundaries: Vec<Boundary>,
    /// Patch table offsets of the schedules of the scheduled edge segments, in order.
    pub(crate) edge_schedules: Vec<u32>,
    /// The names of the level's breaches, in order.
    pub(crate) breach_names: Vec<String>,
    pub(crate) bufs: Buffers,
    pub(crate) passes: Passes,
    pub(crate) plan: Plan,
    pub(crate) grid: GridUniform,
    /// Step length the constant table was built for.
    pub(crate) table_dt: f32,
    pub(crate) headroom: u32,
    pub(crate) readback: StatsReadback,
    pub(crate) probe: super::probe::ProbeReadback,
    pub(crate) last: Option<Report>,
    pub(crate) volume_initial: f64,
    pub(crate) time_base: f64,
    /// Simulated time after the steps recorded so far (the GPU's own clock, seen from the CPU).
    pub(crate) clock: f64,
    /// Time lost to clamped steps, and what of it has been run again: see [`super::run::Lag`].
    pub(crate) lag: super::run::Lag,
    pub(crate) gates: Gates,
    /// The cells the breaches cut, which a moving bed does not erode.
    pub(crate) breach_cells: Vec<u32>,
    /// Max depth and speed at start-up (for the first steps' sub-step count).
    pub(crate) init_figures: (f32, f32),
    /// Edge conditions in force (kind and value; ghosts live on the GPU).
    pub(crate) edge_cells: Vec<EdgeCell>,
    /// Blocking bodies (`set_blockers`); `None` or inactive runs the plain passes.
    pub(crate) blockers: Option<super::blocking::GpuBlockers>,
    /// The gather pass of the body coupling, compiled on first use.
    pub(crate) gather: Option<super::gather::GatherPass>,
    /// The maps of the run, when kept (`record_maps`).
    pub(crate) maps: Option<super::maps::MapsPass>,
    /// Manning's `n` per cell is in the second half of the terrain buffer (a roughness grid).
    pub(crate) rough: bool,
    /// A copy of the whole state under way (`request_state`).
    pub(crate) capture: Option<super::capture::StateCopy>,
    /// Staging buffers of the last state copy, kept for the next (allocating them is slow).
    pub(crate) spare: super::capture::Spare,
    /// The moving bed of a level with sediment.
    pub(crate) bed: Option<super::erosion::ErosionPass>,
    /// Dry strips left out, and whether their stamps are stale.
    pub(crate) quiet: super::quiet::Quiet,
}

/// The host-side initial state of a level, as `Simulation::new` builds it.
pub(crate) struct Initial {
    pub depth: Vec<f32>,
    pub qx: Vec<f32>,
    pub qy: Vec<f32>,
    /// Face velocities (SWE, pipes with advection): x-faces then y-faces.
    pub vel: Vec<f32>,
    pub ghost: Option<Vec<f32>>,
    pub time: f64,
    pub max_speed: f32,
    /// `vel` holds the saved run's face velocities (pipes with advection): no start-up pass.
    pub vel_saved: bool,
}

impl Initial {
    pub fn new(level: &Level) -> Result<Self, SimError> {
        let (nx, ny) = (level.nx(), level.ny());
        let (depth, saved) = crate::sim::start_state(level)?;
        let (mut qx, mut qy) = (vec![0.0; (nx + 1) * ny], vec![0.0; nx * (ny + 1)]);
        let mut vel = Vec::new();
        let mut max_speed = 0.0f32;
        match level.params.solver {
            SolverKind::Pipes => {
                if let Some(f) = saved {
                    qx.copy_from_slice(&f.flow_x);
                    qy.copy_from_slice(&f.flow_y);
                }
                if level.params.pipe_advection {
                    vel = match saved {
                        Some(f) if f.aux_x.len() == qx.len() && f.aux_y.len() == qy.len() => {
                            f.aux_x.iter().chain(&f.aux_y).copied().collect()
                        }
                        _ => vec![0.0; qx.len() + qy.len()],
                    };
                    // The saved face velocities' fastest, as the CPU solver starts from them.
                    max_speed = vel.iter().fold(0.0f32, |a, b| a.max(b.abs()));
                }
            }
            SolverKind::Swe => {
                // The discharges of the last step, as the CPU solver resumes a bake (an open
                // edge's outfall carries on the face behind it from the first step).
                if let Some(f) =
                    saved.filter(|f| f.aux_x.len() == qx.len() && f.aux_y.len() == qy.len())
                {
                    qx.copy_from_slice(&f.aux_x);
                    qy.copy_from_slice(&f.aux_y);
                }
                vel = match saved {
                    Some(f) => f.flow_x.iter().chain(&f.flow_y).copied().collect(),
                    None => vec![0.0; qx.len() + qy.len()],
                };
                max_speed = vel.iter().fold(0.0f32, |a, b| a.max(b.abs()));
            }
        }
        // The CFL limit of the first step as the saved run had it (the GPU's state copies keep
        // it), else from the saved faces; plain pipes advect nothing and take no face speed
        // (a bake of a level with advection, switched off since, kept its speed for good).
        let advects = level.params.solver == SolverKind::Swe || level.params.pipe_advection;
        let saved_speed = saved
            .and_then(|f| f.max_speed)
            .filter(|v| advects && v.is_finite());
        // Either way held to what a step can follow (a saved face of 1e30 m/s gave a CFL limit
        // no step could meet).
        let speed = saved_speed.unwrap_or(max_speed);
        max_speed = crate::sim::followable_speed(speed, &level.params, level.cell_size);
        let total = 2 * (nx + ny);
        let ghost = saved.map(|f| f.ghost.clone()).filter(|g| g.len() == total);
        let vel_saved = level.params.solver == SolverKind::Pipes
            && level.params.pipe_advection
            && saved.is_some_and(|f| !f.aux_x.is_empty());
        Ok(Self {
            depth,
            qx,
            qy,
            vel,
            ghost,
            time: saved.map_or(0.0, |f| f.time),
            max_speed,
            vel_saved,
        })
    }
}

/// Total volume of `depth` in m³, summed as `Simulation::volume` does.
pub(crate) fn volume(depth: &[f32], dx: f32) -> f64 {
    let s: f64 = depth
        .chunks(4096)
        .map(|c| c.iter().map(|&d| d as f64).sum::<f64>())
        .sum();
    s * (dx as f64) * (dx as f64)
}

/// The grid uniform of a level.
pub(crate) fn grid_uniform(
    nx: usize,
    ny: usize,
    dx: f32,
    p: &Params,
    tile: (u32, u32),
    patches: u32,
) -> GridUniform {
    let perimeter = 2 * (nx + ny) as u32;
    let edge_groups = perimeter.div_ceil(EDGE_GROUP);
    let mut groups = [[0u32; 4]; 8];
    let f = flow::groups(nx, ny, tile);
    groups[SLOT_FLOW] = [f[0], f[1], 1, 0];
    groups[SLOT_FORCING] = [1, 1, 1, 0];
    groups[SLOT_EDGES] = [edge_groups, 1, 1, 0];
    let lattice = [
        (nx as u32 + 1).div_ceil(LATTICE),
        (ny as u32 + 1).div_ceil(LATTICE),
        1,
        0,
    ];
    groups[SLOT_ADVECT] = lattice;
    groups[SLOT_STORE] = lattice;
    GridUniform {
        nx: nx as u32,
        ny: ny as u32,
        cells: (nx * ny) as u32,
        perimeter,
        half_d: (nx * ny) as u32,
        half_qx: ((nx + 1) * ny) as u32,
        half_qy: (nx * (ny + 1)) as u32,
        k_max: 1,
        dx,
        gravity: p.gravity,
        cfl: p.cfl,
        dt: p.dt,
        patch_count: patches,
        edge_groups,
        max_substeps: MAX_SUBSTEPS,
        inv_dx: 1.0 / dx,
        groups,
        zero: 0,
        structures: 0,
        quiet_cols: super::quiet::columns(nx),
        quiet_on: 1,
    }
}

impl GpuSimulation {
    /// Builds a GPU simulation of `level` on a device someone else created (the editor hands
    /// in eframe's). The device must grant [`super::required_limits`] for the level's size.
    pub fn new(
        level: &Level,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Self, GpuError> {
        let ctx = device::adopt(device, queue, level.nx(), level.ny())?;
        Self::build(level, ctx)
    }

    /// Builds a GPU simulation of `level` on a device of its own: the best hardware adapter
    /// that can hold the level, else a software one (lavapipe).
    pub fn headless(level: &Level) -> Result<Self, GpuError> {
        let ctx = device::headless(level.nx(), level.ny(), wgpu::Features::empty())?;
        Self::build(level, ctx)
    }

    pub(crate) fn build(level: &Level, mut ctx: Context) -> Result<Self, GpuError> {
        let start = Initial::new(level)?;
        let (nx, ny, dx) = (level.nx(), level.ny(), level.cell_size);
        // A software adapter runs a few workgroups at a time: strips only as large as needed.
        ctx.tile = if ctx.device.adapter_info().device_type != wgpu::DeviceType::Cpu {
            super::flow::strips_for(ctx.tile, nx, ny)
        } else {
            super::flow::software_strips(ctx.tile, nx, ny)
        };
        let params = level.params.clone();
        let rough = crate::sim::roughness_of(level).is_some();
        let config = Config {
            dry: super::quiet::pays(&ctx.device, ctx.tile, nx, ny),
            ..Config::new(&params, rough, ctx.tile)
        };
        let table = patch_table(level, &level.boundaries, start.time);
        let (patches, structures) = (table.patches, table.structures);
        let mut grid = grid_uniform(nx, ny, dx, &params, ctx.tile, patches);
        grid.structures = structures;
        let mut cells = conditions(level, &params.default_boundary, &table.edges);
        for (p, c) in cells.iter_mut().enumerate() {
            let cell = perimeter_cell(p, nx, ny);
            c.ghost = match &start.ghost {
                Some(g) => g[p],
                None => level.terrain.data[cell] + start.depth[cell],
            };
        }
        let plan = Plan {
            forcing: patches > 0,
            structures: structures > 0,
            breaches: !table.breaches.is_empty(),
            edges: cells.iter().any(|c| c.kind != 0),
            fusion: Fusion::default(),
            pairing: Pairing::default(),
            splits: false,
        };
        let max_depth = start.depth.iter().fold(0.0f32, |a, &b| a.max(b));
        let control = ControlBlock {
            n: 1,
            count: 1,
            blowup_cell: u32::MAX,
            max_depth,
            max_speed: start.max_speed,
            good_depth: max_depth,
            good_speed: start.max_speed,
            ..bytemuck::Zeroable::zeroed()
        };
        let device = &ctx.device;
        // Closed gates raise their cells (on a copy of the level only when there are gates).
        let gates = Gates::new(level);
        let gated = (!gates.0.is_empty()).then(|| {
            let mut l = level.clone();
            gates.close(&mut l.terrain.data);
            l
        });
        let bufs = captured(device, "allocating the water buffers", || {
            Self::buffers(
                device,
                gated.as_ref().unwrap_or(level),
                &start,
                &grid,
                control,
                &cells,
                &table.words,
                &params,
            )
        })?;
        let passes = Passes::new(device, config, &bufs, (nx, ny))?;
        let ground = &gated.as_ref().unwrap_or(level).terrain.data;
        let breach_cells = super::erosion::breach_cells(level);
        let bed = super::erosion::ErosionPass::new(
            device,
            (&config, &bufs),
            &level.params,
            (nx, ny, dx),
            (ground, level.flow.as_ref().map(|f| f.bed_floor.as_slice())),
            (&gates, &breach_cells),
        )?;
        drop(gated);
        let mut sim = Self {
            nx,
            ny,
            dx,
            boundaries: level.boundaries.clone(),
            edge_schedules: table.edges,
            breach_names: table.breaches,
            bufs,
            passes,
            plan,
            grid,
            table_dt: params.dt,
            headroom: 1,
            readback: StatsReadback::new(device, grid.edge_groups as usize, partial_count(nx * ny)),
            probe: super::probe::ProbeReadback::new(device),
            last: None,
            volume_initial: volume(&start.depth, dx),
            time_base: start.time,
            clock: start.time,
            lag: Default::default(),
            gates,
            breach_cells,
            init_figures: (max_depth, start.max_speed),
            edge_cells: cells,
            blockers: Some(super::blocking::GpuBlockers::idle(&ctx.device, nx, ny)),
            gather: None,
            maps: None,
            capture: None,
            spare: Default::default(),
            bed,
            rough,
            quiet: Default::default(),
            params,
            ctx,
        };
        if params_pipe_advection(&sim.params) && !start.vel_saved {
            let mut encoder = sim.ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                if let Some(s) = &sim.passes.store {
                    s.encode_initial(&mut pass, nx, ny);
                }
            }
            sim.ctx.queue.submit([encoder.finish()]);
        }
        sim.share_pair_groups();
        sim.check_device()?;
        Ok(sim)
    }

    #[allow(clippy::too_many_arguments)]
    fn buffers(
        device: &wgpu::Device,
        level: &Level,
        start: &Initial,
        grid: &GridUniform,
        control: ControlBlock,
        cells: &[EdgeCell],
        patches: &[u32],
        params: &Params,
    ) -> Buffers {
        use wgpu::BufferUsages as U;
        let (nx, ny, dx) = (level.nx(), level.ny(), level.cell_size);
        let perimeter = 2 * (nx + ny);
        let mut aux = bytemuck::bytes_of(&control).to_vec();
        let roughness = crate::sim::roughness_of(level);
        let table = step_table(params, dx, params.dt, roughness.is_some());
        aux.extend_from_slice(bytemuck::cast_slice(&table));
        // The border faces, then the dry strips' stamps.
        aux.resize(aux.len() + (perimeter + super::quiet::words(grid)) * 4, 0);
        let bytes = |v: &[f32]| bytemuck::cast_slice::<f32, u8>(v).to_vec();
        let vel_len = start.vel.len().max(4);
        Buffers {
            grid: init(
                device,
                "grid",
                bytemuck::bytes_of(grid),
                U::UNIFORM | U::COPY_DST,
            ),
            aux: init(device, "aux", &aux, STATE),
            // Terrain, then Manning's n per cell (zero without a roughness grid).
            terrain: init(
                device,
                "terrain",
                &bytes(
                    &[
                        level.terrain.data.as_slice(),
                        &roughness.unwrap_or_else(|| vec![0.0; nx * ny]),
                    ]
                    .concat(),
                ),
                STATE,
            ),
            depth: init(device, "depth", &bytes(&doubled(&start.depth)), STATE),
            qx: init(device, "flow x", &bytes(&doubled(&start.qx)), STATE),
            qy: init(device, "flow y", &bytes(&doubled(&start.qy)), STATE),
            carry: zeroed(device, "carry", 4 * (nx * ny) as u64, STATE),
            vel: init(device, "velocity", &bytes(&doubled(&start.vel)), STATE),
            adv: zeroed(device, "advected velocity", 4 * vel_len as u64, STATE),
            edges: init(device, "edges", bytemuck::cast_slice(cells), STATE),
            ledger: zeroed(device, "ledger", 16 * (1 + grid.edge_groups as u64), STATE),
            patches: init(device, "patches", bytemuck::cast_slice(patches), STATE),
            // Breaches a bake or snapshot saved partly open go on from there.
            breaches: init(
                device,
                "breaches",
                bytemuck::cast_slice(&super::structures::breach_words(level)),
                STATE,
            ),
            view: zeroed(device, "view", 16, U::STORAGE | U::UNIFORM | U::COPY_SRC),
            partials: zeroed(
                device,
                "partials",
                (std::mem::size_of::<Partial>() * partial_count(nx * ny)) as u64,
                STATE,
            ),
            rect: zeroed(device, "rect", 16, U::UNIFORM | U::COPY_DST),
        }
    }

    /// Reports an error the device raised outside our error scopes (our own device only).
    pub(crate) fn check_device(&self) -> Result<(), GpuError> {
        match self.ctx.errors.as_ref().and_then(|e| e.take()) {
            Some(e) => Err(GpuError::Device(e)),
            None => Ok(()),
        }
    }

    /// Name of the adapter the simulation runs on.
    pub fn adapter_name(&self) -> &str {
        &self.ctx.adapter
    }

    /// The device the simulation runs on.
    pub fn device(&self) -> &wgpu::Device {
        &self.ctx.device
    }

    /// The queue the simulation submits to.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.ctx.queue
    }

    /// Cells along x.
    pub fn nx(&self) -> usize {
        self.nx
    }

    /// Cells along y.
    pub fn ny(&self) -> usize {
        self.ny
    }

    /// Cell size, metres.
    pub fn cell_size(&self) -> f32 {
        self.dx
    }

    /// The parameters in use.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Terrain heights, `nx·ny` `f32`, row-major (storage, read-only in the solver).
    pub fn terrain_buffer(&self) -> &wgpu::Buffer {
        &self.bufs.terrain
    }

    /// Water depth: two halves of `nx·ny` `f32`; the current one starts at element
    /// `view[1]` of [`Self::view_buffer`] (half `view[0]`).
    pub fn depth_buffer(&self) -> &wgpu::Buffer {
        &self.bufs.depth
    }

    /// Limited x-face discharges (m³/s): two halves of `(nx+1)·ny` `f32`; the current one starts
    /// at element `view[2]`.
    pub fn flow_x_buffer(&self) -> &wgpu::Buffer {
        &self.bufs.qx
    }

    /// Limited y-face discharges (m³/s): two halves of `nx·(ny+1)` `f32`; the current one starts
    /// at element `view[3]`.
    pub fn flow_y_buffer(&self) -> &wgpu::Buffer {
        &self.bufs.qy
    }

    /// Elements in one half of [`Self::depth_buffer`]: the previous state starts at
    /// `depth_half() - view[1]` (for drawing between the last two states).
    pub fn depth_half(&self) -> u32 {
        self.grid.half_d
    }

    /// Four `u32` written by the GPU after every step: the current half (0 or 1) and the element
    /// offsets of the current depth, x-face and y-face halves. Bind it as a uniform or storage
    /// buffer next to the state buffers; no CPU round trip is needed to find the current state.
    pub fn view_buffer(&self) -> &wgpu::Buffer {
        &self.bufs.view
    }

    /// Starts keeping the maps of the run on the GPU from the state now (again from nothing if
    /// they were kept already), as `Simulation::record_maps` does: every step folds its state
    /// in. Read them with [`Self::read_maps`].
    pub fn record_maps(&mut self) -> Result<(), GpuError> {
        self.check_device()?;
        let device = self.ctx.device.clone();
        let mut maps = super::maps::MapsPass::new(
            &device,
            &self.passes.config,
            &self.bufs,
            self.nx * self.ny,
        )?;
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            maps.encode(&mut pass);
        }
        self.ctx.queue.submit([encoder.finish()]);
        maps.stride = self.maps.as_ref().map_or(1, |m| m.stride);
        self.maps = Some(maps);
        self.fold_maps()
    }

    /// Lets the fused flow pass fold the maps of the run in, where they are kept (again after
    /// the passes were made anew).
    pub(crate) fn fold_maps(&mut self) -> Result<(), GpuError> {
        if let Some(m) = &self.maps {
            let device = self.ctx.device.clone();
            (self.passes.flow).fold_into(&device, &self.passes.config, &self.bufs, &m.maps)?;
        }
        Ok(())
    }

    /// Simulated seconds of the steps recorded so far: the time the water stands at once the
    /// GPU has run them (a step that ran short on sub-steps is caught up later).
    pub fn clock(&self) -> f64 {
        self.clock
    }

    /// Sets how many spare sub-steps each step records beyond what the last read-back state
    /// needs (default 1). Spare sub-steps cost an empty dispatch each; too few make fast
    /// changes clamp (see [`GpuStatus::clamped_steps`](super::GpuStatus::clamped_steps)).
    pub fn set_substep_headroom(&mut self, spare: u32) {
        self.headroom = spare.min(MAX_SUBSTEPS);
    }

    /// Sets when the flow pass also advects and stores the face velocities (default
    /// [`Fusion::Auto`]); the results are the same either way (a benchmark and test knob).
    pub fn set_fusion(&mut self, fusion: Fusion) {
        self.plan.fusion = fusion;
    }

    /// Sets when two steps of the plain pipes run as one pair pass (default [`Pairing::Auto`]);
    /// the results are the same either way (a benchmark and test knob).
    pub fn set_pairing(&mut self, pairing: Pairing) {
        self.plan.pairing = pairing;
    }
}

fn params_pipe_advection(p: &Params) -> bool {
    p.solver == SolverKind::Pipes && p.pipe_advection
}

/// Offset of the sub-step constant table in the `aux` buffer.
pub(crate) const TABLE_OFFSET: u64 = CONTROL_BYTES;
