//! Draws the level's water features over the viewport image with egui's painter: each source
//! and sink as the outline of its area on the terrain with a label, each map edge in the colour
//! of its boundary kind, and the legend and cursor hints of the water tools. World points are
//! projected with the viewport camera; the renderer knows nothing of this.

use egui::{Align2, Color32, FontId, Painter, Pos2, Rect, Shape as Paint, Stroke};
use spillway::Level;
use spillway::level::{BoundaryKind, Edge, Shape};

use super::authoring::{Authoring, Gesture};
use crate::tools::fill::FillLevel;
use crate::tools::gate::gate_label;
use crate::tools::spill::Spill;

/// Colour of gates.
const GATE_COLOUR: Color32 = Color32::from_rgb(235, 150, 40);
use crate::tools::Tool;
use crate::tools::boundary::{edge_cells, edge_length, kind_name, nearest_edge, reach, same_kind};
use crate::tools::placement::{Selection, centre, sink_label, source_label};
use spillway_render::math::{Mat4, Vec3};
use spillway_render::pick::height_at;
use spillway_render::{Bounds, Camera};

/// Colour of source outlines and labels.
pub const SOURCE_COLOUR: Color32 = Color32::from_rgb(90, 200, 255);
/// Colour of sink outlines and labels.
pub const SINK_COLOUR: Color32 = Color32::from_rgb(255, 140, 60);
/// Colour of the selected source or sink.
const SELECTED_COLOUR: Color32 = Color32::from_rgb(255, 240, 120);
/// Metres above the terrain at which outlines are drawn, so they do not sink into it.
const LIFT: f32 = 0.15;
/// Points along a circle outline.
const CIRCLE_POINTS: usize = 48;
/// Most points along one side of a box outline or one edge segment.
const MAX_SIDE_POINTS: usize = 256;

/// The colour of a boundary kind: wall grey, open blue, fixed level cyan, inflow green, tide
/// violet, inflow hydrograph yellow-green.
pub fn boundary_colour(kind: &BoundaryKind) -> Color32 {
    match kind {
        BoundaryKind::Wall => Color32::from_rgb(170, 170, 170),
        BoundaryKind::Open => Color32::from_rgb(60, 110, 255),
        BoundaryKind::FixedLevel { .. } => Color32::from_rgb(0, 220, 230),
        BoundaryKind::Inflow { .. } => Color32::from_rgb(60, 210, 80),
        BoundaryKind::Tide(_) => Color32::from_rgb(150, 120, 255),
        BoundaryKind::Hydrograph(_) => Color32::from_rgb(190, 230, 60),
    }
}

/// How the viewport looks at the level this frame.
pub(crate) struct View {
    /// The camera's view-projection matrix.
    view_proj: Mat4,
    /// The viewport's rectangle in the window, points.
    rect: Rect,
}

impl View {
    /// The view of `camera` in the viewport `rect`, drawing a level of `bounds`.
    pub fn new(camera: &Camera, rect: Rect, bounds: &Bounds) -> Self {
        let aspect = rect.width() / rect.height().max(1e-3);
        Self {
            view_proj: camera.view_proj(aspect, bounds),
            rect,
        }
    }

    /// Where world point `p` appears on screen; `None` behind the eye.
    pub(crate) fn screen(&self, p: Vec3) -> Option<Pos2> {
        let c = self.view_proj.project(p);
        if c[3] <= 1e-6 || !c.iter().all(|v| v.is_finite()) {
            return None;
        }
        let (nx, ny) = (c[0] / c[3], c[1] / c[3]);
        Some(egui::pos2(
            self.rect.min.x + (nx + 1.0) * 0.5 * self.rect.width(),
            self.rect.min.y + (1.0 - ny) * 0.5 * self.rect.height(),
        ))
    }

    /// The screen point of the ground at world `(x, y)`, lifted a little.
    pub(crate) fn ground(&self, level: &Level, x: f32, y: f32) -> Option<Pos2> {
        let z = height_at(&level.terrain, level.cell_size, x, y) + LIFT;
        self.screen(Vec3::new(x, y, z))
    }

    /// A line over the ground through world points `points`; parts behind the eye are left out.
    pub(crate) fn ground_line(
        &self,
        painter: &Painter,
        level: &Level,
        points: &[[f32; 2]],
        stroke: Stroke,
    ) {
        let mut run: Vec<Pos2> = Vec::new();
        for [x, y] in points {
            match self.ground(level, *x, *y) {
                Some(p) => run.push(p),
                None => flush(painter, &mut run, stroke),
            }
        }
        flush(painter, &mut run, stroke);
    }
}

fn flush(painter: &Painter, run: &mut Vec<Pos2>, stroke: Stroke) {
    if run.len() >= 2 {
        painter.add(Paint::line(std::mem::take(run), stroke));
    }
    run.clear();
}

/// Draws everything: boundaries, sources and sinks, and the active tool's hints.
pub(crate) fn draw(
    painter: &Painter,
    view: &View,
    level: &Level,
    tool: Tool,
    authoring: &Authoring,
    hover: Option<Vec3>,
) {
    if level.nx() == 0 || level.ny() == 0 {
        return;
    }
    boundaries(painter, view, level, tool == Tool::Boundary);
    let selection = if matches!(tool, Tool::Source | Tool::Sink) {
        authoring.selection
    } else {
        None
    };
    for (i, source) in level.sources.iter().enumerate() {
        let selected = selection == Some(Selection::Source(i));
        feature(
            painter,
            view,
            level,
            &source.shape,
            &source_label(source),
            SOURCE_COLOUR,
            selected,
        );
    }
    for (i, sink) in level.sinks.iter().enumerate() {
        let selected = selection == Some(Selection::Sink(i));
        feature(
            painter,
            view,
            level,
            &sink.shape,
            &sink_label(sink),
            SINK_COLOUR,
            selected,
        );
    }
    for (i, gate) in level.gates.iter().enumerate() {
        let selected = tool == Tool::Gate && authoring.gate == Some(i);
        feature(
            painter,
            view,
            level,
            &gate.shape,
            &gate_label(gate),
            GATE_COLOUR,
            selected,
        );
    }
    if let Some(Gesture::Gate(a, b)) = &authoring.gesture {
        // The box the gate will take (snapped to cells, kept on the map), not the raw drag.
        let shape = crate::tools::gate::gate_box(level, *a, *b);
        feature(painter, view, level, &shape, "new gate", GATE_COLOUR, true);
    }
    match tool {
        Tool::Boundary => {
            legend(painter, view.rect, level);
            if let Some(p) = hover {
                edge_hint(painter, view, level, p, &authoring.boundary_kind);
            }
        }
        Tool::FillBasin => {
            if let Some(p) = hover {
                fill_hint(painter, view, level, p, authoring);
            }
        }
        _ => {}
    }
}

/// The outline of a source's or sink's area on the terrain, a dot at its centre and its label.
fn feature(
    painter: &Painter,
    view: &View,
    level: &Level,
    shape: &Shape,
    label: &str,
    colour: Color32,
    selected: bool,
) {
    let colour = if selected { SELECTED_COLOUR } else { colour };
    let stroke = Stroke::new(if selected { 3.0 } else { 2.0 }, colour);
    let cs = level.cell_size;
    match *shape {
        Shape::Point { .. } => {}
        Shape::Circle { x, y, radius } => {
            let points: Vec<[f32; 2]> = (0..=CIRCLE_POINTS)
                .map(|i| {
                    let a = i as f32 / CIRCLE_POINTS as f32 * std::f32::consts::TAU;
                    [x + radius * a.cos(), y + radius * a.sin()]
                })
                .collect();
            view.ground_line(painter, level, &points, stroke);
        }
        Shape::Box { x0, y0, x1, y1 } => {
            let corners = [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]];
            let mut points = Vec::new();
            for w in corners.windows(2) {
                let len = (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]);
                let n = ((len / cs).ceil() as usize).clamp(1, MAX_SIDE_POINTS);
                for k in 0..n {
                    let t = k as f32 / n as f32;
                    points.push([
                        w[0][0] + (w[1][0] - w[0][0]) * t,
                        w[0][1] + (w[1][1] - w[0][1]) * t,
                    ]);
                }
            }
            points.push([x0, y0]);
            view.ground_line(painter, level, &points, stroke);
        }
    }
    let [cx, cy] = centre(shape);
    let Some(at) = view.ground(level, cx, cy) else {
        return;
    };
    painter.circle(at, 4.0, colour, Stroke::new(1.0, Color32::BLACK));
    label_at(painter, at - egui::vec2(0.0, 8.0), label, colour);
}

/// Text on a dark plate, its bottom centre at `at`.
fn label_at(painter: &Painter, at: Pos2, text: &str, colour: Color32) {
    plated_text(painter, at, Align2::CENTER_BOTTOM, text, colour);
}

/// World point of the outer border beside cell `i` of `edge`, at `t` (0..1) across the cell.
fn border_point(level: &Level, edge: Edge, i: f32) -> [f32; 2] {
    let cs = level.cell_size;
    let (w, h) = (level.nx() as f32 * cs, level.ny() as f32 * cs);
    match edge {
        Edge::West => [0.0, i * cs],
        Edge::East => [w, i * cs],
        Edge::North => [i * cs, 0.0],
        Edge::South => [i * cs, h],
    }
}

/// Each edge in the colours of its boundary kinds: thick where a segment sets the kind, thin
/// where the level's default applies.
fn boundaries(painter: &Painter, view: &View, level: &Level, emphasise: bool) {
    let default = &level.params.default_boundary;
    let scale = if emphasise { 1.5 } else { 1.0 };
    for edge in Edge::ALL {
        let len = edge_length(level, edge);
        let cells = edge_cells(&level.boundaries, edge, len);
        let mut start = 0;
        for i in 1..=len {
            if i < len && same_kind(cells[i], cells[start]) {
                continue;
            }
            let (kind, width) = match cells[start] {
                Some(kind) => (kind, 4.0 * scale),
                None => (default, 1.5 * scale),
            };
            let n = (i - start).clamp(1, MAX_SIDE_POINTS);
            let points: Vec<[f32; 2]> = (0..=n)
                .map(|k| {
                    let along = start as f32 + (i - start) as f32 * k as f32 / n as f32;
                    border_point(level, edge, along)
                })
                .collect();
            view.ground_line(
                painter,
                level,
                &points,
                Stroke::new(width, boundary_colour(kind)),
            );
            start = i;
        }
    }
}

/// Every kind of boundary, in the legend's order.
fn legend_kinds() -> [BoundaryKind; 6] {
    use spillway::level::Schedule;
    [
        BoundaryKind::Wall,
        BoundaryKind::Open,
        BoundaryKind::FixedLevel { surface: 0.0 },
        BoundaryKind::Inflow { m3_per_s: 0.0 },
        BoundaryKind::Tide(Schedule::constant(0.0)),
        BoundaryKind::Hydrograph(Schedule::constant(0.0)),
    ]
}

/// The boundary colours, in the viewport's bottom-left corner.
fn legend(painter: &Painter, rect: Rect, level: &Level) {
    let kinds = legend_kinds();
    let line = 18.0;
    let default = format!(
        "thin: level default ({})",
        kind_name(&level.params.default_boundary).to_lowercase()
    );
    let height = line * (kinds.len() + 1) as f32 + 8.0;
    let plate = Rect::from_min_size(
        rect.left_bottom() + egui::vec2(10.0, -height - 10.0),
        egui::vec2(170.0, height),
    );
    painter.rect_filled(plate, 4.0, Color32::from_black_alpha(160));
    let font = FontId::proportional(12.0);
    for (k, kind) in kinds.iter().enumerate() {
        let y = plate.min.y + 4.0 + line * (k as f32 + 0.5);
        let x = plate.min.x + 8.0;
        painter.line_segment(
            [egui::pos2(x, y), egui::pos2(x + 24.0, y)],
            Stroke::new(4.0, boundary_colour(kind)),
        );
        painter.text(
            egui::pos2(x + 32.0, y),
            Align2::LEFT_CENTER,
            kind_name(kind),
            font.clone(),
            Color32::from_gray(230),
        );
    }
    painter.text(
        egui::pos2(plate.min.x + 8.0, plate.max.y - 4.0 - line * 0.5),
        Align2::LEFT_CENTER,
        default,
        font,
        Color32::from_gray(190),
    );
}

/// Where a drag of the Boundary tool would start painting, or why it would not.
fn edge_hint(painter: &Painter, view: &View, level: &Level, p: Vec3, kind: &BoundaryKind) {
    let (edge, distance) = nearest_edge(level, p.x, p.y);
    let Some(at) = view.screen(p) else {
        return;
    };
    if distance > reach(level) {
        label_at(
            painter,
            at - egui::vec2(0.0, 10.0),
            "drag near an edge",
            Color32::from_gray(220),
        );
        return;
    }
    let cs = level.cell_size;
    let along = match edge {
        Edge::West | Edge::East => (p.y / cs).floor() + 0.5,
        Edge::North | Edge::South => (p.x / cs).floor() + 0.5,
    };
    let [x, y] = border_point(level, edge, along);
    if let Some(on_edge) = view.ground(level, x, y) {
        painter.circle_stroke(on_edge, 6.0, Stroke::new(2.0, boundary_colour(kind)));
    }
}

/// The level a click of the Fill basin tool would fill to.
fn fill_hint(painter: &Painter, view: &View, level: &Level, p: Vec3, authoring: &Authoring) {
    let cs = level.cell_size;
    let (cx, cy) = ((p.x / cs).floor() as usize, (p.y / cs).floor() as usize);
    if cx >= level.nx() || cy >= level.ny() {
        return;
    }
    let text = match authoring.fill {
        // Its level depends on the whole basin: found on the click, not every frame.
        FillLevel::ToSpill => "fill to its spill level".to_string(),
        fill => format!("fill to {:.2} m", fill.surface(level.terrain.get(cx, cy))),
    };
    if let Some(at) = view.screen(p) {
        painter.circle_stroke(at, 5.0, Stroke::new(2.0, SOURCE_COLOUR));
        label_at(painter, at - egui::vec2(0.0, 10.0), &text, SOURCE_COLOUR);
    }
}

/// Marks the cell where the preview blew up: a red ring and a label.
pub(crate) fn halt_marker(painter: &Painter, view: &View, level: &Level, cell: (usize, usize)) {
    let red = egui::Color32::from_rgb(240, 60, 40);
    let label = format!("blew up here (cell {}, {})", cell.0, cell.1);
    cell_marker(painter, view, level, cell, &label, red);
}

/// Marks where the last basin filled to its spill level would overflow: an orange ring and a
/// label with the surface.
pub(crate) fn spill_marker(painter: &Painter, view: &View, level: &Level, spill: &Spill) {
    let orange = egui::Color32::from_rgb(250, 160, 30);
    let over = if spill.off_map {
        "over the edge"
    } else {
        "here"
    };
    let label = format!("spills {over} at {:.2} m", spill.surface);
    cell_marker(painter, view, level, spill.cell, &label, orange);
}

/// Where a lake leaks: a red ring at the escape and the levels.
pub(crate) fn leak_marker(
    painter: &Painter,
    view: &View,
    level: &Level,
    leak: &crate::tools::leaks::Leak,
) {
    let red = egui::Color32::from_rgb(240, 60, 50);
    let over = if leak.escape.off_map {
        " off the map"
    } else {
        ""
    };
    let label = format!(
        "leaks{over}: from {:.2} m down to {:.2} m",
        leak.surface, leak.escape.surface
    );
    cell_marker(painter, view, level, leak.escape.cell, &label, red);
}

/// A ring around cell `cell` on the ground and `label` beside it.
fn cell_marker(
    painter: &Painter,
    view: &View,
    level: &Level,
    cell: (usize, usize),
    label: &str,
    colour: egui::Color32,
) {
    let cs = level.cell_size;
    let (x, y) = ((cell.0 as f32 + 0.5) * cs, (cell.1 as f32 + 0.5) * cs);
    let Some(at) = view.ground(level, x, y) else {
        return;
    };
    painter.circle_stroke(at, 14.0, Stroke::new(3.0, colour));
    plated_text(
        painter,
        at + egui::vec2(18.0, -18.0),
        Align2::LEFT_BOTTOM,
        label,
        colour,
    );
}

/// A label of the viewport's overlays at `pos` (placed by `align`) on a dark plate, so it
/// reads over bright ground and water alike.
pub(crate) fn plated_text(
    painter: &Painter,
    pos: egui::Pos2,
    align: Align2,
    text: &str,
    colour: Color32,
) {
    let galley = painter.layout_no_wrap(text.to_owned(), FontId::proportional(13.0), colour);
    let rect = align.anchor_size(pos, galley.size());
    painter.rect_filled(rect.expand(3.0), 3.0, Color32::from_black_alpha(150));
    painter.galley(rect.min, galley, colour);
}

/// The region an Erode run is confined to (`[x0, y0, x1, y1]`, metres): a sand-coloured box
/// over the ground, labelled.
pub(crate) fn erosion_region(painter: &Painter, view: &View, level: &Level, r: [f32; 4]) {
    let sand = egui::Color32::from_rgb(230, 200, 120);
    let [x0, y0, x1, y1] = r;
    let edge = |a: [f32; 2], b: [f32; 2]| -> Vec<[f32; 2]> {
        (0..=32)
            .map(|k| {
                let t = k as f32 / 32.0;
                [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])]
            })
            .collect()
    };
    let stroke = Stroke::new(2.0, sand);
    let corners = [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]];
    for w in corners.windows(2) {
        view.ground_line(painter, level, &edge(w[0], w[1]), stroke);
    }
    if let Some(p) = view.ground(level, x0, y0) {
        plated_text(painter, p, Align2::LEFT_BOTTOM, "erodes", sand);
    }
}

/// The water overlays' colour ramp (dark blue, cyan, yellow, red, as `water.wgsl` draws it)
/// as a bar filling `rect`.
pub(crate) fn ramp_bar(painter: &Painter, rect: Rect) {
    let stops = [
        Color32::from_rgb(62, 89, 180),
        Color32::from_rgb(0, 211, 239),
        Color32::from_rgb(249, 239, 108),
        Color32::from_rgb(239, 108, 89),
    ];
    let steps = 24;
    for k in 0..steps {
        let t = k as f32 / (steps - 1) as f32 * 3.0;
        let i = (t.floor() as usize).min(2);
        let c = stops[i].lerp_to_gamma(stops[i + 1], t - i as f32);
        let x0 = rect.left() + rect.width() * k as f32 / steps as f32;
        let x1 = rect.left() + rect.width() * (k + 1) as f32 / steps as f32;
        let cell = Rect::from_min_max(egui::pos2(x0, rect.top()), egui::pos2(x1, rect.bottom()));
        painter.rect_filled(cell, 0.0, c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_shows_every_boundary_kind_in_its_own_colour() {
        let kinds = legend_kinds();
        // A new kind of boundary fails to compile here until the legend has it.
        let mut seen: Vec<usize> = (kinds.iter())
            .map(|k| match k {
                BoundaryKind::Wall => 0,
                BoundaryKind::Open => 1,
                BoundaryKind::FixedLevel { .. } => 2,
                BoundaryKind::Inflow { .. } => 3,
                BoundaryKind::Tide(_) => 4,
                BoundaryKind::Hydrograph(_) => 5,
            })
            .collect();
        seen.sort();
        assert_eq!(seen, [0, 1, 2, 3, 4, 5]);
        let mut colours: Vec<_> = kinds
            .iter()
            .map(|k| boundary_colour(k).to_array())
            .collect();
        colours.sort();
        colours.dedup();
        assert_eq!(colours.len(), kinds.len(), "colours told apart");
    }
}
