//! Reading results back: the cheap asynchronous stats snapshot (control block, ledger slots
//! and per-workgroup volume partials: a few kilobytes), and blocking full-grid copies.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::sim::{Stats, StepError};

use super::GpuError;
use super::state::{CONTROL_BYTES, ControlBlock};
use super::stats::Partial;

const IDLE: u8 = 0;
const PENDING: u8 = 1;
const READY: u8 = 2;
const FAILED: u8 = 3;

/// Stats and health from one read-back.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Report {
    pub stats: Stats,
    pub status: GpuStatus,
}

/// What one read-back holds, before interpretation.
pub(crate) struct Snapshot {
    pub ctl: ControlBlock,
    /// Per slot: added (hi, lo), removed (hi, lo).
    pub ledger: Vec<[f32; 4]>,
    pub partials: Vec<Partial>,
}

/// The staging buffer of the stats read-back and the state of its mapping.
pub(crate) struct StatsReadback {
    staging: wgpu::Buffer,
    state: Arc<AtomicU8>,
    ledger_slots: usize,
    partials: usize,
}

impl StatsReadback {
    pub fn new(device: &wgpu::Device, edge_groups: usize, partials: usize) -> Self {
        let ledger_slots = 1 + edge_groups;
        let size = CONTROL_BYTES
            + 16 * ledger_slots as u64
            + (std::mem::size_of::<Partial>() * partials) as u64;
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("stats read-back"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self {
            staging,
            state: Arc::new(AtomicU8::new(IDLE)),
            ledger_slots,
            partials,
        }
    }

    /// Whether the staging buffer is in use: a read-back is under way, or one arrived and was
    /// not taken yet (the buffer is still mapped and must not be copied into).
    pub fn pending(&self) -> bool {
        matches!(self.state.load(Ordering::Acquire), PENDING | READY)
    }

    /// Records the copies of the control block, the ledger and the partials into the staging
    /// buffer; call [`Self::map`] after submitting.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        aux: &wgpu::Buffer,
        ledger: &wgpu::Buffer,
        partials: &wgpu::Buffer,
    ) {
        let ledger_bytes = 16 * self.ledger_slots as u64;
        let partial_bytes = (std::mem::size_of::<Partial>() * self.partials) as u64;
        encoder.copy_buffer_to_buffer(aux, 0, &self.staging, 0, CONTROL_BYTES);
        encoder.copy_buffer_to_buffer(ledger, 0, &self.staging, CONTROL_BYTES, ledger_bytes);
        encoder.copy_buffer_to_buffer(
            partials,
            0,
            &self.staging,
            CONTROL_BYTES + ledger_bytes,
            partial_bytes,
        );
    }

    /// Starts mapping the staging buffer (after the copies were submitted).
    pub fn map(&self) {
        self.state.store(PENDING, Ordering::Release);
        let state = self.state.clone();
        self.staging.map_async(wgpu::MapMode::Read, .., move |r| {
            state.store(if r.is_ok() { READY } else { FAILED }, Ordering::Release);
        });
    }

    /// The snapshot, once the mapping completed (`None` while pending or idle).
    pub fn take(&self) -> Option<Result<Snapshot, GpuError>> {
        match self.state.load(Ordering::Acquire) {
            READY => {}
            FAILED => {
                self.state.store(IDLE, Ordering::Release);
                return Some(Err(GpuError::Readback("mapping the stats failed".into())));
            }
            _ => return None,
        }
        let out = self
            .staging
            .get_mapped_range(..)
            .map_err(|e| GpuError::Readback(e.to_string()))
            .map(|view| {
                let bytes: &[u8] = &view;
                let ctl: ControlBlock =
                    bytemuck::pod_read_unaligned(&bytes[..CONTROL_BYTES as usize]);
                let l0 = CONTROL_BYTES as usize;
                let l1 = l0 + 16 * self.ledger_slots;
                let ledger = bytes[l0..l1]
                    .chunks_exact(16)
                    .map(bytemuck::pod_read_unaligned)
                    .collect();
                let partials = bytes[l1..]
                    .chunks_exact(16)
                    .map(bytemuck::pod_read_unaligned)
                    .collect();
                Snapshot {
                    ctl,
                    ledger,
                    partials,
                }
            });
        self.staging.unmap();
        self.state.store(IDLE, Ordering::Release);
        Some(out)
    }
}

/// Interprets a snapshot: volumes in m³ (f64 sums of the GPU's double-f32 partials).
pub(crate) fn interpret(
    s: &Snapshot,
    nx: usize,
    dx: f32,
    volume_initial: f64,
    time_base: f64,
) -> Report {
    let area = (dx as f64) * (dx as f64);
    let df = |hi: f32, lo: f32| hi as f64 + lo as f64;
    let c = &s.ctl;
    let volume = s
        .partials
        .iter()
        .map(|p| df(p.volume_hi, p.volume_lo))
        .sum::<f64>()
        * area;
    let wet_cells = s.partials.iter().map(|p| p.wet as usize).sum();
    let (mut inflow, mut outflow) = (0.0, 0.0);
    for (slot, l) in s.ledger.iter().enumerate() {
        // Slot 0 (sources and sinks) is in depth-metres; the edge slots are in m³.
        let unit = if slot == 0 { area } else { 1.0 };
        inflow += df(l[0], l[1]) * unit;
        outflow += df(l[2], l[3]) * unit;
    }
    inflow += df(c.rain_hi, c.rain_lo) * area;
    let time = time_base + df(c.time_hi, c.time_lo);
    let expected = volume_initial + inflow - outflow;
    let stats = Stats {
        time,
        steps: c.steps as u64,
        substeps: c.substeps as u64,
        volume_initial,
        volume,
        inflow,
        outflow,
        displaced: 0.0,
        balance_error: (volume - expected) / (volume_initial + inflow).max(1e-9),
        max_depth: c.max_depth,
        wet_cells,
    };
    let halted = match c.halted {
        1 => {
            let cell = c.blowup_cell as usize;
            Some(StepError::BlowUp {
                x: cell % nx,
                y: cell / nx,
                time,
            })
        }
        2 => Some(StepError::Runaway {
            speed: c.runaway_speed,
            time,
        }),
        _ => None,
    };
    let status = GpuStatus {
        halted,
        clamped_steps: c.clamped,
        substeps_needed: c.needed,
        max_speed: c.max_speed,
        paired_substeps: c.paired,
        quiet_strips: c.quiet,
        busy_strips: c.strips.saturating_sub(c.quiet),
    };
    Report { stats, status }
}

/// Copies `size` bytes of `src` from `offset` to the CPU, waiting for the GPU.
pub(crate) fn read_bytes(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    src: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Result<Vec<u8>, GpuError> {
    let size = size.next_multiple_of(4).max(4);
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("read-back"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(src, offset, &staging, 0, size);
    queue.submit([encoder.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| GpuError::Readback(e.to_string()))?;
    match rx.recv() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(GpuError::Readback(e.to_string())),
        Err(e) => return Err(GpuError::Readback(e.to_string())),
    }
    let out = staging
        .get_mapped_range(..)
        .map_err(|e| GpuError::Readback(e.to_string()))?
        .to_vec();
    staging.unmap();
    Ok(out)
}

/// `read_bytes` as `f32`s.
pub(crate) fn read_f32(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    src: &wgpu::Buffer,
    offset_elems: u64,
    len: usize,
) -> Result<Vec<f32>, GpuError> {
    let bytes = read_bytes(device, queue, src, offset_elems * 4, 4 * len as u64)?;
    Ok(bytes[..4 * len]
        .chunks_exact(4)
        .map(bytemuck::pod_read_unaligned)
        .collect())
}

/// Health figures of the GPU solver from the last read-back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuStatus {
    /// Why the GPU stopped stepping (blow-up or runaway), if it did; see
    /// [`super::GpuSimulation::clear_halt`].
    pub halted: Option<crate::sim::StepError>,
    /// Steps that needed more sub-steps than were recorded and took `k_max` longer ones.
    pub clamped_steps: u32,
    /// Sub-steps the last step needed.
    pub substeps_needed: u32,
    /// Largest face speed after the last sub-step, m/s (SWE and pipes with advection).
    pub max_speed: f32,
    /// Sub-steps that ran two at a time in the pair pass: two steps of one sub-step each, or
    /// the first two sub-steps of a step (see [`super::GpuSimulation::set_pairing`]).
    pub paired_substeps: u32,
    /// Flow and pair strips left out with no water around since the simulation started (see
    /// [`super::GpuSimulation::set_dry_skip`]).
    pub quiet_strips: u32,
    /// Flow and pair strips run over the same time (counted where dry strips may be left out).
    pub busy_strips: u32,
}
