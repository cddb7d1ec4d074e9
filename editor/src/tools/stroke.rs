//! `Stroke`: one press-drag-release of a painting tool (a sculpting tool on the terrain, the
//! water brush on the initial water). It spreads dabs evenly along the cursor's path (so fast
//! drags leave no gaps and the effect does not depend on the frame rate), keeps the original
//! values of every tile it touches, and on release becomes one [`GridPatch`] holding only
//! those tiles.

use std::collections::BTreeMap;

use spillway::Level;

use super::roughness::apply_roughness_dab;
use super::sculpt::{Dab, apply_dab, apply_ramp, dab_rect, ramp_rect};
use super::water::apply_water_dab;
use super::{Brush, Tool};
use crate::document::{Change, Document, GridPatch, Layer, PatchTile};
use spillway::rect::{CellRect, copy_out};

/// Side of the square tiles a stroke saves for undo, in cells.
pub const TILE: usize = 64;

/// Cells one frame's movement may visit (dabs × the cells each covers): a fast drag of a
/// small brush across a huge map keeps its dabs half a cell apart; a brush so large that its
/// dabs would visit more is spaced wider, down to [`MIN_DABS_PER_MOVE`] dabs a move.
const CELLS_PER_MOVE: f32 = 64e6;

/// Dabs one frame's movement may always be split into, however large the brush.
const MIN_DABS_PER_MOVE: usize = 512;

/// A stroke in progress.
#[derive(Debug)]
pub struct Stroke {
    tool: Tool,
    /// The grid the stroke paints.
    layer: Layer,
    invert: bool,
    /// Where the stroke started (world x, y, terrain height there).
    start: [f32; 3],
    /// Where the last dab was placed (world x, y).
    last: [f32; 2],
    /// The cursor left the map: the brush is lifted until it comes back.
    lifted: bool,
    /// Original values of each touched tile, keyed by tile column and row.
    before: BTreeMap<(usize, usize), Vec<f32>>,
    /// The stroke created the level's roughness grid, filled with this `n`.
    created: Option<f32>,
}

impl Stroke {
    /// Starts a stroke of `tool` at world point `(x, y)`; `invert` is Shift.
    pub fn begin(document: &Document, tool: Tool, invert: bool, x: f32, y: f32) -> Self {
        let level = document.level();
        let cs = level.cell_size;
        let anchor = level.terrain.sample(x / cs, y / cs);
        let layer = match tool {
            Tool::Water => Layer::Water,
            Tool::Roughness => Layer::Roughness,
            _ => Layer::Terrain,
        };
        Self {
            tool,
            layer,
            invert,
            start: [x, y, anchor],
            last: [x, y],
            lifted: false,
            before: BTreeMap::new(),
            created: None,
        }
    }

    /// The tool of this stroke.
    pub fn tool(&self) -> Tool {
        self.tool
    }

    /// Where the stroke started: world x, y and the terrain height there.
    pub fn start(&self) -> [f32; 3] {
        self.start
    }

    /// Where the cursor was last (world x, y).
    pub fn last(&self) -> [f32; 2] {
        self.last
    }

    /// Changes whether the stroke is inverted (Shift pressed or released mid-stroke).
    pub fn set_invert(&mut self, invert: bool) {
        self.invert = invert;
    }

    /// Moves the brush to `(x, y)` over `dt` seconds of brushing: dabs are spread evenly along
    /// the way from the last position, each standing for its share of `dt`.
    pub fn drag_to(&mut self, document: &mut Document, brush: &Brush, x: f32, y: f32, dt: f32) {
        if !(x.is_finite() && y.is_finite()) {
            return;
        }
        if std::mem::take(&mut self.lifted) {
            // Back on the map: the stroke goes on from here, with no line from where it left.
            self.last = [x, y];
        }
        if self.tool == Tool::Ramp {
            self.last = [x, y];
            return;
        }
        let cs = document.level().cell_size;
        if self.layer == Layer::Roughness && document.level().roughness.is_none() {
            // The first roughness stroke gives the level its grid, at the level-wide n.
            let level = document.stroke_level();
            let n = match level.params.friction {
                spillway::level::Friction::Manning { n } => n,
                _ => spillway::level::DEFAULT_MANNING_N,
            };
            level.roughness = Some(spillway::Grid::filled(level.nx(), level.ny(), n));
            self.created = Some(n);
        }
        let [lx, ly] = self.last;
        let len = ((x - lx).powi(2) + (y - ly).powi(2)).sqrt();
        let spacing = (brush.effective_radius(cs) * 0.2).max(cs * 0.5);
        let side = 2.0 * brush.effective_radius(cs) / cs + 2.0;
        let most = ((CELLS_PER_MOVE / (side * side)) as usize).max(MIN_DABS_PER_MOVE);
        let n = ((len / spacing).ceil() as usize).clamp(1, most);
        let dt = dt.clamp(0.0, 0.25);
        let mut changed = CellRect::new(0, 0, 0, 0);
        for i in 1..=n {
            let t = i as f32 / n as f32;
            let dab = Dab {
                tool: self.tool,
                invert: self.invert,
                anchor: self.start[2],
                x: lx + (x - lx) * t,
                y: ly + (y - ly) * t,
                dt: dt / n as f32,
            };
            let rect = dab_rect(brush, &document.level().terrain, cs, dab.x, dab.y);
            self.save_tiles(document.level(), &rect);
            let level = document.stroke_level();
            let rect = match self.layer {
                Layer::Terrain => apply_dab(brush, &dab, &mut level.terrain, cs),
                Layer::Water => apply_water_dab(brush, &dab, &level.terrain, &mut level.water, cs),
                Layer::Roughness => match level.roughness.as_mut() {
                    Some(grid) => apply_roughness_dab(brush, &dab, grid, cs),
                    None => CellRect::new(0, 0, 0, 0),
                },
            };
            changed = changed.union(&rect);
        }
        self.last = [x, y];
        document.note_change(&Change::Cells {
            layer: self.layer,
            rect: changed,
        });
    }

    /// The cursor is off the map, over the ground plane at world `(x, y)`: the stroke goes on
    /// to where its way leaves the map and the brush lifts; the next [`Self::drag_to`] (the
    /// cursor back on the map) starts again where it comes back.
    pub fn leave(&mut self, document: &mut Document, brush: &Brush, x: f32, y: f32, dt: f32) {
        if self.lifted || !(x.is_finite() && y.is_finite()) {
            return;
        }
        let level = document.level();
        let (w, h) = (
            level.nx() as f32 * level.cell_size,
            level.ny() as f32 * level.cell_size,
        );
        let [lx, ly] = self.last;
        // How far along the way from the last dab to (x, y) it stays on the map.
        let mut t = 1.0f32;
        for (from, to, end) in [(lx, x, w), (ly, y, h)] {
            if to < 0.0 {
                t = t.min(from / (from - to));
            } else if to > end {
                t = t.min((end - from) / (to - from));
            }
        }
        if t < 1.0 {
            let t = t.clamp(0.0, 1.0);
            let (ex, ey) = (lx + (x - lx) * t, ly + (y - ly) * t);
            self.drag_to(document, brush, ex, ey, dt * t);
        }
        // (A point over the map: the plane at the stroke's height passes above the ground
        // there, or the cursor is over a panel; the brush lifts where it is.)
        self.lifted = true;
    }

    /// The cursor is off the terrain where no point of the plane can be placed (above the
    /// horizon): the brush lifts where it is, until the cursor comes back.
    pub fn lift(&mut self) {
        self.lifted = true;
    }

    /// Ends the stroke at the last position: the Ramp tool builds its ramp now (if it is at
    /// least a cell long); every tool records what it changed as one undoable command. Returns
    /// whether anything changed.
    pub fn finish(mut self, document: &mut Document, brush: &Brush) -> bool {
        let cs = document.level().cell_size;
        let [x, y] = self.last;
        // A click (a ramp shorter than a cell) builds none: it would pull a disc flat.
        let long = (x - self.start[0]).hypot(y - self.start[1]) >= cs;
        if self.tool == Tool::Ramp && long {
            let level = document.level();
            let end = [x, y, level.terrain.sample(x / cs, y / cs)];
            let rect = ramp_rect(
                brush,
                &level.terrain,
                cs,
                [self.start[0], self.start[1]],
                [x, y],
            );
            self.save_tiles(document.level(), &rect);
            let level = document.stroke_level();
            let changed = apply_ramp(brush, &mut level.terrain, cs, self.start, end);
            document.note_change(&Change::Cells {
                layer: Layer::Terrain,
                rect: changed,
            });
        }
        let patch = self.into_patch(document.level());
        if patch.is_empty() {
            document.end_live_edit();
            false
        } else {
            document.push_applied(Box::new(patch));
            true
        }
    }

    /// Abandons the stroke, putting back every value it changed.
    pub fn cancel(self, document: &mut Document) {
        let patch = self.into_patch(document.level());
        if !patch.is_empty() {
            let change = crate::document::Command::revert(&patch, document.stroke_level());
            document.note_change(&change);
        }
        document.end_live_edit();
    }

    /// Saves the original values of the tiles overlapping `rect` that no earlier dab touched.
    fn save_tiles(&mut self, level: &Level, rect: &CellRect) {
        if rect.is_empty() {
            return;
        }
        let Some(grid) = self.layer.grid(level) else {
            return;
        };
        for ty in rect.y0 / TILE..=(rect.y1 - 1) / TILE {
            for tx in rect.x0 / TILE..=(rect.x1 - 1) / TILE {
                self.before.entry((tx, ty)).or_insert_with(|| {
                    copy_out(&grid.data, grid.nx, &tile_rect(tx, ty, grid.nx, grid.ny))
                });
            }
        }
    }

    fn into_patch(self, level: &Level) -> GridPatch {
        let label = format!("{} stroke", self.tool.name());
        let Some(grid) = self.layer.grid(level) else {
            return GridPatch::new(label, self.layer, Vec::new());
        };
        let tiles = self
            .before
            .into_iter()
            .map(|((tx, ty), before)| {
                let rect = tile_rect(tx, ty, grid.nx, grid.ny);
                PatchTile {
                    rect,
                    before: before.into(),
                    after: copy_out(&grid.data, grid.nx, &rect).into(),
                }
            })
            .collect();
        let patch = GridPatch::new(label, self.layer, tiles);
        match self.created {
            Some(n) => patch.creating(n),
            None => patch,
        }
    }
}

/// The cells of tile `(tx, ty)`, clipped to an `nx × ny` grid.
pub fn tile_rect(tx: usize, ty: usize, nx: usize, ny: usize) -> CellRect {
    CellRect::new(
        tx * TILE,
        ty * TILE,
        ((tx + 1) * TILE).min(nx),
        ((ty + 1) * TILE).min(ny),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use spillway::Grid;

    fn document() -> Document {
        let mut level = Level::flat(300, 200, 1.0, 0.0);
        level.terrain = Grid::from_fn(300, 200, |x, y| (x as f32 * 0.1).sin() + y as f32 * 0.01);
        Document::new(level, None)
    }

    #[test]
    fn a_stroke_stores_only_the_tiles_it_touched_and_undoes_exactly() {
        let mut doc = document();
        let before = doc.level().terrain.clone();
        let brush = Brush {
            radius: 5.0,
            ..Brush::default()
        };
        let mut stroke = Stroke::begin(&doc, Tool::Raise, false, 10.0, 10.0);
        for i in 0..10 {
            stroke.drag_to(&mut doc, &brush, 10.0 + i as f32 * 4.0, 10.0, 1.0 / 60.0);
        }
        assert!(stroke.finish(&mut doc, &brush));
        assert_eq!(doc.history().undo_len(), 1);
        // One row of tiles at most (x 5..55, y 5..15 lies in tile row 0, columns 0).
        assert!(
            doc.history().bytes() <= 2 * TILE * TILE * 4 + 256,
            "{}",
            doc.history().bytes()
        );
        assert!(doc.is_modified());
        assert!(doc.undo());
        assert_eq!(doc.level().terrain, before);
        assert!(!doc.is_modified());
    }

    #[test]
    fn a_water_stroke_paints_water_only_and_undoes_exactly() {
        let mut doc = document();
        let terrain = doc.level().terrain.clone();
        let brush = Brush::default();
        let mut stroke = Stroke::begin(&doc, Tool::Water, false, 50.0, 50.0);
        stroke.drag_to(&mut doc, &brush, 90.0, 60.0, 0.1);
        assert!(stroke.finish(&mut doc, &brush));
        assert_eq!(doc.level().terrain, terrain);
        assert!(doc.level().water.get(70, 55) > 0.0);
        assert_eq!(doc.history().undo_label(), Some("Water brush stroke"));
        assert!(doc.undo());
        assert!(doc.level().water.data.iter().all(|d| *d == 0.0));
    }

    #[test]
    fn a_small_brush_dragged_far_in_one_frame_leaves_no_gaps() {
        // 2000 cells in one move, a brush a cell wide: 4000 dabs half a cell apart (512 at
        // most left every fourth cell untouched).
        let mut doc = Document::new(Level::flat(2100, 12, 1.0, 0.0), None);
        let brush = Brush {
            radius: 1.0,
            ..Brush::default()
        };
        let mut stroke = Stroke::begin(&doc, Tool::Raise, false, 20.5, 6.5);
        stroke.drag_to(&mut doc, &brush, 2020.5, 6.5, 0.1);
        let terrain = &doc.level().terrain;
        let flat: Vec<usize> = (20..=2020).filter(|&x| terrain.get(x, 6) <= 0.0).collect();
        assert!(
            flat.is_empty(),
            "{} cells untouched on the path",
            flat.len()
        );
    }

    #[test]
    fn cancel_puts_every_value_back_and_records_nothing() {
        let mut doc = document();
        let before = doc.level().terrain.clone();
        let brush = Brush::default();
        let mut stroke = Stroke::begin(&doc, Tool::Noise, true, 100.0, 100.0);
        stroke.drag_to(&mut doc, &brush, 180.0, 150.0, 0.1);
        assert_ne!(doc.level().terrain, before);
        stroke.cancel(&mut doc);
        assert_eq!(doc.level().terrain, before);
        assert_eq!(doc.history().undo_len(), 0);
        assert!(!doc.is_modified());
    }
}
