//! The water preview panel: play, pause, single step, reset and speed; the water overlay; the
//! mass balance (volume, inflow, outflow, balance error) and plots of volume and flooded area
//! over simulated time. It only changes the [`Preview`]'s controls: the stepping itself
//! happens in the viewport's frame, after the document's edits.

use egui::Ui;
use egui_plot::{Legend, Line, Plot, PlotPoints};

use super::EditorApp;
use super::actions::Action;
use crate::preview::{Preview, SPEED_RANGE};
use spillway_render::WaterOverlay;

/// Shows the panel.
pub(crate) fn show(app: &mut EditorApp, ui: &mut Ui) {
    controls(app, ui);
    let preview = &mut app.preview;
    if let Some(e) = &preview.error {
        ui.colored_label(ui.visuals().error_fg_color, e.to_string());
    }
    if let Some(h) = &preview.halt {
        ui.colored_label(ui.visuals().error_fg_color, &h.message);
    }
    if let Some(lost) = &preview.gpu_lost {
        ui.colored_label(ui.visuals().warn_fg_color, lost)
            .on_hover_text("Restart the editor to use the GPU again. The CPU solver gives the same water, more slowly.");
    }
    gates(app, ui);
    let preview = &app.preview;
    ui.separator();
    ui.horizontal_top(|ui| {
        balance(preview, ui);
        ui.separator();
        plots(preview, ui);
    });
}

/// A button per gate of the level: open it while the water runs.
fn gates(app: &mut EditorApp, ui: &mut Ui) {
    let preview = &mut app.preview;
    // With the last gate deleted the running water still has the gates it started with: the
    // row stays to say so.
    if app.document.level().gates.is_empty() && !preview.gates_changed {
        return;
    }
    let states = preview.gates();
    ui.horizontal_wrapped(|ui| {
        ui.label("Gates")
            .on_hover_text("Gates hold water back until they open");
        if states.is_empty() {
            ui.weak("press Play or Step to run the water, then open them here");
        }
        for g in states {
            if g.open {
                ui.add_enabled(false, egui::Button::new(format!("{} (open)", g.name)));
            } else if ui
                .button(format!("Open {}", g.name))
                .on_hover_text("Open the gate now: its water floods out at the next step")
                .clicked()
            {
                preview.open_gate(&g.name);
            }
        }
        if preview.gates_changed {
            ui.weak("Gates were edited: Reset to run with them");
        }
    });
}

fn controls(app: &mut EditorApp, ui: &mut Ui) {
    ui.horizontal_wrapped(|ui| {
        ui.strong("Water");
        let (label, tip) = if app.preview.playing {
            ("Pause", "Stop time (Space)")
        } else {
            (
                "Play",
                "Run the water from where it is, or from the authored level (Space)",
            )
        };
        if ui.button(label).on_hover_text(tip).clicked() {
            app.request(Action::PlayPause);
        }
        if ui
            .button("Step")
            .on_hover_text("Pause and run one time step (.)")
            .clicked()
        {
            app.request(Action::StepWater);
        }
        if ui
            .button("Reset")
            .on_hover_text("Back to the authored water, forgetting the timeline; the level is never changed (Ctrl+R)")
            .clicked()
        {
            app.request(Action::ResetWater);
        }
        super::bake_panel::keep_button(app, ui);
        let preview = &mut app.preview;
        let mut cpu = preview.on_cpu();
        let lost = preview.gpu_lost.is_some();
        if ui
            .add_enabled(!lost, egui::Checkbox::new(&mut cpu, "CPU solver"))
            .on_hover_text(
                "Run the water on the CPU solver instead of the GPU (slower; the same solver a \
                 game runs without a GPU). Switching starts again from the authored water.",
            )
            .on_disabled_hover_text("The GPU device was lost: the water runs on the CPU")
            .changed()
        {
            preview.set_cpu(cpu);
        }
        ui.separator();
        ui.label("Speed");
        ui.add(
            egui::Slider::new(&mut preview.speed, SPEED_RANGE)
                .logarithmic(true)
                .suffix("×")
                .max_decimals(2),
        )
        .on_hover_text(
            "Simulated seconds per real second: below 1 is slow motion, above 1 runs many \
             steps per frame",
        );
        // What held the water back in the frames just played; nothing is held back while the
        // water is paused (the last played frame's state would otherwise stay on the panel).
        let playing = preview.playing;
        if playing && preview.bodies_capped && preview.on_cpu() {
            ui.label("(held back: CPU solver)").on_hover_text(format!(
                "The GPU was lost: the CPU solver runs as many steps as fit in {} ms a frame",
                preview.step_budget.as_millis()
            ));
        } else if playing && preview.bodies_capped {
            ui.label("(held back: bodies move)").on_hover_text(format!(
                "While bodies move with the water each step is coupled with the physics, so \
                 a frame runs no more steps than fit in {} ms",
                preview.step_budget.as_millis()
            ));
        }
        let stride = preview.body_stride.steps;
        if preview.has_bodies() && stride > 1 && preview.playing {
            ui.label(format!("(bodies: 1 step per {stride})"))
                .on_hover_text(format!(
                    "To keep up with this speed the bodies step once per {stride} water steps \
                     (rapier steps of up to {} s); every water step still runs. At speeds where \
                     every step fits, and in Bake and `spillway bake`, every step is coupled \
                     (Water ▸ Coarser body steps at fast-forward).",
                    crate::preview::stride::LONGEST_BODY_STEP
                ));
        }
        if playing && preview.pace.held() && !preview.bodies_capped {
            ui.label("(held back: slow frames)").on_hover_text(
                "Frames took longer than a 30 Hz frame, so the water runs fewer steps per \
                 frame and falls behind the speed asked, keeping the viewport responsive (a \
                 large level on a small GPU). Lower View ▸ Water quality or the speed to catch up.",
            );
        }
        if preview.clamped_steps > 0 {
            ui.label(format!("({} short steps)", preview.clamped_steps))
                .on_hover_text(
                    "Steps where the water suddenly needed more CFL sub-steps than the GPU had \
                     been given: they stayed stable but simulated less time, so the water lags \
                     the clock slightly. The next frames give the GPU what the water needs.",
                );
        }
        ui.separator();
        ui.label("Show")
            .on_hover_text("How the live water is coloured");
        for o in WaterOverlay::ALL {
            ui.selectable_value(&mut app.viewport.water_overlay, o, o.name())
                .on_hover_text(o.tip());
        }
        ui.separator();
        ui.monospace(format!("t {:8.2} s", preview.time()))
            .on_hover_text("Simulated time since the last reset");
        if preview.playing {
            ui.monospace(format!("{:4} steps/frame", preview.last_steps))
                .on_hover_text("Solver steps run in the last frame");
        }
    });
}

fn balance(preview: &Preview, ui: &mut Ui) {
    egui::Grid::new("balance")
        .num_columns(2)
        .spacing([12.0, 2.0])
        .show(ui, |ui| {
            let Some(s) = &preview.stats else {
                ui.weak("Press Play to run the water.");
                ui.end_row();
                return;
            };
            let mut row = |name: &str, value: String, tip: &str| {
                ui.label(name).on_hover_text(tip);
                ui.monospace(value);
                ui.end_row();
            };
            row(
                "Volume",
                format!("{:12.2} m³", s.volume),
                "Water in the level now",
            );
            row(
                "Inflow",
                format!("{:12.2} m³", s.inflow),
                "Added by sources, inflow edges, rain and painted water since the reset",
            );
            row(
                "Outflow",
                format!("{:12.2} m³", s.outflow),
                "Removed by sinks and open or fixed-level edges since the reset",
            );
            row(
                "Balance error",
                format!("{:12.2e}", s.balance_error),
                "(volume − initial − inflow + outflow) / (initial + inflow): how well volume \
                 is conserved",
            );
            row(
                "Max depth",
                format!("{:12.2} m", s.max_depth),
                "Deepest water",
            );
            row(
                "Steps",
                format!("{:12}", s.steps),
                "Solver steps since the reset",
            );
        });
}

fn plots(preview: &Preview, ui: &mut Ui) {
    let volume: PlotPoints = preview.history.iter().map(|s| [s.time, s.volume]).collect();
    let flooded: PlotPoints = preview
        .history
        .iter()
        .map(|s| [s.time, s.flooded])
        .collect();
    let gauges = preview.gauge_series();
    // One plot per unit: a stage of 19 m and a discharge of 0.5 m³/s share no axis.
    let mut units: Vec<&str> = gauges.iter().map(|g| g.unit).collect();
    units.sort_unstable();
    units.dedup();
    let plots = 2.0 + units.len() as f32;
    let width = ((ui.available_width() - 8.0 * plots) / plots).max(100.0);
    let height = ui.available_height().clamp(80.0, 220.0);
    Plot::new("volume plot")
        .width(width)
        .height(height)
        .legend(Legend::default())
        .x_axis_label("t (s)")
        .allow_scroll(false)
        .show(ui, |p| p.line(Line::new("volume (m³)", volume)))
        .response
        .on_hover_text("Water volume over simulated time");
    Plot::new("flooded plot")
        .width(width)
        .height(height)
        .legend(Legend::default())
        .x_axis_label("t (s)")
        .allow_scroll(false)
        .show(ui, |p| p.line(Line::new("flooded area (m²)", flooded)))
        .response
        .on_hover_text("Wet area (deeper than 1 mm) over simulated time");
    for unit in units {
        let (id, tip) = if unit == "m" {
            (
                "stage plot",
                "The water surface at each stage gauge over simulated time (m)",
            )
        } else {
            (
                "discharge plot",
                "The discharge through each gauge line over simulated time (m³/s)",
            )
        };
        Plot::new(id)
            .width(width)
            .height(height)
            .legend(Legend::default())
            .x_axis_label("t (s)")
            .allow_scroll(false)
            .show(ui, |p| {
                for g in gauges.iter().filter(|g| g.unit == unit) {
                    let points: PlotPoints = g.points.iter().copied().collect();
                    p.line(Line::new(format!("{} ({})", g.name, g.unit), points));
                }
            })
            .response
            .on_hover_text(tip);
    }
}
