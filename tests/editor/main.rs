//! Editor tests: the real editor app driven with real input through egui_kittest, rendering
//! with wgpu on whatever adapter the machine has (lavapipe in CI).
//!
//! Run with `cargo test -p spillway-editor --test editor`. Snapshot references live in
//! `tests/editor/snapshots/`; `UPDATE_SNAPSHOTS=1` rewrites them.

mod support;

mod analysis;
mod bodies;
mod body_files;
mod device_loss;
mod drawing;
mod erosion;
mod fields;
mod files;
mod game_pixels;
mod gauges;
mod heightmaps;
mod hydrograph;
mod idle;
mod level_loop;
mod on_disk;
mod preview;
mod preview_bodies;
mod sculpt;
mod snapshots;
mod structures;
mod timeline;
mod timeline_bodies;
mod water;
mod water_look;
