//! Which of the authored water's edits the running water holds. An edit of the authored water
//! (a dab, a fill, their undo) reaches the running water as the change it makes, cell by cell.
//! After going back before an edit, the document still holds it but the restored water does
//! not: the water *owes* it, and an undo of it (or another change that takes it back) clears
//! the debt instead of taking the edit's water out of water that never had it.

use std::sync::Arc;

use spillway::Grid;
use spillway::rect::CellRect;

/// Where a restarted water's state comes from.
#[derive(Debug)]
pub(super) enum Origin {
    /// A keyframe, with the authored water its water held and the ledger's epoch then
    /// (`None`: unknown, nothing owed).
    Keyframe(Option<(u64, Arc<Grid>)>),
    /// The running water itself (the CPU solver restarts at each edit): the debt stays.
    Running,
}

/// The authored water the running water holds, as the document's less what it owes.
#[derive(Debug, Default)]
pub(super) struct WaterLedger {
    /// Per cell, the authored depth the running water lacks (empty: it lacks none).
    owed: Vec<f32>,
    /// The authored water the running water holds, shared with the keyframes taken since it
    /// last changed (`None`: to be made again).
    held: Option<Arc<Grid>>,
    /// What the running water held when the awaited GPU keyframe was asked for.
    pub awaited: Option<(u64, Arc<Grid>)>,
    /// Counts the times the authored water became the running water whole ("Keep this
    /// state", "Bake this frame"): a keyframe's authored water from before is no edit owed.
    pub epoch: u64,
}

impl WaterLedger {
    /// The water starts with the document's authored water `document`, from the authored
    /// water itself (`None`: nothing owed) or from a state of the run ([`Origin`]).
    pub fn start(&mut self, document: &Grid, from: Option<&Origin>) {
        if !matches!(from, Some(Origin::Running)) {
            // (A restart from the running water keeps what it held: the CPU solver restarts
            // at every edit, and each keyframe then took a copy of the whole grid.)
            self.held = None;
        }
        match from {
            None | Some(Origin::Keyframe(None)) => self.owed.clear(),
            Some(Origin::Keyframe(Some((epoch, _)))) if *epoch != self.epoch => {
                self.owed.clear();
            }
            Some(Origin::Keyframe(Some((_, held)))) => {
                self.owed.clear();
                if held.data.len() == document.data.len() {
                    if document.data != held.data {
                        let owed = document.data.iter().zip(&held.data).map(|(d, h)| d - h);
                        self.owed.extend(owed);
                    }
                    self.held = Some(Arc::clone(held));
                }
            }
            Some(Origin::Running) => {}
        }
    }

    /// The authored water the running water holds, `uploaded` being the document's as last
    /// handed over, with the epoch: for a keyframe.
    pub fn held(&mut self, uploaded: &Grid) -> (u64, Arc<Grid>) {
        let owed = &self.owed;
        let held = self.held.get_or_insert_with(|| {
            let mut grid = uploaded.clone();
            for (d, o) in grid.data.iter_mut().zip(owed) {
                *d -= o;
            }
            Arc::new(grid)
        });
        (self.epoch, Arc::clone(held))
    }

    /// The change of the document's water in `rect` from `was` to `now`, per cell, that the
    /// running water takes (`was` becomes `now` there). A change against what a cell owes (an
    /// undo of an edit the water was restored before) clears the debt first.
    pub fn change(&mut self, was: &mut Grid, now: &Grid, rect: &CellRect) -> Vec<(usize, f32)> {
        let mut change = Vec::new();
        if was.nx != now.nx || was.ny != now.ny {
            return change;
        }
        let owes = self.owed.len() == now.data.len();
        for y in rect.y0..rect.y1.min(now.ny) {
            for c in y * now.nx + rect.x0..y * now.nx + rect.x1.min(now.nx) {
                let (old, new) = (was.data[c], now.data[c]);
                if old.to_bits() == new.to_bits() {
                    continue;
                }
                was.data[c] = new;
                self.held = None;
                let mut d = new - old;
                if owes && self.owed[c] != 0.0 && (d > 0.0) != (self.owed[c] > 0.0) {
                    // Taken from the debt: all of it if the change is as large.
                    let cleared = if d.abs() >= self.owed[c].abs() {
                        -self.owed[c]
                    } else {
                        d
                    };
                    self.owed[c] += cleared;
                    d -= cleared;
                }
                if d != 0.0 {
                    change.push((c, d));
                }
            }
        }
        change
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_undo_of_an_edit_the_water_was_restored_before_takes_no_water() {
        let mut ledger = WaterLedger::default();
        let before = Grid::filled(4, 4, 1.0);
        let mut dabbed = before.clone();
        dabbed.data[5] = 1.5;
        // Restored from a keyframe taken before the dab, the document holding it.
        ledger.start(
            &dabbed,
            Some(&Origin::Keyframe(Some((0, Arc::new(before.clone()))))),
        );
        assert_eq!(ledger.held(&dabbed).1.data, before.data);
        let mut was = dabbed.clone();
        let all = CellRect::whole(4, 4);
        // The undo: nothing reaches the water.
        assert!(ledger.change(&mut was, &before, &all).is_empty());
        assert_eq!(ledger.held(&was).1.data, before.data);
        // The redo: the dab again, now.
        assert_eq!(ledger.change(&mut was, &dabbed, &all), vec![(5, 0.5)]);
        // A new dab on top of the owed one reaches the water whole.
        let mut ledger = WaterLedger::default();
        ledger.start(
            &dabbed,
            Some(&Origin::Keyframe(Some((0, Arc::new(before.clone()))))),
        );
        let mut was = dabbed.clone();
        let mut more = dabbed.clone();
        more.data[5] = 1.75;
        assert_eq!(ledger.change(&mut was, &more, &all), vec![(5, 0.25)]);
        // Taking out more than is owed takes the rest from the water.
        assert_eq!(
            ledger
                .change(&mut was, &Grid::filled(4, 4, 0.5), &all)
                .len(),
            16
        );
        assert_eq!(ledger.owed[5], 0.0);
    }

    #[test]
    fn a_keyframe_from_before_the_water_was_kept_owes_nothing() {
        // Keep this state made the running water the authored water: going back to a keyframe
        // from before took the difference for edits owed, and a dab there went to the debt.
        let mut ledger = WaterLedger {
            epoch: 1,
            ..Default::default()
        };
        let kept = Grid::filled(4, 4, 0.2);
        let old = Arc::new(Grid::filled(4, 4, 1.0));
        ledger.start(&kept, Some(&Origin::Keyframe(Some((0, old)))));
        let (mut was, mut dab) = (kept.clone(), kept.clone());
        dab.data[5] = 0.7;
        let all = CellRect::whole(4, 4);
        assert_eq!(ledger.change(&mut was, &dab, &all), vec![(5, 0.5)]);
    }
}
