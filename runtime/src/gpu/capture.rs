//! Reading the whole water state back without waiting (for the editor's timeline keyframes):
//! one submission copies the view (which half of the ping-pong grids is current), both halves
//! of the depth and the face grids and the edge cells into one staging buffer, after the steps
//! recorded so far; [`GpuSimulation::poll_state`] takes the current halves once the GPU has
//! copied them. A frame that asks for a keyframe then neither waits for its steps nor for the
//! copy, and the state it gets is the one of the clock at the request.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::level::{FlowState, SolverKind};
use crate::snapshot::WaterState;

use super::state::{CONTROL_BYTES, ControlBlock};
use super::{GpuError, GpuSimulation};

const PENDING: u8 = 0;
const READY: u8 = 1;
const FAILED: u8 = 2;

/// A copy of the whole water state, under way or arrived ([`GpuSimulation::poll_state`]).
pub struct StateCopy {
    staging: wgpu::Buffer,
    mapped: Arc<AtomicU8>,
    /// Byte offsets in the staging buffer of depth, faces x, faces y (both halves for the
    /// pipes, one for SWE's velocities), edges, advected velocities (pipes with advection);
    /// the view and the control block come first.
    at: [u64; 5],
    time: f64,
    opened: Vec<String>,
    /// The breaches' names; their state words end the staging buffer.
    breaches: Vec<String>,
    /// Columns, rows, solver, and whether the advected velocities are in it.
    grid: (usize, usize, SolverKind, bool),
}

impl GpuSimulation {
    /// Asks for a copy of the whole water state after the steps recorded so far, without
    /// waiting for the GPU; [`Self::poll_state`] hands it out. Returns false while an earlier
    /// copy has not been taken.
    pub fn request_state(&mut self) -> Result<bool, GpuError> {
        if self.capture.is_some() {
            return Ok(false);
        }
        self.check_device()?;
        let (nx, ny) = (self.nx as u64, self.ny as u64);
        let (cells, fx, fy) = (nx * ny, (nx + 1) * ny, nx * (ny + 1));
        let b = &self.bufs;
        let mut parts: Vec<(&wgpu::Buffer, u64)> = vec![
            (&b.view, 16),
            (&b.aux, CONTROL_BYTES),
            (&b.depth, 8 * cells),
        ];
        match self.params.solver {
            SolverKind::Pipes => parts.extend([(&b.qx, 8 * fx), (&b.qy, 8 * fy)]),
            SolverKind::Swe => parts.extend([(&b.vel, 4 * (fx + fy)), (&b.vel, 0)]),
        }
        parts.push((&b.edges, 16 * 2 * (nx + ny)));
        // Pipes with advection: the face velocities the next step advects with.
        let advected = self.params.solver == SolverKind::Pipes && self.params.pipe_advection;
        parts.push((&b.vel, if advected { 4 * (fx + fy) } else { 0 }));
        parts.push((&b.breaches, 8 * self.breach_names.len() as u64));
        let total: u64 = parts.iter().map(|p| p.1).sum();
        let staging = self.ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("state read-back"),
            size: total,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
        // Where each part after the view and the control block starts.
        let mut at = [0u64; 5];
        let mut offset = 0;
        for (i, (buffer, bytes)) in parts.iter().enumerate() {
            if *bytes > 0 {
                encoder.copy_buffer_to_buffer(buffer, 0, &staging, offset, *bytes);
            }
            offset += bytes;
            if (1..6).contains(&i) {
                at[i - 1] = offset;
            }
        }
        self.ctx.queue.submit([encoder.finish()]);
        let mapped = Arc::new(AtomicU8::new(PENDING));
        let flag = mapped.clone();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            flag.store(if r.is_ok() { READY } else { FAILED }, Ordering::Release);
        });
        let opened = (self.gates.states().into_iter())
            .filter(|g| g.open)
            .map(|g| g.name)
            .collect();
        self.capture = Some(StateCopy {
            staging,
            mapped,
            at,
            time: self.clock,
            opened,
            breaches: self.breach_names.clone(),
            grid: (self.nx, self.ny, self.params.solver, advected),
        });
        Ok(true)
    }

    /// The state asked for by [`Self::request_state`], once the GPU has copied it (`None`:
    /// none asked for, or not copied yet; `wait` waits for it). The copy is read out of the
    /// mapped buffer by [`StateCopy::read`], on any thread: the frame need not spend the time.
    pub fn poll_state(&mut self, wait: bool) -> Option<Result<StateCopy, GpuError>> {
        let poll = if wait {
            wgpu::PollType::wait_indefinitely()
        } else {
            wgpu::PollType::Poll
        };
        self.capture.as_ref()?;
        if let Err(e) = self.ctx.device.poll(poll) {
            self.capture = None;
            return Some(Err(GpuError::Readback(e.to_string())));
        }
        match self.capture.as_ref()?.mapped.load(Ordering::Acquire) {
            PENDING => return None,
            FAILED => {
                self.capture = None;
                return Some(Err(GpuError::Readback("the state copy failed".into())));
            }
            _ => {}
        }
        self.capture.take().map(Ok)
    }
}

impl StateCopy {
    /// The water state in the copy (the buffer is unmapped and dropped).
    pub fn read(self) -> Result<WaterState, GpuError> {
        let (nx, ny, solver, advected) = self.grid;
        let (cells, fx, fy) = (nx * ny, (nx + 1) * ny, nx * (ny + 1));
        let bytes = self
            .staging
            .get_mapped_range(..)
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        let at = self.at;
        let floats = |from: u64, n: usize| -> Vec<f32> {
            let from = from as usize;
            bytes[from..from + 4 * n]
                .chunks_exact(4)
                .map(bytemuck::pod_read_unaligned)
                .collect()
        };
        let half = (u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) & 1) as u64;
        let control: ControlBlock =
            bytemuck::pod_read_unaligned(&bytes[16..16 + CONTROL_BYTES as usize]);
        let depth = floats(at[0] + half * 4 * cells as u64, cells);
        let (flow_x, flow_y) = match solver {
            SolverKind::Pipes => (
                floats(at[1] + half * 4 * fx as u64, fx),
                floats(at[2] + half * 4 * fy as u64, fy),
            ),
            SolverKind::Swe => (floats(at[1], fx), floats(at[1] + 4 * fx as u64, fy)),
        };
        let edges = floats(at[3], 4 * 2 * (nx + ny));
        let (aux_x, aux_y) = if advected {
            (floats(at[4], fx), floats(at[4] + 4 * fx as u64, fy))
        } else {
            (Vec::new(), Vec::new())
        };
        let words = floats(
            (bytes.len() - 8 * self.breaches.len()) as u64,
            2 * self.breaches.len(),
        );
        let breaches = (self.breaches.iter().zip(words.chunks_exact(2)))
            .map(|(name, w)| crate::sim::BreachState {
                name: name.clone(),
                started: w[0].to_bits() != 0,
                progress: w[1],
            })
            .collect();
        drop(bytes);
        self.staging.unmap();
        Ok(WaterState {
            nx,
            ny,
            depth,
            flow: FlowState {
                solver,
                flow_x,
                flow_y,
                ghost: edges.chunks_exact(4).map(|e| e[2]).collect(),
                time: self.time,
                // The next step's CFL limit, as the run would have it.
                max_speed: Some(control.max_speed).filter(|v| v.is_finite()),
                aux_x,
                aux_y,
                ..Default::default()
            },
            opened: self.opened,
            breaches,
        })
    }

    /// Simulated time of the state, seconds.
    pub fn time(&self) -> f64 {
        self.time
    }
}
