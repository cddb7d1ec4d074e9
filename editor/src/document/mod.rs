//! The `Document`: the level being edited, where it lives on disk, and its undo [`History`].
//!
//! Every edit reaches the level through a [`Command`] (or, while a brush stroke is in progress,
//! through [`Document::stroke_level`], which the stroke turns into one command when it ends).
//! The document collects what changed in [`Changes`], which the renderer takes once a frame to
//! upload only the dirty cells.

pub mod bodies;
pub mod command;
pub mod edit;
pub mod features;
pub mod history;
pub mod on_disk;
pub mod settings;

use std::path::{Path, PathBuf};

use spillway::Level;

pub use bodies::EditBodies;
pub use command::{Change, Command, GridPatch, Layer, PatchTile, ReplaceLevel};
pub use edit::{Edit, Part};
pub use features::{EditFeatures, Features};
pub use history::History;
pub use on_disk::FileStamp;
pub use settings::{EditSettings, SetWaterState, Settings, WaterState};
pub use spillway::CellRect;

/// What changed in the level since a view last looked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Changes {
    /// Anything may have changed, including the size: refresh everything.
    pub whole: bool,
    /// Terrain cells that may differ.
    pub terrain: Option<CellRect>,
    /// Water cells that may differ.
    pub water: Option<CellRect>,
    /// Sources, sinks or boundaries may differ.
    pub features: bool,
    /// Rigid bodies may differ.
    pub bodies: bool,
    /// Roughness cells that may differ (or the grid was added or removed).
    pub roughness: Option<CellRect>,
    /// The name or the simulation parameters may differ.
    pub settings: bool,
    /// The initial water and flow state as a whole (a bake, Keep this state: the water,
    /// the flow, gates, bodies, breaches and a moving bed's terrain); the running water may
    /// already be it ([`crate::preview::Preview::water_becomes_authored`]).
    pub state: bool,
}

impl Changes {
    /// Everything changed.
    pub fn everything() -> Self {
        Self {
            whole: true,
            ..Self::default()
        }
    }

    /// Adds one change.
    pub fn add(&mut self, change: &Change) {
        match change {
            Change::Whole => self.whole = true,
            Change::Features => self.features = true,
            Change::Bodies => self.bodies = true,
            Change::Settings => self.settings = true,
            // The flow state has no cells to upload: everything is drawn again, and the running
            // water starts again from it unless it is that water.
            Change::WaterState => self.state = true,
            Change::Cells { layer, rect } => {
                if rect.is_empty() {
                    return;
                }
                let slot = match layer {
                    Layer::Terrain => &mut self.terrain,
                    Layer::Water => &mut self.water,
                    Layer::Roughness => &mut self.roughness,
                };
                *slot = Some(slot.map_or(*rect, |r| r.union(rect)));
            }
        }
    }

    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        !self.whole
            && !self.state
            && !self.features
            && !self.bodies
            && !self.settings
            && self.roughness.is_none()
            && self.terrain.is_none()
            && self.water.is_none()
    }

    /// The cells the renderer must upload again.
    pub fn dirty(&self) -> spillway_render::Dirty {
        spillway_render::Dirty {
            whole: self.whole || self.state,
            terrain: self.terrain,
            water: self.water,
            roughness: self.roughness,
            parameters: self.settings,
            // Whether an edit is finished is the viewport's to say (a stroke under way).
            rescan_range: false,
        }
    }
}

/// An open level: its content, its file and its undo history.
pub struct Document {
    level: Level,
    path: Option<PathBuf>,
    history: History,
    saved_state: u64,
    /// A stroke has changed the level but not yet become a command.
    live_edit: bool,
    changes: Changes,
    /// Why the last edit taken back was ([`Self::take_refused`]).
    refused: Option<String>,
    /// The file as it was when the document was opened or last saved.
    on_disk: Option<FileStamp>,
}

/// `path` made absolute against the working folder now: a document opened as
/// `river/level.ron` and recovered after a crash by an editor started elsewhere saved (and
/// looked for its bodies) in the other folder.
fn absolute(path: PathBuf) -> PathBuf {
    std::path::absolute(&path).unwrap_or(path)
}

impl Document {
    /// A document holding `level`, read from (or to be saved to) `path`.
    pub fn new(level: Level, path: Option<PathBuf>) -> Self {
        Self::with_history(level, path, History::default())
    }

    /// A document with a given (empty) history, e.g. with a smaller memory budget.
    pub fn with_history(level: Level, path: Option<PathBuf>, history: History) -> Self {
        let saved_state = history.state();
        let path = path.map(absolute);
        Self {
            on_disk: path.as_deref().and_then(FileStamp::of),
            level,
            path,
            history,
            saved_state,
            live_edit: false,
            changes: Changes::everything(),
            refused: None,
        }
    }

    /// The level as it is now.
    pub fn level(&self) -> &Level {
        &self.level
    }

    /// The file the document was opened from or last saved to.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Whether the document's file was replaced on disk since the document read or last wrote
    /// it (by another editor, a bake from the command line, a checkout); a file since removed
    /// (or not there when the document was made) is not: saving loses nothing.
    pub fn changed_on_disk(&self) -> bool {
        let Some(path) = &self.path else {
            return false;
        };
        matches!((FileStamp::of(path), self.on_disk), (Some(now), Some(was)) if now != was)
    }

    /// A short name for title bars: the file name, or "untitled".
    pub fn title(&self) -> String {
        self.path
            .as_deref()
            .and_then(|p| p.file_name())
            .map_or_else(|| "untitled".into(), |n| n.to_string_lossy().into_owned())
    }

    /// The undo history.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Whether the level differs from what was last saved (or is new and edited).
    pub fn is_modified(&self) -> bool {
        self.live_edit || self.history.state() != self.saved_state
    }

    /// Records that the level was saved to `path` as it is now.
    pub fn mark_saved(&mut self, path: PathBuf) {
        self.on_disk = FileStamp::of(&path);
        self.path = Some(absolute(path));
        self.saved_state = self.history.state();
    }

    /// Records that the level was saved to `path` as it stood at history `state` (a save in
    /// the background: a step made while it ran, a bake ending, is not in the file).
    pub fn mark_saved_as_of(&mut self, path: PathBuf, state: u64) {
        self.on_disk = FileStamp::of(&path);
        self.path = Some(absolute(path));
        self.saved_state = state;
    }

    /// Marks the level as differing from its file (e.g. restored from a recovery copy).
    pub fn mark_modified(&mut self) {
        self.saved_state = u64::MAX;
    }

    /// Rewrites the glTF paths of the level's bodies, and of those its history holds, through
    /// `to`, as no step of its own: the level was saved into another folder with its body
    /// files relinked there, and the file on disk names them so.
    pub fn relink_bodies(&mut self, to: &dyn Fn(&str) -> String) {
        for body in &mut self.level.bodies {
            body.gltf = to(&body.gltf);
        }
        self.history.relink_bodies(to);
        self.changes.add(&Change::Bodies);
    }

    /// Applies `command` and records it for undo; an edit that leaves the level with more
    /// objects than the editor opens is taken back ([`Self::take_refused`] says why).
    pub fn execute(&mut self, command: Box<dyn Command>) {
        let change = command.apply(&mut self.level);
        self.changes.add(&change);
        if !self.taken_back(&*command) {
            self.history.push(command);
        }
    }

    /// Records `command`, whose effect is already in the level (a finished stroke); taken
    /// back as [`Self::execute`] takes an edit back.
    pub fn push_applied(&mut self, command: Box<dyn Command>) {
        self.live_edit = false;
        if !self.taken_back(&*command) {
            self.history.push(command);
        }
    }

    /// Reverts `command`, whose effect is in the level, when it leaves more objects, or
    /// objects covering more cells, than the limits the editor opens levels with (the level
    /// would save but not open again); a level past them before the edit keeps it.
    fn taken_back(&mut self, command: &dyn Command) -> bool {
        if !command.edits_objects() {
            return false;
        }
        let limits = crate::project::open_limits();
        let Err(e) = self.level.check_objects(&limits) else {
            return false;
        };
        let change = command.revert(&mut self.level);
        if self.level.check_objects(&limits).is_err() {
            command.apply(&mut self.level);
            return false;
        }
        self.changes.add(&change);
        self.refused = Some(format!(
            "{} taken back: {}: {} (the editor could not open the level again)",
            command.label(),
            e.field,
            e.reason
        ));
        true
    }

    /// Why the last edit taken back by [`Self::execute`] or [`Self::push_applied`] was, once.
    pub fn take_refused(&mut self) -> Option<String> {
        self.refused.take()
    }

    /// Ends a live edit that produced no command (a stroke that changed nothing).
    pub fn end_live_edit(&mut self) {
        self.live_edit = false;
    }

    /// Reverts the newest command. Returns whether there was one.
    pub fn undo(&mut self) -> bool {
        match self.history.undo(&mut self.level) {
            Some(change) => {
                self.changes.add(&change);
                true
            }
            None => false,
        }
    }

    /// Re-applies the newest undone command. Returns whether there was one.
    pub fn redo(&mut self) -> bool {
        match self.history.redo(&mut self.level) {
            Some(change) => {
                self.changes.add(&change);
                true
            }
            None => false,
        }
    }

    /// Write access for a stroke in progress: the caller must report what it changed with
    /// [`Document::note_change`] and finish with [`Document::push_applied`] or
    /// [`Document::end_live_edit`].
    pub fn stroke_level(&mut self) -> &mut Level {
        self.live_edit = true;
        &mut self.level
    }

    /// Reports cells changed through [`Document::stroke_level`].
    pub fn note_change(&mut self, change: &Change) {
        self.changes.add(change);
    }

    /// Takes what changed since the last call.
    pub fn take_changes(&mut self) -> Changes {
        std::mem::take(&mut self.changes)
    }

    /// Marks everything as changed (a view was recreated and needs a full upload).
    pub fn touch_all(&mut self) {
        self.changes.whole = true;
    }
}
