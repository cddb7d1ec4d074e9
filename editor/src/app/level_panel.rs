//! The Level panel of the inspector: the level's settings (name, solver, friction law and its
//! coefficient, time step, CFL, gravity, rain, the default edge), each change one undoable
//! [`EditSettings`] that the running preview takes without a reset, then facts about the level.
//!
//! Widgets edit a draft; a drag or a text field becomes one command when it is released or
//! loses focus, a click at once. Only what the runtime accepts is offered: values are clamped
//! to the ranges the level file validates.

use egui::{Response, Ui};
use spillway::level::{BoundaryKind, DEFAULT_MANNING_N, Friction, SolverKind};

use super::EditorApp;
use crate::document::{EditSettings, Settings};

/// A settings edit in progress (a drag or a text field with focus).
#[derive(Default)]
pub(crate) struct LevelForm {
    draft: Option<Settings>,
    /// Escape dropped the edit under way: the field held takes no more until let go.
    cancelled: bool,
}

/// Collects what each widget did: whether one is still being edited, and the label of the
/// command to record if one finished.
#[derive(Default)]
struct Edits {
    busy: bool,
    commit: Option<&'static str>,
}

impl Edits {
    fn track(&mut self, response: Response, label: &'static str) -> Response {
        let editing = response.dragged() || response.has_focus();
        self.busy |= editing;
        let finished = response.drag_stopped() || response.lost_focus();
        if ((response.changed() || response.clicked()) && !editing) || finished {
            self.commit = Some(label);
        }
        response
    }
}

impl LevelForm {
    /// Drops the settings being edited, so the form shows the document's again.
    pub(crate) fn forget_draft(&mut self) {
        self.draft = None;
    }

    /// Escape while a field is edited: its change is dropped, and the field held takes no
    /// more until it is let go (a drag went on from the document's value and was recorded on
    /// release). Returns whether there was an edit to drop.
    pub(crate) fn cancel(&mut self) -> bool {
        self.cancelled = self.draft.take().is_some();
        self.cancelled
    }
}

/// The settings section, then the level's facts.
pub(crate) fn show(app: &mut EditorApp, ui: &mut Ui) {
    ui.heading("Level");
    let current = Settings::of(app.document.level());
    let mut draft = app
        .level_form
        .draft
        .clone()
        .unwrap_or_else(|| current.clone());
    let mut edits = Edits::default();
    egui::Grid::new("level settings")
        .num_columns(2)
        .show(ui, |ui| form(ui, &mut draft, &mut edits));
    match edits.commit {
        // Cancelled: nothing until the field is let go.
        _ if app.level_form.cancelled => {
            app.level_form.cancelled = edits.busy;
            app.level_form.draft = None;
        }
        Some(label) if draft != current => {
            let label = format!("Level settings: {label}");
            app.document
                .execute(Box::new(EditSettings::new(label, current, draft)));
            app.level_form.draft = None;
        }
        _ if edits.busy && draft != current => app.level_form.draft = Some(draft),
        _ => app.level_form.draft = None,
    }
    ui.add_space(4.0);
    super::bake_panel::controls(app, ui);
    ui.add_space(6.0);
    super::panels::level_info(app, ui);
}

fn form(ui: &mut Ui, s: &mut Settings, edits: &mut Edits) {
    let name = ui
        .label("Name")
        .on_hover_text("The level's name, shown in the game");
    edits.track(
        ui.add(egui::TextEdit::singleline(&mut s.name).desired_width(150.0))
            .labelled_by(name.id),
        "name",
    );
    ui.end_row();

    let p = &mut s.params;
    ui.label("Solver").on_hover_text(
        "How the water is integrated; switching keeps the water and starts its flow at rest",
    );
    ui.horizontal_wrapped(|ui| {
        edits.track(
            ui.selectable_value(&mut p.solver, SolverKind::Pipes, "Pipes")
                .on_hover_text("Virtual pipes: fast and robust"),
            "solver",
        );
        edits.track(
            ui.selectable_value(&mut p.solver, SolverKind::Swe, "Shallow water")
                .on_hover_text("The full shallow-water equations: momentum carried by the flow"),
            "solver",
        );
    });
    ui.end_row();

    friction(ui, &mut p.friction, edits);

    ui.label("Time step").on_hover_text(
        "Simulated seconds per step; steps faster than the CFL limit allows are split into \
         sub-steps automatically",
    );
    edits.track(
        ui.add(
            crate::app::number(&mut p.dt)
                .range(spillway::level::ranges::TIME_STEP)
                .speed(0.001)
                .max_decimals(3)
                .suffix(" s"),
        ),
        "time step",
    );
    ui.end_row();

    let cfl = ui.label("CFL").on_hover_text(
        "Courant number: the share of a cell the fastest wave may cross in one sub-step \
         (smaller is steadier and slower; a gravity wave alone crosses at most 0.71 of a \
         cell, the limit on a 2-D grid, whatever is asked)",
    );
    edits.track(
        ui.add(
            egui::Slider::new(&mut p.cfl, 0.05..=1.0)
                .max_decimals(2)
                .clamping(egui::SliderClamping::Edits),
        )
        .labelled_by(cfl.id),
        "CFL",
    );
    ui.end_row();

    ui.label("Gravity")
        .on_hover_text("Gravitational acceleration: 9.81 m/s² on Earth");
    edits.track(
        ui.add(
            crate::app::number(&mut p.gravity)
                .range(spillway::level::ranges::GRAVITY)
                .speed(0.01)
                .max_decimals(2)
                .suffix(" m/s²"),
        ),
        "gravity",
    );
    ui.end_row();

    ui.label("Rain")
        .on_hover_text("Rain over the whole level: 2 mm/h is a drizzle, 50 mm/h a cloudburst");
    edits.track(
        ui.add(
            crate::app::number(&mut p.rain_mm_per_hour)
                .range(0.0..=10000.0)
                .speed(0.5)
                .max_decimals(1)
                .suffix(" mm/h"),
        ),
        "rain",
    );
    ui.end_row();

    default_edge(ui, &mut p.default_boundary, edits);
}

fn friction(ui: &mut Ui, f: &mut Friction, edits: &mut Edits) {
    ui.label("Friction").on_hover_text(
        "How the bed slows the water. Manning's n (s/m^⅓) sets how fast a river of a given depth \
         runs on a given slope: u = h^⅔·S^½ / n",
    );
    ui.vertical(|ui| {
        ui.horizontal_wrapped(|ui| {
            let laws = [
                (
                    "Manning",
                    matches!(f, Friction::Manning { .. }),
                    Friction::Manning {
                        n: DEFAULT_MANNING_N,
                    },
                    "Manning's law: deep water runs faster than thin films (rivers, floods); \
                     the Roughness tool paints n per cell",
                ),
                (
                    "Chézy",
                    matches!(f, Friction::Chezy { .. }),
                    Friction::Chezy { c: 40.0 },
                    "Chézy's law, k = 1/(C²·h) (Dressler's dam break)",
                ),
                (
                    "Linear",
                    matches!(f, Friction::Linear { .. }),
                    Friction::Linear { per_second: 0.02 },
                    "One decay rate per second, the same at every depth (older levels)",
                ),
            ];
            for (name, selected, default, tip) in laws {
                let r = ui.selectable_label(selected, name).on_hover_text(tip);
                if r.clicked() && !selected {
                    *f = default;
                }
                edits.track(r, "friction law");
            }
        });
        let r = match f {
            Friction::Manning { n } => ui
                .add(
                    crate::app::number(n)
                        .range(0.0..=1.0)
                        .speed(0.001)
                        .max_decimals(3)
                        .prefix("n = "),
                )
                .on_hover_text(
                    "Level-wide Manning's n: concrete 0.013, gravel bed 0.03, grass 0.035, \
                     brush 0.07, forest floodplain 0.1 (a painted roughness grid overrides it)",
                ),
            Friction::Chezy { c } => ui
                .add(
                    crate::app::number(c)
                        .range(1.0..=10000.0)
                        .speed(0.5)
                        .max_decimals(1)
                        .prefix("C = ")
                        .suffix(" m^½/s"),
                )
                .on_hover_text("Chézy's C: larger is smoother"),
            Friction::Linear { per_second } => ui
                .add(
                    crate::app::number(per_second)
                        .range(0.0..=0.999)
                        .speed(0.001)
                        .max_decimals(3)
                        .suffix(" /s"),
                )
                .on_hover_text("Share of the flow lost per second"),
        };
        edits.track(r, "friction");
    });
    ui.end_row();
}

fn default_edge(ui: &mut Ui, kind: &mut BoundaryKind, edits: &mut Edits) {
    ui.label("Edges").on_hover_text(
        "What the edge cells that no painted boundary covers do (paint others with the \
         Boundary tool)",
    );
    ui.vertical(|ui| {
        ui.horizontal_wrapped(|ui| {
            let surface = match kind {
                BoundaryKind::FixedLevel { surface } => *surface,
                _ => 0.0,
            };
            let options = [
                (BoundaryKind::Wall, "Walls", "No water passes the edges"),
                (
                    BoundaryKind::Open,
                    "Open edges",
                    "Waves and rivers leave freely",
                ),
                (
                    BoundaryKind::FixedLevel { surface },
                    "Outside level",
                    "The water outside stands at a fixed height (a sea, a lake)",
                ),
            ];
            for (option, name, tip) in options {
                let selected = std::mem::discriminant(kind) == std::mem::discriminant(&option);
                let r = ui.selectable_label(selected, name).on_hover_text(tip);
                if r.clicked() && !selected {
                    *kind = option;
                }
                edits.track(r, "default edge");
            }
        });
        if let BoundaryKind::FixedLevel { surface } = kind {
            let r = ui
                .add(
                    crate::app::number(surface)
                        .range(spillway::level::ranges::HEIGHTS)
                        .speed(0.05)
                        .max_decimals(2)
                        .prefix("surface ")
                        .suffix(" m"),
                )
                .on_hover_text("Surface height of the water outside the edges");
            edits.track(r, "edge level");
        }
    });
    ui.end_row();
}
