//! Floating bodies push the water surface down (Kellomäki 2014 §4.2, after Thürey et al.):
//! the change of a floater's submerged volume over a cell is taken from (or given back to) that
//! cell's water, and the solver's waves carry the disturbance away. The water a floater holds is
//! kept in the volume balance as `Stats::displaced`, so nothing is lost.

use super::Simulation;
use crate::level::ranges::MAX_HEIGHT;

impl Simulation {
    /// Moves water into or out of floating bodies: each `(cell, volume)` takes `volume` m³ from
    /// the row-major `cell` (a positive volume: the body went deeper) or gives `-volume` back
    /// (it rose or left). A cell never gives more than it holds, so depth stays non-negative;
    /// non-finite volumes, cells outside the grid and water given back that would make a cell
    /// deeper than [`MAX_HEIGHT`] are skipped. Returns, per entry, the volume
    /// actually taken (negative: given back), for the caller's ledger of what each body holds.
    pub fn displace(&mut self, changes: &[(usize, f32)]) -> Vec<f32> {
        let area = self.dx * self.dx;
        let mut taken = Vec::with_capacity(changes.len());
        for &(cell, volume) in changes {
            let Some(d) = self.depth.get_mut(cell) else {
                taken.push(0.0);
                continue;
            };
            if !volume.is_finite() {
                taken.push(0.0);
                continue;
            }
            let before = *d;
            let after = (before - volume / area).max(0.0);
            if !after.is_finite() || after > MAX_HEIGHT.max(before) {
                // Deeper than any level holds (a huge volume on a small cell): skipped, as a
                // non-finite volume is.
                taken.push(0.0);
                continue;
            }
            *d = after;
            // Water given back can stand higher than any before: the CFL limit must know.
            self.max_depth = self.max_depth.max(after);
            let moved = (f64::from(before) - f64::from(after)) * f64::from(area);
            self.displaced += moved;
            taken.push(moved as f32);
        }
        taken
    }

    /// The effective surface of the row-major cell `k` (see
    /// [`Simulation::effective_surface`]), metres.
    ///
    /// # Panics
    /// If `k` is not a cell of the grid (`k < nx·ny`); [`Simulation::surface_at`] takes any
    /// world point.
    pub fn effective_surface_at(&self, k: usize) -> f32 {
        match self.blocking.as_deref() {
            None => self.terrain[k] + self.depth[k],
            Some(b) => b.effective(k, &self.terrain, &self.depth),
        }
    }
}
