//! `History`: the one undo stack of a document, with a memory budget.

use std::collections::VecDeque;

use spillway::Level;

use super::command::{Change, Command};

/// Default memory budget of a history: 512 MiB of stored values.
pub const DEFAULT_BUDGET_BYTES: usize = 512 << 20;

struct Entry {
    /// The document state after this command (unique, increasing).
    state: u64,
    command: Box<dyn Command>,
}

/// Undo and redo stacks of [`Command`]s. When the commands hold more than the budget, the
/// oldest are forgotten (the newest is always kept, so the last edit can be undone).
pub struct History {
    undo: VecDeque<Entry>,
    redo: Vec<Entry>,
    budget: usize,
    bytes: usize,
    /// The state reached by undoing everything still stored.
    base_state: u64,
    next_state: u64,
}

impl Default for History {
    fn default() -> Self {
        Self::new(DEFAULT_BUDGET_BYTES)
    }
}

impl History {
    /// An empty history holding at most `budget` bytes of commands.
    pub fn new(budget: usize) -> Self {
        Self {
            undo: VecDeque::new(),
            redo: Vec::new(),
            budget,
            bytes: 0,
            base_state: 0,
            next_state: 1,
        }
    }

    /// Rewrites the glTF paths of the bodies every stored command holds
    /// ([`Command::relink_bodies`]).
    pub fn relink_bodies(&mut self, to: &dyn Fn(&str) -> String) {
        for entry in self.undo.iter_mut().chain(&mut self.redo) {
            entry.command.relink_bodies(to);
        }
        // The paths' lengths are part of what the commands hold.
        self.bytes = (self.undo.iter().chain(&self.redo))
            .map(|e| e.command.bytes())
            .sum();
    }

    /// Records `command`, which the caller has already applied to the level. Clears the redo
    /// stack and forgets the oldest commands beyond the budget.
    pub fn push(&mut self, command: Box<dyn Command>) {
        for entry in self.redo.drain(..) {
            self.bytes -= entry.command.bytes();
        }
        self.bytes += command.bytes();
        let state = self.next_state;
        self.next_state += 1;
        self.undo.push_back(Entry { state, command });
        while self.bytes > self.budget && self.undo.len() > 1 {
            if let Some(old) = self.undo.pop_front() {
                self.bytes -= old.command.bytes();
                self.base_state = old.state;
            }
        }
    }

    /// Reverts the newest command; `None` if there is none.
    pub fn undo(&mut self, level: &mut Level) -> Option<Change> {
        let entry = self.undo.pop_back()?;
        let change = entry.command.revert(level);
        self.redo.push(entry);
        Some(change)
    }

    /// Re-applies the newest undone command; `None` if there is none.
    pub fn redo(&mut self, level: &mut Level) -> Option<Change> {
        let entry = self.redo.pop()?;
        let change = entry.command.apply(level);
        self.undo.push_back(entry);
        Some(change)
    }

    /// An id of the current document state: equal ids mean equal documents, so comparing it
    /// with the id at the last save tells whether there are unsaved changes.
    pub fn state(&self) -> u64 {
        self.undo.back().map_or(self.base_state, |e| e.state)
    }

    /// The label of the command Undo would revert.
    pub fn undo_label(&self) -> Option<&str> {
        self.undo.back().map(|e| e.command.label())
    }

    /// The label of the command Redo would re-apply.
    pub fn redo_label(&self) -> Option<&str> {
        self.redo.last().map(|e| e.command.label())
    }

    /// Number of commands that can be undone.
    pub fn undo_len(&self) -> usize {
        self.undo.len()
    }

    /// Number of commands that can be redone.
    pub fn redo_len(&self) -> usize {
        self.redo.len()
    }

    /// Bytes held by all stored commands.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The memory budget in bytes.
    pub fn budget(&self) -> usize {
        self.budget
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::command::{GridPatch, Layer, PatchTile};
    use spillway::rect::CellRect;

    fn patch(v: f32) -> Box<dyn Command> {
        Box::new(GridPatch::new(
            "set",
            Layer::Terrain,
            vec![PatchTile {
                rect: CellRect::new(0, 0, 1, 1),
                before: vec![0.0].into(),
                after: vec![v].into(),
            }],
        ))
    }

    #[test]
    fn budget_forgets_the_oldest_but_keeps_the_newest() {
        let one = patch(1.0).bytes();
        let mut h = History::new(one * 2);
        let mut level = Level::flat(2, 2, 1.0, 0.0);
        for v in 1..=5 {
            patch(v as f32).apply(&mut level);
            h.push(patch(v as f32));
        }
        assert_eq!(h.undo_len(), 2);
        assert!(h.bytes() <= h.budget());
        let s = h.state();
        h.undo(&mut level);
        h.undo(&mut level);
        assert!(h.undo(&mut level).is_none());
        assert_ne!(h.state(), s);
        h.redo(&mut level);
        h.redo(&mut level);
        assert_eq!(h.state(), s);
    }

    #[test]
    fn relinking_bodies_keeps_the_count_of_what_is_held() {
        // Longer paths after a relink were not counted: a redo step dropped by the next edit
        // took away more bytes than were counted, and the count wrapped below zero.
        let body = |gltf: &str| crate::document::bodies::test_body("crate", gltf, [1.0; 3]);
        let mut level = Level::flat(2, 2, 1.0, 0.0);
        let mut h = History::default();
        let place = crate::document::EditBodies::new("Place", vec![], vec![body("c.glb")]);
        place.apply(&mut level);
        h.push(Box::new(place));
        h.undo(&mut level);
        h.relink_bodies(&|g: &str| format!("bodies/long/folder/{g}"));
        let held: usize = h.redo.iter().map(|e| e.command.bytes()).sum();
        assert_eq!(h.bytes(), held);
        h.push(patch(1.0));
        assert_eq!(h.bytes(), patch(1.0).bytes());
    }
}
