//! `Features`: the level's authored water features — sources, sinks and edge boundaries —
//! and [`EditFeatures`], the command that changes them. The lists are short, so a command
//! simply keeps them before and after the edit.

use spillway::Level;
use spillway::level::{Boundary, Gate, Gauge, Sink, Source, Structure};

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
            + self
                .structures
                .iter()
                .map(|s| match &s.kind {
                    spillway::level::StructureKind::SluiceGate { opening, .. } => {
                        opening.points.len() * 8
                    }
                    _ => 0,
                })
                .sum::<usize>()
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
