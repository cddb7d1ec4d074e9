//! The structures drawn over the viewport: a weir as an orange line, a sluice gate as a red
//! one, a breach as a magenta one, a culvert as a dashed brown line between two rings; each
//! named, and one being dragged out shown as it will be placed.

use egui::{Color32, Painter, Stroke};
use spillway::Level;
use spillway::level::{Structure, StructureKind};

use super::authoring::{Authoring, Gesture};
use super::water_overlay::View;
use crate::tools::Tool;
use crate::tools::structure::new_structure;

/// The colour of a structure kind.
fn colour(kind: &StructureKind) -> Color32 {
    match kind {
        StructureKind::Weir { .. } => Color32::from_rgb(255, 160, 40),
        StructureKind::SluiceGate { .. } => Color32::from_rgb(235, 70, 60),
        StructureKind::Culvert { .. } => Color32::from_rgb(190, 130, 80),
        StructureKind::Breach { .. } => Color32::from_rgb(255, 90, 200),
    }
}

/// Draws every structure of `level`, and the one being placed.
pub(crate) fn draw(
    painter: &Painter,
    view: &View,
    level: &Level,
    tool: Tool,
    authoring: &Authoring,
) {
    for (i, s) in level.structures.iter().enumerate() {
        let selected = tool == Tool::Structure && authoring.structure == Some(i);
        shape(painter, view, level, s, selected);
    }
    if let Some(Gesture::Structure(a, b)) = &authoring.gesture
        && let Some(s) = new_structure(level, authoring.structure_choice, *a, *b)
    {
        shape(painter, view, level, &s, true);
    }
}

fn shape(painter: &Painter, view: &View, level: &Level, s: &Structure, selected: bool) {
    let (from, to) = s.kind.ends();
    let (Some(a), Some(b)) = (
        view.ground(level, from[0], from[1]),
        view.ground(level, to[0], to[1]),
    ) else {
        return;
    };
    let c = colour(&s.kind);
    let width = if selected { 4.0 } else { 2.5 };
    match s.kind {
        StructureKind::Culvert { .. } => {
            let dashes = ((b - a).length() / 10.0).ceil().max(1.0) as usize;
            for k in (0..dashes).step_by(2) {
                let p = a + (b - a) * (k as f32 / dashes as f32);
                let q = a + (b - a) * (((k + 1) as f32 / dashes as f32).min(1.0));
                painter.line_segment([p, q], Stroke::new(width, c));
            }
            painter.circle_stroke(a, 5.0, Stroke::new(2.0, c));
            painter.circle_stroke(b, 5.0, Stroke::new(2.0, c));
        }
        _ => {
            painter.line_segment([a, b], Stroke::new(width + 1.0, c));
        }
    }
    // A culvert's name by its first end, so it does not cover a weir or gate it passes.
    let anchor = match s.kind {
        StructureKind::Culvert { .. } => a,
        _ => a + (b - a) * 0.5,
    };
    super::water_overlay::plated_text(
        painter,
        anchor + egui::vec2(6.0, -6.0),
        egui::Align2::LEFT_BOTTOM,
        &s.name,
        c,
    );
}
