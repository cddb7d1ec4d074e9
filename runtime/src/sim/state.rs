//! The solver's state going out and bodies coming in: blockers set by a game or the editor,
//! the effective surface under them, and the baked level.

use super::Simulation;
use super::blocking::{BlockerError, Blockers, Blocking};
use crate::level::{FlowState, Level};

impl Simulation {
    /// Sets the blocking bodies for the next steps (Kellomäki 2014 §3, see [`crate::sim::blocking`]); a game
    /// or the editor calls it after moving its bodies. Empty blockers switch blocking off, and
    /// the solver runs exactly its plain code path. Water is never added or removed here.
    pub fn set_blockers(&mut self, blockers: &Blockers) -> Result<(), BlockerError> {
        blockers.check(self.nx, self.ny)?;
        if blockers.is_empty() {
            self.blocking = None;
            return Ok(());
        }
        let blocking = self
            .blocking
            .get_or_insert_with(|| Box::new(Blocking::new(self.nx, self.ny)));
        blocking.fill(blockers, &self.terrain, &self.depth);
        Ok(())
    }

    /// Removes all blocking bodies: the solver runs its plain code path again.
    pub fn clear_blockers(&mut self) {
        self.blocking = None;
    }

    /// Whether blocking bodies are set.
    pub fn has_blockers(&self) -> bool {
        self.blocking.is_some()
    }

    /// The effective surface per cell, row-major (metres): terrain + depth, except under
    /// blocking bodies, where it estimates the surface the water would have without the body
    /// (Kellomäki §3.6). Buoyancy uses it; renderers draw [`Simulation::drawn_surface`].
    pub fn effective_surface(&self) -> Vec<f32> {
        let mut out = Vec::new();
        self.effective_surface_into(&mut out);
        out
    }

    /// [`Simulation::effective_surface`] into `out` (resized to the grid), for a caller that
    /// reads it every step without allocating.
    pub fn effective_surface_into(&self, out: &mut Vec<f32>) {
        out.clear();
        match self.blocking.as_deref() {
            None => out.extend(self.terrain.iter().zip(&self.depth).map(|(b, d)| b + d)),
            Some(b) => out
                .extend((0..self.depth.len()).map(|k| b.effective(k, &self.terrain, &self.depth))),
        }
    }

    /// The surface to draw per cell, row-major (metres): the effective surface, except over a
    /// body raised off the terrain with water standing on it, where it is the top of that water
    /// (Kellomäki §3.1: the top of the topmost water column). Renderers use it.
    pub fn drawn_surface(&self) -> Vec<f32> {
        let mut out = Vec::new();
        self.drawn_surface_into(&mut out);
        out
    }

    /// [`Simulation::drawn_surface`] into `out` (resized to the grid).
    pub fn drawn_surface_into(&self, out: &mut Vec<f32>) {
        out.clear();
        match self.blocking.as_deref() {
            None => out.extend(self.terrain.iter().zip(&self.depth).map(|(b, d)| b + d)),
            Some(b) => {
                out.extend((0..self.depth.len()).map(|k| b.drawn(k, &self.terrain, &self.depth)))
            }
        }
    }

    /// The level with the current water and flow state, ready to save as a baked level.
    ///
    /// # Panics
    /// If `level` is not the simulation's size: pass the level it was built from (or an
    /// edited copy of the same size).
    pub fn bake_into(&self, level: &Level) -> Level {
        assert_eq!(
            (level.nx(), level.ny()),
            (self.nx, self.ny),
            "bake_into: the level is not the simulation's size"
        );
        let mut out = level.clone();
        out.water.data.copy_from_slice(&self.depth);
        let (flow_x, flow_y, aux_x, aux_y) = match (&self.swe, &self.pipe_momentum) {
            (Some(v), _) => (v.u.clone(), v.v.clone(), self.qx.clone(), self.qy.clone()),
            (None, Some(m)) => (self.qx.clone(), self.qy.clone(), m.u.clone(), m.v.clone()),
            (None, None) => (self.qx.clone(), self.qy.clone(), Vec::new(), Vec::new()),
        };
        let max_speed = self
            .swe
            .as_ref()
            .or(self.pipe_momentum.as_ref())
            .map(|v| v.max_speed);
        out.flow = Some(FlowState {
            solver: self.params.solver,
            flow_x,
            flow_y,
            ghost: self.edges.ghost_flat(),
            time: self.time,
            carry: self.carry.clone(),
            aux_x,
            aux_y,
            max_speed,
            bed_floor: self
                .bed
                .as_ref()
                .map(|b| b.floor.clone())
                .unwrap_or_default(),
        });
        // A gate that has opened (by its time or a trigger) stays open in the baked level: it
        // opens at the first step after loading, before any water moves.
        self.gates.mark_opened(&mut out.gates);
        // A breach goes on from as far as it had opened.
        out.set_breaches(&self.breaches());
        // The bed as the water left it.
        if let Some(bed) = &self.bed {
            bed.bake(&self.terrain, &mut out.terrain.data);
        }
        out
    }

    /// A moving bed's ground as a bake leaves it (the grains in the water settled where they
    /// are) on the cells whose bed moves, `NaN` on the others (gates, cells outside the
    /// sediment's region): what [`crate::snapshot::WaterState::terrain`] holds, so a restore
    /// keeps the level's own ground there. `None` when the bed stands still.
    pub fn moved_bed(&self) -> Option<Vec<f32>> {
        let bed = self.bed.as_ref()?;
        let mut out = vec![f32::NAN; self.terrain.len()];
        bed.bake(&self.terrain, &mut out);
        Some(out)
    }
}
