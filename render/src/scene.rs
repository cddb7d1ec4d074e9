//! What one frame shows besides the level ([`Scene`], [`Overlays`], [`BrushOutline`]) and
//! the uniform block the terrain shader reads it from.

use bytemuck::{Pod, Zeroable};
use spillway::Level;

use crate::TILE_QUADS;
use crate::camera::{Bounds, Camera};
use crate::math::Vec3;

/// What the viewport draws over the terrain.
#[derive(Clone, Debug, PartialEq)]
pub struct Overlays {
    /// Contour lines.
    pub contours: bool,
    /// Height between contour lines, metres (`None`: chosen from the height range).
    pub contour_interval: Option<f32>,
    /// Grid lines.
    pub grid: bool,
    /// Distance between grid lines, metres (`None`: chosen from the level size).
    pub grid_spacing: Option<f32>,
    /// Blue tint over the wet cells of the authored water (while no live water is drawn).
    pub water: bool,
    /// Manning's roughness `n` as colours on the terrain.
    pub roughness: bool,
    /// A value per cell drawn over the terrain ([`crate::TerrainRenderer::set_cell_values`]).
    pub cells: CellOverlay,
}

/// How the per-cell values of [`Overlays::cells`] are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum CellOverlay {
    /// Not drawn.
    #[default]
    None,
    /// Values from `lo` (transparent) to `hi` (opaque) as deepening blue: streams, depths.
    Ramp {
        /// The value drawn as nothing.
        lo: f32,
        /// The value drawn fully.
        hi: f32,
    },
    /// Values as ids: each its own colour, with a line where neighbouring cells differ (regions
    /// such as catchments).
    Regions,
    /// Values from `lo` to `hi` as [`Self::Ramp`] draws them, but each pixel its own cell's, not
    /// the largest within a pixel around (a run's map: an arrival drew a cell never reached
    /// beside reached ones as reached, and the flooded area a pixel wider than the export).
    Map {
        /// The value drawn as nothing.
        lo: f32,
        /// The value drawn fully.
        hi: f32,
    },
}

impl Default for Overlays {
    fn default() -> Self {
        Self {
            contours: false,
            contour_interval: None,
            grid: false,
            grid_spacing: None,
            water: true,
            roughness: false,
            cells: CellOverlay::None,
        }
    }
}

/// The brush outline drawn on the terrain: a circle, or a capsule from `from` to `to`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BrushOutline {
    /// Centre (or segment start), world x and y.
    pub from: [f32; 2],
    /// Segment end (equal to `from` for a circle).
    pub to: [f32; 2],
    /// Radius, metres.
    pub radius: f32,
    /// Radius where the falloff begins, metres.
    pub core: f32,
}

/// Everything one frame needs besides the level.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The camera.
    pub camera: Camera,
    /// Overlays.
    pub overlays: Overlays,
    /// The brush under the cursor, if shown.
    pub brush: Option<BrushOutline>,
    /// Image size in pixels.
    pub size: [u32; 2],
}

impl Scene {
    /// An image size for a view of `size` pixels (width, height) with no side past `most`:
    /// scaled down by one factor, so the picture keeps the aspect the camera projects with
    /// (each side clamped on its own, the image came out stretched and picks drifted from
    /// it); at least 1 × 1.
    pub fn image_size(size: [f32; 2], most: u32) -> [u32; 2] {
        let most = most.max(1) as f32;
        let k = (most / size[0].max(size[1])).min(1.0);
        size.map(|s| {
            let s = (s * k).round();
            if s >= 1.0 { s.min(most) as u32 } else { 1 }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Scene;

    #[test]
    fn an_image_too_wide_for_the_device_keeps_its_aspect() {
        assert_eq!(Scene::image_size([9000.0, 3000.0], 4096), [4096, 1365]);
        assert_eq!(Scene::image_size([800.4, 600.0], 4096), [800, 600]);
        assert_eq!(Scene::image_size([0.0, 600.0], 4096), [1, 600]);
        assert_eq!(Scene::image_size([f32::NAN, 600.0], 4096), [1, 600]);
    }
}

/// The WGSL of [`Globals`], prepended to every pass's shader.
pub(crate) const GLOBALS_WGSL: &str = include_str!("globals.wgsl");

/// The uniform block every pass reads (`Globals` in `globals.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(crate) struct Globals {
    view_proj: [[f32; 4]; 4],
    eye: [f32; 4],
    sun: [f32; 4],
    level: [f32; 4],
    heights: [f32; 4],
    brush_a: [f32; 4],
    brush_b: [f32; 4],
    overlays: [f32; 4],
    /// x: the roughness overlay (0 or 1); y: the cell overlay (0 none, 1 ramp, 2 regions); z, w:
    /// the ramp's ends.
    extra: [f32; 4],
}

/// A "nice" step (1, 2 or 5 × 10ⁿ) near `x`.
pub fn nice_step(x: f32) -> f32 {
    if !x.is_finite() || x <= 0.0 {
        return 1.0;
    }
    let p = 10f32.powf(x.log10().floor());
    let m = x / p;
    let n = if m < 1.5 {
        1.0
    } else if m < 3.5 {
        2.0
    } else if m < 7.5 {
        5.0
    } else {
        10.0
    };
    n * p
}

/// The level's bounds for a height range.
pub fn level_bounds(level: &Level, range: (f32, f32)) -> Bounds {
    Bounds {
        min: Vec3::new(0.0, 0.0, range.0),
        max: Vec3::new(
            level.nx() as f32 * level.cell_size,
            level.ny() as f32 * level.cell_size,
            range.1,
        ),
    }
}

/// The uniform block for drawing `scene` of `level` (`live`: with live water, which replaces
/// the tint of the authored water).
pub(crate) fn globals(
    level: &Level,
    range: (f32, f32),
    scene: &Scene,
    live: bool,
    cells: bool,
    view_proj: [[f32; 4]; 4],
    bounds: &Bounds,
) -> Globals {
    let o = &scene.overlays;
    let span = (range.1 - range.0).max(1e-3);
    let contour = o
        .contour_interval
        .filter(|v| *v > 0.0 && v.is_finite())
        .unwrap_or_else(|| nice_step(span / 20.0));
    let extent = bounds.max.x.max(bounds.max.y);
    let grid = o
        .grid_spacing
        .filter(|v| *v > 0.0 && v.is_finite())
        .unwrap_or_else(|| nice_step(extent / 16.0).max(level.cell_size));
    let eye = scene.camera.eye();
    let sun = Vec3::new(-0.7, 0.35, 0.5).normalized();
    let (brush_a, brush_b) = match scene.brush {
        Some(b) => (
            [b.from[0], b.from[1], b.radius, b.core],
            [b.to[0], b.to[1], 1.0, 0.0],
        ),
        None => ([0.0; 4], [0.0; 4]),
    };
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    Globals {
        view_proj,
        // w: the haze distance, a few level diagonals.
        eye: [eye.x, eye.y, eye.z, bounds.diagonal() * 4.0],
        sun: [sun.x, sun.y, sun.z, 0.0],
        level: [
            level.nx() as f32,
            level.ny() as f32,
            level.cell_size,
            TILE_QUADS as f32,
        ],
        heights: [range.0, range.1, contour, grid],
        brush_a,
        brush_b,
        // w: how far tile skirts hang below the edges, hiding cracks between levels of detail.
        overlays: [
            flag(o.contours),
            flag(o.grid),
            flag(o.water && !live),
            span * 0.05 + 4.0 * level.cell_size,
        ],
        extra: match (cells, o.cells) {
            (true, CellOverlay::Ramp { lo, hi }) => [flag(o.roughness), 1.0, lo, hi],
            (true, CellOverlay::Map { lo, hi }) => [flag(o.roughness), 1.25, lo, hi],
            (true, CellOverlay::Regions) => [flag(o.roughness), 2.0, 0.0, 0.0],
            _ => [flag(o.roughness), 0.0, 0.0, 0.0],
        },
    }
}
