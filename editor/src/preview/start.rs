//! Starting the preview's water: the solver for the level (the GPU on the renderer's device,
//! or the CPU), from a keyframe or the authored water, and the move to the CPU after the GPU
//! device was lost.

use spillway::Level;
use spillway::gpu::GpuSimulation;

use super::cpu::CpuWater;
use super::{DeviceWatch, Preview, PreviewError, maps};

impl Preview {
    /// Makes the water run if it does not yet: the solver (CPU or GPU) for the level, from
    /// the keyframe to start from or the authored water. Returns whether it runs.
    pub(super) fn ensure(
        &mut self,
        level: &Level,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> bool {
        if self.is_live() {
            return true;
        }
        if self.error.is_some() {
            return false;
        }
        let mut start = self.start.take();
        let maps = start.as_mut().and_then(|s| s.maps.take());
        let from = start.as_ref().map_or(level, |s| &s.level);
        // The water's own start: a flow state saved for the other solver starts at 0 s.
        let saved = (from.flow.as_ref()).filter(|f| f.solver == from.params.solver);
        self.maps_since = saved.map_or(0.0, |f| f.time);
        let started = if self.on_cpu() {
            CpuWater::new(from)
                .map(|mut cpu| {
                    match maps {
                        Some((m, since)) if self.record_maps => {
                            cpu.record_maps_from(m);
                            self.maps_since = since;
                        }
                        _ if self.record_maps => cpu.record_maps(),
                        _ => {}
                    }
                    self.stats = Some(cpu.stats());
                    self.cpu = Some(cpu);
                })
                .map_err(PreviewError::CpuStart)
        } else {
            GpuSimulation::new(from, device, queue)
                .map(|mut sim| {
                    if !self.watch.watches(device) {
                        self.watch = DeviceWatch::install(device);
                    }
                    sim.request_stats();
                    // Without maps the water still runs; the maps overlay then shows none.
                    if self.record_maps && sim.record_maps().is_ok() {
                        sim.set_maps_stride(maps::MAPS_STRIDE);
                    }
                    // The keyframes' read-back buffers, made off the frame (large levels).
                    if self.timeline.recording {
                        sim.prepare_state_copy();
                    }
                    self.sim = Some(sim);
                })
                .map_err(PreviewError::GpuStart)
        };
        match started {
            Ok(()) => {
                if start.is_none() {
                    // The water's own start (a saved state for another solver starts at 0 s).
                    self.timeline.starts_at(self.clock());
                }
                self.ledger
                    .start(&level.water, start.as_ref().map(|s| &s.origin));
                self.uploaded = Some(level.clone());
                // A bake's water holds the level's bodies where they rest: they enter
                // settled (a keyframe's bodies are put back by their states instead).
                self.settled_bodies = match (&start, &level.flow) {
                    (None, Some(_)) => level.bodies.clone(),
                    _ => Vec::new(),
                };
                self.restored_bodies = start.map(|s| s.bodies);
                true
            }
            Err(e) => {
                self.error = Some(e);
                self.playing = false;
                false
            }
        }
    }

    /// Moves the water to the CPU after the GPU device was lost: pauses, drops every GPU
    /// resource, and restarts from the authored water on the next frame.
    pub(super) fn fall_back(&mut self, why: &str) {
        let at = self.time();
        self.reset();
        self.commands.clear();
        self.playing = false;
        self.lost_news = true;
        self.gpu_lost = Some(format!(
            "The GPU device was lost ({why}) at {at:.1} s of preview. The preview is paused and \
             runs on the CPU solver from the authored water; the level is unchanged."
        ));
    }
}
