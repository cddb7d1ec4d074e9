//! Owner of the store pass (`shaders/store.wgsl`): face velocities from the limited
//! discharges, and the largest face speed.

use super::GpuError;
use super::advect::LATTICE;
use super::kernel::{Bind, Kernel, dispatch};
use super::state::{Buffers, Config, GridUniform, SLOT_STORE};

const SOURCE: &str = concat!(
    "const LATE_SUM: bool = false;\n",
    include_str!("../../shaders/momentum.wgsl"),
    include_str!("../../shaders/store.wgsl")
);

/// The store pass.
pub(crate) struct StorePass {
    kernel: Kernel,
    group: wgpu::BindGroup,
}

impl StorePass {
    /// Compiles the pass for `config` and binds it to `bufs`.
    pub fn new(device: &wgpu::Device, config: &Config, bufs: &Buffers) -> Result<Self, GpuError> {
        let binds = [
            Bind::Uniform,
            Bind::ReadWrite,
            Bind::Read,
            Bind::Read,
            Bind::Read,
            Bind::ReadWrite,
        ];
        let kernel = Kernel::new(
            device,
            "store",
            SOURCE,
            config,
            &binds,
            &["after_step", "initial"],
        )?;
        let group = Self::bind(&kernel, device, bufs);
        Ok(Self { kernel, group })
    }

    fn bind(kernel: &Kernel, device: &wgpu::Device, b: &Buffers) -> wgpu::BindGroup {
        kernel.bind(
            device,
            "store",
            &[&b.grid, &b.aux, &b.depth, &b.qx, &b.qy, &b.vel],
        )
    }

    /// Rebinds after buffers were replaced.
    pub fn rebind(&mut self, device: &wgpu::Device, bufs: &Buffers) {
        self.group = Self::bind(&self.kernel, device, bufs);
    }

    /// Records the pass after a flow pass (runs only while a sub-step is open).
    pub fn encode(&self, pass: &mut wgpu::ComputePass<'_>, grid: &GridUniform) {
        dispatch(
            pass,
            &self.kernel.pipelines[0],
            &self.group,
            grid.groups[SLOT_STORE],
        );
    }

    /// Records the start-up pass: velocities of the current discharges of an `nx × ny` grid.
    pub fn encode_initial(&self, pass: &mut wgpu::ComputePass<'_>, nx: usize, ny: usize) {
        pass.set_pipeline(&self.kernel.pipelines[1]);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups(
            (nx as u32 + 1).div_ceil(LATTICE),
            (ny as u32 + 1).div_ceil(LATTICE),
            1,
        );
    }
}
