//! Gauges on the GPU: the few values a set of gauges reads (a cell's terrain and depth, the
//! faces a discharge line crosses) copied out of the solver's buffers into one small read-back,
//! so reading them costs bytes, not the grid.

use super::readback::read_f32;
use super::state::ControlBlock;
use super::{GpuError, GpuSimulation};
use crate::level::GaugeKind;
use crate::sim::gauges::{Face, GaugeReading, cell_of, line_faces};

/// Which buffer a value comes from.
#[derive(Clone, Copy)]
enum Source {
    Terrain,
    Depth,
    FlowX,
    FlowY,
}

impl GpuSimulation {
    /// What each of `gauges` reads now (waits for the recorded steps), as
    /// `Simulation::gauge` does on the CPU.
    pub fn read_gauges(&self, gauges: &[GaugeKind]) -> Result<Vec<GaugeReading>, GpuError> {
        self.read_gauges_timed(gauges).map(|(_, r)| r)
    }

    /// As [`Self::read_gauges`], with the water's own time then, read in the same copy: behind
    /// [`Self::clock`] while clamped steps are not yet run again (a reading stamped with the
    /// clock plotted the water ahead of its time).
    pub fn read_gauges_timed(
        &self,
        gauges: &[GaugeKind],
    ) -> Result<(f64, Vec<GaugeReading>), GpuError> {
        self.check_device()?;
        let (nx, ny, dx) = (self.nx, self.ny, self.dx);
        // Every value wanted, in order, with its sign (discharge faces) per gauge.
        let mut wanted: Vec<(Source, usize)> = Vec::new();
        let mut plans: Vec<(bool, Vec<f32>)> = Vec::new();
        for g in gauges {
            match *g {
                GaugeKind::Stage { x, y } => {
                    let k = cell_of(x, y, nx, ny, dx);
                    wanted.push((Source::Terrain, k));
                    wanted.push((Source::Depth, k));
                    plans.push((true, Vec::new()));
                }
                GaugeKind::Discharge { from, to } => {
                    let faces = line_faces(nx, ny, dx, from, to);
                    let signs = faces.iter().map(|(_, s)| *s).collect();
                    wanted.extend(faces.into_iter().map(|(f, _)| match f {
                        Face::X(k) => (Source::FlowX, k),
                        Face::Y(k) => (Source::FlowY, k),
                    }));
                    plans.push((false, signs));
                }
            }
        }
        let half = self.parity()?;
        let (fx, fy) = (((nx + 1) * ny) as u64, (nx * (ny + 1)) as u64);
        let device = &self.ctx.device;
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gauges"),
            size: 4 * (wanted.len() + 2) as u64,
            usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        for (i, (source, k)) in wanted.iter().enumerate() {
            let k = *k as u64;
            let (buffer, element) = match source {
                Source::Terrain => (&self.bufs.terrain, k),
                Source::Depth => (&self.bufs.depth, half * (nx * ny) as u64 + k),
                Source::FlowX => (&self.bufs.qx, half * fx + k),
                Source::FlowY => (&self.bufs.qy, half * fy + k),
            };
            encoder.copy_buffer_to_buffer(buffer, 4 * element, &staging, 4 * i as u64, 4);
        }
        // The water's own time (the control block's two-float clock) after the values.
        let time_at = std::mem::offset_of!(ControlBlock, time_hi) as u64;
        let end = 4 * wanted.len() as u64;
        encoder.copy_buffer_to_buffer(&self.bufs.aux, time_at, &staging, end, 8);
        self.ctx.queue.submit([encoder.finish()]);
        let values = read_f32(device, &self.ctx.queue, &staging, 0, wanted.len() + 2)?;
        let (hi, lo) = (values[wanted.len()], values[wanted.len() + 1]);
        let time = self.time_base + (hi as f64 + lo as f64);
        let mut at = 0;
        let readings = plans
            .into_iter()
            .map(|(stage, signs)| {
                if stage {
                    let (terrain, depth) = (values[at], values[at + 1]);
                    at += 2;
                    GaugeReading::Stage {
                        depth,
                        surface: terrain + depth,
                    }
                } else {
                    let q = signs.iter().zip(&values[at..]).map(|(s, v)| s * v).sum();
                    at += signs.len();
                    GaugeReading::Discharge(q)
                }
            })
            .collect();
        Ok((time, readings))
    }
}
