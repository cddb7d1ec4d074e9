//! Terrain analysis overlays: Flow paths and Catchments ([`crate::tools::drainage`]), computed
//! on a background thread whenever the terrain changed and no stroke is in progress, so the
//! overlay follows the sculpting without stalling a frame; the last result stays drawn while
//! the next one is computed.

use std::sync::Arc;

use spillway::Grid;
use spillway_render::{CellOverlay, TerrainRenderer};

use crate::task::Task;
use crate::tools::drainage::{Drainage, drainage};

/// Which analysis of the terrain the viewport draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TerrainAnalysis {
    /// None.
    #[default]
    None,
    /// Where rain runs: cells by the area draining through them, streams darkest.
    FlowPaths,
    /// Which basin each cell drains into, each in its own colour.
    Catchments,
}

impl TerrainAnalysis {
    /// Every choice, in menu order.
    pub const ALL: [TerrainAnalysis; 3] = [
        TerrainAnalysis::None,
        TerrainAnalysis::FlowPaths,
        TerrainAnalysis::Catchments,
    ];

    /// The name shown in menus.
    pub fn name(self) -> &'static str {
        match self {
            TerrainAnalysis::None => "No terrain analysis",
            TerrainAnalysis::FlowPaths => "Flow paths",
            TerrainAnalysis::Catchments => "Catchments",
        }
    }

    /// What it shows, for tooltips.
    pub fn tip(self) -> &'static str {
        match self {
            TerrainAnalysis::None => "The terrain without an analysis overlay",
            TerrainAnalysis::FlowPaths => {
                "Where rain would run: blue where more ground drains through a cell, darkest \
                 along the streams (upslope area, pits filled, steepest descent)"
            }
            TerrainAnalysis::Catchments => {
                "Which hollow, lake or map edge rain falling on each cell ends in: one colour \
                 per catchment, a dark line between catchments"
            }
        }
    }
}

/// The drainage of the terrain, as far as it is known.
#[derive(Default)]
pub(crate) struct Analysis {
    /// The overlay shown.
    pub shown: TerrainAnalysis,
    /// The drainage of the terrain as it was when last computed.
    result: Option<Arc<Drainage>>,
    /// The computation running.
    task: Option<Task<Drainage>>,
    /// The terrain changed since the last computation started.
    stale: bool,
    /// What the renderer holds: the overlay and the result it was made from.
    uploaded: Option<(TerrainAnalysis, usize)>,
    /// Results computed so far.
    computed: u64,
    /// The area of one cell when the last computation started, m².
    cell_area: f32,
}

impl Analysis {
    /// The terrain changed (or the whole level did): the drainage is out of date.
    pub fn terrain_changed(&mut self) {
        self.stale = true;
    }

    /// Once a frame: starts a computation when the overlay is shown, the drainage is out of
    /// date and no stroke runs (`stroking`), and takes a finished one. Returns whether a
    /// computation is still running (the caller draws another frame).
    pub fn update(&mut self, terrain: &Grid, cell_size: f32, stroking: bool) -> bool {
        if let Some(task) = &self.task
            && let Some(done) = task.poll()
        {
            self.task = None;
            if let Ok(d) = done {
                self.result = Some(Arc::new(d));
                self.uploaded = None;
                self.computed += 1;
            }
        }
        let wanted = self.shown != TerrainAnalysis::None;
        if wanted && (self.stale || self.result.is_none()) && !stroking && self.task.is_none() {
            self.stale = false;
            self.cell_area = cell_size * cell_size;
            let terrain = terrain.clone();
            self.task = Some(Task::spawn("Terrain drainage", move |_| {
                Ok::<_, std::convert::Infallible>(drainage(&terrain, cell_size))
            }));
        }
        self.task.is_some()
    }

    /// Hands the renderer the values of the overlay shown (when they changed) and returns how
    /// it draws them.
    pub fn prepare(&mut self, renderer: &mut TerrainRenderer) -> CellOverlay {
        let Some(d) = &self.result else {
            return CellOverlay::None;
        };
        let key = (self.shown, Arc::as_ptr(d) as usize);
        let cell = self.cell_area.max(1e-6);
        let overlay = match self.shown {
            TerrainAnalysis::None => return CellOverlay::None,
            // Streams: cells draining at least a thousandth of the map (and 20 cells).
            TerrainAnalysis::FlowPaths => {
                let most = d.area.data.iter().copied().fold(cell, f32::max);
                let map = cell * d.area.data.len() as f32;
                let lo = (20.0 * cell).max(map / 1000.0).log10();
                CellOverlay::Ramp {
                    lo,
                    hi: most.log10().max(lo + 1.0),
                }
            }
            TerrainAnalysis::Catchments => CellOverlay::Regions,
        };
        if self.uploaded != Some(key) {
            let values = match self.shown {
                TerrainAnalysis::FlowPaths => Grid {
                    nx: d.area.nx,
                    ny: d.area.ny,
                    data: d.area.data.iter().map(|a| a.max(1e-6).log10()).collect(),
                },
                _ => d.basin.clone(),
            };
            if !renderer.set_cell_values(&values) {
                return CellOverlay::None;
            }
            self.uploaded = Some(key);
        }
        overlay
    }

    /// The drainage last computed, and how many were computed so far.
    pub fn result(&self) -> (Option<&Drainage>, u64) {
        (self.result.as_deref(), self.computed)
    }
}
