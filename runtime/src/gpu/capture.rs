//! Reading the whole water state back without waiting (for the editor's timeline keyframes):
//! one submission copies the view (which half of the ping-pong grids is current), both halves
//! of the depth and the face grids and the edge cells into staging buffers (one per grid, so
//! none is larger than the grid it copies and the device's buffer limit holds at any size),
//! after the steps recorded so far; [`GpuSimulation::poll_state`] takes the current halves once the GPU has
//! copied them. A frame that asks for a keyframe then neither waits for its steps nor for the
//! copy, and the state it gets is the one of the clock at the request.

use std::sync::{Arc, Mutex};

use bytemuck::Zeroable;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::level::{FlowState, SolverKind};
use crate::snapshot::WaterState;

use super::state::{CONTROL_BYTES, ControlBlock};
use super::{GpuError, GpuSimulation};

/// Added to the count of mapped parts when one fails to map.
const FAILED: usize = 1 << 20;

/// Staging buffers a read copy hands back for the next one: making them costs a large level's
/// frame most of a second (542.4 and 644.6 ms for the 2.1 GB of an 8192² level on an H100),
/// so they are made once, when the water starts ([`GpuSimulation::prepare_state_copy`]), and
/// kept.
pub(crate) type Spare = Arc<Mutex<Kept>>;

/// The staging buffers kept for the next state copy, and whether they are kept ready: once
/// [`GpuSimulation::prepare_state_copy`] asked for them, a change of the parameters that adds or
/// grows a part (a moving bed switched on, advection, the other solver) makes its buffers then,
/// in the frame of the change, rather than in the frame of the next keyframe.
#[derive(Default)]
pub(crate) struct Kept {
    buffers: Vec<wgpu::Buffer>,
    ready: bool,
}

/// Locks the kept buffers (a poisoned lock still holds buffers).
fn lock(spare: &Spare) -> std::sync::MutexGuard<'_, Kept> {
    spare.lock().unwrap_or_else(|e| e.into_inner())
}

/// A staging buffer for a state copy's part of `bytes`.
fn staging_buffer(device: &wgpu::Device, bytes: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("state read-back"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// A copy of the whole water state, under way or arrived ([`GpuSimulation::poll_state`]).
pub struct StateCopy {
    /// One staging buffer per part: the view, the control block, depth, faces x, faces y (both
    /// halves for the pipes; SWE's velocities, x then y, in the faces x part, and its
    /// discharges across x in the faces y part), edges, advected velocities (pipes with
    /// advection; SWE's discharges across y), the breaches' state words, and of a moving bed
    /// the ground and the grains in the water; `None` for an empty part.
    staging: Vec<Option<wgpu::Buffer>>,
    /// How many parts have been mapped (plus [`FAILED`] for each that failed).
    mapped: Arc<AtomicUsize>,
    /// Where the staging buffers go back once read.
    spare: Spare,
    /// The clock when it was asked for.
    time: f64,
    /// The time the run's own clock counts from (the GPU's time is kept relative to it).
    time_base: f64,
    /// Every gate and whether it had opened.
    gates: Vec<crate::sim::GateState>,
    /// The breaches' names; their state words end the staging buffer.
    breaches: Vec<String>,
    /// Columns, rows, solver, and whether the advected velocities are in it.
    grid: (usize, usize, SolverKind, bool),
    /// A moving bed's cells a keyframe holds, its floor and its height per volume of grains.
    bed: Option<BedCopy>,
}

/// A moving bed's cells a keyframe holds (with its floor) and its height per volume of grains,
/// shared with the erosion pass (not copied per keyframe).
type BedCopy = (crate::sim::erosion::BedCells, f32);

impl GpuSimulation {
    /// Makes the staging buffers of a state copy now, those not kept already, so that a
    /// later [`Self::request_state`] does not spend its frame making them: the editor makes
    /// them as the water starts, where making them in the frame of the first keyframe took
    /// 542.4 and 644.6 ms for an 8192² level on an H100.
    pub fn prepare_state_copy(&mut self) {
        let mut spare = lock(&self.spare);
        spare.ready = true;
        // Buffers out with a copy under way come back when it is read.
        let mut out = self.out_sizes();
        let mut old = std::mem::take(&mut spare.buffers);
        for (_, _, bytes) in self.state_parts() {
            if let Some(k) = out.iter().position(|&k| k == bytes) {
                out.swap_remove(k);
            } else if let Some(k) = old.iter().position(|b| b.size() == bytes) {
                spare.buffers.push(old.swap_remove(k));
            } else if bytes > 0 {
                spare.buffers.push(staging_buffer(&self.ctx.device, bytes));
            }
        }
        // What is left in `old` fits no part any more and is dropped.
    }

    /// The sizes of the staging buffers out with a copy under way.
    fn out_sizes(&self) -> Vec<u64> {
        let out = self.capture.iter().flat_map(|c| c.staging.iter().flatten());
        out.map(wgpu::Buffer::size).collect()
    }

    /// Makes the staging buffers of parts that a change added or grew, where
    /// [`Self::prepare_state_copy`] was asked for before.
    pub(crate) fn keep_state_copy_ready(&mut self) {
        if lock(&self.spare).ready {
            self.prepare_state_copy();
        }
    }

    /// Whether every part of a state copy has a staging buffer kept (or out with a copy under
    /// way): a [`Self::request_state`] then makes none in its frame.
    pub fn state_copy_ready(&self) -> bool {
        let mut kept = self.out_sizes();
        kept.extend(lock(&self.spare).buffers.iter().map(wgpu::Buffer::size));
        self.state_parts().iter().all(|&(_, _, bytes)| {
            let found = kept.iter().position(|&k| k == bytes);
            found.map(|k| kept.swap_remove(k)).is_some() || bytes == 0
        })
    }

    /// The buffers a state copy reads, from which byte and how many bytes of each (0: none).
    fn state_parts(&self) -> Vec<(&wgpu::Buffer, u64, u64)> {
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
            // The velocities, and the discharges (x here, y after the edges).
            SolverKind::Swe => parts.extend([(&b.vel, 8 * (fx + fy)), (&b.qx, 8 * fx)]),
        }
        parts.push((&b.edges, 16 * 2 * (nx + ny)));
        // Pipes with advection: the face velocities the next step advects with; the
        // shallow-water solver: the discharges across y (its edges' outfall and its first
        // advection need them, as a bake's).
        let advected = self.params.solver == SolverKind::Pipes && self.params.pipe_advection;
        parts.push(match self.params.solver {
            SolverKind::Swe => (&b.qy, 8 * fy),
            SolverKind::Pipes => (&b.vel, if advected { 8 * (fx + fy) } else { 0 }),
        });
        parts.push((&b.breaches, 8 * self.breach_names.len() as u64));
        let mut parts: Vec<_> = parts.into_iter().map(|(b, n)| (b, 0, n)).collect();
        // A moving bed: the ground as it is, and the grains the water carries.
        if let Some(bed) = &self.bed {
            parts.push((&b.terrain, 0, 4 * cells));
            let load = bed.load_part();
            parts.push(load.map_or((&b.terrain, 0, 0), |(buffer, at)| (buffer, at, 4 * cells)));
        }
        parts
    }

    /// Asks for a copy of the whole water state after the steps recorded so far, without
    /// waiting for the GPU; [`Self::poll_state`] hands it out. Returns false while an earlier
    /// copy has not been taken.
    pub fn request_state(&mut self) -> Result<bool, GpuError> {
        if self.capture.is_some() {
            return Ok(false);
        }
        self.check_device()?;
        let advected = self.params.solver == SolverKind::Pipes && self.params.pipe_advection;
        let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
        let mut spare = std::mem::take(&mut lock(&self.spare).buffers);
        let staging: Vec<Option<wgpu::Buffer>> = (self.state_parts().into_iter())
            .map(|(buffer, from, bytes)| {
                (bytes > 0).then(|| {
                    let kept = spare.iter().position(|b| b.size() == bytes);
                    let to = match kept {
                        Some(k) => spare.swap_remove(k),
                        None => staging_buffer(&self.ctx.device, bytes),
                    };
                    encoder.copy_buffer_to_buffer(buffer, from, &to, 0, bytes);
                    to
                })
            })
            .collect();
        (lock(&self.spare).buffers).extend(spare);
        self.ctx.queue.submit([encoder.finish()]);
        let mapped = Arc::new(AtomicUsize::new(0));
        for buffer in staging.iter().flatten() {
            let count = mapped.clone();
            buffer.map_async(wgpu::MapMode::Read, .., move |r| {
                count.fetch_add(if r.is_ok() { 1 } else { FAILED }, Ordering::AcqRel);
            });
        }
        let gates = self.gates.states();
        self.capture = Some(StateCopy {
            staging,
            mapped,
            spare: self.spare.clone(),
            time: self.clock,
            time_base: self.time_base,
            gates,
            breaches: self.breach_names.clone(),
            grid: (self.nx, self.ny, self.params.solver, advected),
            bed: (self.bed.as_ref()).map(|b| (b.cells.clone(), b.swell)),
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
        let copy = self.capture.as_ref()?;
        let done = copy.mapped.load(Ordering::Acquire);
        if done >= FAILED {
            self.capture = None;
            return Some(Err(GpuError::Readback("the state copy failed".into())));
        }
        if done < copy.staging.iter().flatten().count() {
            return None;
        }
        self.capture.take().map(Ok)
    }
}

impl StateCopy {
    /// The water state in the copy (the staging buffers are unmapped and kept for the next
    /// copy).
    pub fn read(self) -> Result<WaterState, GpuError> {
        let (nx, ny, solver, advected) = self.grid;
        let (cells, fx, fy) = (nx * ny, (nx + 1) * ny, nx * (ny + 1));
        let mut views = Vec::with_capacity(self.staging.len());
        for buffer in &self.staging {
            views.push(match buffer {
                Some(b) => Some(
                    b.get_mapped_range(..)
                        .map_err(|e| GpuError::Readback(e.to_string()))?,
                ),
                None => None,
            });
        }
        // `n` floats of part `part`, from float `from`.
        let floats = |part: usize, from: usize, n: usize| -> Vec<f32> {
            let Some(bytes) = &views[part] else {
                return Vec::new();
            };
            bytes[4 * from..4 * (from + n)]
                .chunks_exact(4)
                .map(bytemuck::pod_read_unaligned)
                .collect()
        };
        let half = (floats(0, 0, 1)[0].to_bits() & 1) as usize;
        let control: ControlBlock = views[1].as_ref().map_or_else(ControlBlock::zeroed, |b| {
            bytemuck::pod_read_unaligned(&b[..CONTROL_BYTES as usize])
        });
        // The water's own time: behind the clock after steps clamped to fewer sub-steps than
        // they needed, until they are run again (a keyframe labelled with the clock put the
        // water it held later than it was).
        let time = match &views[1] {
            Some(_) => self.time_base + (control.time_hi as f64 + control.time_lo as f64),
            None => self.time,
        };
        let depth = floats(2, half * cells, cells);
        let vh = half * (fx + fy);
        let (flow_x, flow_y) = match solver {
            SolverKind::Pipes => (floats(3, half * fx, fx), floats(4, half * fy, fy)),
            SolverKind::Swe => (floats(3, vh, fx), floats(3, vh + fx, fy)),
        };
        let edges = floats(5, 0, 4 * 2 * (nx + ny));
        let (aux_x, aux_y) = match solver {
            SolverKind::Swe => (floats(4, half * fx, fx), floats(6, half * fy, fy)),
            SolverKind::Pipes if advected => (floats(6, vh, fx), floats(6, vh + fx, fy)),
            SolverKind::Pipes => (Vec::new(), Vec::new()),
        };
        let words = floats(7, 0, 2 * self.breaches.len());
        // The bed as a bake leaves it: the grains in the water settled where they are.
        let (terrain, bed_floor) = match self.bed {
            Some((held, swell)) => {
                let (ground, load) = (floats(8, 0, cells), floats(9, 0, cells));
                let mut settled = vec![f32::NAN; cells];
                let load = (!load.is_empty()).then_some(&load[..]);
                crate::sim::erosion::settle_into(&mut settled, &ground, &held, load, swell);
                (Some(settled), held.floor.to_vec())
            }
            None => (None, Vec::new()),
        };
        let breaches = (self.breaches.iter().zip(words.chunks_exact(2)))
            .map(|(name, w)| crate::sim::BreachState {
                name: name.clone(),
                started: w[0].to_bits() != 0,
                progress: w[1],
            })
            .collect();
        drop(views);
        let staging = self.staging.into_iter().flatten();
        (lock(&self.spare).buffers).extend(staging.inspect(wgpu::Buffer::unmap));
        Ok(WaterState {
            nx,
            ny,
            depth,
            flow: FlowState {
                solver,
                flow_x,
                flow_y,
                ghost: edges.chunks_exact(4).map(|e| e[2]).collect(),
                time,
                // The next step's CFL limit, as the run would have it.
                max_speed: Some(control.max_speed).filter(|v| v.is_finite()),
                aux_x,
                aux_y,
                bed_floor,
                ..Default::default()
            },
            gates: self.gates,
            breaches,
            terrain,
        })
    }

    /// The clock when the copy was asked for, seconds: the state's own time
    /// ([`FlowState::time`] of [`Self::read`]) is behind it after clamped steps not yet run again.
    pub fn time(&self) -> f64 {
        self.time
    }
}
