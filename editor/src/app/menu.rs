//! The menu bar: File, Edit, Water and View.

use super::EditorApp;
use super::actions::Action;
use super::shortcuts::Shortcut;

fn item(ui: &mut egui::Ui, label: &str, shortcut: Option<Shortcut>, tip: &str) -> bool {
    let mut button = egui::Button::new(label);
    if let Some(s) = shortcut {
        button = button.shortcut_text(ui.ctx().format_shortcut(&s.keys()));
    }
    ui.add(button).on_hover_text(tip).clicked()
}

/// Shows the menu bar.
pub(crate) fn show(app: &mut EditorApp, ui: &mut egui::Ui) {
    egui::MenuBar::new().ui(ui, |ui| {
        ui.menu_button("File", |ui| file_menu(app, ui))
            .response
            .on_hover_text("Levels and heightmaps: new, open, save, import, export");
        ui.menu_button("Edit", |ui| edit_menu(app, ui))
            .response
            .on_hover_text("Undo and redo");
        ui.menu_button("Water", |ui| water_menu(app, ui))
            .response
            .on_hover_text("Bake the water, keep the preview's water, find leaks");
        ui.menu_button("View", |ui| view_menu(app, ui))
            .response
            .on_hover_text("Camera and overlays");
    });
}

fn water_menu(app: &mut EditorApp, ui: &mut egui::Ui) {
    if item(
        ui,
        "Bake to steady state",
        Some(Shortcut::Bake),
        "Run the water until it settles, in the background, and make it the level's initial \
         water (one undo step)",
    ) {
        app.request(Action::Bake);
    }
    let live = app.preview.is_live();
    let keep = ui.add_enabled_ui(live, |ui| {
        item(
            ui,
            "Keep this state",
            Some(Shortcut::KeepState),
            "Make the preview's current water the level's initial state (one undo step)",
        )
    });
    if keep.inner {
        app.request(Action::KeepState);
    }
    ui.separator();
    if item(
        ui,
        "Find leaks",
        None,
        "Check every lake of authored water: where would it escape (a gap in a wall, a saddle \
         too low, an open edge), and down to which level? Marked in the viewport",
    ) {
        app.request(Action::FindLeaks);
    }
    ui.separator();
    ui.checkbox(
        &mut app.preview.body_stride.allowed,
        "Coarser body steps at fast-forward",
    )
    .on_hover_text(
        "When the speed asks for more steps than fit in a frame coupled one by one with the \
         bodies, step the bodies once per several water steps so the water keeps up (every \
         water step still runs). Off: every step is coupled and fast-forward is held back \
         instead, as the Bake runs it",
    );
    ui.separator();
    super::erode_menu::submenu(app, ui);
}

fn file_menu(app: &mut EditorApp, ui: &mut egui::Ui) {
    if item(
        ui,
        "New…",
        Some(Shortcut::New),
        "Start a new flat level of a chosen size",
    ) {
        app.request(Action::New);
    }
    if item(
        ui,
        "Open…",
        Some(Shortcut::Open),
        "Open a level file (.ron)",
    ) {
        app.request(Action::Open);
    }
    let recent = app.recent.paths().to_vec();
    ui.add_enabled_ui(!recent.is_empty(), |ui| {
        ui.menu_button("Open recent", |ui| {
            for path in &recent {
                let name = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                let folder = path
                    .parent()
                    .and_then(|p| p.file_name())
                    .map(|n| format!("{}/", n.to_string_lossy()))
                    .unwrap_or_default();
                if ui
                    .button(format!("{folder}{name}"))
                    .on_hover_text(path.display().to_string())
                    .clicked()
                {
                    if path.is_file() {
                        app.request(Action::OpenPath(path.clone()));
                    } else {
                        app.recent.remove(path);
                        app.notify(format!("{} no longer exists", path.display()), true);
                    }
                }
            }
            ui.separator();
            if ui
                .button("Clear list")
                .on_hover_text("Forget the recent files")
                .clicked()
            {
                app.recent.clear();
            }
        })
    })
    .response
    .on_hover_text("Levels opened or saved lately")
    .on_disabled_hover_text("No level has been opened or saved yet");
    ui.separator();
    if item(
        ui,
        "Save",
        Some(Shortcut::Save),
        "Save the level to its file",
    ) {
        app.request(Action::Save);
    }
    if item(
        ui,
        "Save as…",
        Some(Shortcut::SaveAs),
        "Save the level to a new file",
    ) {
        app.request(Action::SaveAs);
    }
    ui.separator();
    if item(
        ui,
        "Import heightmap…",
        None,
        "Replace the terrain by a heightmap (16/8-bit PNG, RAW r16, float .npy)",
    ) {
        app.request(Action::Import);
    }
    if item(
        ui,
        "Import body…",
        None,
        "Add a rigid body from a glTF file (.glb, .gltf) to place with the Body tool (K)",
    ) {
        app.request(Action::ImportBody);
    }
    if item(
        ui,
        "Export heightmap…",
        None,
        "Write the terrain as a heightmap (16/8-bit PNG, RAW r16, float .npy)",
    ) {
        app.request(Action::Export);
    }
    let live = app.preview.is_live();
    let maps = ui.add_enabled_ui(live, |ui| {
        item(
            ui,
            "Export maps of the run…",
            None,
            "Write what the water has done so far (max depth, max speed, arrival time, hazard) \
             as .npy and 16-bit PNG files with maps.txt, for the game",
        )
    });
    if maps.inner {
        app.request(Action::ExportMaps);
    }
    ui.separator();
    if item(ui, "Quit", Some(Shortcut::Quit), "Close the editor") {
        app.request(Action::Quit);
    }
}

fn edit_menu(app: &mut EditorApp, ui: &mut egui::Ui) {
    let history = app.document.history();
    let undo = history.undo_label().map(|l| format!("Undo {l}"));
    let redo = history.redo_label().map(|l| format!("Redo {l}"));
    let undo_text = undo.clone().unwrap_or_else(|| "Undo".into());
    let redo_text = redo.clone().unwrap_or_else(|| "Redo".into());
    let ctx = ui.ctx().clone();
    let fmt = |s: Shortcut| ctx.format_shortcut(&s.keys());
    if ui
        .add_enabled(
            undo.is_some(),
            egui::Button::new(undo_text).shortcut_text(fmt(Shortcut::Undo)),
        )
        .on_hover_text("Revert the last edit")
        .on_disabled_hover_text("Nothing to undo")
        .clicked()
    {
        app.request(Action::Undo);
    }
    if ui
        .add_enabled(
            redo.is_some(),
            egui::Button::new(redo_text).shortcut_text(fmt(Shortcut::Redo)),
        )
        .on_hover_text("Re-apply the last undone edit")
        .on_disabled_hover_text("Nothing to redo")
        .clicked()
    {
        app.request(Action::Redo);
    }
    ui.separator();
    let mb = app.document.history().bytes() as f64 / (1 << 20) as f64;
    ui.weak(format!(
        "History: {}, {mb:.1} MiB",
        crate::count(app.document.history().undo_len(), "step")
    ));
}

fn view_menu(app: &mut EditorApp, ui: &mut egui::Ui) {
    if item(
        ui,
        "Frame selection",
        Some(Shortcut::Frame),
        "Move the camera to see what the tool shows selected (a body, source, sink, gate, \
         structure or gauge) up close, or the whole level when nothing is selected",
    ) {
        app.request(Action::FrameView);
    }
    if item(
        ui,
        "Reset view",
        Some(Shortcut::ResetView),
        "Look at the level from the south at the default angle",
    ) {
        app.request(Action::ResetView);
    }
    ui.separator();
    let o = &mut app.viewport.overlays;
    ui.checkbox(&mut o.contours, "Contour lines")
        .on_hover_text("Lines of equal height (every fifth is darker)");
    ui.checkbox(&mut o.grid, "Grid")
        .on_hover_text("Lines at a regular spacing in metres");
    ui.checkbox(&mut o.water, "Water depth")
        .on_hover_text("Tint wet cells blue by their water depth");
    ui.checkbox(&mut o.roughness, "Roughness").on_hover_text(
        "Colour the ground by Manning's n: blue-grey concrete, sand gravel, light green \
             grass, green brush, dark green forest (always shown with the Roughness tool)",
    );
    ui.separator();
    ui.label("Water quality");
    for q in spillway_render::WaterQuality::ALL {
        ui.radio_value(&mut app.viewport.water_quality, q, q.name())
            .on_hover_text(q.tip());
    }
    ui.separator();
    for a in super::TerrainAnalysis::ALL {
        if a == super::TerrainAnalysis::Map(spillway::sim::maps::MapKind::MaxDepth) {
            ui.label("Maps of the run").on_hover_text(
                "What the running water has done so far, kept from the moment it starts",
            );
        }
        let on = app.analysis.shown == a;
        if ui.radio(on, a.name()).on_hover_text(a.tip()).clicked() && !on {
            app.request(Action::ShowAnalysis(a));
        }
    }
}
