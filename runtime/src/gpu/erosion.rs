//! Owner of the erosion pass (`shaders/erosion.wgsl`): the moving bed of a level with
//! `params.sediment` on the GPU, the CPU solver's `sim::erosion` in five dispatches at the end
//! of every sub-step (bedload faces, supply, Exner, then the suspended load's concentration and
//! transport with pick-up and settling). Its parameters and bed (bedrock, erodible cells) come
//! from the CPU's `Bed`, so both solvers start from the same numbers.

use bytemuck::{Pod, Zeroable};

use crate::level::{BedloadLaw, Friction, Level, Params};
use crate::sim::erosion::Bed;
use crate::sim::gates::Gates;

use super::kernel::{Bind, Kernel, captured};
use super::readback::read_f32;
use super::state::{Buffers, Config, STATE, init};
use super::{GpuError, GpuSimulation};

const SOURCE: &str = include_str!("../../shaders/erosion.wgsl");

/// Invocations per workgroup (`@workgroup_size` of erosion.wgsl).
const GROUP: usize = 256;
/// The most workgroups along one dispatch dimension.
const MAX_GROUPS: usize = 65535;

/// `struct BedLaw` of erosion.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct BedLaw {
    kind: u32,
    grass_a: f32,
    diameter: f32,
    s1: f32,
    critical_shields: f32,
    friction_factor: f32,
    swell: f32,
    talus_rise: f32,
    slump: f32,
    clear_inflow: u32,
    suspension: u32,
    critical_shear: f32,
    pickup: f32,
    settling: f32,
    rough: u32,
    rough_value: f32,
    floor: u32,
    carry: u32,
    supply: u32,
    mask: u32,
    load: u32,
    load_carry: u32,
    conc: u32,
    fx: u32,
    fy: u32,
    pad: [u32; 3],
}

/// The erosion pass and the bed it keeps.
pub(crate) struct ErosionPass {
    kernel: Kernel,
    law_buffer: wgpu::Buffer,
    /// Bedrock, carry, supply, erodible mask, load, load carry, concentration (a grid each),
    /// then the x- and y-face fluxes.
    bed: wgpu::Buffer,
    group: wgpu::BindGroup,
    cell_groups: [u32; 2],
    face_groups: [u32; 2],
    suspension: bool,
    /// Element offset of the suspended load in `bed`.
    load_at: u32,
    /// The cells bakes and keyframes hold, and the bedrock (`FlowState::bed_floor`; shared
    /// with each state copy, not copied).
    pub cells: crate::sim::erosion::BedCells,
    /// Bed height per volume of grains (`speedup / (1 − porosity)`).
    pub swell: f32,
}

/// Workgroups `[x, y]` covering `n` invocations.
fn groups(n: usize) -> [u32; 2] {
    let total = n.div_ceil(GROUP).max(1);
    let x = total.min(MAX_GROUPS);
    [x as u32, total.div_ceil(x) as u32]
}

impl ErosionPass {
    /// The pass for a level of `params` (`nx × ny` cells of `dx` metres) on the terrain the
    /// solver holds (`terrain`, gates closed), whose `gates` and `breach_cells` do not erode
    /// (as on the CPU: [`crate::sim::fixed_cells`]); `None` when its bed
    /// stands still.
    pub fn new(
        device: &wgpu::Device,
        (config, bufs): (&Config, &Buffers),
        params: &Params,
        (nx, ny, dx): (usize, usize, f32),
        (terrain, saved): (&[f32], Option<&[f32]>),
        (gates, breach_cells): (&Gates, &[u32]),
    ) -> Result<Option<Self>, GpuError> {
        let Some(sediment) = params.sediment.as_ref() else {
            return Ok(None);
        };
        let gate_cells = gates.0.iter().flat_map(|g| g.cells.iter().copied());
        let fixed: Vec<u32> = gate_cells.chain(breach_cells.iter().copied()).collect();
        let cpu = Bed::new(sediment, (nx, ny, dx), terrain, &fixed, saved);
        if cpu.swell <= 0.0 {
            return Ok(None);
        }
        let cells = nx * ny;
        let (fx, fy) = ((nx + 1) * ny, nx * (ny + 1));
        let mut law = BedLaw {
            swell: cpu.swell,
            talus_rise: cpu.talus_rise,
            slump: cpu.slump,
            clear_inflow: cpu.clear_inflow as u32,
            floor: 0,
            carry: cells as u32,
            supply: 2 * cells as u32,
            mask: 3 * cells as u32,
            load: 4 * cells as u32,
            load_carry: 5 * cells as u32,
            conc: 6 * cells as u32,
            fx: 7 * cells as u32,
            fy: (7 * cells + fx) as u32,
            ..BedLaw::default()
        };
        match cpu.law {
            BedloadLaw::Grass { a } => law.grass_a = a,
            BedloadLaw::MeyerPeterMuller {
                diameter,
                density,
                critical_shields,
                friction_factor,
            } => {
                law.kind = 1;
                (law.diameter, law.s1) = crate::level::sediment::grains(diameter, density);
                law.critical_shields = critical_shields;
                law.friction_factor = friction_factor;
            }
        }
        if let Some(s) = cpu.suspended.as_ref().map(|s| s.law) {
            law.suspension = 1;
            law.critical_shear = s.critical_shear;
            law.pickup = s.pickup;
            law.settling = s.settling;
        }
        (law.rough, law.rough_value) = match params.friction {
            Friction::Manning { .. } if config.rough => (1, 0.0),
            Friction::Manning { n } => (0, n),
            Friction::Chezy { c } => (2, c),
            Friction::Linear { .. } => (0, crate::level::DEFAULT_MANNING_N),
        };
        let mut words = vec![0.0f32; 7 * cells + fx + fy];
        words[..cells].copy_from_slice(&cpu.floor);
        words[law.supply as usize..][..cells].fill(1.0);
        words[law.mask as usize..][..cells].copy_from_slice(&cpu.mask());
        let rw = Bind::ReadWrite;
        let binds = [
            Bind::Uniform,
            rw,
            rw,
            Bind::Read,
            Bind::Read,
            Bind::Read,
            Bind::Read,
            rw,
            Bind::Uniform,
        ];
        let entries = ["faces", "supply", "exner", "conc", "suspend"];
        let kernel = Kernel::new(device, "erosion", SOURCE, config, &binds, &entries)?;
        let (law_buffer, bed) = captured(device, "allocating the moving bed", || {
            (
                init(
                    device,
                    "bed law",
                    bytemuck::bytes_of(&law),
                    wgpu::BufferUsages::UNIFORM,
                ),
                init(device, "bed", bytemuck::cast_slice(&words), STATE),
            )
        })?;
        let group = Self::bind(&kernel, device, bufs, &bed, &law_buffer);
        Ok(Some(Self {
            kernel,
            law_buffer,
            bed,
            group,
            cell_groups: groups(cells),
            face_groups: groups(fx + fy),
            suspension: law.suspension != 0,
            load_at: law.load,
            cells: cpu.cells(),
            swell: cpu.swell,
        }))
    }

    fn bind(
        kernel: &Kernel,
        device: &wgpu::Device,
        b: &Buffers,
        bed: &wgpu::Buffer,
        law: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        kernel.bind(
            device,
            "erosion",
            &[
                &b.grid, &b.aux, &b.terrain, &b.depth, &b.qx, &b.qy, &b.edges, bed, law,
            ],
        )
    }

    /// Rebinds to `bufs` (some may have been replaced since).
    pub fn rebind(&mut self, device: &wgpu::Device, bufs: &Buffers) {
        self.group = Self::bind(&self.kernel, device, bufs, &self.bed, &self.law_buffer);
    }

    /// Records the bed's change over the sub-step under way (after its flow and edge passes).
    pub fn encode(&self, pass: &mut wgpu::ComputePass<'_>) {
        let p = &self.kernel.pipelines;
        let run = |pass: &mut wgpu::ComputePass<'_>, k: usize, g: [u32; 2]| {
            pass.set_pipeline(&p[k]);
            pass.set_bind_group(0, &self.group, &[]);
            pass.dispatch_workgroups(g[0], g[1], 1);
        };
        run(pass, 0, self.face_groups);
        run(pass, 1, self.cell_groups);
        run(pass, 2, self.cell_groups);
        if self.suspension {
            run(pass, 3, self.cell_groups);
            run(pass, 4, self.cell_groups);
        }
    }

    /// Takes `fixed` (the gates' and breaches' cells, [`crate::sim::fixed_cells`]) as the
    /// cells whose ground does not move, keeping everything else (floor, grains in the water).
    pub(crate) fn set_fixed(
        &mut self,
        queue: &wgpu::Queue,
        sediment: &crate::level::Sediment,
        (nx, ny, dx): (usize, usize, f32),
        fixed: &[u32],
    ) {
        let floor = self.cells.floor.clone();
        let fresh = Bed::new(sediment, (nx, ny, dx), &floor, fixed, Some(&floor));
        queue.write_buffer(
            &self.bed,
            4 * 3 * (nx * ny) as u64,
            bytemuck::cast_slice(&fresh.mask()),
        );
        self.cells = fresh.cells();
    }

    /// Where the grains in the water lie: the buffer and the byte offset of its `cells`
    /// floats; `None` without a suspension.
    pub(crate) fn load_part(&self) -> Option<(&wgpu::Buffer, u64)> {
        self.suspension
            .then_some((&self.bed, 4 * self.load_at as u64))
    }

    /// The grains in the water per cell (m³ per m²), `None` without a suspension. Waits for the
    /// GPU.
    pub fn read_load(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cells: usize,
    ) -> Result<Option<Vec<f32>>, GpuError> {
        if !self.suspension {
            return Ok(None);
        }
        read_f32(device, queue, &self.bed, self.load_at as u64, cells).map(Some)
    }
}

impl GpuSimulation {
    /// The grains carried in the water per cell, m³ per m², row-major (`None`: the level's
    /// sediment has no suspension). Waits for the GPU.
    pub fn suspended_load(&self) -> Result<Option<Vec<f32>>, GpuError> {
        self.check_device()?;
        match &self.bed {
            Some(b) => b.read_load(&self.ctx.device, &self.ctx.queue, self.nx * self.ny),
            None => Ok(None),
        }
    }

    /// Builds the moving bed again for the current parameters on the terrain as it stands;
    /// none without sediment. The bed goes on as it was: its bedrock where it was (a new bed
    /// put it `layer` below the eroded ground, which then cut a layer deeper), and its grains
    /// in the water kept in the water where the new bed carries a suspension, else settled
    /// where they are (they were dropped: a change of Manning's n mid-run lost them).
    pub(crate) fn rebuild_bed(&mut self) -> Result<(), GpuError> {
        let load = self.suspended_load()?;
        let old = self.bed.take();
        let mut terrain = self.read_terrain()?;
        let floor = old.as_ref().map(|b| b.cells.floor.clone());
        let device = self.ctx.device.clone();
        self.bed = ErosionPass::new(
            &device,
            (&self.passes.config, &self.bufs),
            &self.params,
            (self.nx, self.ny, self.dx),
            (&terrain, floor.as_deref()),
            (&self.gates, &self.breach_cells),
        )?;
        let (Some(old), Some(load)) = (old, load) else {
            return Ok(());
        };
        match &self.bed {
            Some(new) if new.suspension => {
                let at = 4 * new.load_at as u64;
                (self.ctx.queue).write_buffer(&new.bed, at, bytemuck::cast_slice(&load));
            }
            _ => {
                let ground = terrain.clone();
                let (cells, swell) = (&old.cells, old.swell);
                crate::sim::erosion::settle_into(&mut terrain, &ground, cells, Some(&load), swell);
                self.upload_rect(
                    super::region::Target::Terrain,
                    0,
                    0,
                    self.nx,
                    self.ny,
                    &terrain,
                )?;
            }
        }
        self.check_device()
    }

    /// Writes the moved bed into `out`'s terrain (the cells grains settle in, the grains still in the
    /// water settled where they are), for a bake.
    pub(crate) fn bake_bed(&self, out: &mut Level) -> Result<(), GpuError> {
        let Some(bed) = &self.bed else {
            return Ok(());
        };
        let terrain = self.read_terrain()?;
        let load = self.suspended_load()?;
        crate::sim::erosion::settle_into(
            &mut out.terrain.data,
            &terrain,
            &bed.cells,
            load.as_deref(),
            bed.swell,
        );
        if let Some(flow) = out.flow.as_mut() {
            flow.bed_floor = bed.cells.floor.to_vec();
        }
        Ok(())
    }
}

/// The cells the breaches of `level` cut.
pub(crate) fn breach_cells(level: &crate::Level) -> Vec<u32> {
    let cuts = crate::sim::structures::Structures::new(level).cuts;
    (cuts.iter())
        .flat_map(|c| c.cells.iter().map(|&(cell, _, _)| cell))
        .collect()
}
