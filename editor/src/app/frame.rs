//! The editor's frame, stage by stage, as [`EditorApp`]'s `ui` runs it. Data flows one way:
//!
//! 1. **input**: window events, dropped files and shortcuts become [`Action`]s ([`EditorApp::input`]);
//! 2. **actions**: each is carried out; menus, panels and buttons request theirs, from the same
//!    vocabulary, as they are drawn;
//! 3. **document**: gestures over the viewport (strokes, drags, clicks) become commands on the
//!    document ([`super::viewport_panel::ViewportPanel::gestures`]);
//! 4. **changes**: the document's changes since the last frame are taken, once;
//! 5. **preview**: they reach the live water, which runs for the frame's time
//!    ([`EditorApp::simulate`]); a lost GPU saves a recovery copy here;
//! 6. **renderer**: they are uploaded, with the water and the bodies, and the level is drawn
//!    offscreen ([`EditorApp::render`]);
//! 7. **paint**: the image is shown with the overlays egui draws over it
//!    ([`super::viewport_panel::ViewportPanel::paint`]).

use spillway_render::{TerrainRenderer, WaterOverlay, WaterStyle};

use super::EditorApp;
use super::actions::Action;
use super::analysis::TerrainAnalysis;
use super::shortcuts;
use super::viewport_panel::{Overlaid, ViewportImage};
use crate::document::Changes;
use crate::preview::GroundChange;
use crate::tools::Tool;

impl EditorApp {
    /// Stage 1: what the window, the dropped files and the keyboard ask for this frame.
    pub(super) fn input(&mut self, ctx: &egui::Context) -> Vec<Action> {
        self.handle_close_request(ctx);
        let mut actions = shortcuts::actions(self, ctx);
        actions.extend(self.dropped_file_action(ctx));
        actions
    }

    /// Stages 3 to 7, in the viewport's place in the window. Returns a notice for the status
    /// bar, if a gesture made one.
    pub(super) fn viewport_stages(
        &mut self,
        ui: &mut egui::Ui,
        frame: &eframe::Frame,
    ) -> Option<String> {
        let mut notice = self.viewport.gestures(
            ui,
            &mut self.document,
            &mut self.sculpt,
            &mut self.authoring,
            &mut self.bodies,
            &mut self.preview,
        );
        if let Some(refused) = self.document.take_refused() {
            // In place of the gesture's own notice ("Added …"): an edit taken back.
            self.notify(refused, true);
            notice = None;
        }
        let changes = self.document.take_changes();
        let whole = changes.whole || changes.state;
        if whole || changes.terrain.is_some() || changes.water.is_some() || changes.features {
            // The ground or the water changed: the marked leaks may be wrong now.
            self.authoring.leaks.clear();
        }
        let reshaped = whole || changes.terrain.is_some();
        self.authoring.check_spill(&self.document, reshaped);
        let stroking = self.sculpt.stroke.is_some();
        (self.viewport).track_range(self.document.level(), &changes, stroking);
        if whole || changes.terrain.is_some() {
            self.analysis.terrain_changed();
        }
        let level = self.document.level();
        if (self.analysis).update(&level.terrain, level.cell_size, stroking) {
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(30));
        }
        self.simulate(ui, frame, &changes);
        let rendered = frame
            .wgpu_render_state()
            .map(|rs| (rs, self.render(ui, rs, &changes)));
        // Read once the renderer has submitted the frame's steps: the clock already counts
        // them (read before, a gauge plotted the water a frame's steps older than its time).
        (self.preview).record_gauges(&self.document.level().gauges);
        let preview = &self.preview;
        let run = (
            preview.is_live(),
            preview.playing,
            preview.clock(),
            preview.maps_since(),
        );
        (self.analysis).refresh_maps(run, |kind| preview.map(kind));
        let image = match (rendered, self.renderer.as_ref()) {
            (Some(_), Some(r)) if r.error().is_some() => {
                ViewportImage::Refused(r.error().expect("checked"))
            }
            (Some((render_state, recreated)), Some(r)) => match r.target() {
                Some(target) => ViewportImage::Drawn {
                    render_state,
                    colour: target.colour_view(),
                    recreated,
                },
                None => ViewportImage::None,
            },
            _ => ViewportImage::None,
        };
        let overlaid = Overlaid {
            document: &self.document,
            sculpt: &self.sculpt,
            authoring: &self.authoring,
            bodies: &self.bodies,
            preview: &self.preview,
            legend: self.analysis.legend.as_deref(),
            water_legend: self.water_legend(),
            erosion_region: self.erosion.region,
        };
        self.viewport.paint(ui, image, overlaid);
        notice
    }

    /// Stage 5: the document's `changes` and its bodies reach the live water, which runs for
    /// this frame's time; the steps it records are handed to the renderer, to be submitted
    /// with the frame that draws them.
    fn simulate(&mut self, ui: &egui::Ui, frame: &eframe::Frame, changes: &Changes) {
        let (document, bodies) = (&self.document, &mut self.bodies);
        self.preview.sync_bodies(&document.level().bodies, |body| {
            let mesh = bodies.mesh_of(document, body).ok()?;
            Some(std::sync::Arc::new(mesh.mesh.clone()))
        });
        if let Some(rs) = frame.wgpu_render_state() {
            let level = self.document.level();
            let preview = &mut self.preview;
            preview.sync(level, changes);
            // A reset there (a new state, a new size) dropped the bodies handed over: they go
            // back before the water starts (it ran a frame without them, and took their coming
            // back for an edit of the run).
            let bodies = &mut self.bodies;
            preview.sync_bodies(&level.bodies, |body| {
                let mesh = bodies.mesh_of(&self.document, body).ok()?;
                Some(std::sync::Arc::new(mesh.mesh.clone()))
            });
            let cs = level.cell_size;
            let probe = (self.viewport.hover)
                .map(|p| ((p.x / cs).floor(), (p.y / cs).floor()))
                .filter(|&(x, y)| x >= 0.0 && y >= 0.0)
                .map(|(x, y)| (x as usize, y as usize));
            let dt = ui.input(|i| i.stable_dt);
            if preview.frame(level, &rs.device, &rs.queue, dt, probe) {
                ui.ctx().request_repaint();
            } else if preview.is_live() && preview.awaiting_readbacks() {
                // Read-backs (figures, the probe) arrive a frame or two later.
                ui.ctx()
                    .request_repaint_after(std::time::Duration::from_millis(100));
            }
            if let Some(renderer) = self.renderer.as_mut() {
                let time = ui.input(|i| i.time) as f32;
                let style = WaterStyle {
                    overlay: self.viewport.water_overlay,
                    time,
                    depth_scale: (preview.stats.as_ref()).map_or(2.0, |s| s.max_depth.max(0.5)),
                    speed_scale: 3.0,
                    blend: preview.blend(),
                    quality: self.viewport.water_quality,
                };
                // A map of the run is read on the ground: the water would hide it.
                let map_shown = matches!(self.analysis.shown, TerrainAnalysis::Map(_));
                let water = preview.water().filter(|_| !map_shown);
                renderer.set_water(water.map(|w| (w, style)));
                renderer.submit_with_frame(preview.take_commands());
            }
            preview.flush();
        }
        if self.preview.take_gpu_lost_news() {
            // Nothing of the user's work may hang on a device that just failed.
            match self.autosave_now() {
                Ok(path) => self.notify(
                    format!("GPU lost: saved a recovery copy to {}", path.display()),
                    true,
                ),
                Err(e) => self.notify(format!("GPU lost, and the recovery copy failed: {e}"), true),
            }
        }
    }

    /// Stage 6: the renderer uploads the `changes` and draws the frame offscreen: the terrain,
    /// the bodies where the water moved them, the live water. Returns whether the colour
    /// texture was recreated (the renderer's `error` says why a level cannot be drawn).
    fn render(&mut self, ui: &egui::Ui, rs: &egui_wgpu::RenderState, changes: &Changes) -> bool {
        let body_tool = self.sculpt.tool == Tool::Body || self.bodies.busy();
        let level = self.document.level();
        let mut scene = (self.viewport).scene(ui.ctx().pixels_per_point(), level, &self.sculpt);
        scene.overlays.roughness |= self.sculpt.tool == Tool::Roughness;
        let simulated = self.preview.body_poses();
        let (instances, meshes) =
            (self.bodies).render_input(&self.document, simulated.as_deref(), body_tool);
        let first_frame = self.renderer.is_none();
        let renderer = self
            .renderer
            .get_or_insert_with(|| TerrainRenderer::new(&rs.device, &rs.queue));
        let ids: Vec<spillway_render::MeshId> = meshes
            .iter()
            .map(|m| spillway_render::MeshId(m.id.0))
            .collect();
        for (m, &id) in meshes.iter().zip(&ids) {
            if !renderer.has_body_mesh(id) {
                renderer.upload_body_mesh(id, &m.mesh);
            }
        }
        // A file parsed again (changed on disk) is a new mesh: the old one goes; those the
        // cache still holds stay (a deleted body's, the placement ghost's), for coming back.
        let held: Vec<spillway_render::MeshId> = (self.bodies.cache.ids().into_iter())
            .map(|id| spillway_render::MeshId(id.0))
            .collect();
        renderer.keep_body_meshes(&held);
        renderer.set_bodies(&instances);
        // No larger than the device draws (a viewport wider than its texture limit failed
        // validation), at the panel's aspect; the image is shown scaled up to the panel.
        let most = u32::try_from(renderer.max_side()).unwrap_or(u32::MAX);
        scene.size = spillway_render::Scene::image_size(scene.size.map(|s| s as f32), most);
        if first_frame {
            ui.ctx().request_repaint();
        }
        let level = self.document.level();
        let dirty = spillway_render::Dirty {
            // A finished stroke or an undo may have lowered the highest ground.
            rescan_range: self.sculpt.stroke.is_none(),
            ..changes.dirty()
        };
        renderer.sync(level, &dirty);
        // The ground the running water moves (a breach's cut, a moving bed) is drawn as it
        // is: the water in a breach was drawn under the whole dam.
        match self.preview.take_ground_change() {
            Some(GroundChange::Running(shown, rect)) => {
                renderer.sync(shown, &spillway_render::Dirty::terrain(rect));
            }
            Some(GroundChange::Authored) => {
                renderer.sync(level, &spillway_render::Dirty::everything())
            }
            None => {}
        }
        // An Erode run under way shows the terrain it has made so far.
        if let Some(shown) = super::erode_menu::erosion_so_far(&mut self.file_task) {
            let all = spillway::CellRect::whole(shown.nx(), shown.ny());
            let terrain = spillway_render::Dirty {
                terrain: Some(all),
                ..Default::default()
            };
            renderer.sync(shown, &terrain);
        }
        super::timeline_panel::update_reference(self);
        let Some(renderer) = self.renderer.as_mut() else {
            return false;
        };
        let level = self.document.level();
        scene.overlays.cells = self.analysis.prepare(renderer);
        if matches!(self.analysis.shown, TerrainAnalysis::Map(_)) {
            scene.overlays.water = false;
        }
        renderer.set_quad_pixels(self.viewport.water_quality.quad_pixels());
        renderer.error().is_none() && renderer.render(level, &scene)
    }
}

impl EditorApp {
    /// Terrain cells the viewport has uploaded to the GPU since its textures were made.
    pub fn terrain_cells_drawn(&self) -> u64 {
        (self.renderer.as_ref())
            .and_then(|r| r.terrain())
            .map_or(0, |t| t.uploaded_cells())
    }

    /// The key drawn in the viewport's corner for the live water's overlay (its units), if
    /// one is drawn.
    pub fn water_key(&self) -> Option<String> {
        self.water_legend().map(|(t, _)| t)
    }

    /// The key of the live water's overlay, and whether it has a colour ramp.
    fn water_legend(&self) -> Option<(String, bool)> {
        let depth = (self.preview.stats.as_ref()).map_or(2.0, |s| s.max_depth.max(0.5));
        // The Change overlay against a branch compared with (Branches ▸ Compare).
        let against = (self.timeline_view.compared).and_then(|(b, t)| {
            let branch = self.preview.timeline.branches.get(b)?;
            Some(format!("{} at {t:.1} s", branch.name))
        });
        let live = self.preview.is_live();
        water_legend(self.viewport.water_overlay, live, depth, against.as_deref())
    }
}

/// The key of the live water's overlay, with units: its text and whether the depth/speed colour
/// ramp goes with it. `depth` is the depth at the top of the depth ramp (as the renderer draws
/// it), metres; the speed ramp tops out at 3 m/s.
fn water_legend(
    overlay: WaterOverlay,
    live: bool,
    depth: f32,
    against: Option<&str>,
) -> Option<(String, bool)> {
    if !live {
        return None;
    }
    let third = |top: f32, k: f32| top * k / 3.0;
    match overlay {
        WaterOverlay::None => None,
        WaterOverlay::Depth => Some((
            format!(
                "Depth: 0 m, {:.2} m, {:.2} m, {:.2} m and deeper",
                third(depth, 1.0),
                third(depth, 2.0),
                depth
            ),
            true,
        )),
        WaterOverlay::Velocity => Some((
            "Speed: 0, 1, 2, 3 m/s and faster; streaks move with the flow".into(),
            true,
        )),
        WaterOverlay::Flooded => Some(("Flooded: red wherever there is water".into(), false)),
        WaterOverlay::Difference => Some((
            format!(
                "Change from {}: red deeper, blue shallower, full colour at {:.2} m",
                against.unwrap_or("the authored water"),
                depth * 0.25
            ),
            false,
        )),
    }
}

impl EditorApp {
    /// The terrain heights the viewport's colours span (lowest, highest), once the renderer
    /// has the level.
    pub fn drawn_height_range(&self) -> Option<(f32, f32)> {
        let renderer = self.renderer.as_ref()?;
        renderer.terrain().map(|t| t.range())
    }

    /// The most cells a side of a level the viewport can draw, once it has a renderer.
    pub fn max_drawn_side(&self) -> Option<usize> {
        self.renderer.as_ref().map(|r| r.max_side())
    }
}
