//! Long file work off the UI thread: saving a large level, importing or exporting a large
//! heightmap run as a [`Task`] with a modal progress window (bar, elapsed time, Cancel). Work
//! below [`EditorOptions::background_bytes`](super::EditorOptions) stays on the UI thread, where
//! it takes less than a frame or two.
//!
//! A cancelled save stops between chunks and leaves the files on disk as they were; a
//! cancelled import or export is abandoned (its result is dropped, a half-written export is
//! removed), so the document never changes.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use spillway::{Grid, Level};

use super::EditorApp;
use crate::project::heightmap_io::{self, HeightRange, HeightmapFormat, ImportSettings};
use crate::task::{Status, Task, TaskError};
use crate::tools::fill::{FillJob, Filled};

/// Default of [`super::EditorOptions::background_bytes`]: grid data above which a save, an
/// import or an export runs in the background with progress and Cancel.
pub const BACKGROUND_BYTES: u64 = 64 << 20;

/// A file task in progress.
pub(crate) enum FileTask {
    /// Saving the document to `path`, its bodies' files relinked into the target's folder
    /// (`relinked`: the bodies as saved, made the document's once the save succeeds).
    Save {
        path: PathBuf,
        task: Task<()>,
        relinked: Option<Vec<spillway::level::Body>>,
        /// The document's history state written (a bake ending meanwhile is not saved).
        state: u64,
    },
    /// Reading a heightmap into the terrain.
    Import { path: PathBuf, task: Task<Grid> },
    /// Writing the terrain as a heightmap to `path`.
    Export {
        path: PathBuf,
        task: Task<()>,
        /// The height range written (kept for importing the file back once it is written).
        range: HeightRange,
    },
    /// Writing the maps of the run into `folder` (npy, PNG and `maps.txt`).
    ExportMaps {
        folder: PathBuf,
        task: Task<Vec<PathBuf>>,
    },
    /// Running the water over a moving bed: the undo label and the terrain it leaves.
    Erode {
        label: String,
        task: Task<Grid>,
        /// The terrain so far, as the run last handed it over (taken when drawn).
        so_far: Arc<Mutex<Option<Vec<f32>>>>,
        /// The level drawn while it runs: the document's, with the terrain so far.
        shown: Box<Level>,
    },
    /// Filling a basin of a large level: the document's history state it was asked at.
    Fill { task: Task<Filled>, state: u64 },
}

impl FileTask {
    /// What its progress window shows.
    fn status(&self) -> Status<'_> {
        match self {
            FileTask::Save { task, .. } => task.status(),
            FileTask::Import { task, .. } => task.status(),
            FileTask::Export { task, .. } => task.status(),
            FileTask::ExportMaps { task, .. } => task.status(),
            FileTask::Erode { task, .. } => task.status(),
            FileTask::Fill { task, .. } => task.status(),
        }
    }
}

/// Bytes of grid data a level holds (what a save writes).
pub(crate) fn level_bytes(level: &Level) -> u64 {
    let cells = (level.nx() * level.ny()) as u64;
    let grids = 2 + u64::from(level.roughness.is_some());
    let flow = level
        .flow
        .as_ref()
        .map_or(0, spillway::level::FlowState::values) as u64;
    (cells * grids + flow) * 4
}

/// Starts saving `level` to `path` in the background.
pub(crate) fn save(
    level: Level,
    path: &Path,
    relinked: Option<Vec<spillway::level::Body>>,
    state: u64,
) -> FileTask {
    let target = path.to_path_buf();
    let label = format!("Saving {}", file_name(path));
    let task = Task::spawn(label, move |p| {
        let mut report = |share: f32| {
            p.set(share);
            !p.cancelled()
        };
        spillway::level::file::save_with_progress(&level, &target, &mut report)
            .map_err(|e| e.to_string())
    });
    FileTask::Save {
        path: path.to_path_buf(),
        task,
        relinked,
        state,
    }
}

/// Starts writing the maps of the run into `folder` in the background (a large level's take
/// seconds: four grids as `.npy` and as 16-bit PNG).
pub(crate) fn export_maps(folder: &Path, maps: spillway::sim::maps::RunMaps) -> FileTask {
    let target = folder.to_path_buf();
    let label = format!("Exporting the maps to {}", file_name(folder));
    let task = Task::spawn(label, move |p| {
        let mut report = |share: f32| {
            p.set(share);
            !p.cancelled()
        };
        crate::project::maps_io::export_maps_with(&target, &maps, &mut report)
    });
    FileTask::ExportMaps {
        folder: folder.to_path_buf(),
        task,
    }
}

/// Runs the fill the Fill basin tool asked for: at once on a small level, in the background
/// (progress, Cancel) on one whose fill would hold the window for a moment (its work is about
/// four grids: the ground, the basin, the water before and after).
pub(crate) fn fill(app: &mut EditorApp, job: FillJob) {
    if (job.cells() * 16) as u64 >= app.background_bytes {
        let task = Task::spawn("Filling the basin", move |_| {
            Ok::<_, std::convert::Infallible>(job.run())
        });
        let state = app.document.history().state();
        app.file_task = Some(FileTask::Fill { task, state });
    } else {
        let notice = app.authoring.filled(&mut app.document, job.run());
        app.notify(notice, false);
    }
}

fn finish_fill(app: &mut EditorApp, result: Result<Filled, TaskError>, cancelled: bool, at: u64) {
    match result {
        _ if cancelled => app.notify("Fill cancelled: the water is unchanged", false),
        // An undo while it ran: its water was found for a level that is gone.
        Ok(_) if app.document.history().state() != at => app.notify(
            "The level changed while the basin was found: nothing was filled",
            true,
        ),
        Ok(filled) => {
            let notice = app.authoring.filled(&mut app.document, filled);
            app.notify(notice, false);
        }
        Err(e) => app.notify(format!("Could not fill the basin: {e}"), true),
    }
}

/// Starts reading the heightmap at `path` in the background.
pub(crate) fn import(path: &Path, settings: ImportSettings) -> FileTask {
    let source = path.to_path_buf();
    let label = format!("Importing {}", file_name(path));
    let task = Task::spawn(label, move |_| heightmap_io::import(&source, &settings));
    FileTask::Import {
        path: path.to_path_buf(),
        task,
    }
}

/// Starts writing `terrain` as a heightmap to `path` in the background.
pub(crate) fn export(
    terrain: Grid,
    path: &Path,
    format: HeightmapFormat,
    range: HeightRange,
) -> FileTask {
    let target = path.to_path_buf();
    let label = format!("Exporting {}", file_name(path));
    let task = Task::spawn(label, move |p| {
        let show = target.display();
        let bytes =
            heightmap_io::encode(&terrain, format, range).map_err(|e| format!("{show}: {e}"))?;
        p.set(0.5);
        if p.cancelled() {
            // Nothing written yet: an existing file stays as it was.
            return Err("cancelled".into());
        }
        crate::project::write_atomic(&target, &bytes)
            .map_err(|e| format!("{show}: cannot write: {e}"))
    });
    FileTask::Export {
        path: path.to_path_buf(),
        task,
        range,
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// What happens when the running file task ends: called at the start of a frame, before the
/// panels, so the frame that finds it ended already shows its notice and what it changed. A
/// file question the last frame could not ask (no file dialog on this desktop) is said here too.
pub(crate) fn collect(app: &mut EditorApp, ctx: &egui::Context) {
    if let Some(why) = app.dialogs.take_unavailable() {
        app.dialog = Some(super::Dialog::Error {
            title: "No file dialog".into(),
            message: why,
        });
    }
    let Some(running) = app.file_task.as_ref() else {
        return;
    };
    if let FileTask::Fill { task, .. } = running {
        if let Some(result) = task.poll()
            && let Some(FileTask::Fill { task, state }) = app.file_task.take()
        {
            finish_fill(app, result, task.cancelled(), state);
            ctx.request_repaint();
        }
        return;
    }
    let done = match running {
        FileTask::Save { task, .. } => task.poll().map(|r| r.map(|()| None)),
        FileTask::Import { task, .. } => task.poll().map(|r| r.map(Some)),
        FileTask::Export { task, .. } => task.poll().map(|r| r.map(|()| None)),
        FileTask::ExportMaps { task, .. } => task.poll().map(|r| r.map(|_| None)),
        FileTask::Erode { task, .. } => task.poll().map(|r| r.map(Some)),
        FileTask::Fill { .. } => None,
    };
    if let Some(result) = done
        && let Some(running) = app.file_task.take()
    {
        finish(app, running, result);
        ctx.request_repaint();
    }
}

/// The progress window of the running file task.
pub(crate) fn window(app: &mut EditorApp, ctx: &egui::Context) {
    let Some(running) = app.file_task.as_ref() else {
        return;
    };
    ctx.request_repaint_after(Duration::from_millis(50));
    egui::Modal::new(egui::Id::unique("file task")).show(ctx, |ui| {
        ui.set_width(380.0);
        let running = running.status();
        ui.heading(running.label);
        let bar = match running.progress.share() {
            Some(share) => egui::ProgressBar::new(share).show_percentage(),
            None => egui::ProgressBar::new(0.0).animate(true),
        };
        if let Some(note) = running.progress.note() {
            ui.label(note);
        }
        ui.add(bar);
        ui.label(format!("{:.1} s", running.elapsed().as_secs_f32()));
        ui.horizontal(|ui| {
            let cancelling = running.progress.cancelled();
            if ui
                .add_enabled(!cancelling, egui::Button::new("Cancel"))
                .on_hover_text("Stop: the level and the files on disk stay as they were")
                .clicked()
                || ui.input(|i| i.key_pressed(egui::Key::Escape))
            {
                running.progress.cancel();
            }
            if cancelling {
                ui.spinner();
                ui.label("stopping…");
            }
        });
    });
    // A fill changes nothing until it ends: once cancelled it is dropped at once.
    if let Some(FileTask::Fill { task, .. }) = &app.file_task
        && task.cancelled()
    {
        app.file_task = None;
        app.notify("Fill cancelled: the water is unchanged", false);
    }
    // An import writes nothing: once cancelled it is dropped at once (its thread ends unseen).
    if let Some(FileTask::Import { path, task }) = &app.file_task
        && task.cancelled()
    {
        let path = path.clone();
        app.file_task = None;
        app.notify(
            format!(
                "Import of {} cancelled: the terrain is unchanged",
                path.display()
            ),
            false,
        );
    }
}

fn finish(app: &mut EditorApp, running: FileTask, result: Result<Option<Grid>, TaskError>) {
    let cancelled = running.status().progress.cancelled();
    let was_save = matches!(running, FileTask::Save { .. });
    match (running, result) {
        (
            FileTask::Save {
                path,
                relinked,
                state,
                ..
            },
            Ok(_),
        ) => {
            app.relink_bodies(relinked, &path);
            app.saved(&path, state);
        }
        (FileTask::Save { path, .. }, Err(_)) if cancelled => {
            app.after_save = None;
            app.notify(
                format!("Save cancelled: {} was not changed", path.display()),
                false,
            );
        }
        (FileTask::Save { .. }, Err(e)) => {
            app.after_save = None;
            app.dialog = Some(super::Dialog::Error {
                title: "Could not save the level".into(),
                message: e.to_string(),
            });
        }
        (FileTask::Import { path, .. }, _) if cancelled => app.notify(
            format!(
                "Import of {} cancelled: the terrain is unchanged",
                path.display()
            ),
            false,
        ),
        (FileTask::Import { path, .. }, Ok(Some(grid))) => {
            if let Err(e) = app.apply_heightmap(&path, grid) {
                app.dialog = Some(super::Dialog::Error {
                    title: "Could not import the heightmap".into(),
                    message: e.to_string(),
                });
            }
        }
        (FileTask::Import { .. }, Ok(None)) => {}
        (FileTask::Import { .. }, Err(e)) => {
            app.dialog = Some(super::Dialog::Error {
                title: "Could not import the heightmap".into(),
                message: e.to_string(),
            });
        }
        (FileTask::Export { path, .. }, Err(_)) if cancelled => {
            app.notify(
                format!(
                    "Export to {} cancelled: nothing was written",
                    path.display()
                ),
                false,
            );
        }
        (FileTask::Export { path, range, .. }, Ok(_)) => {
            let HeightRange { min, max } = range;
            app.notify(
                format!("Exported {} (black {min} m, white {max} m)", path.display()),
                false,
            );
            app.exported.insert(path, range);
        }
        (FileTask::Export { .. }, Err(e)) => {
            app.dialog = Some(super::Dialog::Error {
                title: "Could not export the heightmap".into(),
                message: e.to_string(),
            });
        }
        (FileTask::ExportMaps { folder, .. }, _) if cancelled => app.notify(
            format!(
                "Export of the maps cancelled: the files written so far are in {}",
                folder.display()
            ),
            false,
        ),
        (FileTask::ExportMaps { folder, .. }, Ok(_)) => app.notify(
            format!("Exported the run's maps to {}", folder.display()),
            false,
        ),
        (FileTask::ExportMaps { .. }, Err(e)) => {
            app.dialog = Some(super::Dialog::Error {
                title: "Could not export the maps".into(),
                message: e.to_string(),
            });
        }
        (FileTask::Erode { .. }, _) if cancelled => {
            super::erode_menu::redraw_terrain(app);
            app.notify("Erosion cancelled: the terrain is unchanged", false)
        }
        (FileTask::Erode { label, .. }, Ok(Some(grid))) => {
            super::erode_menu::apply_erosion(app, &label, grid)
        }
        (FileTask::Erode { .. }, Ok(None)) => {}
        (FileTask::Erode { .. }, Err(e)) => {
            super::erode_menu::redraw_terrain(app);
            app.dialog = Some(super::Dialog::Error {
                title: "Could not erode the terrain".into(),
                message: e.to_string(),
            });
        }
        (FileTask::Fill { .. }, _) => {}
    }
    // What the unsaved-changes question was waiting for, once the save is done.
    if was_save
        && let Some(then) = app
            .after_save
            .take()
            .filter(|_| !app.document.is_modified())
    {
        app.perform_now(then);
    }
}
