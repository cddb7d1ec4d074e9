//! Fill basin: floods exactly the connected region whose ground lies below a surface level,
//! starting from one cell, so a lake is filled in one click instead of minutes of simulation.
//! The result is a [`GridPatch`] of the water layer holding only the tiles it changed.

use std::collections::BTreeSet;

use spillway::Level;

use super::stroke::{TILE, tile_rect};
use crate::document::{GridPatch, Layer, PatchTile};
use spillway::rect::copy_out;

/// Where the fill level comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FillLevel {
    /// This many metres above the ground under the click.
    AboveClick(f32),
    /// This surface height, metres.
    Surface(f32),
    /// The level at which the clicked basin overflows ([`super::spill`]).
    ToSpill,
}

impl Default for FillLevel {
    fn default() -> Self {
        FillLevel::AboveClick(1.0)
    }
}

impl FillLevel {
    /// The surface height for a click on ground of height `ground` (the ground itself for
    /// [`FillLevel::ToSpill`], whose level depends on the whole basin).
    pub fn surface(self, ground: f32) -> f32 {
        match self {
            FillLevel::AboveClick(depth) => ground + depth,
            FillLevel::Surface(level) => level,
            FillLevel::ToSpill => ground,
        }
    }
}

/// The cells connected to `(x, y)` through their 4 neighbours whose `ground` (the level's
/// terrain, or the ground the water meets: `spill::walls`) lies below `surface`, as a mask
/// over the level's grid (empty if the start cell is not below it).
pub fn basin(level: &Level, ground: &[f32], x: usize, y: usize, surface: f32) -> Vec<bool> {
    let (nx, ny) = (level.nx(), level.ny());
    let terrain = ground;
    let mut inside = vec![false; nx * ny];
    if x >= nx || y >= ny || !surface.is_finite() || terrain[y * nx + x] >= surface {
        return inside;
    }
    let mut todo = vec![(x, y)];
    inside[y * nx + x] = true;
    while let Some((x, y)) = todo.pop() {
        let mut visit = |x: usize, y: usize| {
            let i = y * nx + x;
            if !inside[i] && terrain[i] < surface {
                inside[i] = true;
                todo.push((x, y));
            }
        };
        if x > 0 {
            visit(x - 1, y);
        }
        if x + 1 < nx {
            visit(x + 1, y);
        }
        if y > 0 {
            visit(x, y - 1);
        }
        if y + 1 < ny {
            visit(x, y + 1);
        }
    }
    inside
}

/// The command that fills the basin around cell `(x, y)` to `surface` over `ground` (closed
/// gates and standing bodies as walls, [`basin`]): water depth becomes `surface − terrain` in
/// every cell of the basin, and stays as it is elsewhere. Empty when nothing would change.
pub fn fill_basin(
    level: &Level,
    ground: &[f32],
    (x, y): (usize, usize),
    surface: f32,
) -> GridPatch {
    let inside = basin(level, ground, x, y, surface);
    let nx = level.nx();
    let tiles: BTreeSet<(usize, usize)> = inside
        .iter()
        .enumerate()
        .filter(|(_, v)| **v)
        .map(|(i, _)| ((i % nx) / TILE, (i / nx) / TILE))
        .collect();
    let (terrain, water) = (&level.terrain, &level.water);
    let patches = tiles
        .into_iter()
        .map(|(tx, ty)| {
            let rect = tile_rect(tx, ty, nx, level.ny());
            let before = copy_out(&water.data, nx, &rect);
            let mut after = before.clone();
            let mut k = 0;
            for y in rect.y0..rect.y1 {
                for x in rect.x0..rect.x1 {
                    let i = y * nx + x;
                    if inside[i] {
                        after[k] = surface - terrain.data[i];
                    }
                    k += 1;
                }
            }
            PatchTile {
                rect,
                before: before.into(),
                after: after.into(),
            }
        })
        .collect();
    GridPatch::new("Fill basin", Layer::Water, patches)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Command;
    use spillway::Grid;

    /// Two valleys (x < 50 and x > 50) split by a ridge at x = 50.
    fn two_valleys() -> Level {
        let mut level = Level::flat(101, 70, 1.0, 0.0);
        level.terrain = Grid::from_fn(101, 70, |x, _| {
            let d = (x as f32 - 50.0).abs();
            (d - 25.0).abs() * 0.2
        });
        level
    }

    #[test]
    fn a_closed_gate_holds_the_fill_back() {
        // The west valley's floor spans x = 16..34 under a 2 m surface; a gate across it at
        // x = 30 (its crest 10 m, the ground the water meets) where the ground is 1 m: the
        // fill from x = 20 stops at it, and without the gate it reaches past.
        let level = two_valleys();
        let nx = level.nx();
        let mut ground = level.terrain.data.clone();
        for y in 0..level.ny() {
            ground[y * nx + 30] = 10.0;
        }
        let mut gated = level.clone();
        fill_basin(&level, &ground, (20, 30), 2.0).apply(&mut gated);
        let mut open = level.clone();
        fill_basin(&level, &level.terrain.data, (20, 30), 2.0).apply(&mut open);
        for y in 0..level.ny() {
            assert!(gated.water.get(25, y) > 0.0, "the basin is filled");
            assert_eq!(gated.water.get(32, y), 0.0, "(32, {y}) lies past the gate");
            assert!(
                open.water.get(32, y) > 0.0,
                "without it the fill reaches (32, {y})"
            );
        }
    }

    #[test]
    fn fills_the_clicked_valley_to_the_level_and_not_the_other() {
        let mut level = two_valleys();
        let patch = fill_basin(&level, &level.terrain.data, (25, 30), 2.0);
        patch.apply(&mut level);
        for y in 0..level.ny() {
            for x in 0..level.nx() {
                let (t, d) = (level.terrain.get(x, y), level.water.get(x, y));
                if x < 50 && t < 2.0 {
                    assert_eq!(d, 2.0 - t, "cell {x}, {y}");
                } else {
                    assert_eq!(d, 0.0, "cell {x}, {y}");
                }
            }
        }
    }

    #[test]
    fn a_click_above_the_level_changes_nothing() {
        let level = two_valleys();
        assert!(fill_basin(&level, &level.terrain.data, (50, 30), 2.0).is_empty());
        assert_eq!(FillLevel::AboveClick(1.0).surface(3.0), 4.0);
        assert_eq!(FillLevel::Surface(7.0).surface(3.0), 7.0);
    }
}
