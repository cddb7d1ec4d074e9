//! Breaches in a running simulation (`StructureKind::Breach`), shared by the CPU and GPU
//! solvers: the cells a breach may lower, when it starts (at a time, by a trigger, when
//! overtopped), how fast it opens, and the cut it makes in the terrain at the start of each
//! sub-step. The GPU's `breach` entry of `structures.wgsl` does the same from the patch table.

use crate::level::{BreachGrowth, BreachStart, Level};

use super::structures::{Structures, cell_at};

/// How far a breach has opened, for a game or the editor.
#[derive(Clone, Debug, PartialEq)]
pub struct BreachState {
    /// The breach's name.
    pub name: String,
    /// Whether it has started.
    pub started: bool,
    /// How far it has opened: 0 (closed) to 1 (its full depth and width).
    pub progress: f32,
}

/// A breach as a simulation holds it.
#[derive(Clone, Debug)]
pub(crate) struct Cut {
    /// The cell at the upstream end of its centreline.
    pub upstream: u32,
    /// The highest ground along the centreline (the dam's crest), metres.
    pub crest: f32,
    pub bottom: f32,
    pub width: f32,
    pub side_slope: f32,
    pub start: BreachStart,
    pub growth: BreachGrowth,
    /// The cells it may lower, their ground as the level has it, and their distance from the
    /// centreline (metres).
    pub cells: Vec<(u32, f32, f32)>,
    /// Whether it has started, and how far it has opened (0 to 1).
    pub started: bool,
    pub progress: f32,
}

impl Cut {
    /// The height of the cut at `distance` metres from the centreline (infinite outside it).
    pub fn surface(&self, distance: f32) -> f32 {
        let p = self.progress;
        let floor = self.crest - p * (self.crest - self.bottom).max(0.0);
        let beyond = distance - 0.5 * p * self.width;
        if beyond <= 0.0 {
            floor
        } else if self.side_slope > 0.0 {
            floor + beyond / self.side_slope
        } else {
            f32::INFINITY
        }
    }
}

/// For each breach named in `new` (in order), the breach of `old` it goes on from: the one of
/// the same name and the same place among those of that name (the second `levee` goes on from
/// the second old `levee`, breaches sharing a trigger keep their own states), or, with as many
/// breaches as before, the one in its place whose name is gone (renamed). Shared by the CPU and
/// GPU solvers.
pub(crate) fn continued(old: &[BreachState], new: &[&str]) -> Vec<Option<usize>> {
    (0..new.len())
        .map(|k| {
            let name = new[k];
            let nth = new[..k].iter().filter(|n| **n == name).count();
            let same = (old.iter().enumerate())
                .filter(|(_, o)| o.name == name)
                .nth(nth)
                .map(|(i, _)| i);
            let renamed =
                (old.len() == new.len() && !new.contains(&old[k].name.as_str())).then_some(k);
            same.or(renamed)
        })
        .collect()
}

impl Structures {
    /// Takes the breaches' progress from `old` (the same level before an edit) by name, as
    /// the GPU solver does: a breach deleted or added ahead of another leaves that one as it
    /// was; one renamed in place (as many breaches as before, its old name gone) keeps its own.
    pub fn keep_progress(&mut self, old: &Structures) {
        let was = old.breach_states();
        let names: Vec<&str> = (self.cut_of.iter().zip(&self.names))
            .filter_map(|(c, name)| c.map(|_| name.as_str()))
            .collect();
        let cuts = self.cut_of.iter().filter_map(|c| *c);
        for (c, from) in cuts.zip(continued(&was, &names)) {
            if let Some(o) = from.map(|k| &was[k]) {
                self.cuts[c].started = o.started;
                self.cuts[c].progress = o.progress;
            }
        }
    }

    /// Starts every breach called `name` (a game's trigger). Returns whether a breach of that
    /// name that had not started existed.
    pub fn start_breach(&mut self, name: &str) -> bool {
        let mut started = false;
        for (i, n) in self.names.iter().enumerate() {
            if n == name
                && let Some(c) = self.cut_of[i]
                && !self.cuts[c].started
            {
                self.cuts[c].started = true;
                started = true;
            }
        }
        started
    }

    /// Every breach and how far it has opened, in the level's order.
    pub fn breach_states(&self) -> Vec<BreachState> {
        self.cut_of
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                let cut = &self.cuts[(*c)?];
                Some(BreachState {
                    name: self.names[i].clone(),
                    started: cut.started,
                    progress: cut.progress,
                })
            })
            .collect()
    }

    /// Opens the breaches by a sub-step of `dt` seconds from simulated `time`: starts those
    /// whose time has come or whose dam the water tops, grows those started, and lowers the
    /// ground of their cells in `terrain` to the cut. Before the sub-step's flow.
    pub fn open_breaches(&mut self, terrain: &mut [f32], depth: &[f32], (time, dt): (f64, f32)) {
        for c in &mut self.cuts {
            let up = c.upstream as usize;
            let surface = terrain[up] + depth[up];
            if !c.started {
                c.started = match c.start {
                    BreachStart::At(t) => time >= t as f64,
                    BreachStart::Trigger => false,
                    BreachStart::Overtopping(d) => surface >= c.crest + d,
                };
                continue;
            }
            if c.progress < 1.0 {
                let step = match c.growth {
                    BreachGrowth::Steady(t) if t > 0.0 => dt / t,
                    BreachGrowth::Steady(_) => 1.0,
                    BreachGrowth::Erosion(rate) => {
                        let depth = c.crest - c.bottom;
                        let floor = c.crest - c.progress * depth;
                        let head = (surface - floor).max(0.0);
                        if depth > 0.0 {
                            rate * head * head.sqrt() * dt / depth
                        } else {
                            1.0
                        }
                    }
                };
                c.progress = (c.progress + step).min(1.0);
            }
            // Never above what is there: an overlapping breach's deeper cut stays cut.
            for &(cell, ground, distance) in &c.cells {
                let t = &mut terrain[cell as usize];
                *t = t.min(ground.min(c.surface(distance)));
            }
        }
    }
}

/// A breach of `level` along `(from, to)` with its final `(bottom, width, side slope)`, cut
/// into `ground`: the level's terrain with its closed gates raised to their crests, as the
/// run holds it (a breach across a gate took the ground under the gate for its crest and its
/// cells, and broke the whole width at once on its first sub-step).
pub(crate) fn cut(
    level: &Level,
    ground: &[f32],
    (from, to): ([f32; 2], [f32; 2]),
    (bottom, width, side_slope): (f32, f32, f32),
    start: &BreachStart,
    growth: &BreachGrowth,
) -> Cut {
    let (nx, ny, dx) = (level.nx(), level.ny(), level.cell_size);
    let d = [to[0] - from[0], to[1] - from[1]];
    let len = (d[0] * d[0] + d[1] * d[1]).sqrt().max(1e-6);
    let u = [d[0] / len, d[1] / len];
    // The crest: the highest ground along the centreline.
    let samples = ((len / dx).ceil() as usize * 2).clamp(1, 100_000);
    let crest = (0..=samples)
        .map(|k| {
            let t = k as f32 / samples as f32;
            let p = [from[0] + t * d[0], from[1] + t * d[1]];
            ground[cell_at(p, (nx, ny, dx)) as usize]
        })
        .fold(f32::NEG_INFINITY, f32::max);
    // Its sides rise until they meet the ground, however high that stands beside the crest
    // (an abutment, a valley side): reaching only as far as the crest's height left a wall.
    let highest = (ground.iter().copied()).fold(crest, f32::max);
    let reach = 0.5 * width + (highest - bottom).max(0.0) * side_slope;
    // The cut when fully open: ground no higher is never cut, and is left out.
    let lowest = |across: f32| match (across - 0.5 * width).max(0.0) {
        0.0 => bottom,
        beyond if side_slope > 0.0 => bottom + beyond / side_slope,
        _ => f32::INFINITY,
    };
    let mut cells = Vec::new();
    let lo = [from[0].min(to[0]) - reach, from[1].min(to[1]) - reach];
    let hi = [from[0].max(to[0]) + reach, from[1].max(to[1]) + reach];
    let i0 = ((lo[0] / dx).floor().max(0.0) as usize).min(nx);
    let i1 = ((hi[0] / dx).ceil().max(0.0) as usize).min(nx);
    let j0 = ((lo[1] / dx).floor().max(0.0) as usize).min(ny);
    let j1 = ((hi[1] / dx).ceil().max(0.0) as usize).min(ny);
    for j in j0..j1 {
        for i in i0..i1 {
            let p = [
                (i as f32 + 0.5) * dx - from[0],
                (j as f32 + 0.5) * dx - from[1],
            ];
            let along = p[0] * u[0] + p[1] * u[1];
            let across = (p[0] * u[1] - p[1] * u[0]).abs();
            let c = j * nx + i;
            let z = ground[c];
            if (0.0..=len).contains(&along) && across <= reach && z > lowest(across) {
                cells.push((c as u32, z, across));
            }
        }
    }
    Cut {
        upstream: cell_at(from, (nx, ny, dx)),
        crest,
        bottom,
        width,
        side_slope,
        start: start.clone(),
        growth: growth.clone(),
        cells,
        started: false,
        progress: 0.0,
    }
}
