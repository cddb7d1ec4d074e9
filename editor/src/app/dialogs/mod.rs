//! Modal dialogs: new level, heightmap import and export, the unsaved-changes and
//! changed-on-disk questions, error reports and the offer to restore autosaved work.

use std::time::{SystemTime, UNIX_EPOCH};

mod forms;

use super::EditorApp;
use super::actions::Action;
use crate::project::RecoveredWork;
use crate::project::heightmap_io::{HeightRange, HeightmapFormat};
pub use forms::{ExportForm, ImportForm, NewLevelForm};

/// A modal dialog.
#[derive(Clone, Debug)]
pub enum Dialog {
    /// Size, cell size and height of a new level.
    NewLevel(NewLevelForm),
    /// How to read a heightmap.
    Import(ImportForm),
    /// How to write the terrain as a heightmap.
    Export(ExportForm),
    /// Unsaved changes would be lost by `then`.
    Unsaved {
        /// What to do once answered.
        then: Action,
    },
    /// Something failed.
    Error {
        /// What was being done.
        title: String,
        /// The error: file, place and reason.
        message: String,
    },
    /// Autosaved work from a session that did not end cleanly.
    Recover(Vec<RecoveredWork>),
    /// The level's file was replaced on disk since it was opened or saved: overwrite it?
    ChangedOnDisk {
        /// The file.
        path: std::path::PathBuf,
        /// What follows a save (a quit after Save in the unsaved-changes question).
        then: Option<Action>,
    },
}

/// What the user did in a dialog this frame.
enum Outcome {
    Keep,
    Close,
}

/// Shows the open dialog, if any, and carries out what the user chose.
pub(crate) fn show(app: &mut EditorApp, ctx: &egui::Context) {
    let Some(mut dialog) = app.dialog.take() else {
        return;
    };
    let kind = match &dialog {
        Dialog::NewLevel(_) => "new",
        Dialog::Import(_) => "import",
        Dialog::Export(_) => "export",
        Dialog::Unsaved { .. } => "unsaved",
        Dialog::Error { .. } => "error",
        Dialog::Recover(_) => "recover",
        Dialog::ChangedOnDisk { .. } => "changed on disk",
    };
    let outcome = egui::Modal::new(egui::Id::unique(("dialog", kind)))
        .show(ctx, |ui| {
            ui.set_max_width(460.0);
            match &mut dialog {
                Dialog::NewLevel(form) => new_level(app, ui, form),
                Dialog::Import(form) => import(app, ui, form),
                Dialog::Export(form) => export(app, ui, form),
                Dialog::Unsaved { then } => unsaved(app, ui, then),
                Dialog::Error { title, message } => error(ui, title, message),
                Dialog::Recover(list) => recover(app, ui, list),
                Dialog::ChangedOnDisk { path, then } => changed_on_disk(app, ui, path, then),
            }
        })
        .inner;
    // A dialog's action may have opened another dialog (an error): that one wins.
    if matches!(outcome, Outcome::Keep) && app.dialog.is_none() {
        app.dialog = Some(dialog);
    } else {
        // Show the result (the next dialog, the new level) without waiting for input.
        ctx.request_repaint();
    }
}

fn buttons(ui: &mut egui::Ui, add: impl FnOnce(&mut egui::Ui)) {
    ui.add_space(8.0);
    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), add);
}

fn cancel_pressed(ui: &egui::Ui) -> bool {
    ui.input(|i| i.key_pressed(egui::Key::Escape))
}

fn new_level(app: &mut EditorApp, ui: &mut egui::Ui, form: &mut NewLevelForm) -> Outcome {
    ui.heading("New level");
    egui::Grid::new("new level").num_columns(2).show(ui, |ui| {
        ui.label("Cells in x");
        ui.add(
            crate::app::number(&mut form.nx)
                .range(2..=16384)
                .suffix(" cells"),
        )
        .on_hover_text("Cells along x (east)");
        ui.end_row();
        ui.label("Cells in y");
        ui.add(
            crate::app::number(&mut form.ny)
                .range(2..=16384)
                .suffix(" cells"),
        )
        .on_hover_text("Cells along y (south)");
        ui.end_row();
        ui.label("Cell size");
        ui.add(
            crate::app::number(&mut form.cell_size)
                .range(spillway::level::ranges::CELL_SIZE)
                .speed(0.05)
                .suffix(" m"),
        )
        .on_hover_text("Edge length of one square cell, metres");
        ui.end_row();
        ui.label("Initial height");
        ui.add(
            crate::app::number(&mut form.height)
                .range(spillway::level::ranges::HEIGHTS)
                .speed(0.5)
                .suffix(" m"),
        )
        .on_hover_text("Terrain height of every cell of the new level, metres");
        ui.end_row();
    });
    let level = form.level();
    let extent = format!(
        "{:.0} m × {:.0} m",
        form.nx as f32 * form.cell_size,
        form.ny as f32 * form.cell_size
    );
    match &level {
        Ok(_) => ui.weak(extent),
        Err(e) => ui.colored_label(ui.visuals().error_fg_color, e.to_string()),
    };
    if let Some(max) = app.renderer.as_ref().map(|r| r.max_side())
        && form.nx.max(form.ny) > max
    {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!(
                "This GPU draws levels of at most {max} cells a side: the viewport cannot show \
                 a {} × {} level (the command line can still bake it)",
                form.nx, form.ny
            ),
        );
    }
    let mut outcome = Outcome::Keep;
    buttons(ui, |ui| {
        let create = ui
            .add_enabled(level.is_ok(), egui::Button::new("Create"))
            .on_hover_text("Replace the open level by a new flat one");
        if create.clicked()
            && let Ok(level) = &level
        {
            outcome = Outcome::Close;
            app.request(Action::Create(Box::new(level.clone())));
        }
        if ui
            .button("Cancel")
            .on_hover_text("Keep the open level")
            .clicked()
            || cancel_pressed(ui)
        {
            outcome = Outcome::Close;
        }
    });
    outcome
}

fn range_fields(ui: &mut egui::Ui, min: &mut f32, max: &mut f32, what: &str) {
    ui.label("Lowest height");
    let heights = spillway::level::ranges::HEIGHTS;
    ui.add(
        crate::app::number(min)
            .range(heights.clone())
            .speed(0.5)
            .suffix(" m"),
    )
    .on_hover_text(format!("Height of {what} 0 (black), metres"));
    ui.end_row();
    ui.label("Highest height");
    ui.add(
        crate::app::number(max)
            .range(heights)
            .speed(0.5)
            .suffix(" m"),
    )
    .on_hover_text(format!("Height of the largest {what} (white), metres"));
    ui.end_row();
}

fn format_combo(
    ui: &mut egui::Ui,
    id: &str,
    format: &mut HeightmapFormat,
    choices: &[HeightmapFormat],
) {
    egui::ComboBox::from_id_salt(id)
        .selected_text(format.name())
        .show_ui(ui, |ui| {
            for f in choices {
                ui.selectable_value(format, *f, f.name());
            }
        })
        .response
        .on_hover_text("File format");
}

fn import(app: &mut EditorApp, ui: &mut egui::Ui, form: &mut ImportForm) -> Outcome {
    ui.heading("Import heightmap");
    ui.label(form.path.display().to_string());
    egui::Grid::new("import").num_columns(2).show(ui, |ui| {
        ui.label("Format");
        let choices = [
            HeightmapFormat::Png16,
            HeightmapFormat::RawR16,
            HeightmapFormat::Npy,
        ];
        format_combo(ui, "import format", &mut form.format, &choices);
        ui.end_row();
        if form.format == HeightmapFormat::RawR16 {
            ui.label("Samples per row");
            ui.add(
                crate::app::number(&mut form.raw_width)
                    .range(2..=16384)
                    .suffix(" px"),
            )
            .on_hover_text("Samples per row: a RAW file does not store its size");
            ui.end_row();
            ui.label("Rows");
            ui.add(
                crate::app::number(&mut form.raw_height)
                    .range(2..=16384)
                    .suffix(" px"),
            )
            .on_hover_text("Rows: a RAW file does not store its size");
            ui.end_row();
        }
        if form.format.needs_range() {
            range_fields(ui, &mut form.min, &mut form.max, "sample");
        }
    });
    let level = app.document.level();
    ui.weak(format!(
        "The terrain is replaced (undoable). A heightmap of another size than {} × {} resizes \
         the level: each pixel stays a cell of {} m, the objects keep their place in metres \
         (those past the new edges are left out) and the water is cleared.",
        level.nx(),
        level.ny(),
        level.cell_size
    ));
    if let Some(e) = &form.error {
        ui.colored_label(ui.visuals().error_fg_color, e);
    }
    let mut outcome = Outcome::Keep;
    buttons(ui, |ui| {
        if ui
            .button("Import")
            .on_hover_text("Read the file into the terrain")
            .clicked()
        {
            match app.import_heightmap(form) {
                Ok(()) => outcome = Outcome::Close,
                Err(e) => form.error = Some(e.to_string()),
            }
        }
        if ui
            .button("Cancel")
            .on_hover_text("Leave the terrain as it is")
            .clicked()
            || cancel_pressed(ui)
        {
            outcome = Outcome::Close;
        }
    });
    outcome
}

fn export(app: &mut EditorApp, ui: &mut egui::Ui, form: &mut ExportForm) -> Outcome {
    ui.heading("Export heightmap");
    egui::Grid::new("export").num_columns(2).show(ui, |ui| {
        ui.label("Format");
        format_combo(ui, "export format", &mut form.format, &HeightmapFormat::ALL);
        ui.end_row();
        if form.format.needs_range() {
            range_fields(ui, &mut form.min, &mut form.max, "sample");
        }
    });
    // A range the file cannot hold is said before the file is chosen.
    let bad_range = (form.format.needs_range())
        .then(|| form.range().check().err())
        .flatten();
    if let Some(e) = &bad_range {
        ui.colored_label(ui.visuals().error_fg_color, e.to_string());
    } else if form.format.needs_range() {
        let step = form.format.precision(form.range());
        ui.weak(format!(
            "One step of the file is {step:.4} m; heights outside the range are clamped."
        ));
    }
    if form.format.needs_range()
        && ui
            .small_button("Fit to terrain")
            .on_hover_text("Set the range to the terrain's lowest and highest heights")
            .clicked()
    {
        let r = HeightRange::of(&app.document.level().terrain);
        (form.min, form.max) = (r.min, r.max);
    }
    if let Some(e) = &form.error {
        ui.colored_label(ui.visuals().error_fg_color, e);
    }
    let mut outcome = Outcome::Keep;
    buttons(ui, |ui| {
        if ui
            .add_enabled(bad_range.is_none(), egui::Button::new("Export…"))
            .on_hover_text("Choose a file and write the terrain to it")
            .on_disabled_hover_text("Set a range the file can hold first")
            .clicked()
        {
            match app.export_heightmap(form) {
                Ok(Some(_)) => outcome = Outcome::Close,
                Ok(None) => {}
                Err(e) => form.error = Some(e.to_string()),
            }
        }
        if ui.button("Cancel").on_hover_text("Do not export").clicked() || cancel_pressed(ui) {
            outcome = Outcome::Close;
        }
    });
    outcome
}

fn unsaved(app: &mut EditorApp, ui: &mut egui::Ui, then: &Action) -> Outcome {
    ui.heading("Unsaved changes");
    ui.label(format!(
        "{} has changes that are not saved. Save them first?",
        app.document.title()
    ));
    let mut outcome = Outcome::Keep;
    buttons(ui, |ui| {
        if ui
            .button("Save")
            .on_hover_text("Save the level, then continue")
            .clicked()
        {
            outcome = Outcome::Close;
            // A large level saves in the background: `then` follows when the save is done.
            app.after_save = Some(then.clone());
            if app.save() {
                app.after_save = None;
                app.perform_now(then.clone());
            } else if app.file_task.is_none() {
                // Not saved, and no save under way (cancelled or failed): nothing follows,
                // unless the file changed on disk: it follows an Overwrite there.
                app.after_save = None;
                if let Some(Dialog::ChangedOnDisk { then: after, .. }) = &mut app.dialog {
                    *after = Some(then.clone());
                }
            }
        }
        if ui
            .button("Don't save")
            .on_hover_text("Lose the changes and continue")
            .clicked()
        {
            outcome = Outcome::Close;
            app.perform_now(then.clone());
        }
        if ui
            .button("Cancel")
            .on_hover_text("Go back to the level")
            .clicked()
            || cancel_pressed(ui)
        {
            outcome = Outcome::Close;
        }
    });
    outcome
}

fn changed_on_disk(
    app: &mut EditorApp,
    ui: &mut egui::Ui,
    path: &std::path::Path,
    then: &Option<Action>,
) -> Outcome {
    ui.heading("The file changed on disk");
    ui.label(format!(
        "{} was written by another program (another editor, a bake, a checkout) since it \
         was opened or saved here. Saving replaces what is there now.",
        path.display()
    ));
    let mut outcome = Outcome::Keep;
    buttons(ui, |ui| {
        let mut saved = None;
        if ui
            .button("Overwrite")
            .on_hover_text("Save over the file, losing what the other program wrote")
            .clicked()
        {
            outcome = Outcome::Close;
            app.after_save.clone_from(then);
            saved = Some(app.write_to(path));
        }
        if ui
            .button("Save as…")
            .on_hover_text("Save this level to another file; the one on disk stays")
            .clicked()
        {
            outcome = Outcome::Close;
            app.after_save.clone_from(then);
            saved = Some(app.save_as());
        }
        match saved {
            Some(true) => {
                app.after_save = None;
                if let Some(then) = then {
                    app.perform_now(then.clone());
                }
            }
            // Not saved, and no save under way: nothing follows.
            Some(false) if app.file_task.is_none() => app.after_save = None,
            _ => {}
        }
        if ui
            .button("Cancel")
            .on_hover_text("Go back to the level; nothing is saved")
            .clicked()
            || cancel_pressed(ui)
        {
            outcome = Outcome::Close;
        }
    });
    outcome
}

fn error(ui: &mut egui::Ui, title: &str, message: &str) -> Outcome {
    ui.heading(title);
    ui.add(egui::Label::new(egui::RichText::new(message).monospace()).selectable(true));
    let mut outcome = Outcome::Keep;
    buttons(ui, |ui| {
        if ui
            .button("OK")
            .on_hover_text("Close this message")
            .clicked()
            || cancel_pressed(ui)
            || ui.input(|i| i.key_pressed(egui::Key::Enter))
        {
            outcome = Outcome::Close;
        }
    });
    outcome
}

fn recover(app: &mut EditorApp, ui: &mut egui::Ui, list: &mut Vec<RecoveredWork>) -> Outcome {
    let Some(work) = list.first().cloned() else {
        return Outcome::Close;
    };
    ui.heading("Restore unsaved work?");
    let what = work.origin.as_ref().map_or_else(
        || "an untitled level".to_owned(),
        |p| p.display().to_string(),
    );
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let minutes = now.saturating_sub(work.saved_unix_secs) / 60;
    let ago = match minutes {
        0 => "under a minute".to_owned(),
        m if m < 120 => crate::count(m as usize, "minute"),
        m if m < 48 * 60 => crate::count(m as usize / 60, "hour"),
        m => crate::count(m as usize / (24 * 60), "day"),
    };
    ui.label(format!(
        "Spillway stopped with unsaved changes to {what}. A copy was autosaved {ago} ago."
    ));
    let mut outcome = Outcome::Keep;
    buttons(ui, |ui| {
        if ui
            .button("Restore")
            .on_hover_text("Open the autosaved copy (save it to keep it)")
            .clicked()
        {
            match work.load() {
                Ok(level) => {
                    app.set_document(level, work.origin.clone());
                    app.document.mark_modified();
                    let more = match list.len() - 1 {
                        0 => String::new(),
                        1 => "; 1 more autosaved copy waits for the next start".into(),
                        n => format!("; {n} more autosaved copies wait for the next start"),
                    };
                    match app.recovery.adopt(&app.document, &work) {
                        Ok(()) => app.notify(
                            format!("Restored autosaved work: save to keep it{more}"),
                            false,
                        ),
                        Err(e) => app.notify(
                            format!("Restored autosaved work (its copy stays: {e}){more}"),
                            true,
                        ),
                    }
                    // One restored document at a time: restoring another would replace this
                    // one, unsaved (and, of the same file, its copy). The warning, if any,
                    // takes this dialog's place.
                    list.clear();
                    outcome = Outcome::Close;
                    app.warn_unloadable_bodies();
                }
                Err(e) => {
                    // Kept on disk and in the dialog, where Discard removes it (taken off
                    // the list, it was offered again at every start).
                    app.notify(
                        format!("Could not restore: {e}. Discard deletes the copy"),
                        true,
                    );
                }
            }
        }
        if ui
            .button("Discard")
            .on_hover_text("Delete the autosaved copy")
            .clicked()
        {
            work.discard();
            list.remove(0);
        }
        if ui
            .button("Later")
            .on_hover_text("Keep the copy and ask again next time")
            .clicked()
            || cancel_pressed(ui)
        {
            outcome = Outcome::Close;
        }
    });
    if list.is_empty() {
        outcome = Outcome::Close;
    }
    outcome
}
