//! Owner of the maps pass (`shaders/maps.wgsl`): the maps of a run kept on the GPU, folded in
//! after every step as `Simulation` does on the CPU (`sim::maps`), read back on demand.

use super::GpuError;
use super::kernel::{Bind, BoundGroup, Kernel, captured};
use super::state::{Buffers, Config};
use crate::sim::maps::NEVER;

const SOURCE: &str = concat!(
    include_str!("../../shaders/fold.wgsl"),
    include_str!("../../shaders/maps.wgsl")
);

/// Cells per workgroup (`@workgroup_size` of maps.wgsl).
const GROUP: usize = 256;
/// The most workgroups along one dispatch dimension.
const MAX_GROUPS: usize = 65535;

/// The maps pass and the maps it keeps.
pub(crate) struct MapsPass {
    kernel: Kernel,
    /// Max depth, max speed, arrival (time + 1 s; 0: not yet) and hazard, `cells` f32 each.
    pub maps: [wgpu::Buffer; 4],
    group: BoundGroup,
    groups: [u32; 2],
    /// Where the fused flow pass folds the maps in, it does so every `stride`-th step and at
    /// the last step of every call (1: every step; `GpuSimulation::set_maps_stride`).
    pub stride: usize,
}

impl MapsPass {
    /// Compiles the pass for `config`, with maps of `cells` cells where nothing happened yet.
    pub fn new(
        device: &wgpu::Device,
        config: &Config,
        bufs: &Buffers,
        cells: usize,
    ) -> Result<Self, GpuError> {
        let rw = Bind::ReadWrite;
        let binds = [
            Bind::Uniform,
            rw,
            Bind::Read,
            Bind::Read,
            Bind::Read,
            rw,
            rw,
            rw,
            rw,
        ];
        let kernel = Kernel::new(device, "maps", SOURCE, config, &binds, &["update"])?;
        let map = || {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("map of the run"),
                size: (4 * cells).max(16) as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        // New buffers are zeroed: no depth, no speed, not arrived.
        let maps = captured(device, "allocating the maps of the run", || {
            [map(), map(), map(), map()]
        })?;
        let total = cells.div_ceil(GROUP).max(1);
        let x = total.min(MAX_GROUPS);
        let groups = [x as u32, total.div_ceil(x) as u32];
        let mut group = BoundGroup::default();
        Self::bind(&mut group, &kernel, device, bufs, &maps);
        Ok(Self {
            kernel,
            maps,
            group,
            groups,
            stride: 1,
        })
    }

    fn bind(
        group: &mut BoundGroup,
        kernel: &Kernel,
        device: &wgpu::Device,
        b: &Buffers,
        maps: &[wgpu::Buffer; 4],
    ) {
        let [d, s, a, h] = maps;
        group.bind(
            kernel,
            device,
            "maps",
            &[&b.grid, &b.aux, &b.depth, &b.qx, &b.qy, d, s, a, h],
        );
    }

    /// Rebinds to `bufs` (a group made again only where some were replaced since).
    pub fn rebind(&mut self, device: &wgpu::Device, bufs: &Buffers) {
        Self::bind(&mut self.group, &self.kernel, device, bufs, &self.maps);
    }

    /// Records the fold of the current state.
    pub fn encode(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(&self.kernel.pipelines[0]);
        pass.set_bind_group(0, self.group.group(), &[]);
        pass.dispatch_workgroups(self.groups[0], self.groups[1], 1);
    }
}

/// The arrival map as read back (the complement of the bits of time + 1 s, 0: not yet; see
/// `shaders/fold.wgsl`) in the CPU's form: the GPU's clock counts from the level's start,
/// `time_base` (a level saved at 4 h stamped its first arrivals 0 s, the CPU 14400 s).
pub(crate) fn arrival_from_gpu(stored: &mut [f32], time_base: f64) {
    for v in stored {
        let bits = v.to_bits();
        *v = if bits == 0 {
            NEVER
        } else {
            (time_base + f32::from_bits(!bits) as f64 - 1.0) as f32
        };
    }
}

impl super::GpuSimulation {
    /// The maps of the run since [`Self::record_maps`] (waits for the recorded steps), or
    /// `None` if they are not kept.
    pub fn read_maps(&self) -> Result<Option<crate::sim::maps::RunMaps>, GpuError> {
        use crate::sim::maps::MapKind;
        let read = |kind| self.read_map(kind).map(|g| g.map(|g| g.data));
        let (Some(max_depth), Some(max_speed), Some(arrival), Some(hazard)) = (
            read(MapKind::MaxDepth)?,
            read(MapKind::MaxSpeed)?,
            read(MapKind::Arrival)?,
            read(MapKind::Hazard)?,
        ) else {
            return Ok(None);
        };
        Ok(Some(crate::sim::maps::RunMaps {
            nx: self.nx,
            ny: self.ny,
            max_depth,
            max_speed,
            arrival,
            hazard,
        }))
    }

    /// One map of the run (as [`Self::read_maps`], reading back a quarter of it: what an
    /// overlay of one map needs), or `None` if they are not kept.
    pub fn read_map(
        &self,
        kind: crate::sim::maps::MapKind,
    ) -> Result<Option<crate::Grid>, GpuError> {
        use crate::sim::maps::MapKind;
        let Some(m) = &self.maps else {
            return Ok(None);
        };
        self.check_device()?;
        let k = match kind {
            MapKind::MaxDepth => 0,
            MapKind::MaxSpeed => 1,
            MapKind::Arrival => 2,
            MapKind::Hazard => 3,
        };
        let cells = self.nx * self.ny;
        let device = &self.ctx.device;
        let mut data = super::readback::read_f32(device, &self.ctx.queue, &m.maps[k], 0, cells)?;
        if kind == MapKind::Arrival {
            super::maps::arrival_from_gpu(&mut data, self.time_base);
        }
        Ok(Some(crate::Grid {
            nx: self.nx,
            ny: self.ny,
            data,
        }))
    }
}
