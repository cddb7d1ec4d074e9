//! The maps of the preview's run ([`spillway::sim::maps::RunMaps`]): the solver keeps them from
//! the moment the water starts (on the GPU, or on the CPU solver), and they are read back here
//! for the overlays and the export.

use spillway::sim::maps::RunMaps;

use super::Preview;

impl Preview {
    /// The maps of the run since the water started, or `None` before it runs (a blocking
    /// read-back on the GPU: a few frames' worth of copies at 1024²).
    pub fn maps(&self) -> Option<RunMaps> {
        if let Some(cpu) = &self.cpu {
            return cpu.maps().cloned();
        }
        self.sim.as_ref()?.read_maps().ok().flatten()
    }
}
