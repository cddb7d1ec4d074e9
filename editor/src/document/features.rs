//! `Features`: the level's authored water features — sources, sinks and edge boundaries —
//! and [`EditFeatures`], the command that changes them. The lists are short, so a command
//! simply keeps them before and after the edit.

use spillway::Level;
use spillway::level::{
    Boundary, BoundaryKind, Gate, Gauge, Schedule, Sink, SinkKind, Source, SourceKind, Structure,
    StructureKind,
};

use super::command::Change;
use super::edit::{Edit, Part};

/// The sources, sinks and boundary segments of a level.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Features {
    /// Water sources.
    pub sources: Vec<Source>,
    /// Water sinks.
    pub sinks: Vec<Sink>,
    /// Boundary segments along the edges.
    pub boundaries: Vec<Boundary>,
    /// Gates.
    pub gates: Vec<Gate>,
    /// Stage gauges and discharge lines.
    pub gauges: Vec<Gauge>,
    /// Culverts, weirs and sluice gates.
    pub structures: Vec<Structure>,
}

impl Features {
    /// A copy of `level`'s features.
    pub fn of(level: &Level) -> Self {
        Self {
            sources: level.sources.clone(),
            sinks: level.sinks.clone(),
            boundaries: level.boundaries.clone(),
            gates: level.gates.clone(),
            gauges: level.gauges.clone(),
            structures: level.structures.clone(),
        }
    }
}

/// Puts `s`'s points in time order, a point on another's time moved a tenth of a second on
/// (past 2²¹ s, where f32 loses the tenth, the next value up): as a level must hold them.
/// Returns whether anything moved.
pub fn in_time_order(s: &mut Schedule) -> bool {
    // Every recorded edit asks of every schedule: one already in order is left untouched
    // (no copy, no sort).
    if s.points.windows(2).all(|w| w[0][0] < w[1][0]) {
        return false;
    }
    s.points.sort_by(|a, b| a[0].total_cmp(&b[0]));
    for i in 1..s.points.len() {
        let prev = s.points[i - 1][0];
        if s.points[i][0] <= prev {
            let on = prev + 0.1;
            s.points[i][0] = if on > prev { on } else { prev.next_up() };
        }
    }
    true
}

/// The schedule of a boundary kind that follows time, if it has one.
pub fn boundary_schedule(kind: &mut BoundaryKind) -> Option<&mut Schedule> {
    match kind {
        BoundaryKind::Tide(s) | BoundaryKind::Hydrograph(s) => Some(s),
        _ => None,
    }
}

impl Features {
    /// Every schedule the features hold (hydrograph sources and sinks, tide and hydrograph
    /// boundaries, sluice gates' openings).
    fn schedules(&self) -> impl Iterator<Item = &Schedule> {
        let sources = self.sources.iter().filter_map(|s| match &s.kind {
            SourceKind::Hydrograph(h) => Some(h),
            _ => None,
        });
        let sinks = self.sinks.iter().filter_map(|s| match &s.kind {
            SinkKind::Hydrograph(h) => Some(h),
            _ => None,
        });
        let edges = self.boundaries.iter().filter_map(|b| match &b.kind {
            BoundaryKind::Tide(h) | BoundaryKind::Hydrograph(h) => Some(h),
            _ => None,
        });
        let gates = self.structures.iter().filter_map(|s| match &s.kind {
            StructureKind::SluiceGate { opening, .. } => Some(opening),
            _ => None,
        });
        sources.chain(sinks).chain(edges).chain(gates)
    }

    /// Puts every schedule in time order ([`in_time_order`]): a time typed out of order and
    /// never left (the designer painted an edge or clicked the map with the field still
    /// focused) got into the level, which then would not save. Returns whether any moved.
    pub fn in_time_order(&mut self) -> bool {
        let mut moved = false;
        for s in &mut self.sources {
            if let SourceKind::Hydrograph(h) = &mut s.kind {
                moved |= in_time_order(h);
            }
        }
        for s in &mut self.sinks {
            if let SinkKind::Hydrograph(h) = &mut s.kind {
                moved |= in_time_order(h);
            }
        }
        for b in &mut self.boundaries {
            if let Some(h) = boundary_schedule(&mut b.kind) {
                moved |= in_time_order(h);
            }
        }
        for s in &mut self.structures {
            if let StructureKind::SluiceGate { opening, .. } = &mut s.kind {
                moved |= in_time_order(opening);
            }
        }
        moved
    }
}

impl Part for Features {
    const CHANGE: Change = Change::Features;

    fn of(level: &Level) -> Self {
        Features::of(level)
    }

    fn write(&self, level: &mut Level) {
        level.sources.clone_from(&self.sources);
        level.sinks.clone_from(&self.sinks);
        level.boundaries.clone_from(&self.boundaries);
        level.gates.clone_from(&self.gates);
        level.gauges.clone_from(&self.gauges);
        level.structures.clone_from(&self.structures);
    }

    fn bytes(&self) -> usize {
        let names: usize = self.sources.iter().map(|s| s.name.len()).sum::<usize>()
            + self.sinks.iter().map(|s| s.name.len()).sum::<usize>()
            + self.gates.iter().map(|g| g.name.len()).sum::<usize>()
            + self.gauges.iter().map(|g| g.name.len()).sum::<usize>()
            + self.structures.iter().map(|g| g.name.len()).sum::<usize>();
        names
            + self.sources.len() * std::mem::size_of::<Source>()
            + self.sinks.len() * std::mem::size_of::<Sink>()
            + self.boundaries.len() * std::mem::size_of::<Boundary>()
            + self.gates.len() * std::mem::size_of::<Gate>()
            + self.gauges.len() * std::mem::size_of::<Gauge>()
            // A schedule holds up to 4096 points: uncounted, a history of edits beside long
            // tides held many times its budget.
            + self.schedules().map(|s| s.points.len() * 8).sum::<usize>()
            + self.structures.len() * std::mem::size_of::<Structure>()
    }
}

/// An edit of the level's sources, sinks, boundaries or gates: placing, moving, deleting or
/// changing one, or painting boundaries along an edge.
pub type EditFeatures = Edit<Features>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Command;
    use spillway::level::{Shape, SourceKind};

    #[test]
    fn apply_and_revert_are_exact_inverses() {
        let mut level = Level::flat(8, 8, 1.0, 0.0);
        let before = Features::of(&level);
        let mut after = before.clone();
        after.sources.push(Source {
            name: "Source 1".into(),
            shape: Shape::Point { x: 2.0, y: 3.0 },
            kind: SourceKind::Rate { m3_per_s: 5.0 },
            enabled: true,
        });
        let edit = EditFeatures::new("Place source", before.clone(), after.clone());
        assert!(!edit.is_empty());
        assert_eq!(edit.apply(&mut level), Change::Features);
        assert_eq!(Features::of(&level), after);
        edit.revert(&mut level);
        assert_eq!(Features::of(&level), before);
        assert!(edit.bytes() > 0);
    }

    #[test]
    fn a_long_tide_counts_in_the_historys_budget() {
        // A boundary's schedule of 4096 points (32 KiB) was counted as the size of the
        // `Boundary` alone: a history of edits beside long tides held far more than its budget.
        use spillway::level::{Boundary, BoundaryKind, Edge, Schedule};
        let tide = Schedule {
            points: (0..4096).map(|i| [i as f32, 1.0]).collect(),
            period: None,
        };
        let features = Features {
            boundaries: vec![Boundary {
                edge: Edge::West,
                start: 0,
                end: 8,
                kind: BoundaryKind::Tide(tide),
            }],
            ..Features::default()
        };
        assert!(features.bytes() >= 4096 * 8, "{} bytes", features.bytes());
    }

    #[test]
    fn an_edit_past_the_limits_the_editor_opens_is_taken_back() {
        // 10 001 point sources saved (with a warning) but did not open again in the editor.
        let mut level = Level::flat(8, 8, 1.0, 0.0);
        let most = crate::project::open_limits().max_sources;
        let source = |i: usize| Source {
            name: format!("Source {i}"),
            shape: Shape::Point { x: 2.0, y: 3.0 },
            kind: SourceKind::Rate { m3_per_s: 1.0 },
            enabled: true,
        };
        level.sources = (0..most).map(source).collect();
        let mut doc = crate::document::Document::new(level, None);
        let before = Features::of(doc.level());
        let mut after = before.clone();
        after.sources.push(source(most));
        doc.execute(Box::new(EditFeatures::new(
            "Add source",
            before.clone(),
            after,
        )));
        assert_eq!(doc.level().sources.len(), most);
        assert_eq!(doc.history().undo_len(), 0, "nothing to undo");
        let why = doc.take_refused().expect("a reason");
        assert!(why.starts_with("Add source taken back: sources:"), "{why}");
        assert_eq!(doc.take_refused(), None, "said once");
        // A live edit (a placement drag) is taken back as well.
        doc.stroke_level().sources.push(source(most));
        let after = Features::of(doc.level());
        doc.push_applied(Box::new(EditFeatures::new("Place source", before, after)));
        assert_eq!(doc.level().sources.len(), most);
        assert!(doc.take_refused().is_some());

        // A level past them already (made elsewhere) keeps any edit: it can be mended.
        let mut level = Level::flat(8, 8, 1.0, 0.0);
        level.sources = (0..most + 2).map(source).collect();
        let mut doc = crate::document::Document::new(level, None);
        let before = Features::of(doc.level());
        let mut after = before.clone();
        after.sources.pop();
        doc.execute(Box::new(EditFeatures::new("Delete source", before, after)));
        assert_eq!(doc.level().sources.len(), most + 1);
        assert_eq!(doc.take_refused(), None);
    }
}
