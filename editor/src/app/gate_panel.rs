//! The Gate tool's part of the inspector: the list of gates, then the selected one's name,
//! crest height and opening time. Field changes reach the level live and become one command
//! when the field is let go, as for sources and sinks.

use egui::Ui;

use super::EditorApp;
use crate::document::Features;
use crate::tools::gate::gate_label;

/// Shows the gate settings; returns whether a field is being held or typed into.
pub(crate) fn settings(app: &mut EditorApp, ui: &mut Ui) -> bool {
    let level = app.document.level();
    if level.gates.is_empty() {
        ui.weak("No gates yet: drag a box across a valley to add one.");
    }
    let labels: Vec<String> = level.gates.iter().map(gate_label).collect();
    for (i, label) in labels.into_iter().enumerate() {
        let selected = app.authoring.gate == Some(i);
        if ui
            .selectable_label(selected, label)
            .on_hover_text("Select this gate to edit it")
            .clicked()
        {
            app.authoring.gate = Some(i);
        }
    }
    let Some(i) = app.authoring.gate.filter(|&i| i < level.gates.len()) else {
        return false;
    };
    ui.separator();
    let mut features = Features::of(level);
    let others = super::water_panel::other_names(level.gates.iter().map(|g| g.name.as_str()), i);
    let gate = &mut features.gates[i];
    let mut busy = false;
    let mut track = |r: egui::Response| {
        busy |= r.dragged() || r.has_focus() || r.is_pointer_button_down_on();
        r
    };
    egui::Grid::new("gate fields")
        .num_columns(2)
        .show(ui, |ui| {
            ui.label("Name");
            track(ui.add(egui::TextEdit::singleline(&mut gate.name).desired_width(140.0)))
                .on_hover_text("The gate's name: a game opens the gate by it (its trigger)");
            ui.end_row();
            super::water_panel::name_clash(ui, &others, &gate.name, "gate");
            ui.label("Crest");
            track(
                ui.add(
                    crate::app::number(&mut gate.crest)
                        .range(spillway::level::ranges::HEIGHTS)
                        .speed(0.1)
                        .suffix(" m"),
                ),
            )
            .on_hover_text(
                "Height of the gate's top: the ground under the gate stands this high \
                     until it opens",
            );
            ui.end_row();
            let mut timed = gate.open_at.is_some();
            ui.label("Opens");
            ui.horizontal(|ui| {
                if track(ui.checkbox(&mut timed, "at"))
                    .on_hover_text(
                        "Open by itself at a simulated time (else only by a button or trigger)",
                    )
                    .changed()
                {
                    gate.open_at = timed.then_some(10.0);
                }
                if let Some(t) = gate.open_at.as_mut() {
                    track(
                        ui.add(
                            crate::app::number(t)
                                .range(0.0..=1.0e6)
                                .speed(0.5)
                                .suffix(" s"),
                        ),
                    )
                    .on_hover_text("Simulated seconds from the start");
                }
            });
            ui.end_row();
        });
    app.authoring
        .edit_live(&mut app.document, "Edit gate", features);
    ui.weak("Delete removes the selected gate. During the preview, the Water panel opens gates.");
    busy
}
