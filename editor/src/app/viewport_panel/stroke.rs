//! Brush strokes from the pointer: a press over the terrain starts one, a drag spreads its
//! dabs, a drag off the map paints to the edge and lifts the brush until it comes back, and
//! the release makes it one undoable step.

use super::ViewportPanel;
use crate::app::Sculpt;
use crate::document::Document;
use crate::tools::Stroke;

impl ViewportPanel {
    pub(super) fn stroke_input(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        document: &mut Document,
        sculpt: &mut Sculpt,
    ) {
        let (pressed, down, shift, dt) = ui.input(|i| {
            (
                i.pointer.primary_pressed(),
                i.pointer.primary_down(),
                i.modifiers.shift,
                i.stable_dt.min(0.25),
            )
        });
        if sculpt.stroke.is_none()
            && pressed
            && !self.camera_drag
            && response.hovered()
            && let Some(p) = self.hover
        {
            sculpt.stroke = Some(Stroke::begin(document, sculpt.tool, shift, p.x, p.y));
        }
        let Some(stroke) = &mut sculpt.stroke else {
            return;
        };
        stroke.set_invert(shift);
        if self.camera_drag {
            // The camera turning under a held brush painted a sweep the designer never saw
            // (the outline is hidden while the camera moves): the brush lifts, and goes on
            // where the pointer is once the camera stops.
            stroke.lift();
        } else if let Some(p) = self.hover {
            stroke.drag_to(document, &sculpt.brush, p.x, p.y, dt);
        } else {
            // Off the terrain: the stroke reaches the map's edge on the way, and starts again
            // where the cursor comes back.
            let pos = ui.input(|i| i.pointer.latest_pos());
            match pos.and_then(|pos| self.ground_plane(pos, stroke.start()[2])) {
                Some([x, y]) => stroke.leave(document, &sculpt.brush, x, y, dt),
                None => stroke.lift(),
            }
        }
        if down {
            ui.ctx().request_repaint();
        } else if let Some(stroke) = sculpt.stroke.take() {
            stroke.finish(document, &sculpt.brush);
        }
    }

    /// Where the ray under window point `pos` meets the level plane at `height` (world x, y),
    /// on or off the map.
    fn ground_plane(&self, pos: egui::Pos2, height: f32) -> Option<[f32; 2]> {
        let (x, y) = (pos.x - self.rect.min.x, pos.y - self.rect.min.y);
        let ray = (self.camera).ray(x, y, self.rect.width(), self.rect.height());
        ray.meet_height(height).map(|p| [p.x, p.y])
    }
}
