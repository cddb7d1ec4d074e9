//! # Spillway runtime
//!
//! The crate a game links to run the water of a level made in the Spillway editor: the level
//! format ([`level`]), the CPU water solvers ([`sim`]) and cheap queries of the water state.
//! With default features it needs only serde, ron, thiserror, rayon, crc32fast and lz4_flex; the GPU
//! solver (`gpu`, wgpu) and glTF import of rigid bodies (`bodies`) are features, and so are
//! `rapier` (implies `bodies`: a rapier3d world of the level's bodies stepped with the water,
//! `body::world::BodyWorld`) and `rapier-profile` (implies `rapier`: rapier's own stage timers,
//! summed in `StepTimes::rapier_stages`, for the `body_bench` example).
//!
//! ## A game's loop
//!
//! 1. **Load** the level the editor exported: [`level::file::load`] reads `NAME.ron` and its
//!    grid sidecar, checks every size before allocating, every checksum and every value, and
//!    migrates older format versions; [`level::file::load_bytes`] does the same from bytes a
//!    game keeps in its asset pack. Errors ([`LevelError`]) name the file, the place and the
//!    reason, ready for a log. A level baked by `spillway bake` or the editor carries its water
//!    and flow state, so the game starts with the rivers already flowing: bit for bit as the
//!    bake would have gone on when it was baked on the CPU solver without bodies (`spillway bake
//!    --backend cpu --no-bodies`), closely after a GPU bake or with bodies.
//! 2. **Build** a [`Simulation`] from it, and **step** it by the frame time with
//!    [`Simulation::step`] (it sub-steps as the CFL limit needs, a gravity wave crossing at
//!    most 1/√2 of a cell a sub-step) or by whole seconds with
//!    [`Simulation::advance`]. No NaN enters the water: a sub-step that would produce one is
//!    thrown away and reported ([`sim::StepError`]).
//! 3. **Query** what the game needs: [`Simulation::depth_at`], [`Simulation::surface_at`] and
//!    [`Simulation::velocity_at`] at a world point (metres, x right, y down the rows),
//!    [`Simulation::flooded_area`], [`Simulation::region_volume`], [`Simulation::stats`].
//! 4. **Trigger** the level's gates by name with [`Simulation::open_gate`], and start or stop
//!    its sources and sinks by name with [`Level::set_running`] then
//!    [`Simulation::set_sources_sinks`] (a sluice gate's opening likewise with
//!    [`Level::set_gate_opening`]); start a breach by name with [`Simulation::start_breach`]
//!    and read how far each has opened with [`Simulation::breaches`]; hand rigid bodies to the water with
//!    [`Simulation::set_blockers`] (see [`body`]).
//! 5. **Rewind or save** the water: [`snapshot::Snapshot::of`] a level from
//!    [`Simulation::bake_into`] keeps the whole state compressed in memory, and
//!    [`snapshot::Snapshot::restore`] gives a level to build a simulation from that continues
//!    where it was. A save game on disk is the baked level itself: [`level::file::save`] it,
//!    and [`level::file::load`] gives it back (checked like any level) to continue from. With
//!    bodies (the `rapier` feature), `body::world::BodyWorld::keep_poses` writes where they are
//!    into the baked level first. A save holds its bodies' glTF paths as the level wrote them
//!    (relative to the shipped level's folder), not their files: a save written elsewhere (the
//!    player's data folder) loads its meshes from the shipped level's folder
//!    (`body::world::import_meshes(&save, shipped_dir)`), or from bytes the game bundles
//!    (`body::world::import_meshes_from_bytes`).
//!
//! ```
//! use spillway::level::{Gate, Shape, file};
//! use spillway::Simulation;
//!
//! // A bundled sample level (a game would ship its own next to its assets).
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../projects/dam_break_valley/level.ron");
//! let mut level = file::load(path.as_ref())?;
//! // Gates are placed in the editor; add one here to show the trigger.
//! level.gates.push(Gate {
//!     name: "sluice".into(),
//!     shape: Shape::Box { x0: 200.0, y0: 0.0, x1: 204.0, y1: 192.0 },
//!     crest: 1000.0,
//!     open_at: None,
//! });
//! let mut sim = Simulation::new(&level)?;
//! for _frame in 0..60 {
//!     sim.step(1.0 / 60.0)?; // one second of game frames
//! }
//! let (x, y) = (40.0, 96.0); // the player, in metres
//! let depth = sim.depth_at(x, y);
//! let (vx, vy) = sim.velocity_at(x, y);
//! let flooded = sim.flooded_area(0.01); // m² deeper than 1 cm
//! assert!(depth.is_finite() && depth >= 0.0 && vx.is_finite() && vy.is_finite());
//! assert!(flooded > 0.0);
//! assert!(sim.open_gate("sluice"), "the trigger finds the closed gate");
//! sim.advance(1.0)?;
//! assert!(sim.stats().balance_error.abs() < 1e-6);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `examples/headless.rs` does the same with a printed report:
//! `cargo run -p spillway --example headless [LEVEL.ron]`. The workspace's `spillway-game`
//! package is the same loop in a small windowed game on the GPU solver, drawn with the
//! `spillway-render` crate (fly over the level, drop crates with Space, open the gates with G):
//! `cargo run -p spillway-game --release [-- LEVEL.ron]`.
//!
//! ## Reproducibility
//!
//! The CPU solver is bit-reproducible: the same level and steps give the same bits on any
//! number of threads, and [`Level::state_hash`] (`spillway sim --hash`) compares runs. The GPU
//! solver (`spillway::gpu`, feature `gpu`) is not bit-identical to the CPU solver: its results
//! differ in the last bits of `f32` rounding, and bit-identity across GPUs, drivers or batch
//! sizes is not promised (compare GPU hashes only on one machine). Its volume balance is as
//! exact as the CPU's, and its bakes save flows, the second face field, the fastest face speed,
//! ghosts and time but not the CPU's compensated-summation remainder (`carry`), so a GPU bake
//! continues closely, not bit for bit.
#![deny(missing_docs)]
// Stencil code indexes several grids by one cell index; iterators would hide the stencil.
#![allow(clippy::needless_range_loop)]

pub mod bench;
pub mod body;
pub mod error;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod grid;
pub mod level;
pub mod rect;
pub mod sim;
pub mod snapshot;

pub use error::LevelError;
pub use grid::Grid;
pub use level::{Level, Params, SolverKind};
pub use rect::CellRect;
pub use sim::{Simulation, Stats};
