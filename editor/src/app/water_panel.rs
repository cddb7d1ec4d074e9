//! The inspector of the water tools: the selected source or sink (name, kind, rate or target
//! level with capacity, shape and size), the boundary kind the Boundary tool paints, and the
//! Fill basin level. Field changes reach the level live and become one command when the field
//! is let go (see [`super::authoring::Authoring::edit_live`]).

use egui::{Response, Ui};
use spillway::Level;
use spillway::level::{BoundaryKind, Schedule, Shape};

use super::EditorApp;
use super::actions::Action;
use super::authoring::shape_name;
use super::source_kind::{KindValues, kind_fields};
use super::water_overlay::boundary_colour;
use crate::document::Features;
use crate::tools::Tool;
use crate::tools::boundary::{edge_name, kind_name};
use crate::tools::fill::FillLevel;
use crate::tools::placement::{
    DEFAULT_RADIUS_CELLS, Selection, centre, moved_to, sink_label, source_label,
};

/// Whether any field the user is holding or typing into changed this frame.
#[derive(Default)]
pub(crate) struct Busy(pub(crate) bool);

impl Busy {
    /// Notes whether `r` is being dragged or edited, and passes it on.
    pub(crate) fn track(&mut self, r: Response) -> Response {
        if r.dragged() || r.has_focus() || r.is_pointer_button_down_on() {
            self.0 = true;
        }
        r
    }
}

/// The water tools' part of the inspector. Also records a finished inspector edit as one
/// command, whatever the tool.
pub(crate) fn settings(app: &mut EditorApp, ui: &mut Ui, tool: Tool) {
    let mut busy = Busy::default();
    match tool {
        Tool::Source | Tool::Sink => selection_editor(app, ui, tool, &mut busy),
        Tool::Boundary => boundary_settings(app, ui),
        Tool::FillBasin => fill_settings(app, ui),
        Tool::Gate => busy.0 |= super::gate_panel::settings(app, ui),
        Tool::Structure => busy.0 |= super::structure_panel::settings(app, ui),
        _ => {}
    }
    if !busy.0 {
        app.authoring.commit_pending(&mut app.document);
    }
}

/// The list of sources or sinks, then the selected one's fields.
fn selection_editor(app: &mut EditorApp, ui: &mut Ui, tool: Tool, busy: &mut Busy) {
    let level = app.document.level();
    let labels: Vec<(Selection, String)> = if tool == Tool::Source {
        level
            .sources
            .iter()
            .enumerate()
            .map(|(i, s)| (Selection::Source(i), source_label(s)))
            .collect()
    } else {
        level
            .sinks
            .iter()
            .enumerate()
            .map(|(i, s)| (Selection::Sink(i), sink_label(s)))
            .collect()
    };
    let noun = if tool == Tool::Source {
        "source"
    } else {
        "sink"
    };
    if labels.is_empty() {
        ui.weak(format!("No {noun}s yet: click the terrain to place one."));
    }
    for (selection, label) in labels {
        let selected = app.authoring.selection == Some(selection);
        if ui
            .selectable_label(selected, label)
            .on_hover_text(format!("Select this {noun} to edit it"))
            .clicked()
        {
            app.authoring.selection = Some(selection);
        }
    }
    ui.add_space(6.0);
    let Some(selection) = app
        .authoring
        .selection
        .filter(|s| s.exists(app.document.level()))
    else {
        return;
    };
    ui.separator();
    // The selection's own noun (the Source tool keeps a sink selected with the Sink tool).
    let noun = selection.noun();
    let level = app.document.level();
    let mut features = Features::of(level);
    let label = match selection {
        Selection::Source(i) => {
            let others = other_names(level.sources.iter().map(|s| s.name.as_str()), i);
            let source = &mut features.sources[i];
            ui.strong(&source.name);
            egui::Grid::new("feature").num_columns(2).show(ui, |ui| {
                name_field(ui, busy, &mut source.name, &others, noun);
                ui.label("Running");
                busy.track(ui.checkbox(&mut source.enabled, ""))
                    .on_hover_text("Whether the source adds water when the level runs");
                ui.end_row();
                let mut values = KindValues::of_source(&source.kind, level, &source.shape);
                kind_fields(ui, busy, &mut values, "adds", "fills its area up to");
                source.kind = values.source();
                shape_fields(ui, busy, &mut source.shape, level);
            });
            "Edit source"
        }
        Selection::Sink(i) => {
            let others = other_names(level.sinks.iter().map(|s| s.name.as_str()), i);
            let sink = &mut features.sinks[i];
            ui.strong(&sink.name);
            egui::Grid::new("feature").num_columns(2).show(ui, |ui| {
                name_field(ui, busy, &mut sink.name, &others, noun);
                ui.label("Running");
                busy.track(ui.checkbox(&mut sink.enabled, ""))
                    .on_hover_text("Whether the sink removes water when the level runs");
                ui.end_row();
                let mut values = KindValues::of_sink(&sink.kind, level, &sink.shape);
                kind_fields(ui, busy, &mut values, "removes", "drains its area down to");
                sink.kind = values.sink();
                shape_fields(ui, busy, &mut sink.shape, level);
            });
            "Edit sink"
        }
    };
    let delete = ui
        .button(format!("Delete {noun}"))
        .on_hover_text(format!("Remove the selected {noun} (Delete key)"))
        .clicked();
    app.authoring.edit_live(&mut app.document, label, features);
    if delete {
        app.request(Action::DeleteSelection);
    }
}

fn name_field(ui: &mut Ui, busy: &mut Busy, name: &mut String, others: &[String], noun: &str) {
    ui.label("Name");
    busy.track(ui.add(egui::TextEdit::singleline(name).desired_width(140.0)))
        .on_hover_text(format!(
            "The {noun}'s name, shown in the viewport and used by game triggers"
        ));
    ui.end_row();
    name_clash(ui, others, name, noun);
}

/// The names of the other objects of a list (all but the one at `this`), for
/// [`name_clash`].
pub(super) fn other_names<'a>(names: impl Iterator<Item = &'a str>, this: usize) -> Vec<String> {
    (names.enumerate())
        .filter(|&(j, _)| j != this)
        .map(|(_, n)| n.to_owned())
        .collect()
}

/// A grid row saying that another object of the list (`others`) has the name `name`: games
/// act on objects by name, so a trigger opening one would open both.
pub(super) fn name_clash(ui: &mut Ui, others: &[String], name: &str, noun: &str) {
    if others.iter().any(|n| n == name) {
        ui.label("");
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!("Another {noun} is named so: a game trigger by it acts on both"),
        );
        ui.end_row();
    }
}

fn shape_fields(ui: &mut Ui, busy: &mut Busy, shape: &mut Shape, level: &Level) {
    let cs = level.cell_size;
    let [cx, cy] = centre(shape);
    let size = match *shape {
        Shape::Point { .. } => [DEFAULT_RADIUS_CELLS * cs; 2],
        Shape::Circle { radius, .. } => [radius; 2],
        Shape::Box { x0, y0, x1, y1 } => [(x1 - x0) * 0.5, (y1 - y0) * 0.5],
    };
    ui.label("Shape");
    ui.horizontal(|ui| {
        let options = [
            (
                Shape::Point { x: cx, y: cy },
                "The one cell under the point",
            ),
            (
                Shape::Circle {
                    x: cx,
                    y: cy,
                    radius: size[0].max(size[1]),
                },
                "The cells whose centres lie within the radius",
            ),
            (
                Shape::Box {
                    x0: cx - size[0],
                    y0: cy - size[1],
                    x1: cx + size[0],
                    y1: cy + size[1],
                },
                "The cells whose centres lie inside the box",
            ),
        ];
        for (option, tip) in options {
            let current = shape_name(shape) == shape_name(&option);
            let r = busy.track(ui.selectable_label(current, shape_name(&option)));
            if r.on_hover_text(tip).clicked() && !current {
                *shape = option;
            }
        }
    });
    ui.end_row();
    let (mut x, mut y) = (cx, cy);
    let extent = [level.nx() as f32 * cs, level.ny() as f32 * cs];
    ui.label("Centre");
    ui.horizontal(|ui| {
        busy.track(
            ui.add(
                crate::app::number(&mut x)
                    .max_decimals(2)
                    .range(0.0..=extent[0])
                    .speed(0.1)
                    .prefix("x ")
                    .suffix(" m"),
            ),
        )
        .on_hover_text("East–west position of the centre, metres from the west edge");
        busy.track(
            ui.add(
                crate::app::number(&mut y)
                    .max_decimals(2)
                    .range(0.0..=extent[1])
                    .speed(0.1)
                    .prefix("y ")
                    .suffix(" m"),
            ),
        )
        .on_hover_text("North–south position of the centre, metres from the north edge");
    });
    ui.end_row();
    if (x, y) != (cx, cy) {
        *shape = moved_to(shape, x, y);
    }
    match shape {
        Shape::Point { .. } => {}
        Shape::Circle { radius, .. } => {
            ui.label("Radius");
            busy.track(
                ui.add(
                    crate::app::number(radius)
                        .max_decimals(2)
                        .range(0.0..=1.0e5)
                        .speed(0.05)
                        .suffix(" m"),
                ),
            )
            .on_hover_text(format!(
                "Radius of the area, metres ({:.1} cells)",
                *radius / cs
            ));
            ui.end_row();
        }
        Shape::Box { x0, y0, x1, y1 } => {
            let (mut w, mut h) = (*x1 - *x0, *y1 - *y0);
            ui.label("Size");
            ui.horizontal(|ui| {
                busy.track(
                    ui.add(
                        crate::app::number(&mut w)
                            .max_decimals(2)
                            .range(0.0..=1.0e5)
                            .speed(0.1)
                            .prefix("w ")
                            .suffix(" m"),
                    ),
                )
                .on_hover_text("East–west width of the box, metres");
                busy.track(
                    ui.add(
                        crate::app::number(&mut h)
                            .max_decimals(2)
                            .range(0.0..=1.0e5)
                            .speed(0.1)
                            .prefix("h ")
                            .suffix(" m"),
                    ),
                )
                .on_hover_text("North–south height of the box, metres");
            });
            ui.end_row();
            // Rebuilt from its centre and size only where one of them was edited: the round
            // trip through them moves an untouched box's sides by a rounding, which would be
            // an edit of its own each frame.
            if w != *x1 - *x0 {
                (*x0, *x1) = (x - w * 0.5, x + w * 0.5);
            }
            if h != *y1 - *y0 {
                (*y0, *y1) = (y - h * 0.5, y + h * 0.5);
            }
        }
    }
}

/// The kind the Boundary tool paints, and the level's segments.
fn boundary_settings(app: &mut EditorApp, ui: &mut Ui) {
    let kind = &mut app.authoring.boundary_kind;
    let options = [
        (BoundaryKind::Wall, "No water passes the edge"),
        (
            BoundaryKind::Open,
            "Waves and water leave freely (absorbing)",
        ),
        (
            BoundaryKind::FixedLevel {
                surface: match kind {
                    BoundaryKind::FixedLevel { surface } => *surface,
                    _ => 0.0,
                },
            },
            "The water outside stands at a fixed height; water flows in or out to meet it",
        ),
        (
            BoundaryKind::Inflow {
                m3_per_s: match kind {
                    BoundaryKind::Inflow { m3_per_s } => *m3_per_s,
                    _ => 10.0,
                },
            },
            "A fixed discharge into the level, spread along the painted cells",
        ),
        (
            match kind {
                BoundaryKind::Tide(s) => BoundaryKind::Tide(s.clone()),
                _ => BoundaryKind::Tide(Schedule {
                    points: vec![[0.0, 0.0], [21_600.0, 2.0], [43_200.0, 0.0]],
                    period: Some(43_200.0),
                }),
            },
            "The water outside rises and falls over time (a tide, a river rising downstream)",
        ),
        (
            match kind {
                BoundaryKind::Hydrograph(s) => BoundaryKind::Hydrograph(s.clone()),
                _ => BoundaryKind::Hydrograph(Schedule {
                    points: vec![[0.0, 0.0], [600.0, 50.0], [1800.0, 0.0]],
                    period: None,
                }),
            },
            "A discharge into the level that follows simulated time (a flood arriving from \
             upstream), spread along the painted cells",
        ),
    ];
    ui.label("Paint");
    for (option, tip) in options {
        let current = std::mem::discriminant(kind) == std::mem::discriminant(&option);
        ui.horizontal(|ui| {
            let (swatch, _) = ui.allocate_exact_size(egui::vec2(18.0, 10.0), egui::Sense::hover());
            ui.painter()
                .rect_filled(swatch, 2.0, boundary_colour(&option));
            if ui
                .selectable_label(current, kind_name(&option))
                .on_hover_text(tip)
                .clicked()
            {
                *kind = option;
            }
        });
    }
    let tide = matches!(kind, BoundaryKind::Tide(_));
    match kind {
        BoundaryKind::FixedLevel { surface } => {
            ui.horizontal(|ui| {
                ui.label("Outside level");
                ui.add(
                    crate::app::number(surface)
                        .range(spillway::level::ranges::HEIGHTS)
                        .max_decimals(2)
                        .speed(0.05)
                        .suffix(" m"),
                )
                .on_hover_text("Surface height of the water outside the edge");
            });
        }
        BoundaryKind::Tide(s) | BoundaryKind::Hydrograph(s) => {
            let unit = if tide {
                &super::source_kind::SURFACE
            } else {
                &super::source_kind::RATE
            };
            egui::Grid::new("edge schedule")
                .num_columns(2)
                .show(ui, |ui| {
                    super::source_kind::schedule_fields(ui, &mut Busy(false), s, unit);
                });
        }
        BoundaryKind::Inflow { m3_per_s } => {
            ui.horizontal(|ui| {
                ui.label("Inflow");
                ui.add(
                    crate::app::number(m3_per_s)
                        .max_decimals(2)
                        .range(0.0..=spillway::level::ranges::MAX_RATE)
                        .speed(0.1)
                        .suffix(" m³/s"),
                )
                .on_hover_text("Cubic metres per second through each painted stretch of edge");
            });
        }
        _ => {}
    }
    ui.add_space(6.0);
    let level = app.document.level();
    ui.label(format!(
        "Segments ({}; other edge cells: {})",
        level.boundaries.len(),
        kind_name(&level.params.default_boundary).to_lowercase()
    ))
    .on_hover_text("The level's boundary segments; edge cells none covers use the level's default");
    for b in &level.boundaries {
        ui.weak(format!(
            "{} {}..{}: {}",
            edge_name(b.edge),
            b.start,
            b.end,
            kind_text(&b.kind)
        ));
    }
}

fn kind_text(kind: &BoundaryKind) -> String {
    match kind {
        BoundaryKind::FixedLevel { surface } => format!("fixed level {surface:.2} m"),
        BoundaryKind::Inflow { m3_per_s } => format!("inflow {m3_per_s:.1} m³/s"),
        BoundaryKind::Tide(s) => format!("tide, {} points", s.points.len()),
        BoundaryKind::Hydrograph(s) => format!("inflow hydrograph, peak {:.1} m³/s", s.max()),
        other => kind_name(other).to_lowercase(),
    }
}

/// The Fill basin tool's level.
fn fill_settings(app: &mut EditorApp, ui: &mut Ui) {
    let fill = &mut app.authoring.fill;
    let above = matches!(fill, FillLevel::AboveClick(_));
    let at = matches!(fill, FillLevel::Surface(_));
    let to_spill = matches!(fill, FillLevel::ToSpill);
    ui.label("Fill level");
    let tip_above = "The surface is this far above the ground under the click";
    let tip_at = "The surface is at this height wherever you click";
    let tip_spill = "The surface is where the clicked basin would overflow (its lowest saddle, \
                     closed gates counting as walls, or an open edge); the spill point is marked";
    if ui
        .radio(above, "Above the clicked ground")
        .on_hover_text(tip_above)
        .clicked()
        && !above
    {
        *fill = FillLevel::AboveClick(1.0);
    }
    if ui.radio(at, "At a height").on_hover_text(tip_at).clicked() && !at {
        *fill = FillLevel::Surface(app.authoring.last_fill.unwrap_or(1.0));
    }
    if ui
        .radio(to_spill, "To its spill level")
        .on_hover_text(tip_spill)
        .clicked()
    {
        *fill = FillLevel::ToSpill;
    }
    let fill = &mut app.authoring.fill;
    match fill {
        FillLevel::AboveClick(depth) => {
            ui.add(
                crate::app::number(depth)
                    .max_decimals(2)
                    .range(0.0..=1.0e4)
                    .speed(0.05)
                    .prefix("+ ")
                    .suffix(" m"),
            )
            .on_hover_text(tip_above);
        }
        FillLevel::Surface(surface) => {
            ui.add(
                crate::app::number(surface)
                    .range(spillway::level::ranges::HEIGHTS)
                    .max_decimals(2)
                    .speed(0.05)
                    .suffix(" m"),
            )
            .on_hover_text(tip_at);
        }
        FillLevel::ToSpill => {}
    }
    if let Some(last) = app.authoring.last_fill {
        ui.weak(format!("Last fill: surface at {last:.2} m"))
            .on_hover_text("The surface height of the last basin filled");
    }
}
