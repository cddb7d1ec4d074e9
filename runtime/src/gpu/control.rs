//! Owner of the control pass (`shaders/control.wgsl`): closes each sub-step, plans the
//! sub-steps of each step on the GPU and opens the sub-steps the step needs (or two of them as
//! one pair for the pair pass).

use super::GpuError;
use super::kernel::{Bind, Kernel};
use super::state::{Buffers, Config};

const SOURCE: &str = include_str!("../../shaders/control.wgsl");

/// The control pass.
pub(crate) struct ControlPass {
    kernel: Kernel,
    group: wgpu::BindGroup,
}

impl ControlPass {
    /// Compiles the pass for `config` and binds it to `bufs`.
    pub fn new(device: &wgpu::Device, config: &Config, bufs: &Buffers) -> Result<Self, GpuError> {
        let binds = [Bind::Uniform, Bind::ReadWrite, Bind::ReadWrite];
        let kernel = Kernel::new(
            device,
            "control",
            SOURCE,
            config,
            &binds,
            &[
                "begin_step",
                "next_substep",
                "finish",
                "begin_pair",
                "begin_split",
                "begin_pair_split",
            ],
        )?;
        let group = kernel.bind(device, "control", &[&bufs.grid, &bufs.aux, &bufs.view]);
        Ok(Self { kernel, group })
    }

    fn run(&self, pass: &mut wgpu::ComputePass<'_>, entry: usize) {
        pass.set_pipeline(&self.kernel.pipelines[entry]);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }

    /// Closes the last sub-step, plans the step and opens its first sub-step.
    pub fn begin_step(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.run(pass, 0);
    }

    /// Closes the last sub-step and opens the next one if the step needs it.
    pub fn next_substep(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.run(pass, 1);
    }

    /// Closes the last sub-step, plans the step and opens its first sub-step, or, where one
    /// sub-step twice as long is stable, opens it together with the next step's as one pair
    /// for the pair pass (the next step's begin then only closes the pair).
    pub fn begin_pair(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.run(pass, 3);
    }

    /// [`Self::begin_pair`], or, where the step takes two sub-steps or more (and does not pair
    /// with the next), opens its first two as one pair.
    pub fn begin_pair_split(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.run(pass, 5);
    }

    /// [`Self::begin_step`], opening the step's first two sub-steps as one pair for the pair
    /// pass where it takes two or more.
    pub fn begin_split(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.run(pass, 4);
    }

    /// Closes the last sub-step of a batch.
    pub fn finish(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.run(pass, 2);
    }
}
