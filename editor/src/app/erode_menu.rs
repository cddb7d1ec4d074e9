//! The Water menu's Erode terrain submenu: the bed's material, where it moves (the whole map or
//! a box, drawn on the map), how long the water runs and how fast the bed ages, and Erode,
//! which starts the run in the background ([`erode`], a [`FileTask::Erode`]), the terrain so
//! far it shows while it runs and the undo step its result makes.

use std::sync::{Arc, Mutex};

use spillway::{CellRect, Grid, Level};

use super::EditorApp;
use super::file_tasks::FileTask;
use crate::document::{GridPatch, Layer, PatchTile};
use crate::erode::Material;
use crate::task::Task;

/// The submenu. Choosing a material or typing a number keeps it open; Erode closes it.
pub(crate) fn submenu(app: &mut EditorApp, ui: &mut egui::Ui) {
    let keep_open = egui::containers::menu::MenuConfig::new()
        .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
    egui::containers::menu::SubMenuButton::new("Erode terrain")
        .config(keep_open)
        .ui(ui, |ui| body(app, ui));
}

fn body(app: &mut EditorApp, ui: &mut egui::Ui) {
    ui.label("Bed material")
        .on_hover_text("What the ground is made of: how easily the water carries it");
    for m in Material::ALL {
        ui.selectable_value(&mut app.erosion.material, m, m.name())
            .on_hover_text(m.describe());
    }
    ui.separator();
    region(app, ui);
    ui.separator();
    ui.horizontal(|ui| {
        ui.label("Run the water for");
        ui.add(
            crate::app::number(&mut app.erosion.seconds)
                .range(1.0..=86_400.0)
                .speed(1.0)
                .suffix(" s"),
        )
        .on_hover_text("Simulated seconds of the level's water (on the GPU when there is one)");
    });
    ui.horizontal(|ui| {
        ui.label("Bed ages");
        ui.add(
            crate::app::number(&mut app.erosion.speedup)
                .range(1.0..=10_000.0)
                .speed(1.0)
                .prefix("×"),
        )
        .on_hover_text(
            "Seconds of bed change per second of water (the morphological factor): ×100 makes \
             two minutes of river shape more than three hours of its bed",
        );
    });
    let busy = app.file_task.is_some();
    if ui
        .add_enabled(!busy, egui::Button::new("Erode"))
        .on_hover_text(
            "Run the level's water from its initial state over a bed of this material: the flow \
             carves channels and builds deltas, steep slopes slump. In the background, the \
             terrain changing in the viewport as it goes, with progress and Cancel; the new \
             terrain is one undo step",
        )
        .clicked()
    {
        let level = app.document.level().clone();
        // As a bake does: the running water would go on over the ground being replaced.
        app.preview.pause();
        let gpu = app.gpu.clone().filter(|_| !app.preview.on_cpu());
        app.file_task = Some(erode(level, app.erosion, gpu));
        ui.close();
    }
}

/// Whole map, or a box of the map (metres) that the viewport outlines.
fn region(app: &mut EditorApp, ui: &mut egui::Ui) {
    let level = app.document.level();
    let (w, h) = (
        level.nx() as f32 * level.cell_size,
        level.ny() as f32 * level.cell_size,
    );
    ui.horizontal(|ui| {
        ui.label("Where");
        let whole = app.erosion.region.is_none();
        if ui
            .selectable_label(whole, "Whole map")
            .on_hover_text("The bed moves wherever the water runs")
            .clicked()
        {
            app.erosion.region = None;
        }
        if ui
            .selectable_label(!whole, "Box")
            .on_hover_text(
                "The bed moves only inside a box, outlined on the map; outside it the water \
                 runs over ground it cannot move",
            )
            .clicked()
            && whole
        {
            app.erosion.region = Some([0.25 * w, 0.25 * h, 0.75 * w, 0.75 * h]);
        }
    });
    let Some(r) = app.erosion.region.as_mut() else {
        return;
    };
    let field = |ui: &mut egui::Ui, v: &mut f32, hi: f32, tip: &str| {
        ui.add(
            crate::app::number(v)
                .range(0.0..=hi)
                .speed(1.0)
                .suffix(" m"),
        )
        .on_hover_text(tip.to_string());
    };
    ui.horizontal(|ui| {
        ui.label("x");
        field(ui, &mut r[0], w, "West side of the box");
        ui.label("to");
        field(ui, &mut r[2], w, "East side of the box");
    });
    ui.horizontal(|ui| {
        ui.label("y");
        field(ui, &mut r[1], h, "North side of the box");
        ui.label("to");
        field(ui, &mut r[3], h, "South side of the box");
    });
    // Corners dragged past each other swap, so the box stays a box.
    if r[2] < r[0] {
        r.swap(0, 2);
    }
    if r[3] < r[1] {
        r.swap(1, 3);
    }
}

impl EditorApp {
    /// The box the next Erode run is confined to (metres: x0, y0, x1, y1); `None`: the whole
    /// map.
    pub fn erosion_region(&self) -> Option<[f32; 4]> {
        self.erosion.region
    }
}

/// What an Erode run is asked to do (the Water menu's Erode terrain fields).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ErodeSettings {
    /// The bed's material.
    pub material: Material,
    /// Simulated seconds of water.
    pub seconds: f64,
    /// Seconds of bed change per second of water.
    pub speedup: f32,
    /// Where the bed moves (metres: x0, y0, x1, y1); `None`: the whole map.
    pub region: Option<[f32; 4]>,
}

impl Default for ErodeSettings {
    fn default() -> Self {
        Self {
            material: Material::Sand,
            seconds: 120.0,
            speedup: 100.0,
            region: None,
        }
    }
}

/// Starts running the water of `level` over a moving bed as `settings` ask, in the background
/// (`crate::erode`), on the GPU `gpu` when given.
pub(crate) fn erode(
    level: Level,
    settings: ErodeSettings,
    gpu: Option<(wgpu::Device, wgpu::Queue)>,
) -> FileTask {
    let ErodeSettings {
        material,
        seconds,
        speedup,
        region,
    } = settings;
    let label = format!(
        "Erode ({}, {seconds:.0} s ×{speedup:.0})",
        material.name().to_lowercase()
    );
    let sediment = spillway::level::Sediment {
        speedup,
        region: region.map(|[x0, y0, x1, y1]| spillway::level::Shape::Box { x0, y0, x1, y1 }),
        ..material.sediment()
    };
    let so_far = Arc::new(Mutex::new(None));
    let slot = so_far.clone();
    let shown = Box::new(level.clone());
    let task = Task::spawn(
        format!("Eroding: {}, {seconds:.0} s of water", material.name()),
        move |p| {
            // Readied here: the GPU's buffers for a large level take seconds on a slow device.
            let erosion = crate::erode::Erosion::new(&level, sediment, gpu);
            p.set_note(format!("Running on the {}", erosion.backend));
            erosion.run(seconds, &mut |share, terrain| {
                p.set(share);
                if let (Some(t), Ok(mut s)) = (terrain, slot.lock()) {
                    *s = Some(t);
                }
                !p.cancelled()
            })
        },
    );
    super::file_tasks::FileTask::Erode {
        label,
        task,
        so_far,
        shown,
    }
}

/// The level to draw while an Erode run shows its terrain so far: `Some` once per new
/// terrain handed over.
pub(crate) fn erosion_so_far(task: &mut Option<FileTask>) -> Option<&Level> {
    let Some(FileTask::Erode { so_far, shown, .. }) = task.as_mut() else {
        return None;
    };
    let terrain = so_far.lock().ok()?.take()?;
    if terrain.len() != shown.terrain.data.len() {
        return None;
    }
    shown.terrain.data = terrain;
    Some(shown)
}

/// Draws the document's terrain again after an Erode run showed its own.
pub(super) fn redraw_terrain(app: &mut EditorApp) {
    let level = app.document.level();
    if let Some(r) = app.renderer.as_mut() {
        let all = CellRect::whole(level.nx(), level.ny());
        r.sync(
            level,
            &spillway_render::Dirty {
                terrain: Some(all),
                ..Default::default()
            },
        );
    }
}

/// Makes the eroded terrain `grid` the level's, as one undo step labelled `label`.
pub(super) fn apply_erosion(app: &mut EditorApp, label: &str, grid: Grid) {
    redraw_terrain(app);
    let level = app.document.level();
    if (grid.nx, grid.ny) != (level.nx(), level.ny()) {
        return;
    }
    let changed = (grid.data.iter().zip(&level.terrain.data))
        .filter(|(a, b)| a != b)
        .count();
    let patch = GridPatch::new(
        label,
        Layer::Terrain,
        vec![PatchTile {
            rect: CellRect::whole(grid.nx, grid.ny),
            before: level.terrain.data.clone().into(),
            after: grid.data.into(),
        }],
    );
    if !patch.is_empty() {
        app.document.execute(Box::new(patch));
    }
    app.notify(
        format!(
            "{label}: the water moved the bed in {}",
            crate::count(changed, "cell")
        ),
        false,
    );
}
