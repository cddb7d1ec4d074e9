//! Commands: undoable edits of the level. Every change to the document goes through one, so
//! terrain strokes, heightmap imports, water strokes and fills, and source, sink and boundary
//! edits ([`super::features`]) and body edits ([`super::bodies`]) share one undo stack.

use spillway::{Grid, Level};

use spillway::rect::{CellRect, copy_in};

/// Which grid of the level a [`GridPatch`] edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layer {
    /// Terrain heights, metres.
    Terrain,
    /// Initial water depth, metres.
    Water,
    /// Manning's roughness `n` per cell (the level's optional roughness grid).
    Roughness,
}

impl Layer {
    /// The grid of `level` this layer names (`None`: a level without a roughness grid).
    pub fn grid(self, level: &Level) -> Option<&Grid> {
        match self {
            Layer::Terrain => Some(&level.terrain),
            Layer::Water => Some(&level.water),
            Layer::Roughness => level.roughness.as_ref(),
        }
    }

    /// The grid of `level` this layer names, for writing.
    pub fn grid_mut(self, level: &mut Level) -> Option<&mut Grid> {
        match self {
            Layer::Terrain => Some(&mut level.terrain),
            Layer::Water => Some(&mut level.water),
            Layer::Roughness => level.roughness.as_mut(),
        }
    }
}

/// What an applied or reverted command changed, so views refresh only that.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// Cells of one layer inside a rectangle.
    Cells {
        /// The edited grid.
        layer: Layer,
        /// The cells that may differ.
        rect: CellRect,
    },
    /// The level's sources, sinks or edge boundaries.
    Features,
    /// The level's rigid bodies.
    Bodies,
    /// The level's name or simulation parameters.
    Settings,
    /// The initial water and flow state as a whole (a bake).
    WaterState,
    /// Anything, including the level's size: refresh everything.
    Whole,
}

/// An undoable edit of the level. `apply` and `revert` must be exact inverses: after
/// `apply` then `revert` every value of the level is bit-for-bit what it was.
pub trait Command: Send {
    /// A short name for the Edit menu, e.g. "Raise stroke".
    fn label(&self) -> &str;
    /// Performs the edit.
    fn apply(&self, level: &mut Level) -> Change;
    /// Undoes the edit.
    fn revert(&self, level: &mut Level) -> Change;
    /// Heap bytes the command holds, for the history's memory budget.
    fn bytes(&self) -> usize;
    /// Rewrites the glTF paths of the bodies it holds through `to` (the level was saved
    /// into another folder and its body files relinked): an undo then brings back bodies
    /// whose files the new folder finds.
    fn relink_bodies(&mut self, _to: &dyn Fn(&str) -> String) {}
    /// Whether it may add or grow objects (sources, sinks, gates, structures, gauges, bodies),
    /// so the document checks the level's objects against the editor's limits after it; a
    /// grid's cells (a stroke) never do, and the check would read a large terrain each time.
    fn edits_objects(&self) -> bool {
        true
    }
}

/// One rectangle of a [`GridPatch`]: the values before and after the edit.
#[derive(Clone, Debug, PartialEq)]
pub struct PatchTile {
    /// The cells covered.
    pub rect: CellRect,
    /// Values before the edit, row-major over `rect`.
    pub before: Box<[f32]>,
    /// Values after the edit, row-major over `rect`.
    pub after: Box<[f32]>,
}

/// An edit of some cells of one grid, stored as before/after values of only the tiles a
/// stroke touched: a brush stroke, a fill, a paint of water.
#[derive(Clone, Debug, PartialEq)]
pub struct GridPatch {
    label: String,
    layer: Layer,
    tiles: Vec<PatchTile>,
    /// The patch created the level's roughness grid, filled with this `n`: applying creates
    /// it, reverting removes it again.
    created: Option<f32>,
}

impl GridPatch {
    /// A patch of `layer` made of `tiles`; tiles whose values did not change are dropped.
    pub fn new(label: impl Into<String>, layer: Layer, tiles: Vec<PatchTile>) -> Self {
        let tiles = tiles.into_iter().filter(|t| t.before != t.after).collect();
        Self {
            label: label.into(),
            layer,
            tiles,
            created: None,
        }
    }

    /// The same patch, recording that it created the roughness grid (filled with `n`).
    pub fn creating(mut self, n: f32) -> Self {
        self.created = Some(n);
        self
    }

    /// Whether the patch changes nothing.
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty() && self.created.is_none()
    }

    /// The edited grid.
    pub fn layer(&self) -> Layer {
        self.layer
    }

    /// The tiles the patch holds.
    pub fn tiles(&self) -> &[PatchTile] {
        &self.tiles
    }

    /// The bounding rectangle of every tile.
    pub fn bounds(&self) -> CellRect {
        self.tiles
            .iter()
            .fold(CellRect::new(0, 0, 0, 0), |r, t| r.union(&t.rect))
    }

    fn write(&self, level: &mut Level, after: bool) -> Change {
        if let (Some(n), true, Layer::Roughness) = (self.created, after, self.layer) {
            let (nx, ny) = (level.nx(), level.ny());
            level
                .roughness
                .get_or_insert_with(|| Grid::filled(nx, ny, n));
        }
        if let Some(grid) = self.layer.grid_mut(level) {
            let nx = grid.nx;
            for tile in &self.tiles {
                let values = if after { &tile.after } else { &tile.before };
                copy_in(&mut grid.data, nx, &tile.rect, values);
            }
        }
        if self.created.is_some() && !after && self.layer == Layer::Roughness {
            level.roughness = None;
        }
        // A patch that made (or unmade) the roughness grid changed every cell's n, whatever
        // cells it painted: the preview must take the whole grid (or its going).
        let rect = if self.created.is_some() && self.layer == Layer::Roughness {
            CellRect::whole(level.nx(), level.ny())
        } else {
            self.bounds()
        };
        Change::Cells {
            layer: self.layer,
            rect,
        }
    }
}

impl Command for GridPatch {
    fn label(&self) -> &str {
        &self.label
    }

    fn edits_objects(&self) -> bool {
        false
    }

    fn apply(&self, level: &mut Level) -> Change {
        self.write(level, true)
    }

    fn revert(&self, level: &mut Level) -> Change {
        self.write(level, false)
    }

    fn bytes(&self) -> usize {
        self.tiles
            .iter()
            .map(|t| (t.before.len() + t.after.len()) * 4 + std::mem::size_of::<PatchTile>())
            .sum()
    }
}

/// Replaces the whole level (a heightmap import that changes the size, a resize): stores both
/// levels, so it is only used where a smaller command cannot express the edit.
#[derive(Clone, Debug)]
pub struct ReplaceLevel {
    label: String,
    before: Box<Level>,
    after: Box<Level>,
}

impl ReplaceLevel {
    /// A command turning `before` into `after`.
    pub fn new(label: impl Into<String>, before: Level, after: Level) -> Self {
        Self {
            label: label.into(),
            before: Box::new(before),
            after: Box::new(after),
        }
    }
}

/// Bytes of the grids `level` holds: terrain, water, roughness and every flow grid.
fn level_bytes(level: &Level) -> usize {
    let flow = level
        .flow
        .as_ref()
        .map_or(0, spillway::level::FlowState::values);
    let roughness = level.roughness.as_ref().map_or(0, |r| r.data.len());
    (level.terrain.data.len() + level.water.data.len() + roughness + flow) * 4
}

impl Command for ReplaceLevel {
    fn label(&self) -> &str {
        &self.label
    }

    fn apply(&self, level: &mut Level) -> Change {
        *level = (*self.after).clone();
        Change::Whole
    }

    fn revert(&self, level: &mut Level) -> Change {
        *level = (*self.before).clone();
        Change::Whole
    }

    fn bytes(&self) -> usize {
        level_bytes(&self.before) + level_bytes(&self.after)
    }

    fn relink_bodies(&mut self, to: &dyn Fn(&str) -> String) {
        for body in self.before.bodies.iter_mut().chain(&mut self.after.bodies) {
            body.gltf = to(&body.gltf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_level_counts_every_grid_it_holds() {
        // The history's budget counted terrain, water and two flow grids: a level with
        // roughness and a full flow state held twice what it was counted as.
        let mut level = Level::flat(10, 6, 1.0, 0.0);
        level.roughness = Some(spillway::Grid::filled(10, 6, 0.03));
        let grid = vec![0.0; 60];
        level.flow = Some(spillway::level::FlowState {
            flow_x: vec![0.0; 66],
            flow_y: vec![0.0; 70],
            ghost: grid.clone(),
            carry: grid.clone(),
            aux_x: vec![0.0; 66],
            aux_y: vec![0.0; 70],
            bed_floor: grid,
            ..Default::default()
        });
        let cells = 60 * 3 + 66 + 70 + 60 * 3 + 66 + 70;
        let replace = ReplaceLevel::new("Resize", level.clone(), level);
        assert!(replace.bytes() >= 2 * cells * 4, "{}", replace.bytes());
    }

    #[test]
    fn making_or_unmaking_the_roughness_grid_changes_every_cell() {
        // A roughness stroke that painted the level-wide n changed no cell but made the grid:
        // its undo must still tell the preview, which otherwise kept running on the grid.
        let mut level = Level::flat(10, 6, 1.0, 0.0);
        let patch = GridPatch::new("Paint roughness", Layer::Roughness, Vec::new()).creating(0.03);
        let whole = CellRect::whole(10, 6);
        let made = patch.apply(&mut level);
        assert!(level.roughness.is_some());
        assert!(
            matches!(made, Change::Cells { rect, .. } if rect == whole),
            "{made:?}"
        );
        let unmade = patch.revert(&mut level);
        assert!(level.roughness.is_none());
        assert!(
            matches!(unmade, Change::Cells { rect, .. } if rect == whole),
            "{unmade:?}"
        );
    }
}
