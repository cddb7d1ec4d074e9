//! Sources and sinks on the map: new ones with sensible defaults, the [`Selection`], hit
//! testing of their areas, and the [`PlacementDrag`] that places or moves one as a single
//! undoable command.

use spillway::Level;
use spillway::level::{Shape, Sink, SinkKind, Source, SourceKind};

use crate::document::{Change, Document, EditFeatures, Features, Part};

/// Rate of a new source or sink, m³/s.
pub const DEFAULT_RATE: f32 = 5.0;
/// Radius of a new source or sink, in cells.
pub const DEFAULT_RADIUS_CELLS: f32 = 3.0;
/// How far outside its area, in cells, a click still selects a source or sink.
pub const PICK_SLACK_CELLS: f32 = 1.5;

/// A selected source or sink, by its index in the level's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Selection {
    /// `level.sources[i]`.
    Source(usize),
    /// `level.sinks[i]`.
    Sink(usize),
}

impl Selection {
    /// The selected feature's shape, if it still exists.
    pub fn shape(self, level: &Level) -> Option<&Shape> {
        match self {
            Selection::Source(i) => level.sources.get(i).map(|s| &s.shape),
            Selection::Sink(i) => level.sinks.get(i).map(|s| &s.shape),
        }
    }

    /// The selected feature's shape, for changing it.
    pub fn shape_mut(self, level: &mut Level) -> Option<&mut Shape> {
        match self {
            Selection::Source(i) => level.sources.get_mut(i).map(|s| &mut s.shape),
            Selection::Sink(i) => level.sinks.get_mut(i).map(|s| &mut s.shape),
        }
    }

    /// Whether the selected feature exists in `level`.
    pub fn exists(self, level: &Level) -> bool {
        self.shape(level).is_some()
    }

    /// "source" or "sink".
    pub fn noun(self) -> &'static str {
        match self {
            Selection::Source(_) => "source",
            Selection::Sink(_) => "sink",
        }
    }

    /// Removes the selected feature from `features`.
    pub fn remove_from(self, features: &mut Features) {
        match self {
            Selection::Source(i) if i < features.sources.len() => {
                features.sources.remove(i);
            }
            Selection::Sink(i) if i < features.sinks.len() => {
                features.sinks.remove(i);
            }
            _ => {}
        }
    }
}

/// The centre of a shape, world metres.
pub fn centre(shape: &Shape) -> [f32; 2] {
    match *shape {
        Shape::Point { x, y } | Shape::Circle { x, y, .. } => [x, y],
        Shape::Box { x0, y0, x1, y1 } => [(x0 + x1) * 0.5, (y0 + y1) * 0.5],
    }
}

/// `shape` moved so that its centre is at `(x, y)`, keeping its size.
pub fn moved_to(shape: &Shape, x: f32, y: f32) -> Shape {
    match *shape {
        Shape::Point { .. } => Shape::Point { x, y },
        Shape::Circle { radius, .. } => Shape::Circle { x, y, radius },
        Shape::Box { x0, y0, x1, y1 } => {
            let (hw, hh) = ((x1 - x0) * 0.5, (y1 - y0) * 0.5);
            Shape::Box {
                x0: x - hw,
                y0: y - hh,
                x1: x + hw,
                y1: y + hh,
            }
        }
    }
}

/// `shape` moved by `(dx, dy)` metres (by none: the very same shape).
pub fn moved_by(shape: &Shape, dx: f32, dy: f32) -> Shape {
    if dx == 0.0 && dy == 0.0 {
        return shape.clone();
    }
    match *shape {
        Shape::Point { x, y } => Shape::Point {
            x: x + dx,
            y: y + dy,
        },
        Shape::Circle { x, y, radius } => Shape::Circle {
            x: x + dx,
            y: y + dy,
            radius,
        },
        Shape::Box { x0, y0, x1, y1 } => Shape::Box {
            x0: x0 + dx,
            y0: y0 + dy,
            x1: x1 + dx,
            y1: y1 + dy,
        },
    }
}

/// Whether world point `(x, y)` lies within `slack` metres of `shape`'s area.
pub fn contains(shape: &Shape, x: f32, y: f32, slack: f32) -> bool {
    match *shape {
        Shape::Point { x: cx, y: cy } => (x - cx).hypot(y - cy) <= slack,
        Shape::Circle {
            x: cx,
            y: cy,
            radius,
        } => (x - cx).hypot(y - cy) <= radius + slack,
        Shape::Box { x0, y0, x1, y1 } => {
            x >= x0 - slack && x <= x1 + slack && y >= y0 - slack && y <= y1 + slack
        }
    }
}

/// The source or sink under world point `(x, y)`, if any: the topmost (last placed) of those
/// whose area, grown by [`PICK_SLACK_CELLS`], holds the point. Sinks are looked at first when
/// `sinks_first`.
pub fn hit(level: &Level, x: f32, y: f32, sinks_first: bool) -> Option<Selection> {
    let slack = PICK_SLACK_CELLS * level.cell_size;
    let source = || {
        (0..level.sources.len())
            .rev()
            .find(|&i| contains(&level.sources[i].shape, x, y, slack))
            .map(Selection::Source)
    };
    let sink = || {
        (0..level.sinks.len())
            .rev()
            .find(|&i| contains(&level.sinks[i].shape, x, y, slack))
            .map(Selection::Sink)
    };
    if sinks_first {
        sink().or_else(source)
    } else {
        source().or_else(sink)
    }
}

/// The first name `"{prefix} N"` (N = 1, 2, …) that none of `taken` has.
fn free_name<'a>(prefix: &str, taken: impl Iterator<Item = &'a str> + Clone) -> String {
    (1..)
        .map(|n| format!("{prefix} {n}"))
        .find(|name| !taken.clone().any(|t| t == name))
        .unwrap_or_else(|| prefix.to_owned())
}

/// A circle of the default radius at `(x, y)` on a grid of `cell_size` metre cells.
pub fn default_shape(x: f32, y: f32, cell_size: f32) -> Shape {
    Shape::Circle {
        x,
        y,
        radius: DEFAULT_RADIUS_CELLS * cell_size,
    }
}

/// A new source at `(x, y)`: a circle adding [`DEFAULT_RATE`] m³/s, with a free name.
pub fn new_source(level: &Level, x: f32, y: f32) -> Source {
    Source {
        name: free_name("Source", level.sources.iter().map(|s| s.name.as_str())),
        shape: default_shape(x, y, level.cell_size),
        kind: SourceKind::Rate {
            m3_per_s: DEFAULT_RATE,
        },
        enabled: true,
    }
}

/// A new sink at `(x, y)`: a circle removing up to [`DEFAULT_RATE`] m³/s, with a free name.
pub fn new_sink(level: &Level, x: f32, y: f32) -> Sink {
    Sink {
        name: free_name("Sink", level.sinks.iter().map(|s| s.name.as_str())),
        shape: default_shape(x, y, level.cell_size),
        kind: SinkKind::Rate {
            m3_per_s: DEFAULT_RATE,
        },
        enabled: true,
    }
}

/// The viewport label of a source, e.g. "Source 1 · 5.0 m³/s".
pub fn source_label(source: &Source) -> String {
    let what = match &source.kind {
        SourceKind::Rate { m3_per_s } => format!("{m3_per_s:.1} m³/s"),
        SourceKind::Level {
            surface,
            max_m3_per_s,
        } => format!("to {surface:.1} m, ≤ {max_m3_per_s:.1} m³/s"),
        SourceKind::Hydrograph(h) => format!("hydrograph, peak {:.1} m³/s", h.max()),
    };
    let off = if source.enabled { "" } else { " (off)" };
    format!("{} · {what}{off}", source.name)
}

/// The viewport label of a sink, e.g. "Sink 1 · 5.0 m³/s".
pub fn sink_label(sink: &Sink) -> String {
    let what = match &sink.kind {
        SinkKind::Rate { m3_per_s } => format!("{m3_per_s:.1} m³/s"),
        SinkKind::Level {
            surface,
            max_m3_per_s,
        } => format!("down to {surface:.1} m, ≤ {max_m3_per_s:.1} m³/s"),
        SinkKind::Hydrograph(h) => format!("schedule, up to {:.1} m³/s", h.max()),
    };
    let off = if sink.enabled { "" } else { " (off)" };
    format!("{} · {what}{off}", sink.name)
}

/// One press-drag-release of the Source or Sink tool: a press on empty ground places a new
/// feature there, a press on an existing one grabs it; the drag moves it, live; the release
/// records the whole gesture as one command ("Place source", "Move sink").
#[derive(Debug)]
pub struct PlacementDrag {
    selection: Selection,
    /// Where the feature was grabbed, and its shape then: a drag moves that shape by the
    /// pointer's way from the grab point (none moves it not at all, not even by a rounding).
    grab: ([f32; 2], Shape),
    label: String,
    before: Features,
}

impl PlacementDrag {
    /// Grabs the existing feature `selection` at world point `(x, y)`.
    pub fn grab(document: &Document, selection: Selection, x: f32, y: f32) -> Option<Self> {
        let shape = selection.shape(document.level())?.clone();
        Some(Self {
            selection,
            grab: ([x, y], shape),
            label: format!("Move {}", selection.noun()),
            before: Features::of(document.level()),
        })
    }

    /// Places a new source (or, with `sink`, a sink) at world point `(x, y)`.
    pub fn place(document: &mut Document, sink: bool, x: f32, y: f32) -> Self {
        let before = Features::of(document.level());
        let selection = if sink {
            let new = new_sink(document.level(), x, y);
            let level = document.stroke_level();
            level.sinks.push(new);
            Selection::Sink(level.sinks.len() - 1)
        } else {
            let new = new_source(document.level(), x, y);
            let level = document.stroke_level();
            level.sources.push(new);
            Selection::Source(level.sources.len() - 1)
        };
        document.note_change(&Change::Features);
        let shape = selection.shape(document.level()).cloned();
        Self {
            selection,
            grab: ([x, y], shape.unwrap_or(Shape::Point { x, y })),
            label: format!("Place {}", selection.noun()),
            before,
        }
    }

    /// The feature being placed or moved.
    pub fn selection(&self) -> Selection {
        self.selection
    }

    /// Moves the grabbed feature so that the grab point follows world point `(x, y)`.
    pub fn drag_to(&mut self, document: &mut Document, x: f32, y: f32) {
        if !(x.is_finite() && y.is_finite()) {
            return;
        }
        let ([gx, gy], start) = &self.grab;
        let Some(shape) = self.selection.shape(document.level()) else {
            return;
        };
        // Its centre stays on the map: a grab at the edge of the pick's slack could carry a
        // source wholly off it, and the level would no longer save.
        let level = document.level();
        let extent = [level.nx(), level.ny()].map(|n| n as f32 * level.cell_size);
        let c = centre(start);
        let keep = |c: f32, d: f32, w: f32| (c + d).clamp(c.min(0.0), c.max(w)) - c;
        let (dx, dy) = (keep(c[0], x - gx, extent[0]), keep(c[1], y - gy, extent[1]));
        let moved = moved_by(start, dx, dy);
        if &moved == shape {
            return;
        }
        if let Some(shape) = self.selection.shape_mut(document.stroke_level()) {
            *shape = moved;
        }
        document.note_change(&Change::Features);
    }

    /// Ends the gesture, recording it as one command. Returns whether anything changed.
    pub fn finish(self, document: &mut Document) -> bool {
        let edit = EditFeatures::new(self.label, self.before, Features::of(document.level()));
        if edit.is_empty() {
            document.end_live_edit();
            false
        } else {
            document.push_applied(Box::new(edit));
            true
        }
    }

    /// Abandons the gesture, putting every feature back where it was.
    pub fn cancel(self, document: &mut Document) {
        self.before.write(document.stroke_level());
        document.note_change(&Change::Features);
        document.end_live_edit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placing_then_moving_is_one_step_each() {
        let mut doc = Document::new(Level::flat(40, 40, 1.0, 0.0), None);
        let drag = PlacementDrag::place(&mut doc, false, 10.0, 10.0);
        assert_eq!(drag.selection(), Selection::Source(0));
        assert!(drag.finish(&mut doc));
        assert_eq!(doc.level().sources[0].name, "Source 1");
        assert_eq!(
            hit(doc.level(), 12.0, 11.0, true),
            Some(Selection::Source(0))
        );
        assert_eq!(hit(doc.level(), 30.0, 30.0, false), None);

        let mut drag = PlacementDrag::grab(&doc, Selection::Source(0), 11.0, 10.0).expect("grab");
        drag.drag_to(&mut doc, 21.0, 15.0);
        assert!(drag.finish(&mut doc));
        assert_eq!(centre(&doc.level().sources[0].shape), [20.0, 15.0]);
        assert_eq!(doc.history().undo_len(), 2);
        assert!(doc.undo());
        assert_eq!(centre(&doc.level().sources[0].shape), [10.0, 10.0]);
        assert_eq!(source_label(&doc.level().sources[0]), "Source 1 · 5.0 m³/s");

        // Grabbed at the far side of the pick's slack and flung off the map: its centre
        // stops at the map's edge (it went wholly off, and the level no longer saved).
        let r = match doc.level().sources[0].shape {
            Shape::Circle { radius, .. } => radius,
            _ => 0.0,
        };
        let mut drag =
            PlacementDrag::grab(&doc, Selection::Source(0), 10.0 + r + 1.0, 10.0).expect("grab");
        drag.drag_to(&mut doc, 0.5, -3.0);
        assert!(drag.finish(&mut doc));
        assert_eq!(centre(&doc.level().sources[0].shape), [0.0, 0.0]);
        let limits = spillway::level::Limits::default();
        assert!(doc.level().validate(&limits).is_ok());
    }

    #[test]
    fn new_names_skip_taken_ones_and_boxes_move_whole() {
        let mut level = Level::flat(10, 10, 1.0, 0.0);
        level.sinks.push(new_sink(&level, 1.0, 1.0));
        level.sinks.push(new_sink(&level, 1.0, 1.0));
        level.sinks.remove(0);
        assert_eq!(new_sink(&level, 1.0, 1.0).name, "Sink 1");
        let b = Shape::Box {
            x0: 0.0,
            y0: 0.0,
            x1: 4.0,
            y1: 2.0,
        };
        assert_eq!(
            moved_to(&b, 10.0, 10.0),
            Shape::Box {
                x0: 8.0,
                y0: 9.0,
                x1: 12.0,
                y1: 11.0
            }
        );
    }
}
