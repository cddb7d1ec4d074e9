//! The side and bottom panels: tools on the left, the inspector (active tool's settings and
//! level information) on the right, the status bar at the bottom.

use std::time::Duration;

use super::EditorApp;
use super::actions::Action;
use super::water_panel;
use crate::tools::{MAX_RADIUS, MIN_RADIUS, Tool, WaterMode, roughness};

/// How long a status message stays.
const NOTICE_TIME: Duration = Duration::from_secs(6);

/// The tool panel: one button per sculpting tool, then one per water tool (scrolling in a
/// short window).
pub(crate) fn tool_panel(app: &mut EditorApp, ui: &mut egui::Ui) {
    egui::ScrollArea::vertical()
        .auto_shrink([false, true])
        .show(ui, |ui| tool_list(app, ui));
}

fn tool_list(app: &mut EditorApp, ui: &mut egui::Ui) {
    ui.add_space(4.0);
    ui.heading("Sculpt");
    ui.add_space(4.0);
    for tool in Tool::SCULPT {
        tool_button(app, ui, tool);
    }
    ui.add_space(8.0);
    ui.heading("Water");
    ui.add_space(4.0);
    for tool in Tool::WATER {
        tool_button(app, ui, tool);
    }
    ui.add_space(8.0);
    ui.heading("Bodies");
    ui.add_space(4.0);
    for tool in Tool::BODIES {
        tool_button(app, ui, tool);
    }
    ui.add_space(12.0);
    ui.separator();
    ui.weak("Left drag: paint\nShift: invert\nDel: delete selected\n[ ] : brush size\nRight drag: orbit\nShift+right: pan\nMiddle drag: orbit\nWheel: zoom\nRight + WASD/QE: fly\nF: frame selection");
}

fn tool_button(app: &mut EditorApp, ui: &mut egui::Ui, tool: Tool) {
    let selected = app.sculpt.tool == tool;
    let label = format!("{}  {}", tool.key(), tool.name());
    let button =
        egui::Button::selectable(selected, label).min_size(egui::vec2(ui.available_width(), 24.0));
    if ui
        .add(button)
        .on_hover_text(format!("{} (key {})", tool.help(), tool.key()))
        .clicked()
    {
        app.request(Action::SelectTool(tool));
    }
}

/// The inspector: the active tool's settings, then facts about the level.
pub(crate) fn inspector(app: &mut EditorApp, ui: &mut egui::Ui) {
    egui::ScrollArea::vertical().show(ui, |ui| {
        ui.add_space(4.0);
        let tool = app.sculpt.tool;
        ui.heading(tool.name());
        ui.label(tool.help());
        ui.add_space(6.0);
        if tool.paints() {
            brush_settings(app, ui, tool);
        }
        water_panel::settings(app, ui, tool);
        let busy = tool == Tool::Body && super::body_panel::settings(app, ui);
        if !busy {
            app.bodies.commit_pending(&mut app.document);
        }
        ui.add_space(10.0);
        ui.separator();
        super::level_panel::show(app, ui);
    });
}

fn brush_settings(app: &mut EditorApp, ui: &mut egui::Ui, tool: Tool) {
    let cell = app.document.level().cell_size;
    let b = &mut app.sculpt.brush;
    egui::Grid::new("brush").num_columns(2).show(ui, |ui| {
        ui.label("Radius");
        ui.add(egui::Slider::new(&mut b.radius, MIN_RADIUS..=MAX_RADIUS).logarithmic(true).suffix(" m"))
            .on_hover_text(format!(
                "Brush radius in metres ({:.1} cells); [ and ] change it",
                b.radius / cell
            ));
        ui.end_row();
        ui.label("Strength");
        let strength = ui
            .add_enabled(tool != Tool::Ramp, egui::Slider::new(&mut b.strength, 0.0..=1.0))
            .on_hover_text("How fast the tool works while the button is held");
        strength.on_disabled_hover_text("The ramp is built fully when the drag ends");
        ui.end_row();
        ui.label("Falloff");
        ui.add(egui::Slider::new(&mut b.falloff, 0.0..=1.0))
            .on_hover_text("Share of the radius over which the effect fades out: 0 is a hard edge, 1 fades from the centre");
        ui.end_row();
        match tool {
            Tool::SetHeight => {
                ui.label("Target height");
                ui.add(crate::app::number(&mut b.target_height).range(spillway::level::ranges::HEIGHTS).speed(0.25).suffix(" m"))
                    .on_hover_text("Height the brush pulls the terrain towards");
                ui.end_row();
            }
            Tool::Terrace => {
                ui.label("Step height");
                ui.add(crate::app::number(&mut b.terrace_step).range(0.05..=1000.0).speed(0.05).suffix(" m"))
                    .on_hover_text("Height of each terrace step");
                ui.end_row();
            }
            Tool::Noise => {
                ui.label("Feature size");
                ui.add(crate::app::number(&mut b.noise_scale).range(0.1..=10000.0).speed(0.1).suffix(" m"))
                    .on_hover_text("Typical distance between bumps");
                ui.end_row();
            }
            Tool::Water => {
                ui.label("Mode");
                ui.horizontal(|ui| {
                    for mode in WaterMode::ALL {
                        ui.selectable_value(&mut b.water_mode, mode, mode.name())
                            .on_hover_text(mode.help());
                    }
                });
                ui.end_row();
                if b.water_mode == WaterMode::SetLevel {
                    ui.label("Water level");
                    ui.add(crate::app::number(&mut b.water_level).range(spillway::level::ranges::HEIGHTS).speed(0.05).suffix(" m"))
                        .on_hover_text("Surface height the brush pulls the water towards");
                    ui.end_row();
                }
            }
            Tool::Roughness => {
                ui.label("Manning's n");
                ui.add(
                    crate::app::number(&mut b.roughness)
                        .range(roughness::N_RANGE)
                        .speed(0.001)
                        .max_decimals(3)
                        .suffix(" s/m^⅓"),
                )
                .on_hover_text(
                    "The roughness the brush paints: higher n slows the water (a river of a \
                     given depth and slope runs at u = h^⅔·S^½ / n)",
                );
                ui.end_row();
                ui.label("Ground");
                ui.vertical(|ui| {
                    for p in roughness::PRESETS {
                        ui.selectable_value(&mut b.roughness, p.n, format!("{} ({})", p.name, p.n))
                            .on_hover_text(p.help);
                    }
                });
                ui.end_row();
            }
            _ => {}
        }
    });
    b.sanitize();
    if tool == Tool::Roughness
        && !matches!(
            app.document.level().params.friction,
            spillway::level::Friction::Manning { .. }
        )
    {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            "This level uses another friction law: painted n takes effect once Friction is \
             Manning (Level settings below).",
        );
    }
    let set_height = tool == Tool::SetHeight;
    let set_level = tool == Tool::Water && app.sculpt.brush.water_mode == WaterMode::SetLevel;
    if (set_height || set_level)
        && let Some(p) = app.viewport.last_hover
        && ui
            .small_button("Use height under cursor")
            .on_hover_text("Set the target to the terrain height under the cursor (last seen)")
            .clicked()
    {
        if set_height {
            app.sculpt.brush.target_height = p.z;
        } else {
            app.sculpt.brush.water_level = p.z;
        }
    }
}

/// Facts about the level: where it is saved, its size, heights, water and objects.
pub(crate) fn level_info(app: &mut EditorApp, ui: &mut egui::Ui) {
    let level = app.document.level();
    let (lo, hi) = app.viewport.z_range;
    let rows = [
        (
            "Path",
            app.document
                .path()
                .map_or_else(|| "not saved yet".into(), |p| p.display().to_string()),
            "Where the level is saved",
        ),
        (
            "Cells",
            format!("{} × {}", level.nx(), level.ny()),
            "Grid size in cells",
        ),
        (
            "Cell size",
            format!("{} m", level.cell_size),
            "Edge length of one cell",
        ),
        (
            "Extent",
            format!(
                "{:.0} × {:.0} m",
                level.nx() as f32 * level.cell_size,
                level.ny() as f32 * level.cell_size
            ),
            "Size of the level in metres",
        ),
        (
            "Heights",
            format!("{lo:.2} to {hi:.2} m"),
            "Lowest and highest terrain",
        ),
        (
            "Water",
            format!("{:.0} m³", level.water_volume()),
            "Initial water volume",
        ),
        (
            "Friction",
            match &level.roughness {
                Some(_) => format!("{}, per-cell grid", level.params.friction),
                None => level.params.friction.to_string(),
            },
            "Bed friction law: Manning's n (s/m^⅓) sets how fast a river of a given depth runs \
             on a given slope; a roughness grid gives n per cell",
        ),
        (
            "Objects",
            format!(
                "{}, {}, {}",
                crate::count(level.sources.len(), "source"),
                crate::count(level.sinks.len(), "sink"),
                crate::count(level.bodies.len(), "body")
            ),
            "Placed water sources, sinks and rigid bodies",
        ),
    ];
    egui::Grid::new("level info").num_columns(2).show(ui, |ui| {
        for (name, value, tip) in rows {
            ui.label(name).on_hover_text(tip);
            ui.add(egui::Label::new(value).truncate())
                .on_hover_text(tip);
            ui.end_row();
        }
    });
}

/// The status bar: cursor position, terrain height and water depth under it, frame time,
/// and the latest message.
pub(crate) fn status_bar(app: &mut EditorApp, ui: &mut egui::Ui) {
    ui.horizontal(|ui| {
        match app.viewport.hover {
            Some(p) => {
                let level = app.document.level();
                let cs = level.cell_size;
                let (cx, cy) = ((p.x / cs) as usize, (p.y / cs) as usize);
                let depth = if cx < level.nx() && cy < level.ny() {
                    level.water.get(cx, cy)
                } else {
                    0.0
                };
                ui.monospace(format!("x {:8.2} m  y {:8.2} m", p.x, p.y))
                    .on_hover_text(format!("World position under the cursor (cell {cx}, {cy})"));
                ui.separator();
                ui.monospace(format!("terrain {:7.2} m", p.z))
                    .on_hover_text("Terrain height under the cursor");
                ui.separator();
                match app.preview.probe.filter(|r| (r.x, r.y) == (cx, cy)) {
                    Some(r) => {
                        let speed = r.velocity[0].hypot(r.velocity[1]);
                        ui.monospace(format!(
                            "water {:5.2} m  surface {:7.2} m  {:5.2} m/s",
                            r.depth, r.surface, speed
                        ))
                        .on_hover_text(format!(
                            "Live water under the cursor: depth, surface height and speed \
                             (velocity {:.2}, {:.2} m/s)",
                            r.velocity[0], r.velocity[1]
                        ));
                    }
                    None => {
                        ui.monospace(format!("water {:5.2} m", depth))
                            .on_hover_text("Authored water depth under the cursor");
                    }
                }
            }
            None => {
                ui.monospace("cursor off the terrain")
                    .on_hover_text("Point at the terrain to see its position and height");
            }
        }
        if let Some(text) = sizing_text(app) {
            ui.separator();
            ui.monospace(text.0).on_hover_text(text.1);
        }
        ui.separator();
        let interval = if app.frame_interval > 0.0 {
            format!("frame {:5.1} ms · ", app.frame_interval * 1000.0)
        } else {
            String::new()
        };
        ui.monospace(format!("{interval}cpu {:4.1} ms", app.frame_time * 1000.0))
            .on_hover_text(
                "Time between frames while the view redraws continuously (sculpting, moving the \
                 camera), and CPU time to build a frame and submit its rendering (both smoothed)",
            );
        if let Some(n) = &app.notice {
            if n.at.elapsed() < NOTICE_TIME {
                ui.separator();
                let colour = if n.error {
                    ui.visuals().error_fg_color
                } else {
                    ui.visuals().weak_text_color()
                };
                ui.colored_label(colour, &n.text);
                ui.ctx().request_repaint_after(NOTICE_TIME);
            } else {
                app.notice = None;
            }
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if app.document.is_modified() {
                ui.colored_label(egui::Color32::from_rgb(230, 180, 80), "unsaved changes")
                    .on_hover_text("The level has changes that are not saved");
            }
        });
    });
}

/// The discharge a designer is sizing: the inflow edge the Boundary tool paints, the selected
/// source, or everything that flows in.
fn sizing_discharge(app: &EditorApp) -> Option<crate::sizing::Discharge> {
    use crate::tools::placement::Selection;
    use spillway::level::BoundaryKind;
    let level = app.document.level();
    if let (Tool::Boundary, BoundaryKind::Inflow { m3_per_s }) =
        (app.sculpt.tool, &app.authoring.boundary_kind)
    {
        return Some(crate::sizing::Discharge {
            what: "the inflow edge".into(),
            m3_per_s: *m3_per_s,
        });
    }
    if let Some(Selection::Source(i)) = app.authoring.selection
        && let Some(d) = crate::sizing::source_discharge(level, i)
    {
        return Some(d);
    }
    crate::sizing::total_inflow(level)
}

/// "Q 40 m³/s → 0.82 m deep, 1.41 m/s" for the channel under the cursor, and its tooltip.
fn sizing_text(app: &EditorApp) -> Option<(String, String)> {
    let p = app.viewport.hover?;
    let q = sizing_discharge(app)?;
    let level = app.document.level();
    if matches!(
        level.params.friction,
        spillway::level::Friction::Linear { .. }
    ) {
        return Some((
            format!("Q {:.1} m³/s: no sizing with linear friction", q.m3_per_s),
            "Flow sizing finds the depth and speed a discharge settles at in the channel under \
             the cursor by Manning's or Chézy's law. This level's friction is linear (one decay \
             rate at every depth, as older levels had), which sets no such depth: choose \
             Manning under Friction in the Level panel to size channels."
                .into(),
        ));
    }
    let f = crate::sizing::normal_flow(level, p.x, p.y, q.m3_per_s)?;
    Some((
        format!(
            "Q {:.1} m³/s → {:.2} m deep, {:.2} m/s",
            q.m3_per_s, f.depth, f.speed
        ),
        format!(
            "Flow sizing: {:.1} m³/s ({}) running steadily down the channel under the cursor \
             settles {:.2} m deep at {:.2} m/s, {:.0} m wide ({} and a bed slope of {:.2} %). \
             Select a source, or choose Inflow in the Boundary tool, to size its discharge.",
            q.m3_per_s,
            q.what,
            f.depth,
            f.speed,
            f.width,
            match level.params.friction {
                spillway::level::Friction::Chezy { c } => format!("Chézy's law with C = {c:.1}"),
                _ => format!("Manning's law with n = {:.3}", f.n),
            },
            f.slope * 100.0
        ),
    ))
}
