//! The Body tool's part of the inspector: the body library (bundled bodies and imported files)
//! to choose what a click drops, the placed bodies, then the selected one's name, density and
//! mass, static or dynamic, coupling with the water, placement fields, and the Row and Stack
//! helpers. Field changes reach the level live and become one command when let go.

use egui::Ui;
use spillway::body::{WATER_DENSITY, blocks_water};
use spillway::level::{Body, ColliderShape, Coupling};

use super::EditorApp;
use super::actions::Action;
use super::bodies::MAX_COPIES;
use super::gizmo::GizmoMode;
use crate::tools::body::{
    Arrangement, angles_of, density_for_mass, display_name, mass, quat_from_angles,
};

/// Shows the body settings; returns whether a field is being held or typed into.
pub(crate) fn settings(app: &mut EditorApp, ui: &mut Ui) -> bool {
    library(app, ui);
    ui.separator();
    ui.horizontal(|ui| {
        for mode in GizmoMode::ALL {
            ui.selectable_value(&mut app.bodies.mode, mode, mode.name())
                .on_hover_text("What dragging the gizmo of the selected body does");
        }
    });
    let level = app.document.level();
    if level.bodies.is_empty() {
        ui.weak("No bodies yet: click the terrain to drop the chosen one.");
    }
    let names: Vec<String> = level.bodies.iter().map(|b| b.name.clone()).collect();
    if !names.is_empty() {
        ui.label(format!("Placed: {}", crate::count(names.len(), "body")))
            .on_hover_text("The bodies in the level; the list scrolls. F frames the selected one.");
    }
    egui::ScrollArea::vertical()
        .id_salt("body list")
        .max_height(120.0)
        .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysVisible)
        .show(ui, |ui| {
            for (i, name) in names.into_iter().enumerate() {
                let selected = app.bodies.selected == Some(i);
                if ui
                    .selectable_label(selected, name)
                    .on_hover_text("Select this body to edit it")
                    .clicked()
                {
                    app.bodies.selected = Some(i);
                }
            }
        });
    let Some(i) = app
        .bodies
        .selected
        .filter(|&i| i < app.document.level().bodies.len())
    else {
        return false;
    };
    ui.separator();
    let busy = fields(app, ui, i);
    helpers(app, ui);
    busy
}

fn library(app: &mut EditorApp, ui: &mut Ui) {
    ui.label("Body to place").on_hover_text(
        "What a click on the terrain drops: the bundled bodies and the files you imported",
    );
    let entries = app.bodies.library.clone();
    for path in entries {
        let chosen = app.bodies.chosen.as_ref() == Some(&path);
        let name = display_name(&path.to_string_lossy());
        if ui
            .selectable_label(chosen, name)
            .on_hover_text(path.display().to_string())
            .clicked()
        {
            app.bodies.chosen = Some(path);
        }
    }
    if ui
        .button("Import body…")
        .on_hover_text(
            "Add a .glb or .gltf file to the list (File ▸ Import body…; or drop it on the window)",
        )
        .clicked()
    {
        app.request(Action::ImportBody);
    }
}

fn fields(app: &mut EditorApp, ui: &mut Ui, i: usize) -> bool {
    let body0 = app.document.level().bodies[i].clone();
    let mesh = app.bodies.mesh_of(&app.document, &body0);
    let mut bodies = app.document.level().bodies.clone();
    let body = &mut bodies[i];
    let mut busy = false;
    let mut track = |r: egui::Response| {
        busy |= r.dragged() || r.has_focus() || r.is_pointer_button_down_on();
        r
    };
    egui::Grid::new("body fields")
        .num_columns(2)
        .show(ui, |ui| {
            ui.label("Name");
            track(ui.add(egui::TextEdit::singleline(&mut body.name).desired_width(140.0)))
                .on_hover_text("The body's name, shown in the editor and given to the game");
            ui.end_row();
            ui.label("File");
            ui.add(egui::Label::new(&body.gltf).truncate())
                .on_hover_text(
                    "The glTF file, relative to the level (copied beside it when saved)",
                );
            ui.end_row();
            ui.label("Density");
            track(
                ui.add(
                    crate::app::number(&mut body.density)
                        .range(crate::tools::body::DENSITY_RANGE)
                        .speed(5.0)
                        .suffix(" kg/m³"),
                ),
            )
            .on_hover_text("Mass per volume: water is 1000 kg/m³; lighter bodies float");
            ui.end_row();
            ui.label("Mass");
            match &mesh {
                Ok(m) => {
                    let mut kg = mass(body, m);
                    if track(
                        ui.add(
                            crate::app::number(&mut kg)
                                .range(0.001..=1.0e9)
                                .speed(5.0)
                                .suffix(" kg"),
                        ),
                    )
                    .on_hover_text(
                        "Density × the mesh's volume × scale; changing it sets the density",
                    )
                    .changed()
                    {
                        body.density = density_for_mass(body, m, kg);
                    }
                }
                Err(why) => {
                    ui.colored_label(ui.visuals().error_fg_color, "mesh not loaded")
                        .on_hover_text(why.to_string());
                }
            }
            ui.end_row();
            ui.label("Moves");
            track(ui.checkbox(&mut body.dynamic, "dynamic")).on_hover_text(
                "Dynamic bodies are moved by the water and by gravity; static ones stay put",
            );
            ui.end_row();
            ui.label("Water");
            let implied = if body.density > WATER_DENSITY {
                "blocker"
            } else {
                "floater"
            };
            let auto = format!("Auto ({implied})");
            egui::ComboBox::from_id_salt("coupling")
                .selected_text(match body.coupling {
                    Coupling::Auto => auto.clone(),
                    Coupling::Floater => "Floater".into(),
                    Coupling::Blocker => "Blocker".into(),
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut body.coupling, Coupling::Auto, auto)
                        .on_hover_text(
                            "From the density: denser than water blocks it, lighter floats",
                        );
                    ui.selectable_value(&mut body.coupling, Coupling::Floater, "Floater")
                        .on_hover_text("Floats: buoyancy and drag, pushes the surface down");
                    ui.selectable_value(&mut body.coupling, Coupling::Blocker, "Blocker")
                        .on_hover_text(
                            "Blocks the water: it passes under and over the body, not through",
                        );
                })
                .response
                .on_hover_text(if blocks_water(body) {
                    "How the body and the water act on each other: it blocks the water"
                } else {
                    "How the body and the water act on each other: it floats"
                });
            ui.end_row();
            ui.label("Collider");
            collider_combo(ui, body);
            ui.end_row();
            ui.label("Position");
            ui.horizontal(|ui| {
                for v in &mut body.translation {
                    track(ui.add(crate::app::number(v).speed(0.05).suffix(" m")));
                }
            })
            .response
            .on_hover_text("x, y on the map and z up, metres (the body's centre)");
            ui.end_row();
            ui.label("Rotation");
            let mut deg = angles_of(body.rotation).map(f32::to_degrees);
            let before = deg;
            ui.horizontal(|ui| {
                for (v, axis) in deg.iter_mut().zip(["x", "y", "z"]) {
                    track(
                        ui.add(
                            crate::app::number(v)
                                .speed(0.5)
                                .prefix(format!("{axis} "))
                                .suffix("°"),
                        ),
                    )
                    .on_hover_text(format!("Turn about the {axis} axis, degrees"));
                }
            });
            if deg != before {
                body.rotation = quat_from_angles(deg.map(f32::to_radians));
            }
            ui.end_row();
            ui.label("Scale");
            ui.horizontal(|ui| {
                for v in &mut body.scale {
                    track(ui.add(crate::app::number(v).range(0.01..=1000.0).speed(0.01)));
                }
            })
            .response
            .on_hover_text("Size along the body's own x, y and z");
            ui.end_row();
        });
    app.bodies.edit_live(&mut app.document, "Edit body", bodies);
    busy
}

fn helpers(app: &mut EditorApp, ui: &mut Ui) {
    ui.separator();
    ui.horizontal(|ui| {
        ui.label("Copies");
        ui.add(crate::app::number(&mut app.bodies.count).range(2..=MAX_COPIES))
            .on_hover_text("How many bodies the row or stack holds, the selected one included");
    });
    ui.horizontal(|ui| {
        for how in [Arrangement::RowX, Arrangement::RowY, Arrangement::Stack] {
            let tip = match how {
                Arrangement::Stack => "Stack copies on top of the selected body, in one step",
                _ => {
                    "Copies side by side, touching, each resting on the ground: a dam, in one step"
                }
            };
            if ui.button(how.name()).on_hover_text(tip).clicked()
                && let Some(n) = app.bodies.arrange(&mut app.document, how)
            {
                app.notify(n, false);
            }
        }
    });
    ui.weak("Ctrl+D duplicates, Delete removes the selected body.");
}

/// The collision shape of `body`: automatic, one convex hull, or a convex decomposition.
fn collider_combo(ui: &mut egui::Ui, body: &mut Body) {
    let auto = if body.dynamic {
        "Auto (convex hull)"
    } else {
        "Auto (triangle mesh)"
    };
    let name = |c: ColliderShape| match c {
        ColliderShape::Auto => auto,
        ColliderShape::ConvexHull => "Convex hull",
        ColliderShape::ConvexDecomposition => "Convex decomposition",
    };
    egui::ComboBox::from_id_salt("collider")
        .selected_text(name(body.collider))
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut body.collider, ColliderShape::Auto, auto)
                .on_hover_text("A convex hull if dynamic, the exact triangles if static");
            ui.selectable_value(&mut body.collider, ColliderShape::ConvexHull, "Convex hull")
                .on_hover_text("One convex hull around the mesh: fast, fills hollows and gaps");
            ui.selectable_value(
                &mut body.collider,
                ColliderShape::ConvexDecomposition,
                "Convex decomposition",
            )
            .on_hover_text(
                "The mesh cut into convex parts (computed once per mesh): keeps hollows such \
                 as a trough or the gap under a cart",
            );
        })
        .response
        .on_hover_text("The body's shape in the physics (the water sees the mesh itself)");
}
