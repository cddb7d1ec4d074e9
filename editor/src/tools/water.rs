//! The water brush's dab kernel: what one application does to the initial water depth under
//! the brush. Like the sculpting kernels, rates are per second and scaled by the time a dab
//! stands for, so a stroke's effect does not depend on the frame rate.

use spillway::Grid;

use super::Brush;
use super::sculpt::{BLEND_RATE, Dab, dab_rect};
use spillway::level::ranges::MAX_HEIGHT;
use spillway::rect::CellRect;

/// Depth the water brush adds or removes at full strength, in metres per second per metre of
/// brush radius.
pub const WATER_RATE: f32 = 0.5;

/// What the water brush does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WaterMode {
    /// Adds water depth.
    #[default]
    Add,
    /// Removes water depth (never below dry).
    Remove,
    /// Pulls the water surface towards the brush's level (dry where the ground is higher).
    SetLevel,
}

impl WaterMode {
    /// Every mode, in inspector order.
    pub const ALL: [WaterMode; 3] = [WaterMode::Add, WaterMode::Remove, WaterMode::SetLevel];

    /// The name shown in the inspector.
    pub fn name(self) -> &'static str {
        match self {
            WaterMode::Add => "Add",
            WaterMode::Remove => "Remove",
            WaterMode::SetLevel => "Set level",
        }
    }

    /// One sentence on what the mode does.
    pub fn help(self) -> &'static str {
        match self {
            WaterMode::Add => "Adds water depth under the brush (Shift removes instead)",
            WaterMode::Remove => "Removes water under the brush, down to dry (Shift adds instead)",
            WaterMode::SetLevel => {
                "Pulls the water surface towards the level; ground above the level dries"
            }
        }
    }

    /// The mode Shift turns this one into.
    pub fn inverted(self) -> WaterMode {
        match self {
            WaterMode::Add => WaterMode::Remove,
            WaterMode::Remove => WaterMode::Add,
            WaterMode::SetLevel => WaterMode::SetLevel,
        }
    }
}

/// Applies one dab of the water brush to `water` over `terrain` and returns the cells it may
/// have changed. Depths stay finite and never negative.
pub fn apply_water_dab(
    brush: &Brush,
    dab: &Dab,
    terrain: &Grid,
    water: &mut Grid,
    cell_size: f32,
) -> CellRect {
    let rect = dab_rect(brush, water, cell_size, dab.x, dab.y);
    if rect.is_empty() || !dab.dt.is_finite() || dab.dt <= 0.0 {
        return CellRect::new(0, 0, 0, 0);
    }
    let radius = brush.effective_radius(cell_size);
    let strength = brush.strength.clamp(0.0, 1.0);
    let mode = if dab.invert {
        brush.water_mode.inverted()
    } else {
        brush.water_mode
    };
    let nx = water.nx;
    for y in rect.y0..rect.y1 {
        let wy = (y as f32 + 0.5) * cell_size;
        for x in rect.x0..rect.x1 {
            let wx = (x as f32 + 0.5) * cell_size;
            let d = ((wx - dab.x).powi(2) + (wy - dab.y).powi(2)).sqrt();
            let w = brush.weight(d, radius);
            if w <= 0.0 {
                continue;
            }
            let i = y * nx + x;
            let depth = water.data[i];
            let amount = WATER_RATE * strength * radius * w * dab.dt;
            let new = match mode {
                WaterMode::Add => depth + amount,
                WaterMode::Remove => depth - amount,
                WaterMode::SetLevel => {
                    let target = (brush.water_level - terrain.data[i]).max(0.0);
                    depth + (target - depth) * (1.0 - (-BLEND_RATE * strength * w * dab.dt).exp())
                }
            };
            if new.is_finite() {
                water.data[i] = new.clamp(0.0, MAX_HEIGHT);
            }
        }
    }
    rect
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Tool;

    fn dab(invert: bool, dt: f32) -> Dab {
        Dab {
            tool: Tool::Water,
            invert,
            anchor: 0.0,
            x: 16.0,
            y: 16.0,
            dt,
        }
    }

    #[test]
    fn add_then_remove_never_goes_below_dry() {
        let brush = Brush::default();
        let terrain = Grid::filled(32, 32, 0.0);
        let mut water = Grid::filled(32, 32, 0.0);
        apply_water_dab(&brush, &dab(false, 0.1), &terrain, &mut water, 1.0);
        assert!(water.get(16, 16) > 0.1);
        assert_eq!(water.get(0, 0), 0.0);
        apply_water_dab(&brush, &dab(true, 10.0), &terrain, &mut water, 1.0);
        assert!(water.data.iter().all(|d| *d == 0.0));
    }

    #[test]
    fn set_level_pulls_the_surface_to_the_level_and_dries_high_ground() {
        let brush = Brush {
            water_mode: WaterMode::SetLevel,
            water_level: 2.0,
            strength: 1.0,
            falloff: 0.0,
            ..Brush::default()
        };
        let terrain = Grid::from_fn(32, 32, |x, _| if x < 16 { 1.0 } else { 3.0 });
        let mut water = Grid::filled(32, 32, 0.5);
        apply_water_dab(&brush, &dab(false, 5.0), &terrain, &mut water, 1.0);
        assert!((water.get(12, 16) - 1.0).abs() < 1e-4);
        assert!(water.get(20, 16) < 1e-4);
    }
}
