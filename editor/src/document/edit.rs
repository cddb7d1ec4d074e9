//! [`Edit`]: the command that replaces one small part of the level whole, keeping it before and
//! after — the sources, sinks, boundaries and gates ([`super::Features`]), the bodies, the
//! settings ([`super::Settings`]) or the initial water ([`super::WaterState`]). Each part says
//! how it is read from and written to a level ([`Part`]).

use spillway::Level;

use super::command::{Change, Command};

/// A part of the level that an [`Edit`] replaces whole.
pub trait Part: Clone + PartialEq + Send + 'static {
    /// What writing it changes, for the views.
    const CHANGE: Change;
    /// A copy of the part of `level`.
    fn of(level: &Level) -> Self;
    /// Writes this part into `level`.
    fn write(&self, level: &mut Level);
    /// Heap bytes it holds, for the history's memory budget.
    fn bytes(&self) -> usize;
    /// Rewrites the glTF paths of the bodies it holds ([`Command::relink_bodies`]).
    fn relink_bodies(&mut self, _to: &dyn Fn(&str) -> String) {}
}

/// An undoable replacement of one [`Part`] of the level.
#[derive(Clone, Debug, PartialEq)]
pub struct Edit<P> {
    label: String,
    before: P,
    after: P,
}

impl<P: Part> Edit<P> {
    /// A command turning `before` into `after`.
    pub fn new(label: impl Into<String>, before: P, after: P) -> Self {
        Self {
            label: label.into(),
            before,
            after,
        }
    }

    /// Whether the edit changes nothing.
    pub fn is_empty(&self) -> bool {
        self.before == self.after
    }
}

impl<P: Part> Command for Edit<P> {
    fn label(&self) -> &str {
        &self.label
    }

    fn apply(&self, level: &mut Level) -> Change {
        self.after.write(level);
        P::CHANGE
    }

    fn revert(&self, level: &mut Level) -> Change {
        self.before.write(level);
        P::CHANGE
    }

    fn bytes(&self) -> usize {
        self.before.bytes() + self.after.bytes()
    }

    fn relink_bodies(&mut self, to: &dyn Fn(&str) -> String) {
        self.before.relink_bodies(to);
        self.after.relink_bodies(to);
    }
}
