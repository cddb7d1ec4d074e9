//! Framing the view (F, View ▸ Frame): on the selection the tool shows where there is one —
//! the selected body, source or sink, gate, structure or gauge — and on the whole level
//! otherwise.

use spillway::Level;
use spillway::rect::CellRect;
use spillway_render::Bounds;
use spillway_render::math::Vec3;

use super::EditorApp;
use crate::tools::Tool;
use crate::tools::body::world_bounds;

/// The least room left around a framed selection on each side, metres.
const MIN_MARGIN: f32 = 2.0;

impl EditorApp {
    /// Frames the selection, or else the level, at the start of the next frame; returns what
    /// it frames, for the status line.
    pub(super) fn frame_view(&mut self) -> Option<String> {
        let framed = self.selection_bounds();
        let name = framed.as_ref().map(|(name, _)| name.clone());
        self.viewport
            .frame_on_next_frame(framed.map(|(_, bounds)| pad(bounds)));
        name
    }

    /// The selection's name and world bounds: the selected body (Body tool), or what the tool
    /// shows selected (a source or sink, a gate, a structure, a gauge) down to the ground under
    /// it.
    fn selection_bounds(&mut self) -> Option<(String, Bounds)> {
        let level = self.document.level();
        if self.sculpt.tool == Tool::Body {
            let i = self.bodies.selected?;
            let mut body = level.bodies.get(i)?.clone();
            // Where the running water has carried it, if it runs.
            if let Some(pose) = self.preview.body_poses().and_then(|p| p.get(i).copied()) {
                (body.translation, body.rotation) = (pose.translation, pose.rotation);
            }
            let mesh = self.bodies.mesh_of(&self.document, &body).ok()?;
            let (lo, hi) = world_bounds(&body, &mesh.mesh);
            return Some((
                body.name,
                Bounds {
                    min: vec(lo),
                    max: vec(hi),
                },
            ));
        }
        // What the tool shows selected (a source stays selected under other tools, unmarked:
        // F framed it while a weir was the selection drawn).
        let a = &self.authoring;
        let (name, lo, hi) = match self.sculpt.tool {
            Tool::Source | Tool::Sink => {
                let selection = a.selection?;
                let (lo, hi) = selection.shape(level)?.bounds();
                let name = match selection {
                    crate::tools::placement::Selection::Source(i) => &level.sources[i].name,
                    crate::tools::placement::Selection::Sink(i) => &level.sinks[i].name,
                };
                (name.clone(), lo, hi)
            }
            Tool::Gate => {
                let gate = level.gates.get(a.gate?)?;
                let (lo, hi) = gate.shape.bounds();
                (gate.name.clone(), lo, hi)
            }
            Tool::Structure => {
                let structure = level.structures.get(a.structure?)?;
                let (lo, hi) = span(structure.kind.ends());
                (structure.name.clone(), lo, hi)
            }
            Tool::Gauge => {
                let gauge = level.gauges.get(a.gauge?)?;
                let (lo, hi) = match gauge.kind {
                    spillway::level::GaugeKind::Stage { x, y } => span(([x, y], [x, y])),
                    spillway::level::GaugeKind::Discharge { from, to } => span((from, to)),
                };
                (gauge.name.clone(), lo, hi)
            }
            _ => return None,
        };
        let (z0, z1) = ground_under(level, lo, hi);
        let bounds = Bounds {
            min: Vec3::new(lo[0], lo[1], z0),
            max: Vec3::new(hi[0], hi[1], z1),
        };
        Some((name, bounds))
    }
}

/// The corners of the rectangle spanned by two points.
fn span((a, b): ([f32; 2], [f32; 2])) -> ([f32; 2], [f32; 2]) {
    (
        [a[0].min(b[0]), a[1].min(b[1])],
        [a[0].max(b[0]), a[1].max(b[1])],
    )
}

/// The lowest ground and the highest surface under the world rectangle `lo`–`hi`.
fn ground_under(level: &Level, lo: [f32; 2], hi: [f32; 2]) -> (f32, f32) {
    let cell = |v: f32, n: usize| ((v / level.cell_size).floor().max(0.0) as usize).min(n - 1);
    let (nx, ny) = (level.nx(), level.ny());
    let rect = CellRect::new(
        cell(lo[0], nx),
        cell(lo[1], ny),
        cell(hi[0], nx) + 1,
        cell(hi[1], ny) + 1,
    );
    let (mut low, mut top) = (f32::INFINITY, f32::NEG_INFINITY);
    for y in rect.y0..rect.y1 {
        for k in y * nx + rect.x0..y * nx + rect.x1 {
            let ground = level.terrain.data[k];
            low = low.min(ground);
            top = top.max(ground + level.water.data[k].max(0.0));
        }
    }
    if low.is_finite() && top.is_finite() {
        (low, top)
    } else {
        (0.0, 1.0)
    }
}

fn vec([x, y, z]: [f32; 3]) -> Vec3 {
    Vec3::new(x, y, z)
}

/// `bounds` with room around it: its largest side and a half, at least [`MIN_MARGIN`] (the
/// selection fills about a quarter of the view, with what stands around it in sight).
fn pad(bounds: Bounds) -> Bounds {
    let size = bounds.max - bounds.min;
    let m = (1.5 * size.x.max(size.y).max(size.z)).max(MIN_MARGIN);
    let m = Vec3::new(m, m, m);
    Bounds {
        min: bounds.min - m,
        max: bounds.max + m,
    }
}
