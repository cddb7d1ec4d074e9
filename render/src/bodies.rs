//! `BodyPass`: owner of `bodies.wgsl`. Draws rigid body meshes in the terrain's render pass,
//! after the terrain and before the water, from a plain list of [`BodyInstance`]s given each
//! frame (mesh id, world pose, colour, selected): the editor builds it from the document, and a
//! running physics preview can give simulated poses instead. Each mesh is uploaded once.
//! Ghosts (placement previews, opacity below 1) are drawn last, over the water, writing no
//! depth: the water behind one shows through it.

use std::collections::HashMap;

use bytemuck::{Pod, Zeroable};
use spillway::body::{Pose, TriMesh};
use wgpu::util::DeviceExt;

use crate::pipeline::{self, Pass, Slot};

/// Identifies one body mesh: the renderer uploads each id once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MeshId(pub u32);

/// One body to draw this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyInstance {
    /// Its mesh (uploaded with [`crate::TerrainRenderer::upload_body_mesh`]).
    pub mesh: MeshId,
    /// Where it stands in the world.
    pub pose: Pose,
    /// Linear RGB albedo and opacity (below 1: a ghost, drawn after the water, see-through).
    pub colour: [f32; 4],
    /// Drawn highlighted.
    pub selected: bool,
}

/// One vertex: position and flat normal in the body's frame.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Vertex {
    position: [f32; 3],
    normal: [f32; 3],
}

/// One instance: world matrix columns, normal matrix columns, colour, flags.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Instance {
    model: [[f32; 4]; 4],
    normal: [[f32; 4]; 3],
    colour: [f32; 4],
    flags: [f32; 4],
}

impl Instance {
    fn of(b: &BodyInstance) -> Self {
        let p = &b.pose;
        let axis = |k: usize| {
            let mut e = [0.0; 3];
            e[k] = 1.0;
            p.rotate(e)
        };
        let mut model = [[0.0; 4]; 4];
        let mut normal = [[0.0; 4]; 3];
        for k in 0..3 {
            let r = axis(k);
            let s = p.scale[k];
            let inv = if s.abs() > 1e-12 { 1.0 / s } else { 0.0 };
            model[k] = [r[0] * s, r[1] * s, r[2] * s, 0.0];
            normal[k] = [r[0] * inv, r[1] * inv, r[2] * inv, 0.0];
        }
        let t = p.translation;
        model[3] = [t[0], t[1], t[2], 1.0];
        Self {
            model,
            normal,
            colour: b.colour,
            flags: [if b.selected { 1.0 } else { 0.0 }, 0.0, 0.0, 0.0],
        }
    }
}

/// A mesh on the GPU: flat-shaded triangles, three vertices each.
struct GpuMesh {
    vertices: wgpu::Buffer,
    count: u32,
}

/// The body pipeline, the uploaded meshes and this frame's instances.
pub(crate) struct BodyPass {
    pipeline: wgpu::RenderPipeline,
    /// The same, writing no depth: for ghosts.
    ghost_pipeline: wgpu::RenderPipeline,
    bind: wgpu::BindGroup,
    meshes: HashMap<MeshId, GpuMesh>,
    instances: wgpu::Buffer,
    capacity: usize,
    /// This frame's draws: mesh, instance range and whether they are ghosts.
    draws: Vec<(MeshId, std::ops::Range<u32>, bool)>,
}

fn instance_buffer(device: &wgpu::Device, capacity: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("viewport body instances"),
        size: (capacity * std::mem::size_of::<Instance>()) as u64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl BodyPass {
    /// Compiles the pass for colour targets of `format`; `globals` is the terrain's uniform
    /// block (camera and sun).
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat, globals: &wgpu::Buffer) -> Self {
        let layout = pipeline::layout(device, "viewport bodies", &[Slot::Uniform]);
        let bind = pipeline::bind_group(
            device,
            "viewport bodies",
            &layout,
            [globals.as_entire_binding()],
        );
        const VERTEX: [wgpu::VertexAttribute; 2] =
            wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
        const INSTANCE: [wgpu::VertexAttribute; 9] = wgpu::vertex_attr_array![
            2 => Float32x4, 3 => Float32x4, 4 => Float32x4, 5 => Float32x4,
            6 => Float32x4, 7 => Float32x4, 8 => Float32x4, 9 => Float32x4, 10 => Float32x4
        ];
        let pass = |label, depth_write| Pass {
            label,
            shader: include_str!("bodies.wgsl"),
            layout: &layout,
            buffers: &[
                Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<Vertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &VERTEX,
                }),
                Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<Instance>() as u64,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: &INSTANCE,
                }),
            ],
            blend: Some(wgpu::BlendState::ALPHA_BLENDING),
            depth_write,
        };
        let pipeline = pass("viewport bodies", true).build(device, format);
        let ghost_pipeline = pass("viewport ghosts", false).build(device, format);
        let capacity = 64;
        Self {
            pipeline,
            ghost_pipeline,
            bind,
            meshes: HashMap::new(),
            instances: instance_buffer(device, capacity),
            capacity,
            draws: Vec::new(),
        }
    }

    /// Drops every uploaded mesh but those of `keep` (a mesh parsed again gets a new id: the
    /// old one's vertices stayed on the GPU for good).
    pub fn keep_meshes(&mut self, keep: &[MeshId]) {
        self.meshes.retain(|id, _| keep.contains(id));
    }

    /// How many meshes are uploaded.
    pub fn mesh_count(&self) -> usize {
        self.meshes.len()
    }

    /// Whether mesh `id` is uploaded.
    pub fn has_mesh(&self, id: MeshId) -> bool {
        self.meshes.contains_key(&id)
    }

    /// Uploads `mesh` as `id` (flat-shaded: three vertices per triangle).
    pub fn upload_mesh(&mut self, device: &wgpu::Device, id: MeshId, mesh: &TriMesh) {
        let at = |i: u32| mesh.positions.get(i as usize).copied().unwrap_or_default();
        let mut vertices = Vec::with_capacity(mesh.triangles.len() * 3);
        for t in &mesh.triangles {
            let [a, b, c] = t.map(at);
            let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let n = [
                e1[1] * e2[2] - e1[2] * e2[1],
                e1[2] * e2[0] - e1[0] * e2[2],
                e1[0] * e2[1] - e1[1] * e2[0],
            ];
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt().max(1e-20);
            let normal = n.map(|v| v / len);
            for position in [a, b, c] {
                vertices.push(Vertex { position, normal });
            }
        }
        if vertices.is_empty() {
            return;
        }
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("viewport body mesh"),
            contents: bytemuck::cast_slice(&vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        self.meshes.insert(
            id,
            GpuMesh {
                vertices: buffer,
                count: vertices.len() as u32,
            },
        );
    }

    /// Writes this frame's instances: solid bodies first, then ghosts, grouped by mesh.
    /// Instances of meshes not uploaded are skipped.
    pub fn prepare(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, bodies: &[BodyInstance]) {
        let mut sorted: Vec<&BodyInstance> = bodies
            .iter()
            .filter(|b| self.meshes.contains_key(&b.mesh))
            .collect();
        sorted.sort_by_key(|b| (b.colour[3] < 1.0, b.mesh));
        self.draws.clear();
        if sorted.is_empty() {
            return;
        }
        if sorted.len() > self.capacity {
            self.capacity = sorted.len().next_power_of_two();
            self.instances = instance_buffer(device, self.capacity);
        }
        let data: Vec<Instance> = sorted.iter().map(|b| Instance::of(b)).collect();
        queue.write_buffer(&self.instances, 0, bytemuck::cast_slice(&data));
        let mut start = 0u32;
        for (i, b) in sorted.iter().enumerate() {
            let next = sorted.get(i + 1);
            let ends =
                next.is_none_or(|n| (n.colour[3] < 1.0, n.mesh) != (b.colour[3] < 1.0, b.mesh));
            if ends {
                let end = i as u32 + 1;
                self.draws.push((b.mesh, start..end, b.colour[3] < 1.0));
                start = end;
            }
        }
    }

    /// Draws the prepared solid bodies (`ghosts` false) or ghosts into `pass`.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, ghosts: bool) {
        if !self.draws.iter().any(|d| d.2 == ghosts) {
            return;
        }
        pass.set_pipeline(if ghosts {
            &self.ghost_pipeline
        } else {
            &self.pipeline
        });
        pass.set_bind_group(0, &self.bind, &[]);
        pass.set_vertex_buffer(1, self.instances.slice(..));
        for (id, range, _) in self.draws.iter().filter(|d| d.2 == ghosts) {
            if let Some(mesh) = self.meshes.get(id) {
                pass.set_vertex_buffer(0, mesh.vertices.slice(..));
                pass.draw(0..mesh.count, range.clone());
            }
        }
    }
}
