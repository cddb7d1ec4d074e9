//! Sources, sinks and rain: water added or removed inside the map each step, with the exact
//! volume changed reported to the ledger.

use rayon::prelude::*;

use crate::level::{Level, Shape, SinkKind, SourceKind};

/// A source or sink rasterised onto the cells it covers.
#[derive(Clone, Debug)]
pub(crate) struct Patch {
    /// Covered cell indices.
    pub cells: Vec<u32>,
    /// Positive rate adds water, negative removes it (m³/s).
    pub rate: f32,
    /// For level-driven patches: the target surface and the capacity in m³/s.
    pub level: Option<(f32, f32)>,
    /// Whether the patch is a source (adds water) or a sink.
    pub adds: bool,
    /// A rate that follows simulated time instead of `rate`.
    pub schedule: Option<crate::level::Schedule>,
}

/// The cells of `shape`: those whose centres lie inside it, or at least the one containing its
/// reference point.
pub(crate) fn rasterise(shape: &Shape, nx: usize, ny: usize, dx: f32) -> Vec<u32> {
    let cell_of = |x: f32, y: f32| {
        let cx = ((x / dx).floor().max(0.0) as usize).min(nx - 1);
        let cy = ((y / dx).floor().max(0.0) as usize).min(ny - 1);
        (cy * nx + cx) as u32
    };
    let (cx, cy) = match *shape {
        Shape::Point { x, y } | Shape::Circle { x, y, .. } => (x, y),
        Shape::Box { x0, y0, x1, y1 } => (0.5 * (x0 + x1), 0.5 * (y0 + y1)),
    };
    let inside = |px: f32, py: f32| match *shape {
        Shape::Point { .. } => false,
        Shape::Circle { x, y, radius } => (px - x).powi(2) + (py - y).powi(2) <= radius * radius,
        Shape::Box { x0, y0, x1, y1 } => {
            px >= x0.min(x1) && px <= x0.max(x1) && py >= y0.min(y1) && py <= y0.max(y1)
        }
    };
    let (lo_x, hi_x, lo_y, hi_y) = match *shape {
        Shape::Point { .. } => (0.0, -1.0, 0.0, -1.0),
        Shape::Circle { x, y, radius } => (x - radius, x + radius, y - radius, y + radius),
        Shape::Box { x0, y0, x1, y1 } => (x0.min(x1), x0.max(x1), y0.min(y1), y0.max(y1)),
    };
    let mut cells = Vec::new();
    if hi_x >= lo_x {
        let i0 = ((lo_x / dx - 0.5).floor().max(0.0) as usize).min(nx);
        let i1 = ((hi_x / dx).ceil().max(0.0) as usize).min(nx);
        let j0 = ((lo_y / dx - 0.5).floor().max(0.0) as usize).min(ny);
        let j1 = ((hi_y / dx).ceil().max(0.0) as usize).min(ny);
        for j in j0..j1 {
            for i in i0..i1 {
                if inside((i as f32 + 0.5) * dx, (j as f32 + 0.5) * dx) {
                    cells.push((j * nx + i) as u32);
                }
            }
        }
    }
    if cells.is_empty() {
        cells.push(cell_of(cx, cy));
    }
    cells
}

/// Rasterises the enabled sources and sinks of `level`.
pub(crate) fn patches(level: &Level) -> Vec<Patch> {
    let (nx, ny, dx) = (level.nx(), level.ny(), level.cell_size);
    let mut out = Vec::new();
    for s in level.sources.iter().filter(|s| s.enabled) {
        let cells = rasterise(&s.shape, nx, ny, dx);
        let (rate, lvl, schedule) = match &s.kind {
            SourceKind::Rate { m3_per_s } => (*m3_per_s, None, None),
            SourceKind::Level {
                surface,
                max_m3_per_s,
            } => (0.0, Some((*surface, *max_m3_per_s)), None),
            SourceKind::Hydrograph(h) => (0.0, None, Some(h.clone())),
        };
        out.push(Patch {
            cells,
            rate,
            level: lvl,
            adds: true,
            schedule,
        });
    }
    for s in level.sinks.iter().filter(|s| s.enabled) {
        let cells = rasterise(&s.shape, nx, ny, dx);
        let (rate, lvl, schedule) = match &s.kind {
            SinkKind::Rate { m3_per_s } => (*m3_per_s, None, None),
            SinkKind::Level {
                surface,
                max_m3_per_s,
            } => (0.0, Some((*surface, *max_m3_per_s)), None),
            SinkKind::Hydrograph(h) => (0.0, None, Some(h.clone())),
        };
        out.push(Patch {
            cells,
            rate,
            level: lvl,
            adds: false,
            schedule,
        });
    }
    out
}

/// Applies the patches and rain for `dt` seconds from simulated `time` (scheduled rates are
/// taken at `time`); returns the exact volumes added and removed.
///
/// Added water goes into `carry`, the per-cell compensation the depth pass folds in, so even
/// additions far below `f32` resolution of the depth are kept; sinks take from the depth
/// itself (never more than there is).
pub(crate) fn apply(
    patches: &[Patch],
    rain_m_per_s: f32,
    terrain: &[f32],
    depth: &mut [f32],
    carry: &mut [f32],
    (time, dt): (f64, f32),
    dx: f32,
) -> (f64, f64) {
    let area = (dx as f64) * (dx as f64);
    let (mut added, mut removed) = (0.0f64, 0.0f64);
    for p in patches {
        let n = p.cells.len() as f32;
        // At the sub-step's middle: its average over the sub-step (exact on a straight stretch
        // of the schedule; at its start a rising hydrograph came short by half a sub-step's
        // rise). The GPU's forcing pass does the same.
        let mid = time + 0.5 * dt as f64;
        let rate = p.schedule.as_ref().map_or(p.rate, |s| s.at(mid));
        // Per-cell wanted depth change (positive for sources, the amount to drain for sinks).
        // The surface counts what earlier patches added this sub-step (in `carry`): two level
        // sources on a cell filled it twice.
        let want = |c: usize, depth: &[f32], carry: &[f32]| -> f32 {
            match p.level {
                None => rate * dt / (n * dx * dx),
                Some((surface, _)) => {
                    let h = terrain[c] + depth[c] + carry[c];
                    if p.adds {
                        (surface - h).max(0.0)
                    } else {
                        (h - surface).max(0.0).min(depth[c])
                    }
                }
            }
        };
        let scale = match p.level {
            None => 1.0,
            Some((_, cap)) => {
                let total: f32 = p
                    .cells
                    .iter()
                    .map(|&c| want(c as usize, depth, carry))
                    .sum::<f32>()
                    * dx
                    * dx;
                let cap = cap * dt;
                if total > cap && total > 0.0 {
                    cap / total
                } else {
                    1.0
                }
            }
        };
        for &c in &p.cells {
            let c = c as usize;
            let w = want(c, depth, carry) * scale;
            if p.adds {
                let old = carry[c];
                carry[c] = old + w;
                added += (carry[c] as f64 - old as f64) * area;
            } else {
                let old = depth[c];
                depth[c] = (old - w).max(0.0);
                removed += (old as f64 - depth[c] as f64) * area;
            }
        }
    }
    if rain_m_per_s > 0.0 {
        let r = rain_m_per_s * dt;
        let gained: f64 = carry
            .par_chunks_mut(4096)
            .map(|chunk| {
                let mut s = 0.0f64;
                for c in chunk {
                    let old = *c;
                    *c = old + r;
                    s += *c as f64 - old as f64;
                }
                s
            })
            .collect::<Vec<_>>()
            .iter()
            .sum();
        added += gained * area;
    }
    (added, removed)
}

impl super::Simulation {
    /// Takes the sources and sinks and the structures of `level` (same size as the
    /// simulation) from the next step: a game starting a flood or stopping a pump by name
    /// ([`Level::set_running`]), or an editor's edit. The water already added or removed stays
    /// booked. Refused (nothing taken) where one is not valid ([`Level::check_forcing`]).
    pub fn set_sources_sinks(&mut self, level: &Level) -> Result<(), super::SimError> {
        if (level.nx(), level.ny()) != (self.nx, self.ny) {
            return Err(super::SimError::GridSize("sources and sinks"));
        }
        level.check_forcing()?;
        self.patches = patches(level);
        let mut structures = super::structures::Structures::new(level);
        structures.keep_progress(&self.structures);
        self.structures = structures;
        // A moving bed leaves the breaches' ground to them, where they are now.
        if let (Some(bed), Some(sediment)) = (&mut self.bed, &self.params.sediment) {
            let fixed = super::fixed_cells(&self.gates, &self.structures);
            bed.set_fixed(sediment, (self.nx, self.ny, self.dx), &fixed);
        }
        Ok(())
    }
}
