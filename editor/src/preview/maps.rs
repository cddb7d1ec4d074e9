//! The maps of the preview's run ([`spillway::sim::maps::RunMaps`]): the solver keeps them from
//! the moment the water starts (on the GPU, or on the CPU solver), and they are read back here
//! for the overlays and the export.

use spillway::Grid;
use spillway::sim::maps::{MapKind, RunMaps};

use super::Preview;

/// The GPU preview folds its maps in every `MAPS_STRIDE`-th step (and at the last step of each
/// frame; [`spillway::gpu::GpuSimulation::set_maps_stride`]): keeping them then costs half as
/// much, which keeps a 2048² level at 100× within a 60 Hz frame on an H100. A peak between two
/// folds (a thin film's speed spike) may be missed and an arrival counted a step late;
/// `spillway bake` and the CPU solver fold every step.
pub const MAPS_STRIDE: usize = 2;

impl Preview {
    /// The maps of the run since the water started, or `None` before it runs (a blocking
    /// read-back on the GPU: a few frames' worth of copies at 1024²).
    pub fn maps(&self) -> Option<RunMaps> {
        if let Some(cpu) = &self.cpu {
            return cpu.maps().cloned();
        }
        self.sim.as_ref()?.read_maps().ok().flatten()
    }

    /// The simulated time the maps of the run start from: when the water started, or the
    /// moment gone back to on the timeline (maps are not kept with the keyframes).
    pub fn maps_since(&self) -> f64 {
        self.maps_since
    }

    /// One map of the run, as [`Self::maps`] (on the GPU a quarter of the read-back).
    pub fn map(&self, kind: MapKind) -> Option<Grid> {
        if let Some(cpu) = &self.cpu {
            return cpu.maps().map(|m| m.grid(kind));
        }
        self.sim.as_ref()?.read_map(kind).ok().flatten()
    }
}
