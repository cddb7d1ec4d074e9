//! Baking in the editor: the "Bake to steady state" and "Keep this state" buttons, and the
//! modal progress window of a running bake (a bar, the change rate falling on a plot, the time
//! left, Cancel). A finished bake, or the preview's current frame, becomes the level's initial
//! water and flow state as one undoable [`SetWaterState`]; a cancelled bake changes nothing.

use egui::Ui;
use egui_plot::{HLine, Line, Plot, PlotPoints};

use super::EditorApp;
use crate::bake::{BakeEnd, BakeJob, BakeSettings};
use crate::document::{SetWaterState, WaterState};

/// The bake controls, in the Level section of the inspector.
pub(crate) fn controls(app: &mut EditorApp, ui: &mut Ui) {
    if ui
        .button("Bake to steady state")
        .on_hover_text(
            "Run the water from the authored state until it stops changing (or the time limit), \
             in the background, and make the result the level's initial water and flow (one \
             undo step)",
        )
        .clicked()
    {
        start(app);
        return;
    }
    let s = &mut app.bake_settings;
    ui.horizontal_wrapped(|ui| {
        let until = ui.label("until change <");
        ui.add(
            crate::app::number(&mut s.tolerance)
                .range(1e-6..=1.0)
                .speed(1e-5)
                .custom_formatter(|v, _| format!("{v:.0e}"))
                .suffix(" m/s"),
        )
        .labelled_by(until.id)
        .on_hover_text("Steady when no cell's depth changes faster than this (m/s)");
        let or = ui.label("or");
        ui.add(
            crate::app::number(&mut s.max_seconds)
                .range(1.0..=1.0e6)
                .speed(10.0)
                .max_decimals(0)
                .suffix(" s"),
        )
        .labelled_by(or.id)
        .on_hover_text("Stop after this many simulated seconds even if not steady");
    });
}

/// The "Keep this state" button, among the preview's controls.
pub(crate) fn keep_button(app: &mut EditorApp, ui: &mut Ui) {
    let live = app.preview.is_live();
    if ui
        .add_enabled(live, egui::Button::new("Keep this state"))
        .on_hover_text(
            "Make the preview's current water and flow the level's initial state (one undo step)",
        )
        .on_disabled_hover_text("Run the water first (Play or Step)")
        .clicked()
    {
        keep_this_state(app);
    }
}

/// Starts a bake of the level as it is now (pausing the preview).
pub(crate) fn start(app: &mut EditorApp) {
    if app.bake.is_some() {
        return;
    }
    app.preview.pause();
    let gpu = app.gpu.clone().filter(|_| !app.preview.on_cpu());
    let level = app.document.level().clone();
    let root = super::bodies::level_dir(&app.document).unwrap_or_else(|| ".".into());
    match BakeJob::start(level, root, app.bake_settings, gpu) {
        Ok(job) => app.bake = Some(job),
        Err(e) => app.notify(format!("Could not bake: {e}"), true),
    }
}

/// The preview's current frame becomes the initial state.
pub(crate) fn keep_this_state(app: &mut EditorApp) {
    let level = app.document.level();
    match app.preview.capture(level) {
        Some(Ok(mut kept)) => {
            // The bodies where the water has moved them (those gone over an open edge of the
            // map where they were placed).
            let mut left = Vec::new();
            if let Some((poses, gone)) = app.preview.kept_body_poses() {
                for (body, pose) in kept.bodies.iter_mut().zip(poses) {
                    body.translation = pose.translation;
                    body.rotation = pose.rotation;
                }
                left = gone;
            }
            let time = kept.flow.as_ref().map_or(0.0, |f| f.time);
            app.preview.water_becomes_authored();
            set_state(app, "Keep this state", &kept);
            app.notify(
                format!(
                    "Kept the water at t = {time:.1} s as the level's initial state{}",
                    crate::cli::bake::left_map_note(&left)
                ),
                false,
            );
        }
        Some(Err(e)) => app.notify(format!("Could not read the water: {e}"), true),
        None => app.notify("Run the water first (Play or Step)", true),
    }
}

/// Makes `from`'s water the level's initial state, as one undo step if it changes anything
/// (a second Keep this state of the same frame made a step that changed nothing, marked the
/// level modified and held two more copies of every grid).
fn set_state(app: &mut EditorApp, label: &str, from: &spillway::Level) {
    let before = WaterState::of(app.document.level());
    let after = WaterState::of(from);
    let edit = SetWaterState::new(label, before, after);
    if !edit.is_empty() {
        app.document.execute(Box::new(edit));
    }
}

/// What happens when a bake ends: called at the start of a frame, before the panels, so the
/// frame that finds it ended already shows its notice and its water.
pub(crate) fn collect(app: &mut EditorApp, ctx: &egui::Context) {
    if let Some(end) = app.bake.as_mut().and_then(|job| job.poll()) {
        app.bake = None;
        finish(app, end);
        ctx.request_repaint();
    }
}

/// The progress window of a running bake.
pub(crate) fn window(app: &mut EditorApp, ctx: &egui::Context) {
    let Some(job) = app.bake.as_mut() else {
        return;
    };
    ctx.request_repaint_after(std::time::Duration::from_millis(50));
    egui::Modal::new(egui::Id::unique("bake progress")).show(ctx, |ui| {
        ui.set_width(460.0);
        ui.heading("Baking to steady state");
        progress(job, ui);
        ui.add_space(6.0);
        ui.horizontal(|ui| {
            let cancelling = job.cancelling();
            if ui
                .add_enabled(!cancelling, egui::Button::new("Cancel"))
                .on_hover_text("Stop the bake; the level stays as it was")
                .clicked()
                || ui.input(|i| i.key_pressed(egui::Key::Escape))
            {
                job.cancel();
            }
            if cancelling {
                ui.spinner();
                ui.label("stopping…");
            }
        });
    });
}

fn progress(job: &BakeJob, ui: &mut Ui) {
    let BakeSettings {
        tolerance,
        max_seconds,
    } = job.settings;
    let last = job.points.last();
    let on = if job.backend.is_empty() {
        "Readying the solver".to_owned()
    } else {
        format!("On the {}", job.backend)
    };
    ui.label(format!(
        "{on}: steady when the water changes slower than {tolerance:.0e} m/s, or after \
         {max_seconds:.0} s."
    ));
    let text = match last {
        Some(p) => format!("{:.0} s simulated · change {:.2e} m/s", p.seconds, p.rate),
        None => "starting…".into(),
    };
    ui.add(
        egui::ProgressBar::new(job.fraction())
            .text(text)
            .animate(true),
    );
    let elapsed = job.elapsed().as_secs_f64();
    let left = match job.eta() {
        Some(s) => format!("about {} left", duration(s)),
        None => "estimating the time left…".into(),
    };
    ui.label(format!("{} elapsed, {left}", duration(elapsed)));
    let rates: PlotPoints = job
        .points
        .iter()
        .filter(|p| p.rate > 0.0)
        .map(|p| [p.seconds, (p.rate as f64).log10()])
        .collect();
    Plot::new("bake convergence")
        .height(160.0)
        .x_axis_label("simulated s")
        .y_axis_label("log₁₀ change (m/s)")
        .allow_scroll(false)
        .allow_drag(false)
        .show(ui, |p| {
            p.line(Line::new("change rate", rates));
            p.hline(HLine::new("tolerance", (tolerance as f64).log10()));
        })
        .response
        .on_hover_text(
            "The largest depth change of any cell over each simulated second (log scale): the \
             bake is steady when it falls below the tolerance line",
        );
}

/// `1 min 05 s`, `12 s`.
fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    if s >= 60 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{s} s")
    }
}

fn finish(app: &mut EditorApp, end: BakeEnd) {
    match end {
        BakeEnd::Finished(outcome, baked) => {
            set_state(app, "Bake to steady state", &baked);
            let verdict = if outcome.steady {
                format!("steady after {:.0} s", outcome.seconds)
            } else {
                format!("not steady after the {:.0} s limit", outcome.seconds)
            };
            app.notify(
                format!(
                    "Baked: {verdict} (change {:.1e} m/s); the water is the level's initial \
                     state{}",
                    outcome.rate,
                    crate::cli::bake::left_map_note(&outcome.left_map)
                ),
                !outcome.steady,
            );
        }
        BakeEnd::Cancelled => app.notify("Bake cancelled: the level is unchanged", false),
        BakeEnd::Failed(e) => {
            app.dialog = Some(super::Dialog::Error {
                title: "The bake failed".into(),
                message: e.to_string(),
            });
        }
    }
}
