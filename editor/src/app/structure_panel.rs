//! The Structure tool's part of the inspector: what a drag places, the list of structures,
//! then the selected one's fields (a sluice gate's opening as a schedule). Field changes reach
//! the level live and become one command when the field is let go, as for gates.

use egui::Ui;
use spillway::level::ranges;
use spillway::level::{BreachGrowth, BreachStart, StructureKind};

use super::EditorApp;
use super::source_kind::{OPENING, schedule_fields};
use super::water_panel::Busy;
use crate::document::Features;
use crate::tools::structure::StructureChoice;

/// Shows the structure settings; returns whether a field is being held or typed into.
pub(crate) fn settings(app: &mut EditorApp, ui: &mut Ui) -> bool {
    ui.label("Place");
    for choice in StructureChoice::ALL {
        let current = app.authoring.structure_choice == choice;
        if ui
            .selectable_label(current, choice.name())
            .on_hover_text(choice.help())
            .clicked()
        {
            app.authoring.structure_choice = choice;
        }
    }
    ui.separator();
    let level = app.document.level();
    if level.structures.is_empty() {
        ui.weak("No structures yet: drag across a channel to add one.");
    }
    let labels: Vec<String> = level
        .structures
        .iter()
        .map(|s| format!("{} ({})", s.name, s.kind.label().to_lowercase()))
        .collect();
    for (i, label) in labels.into_iter().enumerate() {
        let selected = app.authoring.structure == Some(i);
        if ui
            .selectable_label(selected, label)
            .on_hover_text("Select this structure to edit it")
            .clicked()
        {
            app.authoring.structure = Some(i);
        }
    }
    let Some(i) = app
        .authoring
        .structure
        .filter(|&i| i < level.structures.len())
    else {
        return false;
    };
    ui.separator();
    let mut features = Features::of(level);
    let others =
        (super::water_panel::other_names)(level.structures.iter().map(|s| s.name.as_str()), i);
    let structure = &mut features.structures[i];
    let mut busy = Busy(false);
    egui::Grid::new("structure fields")
        .num_columns(2)
        .show(ui, |ui| {
            ui.label("Name");
            busy.track(ui.add(egui::TextEdit::singleline(&mut structure.name).desired_width(140.0)))
                .on_hover_text("The structure's name, shown in lists and read by games");
            ui.end_row();
            super::water_panel::name_clash(ui, &others, &structure.name, "structure");
            match &mut structure.kind {
                StructureKind::Culvert {
                    diameter,
                    length,
                    roughness,
                    ..
                } => {
                    ui.label("Diameter");
                    busy.track(ui.add(metres(diameter, ranges::PIPE_DIAMETER)))
                        .on_hover_text("Inside diameter of the pipe");
                    ui.end_row();
                    ui.label("Length");
                    busy.track(ui.add(metres(length, ranges::STRUCTURE_LENGTH)))
                        .on_hover_text("Length of the pipe: longer pipes lose more to friction");
                    ui.end_row();
                    ui.label("Roughness");
                    busy.track(ui.add(crate::app::number(roughness).range(0.0..=1.0).speed(0.001)))
                        .on_hover_text("Manning's n of the pipe wall (concrete 0.013, corrugated metal 0.024)");
                    ui.end_row();
                }
                StructureKind::Weir {
                    crest, coefficient, ..
                } => {
                    ui.label("Crest");
                    busy.track(ui.add(metres(crest, ranges::HEIGHTS)))
                        .on_hover_text("Height of the weir's crest: water above it pours over");
                    ui.end_row();
                    ui.label("Coefficient");
                    busy.track(ui.add(crate::app::number(coefficient).range(0.01..=2.0).speed(0.01)))
                        .on_hover_text("Discharge coefficient (1: the ideal broad-crested weir)");
                    ui.end_row();
                }
                StructureKind::SluiceGate {
                    sill,
                    opening,
                    contraction,
                    ..
                } => {
                    ui.label("Sill");
                    busy.track(ui.add(metres(sill, ranges::HEIGHTS)))
                        .on_hover_text("Height of the floor under the gate");
                    ui.end_row();
                    ui.label("Contraction");
                    busy.track(ui.add(crate::app::number(contraction).range(0.01..=1.0).speed(0.005)))
                        .on_hover_text("Contraction coefficient of the jet under the gate (0.611 for a sharp edge)");
                    ui.end_row();
                    ui.label("Opening").on_hover_text("The gate's opening above the sill over simulated time");
                    ui.end_row();
                    schedule_fields(ui, &mut busy, opening, &OPENING);
                }
                StructureKind::Breach {
                    bottom,
                    width,
                    side_slope,
                    start,
                    growth,
                    ..
                } => breach_fields(ui, &mut busy, (bottom, width, side_slope), start, growth),
            }
        });
    app.authoring
        .edit_live(&mut app.document, "Edit structure", features);
    ui.weak("Delete removes the selected structure.");
    busy.0
}

/// A field of metres within `range` (what the level's validation allows).
fn metres(v: &mut f32, range: std::ops::RangeInclusive<f32>) -> egui::DragValue<'_> {
    crate::app::number(v).range(range).speed(0.05).suffix(" m")
}

/// A breach's rows of the inspector's grid.
fn breach_fields(
    ui: &mut Ui,
    busy: &mut Busy,
    (bottom, width, side_slope): (&mut f32, &mut f32, &mut f32),
    start: &mut BreachStart,
    growth: &mut BreachGrowth,
) {
    ui.label("Bottom");
    busy.track(ui.add(metres(bottom, ranges::HEIGHTS)))
        .on_hover_text("Height of the breach's floor once it is fully open");
    ui.end_row();
    ui.label("Width");
    busy.track(ui.add(metres(width, ranges::STRUCTURE_LENGTH)))
        .on_hover_text("Width of the breach's floor once it is fully open");
    ui.end_row();
    ui.label("Side slope");
    busy.track(
        ui.add(
            crate::app::number(side_slope)
                .range(0.0..=100.0)
                .speed(0.05),
        ),
    )
    .on_hover_text("Horizontal metres per metre of height of the breach's sides");
    ui.end_row();
    ui.label("Starts");
    ui.vertical(|ui| {
        let (at, trigger, over) = (
            matches!(start, BreachStart::At(_)),
            matches!(start, BreachStart::Trigger),
            matches!(start, BreachStart::Overtopping(_)),
        );
        if busy
            .track(ui.selectable_label(over, "When overtopped"))
            .on_hover_text(
                "When the water at the upstream end stands this high above the dam's crest",
            )
            .clicked()
            && !over
        {
            *start = BreachStart::Overtopping(0.1);
        }
        if busy
            .track(ui.selectable_label(at, "At a time"))
            .on_hover_text("At a simulated time")
            .clicked()
            && !at
        {
            *start = BreachStart::At(30.0);
        }
        if busy
            .track(ui.selectable_label(trigger, "By trigger"))
            .on_hover_text("Only when a game starts it by name")
            .clicked()
            && !trigger
        {
            *start = BreachStart::Trigger;
        }
        match start {
            BreachStart::At(t) => {
                busy.track(
                    ui.add(
                        crate::app::number(t)
                            .range(0.0..=1.0e7)
                            .speed(1.0)
                            .suffix(" s"),
                    ),
                );
            }
            BreachStart::Overtopping(d) => {
                busy.track(
                    ui.add(
                        crate::app::number(d)
                            .range(0.0..=100.0)
                            .speed(0.01)
                            .suffix(" m"),
                    ),
                );
            }
            BreachStart::Trigger => {}
        }
    });
    ui.end_row();
    ui.label("Opens");
    ui.vertical(|ui| {
        let steady = matches!(growth, BreachGrowth::Steady(_));
        if busy
            .track(ui.selectable_label(steady, "Steadily"))
            .on_hover_text("Evenly, to its full size in a set time")
            .clicked()
            && !steady
        {
            *growth = BreachGrowth::Steady(120.0);
        }
        if busy
            .track(ui.selectable_label(!steady, "By erosion"))
            .on_hover_text("As fast as the water over it erodes: faster under more water")
            .clicked()
            && steady
        {
            *growth = BreachGrowth::Erosion(0.05);
        }
        match growth {
            BreachGrowth::Steady(t) => {
                busy.track(
                    ui.add(
                        crate::app::number(t)
                            .range(0.0..=1.0e7)
                            .speed(1.0)
                            .suffix(" s"),
                    ),
                )
                .on_hover_text("Seconds from its start to its full size");
            }
            BreachGrowth::Erosion(r) => {
                busy.track(
                    ui.add(
                        crate::app::number(r)
                            .range(0.0..=100.0)
                            .speed(0.005)
                            .suffix(" m/s"),
                    ),
                )
                .on_hover_text(
                    "How fast it deepens under 1 m of water (as the 1.5 power of the head)",
                );
            }
        }
    });
    ui.end_row();
}
