//! `TerrainRenderer`: draws the level with wgpu, offscreen into its own colour and depth
//! textures ([`crate::target`]) or into a caller's colour target ([`TerrainRenderer::render_to`]),
//! from height and water textures that edits update in place ([`crate::terrain`]), the GPU
//! solver's buffers ([`crate::water`]) and body poses ([`crate::bodies`]). Per frame: the
//! terrain tiles, then the bodies, then the water over both.

use spillway::Level;
use wgpu::util::DeviceExt;

use crate::below::BelowCopy;
use crate::bodies::{BodyInstance, BodyPass, MeshId};
use crate::pipeline::{self, Pass, Slot};
use crate::scene::{Globals, Scene, globals, level_bounds};
use crate::target::{self, RenderTarget};
use crate::terrain::{Dirty, TerrainTextures};
use crate::tiles::{View, tile_buffer, tile_indices, visible_tiles};
use crate::water::{Below, WaterPass, WaterQuality, WaterStyle};
use spillway::gpu::WaterView;

/// Why a level cannot be drawn or a frame cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The level has more cells along a side than the GPU's largest texture.
    #[error("This GPU draws at most {max} × {max} cells; the level is {nx} × {ny}.")]
    TooLarge {
        /// The GPU's largest texture side.
        max: usize,
        /// The level's columns.
        nx: usize,
        /// The level's rows.
        ny: usize,
    },
    /// No frame has been drawn offscreen yet.
    #[error("nothing has been rendered yet")]
    NothingRendered,
    /// Waiting for the GPU failed (a lost device, a timeout).
    #[error("waiting for the GPU failed: {0}")]
    Poll(#[from] wgpu::PollError),
    /// The read-back buffer could not be mapped.
    #[error("mapping the read-back failed: {0}")]
    Map(#[from] wgpu::BufferAsyncError),
    /// The mapped read-back could not be viewed.
    #[error("viewing the read-back failed: {0}")]
    View(#[from] wgpu::MapRangeError),
    /// The device dropped the read-back before it finished.
    #[error("the GPU dropped the read-back")]
    ReadBackLost,
}

/// Quads along one side of a mesh tile.
pub const TILE_QUADS: u32 = 64;

/// The offscreen terrain renderer.
pub struct TerrainRenderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    globals: wgpu::Buffer,
    index_buffer: wgpu::Buffer,
    /// The index range of each level of detail.
    lod_ranges: Vec<std::ops::Range<u32>>,
    /// Whether far tiles are drawn with less detail.
    lod: bool,
    /// Widest a mesh quad may look on screen, pixels ([`Self::set_quad_pixels`]).
    quad_pixels: f32,
    tiles: wgpu::Buffer,
    tiles_capacity: usize,
    terrain: Option<(TerrainTextures, wgpu::BindGroup)>,
    /// The colour format every pass draws into.
    format: wgpu::TextureFormat,
    /// The offscreen target ([`Self::render`]).
    target: Option<RenderTarget>,
    /// The depth texture of frames drawn into a caller's target ([`Self::render_to`]).
    depth: Option<([u32; 2], wgpu::TextureView)>,
    error: Option<RenderError>,
    visible_tiles: usize,
    triangles: usize,
    water_pass: WaterPass,
    /// The live water to draw this frame, if any.
    water: Option<(WaterView, WaterStyle)>,
    /// Work to submit together with the next frame, before it (the solver's steps).
    before_frame: Vec<wgpu::CommandBuffer>,
    body_pass: BodyPass,
    /// The bodies to draw in the next frames.
    bodies: Vec<BodyInstance>,
    /// The frame before the water, copied for the water to see through (High quality); and a
    /// 1 × 1 placeholder bound when there is none.
    below: Option<BelowCopy>,
    no_below: BelowCopy,
}

/// Per-instance vertex layout of the mesh tiles (their first cell).
fn tile_layout() -> wgpu::VertexBufferLayout<'static> {
    const ATTRIBUTES: [wgpu::VertexAttribute; 1] = [wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Uint32x4,
        offset: 0,
        shader_location: 0,
    }];
    wgpu::VertexBufferLayout {
        array_stride: 16,
        step_mode: wgpu::VertexStepMode::Instance,
        attributes: &ATTRIBUTES,
    }
}

impl TerrainRenderer {
    /// A renderer drawing with `device` and `queue` (the app's egui device, or any other) into
    /// offscreen targets of [`target::COLOUR_FORMAT`].
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        Self::with_format(device, queue, target::COLOUR_FORMAT)
    }

    /// A renderer drawing into colour targets of `format` (a game's window surface). Its
    /// shaders write sRGB-encoded values: a non-sRGB `format` shows them as the editor does.
    pub fn with_format(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        format: wgpu::TextureFormat,
    ) -> Self {
        use Slot::{GridTexture, Uniform};
        let layout = pipeline::layout(
            device,
            "viewport terrain",
            &[Uniform, GridTexture, GridTexture, GridTexture, GridTexture],
        );
        let pipeline = Pass {
            label: "viewport terrain",
            shader: include_str!("terrain.wgsl"),
            layout: &layout,
            buffers: &[Some(tile_layout())],
            blend: None,
            depth_write: true,
        }
        .build(device, format);
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("viewport globals"),
            size: std::mem::size_of::<Globals>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let (indices, lod_ranges) = tile_indices();
        let index_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("viewport tile indices"),
            contents: bytemuck::cast_slice(&indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        let tiles_capacity = 64;
        let body_pass = BodyPass::new(device, format, &globals);
        Self {
            tiles: tile_buffer(device, tiles_capacity),
            tiles_capacity,
            device: device.clone(),
            queue: queue.clone(),
            pipeline,
            layout,
            globals,
            index_buffer,
            lod_ranges,
            lod: true,
            quad_pixels: 3.0,
            terrain: None,
            format,
            target: None,
            depth: None,
            error: None,
            visible_tiles: 0,
            triangles: 0,
            water_pass: WaterPass::new(device, format, tile_layout()),
            water: None,
            before_frame: Vec::new(),
            body_pass,
            bodies: Vec::new(),
            below: None,
            no_below: BelowCopy::new(device, [1, 1], format, 0),
        }
    }

    /// Submits `commands` in the same submission as the next frame, before its drawing (the
    /// editor passes the water steps of the frame here, so it draws the water they produce).
    pub fn submit_with_frame(&mut self, commands: Vec<wgpu::CommandBuffer>) {
        self.before_frame.extend(commands);
    }

    /// Whether body mesh `id` is on the GPU already.
    pub fn has_body_mesh(&self, id: MeshId) -> bool {
        self.body_pass.has_mesh(id)
    }

    /// Drops every uploaded body mesh but those of `keep`.
    pub fn keep_body_meshes(&mut self, keep: &[MeshId]) {
        self.body_pass.keep_meshes(keep);
    }

    /// How many body meshes are uploaded.
    pub fn body_meshes(&self) -> usize {
        self.body_pass.mesh_count()
    }

    /// Uploads body mesh `id` (once; later calls with the same id replace it).
    pub fn upload_body_mesh(&mut self, id: MeshId, mesh: &spillway::body::TriMesh) {
        self.body_pass.upload_mesh(&self.device, id, mesh);
    }

    /// The bodies to draw in the next frames (their meshes uploaded first; others are skipped).
    pub fn set_bodies(&mut self, bodies: &[BodyInstance]) {
        self.bodies.clear();
        self.bodies.extend_from_slice(bodies);
    }

    /// Draws live water from `water` (the GPU solver's buffers) in the next frames, or none.
    pub fn set_water(&mut self, water: Option<(WaterView, WaterStyle)>) {
        if water.is_none() {
            self.water_pass.unbind();
        }
        self.water = water;
    }

    /// Uploads what changed in `level` (everything on first use or when the size changed).
    pub fn sync(&mut self, level: &Level, changes: &Dirty) {
        let max = self.max_side();
        if level.nx() > max || level.ny() > max {
            self.terrain = None;
            self.error = Some(RenderError::TooLarge {
                max,
                nx: level.nx(),
                ny: level.ny(),
            });
            let before = std::mem::take(&mut self.before_frame);
            if !before.is_empty() {
                self.queue.submit(before);
            }
            return;
        }
        self.error = None;
        match &mut self.terrain {
            Some((textures, _)) if textures.fits(level) => {
                textures.sync(&self.queue, level, changes)
            }
            _ => {
                let textures = TerrainTextures::new(&self.device, &self.queue, level);
                let [heights, water, roughness, cells] = textures.views();
                let bind = pipeline::bind_group(
                    &self.device,
                    "viewport terrain",
                    &self.layout,
                    [
                        self.globals.as_entire_binding(),
                        wgpu::BindingResource::TextureView(&heights),
                        wgpu::BindingResource::TextureView(&water),
                        wgpu::BindingResource::TextureView(&roughness),
                        wgpu::BindingResource::TextureView(&cells),
                    ],
                );
                self.terrain = Some((textures, bind));
            }
        }
    }

    /// Sets the values the cell overlay ([`crate::Overlays::cells`]) draws: one per cell of the
    /// synced level. Returns false (and draws none) before the level is synced or for a grid of
    /// another size; a level of a new size needs them set again.
    pub fn set_cell_values(&mut self, values: &spillway::Grid) -> bool {
        match &mut self.terrain {
            Some((textures, _)) => textures.set_cells(&self.queue, values),
            None => false,
        }
    }

    /// Sets the depths the water's Change overlay compares with: another run's water (a
    /// branch of the editor's timeline), or `None` for the level's authored water. Returns
    /// false (and keeps the authored water) before the level is synced or for a grid of
    /// another size.
    pub fn set_reference_depth(&mut self, depth: Option<&spillway::Grid>) -> bool {
        match &mut self.terrain {
            Some((textures, _)) => textures.set_reference(&self.device, &self.queue, depth),
            None => false,
        }
    }

    /// The most cells a side of a level this device can draw (its largest 2D texture).
    pub fn max_side(&self) -> usize {
        self.device.limits().max_texture_dimension_2d as usize
    }

    /// Why the level cannot be drawn, if it cannot.
    pub fn error(&self) -> Option<&RenderError> {
        self.error.as_ref()
    }

    /// The GPU-side terrain, once synced.
    pub fn terrain(&self) -> Option<&TerrainTextures> {
        self.terrain.as_ref().map(|(t, _)| t)
    }

    /// Lowest and highest terrain height known to the renderer.
    pub fn height_range(&self) -> (f32, f32) {
        self.terrain().map_or((0.0, 1.0), TerrainTextures::range)
    }

    /// Turns coarser detail for far tiles on or off (on by default).
    pub fn set_lod(&mut self, lod: bool) {
        self.lod = lod;
    }

    /// Sets how wide a quad of the mesh may look on screen before finer detail is drawn,
    /// pixels (3 by default; [`WaterQuality::quad_pixels`] gives the presets' values).
    pub fn set_quad_pixels(&mut self, pixels: f32) {
        self.quad_pixels = pixels.clamp(1.0, 64.0);
    }

    /// Triangles drawn in the last frame (skirts included).
    pub fn triangles(&self) -> usize {
        self.triangles
    }

    /// Tiles drawn in the last frame.
    pub fn visible_tiles(&self) -> usize {
        self.visible_tiles
    }

    /// The colour target of the last frame.
    pub fn target(&self) -> Option<&RenderTarget> {
        self.target.as_ref()
    }

    /// Draws `scene` of `level` (already synced) into the offscreen target. Returns whether
    /// the colour texture was recreated (its size changed), so a texture registered elsewhere
    /// must be updated.
    pub fn render(&mut self, level: &Level, scene: &Scene) -> bool {
        let size = [scene.size[0].max(1), scene.size[1].max(1)];
        let recreated = self.target.as_ref().is_none_or(|t| t.size() != size);
        if recreated {
            self.target = Some(RenderTarget::new(&self.device, size, self.format));
        }
        if let Some(target) = self.target.take() {
            let colour = (target.colour_view(), Some(target.colour_texture()));
            self.draw(level, scene, colour, target.depth_view());
            self.target = Some(target);
        }
        recreated
    }

    /// Draws `scene` of `level` (already synced) into `colour`, a texture of `scene.size`
    /// pixels whose format is the renderer's or its sRGB twin (a game's swap-chain image). The
    /// water sees the ground through itself (High quality) where `colour` allows copies
    /// (`COPY_SRC`); else it is drawn as at Medium.
    pub fn render_to(&mut self, level: &Level, scene: &Scene, colour: &wgpu::Texture) {
        let size = [scene.size[0].max(1), scene.size[1].max(1)];
        let depth = match self.depth.take() {
            Some((s, view)) if s == size => view,
            _ => target::depth_texture(&self.device, size),
        };
        let view = colour.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.format),
            ..Default::default()
        });
        let copyable = colour.usage().contains(wgpu::TextureUsages::COPY_SRC);
        self.draw(level, scene, (&view, copyable.then_some(colour)), &depth);
        self.depth = Some((size, depth));
    }

    /// Makes (or remakes, to match) the copy of the frame under the water for frames of `size`
    /// copied from `from`.
    fn ensure_below(&mut self, size: [u32; 2], from: &wgpu::Texture) {
        let fits = (self.below.as_ref()).is_some_and(|b| b.fits(size, from.format()));
        if !fits {
            let generation = self.below.as_ref().map_or(1, |b| b.generation + 1);
            self.below = Some(BelowCopy::new(
                &self.device,
                size,
                from.format(),
                generation,
            ));
        }
    }

    /// Records and submits one frame into `colour` (its view, and its texture when it can be
    /// copied from) and `depth`.
    fn draw(
        &mut self,
        level: &Level,
        scene: &Scene,
        (colour, colour_texture): (&wgpu::TextureView, Option<&wgpu::Texture>),
        depth: &wgpu::TextureView,
    ) {
        let size = [scene.size[0].max(1), scene.size[1].max(1)];
        let range = self.height_range();
        let bounds = level_bounds(level, range);
        let aspect = size[0] as f32 / size[1] as f32;
        let view_proj = scene.camera.view_proj(aspect, &bounds);
        let view = View {
            view_proj: &view_proj,
            eye: scene.camera.eye(),
            pixels_per_metre: size[1] as f32 / (2.0 * (crate::FOV_Y * 0.5).tan()),
            lod: self.lod,
            quad_pixels: self.quad_pixels,
        };
        let grid = (level.nx(), level.ny(), level.cell_size);
        let (tiles, per_lod) = visible_tiles(grid, range, &view);
        self.triangles = per_lod
            .iter()
            .zip(&self.lod_ranges)
            .map(|(n, r)| *n * r.len() / 3)
            .sum();
        self.visible_tiles = tiles.len();
        if tiles.len() > self.tiles_capacity {
            self.tiles_capacity = tiles.len().next_power_of_two();
            self.tiles = tile_buffer(&self.device, self.tiles_capacity);
        }
        if !tiles.is_empty() {
            self.queue
                .write_buffer(&self.tiles, 0, bytemuck::cast_slice(&tiles));
        }
        // Live water replaces the tint of the authored water.
        let live = self.water.is_some();
        let cells = self.terrain().is_some_and(TerrainTextures::has_cells);
        let globals = globals(level, range, scene, live, cells, view_proj.cols, &bounds);
        self.queue
            .write_buffer(&self.globals, 0, bytemuck::bytes_of(&globals));

        // High quality sees the ground through the water: the frame is drawn in two passes, the
        // water's after a copy of what lies under it.
        let refract = self.water.as_ref().is_some_and(|(_, s)| {
            s.quality == WaterQuality::High && s.overlay == crate::WaterOverlay::None
        });
        let copy_from = colour_texture.filter(|_| refract);
        if let Some(from) = copy_from {
            self.ensure_below(size, from);
        }
        let mut water_ready = false;
        if let (Some((buffers, style)), Some((textures, _))) = (&self.water, &self.terrain) {
            let authored = textures.reference();
            let (copy, copied) = match (copy_from, &self.below) {
                (Some(_), Some(copy)) => (copy, true),
                _ => (&self.no_below, false),
            };
            let below = Below {
                view: &copy.colour_view,
                depth: &copy.depth_view,
                generation: copy.generation,
                copied,
            };
            self.water_pass.prepare(
                (&self.device, &self.queue),
                buffers,
                style,
                (&self.globals, authored),
                below,
            );
            water_ready = true;
        }
        self.body_pass
            .prepare(&self.device, &self.queue, &self.bodies);
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("viewport"),
            });
        let two_passes = water_ready && copy_from.is_some();
        let begin = |encoder: &mut wgpu::CommandEncoder, first: bool| {
            let (load, depth_load) = if first {
                let clear = wgpu::Color {
                    r: 0.10,
                    g: 0.12,
                    b: 0.15,
                    a: 1.0,
                };
                (wgpu::LoadOp::Clear(clear), wgpu::LoadOp::Clear(1.0))
            } else {
                (wgpu::LoadOp::Load, wgpu::LoadOp::Load)
            };
            // The water's pass tests against the terrain's depth.
            let depth_store = if first && two_passes {
                wgpu::StoreOp::Store
            } else {
                wgpu::StoreOp::Discard
            };
            encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some(if first {
                        "viewport terrain"
                    } else {
                        "viewport water"
                    }),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: colour,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load,
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                        view: depth,
                        depth_ops: Some(wgpu::Operations {
                            load: depth_load,
                            store: depth_store,
                        }),
                        stencil_ops: None,
                    }),
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                })
                .forget_lifetime()
        };
        let draw_tiles = |pass: &mut wgpu::RenderPass<'_>| {
            pass.set_vertex_buffer(0, self.tiles.slice(..));
            pass.set_index_buffer(self.index_buffer.slice(..), wgpu::IndexFormat::Uint16);
            let mut first = 0u32;
            for (lod, count) in per_lod.iter().enumerate() {
                let count = *count as u32;
                if count > 0 {
                    let range = self.lod_ranges[lod].clone();
                    pass.draw_indexed(range, 0, first..first + count);
                }
                first += count;
            }
        };
        let drawn = self.terrain.as_ref().filter(|_| !tiles.is_empty());
        let second_pass = two_passes && drawn.is_some() && self.below.is_some();
        {
            let mut pass = begin(&mut encoder, true);
            if let Some((_, bind)) = drawn {
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, bind, &[]);
                draw_tiles(&mut pass);
            }
            // Bodies also with no ground in view (a crate lifted high, seen from below
            // against the sky).
            if self.terrain.is_some() {
                self.body_pass.draw(&mut pass, false);
            }
            if drawn.is_some() && water_ready && !two_passes && self.water_pass.draw(&mut pass) {
                draw_tiles(&mut pass);
            }
            // Ghosts last, over the water and writing no depth (the water behind one is seen
            // through it), in the water's own pass where it has one.
            if self.terrain.is_some() && !second_pass {
                self.body_pass.draw(&mut pass, true);
            }
        }
        if second_pass && let (Some(from), Some(to)) = (copy_from, &self.below) {
            to.record(&mut encoder, from, depth.texture());
            let mut pass = begin(&mut encoder, false);
            if self.water_pass.draw(&mut pass) {
                draw_tiles(&mut pass);
            }
            self.body_pass.draw(&mut pass, true);
        }
        let before = std::mem::take(&mut self.before_frame);
        self.queue
            .submit(before.into_iter().chain([encoder.finish()]));
    }

    /// Reads the last frame back as RGBA pixels (blocking): for tests, snapshots and benchmarks.
    pub fn read_pixels(&self) -> Result<(u32, u32, Vec<u8>), RenderError> {
        let target = self.target.as_ref().ok_or(RenderError::NothingRendered)?;
        let [w, h] = target.size();
        Ok((w, h, target.read_rgba(&self.device, &self.queue)?))
    }

    /// Waits until the GPU has finished every submitted frame (for timing).
    pub fn wait_idle(&self) {
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
    }
}
