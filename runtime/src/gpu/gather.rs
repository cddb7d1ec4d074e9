//! Owner of the gather pass (`shaders/gather.wgsl`): the water at a list of cells, read back
//! for the rigid-body coupling, and the list-of-cells water edit the floaters' displacement
//! makes (the `water_cells` entry of the region pass).

use wgpu::util::DeviceExt;

use super::GpuError;
use super::kernel::{Bind, Kernel};
use super::readback::read_f32;
use super::sim::GpuSimulation;
use super::state::Config;

const SOURCE: &str = concat!(
    include_str!("../../shaders/blockers.wgsl"),
    include_str!("../../shaders/gather.wgsl")
);

/// Words the gather pass writes per cell: surface, depth, west, east, north and south faces.
pub const GATHERED: usize = 6;

/// Cells per workgroup of the gather pass.
const GROUP: usize = 64;

/// The gather pass, compiled for one configuration.
pub(crate) struct GatherPass {
    config: Config,
    kernel: Kernel,
    /// A zeroed blocker header, bound while no blockers are set.
    no_blockers: wgpu::Buffer,
    /// The gather requested by `request_cells`, not taken yet.
    pending: Option<Pending>,
    /// The cell list and the gathered words, kept for the next gather (grown when too
    /// small), with the bind group of the solver buffers they were last bound with.
    lists: Option<Lists>,
    /// Read-back buffers of earlier requests, free to take the next one.
    spare: Vec<wgpu::Buffer>,
}

/// The gather pass's cell list and output, and their bind group.
struct Lists {
    /// Cells the buffers hold room for.
    capacity: usize,
    list: wgpu::Buffer,
    out: wgpu::Buffer,
    /// The solver and blocker buffers `group` binds (they may be replaced).
    bound: Vec<wgpu::Buffer>,
    group: wgpu::BindGroup,
}

/// A gather on its way back: the cells, the staging buffer being mapped and the submission.
struct Pending {
    cells: Vec<u32>,
    staging: wgpu::Buffer,
    submission: wgpu::SubmissionIndex,
    mapped: std::sync::mpsc::Receiver<Result<(), wgpu::BufferAsyncError>>,
}

impl GatherPass {
    fn new(device: &wgpu::Device, config: &Config) -> Result<Self, GpuError> {
        let r = Bind::Read;
        let binds = [
            Bind::Uniform,
            Bind::ReadWrite,
            r,
            r,
            r,
            r,
            r,
            Bind::ReadWrite,
            r,
        ];
        let kernel = Kernel::new(device, "gather", SOURCE, config, &binds, &["gather"])?;
        let no_blockers = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("no blockers"),
            contents: &[0u8; 64],
            usage: wgpu::BufferUsages::STORAGE,
        });
        Ok(Self {
            config: *config,
            kernel,
            no_blockers,
            pending: None,
            lists: None,
            spare: Vec::new(),
        })
    }
}

/// The water at one cell, as the gather pass reads it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CellWater {
    /// The effective surface, metres: terrain plus depth, or under a blocking body that stores
    /// water the surface the water would have without it.
    pub surface: f32,
    /// Depth, metres.
    pub depth: f32,
    /// Discharge through the west and east faces, m³/s (positive towards +x).
    pub qx: [f32; 2],
    /// Discharge through the north and south faces (rows `j` and `j + 1`), m³/s.
    pub qy: [f32; 2],
}

/// What a [`GpuSimulation::request_cells`] read: the cells asked for and their water.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Gathered {
    /// The cells, row-major indices, as requested.
    pub cells: Vec<u32>,
    /// The water at each of them.
    pub water: Vec<CellWater>,
}

impl GpuSimulation {
    /// The water at each of `cells` (row-major indices) after the steps recorded so far: one
    /// small compute pass and a read-back of 24 bytes per cell. Waits for the GPU. The surface
    /// is the effective one (as `Simulation::effective_surface_at`): under a blocking body that
    /// stores water, the surface the water would have without the body.
    pub fn read_cells(&mut self, cells: &[u32]) -> Result<Vec<CellWater>, GpuError> {
        if cells.is_empty() {
            self.check_device()?;
            return Ok(Vec::new());
        }
        let out = self.encode_gather(cells)?;
        let words = read_f32(
            &self.ctx.device,
            &self.ctx.queue,
            &out,
            0,
            GATHERED * cells.len(),
        )?;
        self.check_device()?;
        Ok(unpack(&words))
    }

    /// Starts gathering the water at `cells` after the steps recorded so far, without waiting:
    /// steps recorded after this keep the GPU busy while the copy comes back. Collect it with
    /// [`Self::take_cells`]; a request not taken yet is dropped, and so is this one when the
    /// water changes before it is taken (steps, edits, displacement).
    pub fn request_cells(&mut self, cells: &[u32]) -> Result<(), GpuError> {
        self.drop_requested_cells();
        if cells.is_empty() {
            return self.check_device();
        }
        let size = (4 * GATHERED * cells.len()) as u64;
        let g = self.gather.as_mut();
        let spare = g.and_then(|g| {
            let at = g.spare.iter().position(|b| b.size() >= size)?;
            Some(g.spare.swap_remove(at))
        });
        let device = &self.ctx.device;
        let staging = spare.unwrap_or_else(|| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gathered water read-back"),
                size: size.next_power_of_two(),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        let out = self.record_gather(cells, &mut encoder)?;
        encoder.copy_buffer_to_buffer(&out, 0, &staging, 0, size);
        let submission = self.ctx.queue.submit([encoder.finish()]);
        let (tx, mapped) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, ..size, move |r| {
            let _ = tx.send(r);
        });
        let g = self.gather.as_mut().expect("compiled by encode_gather");
        g.pending = Some(Pending {
            cells: cells.to_vec(),
            staging,
            submission,
            mapped,
        });
        self.check_device()
    }

    /// The water of the last [`Self::request_cells`]: its cells and their water, as of the
    /// steps recorded before the request. Waits only until the GPU has done that much (steps
    /// recorded later go on running). `None` when nothing is pending.
    pub fn take_cells(&mut self) -> Result<Option<Gathered>, GpuError> {
        let mut water = Vec::new();
        let Some(cells) = self.take_cells_with(|_, w| water.push(w))? else {
            return Ok(None);
        };
        Ok(Some(Gathered { cells, water }))
    }

    /// [`Self::take_cells`] without building the list of cells' water: `each` gets every cell
    /// and its water straight from the read-back buffer. Returns the cells, `None` when nothing
    /// is pending.
    pub(crate) fn take_cells_with(
        &mut self,
        mut each: impl FnMut(u32, CellWater),
    ) -> Result<Option<Vec<u32>>, GpuError> {
        self.check_device()?;
        let Some(p) = self.gather.as_mut().and_then(|g| g.pending.take()) else {
            return Ok(None);
        };
        self.ctx
            .device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(p.submission),
                timeout: None,
            })
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        match p.mapped.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(GpuError::Readback(e.to_string())),
            Err(e) => return Err(GpuError::Readback(e.to_string())),
        }
        let size = (4 * GATHERED * p.cells.len()) as u64;
        {
            let view = p
                .staging
                .get_mapped_range(..size)
                .map_err(|e| GpuError::Readback(e.to_string()))?;
            for (&k, w) in p.cells.iter().zip(view.chunks_exact(4 * GATHERED)) {
                let w: [f32; GATHERED] = bytemuck::pod_read_unaligned(w);
                each(k, cell_water(&w));
            }
        }
        p.staging.unmap();
        if let Some(g) = self.gather.as_mut()
            && g.spare.len() < 4
        {
            g.spare.push(p.staging);
        }
        self.check_device()?;
        Ok(Some(p.cells))
    }

    /// Forgets a requested gather: the water changed since (steps, edits, displacement).
    pub(crate) fn drop_requested_cells(&mut self) {
        if let Some(g) = self.gather.as_mut() {
            g.pending = None;
        }
    }

    /// Records and submits the gather of `cells` (checked, non-empty); returns the buffer
    /// of gathered words.
    fn encode_gather(&mut self, cells: &[u32]) -> Result<wgpu::Buffer, GpuError> {
        let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
        let out = self.record_gather(cells, &mut encoder)?;
        self.ctx.queue.submit([encoder.finish()]);
        Ok(out)
    }

    /// Uploads `cells` (checked, non-empty) and records their gather into `encoder`; returns
    /// the buffer of gathered words (`GATHERED` per cell, then room to spare). The list and
    /// output buffers and their bind group are kept for the next gather.
    fn record_gather(
        &mut self,
        cells: &[u32],
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<wgpu::Buffer, GpuError> {
        self.check_device()?;
        let n = self.nx * self.ny;
        if let Some(&bad) = cells.iter().find(|&&c| c as usize >= n) {
            return Err(GpuError::BadInput(format!(
                "cell {bad} is outside the {}×{} grid",
                self.nx, self.ny
            )));
        }
        let config = self.passes.config;
        if self.gather.as_ref().is_none_or(|g| g.config != config) {
            self.gather = Some(GatherPass::new(&self.ctx.device, &config)?);
        }
        let b = &self.bufs;
        let blk = self.blocker_buffer().cloned();
        let pass = self.gather.as_mut().expect("compiled just above");
        let device = &self.ctx.device;
        let blk = blk.unwrap_or_else(|| pass.no_blockers.clone());
        let bound = vec![
            b.grid.clone(),
            b.aux.clone(),
            b.terrain.clone(),
            b.depth.clone(),
            b.qx.clone(),
            b.qy.clone(),
            blk,
        ];
        let fits = pass
            .lists
            .as_ref()
            .is_some_and(|l| l.capacity >= cells.len());
        if !fits || pass.lists.as_ref().is_some_and(|l| l.bound != bound) {
            let capacity = match &pass.lists {
                Some(l) if fits => l.capacity,
                _ => cells.len().next_power_of_two().max(1024),
            };
            let (list, out) = match pass.lists.take() {
                Some(l) if fits => (l.list, l.out),
                _ => (
                    device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("gather cells"),
                        size: 4 * capacity as u64,
                        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    }),
                    device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("gathered water"),
                        size: (4 * GATHERED * capacity) as u64,
                        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                        mapped_at_creation: false,
                    }),
                ),
            };
            let group = pass.kernel.bind(
                device,
                "gather",
                &[
                    &bound[0], &bound[1], &bound[2], &bound[3], &bound[4], &bound[5], &list, &out,
                    &bound[6],
                ],
            );
            pass.lists = Some(Lists {
                capacity,
                list,
                out,
                bound,
                group,
            });
        }
        let lists = pass.lists.as_ref().expect("made just above");
        // Cells past the count keep earlier (valid) indices; the pass gathers them too, and
        // nobody reads those words.
        self.ctx
            .queue
            .write_buffer(&lists.list, 0, bytemuck::cast_slice(cells));
        let groups = lists.capacity.div_ceil(GROUP) as u32;
        {
            let mut cpass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("gather"),
                timestamp_writes: None,
            });
            cpass.set_pipeline(&pass.kernel.pipelines[0]);
            cpass.set_bind_group(0, &lists.group, &[]);
            cpass.dispatch_workgroups(groups.min(65535), groups.div_ceil(65535), 1);
        }
        Ok(lists.out.clone())
    }

    /// Moves water into or out of cells, as `Simulation::displace` does: each `(cell, volume)`
    /// takes `volume` m³ from the row-major `cell` (negative: gives it). A cell never gives
    /// more than it holds. The net of the water moved is booked as water painted in or out
    /// (inflow, or outflow, of the stats), so the balance stays exact; water only moved from
    /// cell to cell (a floater's push aside) books none. Takes effect at the next step; a
    /// cell may appear once only. Skipped as on the CPU: cells outside the grid, non-finite
    /// volumes, and water given back that would make a cell deeper than `MAX_HEIGHT`.
    pub fn displace(&mut self, changes: &[(usize, f32)]) -> Result<(), GpuError> {
        self.check_device()?;
        self.drop_requested_cells();
        let n = self.nx * self.ny;
        let area = self.dx * self.dx;
        let words: Vec<f32> = changes
            .iter()
            .map(|&(cell, volume)| (cell, -volume / area))
            .filter(|&(cell, change)| cell < n && change.is_finite() && change != 0.0)
            .flat_map(|(cell, change)| [f32::from_bits(cell as u32), change])
            .collect();
        if words.is_empty() {
            return Ok(());
        }
        self.stir();
        let device = &self.ctx.device;
        let count = [(words.len() / 2) as u32, 0, 0, 0];
        self.ctx
            .queue
            .write_buffer(&self.bufs.rect, 0, bytemuck::cast_slice(&count));
        let src = self.passes.region.cells(device, &self.ctx.queue, &words);
        let mut encoder = device.create_command_encoder(&Default::default());
        self.passes
            .region
            .encode_cells(device, &mut encoder, &self.bufs, &src);
        self.ctx.queue.submit([encoder.finish()]);
        self.check_device()
    }
}

/// The gathered words as cells' water.
fn unpack(words: &[f32]) -> Vec<CellWater> {
    words.chunks_exact(GATHERED).map(cell_water).collect()
}

/// One cell's gathered words as its water.
fn cell_water(w: &[f32]) -> CellWater {
    CellWater {
        surface: w[0],
        depth: w[1],
        qx: [w[2], w[3]],
        qy: [w[4], w[5]],
    }
}

impl GpuSimulation {
    /// The terrain heights (`nx·ny`, row-major), as the solver holds them. Waits for the GPU.
    pub fn read_terrain(&self) -> Result<Vec<f32>, GpuError> {
        self.check_device()?;
        read_f32(
            &self.ctx.device,
            &self.ctx.queue,
            &self.bufs.terrain,
            0,
            self.nx * self.ny,
        )
    }
}
