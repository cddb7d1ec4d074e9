//! Maps of a run ([`RunMaps`]): what the water did to each cell while it ran, folded in after
//! every step: the deepest water, the fastest flow, when the water arrived and the worst hazard
//! (depth × speed). A designer reads how bad a flood is from them; a game places props out of
//! its reach. The GPU solver keeps the same maps on the GPU (`gpu::GpuSimulation::record_maps`).

use super::Simulation;
use crate::Grid;

/// Depth at which the water has arrived at a cell, metres.
pub const ARRIVAL_DEPTH: f32 = 0.01;

/// Arrival time of a cell the water never reached.
pub const NEVER: f32 = -1.0;

/// One map of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapKind {
    /// The deepest water, metres.
    MaxDepth,
    /// The fastest cell speed, m/s.
    MaxSpeed,
    /// When the water first stood [`ARRIVAL_DEPTH`] deep, simulated seconds ([`NEVER`]: never).
    Arrival,
    /// The largest depth × speed, m²/s.
    Hazard,
}

impl MapKind {
    /// Every map, in the order they are stored.
    pub const ALL: [MapKind; 4] = [
        MapKind::MaxDepth,
        MapKind::MaxSpeed,
        MapKind::Arrival,
        MapKind::Hazard,
    ];

    /// The name shown to a designer.
    pub fn name(self) -> &'static str {
        match self {
            MapKind::MaxDepth => "Max depth",
            MapKind::MaxSpeed => "Max speed",
            MapKind::Arrival => "Arrival time",
            MapKind::Hazard => "Hazard",
        }
    }

    /// The unit of its values.
    pub fn unit(self) -> &'static str {
        match self {
            MapKind::MaxDepth => "m",
            MapKind::MaxSpeed => "m/s",
            MapKind::Arrival => "s",
            MapKind::Hazard => "m²/s",
        }
    }

    /// A file name stem for exports (`max_depth`, ...).
    pub fn stem(self) -> &'static str {
        match self {
            MapKind::MaxDepth => "max_depth",
            MapKind::MaxSpeed => "max_speed",
            MapKind::Arrival => "arrival",
            MapKind::Hazard => "hazard",
        }
    }
}

/// What a run did to each cell, row-major `nx·ny` each.
#[derive(Clone, Debug, PartialEq)]
pub struct RunMaps {
    /// Columns.
    pub nx: usize,
    /// Rows.
    pub ny: usize,
    /// The deepest water, metres.
    pub max_depth: Vec<f32>,
    /// The fastest cell speed (from the mean discharges of the cell's faces), m/s.
    pub max_speed: Vec<f32>,
    /// When the water first stood [`ARRIVAL_DEPTH`] deep, simulated seconds; [`NEVER`] where it
    /// did not.
    pub arrival: Vec<f32>,
    /// The largest depth × speed, m²/s.
    pub hazard: Vec<f32>,
}

impl RunMaps {
    /// Maps of an `nx × ny` grid where nothing happened yet.
    pub fn new(nx: usize, ny: usize) -> Self {
        let n = nx * ny;
        Self {
            nx,
            ny,
            max_depth: vec![0.0; n],
            max_speed: vec![0.0; n],
            arrival: vec![NEVER; n],
            hazard: vec![0.0; n],
        }
    }

    /// Folds in a state at `time`: `depth` and the speed of each cell.
    pub fn record(&mut self, depth: &[f32], speed: impl Fn(usize) -> f32, time: f32) {
        for (k, &d) in depth.iter().enumerate() {
            let s = speed(k);
            self.max_depth[k] = self.max_depth[k].max(d);
            self.max_speed[k] = self.max_speed[k].max(s);
            self.hazard[k] = self.hazard[k].max(d * s);
            if self.arrival[k] < 0.0 && d >= ARRIVAL_DEPTH {
                self.arrival[k] = time;
            }
        }
    }

    /// One map as a grid.
    pub fn grid(&self, kind: MapKind) -> Grid {
        let data = match kind {
            MapKind::MaxDepth => &self.max_depth,
            MapKind::MaxSpeed => &self.max_speed,
            MapKind::Arrival => &self.arrival,
            MapKind::Hazard => &self.hazard,
        };
        Grid {
            nx: self.nx,
            ny: self.ny,
            data: data.clone(),
        }
    }
}

impl Simulation {
    /// Starts keeping the maps of the run from the state now (again from nothing if they were
    /// kept already); every step folds its state in.
    pub fn record_maps(&mut self) {
        self.maps = Some(Box::new(RunMaps::new(self.nx, self.ny)));
        self.update_maps();
    }

    /// Goes on keeping `maps` (of a run this one continues: the same water, restarted after an
    /// edit) from the state now; maps of another size start again from nothing.
    pub fn record_maps_from(&mut self, maps: RunMaps) {
        if (maps.nx, maps.ny) != (self.nx, self.ny) {
            return self.record_maps();
        }
        self.maps = Some(Box::new(maps));
        self.update_maps();
    }

    /// The maps of the run since [`Self::record_maps`], if they are kept.
    pub fn maps(&self) -> Option<&RunMaps> {
        self.maps.as_deref()
    }

    /// Folds the current state into the maps, if they are kept.
    pub(crate) fn update_maps(&mut self) {
        let Some(mut maps) = self.maps.take() else {
            return;
        };
        let nx = self.nx;
        let speed = |k: usize| {
            let (u, v) = self.cell_velocity(k % nx, k / nx);
            (u * u + v * v).sqrt()
        };
        maps.record(&self.depth, speed, self.time as f32);
        self.maps = Some(maps);
    }
}
