//! Older level file versions and their migration to the current one.
//!
//! Each version keeps the exact RON document it was written with (its own struct, refusing
//! unknown fields), and a function converts it to the next version. [`super::parse`] picks the
//! struct by the file's `format_version` and runs the migrations in order.
//!
//! | version | change |
//! | --- | --- |
//! | 1 | the first format |
//! | 2 | `flow` gains `carry`, `aux_x`, `aux_y` (sidecar grids) and `max_speed`: the solver state a bake needs to continue bit for bit. A version 1 bake has none; the solver rebuilds them (carry zero, the second face field from the flows and depths), so it continues closely but not bit for bit. |

use serde::Deserialize;

use super::sidecar::GridRef;
use super::{FlowFile, LevelFile, Size};
use crate::level::{Body, Boundary, FORMAT_VERSION, Gate, Params, Sink, SolverKind, Source};

/// The RON document of format version 1.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LevelFileV1 {
    #[allow(dead_code)] // always 1: `parse` chose this struct by it
    format_version: u32,
    name: String,
    cell_size: f32,
    size: Size,
    #[serde(default)]
    params: Params,
    #[serde(default)]
    sources: Vec<Source>,
    #[serde(default)]
    sinks: Vec<Sink>,
    #[serde(default)]
    boundaries: Vec<Boundary>,
    #[serde(default)]
    bodies: Vec<Body>,
    #[serde(default)]
    gates: Vec<Gate>,
    terrain: GridRef,
    water: GridRef,
    #[serde(default)]
    flow: Option<FlowFileV1>,
}

/// The saved solver state of format version 1: flows, ghosts and time only.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FlowFileV1 {
    solver: SolverKind,
    time: f64,
    ghost: Vec<f32>,
    flow_x: GridRef,
    flow_y: GridRef,
}

/// Version 1 → 2: the flow state has no remainder, second face field or speed; the solver
/// rebuilds them on load.
pub(super) fn v1_to_v2(v1: LevelFileV1) -> LevelFile {
    LevelFile {
        format_version: FORMAT_VERSION,
        name: v1.name,
        cell_size: v1.cell_size,
        size: v1.size,
        params: v1.params,
        sources: v1.sources,
        sinks: v1.sinks,
        boundaries: v1.boundaries,
        bodies: v1.bodies,
        gates: v1.gates,
        terrain: v1.terrain,
        water: v1.water,
        flow: v1.flow.map(|f| FlowFile {
            solver: f.solver,
            time: f.time,
            ghost: f.ghost,
            flow_x: f.flow_x,
            flow_y: f.flow_y,
            carry: None,
            aux_x: None,
            aux_y: None,
            max_speed: None,
        }),
    }
}
