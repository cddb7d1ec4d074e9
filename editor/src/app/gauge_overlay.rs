//! The gauges drawn over the viewport: a stage gauge as a pin, a discharge line as a line with
//! an arrow for its positive direction; each named, with its latest reading while the water
//! runs, and a line being dragged out shown as it will be placed.

use egui::{Painter, Stroke};
use spillway::Level;
use spillway::level::GaugeKind;

use super::authoring::{Authoring, Gesture};
use super::water_overlay::View;
use crate::preview::GaugeSeries;
use crate::tools::Tool;

/// Colour of gauges.
const GAUGE_COLOUR: egui::Color32 = egui::Color32::from_rgb(255, 220, 90);

/// Draws every gauge of `level`, with its latest value from `series`.
pub(crate) fn draw(
    painter: &Painter,
    view: &View,
    level: &Level,
    tool: Tool,
    authoring: &Authoring,
    series: &[GaugeSeries],
) {
    for (i, gauge) in level.gauges.iter().enumerate() {
        let selected = tool == Tool::Gauge && authoring.gauge == Some(i);
        // Its own series (kept in the gauges' order): two gauges of one name each read theirs.
        let latest = (series.get(i))
            .filter(|s| s.name == gauge.name)
            .and_then(|s| {
                s.points
                    .last()
                    .map(|p| format!(": {:.2} {}", unsigned_zero(p[1]), s.unit))
            })
            .unwrap_or_default();
        let label = format!("{}{latest}", gauge.name);
        shape(painter, view, level, &gauge.kind, &label, selected);
    }
    if let Some(Gesture::Gauge(a, b)) = &authoring.gesture {
        let kind = crate::tools::gauge::new_gauge(level, *a, *b).kind;
        shape(painter, view, level, &kind, "new gauge", true);
    }
}

fn shape(
    painter: &Painter,
    view: &View,
    level: &Level,
    kind: &GaugeKind,
    label: &str,
    selected: bool,
) {
    let width = if selected { 3.5 } else { 2.0 };
    let stroke = Stroke::new(width, GAUGE_COLOUR);
    let anchor = match *kind {
        GaugeKind::Stage { x, y } => {
            let Some(at) = view.ground(level, x, y) else {
                return;
            };
            let top = at - egui::vec2(0.0, 22.0);
            painter.line_segment([at, top], stroke);
            painter.circle_filled(top, if selected { 6.0 } else { 4.5 }, GAUGE_COLOUR);
            top
        }
        GaugeKind::Discharge { from, to } => {
            let (Some(a), Some(b)) = (
                view.ground(level, from[0], from[1]),
                view.ground(level, to[0], to[1]),
            ) else {
                return;
            };
            painter.line_segment([a, b], stroke);
            // The positive direction: the line turned a quarter anticlockwise as drawn.
            let mid = a + (b - a) * 0.5;
            let d = (b - a).normalized();
            let n = egui::vec2(d.y, -d.x);
            let tip = mid + n * 18.0;
            painter.line_segment([mid, tip], stroke);
            painter.line_segment([tip, tip - n * 6.0 + d * 5.0], stroke);
            painter.line_segment([tip, tip - n * 6.0 - d * 5.0], stroke);
            tip
        }
    };
    super::water_overlay::plated_text(
        painter,
        anchor + egui::vec2(8.0, -4.0),
        egui::Align2::LEFT_BOTTOM,
        label,
        GAUGE_COLOUR,
    );
}

/// `v`, with what would show as −0.00 (a line with no flow through it yet) shown as 0.00.
fn unsigned_zero(v: f64) -> f64 {
    if v.abs() < 0.005 { 0.0 } else { v }
}
