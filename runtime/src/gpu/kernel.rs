//! Building blocks of the passes: WGSL assembly (prelude + common declarations + the pass's
//! file), bind group layouts, compute pipelines and error capture.

use std::sync::{Arc, Mutex};

use super::GpuError;
use super::state::Config;

/// Declarations shared by every pass.
const COMMON: &str = include_str!("../../shaders/common.wgsl");

/// How a binding is declared in WGSL.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Bind {
    Uniform,
    Read,
    ReadWrite,
}

/// One compiled pass: its bind group layout and a pipeline per entry point.
pub(crate) struct Kernel {
    pub layout: wgpu::BindGroupLayout,
    pub pipelines: Vec<wgpu::ComputePipeline>,
}

impl Kernel {
    /// Compiles `source` (a file of `shaders/`) specialised for `config`, with one pipeline per
    /// entry point in `entries`.
    pub fn new(
        device: &wgpu::Device,
        name: &'static str,
        source: &str,
        config: &Config,
        binds: &[Bind],
        entries: &[&str],
    ) -> Result<Self, GpuError> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let code = format!("{}{}{}", config.prelude(), COMMON, source);
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some(name),
            source: wgpu::ShaderSource::Wgsl(code.into()),
        };
        // SAFETY: the shaders are ours, not user content: every index is within its binding
        // (the CPU validates edit rectangles and sizes every buffer from the grid), every loop is
        // bounded by a constant or a uniform, and no integer division has a zero divisor. The
        // checks wgpu would add cost the memory-bound flow pass extra instructions per access.
        let module = unsafe {
            device.create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
        };
        let layout_entries: Vec<wgpu::BindGroupLayoutEntry> = binds
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupLayoutEntry {
                binding: i as u32,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: match b {
                        Bind::Uniform => wgpu::BufferBindingType::Uniform,
                        Bind::Read => wgpu::BufferBindingType::Storage { read_only: true },
                        Bind::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                    },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(name),
            entries: &layout_entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(name),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipelines = entries
            .iter()
            .map(|entry| {
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(name),
                    layout: Some(&pipeline_layout),
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    cache: None,
                })
            })
            .collect();
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(GpuError::Shader {
                pass: name,
                message: e.to_string(),
            });
        }
        Ok(Self { layout, pipelines })
    }

    /// A bind group of `buffers`, bound in order.
    pub fn bind(
        &self,
        device: &wgpu::Device,
        name: &str,
        buffers: &[&wgpu::Buffer],
    ) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(name),
            layout: &self.layout,
            entries: &entries,
        })
    }
}

/// Records `pipeline` with `group` over `groups` workgroups. The heavy passes are recorded for
/// every sub-step a step may take and return at once when the control pass did not open it
/// (direct dispatches: wgpu validates indirect ones with an extra dispatch each, which cost
/// more than the empty workgroups).
pub(crate) fn dispatch(
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    group: &wgpu::BindGroup,
    groups: [u32; 4],
) {
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, group, &[]);
    pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
}

/// Errors a device reported outside any error scope (a device we created ourselves).
#[derive(Clone, Default)]
pub(crate) struct ErrorSink(Arc<Mutex<Option<String>>>);

impl ErrorSink {
    /// Installs the sink as the device's handler of uncaptured errors, so they are reported by
    /// the next call instead of panicking.
    pub fn install(&self, device: &wgpu::Device) {
        let slot = self.0.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut s) = slot.lock() {
                s.get_or_insert_with(|| e.to_string());
            }
        }));
    }

    /// The first error seen since the last call, if any.
    pub fn take(&self) -> Option<String> {
        self.0.lock().ok().and_then(|mut s| s.take())
    }
}

/// Runs `f` with validation and out-of-memory errors captured into a `GpuError`.
pub(crate) fn captured<T>(
    device: &wgpu::Device,
    what: &str,
    f: impl FnOnce() -> T,
) -> Result<T, GpuError> {
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let out = f();
    let v = pollster::block_on(validation.pop());
    let o = pollster::block_on(oom.pop());
    match (o, v) {
        (Some(e), _) => Err(GpuError::OutOfMemory(format!("{what}: {e}"))),
        (None, Some(e)) => Err(GpuError::Device(format!("{what}: {e}"))),
        (None, None) => Ok(out),
    }
}

/// A kernel's bind group kept while the buffers it binds stay the same: a pass bound every
/// step (the blocked pass, the floaters' displacement) makes a new one only when the solver
/// replaced a buffer.
#[derive(Default)]
pub(crate) struct BoundGroup {
    bound: Vec<wgpu::Buffer>,
    group: Option<wgpu::BindGroup>,
}

impl BoundGroup {
    /// The group binding `buffers` to `kernel`, made again only where they changed.
    pub fn bind(
        &mut self,
        kernel: &Kernel,
        device: &wgpu::Device,
        name: &str,
        buffers: &[&wgpu::Buffer],
    ) -> &wgpu::BindGroup {
        let same = self.bound.len() == buffers.len()
            && self.bound.iter().zip(buffers).all(|(a, b)| a == *b);
        if !same || self.group.is_none() {
            self.bound = buffers.iter().map(|b| (*b).clone()).collect();
            self.group = Some(kernel.bind(device, name, buffers));
        }
        self.group.as_ref().expect("bound just above")
    }

    /// The group last bound, if any.
    pub fn group(&self) -> Option<&wgpu::BindGroup> {
        self.group.as_ref()
    }
}
