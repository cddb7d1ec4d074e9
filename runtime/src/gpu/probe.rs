//! Probes: the water at one cell, read back asynchronously and cheaply. The CPU does not know
//! which half of the ping-pong state is current (the GPU decides the sub-steps), so a probe
//! copies the cell's depth and its four face discharges from both halves, its terrain, and the
//! four-word view block that names the current half: 60 bytes, no compute pass, no waiting.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use super::GpuSimulation;

const IDLE: u8 = 0;
const PENDING: u8 = 1;
const READY: u8 = 2;

/// Words copied per probe: view (4), terrain, then per half: depth and the west, east, north
/// and south faces.
const WORDS: usize = 4 + 1 + 2 * 5;

/// The water at one cell, as of the last step before the probe was requested.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeReading {
    /// Cell column.
    pub x: usize,
    /// Cell row.
    pub y: usize,
    /// Water depth, metres.
    pub depth: f32,
    /// Water surface height (terrain + depth), metres.
    pub surface: f32,
    /// Depth-averaged velocity (x, y), m/s: the mean of the cell's face discharges over the
    /// cell's wet cross-section (zero where the cell is dry).
    pub velocity: [f32; 2],
}

/// The staging buffer of probe read-backs.
pub(crate) struct ProbeReadback {
    staging: wgpu::Buffer,
    state: Arc<AtomicU8>,
    cell: (usize, usize),
}

impl ProbeReadback {
    pub fn new(device: &wgpu::Device) -> Self {
        Self {
            staging: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("probe read-back"),
                size: (WORDS * 4) as u64,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            state: Arc::new(AtomicU8::new(IDLE)),
            cell: (0, 0),
        }
    }
}

impl GpuSimulation {
    /// Whether a probe reading was asked for and not collected yet.
    pub fn probe_pending(&self) -> bool {
        self.probe.state.load(Ordering::Acquire) != IDLE
    }

    /// Starts reading the water at cell `(x, y)` back (after the steps recorded so far); does
    /// nothing if the cell is outside the grid or a probe is under way. Collect it with
    /// [`Self::poll_probe`].
    pub fn request_probe(&mut self, x: usize, y: usize) {
        let (nx, ny) = (self.nx, self.ny);
        // A reading not collected yet keeps the staging buffer mapped: wait for poll_probe.
        if x >= nx || y >= ny || self.probe.state.load(Ordering::Acquire) != IDLE {
            return;
        }
        let cell = (y * nx + x) as u64;
        let (half_d, half_qx, half_qy) = (
            self.grid.half_d as u64,
            self.grid.half_qx as u64,
            self.grid.half_qy as u64,
        );
        let west = (y * (nx + 1) + x) as u64;
        let north = cell;
        let staging = &self.probe.staging;
        let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.bufs.view, 0, staging, 0, 16);
        encoder.copy_buffer_to_buffer(&self.bufs.terrain, 4 * cell, staging, 16, 4);
        for half in 0..2u64 {
            let at = 20 + half * 20;
            let copy = |e: &mut wgpu::CommandEncoder, src: &wgpu::Buffer, word: u64, to: u64| {
                e.copy_buffer_to_buffer(src, 4 * word, staging, at + 4 * to, 4);
            };
            copy(&mut encoder, &self.bufs.depth, half * half_d + cell, 0);
            copy(&mut encoder, &self.bufs.qx, half * half_qx + west, 1);
            copy(&mut encoder, &self.bufs.qx, half * half_qx + west + 1, 2);
            copy(&mut encoder, &self.bufs.qy, half * half_qy + north, 3);
            copy(
                &mut encoder,
                &self.bufs.qy,
                half * half_qy + north + nx as u64,
                4,
            );
        }
        self.ctx.queue.submit([encoder.finish()]);
        self.probe.cell = (x, y);
        self.probe.state.store(PENDING, Ordering::Release);
        let state = self.probe.state.clone();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            state.store(if r.is_ok() { READY } else { IDLE }, Ordering::Release);
        });
    }

    /// The reading of the last requested probe once the GPU delivered it; never blocks.
    pub fn poll_probe(&mut self) -> Option<ProbeReading> {
        let _ = self.ctx.device.poll(wgpu::PollType::Poll);
        if self.probe.state.load(Ordering::Acquire) != READY {
            return None;
        }
        let words: Option<[f32; WORDS]> = self
            .probe
            .staging
            .get_mapped_range(..)
            .ok()
            .map(|view| bytemuck::pod_read_unaligned(&view[..WORDS * 4]));
        self.probe.staging.unmap();
        self.probe.state.store(IDLE, Ordering::Release);
        let words = words?;
        let half = (words[0].to_bits() & 1) as usize;
        let v = &words[5 + 5 * half..10 + 5 * half];
        let (depth, dx) = (v[0], self.dx);
        let section = depth * dx;
        // Zero on a film under 1 mm, as `Simulation::cell_velocity`.
        let speed = |a: f32, b: f32| {
            if depth > 1e-3 {
                0.5 * (a + b) / section
            } else {
                0.0
            }
        };
        let (x, y) = self.probe.cell;
        Some(ProbeReading {
            x,
            y,
            depth,
            surface: words[4] + depth,
            velocity: [speed(v[1], v[2]), speed(v[3], v[4])],
        })
    }
}
