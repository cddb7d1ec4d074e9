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
//! | 3 | `params.friction` becomes a law (`Manning(n: 0.03)` by default, `Chezy(c: ..)`, `Linear(per_second: ..)`) and the level gains an optional `roughness` grid (Manning's `n` per cell). An older level's number `friction` (0.02 when absent) becomes `Linear(per_second: friction)`, so it runs as before. |

use serde::Deserialize;

use super::sidecar::GridRef;
use super::{FlowFile, LevelFile, Size};
use crate::level::{
    Advection, Body, Boundary, BoundaryKind, CrossSection, FORMAT_VERSION, Friction, Gate, Params,
    Sink, SolverKind, Source,
};

/// The parameters of format versions 1 and 2: `friction` was a fraction lost per second.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(default)]
pub(super) struct ParamsV2 {
    solver: SolverKind,
    cross_section: CrossSection,
    advection: Advection,
    pipe_advection: bool,
    gravity: f32,
    dt: f32,
    friction: f32,
    cfl: f32,
    rain_mm_per_hour: f32,
    default_boundary: BoundaryKind,
}

impl Default for ParamsV2 {
    fn default() -> Self {
        let p = Params::default();
        Self {
            solver: p.solver,
            cross_section: p.cross_section,
            advection: p.advection,
            pipe_advection: p.pipe_advection,
            gravity: p.gravity,
            dt: p.dt,
            // The default of versions 1 and 2.
            friction: 0.02,
            cfl: p.cfl,
            rain_mm_per_hour: p.rain_mm_per_hour,
            default_boundary: p.default_boundary,
        }
    }
}

impl ParamsV2 {
    /// The same parameters with the per-second friction as a `Linear` law.
    fn into_v3(self) -> Params {
        Params {
            solver: self.solver,
            cross_section: self.cross_section,
            advection: self.advection,
            pipe_advection: self.pipe_advection,
            gravity: self.gravity,
            dt: self.dt,
            friction: Friction::Linear {
                per_second: self.friction,
            },
            cfl: self.cfl,
            rain_mm_per_hour: self.rain_mm_per_hour,
            default_boundary: self.default_boundary,
            sediment: None,
        }
    }
}

/// The RON document of format version 2.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LevelFileV2 {
    #[allow(dead_code)] // always 2 (or 1 after migration): `parse` chose this struct by it
    format_version: u32,
    name: String,
    cell_size: f32,
    size: Size,
    #[serde(default)]
    params: ParamsV2,
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
    flow: Option<FlowFile>,
}

/// Version 2 → 3: the number `friction` becomes a `Linear` law; no roughness grid.
pub(super) fn v2_to_v3(v2: LevelFileV2) -> LevelFile {
    LevelFile {
        format_version: FORMAT_VERSION,
        name: v2.name,
        cell_size: v2.cell_size,
        size: v2.size,
        params: v2.params.into_v3(),
        sources: v2.sources,
        sinks: v2.sinks,
        boundaries: v2.boundaries,
        bodies: v2.bodies,
        gates: v2.gates,
        gauges: Vec::new(),
        structures: Vec::new(),
        terrain: v2.terrain,
        water: v2.water,
        flow: v2.flow,
        roughness: None,
    }
}

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
    params: ParamsV2,
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
pub(super) fn v1_to_v2(v1: LevelFileV1) -> LevelFileV2 {
    LevelFileV2 {
        format_version: 2,
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
            bed_floor: None,
        }),
    }
}
