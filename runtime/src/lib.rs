//! # Spillway runtime
//!
//! The crate a game links to run the water of a level made in the Spillway editor: the level
//! format ([`level`]), the CPU water solvers ([`sim`]) and cheap queries of the water state.
//!
//! ```no_run
//! use spillway::{level::file, sim::Simulation};
//! let level = file::load("projects/dam_break_valley/level.ron".as_ref()).expect("valid level");
//! let mut sim = Simulation::new(&level).expect("level fits the solver");
//! sim.advance(10.0); // ten simulated seconds
//! let depth = sim.depth_at(12.0, 30.0);
//! println!("water at the player: {depth} m, volume {} m³", sim.stats().volume);
//! ```
#![deny(missing_docs)]
// Stencil code indexes several grids by one cell index; iterators would hide the stencil.
#![allow(clippy::needless_range_loop)]

pub mod body;
pub mod error;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod grid;
pub mod level;
pub mod sim;

pub use error::LevelError;
pub use grid::Grid;
pub use level::{Level, Params, SolverKind};
pub use sim::{Simulation, Stats};
