//! The renderer: one pipeline each for the terrain, the bodies and the water (`scene.wgsl`),
//! sharing one bind group with the camera block and the GPU solver's terrain, depth and view
//! buffers, so the water is drawn from the solver's own buffers without a CPU copy.

use bytemuck::{Pod, Zeroable};
use spillway::body::{Pose, TriMesh};
use spillway::gpu::GpuSimulation;
use wgpu::util::DeviceExt;

use super::camera::Mat4;

/// Depth buffer format.
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// `struct Globals` of `scene.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct Globals {
    /// Camera view-projection.
    pub view_proj: Mat4,
    /// Eye position and haze distance.
    pub eye: [f32; 4],
    /// Direction to the sun and seconds of animation.
    pub sun: [f32; 4],
    /// nx, ny, cell size, unused.
    pub level: [f32; 4],
    /// Lowest and highest terrain, unused, unused.
    pub heights: [f32; 4],
}

/// One vertex of a body mesh: position and flat normal in the body's frame.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Vertex {
    position: [f32; 3],
    normal: [f32; 3],
}

/// One body instance: world matrix columns and colour.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Instance {
    model: Mat4,
    colour: [f32; 4],
}

/// A body mesh on the GPU: flat-shaded triangles, three vertices each.
pub struct Mesh {
    vertices: wgpu::Buffer,
    count: u32,
}

impl Mesh {
    /// Uploads `mesh` with a flat normal per triangle.
    pub fn new(device: &wgpu::Device, mesh: &TriMesh) -> Self {
        let mut vertices = Vec::with_capacity(3 * mesh.triangles.len());
        for t in &mesh.triangles {
            let [a, b, c] = t.map(|i| mesh.positions.get(i as usize).copied().unwrap_or_default());
            let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let normal = super::camera::normalized(super::camera::cross(e1, e2));
            vertices.extend([a, b, c].map(|position| Vertex { position, normal }));
        }
        let count = vertices.len() as u32;
        vertices.resize(vertices.len().max(1), Vertex::zeroed());
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("body mesh"),
            contents: bytemuck::cast_slice(&vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        Self { vertices, count }
    }
}

/// A body to draw this frame: its mesh, where it stands and its colour (linear RGB).
pub struct Draw<'a> {
    /// The mesh.
    pub mesh: &'a Mesh,
    /// Its pose.
    pub pose: Pose,
    /// Albedo.
    pub colour: [f32; 3],
}

/// The world matrix of `pose` (columns).
fn model(pose: &Pose) -> Mat4 {
    let mut m = [[0.0; 4]; 4];
    for (k, col) in m.iter_mut().take(3).enumerate() {
        let mut e = [0.0; 3];
        e[k] = pose.scale[k];
        let r = pose.rotate(e);
        *col = [r[0], r[1], r[2], 0.0];
    }
    let t = pose.translation;
    m[3] = [t[0], t[1], t[2], 1.0];
    m
}

/// The scene's bind group: globals, the solver's terrain, depth, view and blocker buffers.
fn bind_group(
    sim: &GpuSimulation,
    layout: &wgpu::BindGroupLayout,
    globals: &wgpu::Buffer,
) -> wgpu::BindGroup {
    let buffers = [
        globals,
        sim.terrain_buffer(),
        sim.depth_buffer(),
        sim.view_buffer(),
        sim.blocker_view(),
    ];
    let entries: Vec<wgpu::BindGroupEntry> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: b.as_entire_binding(),
        })
        .collect();
    sim.device().create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("game scene"),
        layout,
        entries: &entries,
    })
}

/// The pipelines, the shared bind group, the grid index buffer and the depth buffer.
pub struct Renderer {
    globals: wgpu::Buffer,
    layout: wgpu::BindGroupLayout,
    bind: wgpu::BindGroup,
    /// The blocker buffer `bind` was made with (the solver replaces it as blockers grow).
    blockers: wgpu::Buffer,
    terrain: wgpu::RenderPipeline,
    water: wgpu::RenderPipeline,
    bodies: wgpu::RenderPipeline,
    /// Two triangles per square of four neighbouring cell centres.
    grid: wgpu::Buffer,
    grid_indices: u32,
    instances: wgpu::Buffer,
    instance_capacity: usize,
    depth: Option<(wgpu::TextureView, [u32; 2])>,
}

fn entry(binding: u32, ty: wgpu::BufferBindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// Indices of the triangles joining the cell centres of an `nx × ny` grid.
fn grid_indices(nx: u32, ny: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(6 * (nx.max(1) - 1) as usize * (ny.max(1) - 1) as usize);
    for y in 0..ny.saturating_sub(1) {
        for x in 0..nx.saturating_sub(1) {
            let i = y * nx + x;
            out.extend([i, i + 1, i + nx, i + 1, i + nx + 1, i + nx]);
        }
    }
    out
}

fn instance_buffer(device: &wgpu::Device, capacity: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("body instances"),
        size: (capacity * std::mem::size_of::<Instance>()) as u64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl Renderer {
    /// Compiles the pipelines for colour targets of `format` and binds `sim`'s buffers.
    pub fn new(sim: &GpuSimulation, format: wgpu::TextureFormat) -> Self {
        let device = sim.device();
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("game scene"),
            source: wgpu::ShaderSource::Wgsl(
                format!(
                    "{}{}",
                    spillway::gpu::BLOCKERS_WGSL,
                    include_str!("scene.wgsl")
                )
                .into(),
            ),
        });
        let storage = wgpu::BufferBindingType::Storage { read_only: true };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("game scene"),
            entries: &[
                entry(0, wgpu::BufferBindingType::Uniform),
                entry(1, storage),
                entry(2, storage),
                entry(3, storage),
                entry(4, storage),
            ],
        });
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("game globals"),
            size: std::mem::size_of::<Globals>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind = bind_group(sim, &layout, &globals);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("game scene"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        const BODY_VERTEX: [wgpu::VertexAttribute; 2] =
            wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
        const BODY_INSTANCE: [wgpu::VertexAttribute; 5] = wgpu::vertex_attr_array![
            2 => Float32x4, 3 => Float32x4, 4 => Float32x4, 5 => Float32x4, 6 => Float32x4
        ];
        let body_buffers = [
            Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<Vertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &BODY_VERTEX,
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<Instance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &BODY_INSTANCE,
            }),
        ];
        let pipeline = |name: &str, buffers: &[Option<wgpu::VertexBufferLayout>], water: bool| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(name),
                layout: Some(&pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &shader,
                    entry_point: Some(&format!("{name}_vs")),
                    compilation_options: Default::default(),
                    buffers,
                },
                // The level's frame is left-handed (y down the rows): no culling.
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    // Transparent water is drawn last, tested against but not hiding the rest.
                    depth_write_enabled: Some(!water),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &shader,
                    entry_point: Some(&format!("{name}_fs")),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format,
                        blend: water.then_some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let indices = grid_indices(sim.nx() as u32, sim.ny() as u32);
        let grid = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("cell grid"),
            contents: bytemuck::cast_slice(if indices.is_empty() {
                &[0u32; 3]
            } else {
                &indices
            }),
            usage: wgpu::BufferUsages::INDEX,
        });
        Self {
            terrain: pipeline("terrain", &[], false),
            water: pipeline("water", &[], true),
            bodies: pipeline("body", &body_buffers, false),
            globals,
            bind,
            layout,
            blockers: sim.blocker_view().clone(),
            grid,
            grid_indices: indices.len() as u32,
            instances: instance_buffer(device, 64),
            instance_capacity: 64,
            depth: None,
        }
    }

    /// A depth buffer of `size`, kept while the size stays.
    fn depth_view(&mut self, device: &wgpu::Device, size: [u32; 2]) -> wgpu::TextureView {
        if let Some((view, s)) = &self.depth
            && *s == size
        {
            return view.clone();
        }
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("game depth"),
            size: wgpu::Extent3d {
                width: size[0],
                height: size[1],
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        self.depth = Some((view.clone(), size));
        view
    }

    /// Draws one frame into `target` (of `size` pixels): terrain, then bodies, then water.
    pub fn draw(
        &mut self,
        sim: &GpuSimulation,
        target: &wgpu::TextureView,
        size: [u32; 2],
        globals: &Globals,
        bodies: &[Draw],
    ) {
        let (device, queue) = (sim.device(), sim.queue());
        if &self.blockers != sim.blocker_view() {
            self.bind = bind_group(sim, &self.layout, &self.globals);
            self.blockers = sim.blocker_view().clone();
        }
        queue.write_buffer(&self.globals, 0, bytemuck::bytes_of(globals));
        let instances: Vec<Instance> = bodies
            .iter()
            .map(|b| Instance {
                model: model(&b.pose),
                colour: [b.colour[0], b.colour[1], b.colour[2], 1.0],
            })
            .collect();
        if instances.len() > self.instance_capacity {
            self.instance_capacity = instances.len().next_power_of_two();
            self.instances = instance_buffer(device, self.instance_capacity);
        }
        queue.write_buffer(&self.instances, 0, bytemuck::cast_slice(&instances));
        let depth = self.depth_view(device, size);
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("game scene"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        // The haze colour, sRGB-encoded: the sky the terrain fades into.
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: 0.77,
                            g: 0.84,
                            b: 0.91,
                            a: 1.0,
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.bind, &[]);
            pass.set_index_buffer(self.grid.slice(..), wgpu::IndexFormat::Uint32);
            pass.set_pipeline(&self.terrain);
            pass.draw_indexed(0..self.grid_indices, 0, 0..1);
            pass.set_pipeline(&self.bodies);
            pass.set_vertex_buffer(1, self.instances.slice(..));
            for (k, b) in bodies.iter().enumerate().filter(|(_, b)| b.mesh.count > 0) {
                pass.set_vertex_buffer(0, b.mesh.vertices.slice(..));
                pass.draw(0..b.mesh.count, k as u32..k as u32 + 1);
            }
            pass.set_pipeline(&self.water);
            pass.draw_indexed(0..self.grid_indices, 0, 0..1);
        }
        queue.submit([encoder.finish()]);
    }
}

/// Copies `texture` (RGBA or BGRA, 8 bits per channel) back as tightly packed RGBA rows,
/// waiting for the GPU.
pub fn read_rgba(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
) -> Result<Vec<u8>, String> {
    let (w, h) = (texture.width(), texture.height());
    let row = w * 4;
    let padded =
        row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("screenshot"),
        size: padded as u64 * h as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: Some(h),
            },
        },
        texture.size(),
    );
    queue.submit([encoder.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    buffer.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| format!("waiting for the GPU failed: {e}"))?;
    rx.recv()
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("mapping the screenshot failed: {e}"))?;
    let view = buffer.get_mapped_range(..).map_err(|e| e.to_string())?;
    let bgra = matches!(
        texture.format().remove_srgb_suffix(),
        wgpu::TextureFormat::Bgra8Unorm
    );
    let mut out = Vec::with_capacity((row * h) as usize);
    for y in 0..h as usize {
        let start = y * padded as usize;
        for px in view[start..start + row as usize].chunks_exact(4) {
            let (r, b) = if bgra { (px[2], px[0]) } else { (px[0], px[2]) };
            out.extend_from_slice(&[r, px[1], b, 255]);
        }
    }
    drop(view);
    buffer.unmap();
    Ok(out)
}
