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
        } else {
            self.authoring.clear_selection();
            self.bodies.selected = None;
        }
    }

    pub(super) fn undo(&mut self) {
        if self.gesture_in_progress() {
            return;
        }
        self.authoring.commit_pending(&mut self.document);
        self.bodies.commit_pending(&mut self.document);
        let label = self.document.history().undo_label().map(str::to_owned);
        let picked = Picked::of(self);
        if self.document.undo() {
            picked.reselect(self);
            self.notify(format!("Undid {}", label.unwrap_or_default()), false);
        }
    }

    /// Whether a stroke, or a drag of a feature or a body, is under way.
    pub(super) fn gesture_in_progress(&self) -> bool {
        self.sculpt.stroke.is_some() || self.authoring.busy() || self.bodies.busy()
    }

    pub(super) fn redo(&mut self) {
        if self.gesture_in_progress() {
            return;
        }
        self.authoring.commit_pending(&mut self.document);
        self.bodies.commit_pending(&mut self.document);
        let label = self.document.history().redo_label().map(str::to_owned);
        let picked = Picked::of(self);
        if self.document.redo() {
            picked.reselect(self);
            self.notify(format!("Redid {}", label.unwrap_or_default()), false);
        }
    }
}

/// The names of what is selected, kept across an undo or redo: a list the step changed puts
/// the same object at another index (or removes it), and the selection follows the name
/// rather than staying on the index, where it would edit or delete another object.
struct Picked {
    feature: Option<(bool, String)>,
    gate: Option<String>,
    gauge: Option<String>,
    structure: Option<String>,
    body: Option<String>,
}

impl Picked {
    fn of(app: &EditorApp) -> Self {
        let level = app.document.level();
        let a = &app.authoring;
        let feature = match a.selection {
            Some(Selection::Source(i)) => {
                name_at(&level.sources, Some(i), |s| &s.name).map(|n| (false, n))
            }
            Some(Selection::Sink(i)) => {
                name_at(&level.sinks, Some(i), |s| &s.name).map(|n| (true, n))
            }
            None => None,
        };
        Self {
            feature,
            gate: name_at(&level.gates, a.gate, |g| &g.name),
            gauge: name_at(&level.gauges, a.gauge, |g| &g.name),
            structure: name_at(&level.structures, a.structure, |s| &s.name),
            body: name_at(&level.bodies, app.bodies.selected, |b| &b.name),
        }
    }

    /// Selects again, by name, what was selected (nothing where the name is gone).
    fn reselect(self, app: &mut EditorApp) {
        let level = app.document.level();
        let a = &mut app.authoring;
        a.selection = match &self.feature {
            Some((false, n)) => index_of(&level.sources, n, |s| &s.name).map(Selection::Source),
            Some((true, n)) => index_of(&level.sinks, n, |s| &s.name).map(Selection::Sink),
            None => None,
        };
        let find = |name: &Option<String>, index: &dyn Fn(&str) -> Option<usize>| {
            name.as_deref().and_then(index)
        };
        a.gate = find(&self.gate, &|n| index_of(&level.gates, n, |g| &g.name));
        a.gauge = find(&self.gauge, &|n| index_of(&level.gauges, n, |g| &g.name));
        a.structure = find(&self.structure, &|n| {
            index_of(&level.structures, n, |s| &s.name)
        });
        app.bodies.selected = find(&self.body, &|n| index_of(&level.bodies, n, |b| &b.name));
    }
}

/// The name of `items[i]`.
fn name_at<T>(items: &[T], i: Option<usize>, name: fn(&T) -> &String) -> Option<String> {
    i.and_then(|i| items.get(i)).map(|t| name(t).clone())
}

/// Where the item called `n` is in `items`.
fn index_of<T>(items: &[T], n: &str, name: fn(&T) -> &String) -> Option<usize> {
    items.iter().position(|t| name(t) == n)
}
