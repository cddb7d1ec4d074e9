//! Analysis overlays. Flow paths and Catchments ([`crate::tools::drainage`]) are computed on a
//! background thread whenever the terrain changed and no stroke is in progress, so the overlay
//! follows the sculpting without stalling a frame; the last result stays drawn while the next
//! one is computed. The maps of the run (max depth, max speed, arrival, hazard) come from the
//! running water, read back twice a second while it plays.

use std::sync::Arc;
use std::time::{Duration, Instant};

use spillway::Grid;
use spillway::sim::maps::MapKind;
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
    /// A map of the water's run so far.
    Map(MapKind),
}

impl TerrainAnalysis {
    /// Every choice, in menu order.
    pub const ALL: [TerrainAnalysis; 7] = [
        TerrainAnalysis::None,
        TerrainAnalysis::FlowPaths,
        TerrainAnalysis::Catchments,
        TerrainAnalysis::Map(MapKind::MaxDepth),
        TerrainAnalysis::Map(MapKind::MaxSpeed),
        TerrainAnalysis::Map(MapKind::Arrival),
        TerrainAnalysis::Map(MapKind::Hazard),
    ];

    /// The name shown in menus.
    pub fn name(self) -> &'static str {
        match self {
            TerrainAnalysis::None => "No terrain analysis",
            TerrainAnalysis::FlowPaths => "Flow paths",
            TerrainAnalysis::Catchments => "Catchments",
            TerrainAnalysis::Map(k) => k.name(),
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
            TerrainAnalysis::Map(MapKind::MaxDepth) => {
                "The deepest the water has stood on each cell since it started (darker: deeper)"
            }
            TerrainAnalysis::Map(MapKind::MaxSpeed) => {
                "The fastest the water has run over each cell since it started"
            }
            TerrainAnalysis::Map(MapKind::Arrival) => {
                "When the water first stood 1 cm deep on each cell (light: early, dark: late)"
            }
            TerrainAnalysis::Map(MapKind::Hazard) => {
                "The worst depth × speed on each cell since the water started: where a flood \
                 would sweep a person or a prop away"
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
    /// What the renderer holds: the overlay and the result (or read of the maps) it was made
    /// from, by number, and how it is drawn.
    uploaded: Option<((TerrainAnalysis, u64), CellOverlay)>,
    /// Reads of the maps so far (the number of the one held).
    maps_read: u64,
    /// Results computed so far.
    computed: u64,
    /// The area of one cell when the last computation started, m².
    cell_area: f32,
    /// The map of the running water shown, which one, when it was read, and the water's
    /// clock then.
    maps: Option<(Arc<Grid>, MapKind, Instant, f64)>,
    /// The simulated time the maps of the run start from.
    maps_since: f64,
    /// What the overlay drawn last frame shows, with its scale.
    pub legend: Option<String>,
}

impl Analysis {
    /// The terrain changed (or the whole level did): the drainage is out of date.
    pub fn terrain_changed(&mut self) {
        self.stale = true;
    }

    /// Another level was opened or made: the old one's drainage and maps are not shown on it
    /// while the new one's are worked out (the overlay chosen stays).
    pub fn document_replaced(&mut self) {
        *self = Self {
            shown: self.shown,
            computed: self.computed,
            maps_read: self.maps_read,
            stale: true,
            ..Self::default()
        };
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
        let wanted = matches!(
            self.shown,
            TerrainAnalysis::FlowPaths | TerrainAnalysis::Catchments
        );
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

    /// Once a frame: while a map of the run is shown, reads that map from the running water
    /// (`read`; only it: the four of a large level were a gigabyte a read) when there is none
    /// yet or another was shown, and when its `clock` moved since (twice a second at most
    /// while it is `playing`; at once after a Step or a seek); forgets it when the water is
    /// not `live`. The maps start at simulated time `since` (said by the legend past 0 s).
    pub fn refresh_maps(
        &mut self,
        (live, playing, clock, since): (bool, bool, f64, f64),
        read: impl FnOnce(MapKind) -> Option<Grid>,
    ) {
        self.maps_since = since;
        if !live {
            self.maps = None;
            return;
        }
        let TerrainAnalysis::Map(kind) = self.shown else {
            return;
        };
        let due = match &self.maps {
            Some((_, held, at, then)) if *held == kind => {
                *then != clock && (!playing || at.elapsed() >= Duration::from_millis(500))
            }
            _ => true,
        };
        if due && let Some(m) = read(kind) {
            self.maps = Some((Arc::new(m), kind, Instant::now(), clock));
            self.maps_read += 1;
        }
    }

    /// Hands the renderer the values of the overlay shown (when they changed) and returns how
    /// it draws them.
    pub fn prepare(&mut self, renderer: &mut TerrainRenderer) -> CellOverlay {
        let overlay = self.overlay(renderer);
        self.legend = match (self.shown, overlay) {
            (_, CellOverlay::None) => None,
            (TerrainAnalysis::Map(k), CellOverlay::Map { lo, hi }) => Some(format!(
                "{}: light {} {u} to dark {:.2} {u} (98th percentile and above){}",
                k.name(),
                // The first arrival (a level saved later in its run starts past 0 s).
                match k {
                    MapKind::Arrival => format!("{:.1}", lo + ARRIVAL_SLACK),
                    _ => format!("{lo}"),
                },
                hi,
                // Gone back on the timeline, the maps start there.
                match self.maps_since {
                    t if t > 0.0 => format!(", since t = {t:.1} s"),
                    _ => String::new(),
                },
                u = k.unit()
            )),
            (TerrainAnalysis::FlowPaths, CellOverlay::Ramp { lo, hi }) => Some(format!(
                "Flow paths: draining {:.0} m² (light) to {:.0} m² (dark)",
                10f32.powf(lo),
                10f32.powf(hi)
            )),
            (a, _) => Some(format!("{}: one colour per catchment", a.name())),
        };
        overlay
    }

    /// The overlay shown and its values handed to the renderer: worked out and uploaded once
    /// per result (or read of the maps) and overlay, then reused every frame.
    fn overlay(&mut self, renderer: &mut TerrainRenderer) -> CellOverlay {
        let source = match self.shown {
            TerrainAnalysis::None => return CellOverlay::None,
            TerrainAnalysis::Map(_) => self.maps.as_ref().map(|_| self.maps_read),
            _ => self.result.as_ref().map(|_| self.computed),
        };
        let Some(source) = source else {
            return CellOverlay::None;
        };
        let key = (self.shown, source);
        if let Some((k, overlay)) = self.uploaded
            && k == key
        {
            return overlay;
        }
        let (overlay, values) = match self.shown {
            TerrainAnalysis::Map(kind) => match &self.maps {
                Some((map, held, ..)) if *held == kind => map_overlay(map, kind),
                _ => return CellOverlay::None,
            },
            _ => match &self.result {
                Some(d) => drainage_overlay(d, self.shown, self.cell_area.max(1e-6)),
                None => return CellOverlay::None,
            },
        };
        if !renderer.set_cell_values(&values) {
            return CellOverlay::None;
        }
        self.uploaded = Some((key, overlay));
        overlay
    }

    /// The drainage last computed, and how many were computed so far.
    pub fn result(&self) -> (Option<&Drainage>, u64) {
        (self.result.as_deref(), self.computed)
    }
}

/// How the drainage overlay `shown` is drawn and its values: the log of the upslope area for
/// flow paths (cells of `cell` m²), the catchment ids for catchments.
fn drainage_overlay(d: &Drainage, shown: TerrainAnalysis, cell: f32) -> (CellOverlay, Grid) {
    if shown != TerrainAnalysis::FlowPaths {
        return (CellOverlay::Regions, d.basin.clone());
    }
    // Streams: cells draining at least a thousandth of the map (and 20 cells).
    let most = d.area.data.iter().copied().fold(cell, f32::max);
    let map = cell * d.area.data.len() as f32;
    let lo = (20.0 * cell).max(map / 1000.0).log10();
    let overlay = CellOverlay::Ramp {
        lo,
        hi: most.log10().max(lo + 1.0),
    };
    let values = Grid {
        nx: d.area.nx,
        ny: d.area.ny,
        data: d.area.data.iter().map(|a| a.max(1e-6).log10()).collect(),
    };
    (overlay, values)
}

/// How far below the first arrival the arrival ramp starts (the cells reached first are drawn).
const ARRIVAL_SLACK: f32 = 1e-3;

/// How map `kind` of the run (`values`) is drawn, and its values.
fn map_overlay(values: &Grid, kind: MapKind) -> (CellOverlay, Grid) {
    let values = values.clone();
    // The top of the scale: the 98th percentile of the cells the water touched, so one
    // violent cell (a breach) does not wash the rest out.
    let mut touched: Vec<f32> = values.data.iter().copied().filter(|v| *v > 0.0).collect();
    let most = if touched.is_empty() {
        0.0
    } else {
        let k = (touched.len() * 98 / 100).min(touched.len() - 1);
        *touched.select_nth_unstable_by(k, f32::total_cmp).1
    };
    let overlay = match kind {
        // Every cell reached, light at the first arrival (the run's start, for a level saved
        // at 4 h: from 0 s every cell was the darkest) and dark late.
        MapKind::Arrival => {
            let first = (values.data.iter().copied())
                .filter(|t| *t >= 0.0)
                .fold(f32::INFINITY, f32::min);
            let first = if first.is_finite() { first } else { 0.0 };
            // Below the first arrival by the slack or, past 9 h (where f32 steps 4 ms),
            // by one step of f32 (the slack rounded away and the first cells went undrawn).
            CellOverlay::Map {
                lo: (first - ARRIVAL_SLACK).min(first.next_down()),
                hi: most.max(first + 1e-2),
            }
        }
        MapKind::MaxDepth => CellOverlay::Map {
            lo: spillway::sim::maps::ARRIVAL_DEPTH,
            hi: most.max(0.1),
        },
        MapKind::MaxSpeed | MapKind::Hazard => CellOverlay::Map {
            lo: 0.01,
            hi: most.max(0.1),
        },
    };
    (overlay, values)
}

/// What the analyses found, for tests and tools reading the editor.
impl super::EditorApp {
    /// Where the basin of the last fill to its spill level overflows, as the viewport marks it.
    pub fn spill_marked(&self) -> Option<crate::tools::spill::Spill> {
        self.authoring.last_spill
    }

    /// The terrain drainage last computed for the analysis overlays, and how many were
    /// computed so far.
    pub fn drainage(&self) -> (Option<&crate::tools::drainage::Drainage>, u64) {
        self.analysis.result()
    }

    /// The leaks the last check found (marked in the viewport).
    pub fn leaks_marked(&self) -> &[crate::tools::leaks::Leak] {
        &self.authoring.leaks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arrival_ramp_starts_at_the_first_arrival() {
        // A level saved 4 h into its run: the ramp from 0 s drew every cell the darkest.
        let times = Grid {
            nx: 4,
            ny: 1,
            data: vec![spillway::sim::maps::NEVER, 14400.0, 14410.0, 14420.0],
        };
        let (overlay, _) = map_overlay(&times, MapKind::Arrival);
        let CellOverlay::Map { lo, hi } = overlay else {
            panic!("a ramp: {overlay:?}");
        };
        assert!(lo < 14400.0 && lo > 14399.9, "{lo}");
        assert!(hi >= 14410.0, "{hi}");
        assert!(
            spillway::sim::maps::NEVER < lo,
            "cells never reached are not drawn"
        );
        // Saved 11 h in: 40000 s less the slack is 40000 in f32, and the ramp drew none of
        // the cells reached first.
        let late = Grid {
            data: vec![spillway::sim::maps::NEVER, 40000.0, 40010.0, 40020.0],
            ..times
        };
        let (CellOverlay::Map { lo, .. }, _) = map_overlay(&late, MapKind::Arrival) else {
            panic!("a ramp");
        };
        assert!(lo < 40000.0 && lo > 39999.9, "{lo}");
    }
}
