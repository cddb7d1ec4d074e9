//! The ground the running water stands on, where it is not the document's terrain: gates
//! opened (their crests gone), a moving bed carving its channel, breaches cutting a dam. It is
//! read from the solver when a gate opens and, where the ground moves, once a second of wall
//! time while the water runs: the bodies stand on it, and the viewport draws it where it moves
//! (the breach's cut, the scour), so the water in a breach is not drawn under a whole dam.

use std::time::{Duration, Instant};

use spillway::Level;
use spillway::level::StructureKind;
use spillway::rect::CellRect;

use super::Preview;

/// How often a moving ground (a moving bed, a breach) is read, in wall time.
const GROUND_EVERY: Duration = Duration::from_secs(1);

/// The last read of the running ground, and what the viewport is to draw of it.
#[derive(Default)]
pub(super) struct RunningGround {
    /// Which gates were open at the last read, when it was made and the water's clock then
    /// (`None`: not read since the water started).
    seen: Option<(Vec<bool>, Instant, f64)>,
    /// The ground drawn in place of the document's terrain (a level whose ground moves), as a
    /// level of that size for the renderer, and the cells changed since the viewport took it.
    shown: Option<(Level, Option<CellRect>)>,
    /// The viewport draws the running ground and the water was reset: it draws the
    /// document's terrain again.
    revert: bool,
}

/// What of the ground the viewport is to draw anew.
pub enum GroundChange<'a> {
    /// The running water's ground (its `terrain`) changed in the rectangle.
    Running(&'a Level, CellRect),
    /// The water was reset: the document's terrain, whole.
    Authored,
}

impl RunningGround {
    /// The water restarts (from a keyframe, or a solver switch): the ground is read again.
    pub fn restart(&mut self) {
        self.seen = None;
    }

    /// The water was reset to the authored level: the viewport goes back to its terrain.
    pub fn reset(&mut self) {
        self.seen = None;
        self.revert |= self.shown.take().is_some();
    }

    /// Takes `ground` as the running ground drawn for `level`, noting the cells that changed.
    fn show(&mut self, level: &Level, ground: &[f32]) {
        let (shown, changed) = self.shown.get_or_insert_with(|| {
            let mut shown = Level::flat(level.nx(), level.ny(), level.cell_size, 0.0);
            shown.terrain.clone_from(&level.terrain);
            (shown, None)
        });
        if shown.terrain.data.len() != ground.len() {
            return;
        }
        let nx = shown.nx();
        for (i, (old, &new)) in shown.terrain.data.iter_mut().zip(ground).enumerate() {
            if old.to_bits() != new.to_bits() {
                *old = new;
                let cell = CellRect::new(i % nx, i / nx, i % nx + 1, i / nx + 1);
                *changed = Some(changed.map_or(cell, |c| c.union(&cell)));
            }
        }
        self.revert = false;
    }
}

impl Preview {
    /// Reads the ground the water runs over when it changed: a gate opened, or, once a second
    /// of wall time while the water runs, a moving bed or a breach at work. The bodies stand on
    /// it (a crate on a gate's crest stayed up in the air once it opened, and crates hovered
    /// over scour), and where it moves the viewport draws it.
    pub(super) fn follow_ground(&mut self, level: &Level) {
        let moving = level.params.sediment.is_some()
            || (level.structures.iter()).any(|s| matches!(s.kind, StructureKind::Breach { .. }));
        if !moving && !self.has_bodies() {
            return;
        }
        let open: Vec<bool> = self.gates().iter().map(|g| g.open).collect();
        let clock = self.clock();
        if let Some((seen, at, then)) = &self.ground.seen
            && *seen == open
            && !(moving && at.elapsed() >= GROUND_EVERY && clock != *then)
        {
            return;
        }
        let Some(ground) = self.read_terrain() else {
            return;
        };
        if let Some(bodies) = self.bodies.as_mut() {
            // Only the tiles of the ground with a changed sample are made again.
            bodies.set_ground(&ground);
        }
        self.ground.seen = Some((open, Instant::now(), clock));
        if moving {
            self.ground.show(level, &ground);
        }
    }

    /// What of the ground the viewport is to draw anew, once: the running water's where it
    /// moved since last asked, or the document's terrain again after a reset.
    pub fn take_ground_change(&mut self) -> Option<GroundChange<'_>> {
        if std::mem::take(&mut self.ground.revert) {
            return Some(GroundChange::Authored);
        }
        let (shown, changed) = self.ground.shown.as_mut()?;
        let rect = changed.take()?;
        Some(GroundChange::Running(shown, rect))
    }
}
