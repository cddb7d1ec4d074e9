//! The roughness brush: paints Manning's `n` per cell, pulling each cell towards the brush's
//! value, with presets a designer knows by sight. Like the other kernels, the rate is per
//! second and scaled by the time a dab stands for.

use spillway::Grid;

use super::Brush;
use super::sculpt::{Dab, dab_rect};
use spillway::rect::CellRect;

/// Rate at which the brush closes the gap to its `n` at full strength, per second: a second
/// of painting at full strength reaches the value to within 10⁻⁸.
pub const ROUGHNESS_RATE: f32 = 20.0;

/// A named Manning's `n`, s/m^(1/3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoughnessPreset {
    /// What the ground is.
    pub name: &'static str,
    /// Manning's `n`.
    pub n: f32,
    /// What it is good for.
    pub help: &'static str,
}

/// The presets, smoothest first (Chow, *Open-channel hydraulics*, table 5-6).
pub const PRESETS: [RoughnessPreset; 5] = [
    RoughnessPreset {
        name: "Concrete",
        n: 0.013,
        help: "Finished concrete: spillways, canals, culverts",
    },
    RoughnessPreset {
        name: "Gravel bed",
        n: 0.03,
        help: "A clean natural river bed of gravel and stones",
    },
    RoughnessPreset {
        name: "Grass",
        n: 0.035,
        help: "Short grass: meadows and lawns",
    },
    RoughnessPreset {
        name: "Brush",
        n: 0.07,
        help: "Scattered brush and heavy weeds",
    },
    RoughnessPreset {
        name: "Forest floodplain",
        n: 0.1,
        help: "Trees with undergrowth: water slows to a crawl",
    },
];

/// Smallest and largest `n` the brush paints (the level file accepts 0 to 1).
pub const N_RANGE: std::ops::RangeInclusive<f32> = 0.005..=0.5;

/// The preset named `n` exactly, if any.
pub fn preset_of(n: f32) -> Option<&'static RoughnessPreset> {
    PRESETS.iter().find(|p| p.n == n)
}

/// Applies one dab of the roughness brush to `roughness` and returns the cells it may have
/// changed. Values stay inside [`N_RANGE`].
pub fn apply_roughness_dab(
    brush: &Brush,
    dab: &Dab,
    roughness: &mut Grid,
    cell_size: f32,
) -> CellRect {
    let rect = dab_rect(brush, roughness, cell_size, dab.x, dab.y);
    if rect.is_empty() || !dab.dt.is_finite() || dab.dt <= 0.0 {
        return CellRect::new(0, 0, 0, 0);
    }
    let radius = brush.effective_radius(cell_size);
    let rate = ROUGHNESS_RATE * brush.strength.clamp(0.0, 1.0);
    let target = brush.roughness.clamp(*N_RANGE.start(), *N_RANGE.end());
    let nx = roughness.nx;
    for y in rect.y0..rect.y1 {
        let wy = (y as f32 + 0.5) * cell_size;
        for x in rect.x0..rect.x1 {
            let wx = (x as f32 + 0.5) * cell_size;
            let w = brush.weight(((wx - dab.x).powi(2) + (wy - dab.y).powi(2)).sqrt(), radius);
            if w <= 0.0 {
                continue;
            }
            let n = &mut roughness.data[y * nx + x];
            let k = 1.0 - (-rate * w * dab.dt).exp();
            // Exact once within a hair, so a painted area reads as its preset.
            let new = *n + (target - *n) * k;
            *n = if (new - target).abs() < 1e-5 {
                target
            } else {
                new
            };
        }
    }
    rect
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Tool;

    #[test]
    fn painting_reaches_the_preset_in_the_core_and_leaves_the_rest() {
        let mut grid = Grid::filled(40, 40, 0.03);
        let brush = Brush {
            radius: 5.0,
            strength: 1.0,
            roughness: 0.1,
            ..Brush::default()
        };
        let dab = Dab {
            tool: Tool::Roughness,
            invert: false,
            anchor: 0.0,
            x: 20.0,
            y: 20.0,
            dt: 1.0,
        };
        let rect = apply_roughness_dab(&brush, &dab, &mut grid, 1.0);
        assert!(!rect.is_empty());
        assert_eq!(grid.get(20, 20), 0.1);
        assert_eq!(grid.get(2, 2), 0.03);
        assert!(grid.data.iter().all(|n| (0.03..=0.1).contains(n)));
    }
}
