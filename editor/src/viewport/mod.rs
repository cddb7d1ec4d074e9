//! The 3D viewport's model, free of egui: the orbit [`camera::Camera`], picking against the
//! heightfield ([`pick`]), and the offscreen wgpu renderer ([`render`]).

pub mod camera;
pub mod math;
pub mod pick;
pub mod render;

pub use camera::{Bounds, Camera, Ray};
pub use render::{BrushOutline, Overlays, Scene, TerrainRenderer};
