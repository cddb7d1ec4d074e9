//! [`WaterView`]: the GPU solver's buffers a renderer draws the water from.

use super::GpuSimulation;

/// The GPU solver's buffers a renderer draws the water from, with no CPU copy
/// ([`GpuSimulation::water_view`]); a CPU solver's state copied into buffers laid out alike
/// draws the same way. Handles are cheap clones of the solver's own buffers.
#[derive(Clone, Debug)]
pub struct WaterView {
    /// Terrain heights, `nx·ny` `f32` ([`GpuSimulation::terrain_buffer`]).
    pub terrain: wgpu::Buffer,
    /// Depth, two halves of `depth_half` `f32` ([`GpuSimulation::depth_buffer`]).
    pub depth: wgpu::Buffer,
    /// x-face discharges, two halves ([`GpuSimulation::flow_x_buffer`]).
    pub flow_x: wgpu::Buffer,
    /// y-face discharges, two halves ([`GpuSimulation::flow_y_buffer`]).
    pub flow_y: wgpu::Buffer,
    /// The four-word view block naming the current halves ([`GpuSimulation::view_buffer`]).
    pub view: wgpu::Buffer,
    /// The blocker buffer ([`GpuSimulation::blocker_view`]): the water is drawn at its effective
    /// surface. Zeros: no blockers.
    pub blockers: wgpu::Buffer,
    /// Elements in one depth half ([`GpuSimulation::depth_half`]).
    pub depth_half: u32,
    /// The deepest water each cell has held since the maps of the run were started
    /// ([`GpuSimulation::record_maps`]), `nx·ny` `f32`: the ground the water has wetted.
    /// `None` while no maps are kept.
    pub wetted: Option<wgpu::Buffer>,
}

impl GpuSimulation {
    /// Every buffer a renderer draws the water from, as one [`WaterView`].
    pub fn water_view(&self) -> WaterView {
        WaterView {
            terrain: self.terrain_buffer().clone(),
            depth: self.depth_buffer().clone(),
            flow_x: self.flow_x_buffer().clone(),
            flow_y: self.flow_y_buffer().clone(),
            view: self.view_buffer().clone(),
            blockers: self.blocker_view().clone(),
            depth_half: self.depth_half(),
            wetted: self.maps.as_ref().map(|m| m.maps[0].clone()),
        }
    }
}
