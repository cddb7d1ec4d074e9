//! The gates of a running simulation: which cells each closes, their terrain under the gate,
//! and whether each is open yet. Shared by the CPU and GPU solvers.

use crate::level::Level;

use super::forcing::rasterise;

/// One gate as a simulation holds it.
#[derive(Clone, Debug)]
pub(crate) struct GateCells {
    pub name: String,
    /// Cell indices, ascending.
    pub cells: Vec<u32>,
    /// Terrain of those cells with the gate open.
    pub ground: Vec<f32>,
    pub crest: f32,
    pub open_at: Option<f32>,
    pub open: bool,
}

/// Whether a gate is open, for a game or the editor.
#[derive(Clone, Debug, PartialEq)]
pub struct GateState {
    /// The gate's name.
    pub name: String,
    /// Whether it has opened.
    pub open: bool,
    /// When it opens by itself, simulated seconds, as the level has it (`None`: only by a
    /// trigger or a call).
    pub open_at: Option<f32>,
}

/// All gates of a simulation.
#[derive(Clone, Debug, Default)]
pub(crate) struct Gates(pub Vec<GateCells>);

impl Gates {
    /// The gates of `level`, closed, but for a level saved with its water running (a flow
    /// state for its solver, as a bake writes, marking the gates that had opened with
    /// `open_at: Some(0.0)`): there those whose time has come at the saved time are open. An
    /// authored level's gates all start closed, so a reservoir behind a gate opening at 0 s
    /// is filled against it; it opens at the first step.
    pub fn new(level: &Level) -> Self {
        let (nx, ny) = (level.nx(), level.ny());
        let saved = (level.flow.as_ref())
            .filter(|f| f.solver == level.params.solver)
            .map(|f| f.time);
        Self(
            level
                .gates
                .iter()
                .map(|g| {
                    let mut cells = rasterise(&g.shape, nx, ny, level.cell_size);
                    cells.sort_unstable();
                    cells.dedup();
                    let ground = cells
                        .iter()
                        .map(|&c| level.terrain.data[c as usize])
                        .collect();
                    GateCells {
                        name: g.name.clone(),
                        cells,
                        ground,
                        crest: g.crest,
                        open_at: g.open_at,
                        open: saved.is_some_and(|s| g.open_at.is_some_and(|t| s >= t as f64)),
                    }
                })
                .collect(),
        )
    }

    /// Raises the cells of every closed gate in `terrain` to its crest.
    pub fn close(&self, terrain: &mut [f32]) {
        for g in self.0.iter().filter(|g| !g.open) {
            for &c in &g.cells {
                let t = &mut terrain[c as usize];
                *t = t.max(g.crest);
            }
        }
    }

    /// The index of the gate called `name` that is still closed.
    pub fn closed(&self, name: &str) -> Option<usize> {
        self.0.iter().position(|g| g.name == name && !g.open)
    }

    /// The first closed gate due to open at the start of a step of `dt` seconds from `time`:
    /// its opening time is nearer this step boundary than the next (a gate opens at the step
    /// boundary nearest its time, so a clock summed from `f32` steps a hair short of it, or
    /// steps that do not divide it, open it no more than half a step away from its time).
    pub fn due(&self, time: f64, dt: f32) -> Option<usize> {
        let reach = time + 0.5 * dt as f64;
        self.0
            .iter()
            .position(|g| !g.open && g.open_at.is_some_and(|t| reach >= t as f64))
    }

    /// The earliest opening time of a closed gate (the GPU solver splits its batches there).
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    pub fn next_time(&self) -> Option<f64> {
        self.0
            .iter()
            .filter(|g| !g.open)
            .filter_map(|g| g.open_at.map(f64::from))
            .reduce(f64::min)
    }

    /// Marks the gates of `out` (a bake of the level these gates came from) that had opened
    /// to open from the start (`open_at: Some(0.0)`). Gate by gate where `out` has as many
    /// (a gate timed later that shares an opened one's name stays closed); by name where it
    /// has not (gates added or deleted since).
    pub fn mark_opened(&self, out: &mut [crate::level::Gate]) {
        if out.len() == self.0.len() {
            for (gate, cells) in out.iter_mut().zip(&self.0) {
                if cells.open {
                    gate.open_at = Some(0.0);
                }
            }
            return;
        }
        for g in self.0.iter().filter(|g| g.open) {
            for gate in out.iter_mut().filter(|gate| gate.name == g.name) {
                gate.open_at = Some(0.0);
            }
        }
    }

    /// Opens gate `i`: its cells get their own terrain back in `terrain`.
    pub fn open(&mut self, i: usize, terrain: &mut [f32]) {
        let g = &mut self.0[i];
        g.open = true;
        for (&c, &ground) in g.cells.iter().zip(&g.ground) {
            terrain[c as usize] = ground;
        }
        // Where another closed gate covers the same cell, it still holds (only gates whose
        // cells reach into this one's range of cells can: the cells are sorted).
        let (Some(&lo), Some(&hi)) = (g.cells.first(), g.cells.last()) else {
            return;
        };
        for other in self.0.iter().filter(|o| !o.open) {
            if other.cells.first().is_some_and(|&c| c > hi)
                || other.cells.last().is_some_and(|&c| c < lo)
            {
                continue;
            }
            for &c in other.cells.iter().filter(|&&c| (lo..=hi).contains(&c)) {
                let t = &mut terrain[c as usize];
                *t = t.max(other.crest);
            }
        }
    }

    /// Every gate and whether it is open.
    pub fn states(&self) -> Vec<GateState> {
        self.0
            .iter()
            .map(|g| GateState {
                name: g.name.clone(),
                open: g.open,
                open_at: g.open_at,
            })
            .collect()
    }
}

/// The ground the water meets when the level starts: the terrain, raised to the crest of every
/// gate still closed then over its cells (all of an authored level's; of a level saved with its
/// water running, those that had not opened: see `Gates::new`), row-major. For analysis that treats gates as walls (where a basin spills, where it
/// leaks) and for drawing the ground as the water meets it.
pub fn closed_ground(level: &Level) -> Vec<f32> {
    let mut ground = level.terrain.data.clone();
    Gates::new(level).close(&mut ground);
    ground
}

/// The terrain with every gate raised to its crest, opened or not: the ground a run started
/// from the authored level held when it drew its breaches, which a bake of it (a gate opened
/// since) draws them on again.
pub(crate) fn authored_ground(level: &Level) -> Vec<f32> {
    let mut gates = Gates::new(level);
    gates.0.iter_mut().for_each(|g| g.open = false);
    let mut ground = level.terrain.data.clone();
    gates.close(&mut ground);
    ground
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::{Gate, Shape};

    fn gate(name: &str, x0: f32, x1: f32, crest: f32) -> Gate {
        Gate {
            name: name.into(),
            shape: Shape::Box {
                x0,
                y0: 0.0,
                x1,
                y1: 8.0,
            },
            crest,
            open_at: None,
        }
    }

    #[test]
    fn an_opened_gate_keeps_the_cells_another_closed_gate_covers() {
        let mut level = Level::flat(16, 8, 1.0, 1.0);
        level.gates = vec![
            gate("a", 0.0, 6.0, 5.0),
            gate("b", 4.0, 10.0, 4.0),
            gate("far", 13.0, 15.0, 3.0),
        ];
        let mut gates = Gates::new(&level);
        let mut terrain = level.terrain.data.clone();
        gates.close(&mut terrain);
        let row = |t: &[f32]| t[3 * 16..4 * 16].to_vec();
        let first = row(&terrain);
        assert_eq!(&first[..4], &[5.0; 4]);
        assert_eq!(&first[4..6], &[5.0; 2], "both gates: the higher crest");
        assert_eq!(&first[6..10], &[4.0; 4]);
        assert_eq!(&first[13..15], &[3.0; 2]);
        gates.open(gates.closed("a").expect("a"), &mut terrain);
        let opened = row(&terrain);
        assert_eq!(
            &opened[..4],
            &[1.0; 4],
            "a's own cells come back to the ground"
        );
        assert_eq!(
            &opened[4..10],
            &[4.0; 6],
            "b still holds, over a's cells too"
        );
        assert_eq!(&opened[13..15], &[3.0; 2], "a gate far away is untouched");
        gates.open(gates.closed("b").expect("b"), &mut terrain);
        assert_eq!(&row(&terrain)[..10], &[1.0; 10]);
        assert_eq!(gates.closed("a"), None);
    }

    #[test]
    fn a_saved_level_starts_with_the_gates_that_had_opened_open() {
        let mut level = Level::flat(16, 8, 1.0, 1.0);
        level.gates = vec![gate("opens", 0.0, 4.0, 5.0), gate("later", 8.0, 12.0, 5.0)];
        level.gates[0].open_at = Some(0.0);
        level.gates[1].open_at = Some(30.0);
        // Authored: a reservoir is filled against a gate that opens at 0 s.
        assert_eq!(closed_ground(&level)[3 * 16], 5.0);
        // Saved at 0.5 s (as a bake writes it): the first gate had opened.
        let mut sim = crate::sim::Simulation::new(&level).unwrap();
        sim.advance(0.5).unwrap();
        let saved = sim.bake_into(&level);
        let ground = closed_ground(&saved);
        assert_eq!(ground[3 * 16], 1.0, "the opened gate is no wall");
        assert_eq!(ground[3 * 16 + 9], 5.0, "the later one is");
        // Switched to the other solver, the saved state is not its own: the water starts
        // afresh at 0 s, behind closed gates.
        let mut other = saved.clone();
        other.params.solver = crate::level::SolverKind::Swe;
        assert_eq!(closed_ground(&other)[3 * 16], 5.0);
        // Before its first step, the simulation says so and meets the open ground.
        let mut again = crate::sim::Simulation::new(&saved).unwrap();
        let open: Vec<bool> = again.gates().iter().map(|g| g.open).collect();
        assert_eq!(open, [true, false]);
        assert!(!again.open_gate("opens"), "it was open already");
        assert!(again.surface_at(2.0, 3.5) < 1.5);
    }
}
