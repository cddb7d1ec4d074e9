//! Owner of the region pass (`shaders/region.wgsl`): uploads of a rectangle of terrain or
//! water that take effect at the next step.

use super::GpuError;
use super::advect::LATTICE;
use super::kernel::{Bind, BoundGroup, Kernel};
use super::state::{Buffers, Config};

const SOURCE: &str = include_str!("../../shaders/region.wgsl");

/// What a region upload replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    Terrain,
    Water,
}

/// The region pass.
pub(crate) struct RegionPass {
    kernel: Kernel,
    /// The list-of-cells changes of the last [`Self::cells`], kept for the next (the
    /// floaters' displacement uploads one every coupled step).
    cells: Option<wgpu::Buffer>,
    /// The bind group of the last [`Self::encode_cells`].
    cells_group: BoundGroup,
}

impl RegionPass {
    /// Compiles the pass for `config`.
    pub fn new(device: &wgpu::Device, config: &Config) -> Result<Self, GpuError> {
        let rw = Bind::ReadWrite;
        let binds = [Bind::Uniform, rw, rw, rw, rw, Bind::Read, Bind::Uniform, rw];
        let kernel = Kernel::new(
            device,
            "region",
            SOURCE,
            config,
            &binds,
            &["terrain_rect", "water_rect", "water_cells"],
        )?;
        Ok(Self {
            kernel,
            cells: None,
            cells_group: BoundGroup::default(),
        })
    }

    /// Uploads `words` (cell bits and depth change, pairs) into the pass's list buffer, grown
    /// when too small, and returns it for [`Self::encode_cells`].
    pub fn cells(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        words: &[f32],
    ) -> wgpu::Buffer {
        let size = (4 * words.len() as u64).max(16);
        if self.cells.as_ref().is_none_or(|b| b.size() < size) {
            self.cells = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("displaced water"),
                size: size.next_power_of_two().max(4096),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        let buffer = self.cells.clone().expect("made just above");
        queue.write_buffer(&buffer, 0, bytemuck::cast_slice(words));
        buffer
    }

    /// Records the upload of `src` (a `size.0 × size.1` staging buffer) into `target` at the
    /// rectangle held by `bufs.rect`.
    pub fn encode(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        bufs: &Buffers,
        src: &wgpu::Buffer,
        target: Target,
        size: (u32, u32),
    ) {
        let (w, h) = size;
        let group = self.kernel.bind(
            device,
            "region",
            &[
                &bufs.grid,
                &bufs.aux,
                &bufs.terrain,
                &bufs.depth,
                &bufs.carry,
                src,
                &bufs.rect,
                &bufs.ledger,
            ],
        );
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("region"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, &group, &[]);
        match target {
            Target::Terrain => {
                pass.set_pipeline(&self.kernel.pipelines[0]);
                pass.dispatch_workgroups(w.div_ceil(LATTICE), h.div_ceil(LATTICE), 1);
            }
            Target::Water => {
                // One workgroup: it alone books the volume change.
                pass.set_pipeline(&self.kernel.pipelines[1]);
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
    }

    /// Records the list-of-cells water change of `src` (pairs of cell bits and depth change;
    /// the count in `bufs.rect`): one workgroup, which alone books the volume change.
    pub fn encode_cells(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        bufs: &Buffers,
        src: &wgpu::Buffer,
    ) {
        let group = self.cells_group.bind(
            &self.kernel,
            device,
            "region",
            &[
                &bufs.grid,
                &bufs.aux,
                &bufs.terrain,
                &bufs.depth,
                &bufs.carry,
                src,
                &bufs.rect,
                &bufs.ledger,
            ],
        );
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("region cells"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, group, &[]);
        pass.set_pipeline(&self.kernel.pipelines[2]);
        pass.dispatch_workgroups(1, 1, 1);
    }
}
