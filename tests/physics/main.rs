//! Physics validation of the CPU solvers: analytic dam breaks (Ritter, Stoker), lake at rest,
//! wave speed, volume balance, open edges, Manning rivers, forcing, stability and determinism.

mod boundaries;
mod breach;
mod dam_break;
mod determinism;
mod erosion;
mod forcing;
mod gates;
mod hydrograph;
mod lake_at_rest;
mod river;
mod stability;
mod structures;
mod wave_speed;
