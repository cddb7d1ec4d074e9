//! Undo, redo, cancel and delete: the actions on what is being edited, which wait for (or,
//! Escape, undo) the stroke or drag in progress.

use super::EditorApp;
use crate::tools::Tool;
use crate::tools::placement::Selection;

impl EditorApp {
    /// Deletes the selected body (with the Body tool), or else the selected feature.
    pub(super) fn delete_selected(&mut self) {
        if self.sculpt.tool == Tool::Body {
            if let Some(name) = self.bodies.delete(&mut self.document) {
                self.notify(format!("Deleted {name}"), false);
            }
        } else {
            self.authoring.commit_pending(&mut self.document);
            self.delete_selection();
        }
    }

    /// Cancels the stroke or drag in progress, or else clears the selection.
    pub(super) fn cancel(&mut self) {
        if let Some(stroke) = self.sculpt.stroke.take() {
            stroke.cancel(&mut self.document);
            self.notify("Stroke cancelled", false);
        } else if self.authoring.cancel(&mut self.document)
            || self.bodies.cancel(&mut self.document)
        {
            self.notify("Cancelled", false);
        } else if self.authoring.revert_pending(&mut self.document)
            | self.bodies.revert_pending(&mut self.document)
        {
            // A field held mid-drag: its change is dropped, and with the selection its
            // field, so the drag goes no further (it was recorded on release).
            self.authoring.clear_selection();
            self.bodies.selected = None;
            self.notify("Edit cancelled", false);
        } else if self.level_form.cancel() {
            self.notify("Edit cancelled", false);
        } else {
            self.authoring.clear_selection();
            self.bodies.selected = None;
        }
    }

    pub(super) fn undo(&mut self) {
        self.step_history(false);
    }

    pub(super) fn redo(&mut self) {
        self.step_history(true);
    }

    /// Whether a stroke, or a drag of a feature or a body, is under way.
    pub(super) fn gesture_in_progress(&self) -> bool {
        self.sculpt.stroke.is_some() || self.authoring.busy() || self.bodies.busy()
    }

    /// Undoes (or, `forward`, redoes) one step once no gesture is under way, pending inspector
    /// edits first recorded; the selection follows its objects ([`Picked`]).
    fn step_history(&mut self, forward: bool) {
        if self.gesture_in_progress() {
            return;
        }
        self.authoring.commit_pending(&mut self.document);
        self.bodies.commit_pending(&mut self.document);
        // A level setting held mid-drag starts again from what the step leaves (its draft,
        // written back on release, undid the undo).
        self.level_form.forget_draft();
        let history = self.document.history();
        let label = if forward {
            history.redo_label()
        } else {
            history.undo_label()
        };
        let label = label.unwrap_or_default().to_owned();
        let picked = Picked::of(self);
        let stepped = if forward {
            self.document.redo()
        } else {
            self.document.undo()
        };
        if stepped {
            picked.reselect(self);
            let verb = if forward { "Redid" } else { "Undid" };
            self.notify(format!("{verb} {label}"), false);
        }
    }
}

/// What is selected, by place and name, kept across an undo or redo: a list the step changed
/// puts the same object at another place (or removes it), and the selection follows it there
/// rather than staying on the place, where it would edit or delete another object. An object
/// still at its place under its name stays selected (names need not be unique); one whose
/// place changed is found by its name; a list of the same length keeps the place (an undone
/// rename).
struct Picked {
    feature: Option<(bool, Mark)>,
    gate: Option<Mark>,
    gauge: Option<Mark>,
    structure: Option<Mark>,
    body: Option<Mark>,
}

/// A selected object's place, its name, and the length of its list.
type Mark = (usize, String, usize);

impl Picked {
    fn of(app: &EditorApp) -> Self {
        let level = app.document.level();
        let a = &app.authoring;
        let feature = match a.selection {
            Some(Selection::Source(i)) => {
                mark(&level.sources, Some(i), |s| &s.name).map(|m| (false, m))
            }
            Some(Selection::Sink(i)) => mark(&level.sinks, Some(i), |s| &s.name).map(|m| (true, m)),
            None => None,
        };
        Self {
            feature,
            gate: mark(&level.gates, a.gate, |g| &g.name),
            gauge: mark(&level.gauges, a.gauge, |g| &g.name),
            structure: mark(&level.structures, a.structure, |s| &s.name),
            body: mark(&level.bodies, app.bodies.selected, |b| &b.name),
        }
    }

    /// Selects again what was selected (nothing where it is gone).
    fn reselect(self, app: &mut EditorApp) {
        let level = app.document.level();
        let a = &mut app.authoring;
        a.selection = match &self.feature {
            Some((false, m)) => find(&level.sources, m, |s| &s.name).map(Selection::Source),
            Some((true, m)) => find(&level.sinks, m, |s| &s.name).map(Selection::Sink),
            None => None,
        };
        a.gate = self.gate.and_then(|m| find(&level.gates, &m, |g| &g.name));
        a.gauge = self
            .gauge
            .and_then(|m| find(&level.gauges, &m, |g| &g.name));
        a.structure = (self.structure).and_then(|m| find(&level.structures, &m, |s| &s.name));
        app.bodies.selected = self.body.and_then(|m| find(&level.bodies, &m, |b| &b.name));
    }
}

/// The mark of `items[i]`.
fn mark<T>(items: &[T], i: Option<usize>, name: fn(&T) -> &String) -> Option<Mark> {
    i.and_then(|i| Some((i, name(items.get(i)?).clone(), items.len())))
}

/// Where the object `(i, n, len)` is in `items` now.
fn find<T>(items: &[T], (i, n, len): &Mark, name: fn(&T) -> &String) -> Option<usize> {
    if items.get(*i).is_some_and(|t| name(t) == n) {
        return Some(*i);
    }
    (items.iter().position(|t| name(t) == n)).or((items.len() == *len && *i < *len).then_some(*i))
}
