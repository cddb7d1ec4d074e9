//! `spillway-game`: the small game a level ships in, as a library its window (`main.rs`) and
//! the tests drive. [`Game`] holds the level, its water on the GPU solver, its rigid bodies and
//! the renderer the editor draws its viewport with; [`player::Player`] is the eye flying over
//! it; [`add_gate_if_none`] gives a level without gates one for the G key to open.

pub mod bodies;
pub mod player;
pub mod state;

pub use state::{Game, add_gate_if_none};
