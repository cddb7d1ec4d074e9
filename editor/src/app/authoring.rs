//! Water authoring in the app: the selected source or sink, the gesture in progress (placing or
//! moving one, painting an edge), the Boundary and Fill basin settings, and the inspector edit
//! being made. Viewport clicks and drags of the Source, Sink, Boundary and Fill basin tools come
//! here and leave as commands on the document's one undo stack.

use spillway::level::{BoundaryKind, Shape};

use super::EditorApp;
use crate::document::{Change, Document, EditFeatures, Features, Part};
use crate::tools::Tool;
use crate::tools::boundary::{EdgeStroke, kind_name};
use crate::tools::fill::{FillJob, FillLevel, Filled};
use crate::tools::gate::{gate_label, hit_gate, new_gate};
use crate::tools::gauge::{hit_gauge, new_gauge};
use crate::tools::leaks::Leak;
use crate::tools::placement::{PlacementDrag, Selection, hit};
use crate::tools::spill::Spill;
use crate::tools::structure::{StructureChoice, hit_structure, new_structure};
use spillway_render::math::Vec3;

/// The largest level (cells) checked for leaks whenever the water starts; larger ones are
/// checked from the Water menu.
pub(crate) const AUTO_LEAK_CELLS: usize = 4 << 20;

/// A press-drag-release of a water tool in progress.
#[derive(Debug)]
pub(crate) enum Gesture {
    /// Placing or moving a source or sink.
    Place(PlacementDrag),
    /// Painting boundaries along an edge.
    Edge(EdgeStroke),
    /// Dragging out a new gate's box: where the drag started and where it is now.
    Gate([f32; 2], [f32; 2]),
    /// Placing a gauge: where the press was and where the pointer is now.
    Gauge([f32; 2], [f32; 2]),
    /// Placing a structure: where the press was and where the pointer is now.
    Structure([f32; 2], [f32; 2]),
}

/// The water authoring state between frames.
pub(crate) struct Authoring {
    /// The selected source or sink.
    pub selection: Option<Selection>,
    /// The selected gate.
    pub gate: Option<usize>,
    /// The selected gauge.
    pub gauge: Option<usize>,
    /// The selected structure.
    pub structure: Option<usize>,
    /// What the Structure tool places.
    pub structure_choice: StructureChoice,
    /// The gesture in progress.
    pub gesture: Option<Gesture>,
    /// What the Boundary tool paints.
    pub boundary_kind: BoundaryKind,
    /// The level the Fill basin tool fills to.
    pub fill: FillLevel,
    /// The surface height of the last fill, metres.
    pub last_fill: Option<f32>,
    /// Where the basin of the last fill to its spill level overflows (marked in the viewport).
    pub last_spill: Option<Spill>,
    /// The document's state when the last fill was recorded: an undo, a redo or another edit
    /// since leaves its spill point unmarked.
    spill_step: u64,
    /// A fill clicked for and not yet run: the app runs it at once, or in the background on
    /// a large level, and hands the result to [`Authoring::filled`].
    pub fill_job: Option<FillJob>,
    /// The leaks of the last check (marked in the viewport until the ground or water changes).
    pub leaks: Vec<Leak>,
    /// An inspector edit in progress: its label and the features before it. It becomes one
    /// command when no inspector field is held or focused any more.
    pub pending: Option<(String, Features)>,
}

impl Default for Authoring {
    fn default() -> Self {
        Self {
            selection: None,
            gate: None,
            gauge: None,
            structure: None,
            structure_choice: StructureChoice::default(),
            gesture: None,
            boundary_kind: BoundaryKind::Wall,
            fill: FillLevel::default(),
            last_fill: None,
            last_spill: None,
            spill_step: 0,
            fill_job: None,
            leaks: Vec::new(),
            pending: None,
        }
    }
}

/// What a viewport frame's pointer did, as far as the water tools care.
pub(crate) struct Pointer {
    /// The primary button went down over the viewport (not during a camera drag).
    pub pressed: bool,
    /// The primary button is held.
    pub down: bool,
    /// The terrain point under the cursor.
    pub hover: Option<Vec3>,
}

impl Authoring {
    /// Whether a gesture is in progress.
    pub fn busy(&self) -> bool {
        self.gesture.is_some()
    }

    /// A new document is open: forget selections and gestures that belonged to the old one.
    pub fn document_replaced(&mut self) {
        self.clear_selection();
        self.last_spill = None;
        self.gesture = None;
        self.pending = None;
    }

    /// Selects nothing: no source or sink, gate, gauge or structure.
    pub fn clear_selection(&mut self) {
        self.selection = None;
        self.gate = None;
        self.gauge = None;
        self.structure = None;
    }

    /// Handles one frame of viewport input for `tool`. Returns a notice for the status bar.
    pub fn viewport_input(
        &mut self,
        tool: Tool,
        document: &mut Document,
        pointer: &Pointer,
        walls: Option<Vec<f32>>,
    ) -> Option<String> {
        if self.selection.is_some_and(|s| !s.exists(document.level())) {
            self.selection = None;
        }
        let mut notice = None;
        if self.gesture.is_none()
            && pointer.pressed
            && let Some(p) = pointer.hover
        {
            self.commit_pending(document);
            notice = self.press(tool, document, p, walls);
        }
        match &mut self.gesture {
            Some(Gesture::Place(drag)) => {
                if let Some(p) = pointer.hover {
                    drag.drag_to(document, p.x, p.y);
                }
            }
            Some(Gesture::Edge(stroke)) => {
                if let Some(p) = pointer.hover {
                    stroke.drag_to(document, p.x, p.y);
                }
            }
            Some(Gesture::Gate(_, now))
            | Some(Gesture::Gauge(_, now))
            | Some(Gesture::Structure(_, now)) => {
                if let Some(p) = pointer.hover {
                    *now = [p.x, p.y];
                }
            }
            None => {}
        }
        if !pointer.down {
            match self.gesture.take() {
                Some(Gesture::Place(drag)) => {
                    drag.finish(document);
                }
                Some(Gesture::Edge(stroke)) => {
                    stroke.finish(document);
                }
                Some(Gesture::Gate(a, b))
                    if (b[0] - a[0]).hypot(b[1] - a[1]) < document.level().cell_size =>
                {
                    // A click off every gate: nothing to add, and the selection is cleared.
                }
                Some(Gesture::Gate(a, b)) => {
                    let gate = new_gate(document.level(), a[0], a[1], b[0], b[1]);
                    notice = Some(format!("Added {}", gate_label(&gate)));
                    let before = Features::of(document.level());
                    let mut after = before.clone();
                    after.gates.push(gate);
                    self.gate = Some(after.gates.len() - 1);
                    document.execute(Box::new(EditFeatures::new("Add gate", before, after)));
                }
                Some(Gesture::Gauge(a, b)) => {
                    let gauge = new_gauge(document.level(), a, b);
                    notice = Some(format!("Added {}", gauge.name));
                    let before = Features::of(document.level());
                    let mut after = before.clone();
                    after.gauges.push(gauge);
                    self.gauge = Some(after.gauges.len() - 1);
                    document.execute(Box::new(EditFeatures::new("Add gauge", before, after)));
                }
                Some(Gesture::Structure(a, b)) => {
                    let choice = self.structure_choice;
                    let level = document.level();
                    let placed = new_structure(level, choice, a, b);
                    let checked = placed
                        .as_ref()
                        .map(|s| s.check_on(level.nx(), level.ny(), level.cell_size));
                    notice = Some(match placed {
                        // One that would move no water (along the map's edge) says why.
                        Some(_) if let Some(Err(e)) = checked => e.reason,
                        Some(structure) => {
                            let added = format!("Added {}", structure.name);
                            let before = Features::of(document.level());
                            let mut after = before.clone();
                            after.structures.push(structure);
                            self.structure = Some(after.structures.len() - 1);
                            let label = format!("Add {}", choice.name().to_lowercase());
                            document.execute(Box::new(EditFeatures::new(label, before, after)));
                            added
                        }
                        // A click off every structure only clears the selection.
                        None if (b[0] - a[0]).hypot(b[1] - a[1])
                            < 0.5 * document.level().cell_size =>
                        {
                            return None;
                        }
                        None => format!(
                            "Drag further to place a {}: a line at least a cell long",
                            choice.name().to_lowercase()
                        ),
                    });
                }
                None => {}
            }
        }
        notice
    }

    fn press(
        &mut self,
        tool: Tool,
        document: &mut Document,
        p: Vec3,
        walls: Option<Vec<f32>>,
    ) -> Option<String> {
        match tool {
            Tool::Source | Tool::Sink => {
                let drag = match hit(document.level(), p.x, p.y, tool == Tool::Sink) {
                    Some(found) => PlacementDrag::grab(document, found, p.x, p.y),
                    None => Some(PlacementDrag::place(document, tool == Tool::Sink, p.x, p.y)),
                };
                self.selection = drag.as_ref().map(PlacementDrag::selection);
                self.gesture = drag.map(Gesture::Place);
                None
            }
            Tool::Boundary => {
                let kind = self.boundary_kind.clone();
                match EdgeStroke::begin(document, kind, p.x, p.y) {
                    Some(stroke) => {
                        self.gesture = Some(Gesture::Edge(stroke));
                        None
                    }
                    None => {
                        Some("Boundaries are painted along the map edges: drag near one".into())
                    }
                }
            }
            Tool::FillBasin => self.fill(document, p, walls),
            Tool::Gate => {
                self.gate = hit_gate(document.level(), p.x, p.y);
                if self.gate.is_none() {
                    self.gesture = Some(Gesture::Gate([p.x, p.y], [p.x, p.y]));
                }
                None
            }
            Tool::Gauge => {
                self.gauge = hit_gauge(document.level(), p.x, p.y);
                if self.gauge.is_none() {
                    self.gesture = Some(Gesture::Gauge([p.x, p.y], [p.x, p.y]));
                }
                None
            }
            Tool::Structure => {
                self.structure = hit_structure(document.level(), p.x, p.y);
                if self.structure.is_none() {
                    self.gesture = Some(Gesture::Structure([p.x, p.y], [p.x, p.y]));
                }
                None
            }
            _ => None,
        }
    }

    /// Asks for the basin under world point `p` to be filled ([`Authoring::fill_job`]); says
    /// why not when the click is off the level. `walls` is the ground with the blocking
    /// bodies on it (`None`: the terrain and gates only).
    fn fill(&mut self, document: &Document, p: Vec3, walls: Option<Vec<f32>>) -> Option<String> {
        let level = document.level();
        let cs = level.cell_size;
        let (cx, cy) = ((p.x / cs).floor(), (p.y / cs).floor());
        if !(cx >= 0.0 && cy >= 0.0) || cx as usize >= level.nx() || cy as usize >= level.ny() {
            return Some("Click inside the level to fill a basin".into());
        }
        // The ground the water meets: closed gates and standing bodies are walls to it.
        let ground = walls.unwrap_or_else(|| spillway::sim::closed_ground(level));
        let cell = (cx as usize, cy as usize);
        self.fill_job = Some(FillJob::new(level, ground, cell, self.fill));
        None
    }

    /// Makes what a fill found one command on `document`; returns what happened.
    pub fn filled(&mut self, document: &mut Document, filled: Filled) -> String {
        let notice = filled.notice();
        self.last_spill = filled.spill;
        if let Some(surface) = filled.surface {
            self.last_fill = Some(surface);
        }
        if !filled.patch.is_empty() {
            document.execute(Box::new(filled.patch));
        }
        self.spill_step = document.history().state();
        notice
    }

    /// Forgets the last fill's spill point once the level moved on from that fill: `reshaped`
    /// (the ground or the whole level changed), or an undo, redo or other edit since.
    pub fn check_spill(&mut self, document: &Document, reshaped: bool) {
        // The state, not the history's length: at its budget a push drops the oldest step.
        if reshaped || document.history().state() != self.spill_step {
            self.last_spill = None;
        }
    }

    /// A one-line reminder of how `tool` is used and what it will do, for the viewport.
    pub fn hint(&self, tool: Tool) -> String {
        match tool {
            Tool::Source | Tool::Sink => {
                "click: place or select   drag: move   Delete: remove".into()
            }
            Tool::Boundary => format!(
                "drag along an edge to paint: {}",
                kind_name(&self.boundary_kind).to_lowercase()
            ),
            Tool::Gate => {
                "drag a box across a valley: a gate   click: select   Delete: remove".into()
            }
            Tool::Structure => format!(
                "drag: a {}   click one: select   Delete: remove",
                self.structure_choice.name().to_lowercase()
            ),
            Tool::Gauge => "click: a stage gauge   drag across a channel: a discharge line   \
                            click one: select   Delete: remove"
                .into(),
            Tool::FillBasin => match self.fill {
                FillLevel::AboveClick(depth) => {
                    format!("click a basin: fill to {depth:.2} m above the ground there")
                }
                FillLevel::Surface(level) => format!("click a basin: fill to {level:.2} m"),
                FillLevel::ToSpill => {
                    "click a basin: fill it to the level where it overflows".into()
                }
            },
            _ => tool.help().into(),
        }
    }

    /// Abandons the gesture in progress, if any. Returns whether there was one.
    pub fn cancel(&mut self, document: &mut Document) -> bool {
        match self.gesture.take() {
            Some(Gesture::Place(drag)) => drag.cancel(document),
            Some(Gesture::Edge(stroke)) => stroke.cancel(document),
            Some(Gesture::Gate(..)) | Some(Gesture::Gauge(..)) | Some(Gesture::Structure(..)) => {}
            None => return false,
        }
        true
    }

    /// Deletes the selected structure as one command. Returns its name if it did.
    pub fn delete_structure(&mut self, document: &mut Document) -> Option<String> {
        if self.busy() {
            return None;
        }
        self.commit_pending(document);
        let i = self
            .structure
            .take()
            .filter(|&i| i < document.level().structures.len())?;
        let before = Features::of(document.level());
        let mut after = before.clone();
        let gone = after.structures.remove(i);
        document.execute(Box::new(EditFeatures::new(
            "Delete structure",
            before,
            after,
        )));
        Some(gone.name)
    }

    /// Deletes the selected gauge as one command. Returns its name if it did.
    pub fn delete_gauge(&mut self, document: &mut Document) -> Option<String> {
        if self.busy() {
            return None;
        }
        self.commit_pending(document);
        let i = self
            .gauge
            .take()
            .filter(|&i| i < document.level().gauges.len())?;
        let before = Features::of(document.level());
        let mut after = before.clone();
        let gone = after.gauges.remove(i);
        document.execute(Box::new(EditFeatures::new("Delete gauge", before, after)));
        Some(gone.name)
    }

    /// Deletes the selected gate as one command. Returns whether it did.
    pub fn delete_gate(&mut self, document: &mut Document) -> bool {
        if self.busy() {
            return false;
        }
        self.commit_pending(document);
        let Some(i) = self
            .gate
            .take()
            .filter(|&i| i < document.level().gates.len())
        else {
            return false;
        };
        let before = Features::of(document.level());
        let mut after = before.clone();
        after.gates.remove(i);
        document.execute(Box::new(EditFeatures::new("Delete gate", before, after)));
        true
    }

    /// Deletes the selected source or sink as one command. Returns its noun if it did.
    pub fn delete_selection(&mut self, document: &mut Document) -> Option<&'static str> {
        if self.busy() {
            return None;
        }
        self.commit_pending(document);
        let selection = self.selection.take()?;
        if !selection.exists(document.level()) {
            return None;
        }
        let before = Features::of(document.level());
        let mut after = before.clone();
        selection.remove_from(&mut after);
        let label = format!("Delete {}", selection.noun());
        document.execute(Box::new(EditFeatures::new(label, before, after)));
        Some(selection.noun())
    }

    /// Writes an inspector change of the features live, remembering the state before the
    /// first change so that the whole edit becomes one command.
    pub fn edit_live(&mut self, document: &mut Document, label: &str, edited: Features) {
        if Features::of(document.level()) == edited {
            return;
        }
        if self.pending.is_none() {
            self.pending = Some((label.to_owned(), Features::of(document.level())));
        }
        edited.write(document.stroke_level());
        document.note_change(&Change::Features);
    }

    /// Puts the level back as it was before the inspector edit in progress (Escape during a
    /// field's drag). Returns whether there was one.
    pub fn revert_pending(&mut self, document: &mut Document) -> bool {
        let Some((_, before)) = self.pending.take() else {
            return false;
        };
        before.write(document.stroke_level());
        document.note_change(&Change::Features);
        document.end_live_edit();
        true
    }

    /// Records the inspector edit in progress as one command.
    pub fn commit_pending(&mut self, document: &mut Document) {
        let Some((label, before)) = self.pending.take() else {
            return;
        };
        let mut after = Features::of(document.level());
        if after.in_time_order() {
            after.write(document.stroke_level());
            document.note_change(&Change::Features);
        }
        let edit = EditFeatures::new(label, before, after);
        if edit.is_empty() {
            document.end_live_edit();
        } else {
            document.push_applied(Box::new(edit));
        }
    }
}

/// A shape kind's name, for the inspector.
pub(crate) fn shape_name(shape: &Shape) -> &'static str {
    match shape {
        Shape::Point { .. } => "Point",
        Shape::Circle { .. } => "Circle",
        Shape::Box { .. } => "Box",
    }
}

impl EditorApp {
    /// The selected source or sink.
    pub fn selection(&self) -> Option<Selection> {
        self.authoring.selection
    }

    /// The boundary kind the Boundary tool paints, for changing it.
    pub fn boundary_kind_mut(&mut self) -> &mut BoundaryKind {
        &mut self.authoring.boundary_kind
    }

    /// The level the Fill basin tool fills to, for changing it.
    pub fn fill_level_mut(&mut self) -> &mut FillLevel {
        &mut self.authoring.fill
    }

    /// Where world point `p` (metres) appears in the window (points), as the viewport was laid
    /// out and looked at in the last frame; `None` behind the eye.
    pub fn screen_pos(&self, p: [f32; 3]) -> Option<egui::Pos2> {
        self.viewport
            .project(self.document.level(), Vec3::new(p[0], p[1], p[2]))
    }

    /// Checks every lake of the level for leaks and marks them; says what it found when
    /// `always`, else only if a lake leaks (the check made when the water starts). Levels of
    /// more than [`AUTO_LEAK_CELLS`] cells are checked only when asked.
    pub(crate) fn find_leaks(&mut self, always: bool) {
        let level = self.document.level();
        if !always && level.nx() * level.ny() > AUTO_LEAK_CELLS {
            return;
        }
        let walls = self.bodies.walls(&self.document);
        let level = self.document.level();
        self.authoring.leaks = crate::tools::leaks::leaks(level, &walls);
        self.repaint = true;
        match self.authoring.leaks.as_slice() {
            [] if always => self.notify("No leaks: every lake holds its water", false),
            [] => {}
            [leak, rest @ ..] => {
                let (x, y) = leak.escape.cell;
                let more = if rest.is_empty() {
                    String::new()
                } else {
                    format!(" ({} more lakes leak)", rest.len())
                };
                let over = if leak.escape.off_map {
                    " off the map"
                } else {
                    ""
                };
                // Asked for, a leak is a finding; found on the way to Play (a dam break is
                // meant to run), a note.
                self.notify(
                    format!(
                        "Leak: the lake at {:.2} m escapes{over} at cell ({x}, {y}) down to {:.2} m{more}",
                        leak.surface, leak.escape.surface
                    ),
                    always,
                );
            }
        }
    }

    /// Deletes the selected source or sink (the Delete key, with the Source or Sink tool).
    pub(crate) fn delete_selection(&mut self) {
        if self.sculpt.tool == Tool::Gate && self.authoring.delete_gate(&mut self.document) {
            self.notify("Deleted the gate", false);
            self.repaint = true;
        }
        if self.sculpt.tool == Tool::Structure
            && let Some(name) = self.authoring.delete_structure(&mut self.document)
        {
            self.notify(format!("Deleted {name}"), false);
            self.repaint = true;
        }
        if self.sculpt.tool == Tool::Gauge
            && let Some(name) = self.authoring.delete_gauge(&mut self.document)
        {
            self.notify(format!("Deleted {name}"), false);
            self.repaint = true;
        }
        if !matches!(self.sculpt.tool, Tool::Source | Tool::Sink) {
            return;
        }
        if let Some(noun) = self.authoring.delete_selection(&mut self.document) {
            self.notify(format!("Deleted the {noun}"), false);
            self.repaint = true;
        }
    }
}
