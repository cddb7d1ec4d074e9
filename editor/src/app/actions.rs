//! `Action`: the one vocabulary of what the designer asks of the editor, whether by a menu, a
//! shortcut, a button or a dropped file, and how each is carried out. Actions that would replace
//! the document first ask about unsaved changes. (Gestures in the viewport, strokes and drags,
//! are not actions: they become commands on the document directly.)

use std::path::{Path, PathBuf};

use spillway::{Grid, Level};

use super::dialogs::{Dialog, ExportForm, ImportForm, NewLevelForm};
use super::gizmo::GizmoMode;
use super::{EditorApp, EditorError};
use crate::document::{CellRect, GridPatch, Layer, PatchTile, ReplaceLevel};
use crate::project::heightmap_io::{self, HeightRange, HeightmapFormat};
use crate::tools::Tool;

/// Something the user asked for.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Show the New level dialog.
    New,
    /// Replace the document by this new level.
    Create(Box<Level>),
    /// Ask for a level file and open it.
    Open,
    /// Open this level file.
    OpenPath(PathBuf),
    /// Save to the document's file (or ask where).
    Save,
    /// Ask where to save, then save.
    SaveAs,
    /// Ask for a heightmap file and show the import dialog.
    Import,
    /// Show the import dialog for this file.
    ImportPath(PathBuf),
    /// Show the export dialog.
    Export,
    /// Ask for a glTF body file and import it.
    ImportBody,
    /// Import this glTF body file: it becomes the body the Body tool places.
    ImportBodyPath(PathBuf),
    /// Undo the last edit.
    Undo,
    /// Redo the last undone edit.
    Redo,
    /// Bake the level's water to steady state in the background.
    Bake,
    /// Make the preview's current water the level's initial state.
    KeepState,
    /// Close the editor.
    Quit,
    /// Make this the active tool.
    SelectTool(Tool),
    /// Pick the body gizmo's mode.
    SetGizmoMode(GizmoMode),
    /// Make the brush larger by one notch.
    GrowBrush,
    /// Make the brush smaller by one notch.
    ShrinkBrush,
    /// Move the camera to see the whole level.
    FrameView,
    /// Look at the level from the south at the default angle.
    ResetView,
    /// Run the water if it is paused, pause it if it runs.
    PlayPause,
    /// Pause the water and run one time step.
    StepWater,
    /// Back to the authored water (the level is not changed).
    ResetWater,
    /// Delete the selected body, or else the selected source, sink, boundary or gate.
    DeleteSelection,
    /// Duplicate the selected body.
    DuplicateBody,
    /// Cancel the stroke or drag in progress, or else clear the selection.
    Cancel,
    /// Check every lake for leaks and mark where they escape.
    FindLeaks,
    /// Show this analysis of the terrain over it.
    ShowAnalysis(super::TerrainAnalysis),
    /// Ask for a folder and write the maps of the water's run into it.
    ExportMaps,
    /// Scrub, branch or compare on the preview's timeline.
    Timeline(super::timeline_panel::TimelineAction),
}

impl Action {
    /// Whether the action throws the current document away.
    fn replaces_document(&self) -> bool {
        matches!(
            self,
            Action::Create(_) | Action::Open | Action::OpenPath(_) | Action::Quit
        )
    }

    /// Whether the action waits for the stroke or drag in progress to end: it reads or writes
    /// the whole document, which holds half a gesture until the button is let go (saving it
    /// would write half a stroke and mark the state before it as the saved one).
    fn waits_for_gestures(&self) -> bool {
        matches!(
            self,
            Action::Save
                | Action::SaveAs
                | Action::Create(_)
                | Action::Open
                | Action::OpenPath(_)
                | Action::Export
                | Action::Bake
                | Action::KeepState
        )
    }
}

impl EditorApp {
    /// Carries out `action`, first asking about unsaved changes if it would lose them.
    pub(crate) fn request(&mut self, action: Action) {
        self.repaint = true;
        if action.waits_for_gestures() && self.gesture_in_progress() {
            self.notify("Let go of the stroke or drag first", true);
            return;
        }
        if action.waits_for_gestures() {
            // An inspector field held mid-drag is its own step, before what the action does
            // (Keep this state recorded the half-dragged crest as the state before it).
            self.authoring.commit_pending(&mut self.document);
            self.bodies.commit_pending(&mut self.document);
        }
        if action.replaces_document() && self.document.is_modified() {
            self.dialog = Some(Dialog::Unsaved { then: action });
            return;
        }
        self.perform_now(action);
    }

    /// Carries out `action` without asking.
    pub(crate) fn perform_now(&mut self, action: Action) {
        match action {
            Action::New => self.dialog = Some(Dialog::NewLevel(NewLevelForm::default())),
            Action::Create(level) => {
                self.discard_recovery();
                self.set_document(*level, None);
                self.notify("New level", false);
            }
            Action::Open => {
                let dir = self.start_dir();
                if let Some(path) = self.dialogs.open_level(dir.as_deref()) {
                    self.open_path(&path);
                }
            }
            Action::OpenPath(path) => self.open_path(&path),
            Action::Save => {
                self.save();
            }
            Action::SaveAs => {
                self.save_as();
            }
            Action::Import => {
                let dir = self.start_dir();
                if let Some(path) = self.dialogs.open_heightmap(dir.as_deref()) {
                    self.perform_now(Action::ImportPath(path));
                }
            }
            Action::ImportPath(path) => {
                let exported = self.exported.get(&path).copied();
                let form = ImportForm::new(path, self.document.level(), exported);
                self.dialog = Some(Dialog::Import(form));
            }
            Action::ImportBody => {
                let dir = self.start_dir();
                if let Some(path) = self.dialogs.open_body(dir.as_deref()) {
                    self.perform_now(Action::ImportBodyPath(path));
                }
            }
            Action::ImportBodyPath(path) => self.import_body(&path),
            Action::Export => {
                self.dialog = Some(Dialog::Export(ExportForm::new(self.document.level())));
            }
            Action::Undo => self.undo(),
            Action::Redo => self.redo(),
            Action::Bake => super::bake_panel::start(self),
            Action::KeepState => super::bake_panel::keep_this_state(self),
            Action::Quit => {
                self.discard_recovery();
                self.quit_confirmed = true;
                self.close_now = true;
            }
            Action::SelectTool(tool) => self.sculpt.tool = tool,
            Action::SetGizmoMode(mode) => self.bodies.mode = mode,
            Action::GrowBrush => self.sculpt.brush.grow(),
            Action::ShrinkBrush => self.sculpt.brush.shrink(),
            Action::FrameView => {
                if let Some(name) = self.frame_view() {
                    self.notify(format!("Framed {name}"), false);
                }
            }
            Action::ResetView => self.viewport.reset_on_next_frame(),
            Action::PlayPause if self.preview.playing => self.preview.pause(),
            Action::PlayPause => {
                if !self.preview.is_live() {
                    // Before the authored water first runs: say if a lake will leak.
                    self.find_leaks(false);
                }
                self.preview.play();
            }
            Action::FindLeaks => self.find_leaks(true),
            Action::ShowAnalysis(shown) => self.analysis.shown = shown,
            Action::ExportMaps => self.export_maps(),
            Action::Timeline(action) => super::timeline_panel::perform(self, action),
            Action::StepWater => self.preview.step_once(),
            Action::ResetWater => self.preview.reset(),
            Action::DeleteSelection => self.delete_selected(),
            Action::DuplicateBody => {
                if let Some(n) = self.bodies.duplicate(&mut self.document) {
                    self.notify(n, false);
                }
            }
            Action::Cancel => self.cancel(),
        }
    }

    /// Asks for a folder and writes the maps of the preview's run into it (npy, 16-bit PNG and
    /// `maps.txt`, as `spillway bake --maps` does).
    fn export_maps(&mut self) {
        let Some(maps) = self.preview.maps() else {
            self.notify(
                "Run the water first: the maps are kept from when it starts",
                true,
            );
            return;
        };
        let dir = self.start_dir();
        let Some(folder) = self
            .dialogs
            .pick_folder(dir.as_deref(), "Export maps of the run")
        else {
            return;
        };
        // Four grids, each written twice (npy and PNG).
        let bytes = 16 * maps.max_depth.len() as u64;
        if bytes >= self.background_bytes {
            self.file_task = Some(super::file_tasks::export_maps(&folder, maps));
            return;
        }
        match crate::project::maps_io::export_maps(&folder, &maps) {
            Ok(files) => self.notify(
                format!(
                    "Exported {} of the run's maps to {}",
                    crate::count(files.len(), "file"),
                    folder.display()
                ),
                false,
            ),
            Err(e) => {
                self.dialog = Some(Dialog::Error {
                    title: "Could not export the maps".into(),
                    message: e.to_string(),
                })
            }
        }
    }

    /// Forgets the recovery copy of the current document (its changes were saved or dropped).
    fn discard_recovery(&mut self) {
        let path = self.document.path().map(Path::to_path_buf);
        self.recovery.discard(path.as_deref());
    }

    fn start_dir(&self) -> Option<PathBuf> {
        self.document
            .path()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
    }

    /// Opens the level at `path` (a level file, or a project folder and its `level.ron`); on
    /// failure shows why and keeps the current document.
    pub(crate) fn open_path(&mut self, path: &Path) {
        let file = match crate::project::level_file(path) {
            Ok(file) => file,
            Err(message) => {
                self.dialog = Some(Dialog::Error {
                    title: "Could not open the level".into(),
                    message,
                });
                return;
            }
        };
        let path = file.as_path();
        match crate::project::open_level(path) {
            Ok(level) => {
                self.discard_recovery();
                self.set_document(level, Some(path.to_path_buf()));
                self.recent.add(path);
                self.notify(format!("Opened {}", path.display()), false);
                self.warn_unloadable_bodies();
            }
            Err(e) => {
                self.dialog = Some(Dialog::Error {
                    title: "Could not open the level".into(),
                    message: e.to_string(),
                });
            }
        }
    }

    /// Shows why, where some of the document's bodies cannot load their glTF file (a level
    /// copied without its `bodies/` folder): the level stays open without them.
    pub(crate) fn warn_unloadable_bodies(&mut self) {
        if let Some(message) = self.bodies.unloadable(&self.document) {
            self.dialog = Some(Dialog::Error {
                title: "Some bodies cannot load".into(),
                message,
            });
        }
    }

    /// Saves to the document's file, or asks where. Returns whether the level was saved.
    pub(crate) fn save(&mut self) -> bool {
        match self.document.path().map(Path::to_path_buf) {
            Some(path) => self.save_to(&path),
            None => self.save_as(),
        }
    }

    /// Asks where to save, then saves. Returns whether the level was saved.
    pub(crate) fn save_as(&mut self) -> bool {
        let dir = self.start_dir();
        let name = self.document.title();
        let name = if name.ends_with(".ron") {
            name
        } else {
            "level.ron".into()
        };
        match self.dialogs.save_level(dir.as_deref(), &name) {
            Some(mut path) => {
                if path.extension().is_none() {
                    path.set_extension("ron");
                }
                self.save_to(&path)
            }
            None => false,
        }
    }

    fn save_to(&mut self, path: &Path) -> bool {
        if self.document.path() == Some(path) && self.document.changed_on_disk() {
            // Another program wrote the file since: ask before putting its work away.
            self.dialog = Some(Dialog::ChangedOnDisk {
                path: path.to_path_buf(),
                then: None,
            });
            return false;
        }
        self.write_to(path)
    }

    /// Saves to `path` whatever is there now (Overwrite in the changed-on-disk question).
    pub(crate) fn write_to(&mut self, path: &Path) -> bool {
        self.authoring.commit_pending(&mut self.document);
        self.bodies.commit_pending(&mut self.document);
        let relinked = match self.copy_body_files(path) {
            Ok(relinked) => relinked,
            Err(e) => {
                self.dialog = Some(Dialog::Error {
                    title: "Could not save the level".into(),
                    message: e.to_string(),
                });
                return false;
            }
        };
        // The level as saved: its bodies' paths relative to the target's folder. The document
        // takes them only once the save succeeds (a failed or cancelled save left them
        // pointing into a folder the document is not in).
        let relinked_level;
        let level = match &relinked {
            Some(bodies) => {
                let mut copy = self.document.level().clone();
                copy.bodies.clone_from(bodies);
                relinked_level = copy;
                &relinked_level
            }
            None => self.document.level(),
        };
        if super::file_tasks::level_bytes(level) >= self.background_bytes {
            let state = self.document.history().state();
            self.file_task = Some(super::file_tasks::save(
                level.clone(),
                path,
                relinked,
                state,
            ));
            return false;
        }
        match spillway::level::file::save(level, path) {
            Ok(()) => {
                self.relink_bodies(relinked, path);
                self.saved(path, self.document.history().state());
                true
            }
            Err(e) => {
                self.dialog = Some(Dialog::Error {
                    title: "Could not save the level".into(),
                    message: e.to_string(),
                });
                false
            }
        }
    }

    /// Imports the glTF body at `path` (it becomes the body the Body tool places, and the Body
    /// tool is picked); a broken, empty or oversized file shows why and changes nothing.
    pub(crate) fn import_body(&mut self, path: &Path) {
        match self.bodies.import(path) {
            Ok(notice) => {
                self.sculpt.tool = crate::tools::Tool::Body;
                self.notify(notice, false);
            }
            Err(e) => {
                self.dialog = Some(Dialog::Error {
                    title: "Could not import the body".into(),
                    message: e.to_string(),
                });
            }
        }
    }

    /// Imports a heightmap as the terrain, as one undoable command. A heightmap of another
    /// size resizes the level (water is cleared, edge boundaries are clipped).
    pub(crate) fn import_heightmap(&mut self, form: &ImportForm) -> Result<(), EditorError> {
        let size = std::fs::metadata(&form.path).map_or(0, |m| m.len());
        if size >= self.background_bytes {
            self.file_task = Some(super::file_tasks::import(&form.path, form.settings()));
            return Ok(());
        }
        let grid = heightmap_io::import(&form.path, &form.settings())?;
        self.apply_heightmap(&form.path, grid)
    }

    /// Makes `grid` (read from `path`) the terrain, as one undoable command.
    pub(crate) fn apply_heightmap(&mut self, path: &Path, grid: Grid) -> Result<(), EditorError> {
        let level = self.document.level();
        let mut left_out = Vec::new();
        if (grid.nx, grid.ny) == (level.nx(), level.ny()) {
            let rect = CellRect::whole(grid.nx, grid.ny);
            let patch = GridPatch::new(
                "Import heightmap",
                Layer::Terrain,
                vec![PatchTile {
                    rect,
                    before: level.terrain.data.clone().into(),
                    after: grid.data.into(),
                }],
            );
            if !patch.is_empty() {
                self.document.execute(Box::new(patch));
            }
        } else {
            let crate::tools::resize::Resized {
                level: resized,
                dropped,
            } = crate::tools::resize::resized_level(level, grid);
            left_out = dropped;
            // The limits the editor opens levels with (a level it saved must resize too).
            resized
                .validate(&crate::project::open_limits())
                .map_err(|e| EditorError::ResizedLevel {
                    field: e.field,
                    reason: e.reason,
                })?;
            let before = level.clone();
            self.document.execute(Box::new(ReplaceLevel::new(
                "Import heightmap",
                before,
                resized,
            )));
            // Objects may have been left out: a selection by index would point at another.
            self.authoring.clear_selection();
            self.bodies.document_replaced();
            self.viewport.frame_on_next_frame(None);
        }
        let left_out = match left_out.len() {
            0 => String::new(),
            n => format!(
                "; left out {} beyond the new map: {}",
                crate::count(n, "object"),
                left_out.join(", ")
            ),
        };
        self.notify(format!("Imported {}{left_out}", path.display()), false);
        Ok(())
    }

    /// Asks where to export, then writes the terrain as `form` says.
    pub(crate) fn export_heightmap(
        &mut self,
        form: &ExportForm,
    ) -> Result<Option<PathBuf>, EditorError> {
        let dir = self.start_dir();
        let stem = self
            .document
            .path()
            .and_then(Path::file_stem)
            .map_or_else(|| "heightmap".into(), |s| s.to_string_lossy().into_owned());
        let name = format!("{stem}.{}", form.format.extension());
        let Some(path) = self
            .dialogs
            .save_heightmap(dir.as_deref(), &name, form.format)
        else {
            return Ok(None);
        };
        let terrain = &self.document.level().terrain;
        if (terrain.data.len() * 4) as u64 >= self.background_bytes {
            let task = super::file_tasks::export(terrain.clone(), &path, form.format, form.range());
            self.file_task = Some(task);
            return Ok(Some(path));
        }
        heightmap_io::export(&path, terrain, form.format, form.range())?;
        self.exported.insert(path.clone(), form.range());
        let HeightRange { min, max } = form.range();
        self.notify(
            format!("Exported {} (black {min} m, white {max} m)", path.display()),
            false,
        );
        Ok(Some(path))
    }

    /// What the files dropped this frame ask for: open a level, import a heightmap or a body.
    pub(crate) fn dropped_file_action(&mut self, ctx: &egui::Context) -> Option<Action> {
        if self.bake.is_some() || self.file_task.is_some() || self.dialog.is_some() {
            // Nothing may replace or change the document while work on it runs, nor a
            // dialog's question (an unsaved-changes one for a quit) be forgotten.
            return None;
        }
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect()
        });
        // One file at a time: the first that the editor understands.
        for path in dropped {
            // A level file, or a project folder (its level.ron).
            let is_level = path.is_dir()
                || path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("ron"));
            if is_level {
                return Some(Action::OpenPath(path));
            }
            if crate::tools::body::library::is_body_file(&path) {
                return Some(Action::ImportBodyPath(path));
            }
            if HeightmapFormat::from_path(&path).is_some() {
                return Some(Action::ImportPath(path));
            }
            self.notify(
                format!(
                    "{}: not a level (.ron or a project folder), heightmap (.png, .r16, .raw, .npy) or body (.glb, .gltf)",
                    path.display()
                ),
                true,
            );
        }
        None
    }
}
