//! The GPU water solver (feature `gpu`): both solvers of [`crate::sim`] as wgpu compute
//! shaders, with the same physics and the same `f32` expressions, so a level previews on the GPU
//! as it runs on the CPU (bit for bit on lavapipe; on hardware within rounding, which can grow
//! to centimetres at a wet front).
//!
//! ```no_run
//! use spillway::{gpu::GpuSimulation, level::file};
//! let level = file::load("projects/dam_break_valley/level.ron".as_ref()).expect("valid level");
//! let mut sim = GpuSimulation::headless(&level).expect("a GPU or lavapipe");
//! sim.step_n(500, level.params.dt).expect("steps recorded"); // returns at once
//! sim.request_stats();
//! // ... render a frame binding sim.depth_buffer() and sim.view_buffer() ...
//! if let Some(stats) = sim.poll_stats() {
//!     println!("{} m³ after {:.1} s", stats.volume, stats.time);
//! }
//! let depth = sim.read_depth().expect("read back");
//! # let _ = depth;
//! ```
//!
//! # How a step runs
//! Each step records, per sub-step: a one-invocation control pass, then the heavy passes as
//! dispatches that return at once unless the control pass opened the sub-step — forcing (sources, sinks), edges (border faces), advection (SWE or pipes
//! with momentum advection), the fused flow pass (accelerate, limit by the upwind cell's factor,
//! compensated depth update: one dispatch, 36 bytes per cell), the velocity store, the edge
//! ledger. The control pass decides the CFL sub-step count on the GPU from the last sub-step's
//! max depth and speed, so the CPU never waits; spare recorded sub-steps dispatch zero
//! workgroups. The ping-pong state lives in two halves of each buffer; the current half is
//! published in [`GpuSimulation::view_buffer`].
//!
//! # Volume accounting
//! Sources and sinks book the exact `f32` differences they make (error-free sums accumulated in
//! double-`f32`), the edges book per workgroup, rain books `cells × rain` per sub-step, the
//! volume is a double-`f32` reduction; the CPU adds the partials in `f64` when stats are read.

mod advect;
mod bench;
mod blocking;
mod capture;
mod control;
mod device;
mod edges;
mod edit;
mod erosion;
mod flow;
mod forcing;
mod gates;
mod gather;
mod gauges;
mod kernel;
mod maps;
mod pair;
mod passes;
mod probe;
mod quiet;
mod readback;
mod region;
mod run;
mod sim;
mod state;
mod stats;
mod store;
mod structures;
mod tiles;
mod view;

use thiserror::Error;

use crate::sim::{SimError, StepError};

/// WGSL of the blocker buffer's layout and of `effective_surface(i, j, half, terrain, depth)`,
/// the water's surface with blocking bodies held out of it (what buoyancy uses). Prepend it to
/// a shader that draws the water from the solver's buffers and declares `blk: array<u32>` as a
/// read-only storage buffer bound to [`GpuSimulation::blocker_view`]; `half` is the current
/// state's half (the view buffer's first word).
pub const BLOCKERS_WGSL: &str = include_str!("../../shaders/blockers.wgsl");

pub use bench::{BYTES_PER_CELL, BenchOptions, BenchResult, bench, bench_level, bench_with};
pub use capture::StateCopy;
pub use device::{
    ADAPTER_ENV, adapter_name, hardware_adapter, largest_buffer, preferred_limits, required_limits,
};
pub use flow::{FUSE_FROM, Fusion, TILE_ENV};
pub use gather::{CellWater, GATHERED, Gathered};
pub use pair::{PAIR_TILE_ENV, PLAIN_FROM, Pairing};
pub use probe::ProbeReading;
pub use quiet::{DrySkip, PAYS_FROM};
pub use readback::GpuStatus;
pub use sim::GpuSimulation;
pub use view::WaterView;

/// Why the GPU solver cannot run or continue.
#[derive(Debug, Error)]
pub enum GpuError {
    /// No GPU adapter (and no software one) was found.
    #[error("no GPU adapter found (install a Vulkan driver, or mesa-vulkan-drivers for lavapipe)")]
    NoAdapter,
    /// `SPILLWAY_GPU_ADAPTER` names no adapter there is.
    #[error(
        "no GPU adapter's name contains \"{wanted}\" (SPILLWAY_GPU_ADAPTER); the adapters here: {found}"
    )]
    NoAdapterNamed {
        /// What the variable asked for.
        wanted: String,
        /// The adapters' names, joined with commas.
        found: String,
    },
    /// The adapter refused to create a device.
    #[error("the GPU refused a device: {0}")]
    RequestDevice(String),
    /// The device cannot hold the level.
    #[error(
        "the GPU cannot hold this level: its {name} is {available}, the water solver needs {needed}"
    )]
    Limit {
        /// The wgpu limit that is too low.
        name: &'static str,
        /// What the solver needs.
        needed: u64,
        /// What the device grants.
        available: u64,
    },
    /// The level cannot be simulated at all.
    #[error(transparent)]
    Level(#[from] SimError),
    /// A shader failed to compile or validate (a bug of the runtime).
    #[error("the {pass} shader failed to build: {message}")]
    Shader {
        /// The pass.
        pass: &'static str,
        /// The compiler's message.
        message: String,
    },
    /// The device ran out of memory.
    #[error("the GPU ran out of memory: {0}")]
    OutOfMemory(String),
    /// The device reported an error (or was lost).
    #[error("the GPU reported an error: {0}")]
    Device(String),
    /// A read-back failed.
    #[error("reading back from the GPU failed: {0}")]
    Readback(String),
    /// The simulation stopped: a blow-up or runaway seen in the last read-back, or a bad step.
    #[error(transparent)]
    Step(#[from] StepError),
    /// An edit did not fit the simulation.
    #[error("bad input: {0}")]
    BadInput(String),
}
