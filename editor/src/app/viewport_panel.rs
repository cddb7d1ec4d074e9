//! The viewport panel, two stages of the editor's frame (`app/frame.rs`): [`ViewportPanel::gestures`]
//! turns pointer and keyboard input over the viewport into camera moves, brush strokes, water
//! authoring and body gestures (commands on the document); [`ViewportPanel::paint`] shows the
//! renderer's image as a native egui texture and draws the sources, sinks, boundaries, gizmo and
//! markers over it with egui's painter. Between them the app runs the water and the renderer.

use spillway::Level;

use super::Sculpt;
use super::authoring::{Authoring, Pointer};
use super::bodies::{Bodies, BodyPointer};
use super::water_overlay;
use crate::document::CellRect;
use crate::document::{Changes, Document};
use crate::preview::Preview;
use crate::tools::Tool;
use spillway_render::Bounds;
use spillway_render::math::Vec3;
use spillway_render::{BrushOutline, Camera, Overlays, Scene, WaterOverlay, pick};
use spillway_render::{level_bounds, terrain::value_range};

mod stroke;

/// Largest side of the offscreen image, pixels.
const MAX_IMAGE_SIDE: u32 = 8192;

/// What the renderer made of this frame, for [`ViewportPanel::paint`].
pub(crate) enum ViewportImage<'a> {
    /// No GPU renderer.
    None,
    /// The level cannot be drawn, and why.
    Refused(&'a spillway_render::RenderError),
    /// Drawn into `colour`, a texture recreated this frame if `recreated`.
    Drawn {
        /// egui's wgpu state, to show the texture.
        render_state: &'a egui_wgpu::RenderState,
        /// The colour target's view.
        colour: &'a wgpu::TextureView,
        /// Whether the target was recreated (its size changed).
        recreated: bool,
    },
}

/// The parts of the app the overlays show.
pub(crate) struct Overlaid<'a> {
    pub document: &'a Document,
    pub sculpt: &'a Sculpt,
    pub authoring: &'a Authoring,
    pub bodies: &'a Bodies,
    pub preview: &'a Preview,
    /// The analysis overlay's legend, if one is drawn.
    pub legend: Option<&'a str>,
    /// The live water overlay's key: its text with units, and whether the colour ramp goes with
    /// it.
    pub water_legend: Option<(String, bool)>,
    /// The box an Erode run is confined to (metres), outlined on the map.
    pub erosion_region: Option<[f32; 4]>,
}

/// The viewport's state between frames.
pub(crate) struct ViewportPanel {
    pub camera: Camera,
    pub overlays: Overlays,
    /// How the live water is coloured.
    pub water_overlay: WaterOverlay,
    /// How much of the water's look is drawn (View menu).
    pub water_quality: spillway_render::WaterQuality,
    /// Where the viewport was laid out in the last frame (points).
    pub rect: egui::Rect,
    /// The terrain point under the cursor.
    pub hover: Option<Vec3>,
    /// The terrain point last under the cursor, kept once it leaves the viewport (for the
    /// inspector's "Use height under cursor").
    pub last_hover: Option<Vec3>,
    /// Lowest and highest terrain height (exact after each edit ends).
    pub z_range: (f32, f32),
    texture: Option<egui::TextureId>,
    /// A right or middle drag that started in the viewport is moving the camera.
    camera_drag: bool,
    /// WASD was used during this right-button hold: the mouse looks around the eye.
    flying: bool,
    frame_pending: bool,
    /// What the pending frame frames (`None`: the level).
    frame_target: Option<Bounds>,
    reset_pending: bool,
}

impl Default for ViewportPanel {
    fn default() -> Self {
        Self {
            camera: Camera::default(),
            overlays: Overlays::default(),
            water_overlay: WaterOverlay::default(),
            water_quality: spillway_render::WaterQuality::default(),
            rect: egui::Rect::NOTHING,
            hover: None,
            last_hover: None,
            z_range: (0.0, 1.0),
            texture: None,
            camera_drag: false,
            flying: false,
            frame_pending: false,
            frame_target: None,
            reset_pending: true,
        }
    }
}

/// Lowest and highest terrain height of the whole level.
fn full_range(level: &Level) -> (f32, f32) {
    value_range(&level.terrain, &CellRect::whole(level.nx(), level.ny())).unwrap_or((0.0, 1.0))
}

impl ViewportPanel {
    /// A new document is open: look at it afresh.
    pub fn document_replaced(&mut self) {
        self.reset_pending = true;
        (self.hover, self.last_hover) = (None, None);
    }

    /// Frames `target` (world bounds; `None`: the level) at the start of the next frame.
    pub fn frame_on_next_frame(&mut self, target: Option<Bounds>) {
        self.frame_pending = true;
        self.frame_target = target;
    }

    /// Resets the view at the start of the next frame.
    pub fn reset_on_next_frame(&mut self) {
        self.reset_pending = true;
    }

    /// The terrain point under window position `pos`.
    pub fn pick(&self, document: &Document, pos: egui::Pos2) -> Option<Vec3> {
        if !self.rect.contains(pos) {
            return None;
        }
        let ray = self.camera.ray(
            pos.x - self.rect.min.x,
            pos.y - self.rect.min.y,
            self.rect.width(),
            self.rect.height(),
        );
        let level = document.level();
        pick::pick(&level.terrain, level.cell_size, self.z_range, &ray)
    }

    /// Where world point `p` appears in the window (points), as laid out in the last frame.
    pub fn project(&self, level: &Level, p: Vec3) -> Option<egui::Pos2> {
        let bounds = level_bounds(level, self.z_range);
        let [x, y] = self
            .camera
            .to_screen(p, self.rect.width(), self.rect.height(), &bounds)?;
        Some(self.rect.min + egui::vec2(x, y))
    }

    /// Stage 3 of the frame: lays out the viewport and turns this frame's input over it into
    /// camera moves and commands on `document` (a stroke, a drag, a click, a body knocked in
    /// the running water). Returns a notice for the status bar, if any.
    // Each argument is a separate part of the app's state that a gesture may change.
    #[allow(clippy::too_many_arguments)]
    pub fn gestures(
        &mut self,
        ui: &mut egui::Ui,
        document: &mut Document,
        sculpt: &mut Sculpt,
        authoring: &mut Authoring,
        bodies: &mut Bodies,
        preview: &mut Preview,
    ) -> Option<String> {
        let rect = ui.available_rect_before_wrap();
        let response = ui.allocate_rect(rect, egui::Sense::click_and_drag());
        self.rect = rect;
        if self.reset_pending || self.frame_pending {
            self.z_range = full_range(document.level());
            let bounds = level_bounds(document.level(), self.z_range);
            let aspect = rect.width().max(1.0) / rect.height().max(1.0);
            if self.reset_pending {
                self.camera.reset(&bounds, aspect);
            } else {
                let target = self.frame_target.take().unwrap_or(bounds);
                self.camera.frame(&target, aspect);
            }
            self.reset_pending = false;
            self.frame_pending = false;
        }
        self.camera_input(ui, &response, document.level());
        self.hover = ui
            .input(|i| i.pointer.latest_pos())
            .filter(|_| {
                response.contains_pointer()
                    || sculpt.stroke.is_some()
                    || authoring.busy()
                    || bodies.busy()
            })
            .and_then(|p| self.pick(document, p));
        self.last_hover = self.hover.or(self.last_hover);
        // A water tool's drag ends where it began, whatever tool a key chose meanwhile.
        let body_tool = (sculpt.tool == Tool::Body && !authoring.busy()) || bodies.busy();
        let knocked = if body_tool && preview.is_live() {
            self.knock(ui, &response, document, bodies, preview)
        } else {
            None
        };
        if knocked.is_some() {
            knocked
        } else if sculpt.stroke.is_none() && body_tool {
            let poses = preview.body_poses();
            self.body_input(ui, &response, document, bodies, poses)
        } else if sculpt.stroke.is_none() && (authoring.busy() || !sculpt.tool.paints()) {
            self.authoring_input(ui, &response, document, sculpt.tool, authoring, bodies)
        } else {
            self.stroke_input(ui, &response, document, sculpt);
            None
        }
    }

    /// Stage 7 of the frame: shows the renderer's image (`None`: no GPU renderer, or `why` the
    /// level cannot be drawn) and paints the authoring overlays, the gizmo and the markers.
    pub fn paint(&mut self, ui: &egui::Ui, image: ViewportImage<'_>, app: Overlaid<'_>) {
        let rect = self.rect;
        let painter = ui.painter_at(rect);
        match image {
            ViewportImage::None => {
                painter.rect_filled(rect, 0.0, egui::Color32::from_gray(30));
                painter.text(
                    rect.center(),
                    egui::Align2::CENTER_CENTER,
                    "No GPU renderer: the 3D view is not drawn",
                    egui::FontId::proportional(14.0),
                    egui::Color32::LIGHT_RED,
                );
                return;
            }
            ViewportImage::Refused(why) => {
                painter.rect_filled(rect, 0.0, egui::Color32::from_gray(30));
                painter.text(
                    rect.center(),
                    egui::Align2::CENTER_CENTER,
                    why.to_string(),
                    egui::FontId::proportional(14.0),
                    egui::Color32::LIGHT_RED,
                );
                return;
            }
            ViewportImage::Drawn {
                render_state,
                colour,
                recreated,
            } => {
                let mut egui_renderer = render_state.renderer.write();
                match self.texture {
                    Some(id) if recreated => egui_renderer.update_egui_texture_from_wgpu_texture(
                        &render_state.device,
                        colour,
                        wgpu::FilterMode::Linear,
                        id,
                    ),
                    Some(_) => {}
                    None => {
                        self.texture = Some(egui_renderer.register_native_texture(
                            &render_state.device,
                            colour,
                            wgpu::FilterMode::Linear,
                        ));
                    }
                }
            }
        }
        if let Some(id) = self.texture {
            let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
            painter.image(id, rect, uv, egui::Color32::WHITE);
        }
        let level = app.document.level();
        let bounds = level_bounds(level, self.z_range);
        let view = water_overlay::View::new(&self.camera, rect, &bounds);
        let tool = app.sculpt.tool;
        water_overlay::draw(&painter, &view, level, tool, app.authoring, self.hover);
        let series = app.preview.gauge_series();
        super::gauge_overlay::draw(&painter, &view, level, tool, app.authoring, series);
        super::structure_overlay::draw(&painter, &view, level, tool, app.authoring);
        if (tool == Tool::Body || app.bodies.busy())
            && let Some(g) = &app.bodies.gizmo
        {
            g.paint(&painter, app.bodies.hover_handle);
        }
        if let Some(cell) = app.preview.halt.as_ref().and_then(|h| h.cell) {
            water_overlay::halt_marker(&painter, &view, level, cell);
        }
        if let (Tool::FillBasin, Some(spill)) = (tool, &app.authoring.last_spill) {
            water_overlay::spill_marker(&painter, &view, level, spill);
        }
        for leak in &app.authoring.leaks {
            water_overlay::leak_marker(&painter, &view, level, leak);
        }
        if let Some(r) = app.erosion_region {
            water_overlay::erosion_region(&painter, &view, level, r);
        }
        self.overlay_text(ui, rect, app.sculpt, app.authoring, app.bodies);
        let water = app.water_legend.as_ref();
        if let Some(legend) = app.legend.or(water.map(|(t, _)| t.as_str())) {
            let at = rect.left_bottom() + egui::vec2(10.0, -10.0);
            let font = egui::FontId::proportional(13.0);
            let galley = painter.layout_no_wrap(legend.into(), font, egui::Color32::WHITE);
            let back =
                egui::Rect::from_min_size(at - egui::vec2(0.0, galley.size().y), galley.size())
                    .expand(4.0);
            painter.rect_filled(back, 3.0, egui::Color32::from_black_alpha(170));
            painter.galley(
                back.min + egui::vec2(4.0, 4.0),
                galley,
                egui::Color32::WHITE,
            );
            if app.legend.is_none() && water.is_some_and(|(_, ramp)| *ramp) {
                let bar = egui::Rect::from_min_size(
                    back.left_top() - egui::vec2(0.0, 16.0),
                    egui::vec2(back.width().min(240.0), 12.0),
                );
                water_overlay::ramp_bar(&painter, bar);
            }
        }
    }

    fn authoring_input(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        document: &mut Document,
        tool: crate::tools::Tool,
        authoring: &mut Authoring,
        bodies: &mut Bodies,
    ) -> Option<String> {
        let (pressed, down) = ui.input(|i| (i.pointer.primary_pressed(), i.pointer.primary_down()));
        let pointer = Pointer {
            pressed: pressed && !self.camera_drag && response.hovered(),
            down,
            hover: self.hover,
        };
        // A fill to the spill level treats the blocking bodies on the ground as walls.
        let walls = (pointer.pressed && tool == Tool::FillBasin).then(|| bodies.walls(document));
        let notice = authoring.viewport_input(tool, document, &pointer, walls);
        if authoring.busy() {
            ui.ctx().request_repaint();
        }
        notice
    }

    /// Shift+click on a body while the preview runs knocks it ([`Bodies::knock`]).
    fn knock(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        document: &Document,
        bodies: &mut Bodies,
        preview: &mut Preview,
    ) -> Option<String> {
        let (pressed, shift, pos) = ui.input(|i| {
            (
                i.pointer.primary_pressed(),
                i.modifiers.shift,
                i.pointer.latest_pos(),
            )
        });
        let p = pos.filter(|_| pressed && shift && response.hovered())?;
        let ray = self.camera.ray(
            p.x - self.rect.min.x,
            p.y - self.rect.min.y,
            self.rect.width(),
            self.rect.height(),
        );
        bodies.knock(document, &ray, preview)
    }

    fn body_input(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        document: &mut Document,
        bodies: &mut Bodies,
        poses: Option<Vec<spillway::body::Pose>>,
    ) -> Option<String> {
        let (pressed, down, latest) = ui.input(|i| {
            (
                i.pointer.primary_pressed(),
                i.pointer.primary_down(),
                i.pointer.latest_pos(),
            )
        });
        let pos = latest.filter(|p| self.rect.contains(*p) || bodies.busy());
        let ray = pos.map(|p| {
            self.camera.ray(
                p.x - self.rect.min.x,
                p.y - self.rect.min.y,
                self.rect.width(),
                self.rect.height(),
            )
        });
        let pointer = BodyPointer {
            pressed: pressed && !self.camera_drag && response.hovered(),
            down,
            pos,
            ray,
            hover: self.hover.filter(|_| response.contains_pointer()),
            poses,
        };
        let bounds = level_bounds(document.level(), self.z_range);
        let view = water_overlay::View::new(&self.camera, self.rect, &bounds);
        let notice = bodies.viewport_input(document, &pointer, &view, self.camera.eye());
        if bodies.busy() {
            ui.ctx().request_repaint();
        }
        notice
    }

    fn camera_input(&mut self, ui: &egui::Ui, response: &egui::Response, level: &Level) {
        let bounds = level_bounds(level, self.z_range);
        let (pressed, down, delta, shift, scroll, dt, keys) = ui.input(|i| {
            let p = &i.pointer;
            let pressed = p.button_pressed(egui::PointerButton::Secondary)
                || p.button_pressed(egui::PointerButton::Middle);
            let down = p.secondary_down() || p.middle_down();
            let key = |k| if i.key_down(k) { 1.0 } else { 0.0 };
            let keys = [
                key(egui::Key::W) - key(egui::Key::S),
                key(egui::Key::D) - key(egui::Key::A),
                key(egui::Key::E) - key(egui::Key::Q),
            ];
            (
                pressed,
                down,
                p.delta(),
                i.modifiers.shift,
                i.smooth_scroll_delta.y,
                i.stable_dt.min(0.25),
                keys,
            )
        });
        if pressed && response.contains_pointer() {
            self.camera_drag = true;
            self.flying = false;
        }
        if !down {
            self.camera_drag = false;
            self.flying = false;
        }
        if self.camera_drag {
            let secondary = ui.input(|i| i.pointer.secondary_down());
            if secondary && keys.iter().any(|k| *k != 0.0) && !ui.ctx().egui_wants_keyboard_input()
            {
                self.flying = true;
                self.camera.fly(keys[0], keys[1], keys[2], dt, shift);
            }
            if delta != egui::Vec2::ZERO {
                if shift && !self.flying {
                    self.camera.pan(delta.x, delta.y, self.rect.height());
                } else if self.flying {
                    self.camera.look(delta.x, delta.y);
                } else {
                    self.camera.orbit(delta.x, delta.y);
                }
            }
            ui.ctx().request_repaint();
        }
        if scroll != 0.0 && response.contains_pointer() {
            self.camera.zoom(scroll, &bounds);
        }
    }

    /// Widens the known height range by the terrain `changes` (exact again after a stroke).
    pub fn track_range(&mut self, level: &Level, changes: &Changes, stroking: bool) {
        if changes.whole || changes.state || (!stroking && changes.terrain.is_some()) {
            self.z_range = full_range(level);
        } else if let Some(rect) = changes.terrain
            && let Some((lo, hi)) = value_range(&level.terrain, &rect)
        {
            self.z_range = (self.z_range.0.min(lo), self.z_range.1.max(hi));
        }
    }

    /// What the renderer draws this frame: the camera, the overlays and the brush outline.
    pub fn scene(&self, ppp: f32, level: &Level, sculpt: &Sculpt) -> Scene {
        let rect = self.rect;
        let radius = sculpt.brush.effective_radius(level.cell_size);
        let core = radius * (1.0 - sculpt.brush.falloff.clamp(0.0, 1.0));
        let brush = match (&sculpt.stroke, self.hover) {
            (Some(s), hover) if s.tool() == Tool::Ramp => {
                let [x0, y0, _] = s.start();
                let to = hover.map_or(s.last(), |p| [p.x, p.y]);
                Some(BrushOutline {
                    from: [x0, y0],
                    to,
                    radius,
                    core,
                })
            }
            (_, Some(p)) if !self.camera_drag && sculpt.tool.paints() => Some(BrushOutline {
                from: [p.x, p.y],
                to: [p.x, p.y],
                radius,
                core,
            }),
            _ => None,
        };
        Scene {
            camera: self.camera,
            overlays: self.overlays.clone(),
            brush,
            size: Scene::image_size([rect.width() * ppp, rect.height() * ppp], MAX_IMAGE_SIDE),
        }
    }

    fn overlay_text(
        &self,
        ui: &egui::Ui,
        rect: egui::Rect,
        sculpt: &Sculpt,
        authoring: &Authoring,
        bodies: &Bodies,
    ) {
        let b = &sculpt.brush;
        let text = if sculpt.tool == Tool::Body {
            let chosen = bodies.chosen.as_ref().map_or_else(
                || "none".into(),
                |p| crate::tools::body::display_name(&p.to_string_lossy()),
            );
            format!(
                "Body: {chosen}   click: drop or select   gizmo: {}   Ctrl+D: duplicate   Delete: remove",
                bodies.mode.name().to_lowercase()
            )
        } else if sculpt.tool.paints() {
            format!(
                "{}   radius {:.1} m   strength {:.2}   falloff {:.2}",
                sculpt.tool.name(),
                b.radius,
                b.strength,
                b.falloff
            )
        } else {
            format!("{}   {}", sculpt.tool.name(), authoring.hint(sculpt.tool))
        };
        let painter = ui.painter_at(rect);
        let pos = rect.left_top() + egui::vec2(10.0, 8.0);
        let font = egui::FontId::proportional(13.0);
        painter.text(
            pos + egui::vec2(1.0, 1.0),
            egui::Align2::LEFT_TOP,
            &text,
            font.clone(),
            egui::Color32::from_black_alpha(160),
        );
        painter.text(
            pos,
            egui::Align2::LEFT_TOP,
            text,
            font,
            egui::Color32::from_gray(230),
        );
    }
}
