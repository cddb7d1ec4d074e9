//! The Water menu's Erode terrain submenu: the bed's material, where it moves (the whole map or
//! a box, drawn on the map), how long the water runs and how fast the bed ages, and Erode,
//! which starts the run in the background (`file_tasks::erode`).

use super::EditorApp;
use crate::erode::Material;

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
        app.file_task = Some(super::file_tasks::erode(level, app.erosion, gpu));
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
