//! Dab kernels: what one application of each tool does to the terrain cells under the brush.
//! Rates are per second and scaled by the time a dab stands for, so a stroke's effect does not
//! depend on the frame rate.

use spillway::Grid;

use super::{Brush, Tool};
use spillway::level::ranges::MAX_HEIGHT;
use spillway::rect::{CellRect, copy_out};

/// Raise speed at full strength, in metres per second per metre of brush radius.
pub const RAISE_RATE: f32 = 1.0;
/// Rate at which smooth, flatten, set height and terrace close the gap to their target at
/// full strength, per second.
pub const BLEND_RATE: f32 = 6.0;
/// Noise amplitude growth at full strength, metres per second per metre of noise scale.
pub const NOISE_RATE: f32 = 0.5;

/// One application of a tool at one point for a slice of time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dab {
    /// The tool applied.
    pub tool: Tool,
    /// Shift held: lower instead of raise, carve instead of add.
    pub invert: bool,
    /// The Flatten tool's target: the height where the stroke started, metres.
    pub anchor: f32,
    /// Centre, world x in metres.
    pub x: f32,
    /// Centre, world y in metres.
    pub y: f32,
    /// Seconds of brushing this dab stands for.
    pub dt: f32,
}

/// The cells a dab of `brush` at `(x, y)` may change.
pub fn dab_rect(brush: &Brush, grid: &Grid, cell_size: f32, x: f32, y: f32) -> CellRect {
    let r = brush.effective_radius(cell_size);
    CellRect::around(x, y, r, cell_size, grid.nx, grid.ny)
}

/// Applies one dab to `terrain` and returns the cells it may have changed.
pub fn apply_dab(brush: &Brush, dab: &Dab, terrain: &mut Grid, cell_size: f32) -> CellRect {
    let rect = dab_rect(brush, terrain, cell_size, dab.x, dab.y);
    if rect.is_empty() || !dab.dt.is_finite() || dab.dt <= 0.0 {
        return CellRect::new(0, 0, 0, 0);
    }
    let radius = brush.effective_radius(cell_size);
    let strength = brush.strength.clamp(0.0, 1.0);
    let sign = if dab.invert && dab.tool.invertible() {
        -1.0
    } else {
        1.0
    };
    let nx = terrain.nx;
    // The smooth tool reads its neighbours from the values before this dab.
    let (source, source_rect) = if dab.tool == Tool::Smooth {
        let grown = rect.grow(1, terrain.nx, terrain.ny);
        (copy_out(&terrain.data, nx, &grown), grown)
    } else {
        (Vec::new(), rect)
    };
    let blend_rate = BLEND_RATE * strength;
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
            let h = terrain.data[i];
            let blend = |target: f32| h + (target - h) * (1.0 - (-blend_rate * w * dab.dt).exp());
            let new = match dab.tool {
                Tool::Raise => h + sign * RAISE_RATE * strength * radius * w * dab.dt,
                Tool::Smooth => blend(neighbour_mean(&source, &source_rect, x, y)),
                Tool::Flatten => blend(dab.anchor),
                Tool::SetHeight => blend(brush.target_height),
                Tool::Terrace => {
                    let step = brush.terrace_step.max(0.01);
                    blend((h / step).round() * step)
                }
                Tool::Noise => {
                    let scale = brush.noise_scale.max(0.1);
                    let n = value_noise(wx / scale, wy / scale);
                    h + sign * NOISE_RATE * scale * strength * w * dab.dt * n
                }
                // The ramp is applied once when the drag ends, by [`apply_ramp`]; the water
                // tools never change the terrain.
                Tool::Ramp
                | Tool::Source
                | Tool::Sink
                | Tool::Boundary
                | Tool::Body
                | Tool::Structure
                | Tool::Water
                | Tool::FillBasin
                | Tool::Gate
                | Tool::Gauge
                | Tool::Roughness => h,
            };
            if new.is_finite() {
                // Within the heights a level may hold (held long enough, Raise went past
                // them and the level could not be saved).
                terrain.data[i] = new.clamp(-MAX_HEIGHT, MAX_HEIGHT);
            }
        }
    }
    rect
}

/// Mean of the 3 × 3 neighbourhood of `(x, y)` (clipped to `rect`) in a copy of `rect`.
fn neighbour_mean(values: &[f32], rect: &CellRect, x: usize, y: usize) -> f32 {
    let w = rect.width();
    let (mut sum, mut n) = (0.0f32, 0.0f32);
    for yy in y.saturating_sub(1).max(rect.y0)..(y + 2).min(rect.y1) {
        for xx in x.saturating_sub(1).max(rect.x0)..(x + 2).min(rect.x1) {
            sum += values[(yy - rect.y0) * w + (xx - rect.x0)];
            n += 1.0;
        }
    }
    sum / n.max(1.0)
}

/// The cells a ramp from `a` to `b` (world x, y) of `brush`'s radius may change.
pub fn ramp_rect(brush: &Brush, grid: &Grid, cell_size: f32, a: [f32; 2], b: [f32; 2]) -> CellRect {
    let ra = dab_rect(brush, grid, cell_size, a[0], a[1]);
    let rb = dab_rect(brush, grid, cell_size, b[0], b[1]);
    ra.union(&rb)
}

/// Builds a straight ramp from `a` to `b` (world x, y, height): each cell within the brush
/// radius of the segment is pulled towards the height of the segment beside it, fully in the
/// brush core and less over the falloff band. Returns the cells it may have changed.
pub fn apply_ramp(
    brush: &Brush,
    terrain: &mut Grid,
    cell_size: f32,
    a: [f32; 3],
    b: [f32; 3],
) -> CellRect {
    let rect = ramp_rect(brush, terrain, cell_size, [a[0], a[1]], [b[0], b[1]]);
    let radius = brush.effective_radius(cell_size);
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len2 = dx * dx + dy * dy;
    let nx = terrain.nx;
    for y in rect.y0..rect.y1 {
        let wy = (y as f32 + 0.5) * cell_size;
        for x in rect.x0..rect.x1 {
            let wx = (x as f32 + 0.5) * cell_size;
            let t = if len2 > 0.0 {
                (((wx - a[0]) * dx + (wy - a[1]) * dy) / len2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let (px, py) = (a[0] + t * dx, a[1] + t * dy);
            let d = ((wx - px).powi(2) + (wy - py).powi(2)).sqrt();
            let w = brush.weight(d, radius);
            if w <= 0.0 {
                continue;
            }
            let target = a[2] + t * (b[2] - a[2]);
            let h = &mut terrain.data[y * nx + x];
            let new = *h + (target - *h) * w;
            if new.is_finite() {
                *h = new;
            }
        }
    }
    rect
}

/// Smooth value noise in [-1, 1] with features about one unit apart (deterministic).
pub fn value_noise(x: f32, y: f32) -> f32 {
    let (x0, y0) = (x.floor(), y.floor());
    let (tx, ty) = (x - x0, y - y0);
    let (sx, sy) = (tx * tx * (3.0 - 2.0 * tx), ty * ty * (3.0 - 2.0 * ty));
    let (ix, iy) = (x0 as i64, y0 as i64);
    let a = lattice(ix, iy) + (lattice(ix + 1, iy) - lattice(ix, iy)) * sx;
    let b = lattice(ix, iy + 1) + (lattice(ix + 1, iy + 1) - lattice(ix, iy + 1)) * sx;
    a + (b - a) * sy
}

/// A pseudo-random value in [-1, 1] for a lattice point.
fn lattice(x: i64, y: i64) -> f32 {
    let mut h = (x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (y as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    h ^= h >> 31;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 29;
    (h >> 40) as f32 / (1u64 << 23) as f32 - 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dab(tool: Tool, x: f32, y: f32, dt: f32) -> Dab {
        Dab {
            tool,
            invert: false,
            anchor: 0.0,
            x,
            y,
            dt,
        }
    }

    #[test]
    fn raise_is_frame_rate_independent() {
        let brush = Brush::default();
        let mut one = Grid::filled(64, 64, 0.0);
        let mut many = one.clone();
        apply_dab(&brush, &dab(Tool::Raise, 32.0, 32.0, 0.2), &mut one, 1.0);
        for _ in 0..20 {
            apply_dab(&brush, &dab(Tool::Raise, 32.0, 32.0, 0.01), &mut many, 1.0);
        }
        for (a, b) in one.data.iter().zip(&many.data) {
            assert!((a - b).abs() < 1e-4, "{a} vs {b}");
        }
        assert!(one.get(32, 32) > 0.5);
        assert_eq!(one.get(0, 0), 0.0);
    }

    #[test]
    fn blends_close_the_gap_independently_of_frame_rate() {
        let brush = Brush::default();
        let mut one = Grid::from_fn(32, 32, |x, _| x as f32);
        let mut many = one.clone();
        apply_dab(
            &brush,
            &dab(Tool::SetHeight, 16.0, 16.0, 0.1),
            &mut one,
            1.0,
        );
        for _ in 0..10 {
            apply_dab(
                &brush,
                &dab(Tool::SetHeight, 16.0, 16.0, 0.01),
                &mut many,
                1.0,
            );
        }
        for (a, b) in one.data.iter().zip(&many.data) {
            assert!((a - b).abs() < 1e-3, "{a} vs {b}");
        }
    }

    #[test]
    fn raise_held_long_stays_within_the_heights_a_level_may_hold() {
        let brush = Brush {
            strength: 1.0,
            ..Brush::default()
        };
        let mut terrain = Grid::filled(64, 64, 0.0);
        apply_dab(
            &brush,
            &dab(Tool::Raise, 32.0, 32.0, 1.0e6),
            &mut terrain,
            1.0,
        );
        assert_eq!(terrain.get(32, 32), MAX_HEIGHT);
    }

    #[test]
    fn noise_stays_in_range() {
        for i in 0..1000 {
            let v = value_noise(i as f32 * 0.37, i as f32 * 0.11 - 40.0);
            assert!((-1.0..=1.0).contains(&v));
        }
    }

    #[test]
    fn ramp_interpolates_between_its_ends() {
        let brush = Brush {
            radius: 3.0,
            falloff: 0.0,
            ..Brush::default()
        };
        let mut g = Grid::filled(40, 10, 0.0);
        apply_ramp(&brush, &mut g, 1.0, [5.5, 5.5, 0.0], [35.5, 5.5, 30.0]);
        assert!((g.get(20, 5) - 15.0).abs() < 1e-4);
        assert_eq!(g.get(20, 0), 0.0);
    }
}
