//! Fill basin: floods exactly the connected region whose ground lies below a surface level,
//! starting from one cell, so a lake is filled in one click instead of minutes of simulation.
//! The result is a [`GridPatch`] of the water layer holding only the tiles it changed.

use spillway::Level;

use super::spill::{Spill, basin_floor, spill};
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

/// A fill asked for: everything it needs, owned, so a large level's runs off the UI thread.
pub struct FillJob {
    /// The level's terrain, water and edges (no bodies, flow or roughness).
    level: Level,
    /// The ground the water meets (closed gates and standing bodies as walls).
    ground: Vec<f32>,
    /// The clicked cell.
    cell: (usize, usize),
    /// The level to fill to.
    fill: FillLevel,
}

/// What a fill found: the water it changes, the surface and, filling to the spill level,
/// where the basin overflows.
pub struct Filled {
    /// The command that fills the basin (empty: nothing below the surface there).
    pub patch: GridPatch,
    /// The surface filled to, metres; `None` when filling to a spill level that does not
    /// exist (the basin is walled in all round).
    pub surface: Option<f32>,
    /// Where the basin overflows, filling to its spill level.
    pub spill: Option<Spill>,
}

impl FillJob {
    /// A fill of `level` from cell `cell` (inside the map) to `fill`, over `ground`.
    pub fn new(level: &Level, ground: Vec<f32>, cell: (usize, usize), fill: FillLevel) -> Self {
        let level = Level {
            terrain: level.terrain.clone(),
            water: level.water.clone(),
            boundaries: level.boundaries.clone(),
            params: level.params.clone(),
            ..Level::flat(1, 1, level.cell_size, 0.0)
        };
        Self {
            level,
            ground,
            cell,
            fill,
        }
    }

    /// Cells of the level it fills.
    pub fn cells(&self) -> usize {
        self.level.nx() * self.level.ny()
    }

    /// Finds the basin and the water that fills it.
    pub fn run(self) -> Filled {
        let (level, ground) = (&self.level, &self.ground[..]);
        let (mut cx, mut cy) = self.cell;
        let (surface, spill) = match self.fill {
            FillLevel::ToSpill => {
                // The basin the clicked cell lies in or drains to, filled from its floor.
                (cx, cy) = basin_floor(level, ground, cx, cy);
                match spill(level, ground, cx, cy) {
                    Some(s) => (s.surface, Some(s)),
                    None => {
                        return Filled {
                            patch: GridPatch::new("Fill basin", Layer::Water, Vec::new()),
                            surface: None,
                            spill: None,
                        };
                    }
                }
            }
            other => (other.surface(level.terrain.get(cx, cy)), None),
        };
        Filled {
            patch: fill_basin(level, ground, (cx, cy), surface),
            surface: Some(surface),
            spill,
        }
    }
}

impl Filled {
    /// What the fill did, for the status bar.
    pub fn notice(&self) -> String {
        let Some(surface) = self.surface else {
            return "This basin is walled in all round: it never spills, so there is no spill \
                    level to fill to"
                .into();
        };
        let spills = match self.spill {
            Some(s) if s.off_map => format!(
                " (it spills over the map's edge at cell {}, {})",
                s.cell.0, s.cell.1
            ),
            Some(s) => format!(" (it spills at cell {}, {})", s.cell.0, s.cell.1),
            None => String::new(),
        };
        if self.patch.is_empty() {
            format!("Nothing to fill below {surface:.2} m here{spills}")
        } else {
            format!("Filled the basin to {surface:.2} m{spills}")
        }
    }
}

/// The cells connected to `(x, y)` through their 4 neighbours whose `ground` (the level's
/// terrain, or the ground the water meets: `spill::walls`) lies below `surface`, as a mask
/// over the level's grid (empty if the start cell is not below it).
pub fn basin(level: &Level, ground: &[f32], x: usize, y: usize, surface: f32) -> Vec<bool> {
    let (nx, ny) = (level.nx(), level.ny());
    let mut inside = vec![false; nx * ny];
    if x >= nx || y >= ny || !surface.is_finite() || ground[y * nx + x] >= surface {
        return inside;
    }
    let open = |inside: &[bool], i: usize| !inside[i] && ground[i] < surface;
    // Scanlines: each seed fills its whole run along the row, then seeds each run of open
    // cells in the rows above and below it (a cell a push, as before, took seconds on a
    // 4096² lake).
    let mut seeds = vec![(x, y)];
    while let Some((x, y)) = seeds.pop() {
        let row = y * nx;
        if !open(&inside, row + x) {
            continue;
        }
        let (mut x0, mut x1) = (x, x);
        while x0 > 0 && open(&inside, row + x0 - 1) {
            x0 -= 1;
        }
        while x1 + 1 < nx && open(&inside, row + x1 + 1) {
            x1 += 1;
        }
        inside[row + x0..=row + x1].fill(true);
        for next in [y.checked_sub(1), (y + 1 < ny).then_some(y + 1)]
            .into_iter()
            .flatten()
        {
            let row = next * nx;
            let mut in_run = false;
            for x in x0..=x1 {
                let here = open(&inside, row + x);
                if here && !in_run {
                    seeds.push((x, next));
                }
                in_run = here;
            }
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
    let tiles_x = nx.div_ceil(TILE);
    let mut touched = vec![false; tiles_x * level.ny().div_ceil(TILE)];
    for (y, row) in inside.chunks_exact(nx).enumerate() {
        for (tx, cells) in row.chunks(TILE).enumerate() {
            if cells.contains(&true) {
                touched[(y / TILE) * tiles_x + tx] = true;
            }
        }
    }
    let tiles = (touched.iter().enumerate())
        .filter(|(_, t)| **t)
        .map(|(i, _)| (i % tiles_x, i / tiles_x));
    let (terrain, water) = (&level.terrain, &level.water);
    let patches = tiles
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

    #[test]
    fn the_basin_follows_a_winding_channel_and_stops_at_every_wall() {
        // Walls every sixth row, each open at alternate ends (a serpentine), and a sealed
        // room in one of its corridors: the scanline fill reaches what a cell-by-cell walk
        // reaches, and nothing else.
        let (nx, ny) = (61, 49);
        let mut level = Level::flat(nx, ny, 1.0, 0.0);
        level.terrain = Grid::from_fn(nx, ny, |x, y| {
            let wall = y % 6 == 5 && if (y / 6) % 2 == 0 { x > 1 } else { x < nx - 2 };
            let room = (20..30).contains(&x) && y == 38;
            let room_wall = (19..=30).contains(&x) && (37..=39).contains(&y) && !room;
            if wall || room_wall {
                5.0
            } else {
                0.08 * ((x * 13 + y * 7) % 11) as f32
            }
        });
        let ground = level.terrain.data.clone();
        let got = basin(&level, &ground, 5, 1, 1.0);
        let mut want = vec![false; nx * ny];
        let mut todo = vec![(5usize, 1usize)];
        want[nx + 5] = true;
        while let Some((x, y)) = todo.pop() {
            for (dx, dy) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
                let (x, y) = (x as i64 + dx, y as i64 + dy);
                if x < 0 || y < 0 || x >= nx as i64 || y >= ny as i64 {
                    continue;
                }
                let i = y as usize * nx + x as usize;
                if !want[i] && ground[i] < 1.0 {
                    want[i] = true;
                    todo.push((x as usize, y as usize));
                }
            }
        }
        assert_eq!(got, want);
        assert!(got[(ny - 1) * nx + 30], "the channel's far end is reached");
        assert!(!got[38 * nx + 25], "the sealed room is not");
    }
}
