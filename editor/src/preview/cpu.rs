//! The preview's CPU fallback: after the GPU device is lost, the water goes on in the runtime's
//! CPU solver ([`Simulation`]), restarted from the authored level, with the document's bodies
//! coupled through the same [`PreviewBodies`]. Steps are time-boxed per frame so the editor stays
//! responsive at any grid size; each frame's state is copied into buffers on the device the
//! renderer hands over (when it has a working one), laid out as the GPU solver's, so the same
//! water pass draws it.

use std::time::{Duration, Instant};

use spillway::body::solver::SolverError;
use spillway::body::world::WorldError;
use spillway::gpu::ProbeReading;
use spillway::sim::{GateState, SimError};
use spillway::{Level, Simulation, Stats};

use super::Preview;
use super::bodies::PreviewBodies;
use spillway::gpu::WaterView;

/// The water of the preview on the CPU.
pub struct CpuWater {
    sim: Simulation,
    copy: Option<RenderCopy>,
}

/// The CPU state copied to a device for drawing: two halves per field, as the GPU solver keeps
/// them, so the previous state stays for blending.
struct RenderCopy {
    device: wgpu::Device,
    buffers: WaterView,
    half: u32,
}

impl CpuWater {
    /// The authored water of `level` on the CPU solver.
    pub fn new(level: &Level) -> Result<Self, SimError> {
        Ok(Self {
            sim: Simulation::new(level)?,
            copy: None,
        })
    }

    /// What `gauges` read now, and the simulated time.
    pub fn gauges(
        &self,
        gauges: &[spillway::level::GaugeKind],
    ) -> (f64, Vec<spillway::sim::gauges::GaugeReading>) {
        let readings = gauges.iter().map(|g| self.sim.gauge(g)).collect();
        (self.sim.stats().time, readings)
    }

    /// Starts keeping the maps of the run (`Simulation::record_maps`).
    pub fn record_maps(&mut self) {
        self.sim.record_maps();
    }

    /// Goes on keeping `maps` (`Simulation::record_maps_from`).
    pub fn record_maps_from(&mut self, maps: spillway::sim::maps::RunMaps) {
        self.sim.record_maps_from(maps);
    }

    /// The maps of the run, once kept.
    pub fn maps(&self) -> Option<&spillway::sim::maps::RunMaps> {
        self.sim.maps()
    }

    /// Runs up to `steps` steps of `dt` seconds (coupled with `bodies` when it has any), no
    /// more than fit in `budget` after the first; returns how many ran. A refused step leaves
    /// the state as it was before it.
    pub fn run(
        &mut self,
        steps: usize,
        dt: f32,
        budget: Duration,
        mut bodies: Option<&mut PreviewBodies>,
    ) -> Result<usize, WorldError> {
        let start = Instant::now();
        let mut done = 0;
        while done < steps && (done == 0 || start.elapsed() < budget) {
            match bodies.as_deref_mut().filter(|b| !b.is_empty()) {
                Some(b) => b.step(&mut self.sim, dt, 1)?,
                None => self
                    .sim
                    .step(dt)
                    .map_err(|e| WorldError::Solver(SolverError::Step(e)))?,
            }
            done += 1;
        }
        Ok(done)
    }

    /// The solver (for the body world's terrain).
    pub fn sim(&self) -> &Simulation {
        &self.sim
    }

    /// Drops every blocker (the last body left).
    pub fn clear_blockers(&mut self) {
        self.sim.clear_blockers();
    }

    /// The buffers of the last [`Self::upload`].
    pub fn buffers(&self) -> Option<WaterView> {
        self.copy.as_ref().map(|c| c.buffers.clone())
    }

    /// The volume figures now.
    pub fn stats(&self) -> Stats {
        self.sim.stats()
    }

    /// The depth grid now.
    pub fn depth(&self) -> Vec<f32> {
        self.sim.depth().to_vec()
    }

    /// The level's gates and whether each is open.
    pub fn gates(&self) -> Vec<GateState> {
        self.sim.gates()
    }

    /// Opens the gate called `name`; whether a closed gate of that name existed.
    pub fn open_gate(&mut self, name: &str) -> bool {
        self.sim.open_gate(name)
    }

    /// The water at cell `(x, y)`.
    pub fn probe(&self, x: usize, y: usize) -> Option<ProbeReading> {
        let (nx, ny) = (self.sim.nx(), self.sim.ny());
        if x >= nx || y >= ny {
            return None;
        }
        let k = y * nx + x;
        let depth = self.sim.depth()[k];
        let (u, v) = self.sim.cell_velocity(x, y);
        Some(ProbeReading {
            x,
            y,
            depth,
            surface: self.sim.effective_surface_at(k),
            velocity: [u, v],
        })
    }

    /// Copies the state to buffers on `device` for drawing (made on first use, or again when
    /// the device changed) and returns them.
    pub fn upload(&mut self, device: &wgpu::Device, queue: &wgpu::Queue) -> WaterView {
        let (nx, ny) = (self.sim.nx() as u64, self.sim.ny() as u64);
        let halves = [nx * ny, (nx + 1) * ny, nx * (ny + 1)];
        if self.copy.as_ref().is_none_or(|c| &c.device != device) {
            let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
            let make = |label: &str, bytes: u64, usage| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: bytes.max(16),
                    usage,
                    mapped_at_creation: false,
                })
            };
            let buffers = WaterView {
                terrain: make("cpu water terrain", 4 * halves[0], storage),
                depth: make("cpu water depth", 8 * halves[0], storage),
                flow_x: make("cpu water flow x", 8 * halves[1], storage),
                flow_y: make("cpu water flow y", 8 * halves[2], storage),
                view: make("cpu water view", 16, storage | wgpu::BufferUsages::UNIFORM),
                // Zeros: no blockers on the GPU side; the depth below is already drawn to the
                // effective surface.
                blockers: make("cpu water blockers", 64, storage),
                depth_half: halves[0] as u32,
                wetted: None,
            };
            self.copy = Some(RenderCopy {
                device: device.clone(),
                buffers,
                half: 1,
            });
        }
        let copy = self.copy.as_mut().expect("made above");
        // The new state goes into the other half; the view names it.
        let p = 1 - copy.half;
        copy.half = p;
        let (qx, qy) = self.sim.discharges();
        let b = &copy.buffers;
        let at = |half: u64| 4 * half * p as u64;
        queue.write_buffer(&b.terrain, 0, bytemuck::cast_slice(self.sim.terrain()));
        if self.sim.has_blockers() {
            // Drawn to the effective surface (no dents where bodies hold the water down) and to
            // the top of the water standing on raised bodies.
            let shown: Vec<f32> = (self.sim.drawn_surface().iter())
                .zip(self.sim.terrain())
                .map(|(s, t)| (s - t).max(0.0))
                .collect();
            queue.write_buffer(&b.depth, at(halves[0]), bytemuck::cast_slice(&shown));
        } else {
            queue.write_buffer(
                &b.depth,
                at(halves[0]),
                bytemuck::cast_slice(self.sim.depth()),
            );
        }
        queue.write_buffer(&b.flow_x, at(halves[1]), bytemuck::cast_slice(qx));
        queue.write_buffer(&b.flow_y, at(halves[2]), bytemuck::cast_slice(qy));
        let view = [
            p,
            p * halves[0] as u32,
            p * halves[1] as u32,
            p * halves[2] as u32,
        ];
        queue.write_buffer(&b.view, 0, bytemuck::cast_slice(&view));
        b.clone()
    }
}

impl Preview {
    /// One frame on the CPU solver: up to `steps` steps within [`Self::step_budget`], figures
    /// and probe straight from the solver, and a new state copied to `device` for drawing
    /// (unless `device` is the lost one).
    pub(super) fn frame_cpu(
        &mut self,
        level: &Level,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        steps: usize,
        probe: Option<(usize, usize)>,
    ) -> bool {
        let Some(cpu) = self.cpu.as_mut() else {
            return false;
        };
        if !self.wanted.bodies.is_empty() || self.bodies.is_some() {
            let settled = std::mem::take(&mut self.settled_bodies);
            let bodies =
                (self.bodies).get_or_insert_with(|| PreviewBodies::new(cpu.sim(), settled));
            bodies.sync(
                &self.wanted,
                &level.boundaries,
                &level.params.default_boundary,
            );
        }
        self.restore_bodies();
        self.keyframe(level);
        let Some(cpu) = self.cpu.as_mut() else {
            return false;
        };
        let ran = match cpu.run(
            steps,
            level.params.dt,
            self.step_budget,
            self.bodies.as_mut(),
        ) {
            Ok(ran) => ran,
            Err(e) => {
                self.pause_or_fail(e);
                return false;
            }
        };
        if self.bodies.as_ref().is_some_and(PreviewBodies::is_empty) {
            cpu.clear_blockers();
        }
        self.bodies_capped = ran < steps;
        self.last_steps = ran;
        let stats = cpu.stats();
        super::record(&mut self.history, &stats, level.cell_size);
        self.stats = Some(stats);
        // Read at once on the CPU: nothing is left to come back.
        self.stats_due = false;
        self.probe = probe.and_then(|(x, y)| cpu.probe(x, y));
        let fresh = ran > 0 || cpu.buffers().is_none();
        if fresh && !(self.watch.watches(device) && self.watch.lost().is_some()) {
            cpu.upload(device, queue);
        }
        self.playing || ran > 0
    }
}
