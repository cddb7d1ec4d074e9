//! `WaterPass`: owner of `water.wgsl`. Draws the live water surface over the terrain, in the
//! terrain's render pass and with its tiles, reading the GPU solver's storage buffers directly.

use bytemuck::{Pod, Zeroable};

use spillway::gpu::WaterView;

use crate::pipeline::{self, Pass, Slot};

/// How the water is coloured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WaterOverlay {
    /// Shaded water.
    #[default]
    None,
    /// A colour map of the depth.
    Depth,
    /// Speed colours with streaks moving along the flow.
    Velocity,
    /// Every wet cell in one colour.
    Flooded,
    /// Deeper (red) or shallower (blue) than the authored water.
    Difference,
}

impl WaterOverlay {
    /// Every overlay, in menu order.
    pub const ALL: [WaterOverlay; 5] = [
        WaterOverlay::None,
        WaterOverlay::Depth,
        WaterOverlay::Velocity,
        WaterOverlay::Flooded,
        WaterOverlay::Difference,
    ];

    /// The name shown in menus.
    pub fn name(self) -> &'static str {
        match self {
            WaterOverlay::None => "Shaded",
            WaterOverlay::Depth => "Depth",
            WaterOverlay::Velocity => "Velocity",
            WaterOverlay::Flooded => "Flooded",
            WaterOverlay::Difference => "Change",
        }
    }

    /// What the overlay shows, for tooltips.
    pub fn tip(self) -> &'static str {
        match self {
            WaterOverlay::None => "Water as it looks: depth colour, reflections, moving ripples",
            WaterOverlay::Depth => "Colour map of the depth, up to the deepest water",
            WaterOverlay::Velocity => "Colour map of the speed, with streaks moving with the flow",
            WaterOverlay::Flooded => "Every wet cell in red: the flooded area",
            WaterOverlay::Difference => {
                "Red where the water is deeper than authored, blue where shallower"
            }
        }
    }
}

/// How much of the water's look is drawn: lower qualities keep a large level interactive on a
/// small GPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WaterQuality {
    /// Colour and opacity from the depth, reflections and glints: the least work per pixel.
    Low,
    /// Also ripples and foam carried by the flow.
    Medium,
    /// Also the ground below seen through the water, refracted and absorbed colour by colour
    /// (one copy of the frame before the water).
    #[default]
    High,
}

impl WaterQuality {
    /// Every quality, in menu order.
    pub const ALL: [WaterQuality; 3] =
        [WaterQuality::Low, WaterQuality::Medium, WaterQuality::High];

    /// The name shown in menus.
    pub fn name(self) -> &'static str {
        match self {
            WaterQuality::Low => "Low",
            WaterQuality::Medium => "Medium",
            WaterQuality::High => "High",
        }
    }

    /// What the quality draws, for tooltips.
    pub fn tip(self) -> &'static str {
        match self {
            WaterQuality::Low => {
                "Depth colour, reflections and glints, and coarser ground far from the eye \
                 (quads up to 12 pixels wide): fastest, for large levels and small GPUs"
            }
            WaterQuality::Medium => {
                "Also ripples and foam moving with the flow; quads up to 6 pixels wide"
            }
            WaterQuality::High => {
                "Also the ground seen through the water, bent by its surface and fading to \
                 blue-green with depth; quads up to 3 pixels wide"
            }
        }
    }

    /// Widest the terrain's and the water's quads may look on screen, pixels: the level of
    /// detail the mesh is drawn with (fewer, larger quads draw faster).
    pub fn quad_pixels(self) -> f32 {
        match self {
            WaterQuality::Low => 12.0,
            WaterQuality::Medium => 6.0,
            WaterQuality::High => 3.0,
        }
    }
}

/// `struct Water` of `water.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct WaterUniform {
    ints: [u32; 4],
    floats: [f32; 4],
    /// Whether `wetted` holds the ground the water has wetted (1) or is a placeholder (0).
    wet: [u32; 4],
}

/// How to draw the water this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaterStyle {
    /// The overlay.
    pub overlay: WaterOverlay,
    /// Seconds of animation (detail normals, streaks).
    pub time: f32,
    /// Depth at the top of the depth colour map, metres.
    pub depth_scale: f32,
    /// Speed at the top of the velocity colour map, m/s.
    pub speed_scale: f32,
    /// How far the display is between the previous state (0) and the current one (1).
    pub blend: f32,
    /// How much of the look is drawn.
    pub quality: WaterQuality,
}

impl WaterStyle {
    /// Shaded water as a player sees it, `time` seconds into its animation.
    pub fn shaded(time: f32) -> Self {
        Self {
            overlay: WaterOverlay::None,
            time,
            depth_scale: 2.0,
            speed_scale: 3.0,
            blend: 1.0,
            quality: WaterQuality::High,
        }
    }
}

/// The water pipeline and its bindings.
pub(crate) struct WaterPass {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    uniform: wgpu::Buffer,
    /// The bound buffers, the generation of the bound frame copy, and the group.
    bound: Option<(WaterView, u64, wgpu::Texture, wgpu::BindGroup)>,
    /// Bound when the water keeps no record of the ground it wetted.
    never_wet: wgpu::Buffer,
}

/// The frame under the water that the pass samples: a copy of the frame before the water, or a
/// placeholder (`copied` false); `generation` changes when the texture is replaced.
pub(crate) struct Below<'a> {
    pub view: &'a wgpu::TextureView,
    /// The depth of the frame under the water (what lies in front of the water, and where).
    pub depth: &'a wgpu::TextureView,
    pub generation: u64,
    pub copied: bool,
}

impl WaterPass {
    /// Compiles the pass for colour targets of `format`; `tile_layout` is the terrain's
    /// per-instance tile vertex layout.
    pub fn new(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        tile_layout: wgpu::VertexBufferLayout<'_>,
    ) -> Self {
        use Slot::{DepthTexture, GridTexture, Storage, Uniform};
        let layout = pipeline::layout(
            device,
            "viewport water",
            &[
                Uniform,
                Storage,
                Storage,
                Storage,
                Storage,
                Storage,
                Uniform,
                GridTexture,
                Storage,
                GridTexture,
                Storage,
                DepthTexture,
            ],
        );
        let shader = format!(
            "{}{}",
            spillway::gpu::BLOCKERS_WGSL,
            include_str!("water.wgsl")
        );
        let pipeline = Pass {
            label: "viewport water",
            shader: &shader,
            layout: &layout,
            buffers: &[Some(tile_layout)],
            blend: Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
            depth_write: false,
        }
        .build(device, format);
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("viewport water uniform"),
            size: std::mem::size_of::<WaterUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let never_wet = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("viewport water: no wet ground"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        Self {
            pipeline,
            layout,
            uniform,
            bound: None,
            never_wet,
        }
    }

    /// Binds `water` (rebinding only when its buffers or the frame copy changed) and uploads
    /// `style`. `globals` is the terrain's uniform block; `authored` the depths the Change
    /// overlay compares with (a compared branch's, or the document's water: a change of it
    /// rebinds too); `below` the frame under the water.
    pub fn prepare(
        &mut self,
        (device, queue): (&wgpu::Device, &wgpu::Queue),
        water: &WaterView,
        style: &WaterStyle,
        (globals, authored): (&wgpu::Buffer, &wgpu::Texture),
        below: Below<'_>,
    ) {
        let same = self
            .bound
            .as_ref()
            .is_some_and(|(b, generation, reference, _)| {
                *generation == below.generation
                    && reference == authored
                    && b.depth == water.depth
                    && b.terrain == water.terrain
                    && b.flow_x == water.flow_x
                    && b.flow_y == water.flow_y
                    && b.view == water.view
                    && b.blockers == water.blockers
                    && b.wetted == water.wetted
            });
        if !same {
            let authored_view = authored.create_view(&wgpu::TextureViewDescriptor::default());
            let resources = [
                globals.as_entire_binding(),
                water.terrain.as_entire_binding(),
                water.depth.as_entire_binding(),
                water.flow_x.as_entire_binding(),
                water.flow_y.as_entire_binding(),
                water.view.as_entire_binding(),
                self.uniform.as_entire_binding(),
                wgpu::BindingResource::TextureView(&authored_view),
                water.blockers.as_entire_binding(),
                wgpu::BindingResource::TextureView(below.view),
                water
                    .wetted
                    .as_ref()
                    .unwrap_or(&self.never_wet)
                    .as_entire_binding(),
                wgpu::BindingResource::TextureView(below.depth),
            ];
            let group = pipeline::bind_group(device, "viewport water", &self.layout, resources);
            self.bound = Some((water.clone(), below.generation, authored.clone(), group));
        }
        let u = WaterUniform {
            ints: [
                water.depth_half,
                style.overlay as u32,
                style.quality as u32,
                below.copied as u32,
            ],
            floats: [
                style.blend.clamp(0.0, 1.0),
                style.time,
                style.depth_scale.max(1e-3),
                style.speed_scale.max(1e-3),
            ],
            wet: [water.wetted.is_some() as u32, 0, 0, 0],
        };
        queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&u));
    }

    /// Forgets the bound buffers (the simulation was dropped).
    pub fn unbind(&mut self) {
        self.bound = None;
    }

    /// Records the draw into the terrain's pass (tiles and indices already set).
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) -> bool {
        let Some((_, _, _, group)) = &self.bound else {
            return false;
        };
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, group, &[]);
        true
    }
}
