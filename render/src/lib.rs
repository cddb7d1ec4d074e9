//! `spillway-render`: draws a Spillway level with wgpu, for the editor's viewport and for a
//! game alike. One set of shaders, one look.
//!
//! It takes runtime types only: the [`spillway::Level`] with [`Dirty`] rectangles of what
//! changed, a [`WaterView`] of the GPU solver's buffers (so live water is drawn with no
//! CPU copy), and body poses ([`BodyInstance`]). It knows no UI: the editor shows the colour
//! texture as an image, a game draws into its window's surface ([`TerrainRenderer::render_to`]),
//! and tests read the pixels back.
//!
//! Besides the renderer: the orbit [`Camera`] with its fly controls, [`math`] for vectors and
//! matrices, and [`pick`]ing against the heightfield.
//!
//! | module | owns |
//! | --- | --- |
//! | [`renderer`] | `TerrainRenderer`: the frame, its passes and their order |
//! | [`terrain`] | the height, water and roughness textures (`terrain.wgsl` is the terrain pass) |
//! | [`water`] | the water pass (`water.wgsl`), drawn from the solver's buffers |
//! | [`bodies`] | the body pass (`bodies.wgsl`): meshes and instances |
//! | [`scene`] | what one frame shows: camera, overlays, brush |
//! | [`target`] | the offscreen colour and depth textures, and reading them back |
//! | [`pipeline`] | the bind-group layouts and render pipelines every pass builds alike |

mod below;
pub mod bodies;
pub mod camera;
pub mod math;
pub mod pick;
pub mod pipeline;
pub mod renderer;
pub mod scene;
pub mod target;
pub mod terrain;
mod tiles;
pub mod water;

pub use bodies::{BodyInstance, MeshId};
pub use camera::{Bounds, Camera, FOV_Y, Ray};
pub use renderer::{RenderError, TILE_QUADS, TerrainRenderer};
pub use scene::{BrushOutline, CellOverlay, Overlays, Scene, level_bounds, nice_step};
pub use spillway::gpu::WaterView;
pub use target::RenderTarget;
pub use terrain::{Dirty, TerrainTextures};
pub use water::{WaterOverlay, WaterQuality, WaterStyle};
