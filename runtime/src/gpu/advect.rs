//! Owner of the advection pass (`shaders/advect.wgsl`): conservative or semi-Lagrangian
//! advection of the face velocities.

use super::GpuError;
use super::kernel::{Bind, Kernel, dispatch};
use super::state::{Buffers, Config, GridUniform, SLOT_ADVECT};

const SOURCE: &str = concat!(
    "const LATE_SUM: bool = false;\n",
    include_str!("../../shaders/momentum.wgsl"),
    include_str!("../../shaders/advect.wgsl")
);

/// Workgroup edge of the lattice passes (advect, store).
pub(crate) const LATTICE: u32 = 16;

/// The advection pass.
pub(crate) struct AdvectPass {
    kernel: Kernel,
    group: wgpu::BindGroup,
}

impl AdvectPass {
    /// Compiles the pass for `config` and binds it to `bufs`.
    pub fn new(device: &wgpu::Device, config: &Config, bufs: &Buffers) -> Result<Self, GpuError> {
        let binds = [
            Bind::Uniform,
            Bind::ReadWrite,
            Bind::Read,
            Bind::Read,
            Bind::Read,
            Bind::Read,
            Bind::ReadWrite,
        ];
        let entry = if config.semi_lagrangian {
            "semi_lagrangian"
        } else {
            "conservative"
        };
        let kernel = Kernel::new(device, "advect", SOURCE, config, &binds, &[entry])?;
        let group = Self::bind(&kernel, device, bufs);
        Ok(Self { kernel, group })
    }

    fn bind(kernel: &Kernel, device: &wgpu::Device, b: &Buffers) -> wgpu::BindGroup {
        kernel.bind(
            device,
            "advect",
            &[&b.grid, &b.aux, &b.depth, &b.qx, &b.qy, &b.vel, &b.adv],
        )
    }

    /// Rebinds after buffers were replaced.
    pub fn rebind(&mut self, device: &wgpu::Device, bufs: &Buffers) {
        self.group = Self::bind(&self.kernel, device, bufs);
    }

    /// Records the pass (runs only while a sub-step is open).
    pub fn encode(&self, pass: &mut wgpu::ComputePass<'_>, grid: &GridUniform) {
        dispatch(
            pass,
            &self.kernel.pipelines[0],
            &self.group,
            grid.groups[SLOT_ADVECT],
        );
    }
}
