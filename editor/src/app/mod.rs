//! The editor window: an eframe app laid out as a menu bar, a tool panel, an inspector, a
//! status bar and the 3D viewport. Each frame runs one way, in the stages of `frame.rs`:
//! input → actions → document → changes → preview → renderer → paint.
//!
//! [`run`] opens the window; [`EditorApp`] is the app itself, which tests drive with
//! egui_kittest through [`EditorOptions`] that inject file dialogs and configuration paths.

mod finite;
pub(crate) use finite::number;
mod actions;
mod analysis;
mod authoring;
mod bake_panel;
mod bodies;
mod body_panel;
mod dialogs;
mod editing;
mod erode_menu;
mod error;
mod file_tasks;
mod frame;
mod framing;
mod gate_panel;
mod gauge_overlay;
mod gizmo;
mod level_panel;
mod menu;
mod panels;
mod preview_panel;
mod session;
mod shortcuts;
mod source_kind;
mod structure_overlay;
mod structure_panel;
mod timeline_panel;
mod viewport_panel;
mod water_overlay;
mod water_panel;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use spillway::Level;

use crate::document::{Document, History};
use crate::project::{ConfigPaths, FileDialogs, NativeDialogs, RecentFiles, Recovery, recovery};
use crate::tools::{Brush, Stroke, Tool};
use spillway_render::{Camera, Overlays};

pub use actions::Action;
pub use analysis::TerrainAnalysis;
pub use dialogs::Dialog;
pub use error::{EditorError, NewLevelError};
pub use file_tasks::BACKGROUND_BYTES;
pub use gizmo::{GizmoMode, Handle};
use viewport_panel::ViewportPanel;

/// The bundled sample project opened when no project is given.
pub const SAMPLE_PROJECT: &str = "projects/dam_break_valley/level.ron";

/// How the editor starts: what to open, and where it reads and writes per-user files.
pub struct EditorOptions {
    /// The level to open (`None`: an empty flat level).
    pub project: Option<PathBuf>,
    /// Per-user files (`None`: no recent list, no autosave).
    pub config: Option<ConfigPaths>,
    /// How the editor asks for file paths.
    pub dialogs: Box<dyn FileDialogs>,
    /// Time between autosaves of unsaved work.
    pub autosave_interval: Duration,
    /// Memory budget of the undo history, bytes.
    pub history_budget: usize,
    /// Grid bytes above which saving a level or importing or exporting a heightmap runs in the
    /// background with a progress window and Cancel.
    pub background_bytes: u64,
}

impl EditorOptions {
    /// Options for a user's session: native dialogs and the user's configuration folder.
    pub fn new(project: Option<PathBuf>) -> Self {
        Self {
            project,
            config: ConfigPaths::from_env(),
            dialogs: Box::new(NativeDialogs::default()),
            autosave_interval: recovery::DEFAULT_INTERVAL,
            history_budget: crate::document::history::DEFAULT_BUDGET_BYTES,
            background_bytes: file_tasks::BACKGROUND_BYTES,
        }
    }
}

/// The sculpting state: the active tool, its brush, and the stroke in progress.
pub(crate) struct Sculpt {
    pub tool: Tool,
    pub brush: Brush,
    pub stroke: Option<Stroke>,
}

/// A short message in the status bar.
pub(crate) struct Notice {
    pub text: String,
    pub error: bool,
    pub at: Instant,
}

/// The editor application.
pub struct EditorApp {
    pub(crate) document: Document,
    pub(crate) sculpt: Sculpt,
    pub(crate) authoring: authoring::Authoring,
    /// A save, import or export running in the background, if any.
    pub(crate) file_task: Option<file_tasks::FileTask>,
    /// The Erode terrain menu's settings.
    pub(crate) erosion: erode_menu::ErodeSettings,
    /// What to do once the background save finishes (the unsaved-changes question's action).
    pub(crate) after_save: Option<Action>,
    /// See [`EditorOptions::background_bytes`].
    pub(crate) background_bytes: u64,
    /// The bake running in the background, if any.
    pub(crate) bake: Option<crate::bake::BakeJob>,
    /// What the next bake is asked to do.
    pub(crate) bake_settings: crate::bake::BakeSettings,
    /// The renderer's GPU device and queue (for bakes), once a frame had them.
    pub(crate) gpu: Option<(wgpu::Device, wgpu::Queue)>,
    /// A level settings edit in progress.
    pub(crate) level_form: level_panel::LevelForm,
    /// The height range each heightmap was exported with, for importing it back.
    pub(crate) exported:
        std::collections::HashMap<PathBuf, crate::project::heightmap_io::HeightRange>,
    /// Rigid bodies: library, selection, gizmo.
    pub(crate) bodies: bodies::Bodies,
    pub(crate) viewport: ViewportPanel,
    /// The terrain analysis overlays and their background computation.
    pub(crate) analysis: analysis::Analysis,
    /// Draws the viewport's level, once a frame had a GPU.
    pub(crate) renderer: Option<spillway_render::TerrainRenderer>,
    /// The live water.
    pub(crate) preview: crate::preview::Preview,
    /// The timeline's view state (what the Change overlay compares with).
    pub(crate) timeline_view: timeline_panel::TimelineView,
    pub(crate) dialogs: Box<dyn FileDialogs>,
    pub(crate) recent: RecentFiles,
    pub(crate) recovery: Recovery,
    pub(crate) dialog: Option<Dialog>,
    pub(crate) notice: Option<Notice>,
    pub(crate) history_budget: usize,
    /// The user chose to close without saving.
    pub(crate) quit_confirmed: bool,
    /// Something changed outside the input that egui saw: draw another frame.
    pub(crate) repaint: bool,
    /// The window title last sent.
    pub(crate) title: String,
    /// Close the window at the end of this frame.
    pub(crate) close_now: bool,
    /// The window closes once the recovery copy being written is done.
    pub(crate) closing_after_autosave: bool,
    /// Smoothed time to build one frame and submit its rendering, seconds.
    pub(crate) frame_time: f32,
    /// Smoothed time between frames while the editor redraws continuously, seconds.
    pub(crate) frame_interval: f32,
}

impl EditorApp {
    /// An editor with `options`, rendering with the eframe creation context's wgpu state.
    pub fn new(_cc: &eframe::CreationContext<'_>, options: EditorOptions) -> Self {
        Self::with_options(options)
    }

    /// An editor with `options` (the renderer starts on the first frame that has a GPU).
    pub fn with_options(options: EditorOptions) -> Self {
        let recent = RecentFiles::load(options.config.as_ref().map(|c| c.recent_files.clone()));
        let recovery = Recovery::new(
            options.config.as_ref().map(|c| c.recovery_dir.clone()),
            options.autosave_interval,
        );
        let pending = recovery.pending();
        let mut app = Self {
            document: Document::with_history(
                Level::flat(128, 128, 1.0, 0.0),
                None,
                History::new(options.history_budget),
            ),
            sculpt: Sculpt {
                tool: Tool::Raise,
                brush: Brush::default(),
                stroke: None,
            },
            authoring: authoring::Authoring::default(),
            level_form: level_panel::LevelForm::default(),
            exported: Default::default(),
            file_task: None,
            erosion: erode_menu::ErodeSettings::default(),
            after_save: None,
            background_bytes: options.background_bytes,
            bake: None,
            bake_settings: crate::bake::BakeSettings::default(),
            gpu: None,
            bodies: bodies::Bodies::default(),
            viewport: ViewportPanel::default(),
            renderer: None,
            analysis: analysis::Analysis::default(),
            timeline_view: Default::default(),
            preview: crate::preview::Preview::new(),
            dialogs: options.dialogs,
            recent,
            recovery,
            dialog: None,
            notice: None,
            history_budget: options.history_budget,
            quit_confirmed: false,
            close_now: false,
            closing_after_autosave: false,
            title: String::new(),
            repaint: false,
            frame_time: 0.0,
            frame_interval: 0.0,
        };
        if let Some(path) = &options.project {
            app.open_path(path);
        }
        if !pending.is_empty() {
            // Unsaved work first: what kept the project from opening shows as a message.
            if let Some(Dialog::Error { title, message }) = app.dialog.take() {
                app.notify(format!("{title}: {message}"), true);
            }
            app.dialog = Some(Dialog::Recover(pending));
        }
        app
    }

    /// The open document.
    pub fn document(&self) -> &Document {
        &self.document
    }

    /// The active tool.
    pub fn tool(&self) -> Tool {
        self.sculpt.tool
    }

    /// Selects the active tool.
    pub fn set_tool(&mut self, tool: Tool) {
        self.sculpt.tool = tool;
    }

    /// How the live water is coloured.
    pub fn water_overlay(&self) -> spillway_render::WaterOverlay {
        self.viewport.water_overlay
    }

    /// Colours the live water with `overlay` (as the Show buttons of the water panel do).
    pub fn set_water_overlay(&mut self, overlay: spillway_render::WaterOverlay) {
        self.viewport.water_overlay = overlay;
    }

    /// Draws the water at `quality` (as the View menu does).
    pub fn set_water_quality(&mut self, quality: spillway_render::WaterQuality) {
        self.viewport.water_quality = quality;
    }

    /// The brush settings.
    pub fn brush(&self) -> &Brush {
        &self.sculpt.brush
    }

    /// The brush settings, for changing them.
    pub fn brush_mut(&mut self) -> &mut Brush {
        &mut self.sculpt.brush
    }

    /// The live water preview.
    pub fn preview(&self) -> &crate::preview::Preview {
        &self.preview
    }

    /// The live water preview, for driving it.
    pub fn preview_mut(&mut self) -> &mut crate::preview::Preview {
        &mut self.preview
    }

    /// The viewport camera.
    pub fn camera(&self) -> &Camera {
        &self.viewport.camera
    }

    /// The viewport overlays.
    pub fn overlays_mut(&mut self) -> &mut Overlays {
        &mut self.viewport.overlays
    }

    /// The viewport's rectangle in the window (points), as laid out in the last frame.
    pub fn viewport_rect(&self) -> egui::Rect {
        self.viewport.rect
    }

    /// The terrain point under window position `pos` (points), if any.
    pub fn pick(&self, pos: egui::Pos2) -> Option<[f32; 3]> {
        self.viewport
            .pick(&self.document, pos)
            .map(|p| p.to_array())
    }

    /// The selected body (index into the level's bodies).
    pub fn selected_body(&self) -> Option<usize> {
        self.bodies.selected
    }

    /// Selects body `index` (or none).
    pub fn select_body(&mut self, index: Option<usize>) {
        self.bodies.selected = index;
    }

    /// What dragging the gizmo does now.
    pub fn gizmo_mode(&self) -> GizmoMode {
        self.bodies.mode
    }

    /// Where to grab `handle` of the selected body's gizmo, as laid out in the last frame.
    pub fn gizmo_handle(&self, handle: Handle) -> Option<egui::Pos2> {
        self.bodies.gizmo.as_ref()?.grab_point(handle)
    }

    /// The glTF file a click of the Body tool drops.
    pub fn chosen_body(&self) -> Option<&Path> {
        self.bodies.chosen.as_deref()
    }

    /// Chooses the glTF file a click of the Body tool drops (importing it first).
    pub fn choose_body(&mut self, path: &Path) -> Result<(), EditorError> {
        self.bodies.import(path).map(|_| ())
    }

    /// How many bodies the Row and Stack helpers make, for changing it.
    pub fn body_count_mut(&mut self) -> &mut usize {
        &mut self.bodies.count
    }

    /// How many glTF files were parsed so far (each at most once).
    pub fn body_files_parsed(&self) -> usize {
        self.bodies.cache.parses()
    }

    /// How many body meshes the viewport holds on the GPU.
    pub fn body_meshes_uploaded(&self) -> usize {
        self.renderer.as_ref().map_or(0, |r| r.body_meshes())
    }

    /// The modal dialog shown now, if any.
    pub fn dialog(&self) -> Option<&Dialog> {
        self.dialog.as_ref()
    }

    /// The recent-files list.
    pub fn recent_files(&self) -> &[PathBuf] {
        self.recent.paths()
    }

    /// The last frame of the viewport as RGBA pixels (width, height, bytes), read back from
    /// the GPU; `None` before the first frame or without a GPU.
    pub fn viewport_pixels(&self) -> Option<(u32, u32, Vec<u8>)> {
        self.renderer.as_ref()?.read_pixels().ok()
    }

    /// Performs `action` as if chosen from a menu (with the unsaved-changes check).
    pub fn perform(&mut self, action: Action) {
        self.request(action);
    }

    /// Whether a bake runs in the background.
    pub fn baking(&self) -> bool {
        self.bake.is_some()
    }

    /// Whether a save, import or export runs in the background.
    pub fn busy_with_files(&self) -> bool {
        self.file_task.is_some()
    }

    /// The notice the status bar shows (the last one given): its text, and whether it reports
    /// a problem.
    pub fn notice(&self) -> Option<(&str, bool)> {
        self.notice.as_ref().map(|n| (n.text.as_str(), n.error))
    }

    pub(crate) fn notify(&mut self, text: impl Into<String>, error: bool) {
        self.notice = Some(Notice {
            text: text.into(),
            error,
            at: Instant::now(),
        });
    }

    /// Replaces the document (after any unsaved-changes question was answered).
    pub(crate) fn set_document(&mut self, level: Level, path: Option<PathBuf>) {
        if let Some(job) = self.bake.take() {
            job.cancel();
        }
        if let Some(stroke) = self.sculpt.stroke.take() {
            stroke.cancel(&mut self.document);
        }
        self.authoring.document_replaced();
        self.level_form = level_panel::LevelForm::default();
        self.bodies.document_replaced();
        self.document = Document::with_history(level, path, History::new(self.history_budget));
        self.recovery.reset();
        self.viewport.document_replaced();
        self.analysis.document_replaced();
        self.preview.reset();
    }

    fn window_title(&self) -> String {
        let star = if self.document.is_modified() { "*" } else { "" };
        let place = self
            .document
            .path()
            .and_then(Path::parent)
            .map(|p| format!(" — {}", p.display()))
            .unwrap_or_default();
        format!("{star}{}{place} — Spillway", self.document.title())
    }
}

impl eframe::App for EditorApp {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        let started = Instant::now();
        let ctx = ui.ctx().clone();
        if self.gpu.is_none() {
            self.gpu = frame
                .wgpu_render_state()
                .map(|rs| (rs.device.clone(), rs.queue.clone()));
        }
        // The frame's stages (see `frame.rs`): input → actions → document → changes →
        // preview → renderer → paint.
        for action in self.input(&ctx) {
            self.request(action);
        }
        bake_panel::collect(self, &ctx);
        file_tasks::collect(self, &ctx);

        egui::Panel::top("menu").show(ui, |ui| menu::show(self, ui));
        egui::Panel::bottom("status").show(ui, |ui| panels::status_bar(self, ui));
        egui::Panel::left("tools")
            .resizable(false)
            .exact_size(150.0)
            .show(ui, |ui| panels::tool_panel(self, ui));
        egui::Panel::right("inspector")
            .resizable(true)
            .default_size(260.0)
            .show(ui, |ui| panels::inspector(self, ui));
        egui::Panel::bottom("preview")
            .resizable(true)
            .default_size(190.0)
            .show(ui, |ui| preview_panel::show(self, ui));
        // The timeline, under the viewport, once the water has run (nothing to scrub before).
        if self.preview.is_live() || !self.preview.timeline.branch().keys.is_empty() {
            egui::Panel::bottom("timeline").show(ui, |ui| timeline_panel::show(self, ui));
        }
        let notice = egui::CentralPanel::no_frame()
            .show(ui, |ui| self.viewport_stages(ui, frame))
            .inner;
        if let Some(text) = notice {
            self.notify(text, false);
        }
        if let Some(job) = self.authoring.fill_job.take() {
            file_tasks::fill(self, job);
        }
        bake_panel::window(self, &ctx);
        file_tasks::window(self, &ctx);
        dialogs::show(self, &ctx);
        drop_hint(&ctx);
        self.autosave(&ctx);

        if std::mem::take(&mut self.repaint) {
            ctx.request_repaint();
        }
        if std::mem::take(&mut self.close_now) {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
        let title = self.window_title();
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
        let (stable, unstable) = ctx.input(|i| (i.stable_dt, i.unstable_dt));
        // Equal only when the last frame asked for the next at once: a true frame interval.
        if stable == unstable && unstable > 0.0 {
            self.frame_interval = if self.frame_interval == 0.0 {
                unstable
            } else {
                self.frame_interval * 0.9 + unstable * 0.1
            };
        }
        let spent = started.elapsed().as_secs_f32();
        self.frame_time = if self.frame_time == 0.0 {
            spent
        } else {
            self.frame_time * 0.9 + spent * 0.1
        };
    }

    /// The window closes: an autosave still being written is finished with (see
    /// `Recovery::finish`).
    fn on_exit(&mut self) {
        if !self.document.is_modified() {
            // Undone back to the saved state: a copy being written holds changes undone.
            let path = self.document.path().map(std::path::Path::to_path_buf);
            self.recovery.discard(path.as_deref());
        }
        self.recovery.finish();
    }
}

/// While files are dragged over the window, says what dropping them does.
fn drop_hint(ctx: &egui::Context) {
    if ctx.input(|i| i.raw.hovered_files.is_empty()) {
        return;
    }
    let screen = ctx.content_rect();
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Foreground,
        egui::Id::unique("drop hint"),
    ));
    painter.rect_filled(screen, 0.0, egui::Color32::from_black_alpha(160));
    painter.text(
        screen.center(),
        egui::Align2::CENTER_CENTER,
        "Drop a level (.ron) to open it, a heightmap (.png, .r16, .raw, .npy) to import it, or a body (.glb, .gltf) to place it",
        egui::FontId::proportional(18.0),
        egui::Color32::WHITE,
    );
}

/// Finds the bundled sample project: relative to the current folder, else beside the
/// editor's source tree.
pub fn sample_project() -> Option<PathBuf> {
    let here = PathBuf::from(SAMPLE_PROJECT);
    if here.is_file() {
        return Some(here);
    }
    let beside = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(SAMPLE_PROJECT);
    beside.is_file().then_some(beside)
}

/// eframe's device set-up, asking the adapter for what the GPU water solver needs on an
/// 8192² level (as far as the adapter can give it; a level the device cannot hold then runs on
/// the CPU solver), and textures as wide as the widest level (16384 cells) where it has them.
fn wgpu_options() -> eframe::egui_wgpu::WgpuConfiguration {
    use eframe::egui_wgpu::{WgpuSetup, WgpuSetupCreateNew};
    let mut setup = WgpuSetupCreateNew::without_display_handle();
    setup.device_descriptor = std::sync::Arc::new(|adapter| {
        let wanted = wgpu::Limits {
            max_texture_dimension_2d: spillway::level::Limits::default().max_side as u32,
            ..spillway::gpu::preferred_limits(8192, 8192)
        };
        wgpu::DeviceDescriptor {
            label: Some("spillway editor device"),
            required_limits: wanted.or_worse_values_from(&adapter.limits()),
            ..Default::default()
        }
    });
    eframe::egui_wgpu::WgpuConfiguration {
        wgpu_setup: WgpuSetup::CreateNew(setup),
        ..Default::default()
    }
}

/// Opens the editor window on `project` (or the bundled sample project) and returns when it
/// closes. Fails with a clear message when there is no display.
pub fn run(project: Option<PathBuf>) -> Result<(), EditorError> {
    let has_display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    if !has_display {
        return Err(EditorError::NoDisplay);
    }
    let project = match project {
        Some(p) => Some(p),
        None => Some(sample_project().ok_or(EditorError::NoSampleProject(SAMPLE_PROJECT))?),
    };
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Spillway")
            .with_inner_size([1280.0, 800.0])
            .with_min_inner_size([640.0, 400.0])
            .with_drag_and_drop(true),
        renderer: eframe::Renderer::Wgpu,
        wgpu_options: wgpu_options(),
        ..Default::default()
    };
    eframe::run_native(
        "Spillway",
        options,
        Box::new(move |cc| Ok(Box::new(EditorApp::new(cc, EditorOptions::new(project))))),
    )?;
    Ok(())
}
