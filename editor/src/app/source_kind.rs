//! The kind fields of the source and sink inspector: a fixed rate, a target level with a
//! capacity, or a hydrograph (a rate that follows simulated time: a flood wave, a pump's
//! schedule), edited as a list of points with a plot of the curve.

use egui::Ui;
use egui_plot::{Line, Plot, PlotPoints};
use spillway::Level;
use spillway::level::{Schedule, Shape, SinkKind, SourceKind};

use super::water_panel::Busy;
use crate::tools::placement::centre;

/// What a source or sink does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    Rate,
    Level,
    Hydrograph,
}

/// A source's or sink's kind as plain values, so one set of fields edits both.
pub(super) struct KindValues {
    mode: Mode,
    /// The rate, or the capacity of a level kind, m³/s.
    m3_per_s: f32,
    /// The target surface, metres.
    surface: f32,
    /// The rate over time of a hydrograph.
    schedule: Schedule,
}

impl KindValues {
    /// Surface offered when switching to a level kind: 1 m above the ground at the centre.
    fn default_surface(level: &Level, shape: &Shape) -> f32 {
        let [x, y] = centre(shape);
        level
            .terrain
            .sample(x / level.cell_size, y / level.cell_size)
            + 1.0
    }

    /// Hydrograph offered when switching from a rate `q`: a flood wave from `q` up to four
    /// times `q` at 10 minutes and back at 30.
    fn default_schedule(q: f32) -> Schedule {
        let q = if q > 0.0 { q } else { 1.0 };
        Schedule {
            points: vec![[0.0, q], [600.0, 4.0 * q], [1800.0, q]],
            period: None,
        }
    }

    pub(super) fn of_source(kind: &SourceKind, level: &Level, shape: &Shape) -> Self {
        let surface = Self::default_surface(level, shape);
        match kind {
            SourceKind::Rate { m3_per_s } => Self {
                mode: Mode::Rate,
                m3_per_s: *m3_per_s,
                surface,
                schedule: Self::default_schedule(*m3_per_s),
            },
            SourceKind::Level {
                surface,
                max_m3_per_s,
            } => Self {
                mode: Mode::Level,
                m3_per_s: *max_m3_per_s,
                surface: *surface,
                schedule: Self::default_schedule(*max_m3_per_s),
            },
            SourceKind::Hydrograph(h) => Self {
                mode: Mode::Hydrograph,
                m3_per_s: h.points.first().map_or(1.0, |p| p[1]),
                surface,
                schedule: h.clone(),
            },
        }
    }

    pub(super) fn of_sink(kind: &SinkKind, level: &Level, shape: &Shape) -> Self {
        let as_source = match kind {
            SinkKind::Rate { m3_per_s } => SourceKind::Rate {
                m3_per_s: *m3_per_s,
            },
            SinkKind::Level {
                surface,
                max_m3_per_s,
            } => SourceKind::Level {
                surface: *surface,
                max_m3_per_s: *max_m3_per_s,
            },
            SinkKind::Hydrograph(h) => SourceKind::Hydrograph(h.clone()),
        };
        Self::of_source(&as_source, level, shape)
    }

    pub(super) fn source(&self) -> SourceKind {
        match self.mode {
            Mode::Level => SourceKind::Level {
                surface: self.surface,
                max_m3_per_s: self.m3_per_s,
            },
            Mode::Rate => SourceKind::Rate {
                m3_per_s: self.m3_per_s,
            },
            Mode::Hydrograph => SourceKind::Hydrograph(self.schedule.clone()),
        }
    }

    pub(super) fn sink(&self) -> SinkKind {
        match self.source() {
            SourceKind::Rate { m3_per_s } => SinkKind::Rate { m3_per_s },
            SourceKind::Level {
                surface,
                max_m3_per_s,
            } => SinkKind::Level {
                surface,
                max_m3_per_s,
            },
            SourceKind::Hydrograph(h) => SinkKind::Hydrograph(h),
        }
    }
}

/// The kind rows of the inspector's grid.
pub(super) fn kind_fields(
    ui: &mut Ui,
    busy: &mut Busy,
    v: &mut KindValues,
    verb: &str,
    level_verb: &str,
) {
    ui.label("Kind");
    // One under another, so the inspector keeps its width.
    ui.vertical(|ui| {
        busy.track(ui.selectable_value(&mut v.mode, Mode::Rate, "Rate"))
            .on_hover_text(format!("It {verb} a fixed volume per second"));
        busy.track(ui.selectable_value(&mut v.mode, Mode::Level, "Target level"))
            .on_hover_text(format!(
                "It {level_verb} a surface height, at most its capacity per second"
            ));
        busy.track(ui.selectable_value(&mut v.mode, Mode::Hydrograph, "Hydrograph"))
            .on_hover_text(format!(
                "It {verb} a volume per second that follows simulated time (a flood wave, a \
                 schedule): straight lines between the points"
            ));
    });
    ui.end_row();
    if v.mode == Mode::Hydrograph {
        schedule_fields(ui, busy, &mut v.schedule, &RATE);
        return;
    }
    if v.mode == Mode::Level {
        ui.label("Level");
        busy.track(
            ui.add(
                crate::app::number(&mut v.surface)
                    .range(spillway::level::ranges::HEIGHTS)
                    .max_decimals(2)
                    .speed(0.05)
                    .suffix(" m"),
            ),
        )
        .on_hover_text("The target water surface height");
        ui.end_row();
        ui.label("Capacity");
    } else {
        ui.label("Rate");
    }
    busy.track(
        ui.add(
            crate::app::number(&mut v.m3_per_s)
                .max_decimals(2)
                .range(0.0..=spillway::level::ranges::MAX_RATE)
                .speed(0.1)
                .suffix(" m³/s"),
        ),
    )
    .on_hover_text(if v.mode == Mode::Level {
        "The most water it moves per second while reaching the level"
    } else {
        "Cubic metres of water per second, spread over its area"
    });
    ui.end_row();
}

/// What a schedule's values are, for its editor.
pub(crate) struct ScheduleUnit {
    /// Suffix of the values.
    pub suffix: &'static str,
    /// Least value.
    pub min: f32,
    /// What a value means, for its tooltip.
    pub tip: &'static str,
    /// The plot's id.
    pub plot: &'static str,
}

/// A schedule of rates (hydrographs of sources, sinks and inflow edges).
pub(crate) const RATE: ScheduleUnit = ScheduleUnit {
    suffix: " m³/s",
    min: 0.0,
    tip: "Rate at that time",
    plot: "hydrograph",
};

/// A schedule of surface heights (tides).
pub(crate) const SURFACE: ScheduleUnit = ScheduleUnit {
    suffix: " m",
    min: -1.0e6,
    tip: "Surface height at that time",
    plot: "tide",
};

/// A schedule of gate openings.
pub(crate) const OPENING: ScheduleUnit = ScheduleUnit {
    suffix: " m",
    min: 0.0,
    tip: "Opening above the sill at that time",
    plot: "opening",
};

/// The points of a schedule (time, value), with add and remove, a repeat period and a plot.
pub(crate) fn schedule_fields(ui: &mut Ui, busy: &mut Busy, s: &mut Schedule, unit: &ScheduleUnit) {
    ui.label("Points");
    let mut remove = None;
    // A time being typed or dragged stays in its row until the edit ends: sorting at every
    // keystroke moved the next digit into another point's field.
    let mut timing = false;
    ui.vertical(|ui| {
        let n = s.points.len();
        for (i, p) in s.points.iter_mut().enumerate() {
            ui.horizontal(|ui| {
                let time = busy.track(
                    ui.add(
                        crate::app::number(&mut p[0])
                            .range(0.0..=1.0e7)
                            .speed(1.0)
                            .suffix(" s"),
                    ),
                );
                timing |= time.has_focus() || time.dragged();
                time.on_hover_text("Simulated time of the point, seconds");
                busy.track(
                    ui.add(
                        crate::app::number(&mut p[1])
                            .range(unit.min..=1.0e6)
                            .max_decimals(2)
                            .speed(0.1)
                            .suffix(unit.suffix),
                    ),
                )
                .on_hover_text(unit.tip);
                if n > 1
                    && busy
                        .track(ui.small_button("-"))
                        .on_hover_text("Remove this point")
                        .clicked()
                {
                    remove = Some(i);
                }
            });
        }
        if busy
            .track(ui.small_button("Add point"))
            .on_hover_text("A point a minute after the last, at its value")
            .clicked()
        {
            let last = s.points.last().copied().unwrap_or([0.0, 1.0]);
            s.points.push([last[0] + 60.0, last[1]]);
        }
    });
    ui.end_row();
    if let Some(i) = remove {
        s.points.remove(i);
    }
    // Times rise: sorted, and a point on another's time moved a tenth of a second on (once no
    // time is being edited).
    if !timing {
        crate::document::features::in_time_order(s);
    }
    ui.label("Repeat");
    ui.horizontal(|ui| {
        let mut repeat = s.period.is_some();
        let end = s.points.last().map_or(60.0, |p| p[0].max(1.0));
        if busy
            .track(ui.checkbox(&mut repeat, ""))
            .on_hover_text("Start over every period (a tide, a daily cycle)")
            .changed()
        {
            s.period = repeat.then_some(end);
        }
        if let Some(p) = s.period.as_mut() {
            busy.track(
                ui.add(
                    crate::app::number(p)
                        .range(0.1..=1.0e7)
                        .speed(1.0)
                        .suffix(" s"),
                ),
            )
            .on_hover_text("Length of one cycle, seconds");
        }
    });
    ui.end_row();
    ui.label("");
    let end = s
        .period
        .unwrap_or_else(|| s.points.last().map_or(60.0, |p| p[0]) * 1.2 + 1.0);
    let curve: PlotPoints = (0..=200)
        .map(|k| {
            let t = end as f64 * k as f64 / 200.0;
            [t, s.at(t) as f64]
        })
        .collect();
    Plot::new(unit.plot)
        .height(90.0)
        .width(160.0)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .x_axis_label("t (s)")
        .show(ui, |plot| plot.line(Line::new(unit.suffix.trim(), curve)));
    ui.end_row();
}
