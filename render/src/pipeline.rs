//! What every pass builds alike: its bind-group layout from a list of [`Slot`]s, its bind group
//! from a list of resources, and its render pipeline ([`Pass`]) drawing triangles into the
//! frame's colour and depth targets. A pass states only what differs: its shader, bindings,
//! vertex buffers, blending and whether it writes depth.

use crate::target::DEPTH_FORMAT;

/// One binding of a pass, in binding order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A uniform block, seen by both stages.
    Uniform,
    /// A read-only storage buffer, seen by both stages.
    Storage,
    /// An unfilterable `f32` 2D texture read with `textureLoad`, seen by both stages.
    GridTexture,
    /// A depth texture read with `textureLoad` (`texture_depth_2d`), seen by both stages.
    DepthTexture,
}

/// The bind-group layout of `slots` (binding `i` is `slots[i]`).
pub fn layout(device: &wgpu::Device, label: &str, slots: &[Slot]) -> wgpu::BindGroupLayout {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = slots
        .iter()
        .enumerate()
        .map(|(i, slot)| {
            let buffer = |ty| wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            };
            let (visibility, ty) = match slot {
                Slot::Uniform => (
                    wgpu::ShaderStages::VERTEX_FRAGMENT,
                    buffer(wgpu::BufferBindingType::Uniform),
                ),
                Slot::Storage => (
                    wgpu::ShaderStages::VERTEX_FRAGMENT,
                    buffer(wgpu::BufferBindingType::Storage { read_only: true }),
                ),
                Slot::GridTexture => (
                    wgpu::ShaderStages::VERTEX_FRAGMENT,
                    wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                ),
                Slot::DepthTexture => (
                    wgpu::ShaderStages::VERTEX_FRAGMENT,
                    wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                ),
            };
            wgpu::BindGroupLayoutEntry {
                binding: i as u32,
                visibility,
                ty,
                count: None,
            }
        })
        .collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    })
}

/// A bind group of `layout` binding `resources` in order (binding `i` is `resources[i]`).
pub fn bind_group<'a>(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    resources: impl IntoIterator<Item = wgpu::BindingResource<'a>>,
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = resources
        .into_iter()
        .enumerate()
        .map(|(i, resource)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource,
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}

/// What one pass's render pipeline differs in.
pub struct Pass<'a> {
    /// Label of the shader, layout and pipeline.
    pub label: &'a str,
    /// The WGSL source, with entry points `vs_main` and `fs_main`; `globals.wgsl` (the uniform
    /// block every pass reads) is prepended to it.
    pub shader: &'a str,
    /// Its one bind group's layout.
    pub layout: &'a wgpu::BindGroupLayout,
    /// Its vertex buffers.
    pub buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
    /// How it blends into the colour target (`None`: replaces).
    pub blend: Option<wgpu::BlendState>,
    /// Whether it writes depth (transparent water tests depth but does not write it).
    pub depth_write: bool,
}

impl Pass<'_> {
    /// The pass's pipeline drawing into colour targets of `format`: triangle lists, not
    /// culled (the level's frame is left-handed and imported meshes are not always closed),
    /// tested against the frame's depth.
    pub fn build(
        &self,
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
    ) -> wgpu::RenderPipeline {
        let source = format!("{}{}", crate::scene::GLOBALS_WGSL, self.shader);
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(self.label),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(self.label),
            bind_group_layouts: &[Some(self.layout)],
            immediate_size: 0,
        });
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(self.label),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: self.buffers,
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleList,
                cull_mode: None,
                ..Default::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(self.depth_write),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend: self.blend,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        })
    }
}
