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
}

/// All gates of a simulation.
#[derive(Clone, Debug, Default)]
pub(crate) struct Gates(pub Vec<GateCells>);

impl Gates {
    /// The gates of `level`, all closed.
    pub fn new(level: &Level) -> Self {
        let (nx, ny) = (level.nx(), level.ny());
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
                        open: false,
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

    /// The first closed gate whose opening time has come at `time`.
    pub fn due(&self, time: f64) -> Option<usize> {
        self.0
            .iter()
            .position(|g| !g.open && g.open_at.is_some_and(|t| time >= t as f64))
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

    /// Opens gate `i`: its cells get their own terrain back in `terrain`.
    pub fn open(&mut self, i: usize, terrain: &mut [f32]) {
        let g = &mut self.0[i];
        g.open = true;
        for (&c, &ground) in g.cells.iter().zip(&g.ground) {
            terrain[c as usize] = ground;
        }
        // Where another closed gate covers the same cell, it still holds.
        let rest = Gates(self.0.clone());
        rest.close(terrain);
    }

    /// Every gate and whether it is open.
    pub fn states(&self) -> Vec<GateState> {
        self.0
            .iter()
            .map(|g| GateState {
                name: g.name.clone(),
                open: g.open,
            })
            .collect()
    }
}

/// The ground the water meets when the level starts: the terrain, raised to the crest of every
/// gate over its cells (gates start closed), row-major. For analysis that treats gates as walls
/// (where a basin spills, where it leaks).
pub fn closed_ground(level: &Level) -> Vec<f32> {
    let mut ground = level.terrain.data.clone();
    Gates::new(level).close(&mut ground);
    ground
}
