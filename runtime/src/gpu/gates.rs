//! Gates on the GPU: opening one uploads its cells' own terrain (row runs, those of the same
//! columns in consecutive rows as one rectangle; no full-grid upload); gates with an opening time open between the recorded steps exactly when the CPU
//! solver would open them; terrain edits keep closed gates closed.

use crate::sim::GateState;

use super::GpuError;
use super::region::Target;
use super::sim::GpuSimulation;

impl GpuSimulation {
    /// Opens every gate called `name` (the preview's button, a game's trigger; gates sharing
    /// one open together): the water they held is released at the next step. Returns whether
    /// a closed gate of that name existed.
    pub fn open_gate(&mut self, name: &str) -> Result<bool, GpuError> {
        let mut opened = false;
        while let Some(i) = self.gates.closed(name) {
            self.open_gate_index(i)?;
            opened = true;
        }
        Ok(opened)
    }

    /// Every gate of the level and whether it has opened.
    pub fn gates(&self) -> Vec<GateState> {
        self.gates.states()
    }

    fn open_gate_index(&mut self, i: usize) -> Result<(), GpuError> {
        self.gates.0[i].open = true;
        let g = &self.gates.0[i];
        let nx = self.nx;
        // Runs of consecutive cells along a row.
        let mut runs: Vec<(usize, usize, Vec<f32>)> = Vec::new();
        for (&c, &ground) in g.cells.iter().zip(&g.ground) {
            let (x, y) = (c as usize % nx, c as usize / nx);
            let value = self
                .gates
                .0
                .iter()
                .filter(|o| !o.open)
                .fold(ground, |v, o| {
                    if o.cells.binary_search(&c).is_ok() {
                        v.max(o.crest)
                    } else {
                        v
                    }
                });
            match runs.last_mut() {
                Some((rx, ry, vals)) if *ry == y && *rx + vals.len() == x => vals.push(value),
                _ => runs.push((x, y, vec![value])),
            }
        }
        // Runs of the same columns in consecutive rows go up as one rectangle: a box gate is
        // one upload (an 8192² level's 164 × 8192 gate took 8192 uploads and 645.7 ms of a
        // frame on an H100).
        let mut blocks: Vec<(usize, usize, usize, Vec<f32>)> = Vec::new();
        for (x, y, vals) in runs {
            match blocks.last_mut() {
                Some((bx, by, rows, block))
                    if *bx == x && *by + *rows == y && block.len() == *rows * vals.len() =>
                {
                    block.extend(vals);
                    *rows += 1;
                }
                _ => blocks.push((x, y, 1, vals)),
            }
        }
        for (x, y, rows, block) in blocks {
            self.upload_rect(Target::Terrain, x, y, block.len() / rows, rows, &block)?;
        }
        Ok(())
    }

    /// Steps until the next gate opening time inside the next `n` steps of `dt`, if any: the
    /// steps to record before opening it (at the step boundary nearest its time, as the CPU
    /// solver opens it: `Gates::due`).
    pub(crate) fn steps_before_gate(&self, n: usize, dt: f32) -> Option<usize> {
        let t = self.gates.next_time()?;
        let dt = dt as f64;
        let k = ((t - self.clock) / dt - 0.5).ceil().max(0.0);
        (k < n as f64).then_some(k as usize)
    }

    /// Opens every gate due at the start of a step of `dt` from the recorded clock.
    pub(crate) fn open_due_gates(&mut self, dt: f32) -> Result<(), GpuError> {
        while let Some(i) = self.gates.due(self.clock, dt) {
            self.open_gate_index(i)?;
        }
        Ok(())
    }

    /// Terrain values about to be uploaded into the `w × h` rectangle at `(x0, y0)`: they
    /// become the ground of any gate cells there, and closed gates stay at their crest.
    pub(crate) fn gate_terrain(&mut self, x0: usize, y0: usize, w: usize, data: &mut [f32]) {
        let nx = self.nx;
        for g in &mut self.gates.0 {
            for (k, &c) in g.cells.iter().enumerate() {
                let (x, y) = (c as usize % nx, c as usize / nx);
                if x < x0 || y < y0 || x >= x0 + w {
                    continue;
                }
                let at = (y - y0) * w + (x - x0);
                let Some(v) = data.get_mut(at) else {
                    continue;
                };
                g.ground[k] = *v;
                if !g.open {
                    *v = v.max(g.crest);
                }
            }
        }
    }
}
