//! Validation of a level against limits, so hostile files cannot allocate unbounded memory.
//!
//! [`Level::validate`] checks sizes, that every number is finite and in range, and that objects
//! fit the map. The first problem found is reported as a [`ValidationError`] whose `field` is a
//! path into the level such as `sources[2].shape.radius`, `params.dt` or `terrain(x=3, y=7)`.

use std::fmt;

#[path = "validate_body.rs"]
mod body;
use body::check_body;
#[path = "validate_flow.rs"]
mod flow;
use flow::check_flow;

use super::ranges::{
    CELL_SIZE, GRAVITY, MAX_HEIGHT, MAX_RATE, MAX_TIME, RAIN, TIME_STEP, height, number, within,
};
use super::schedule::{check_levels, check_schedule};
use super::{Boundary, BoundaryKind, Edge, Friction, Level, Params, Shape, SinkKind, SourceKind};
use crate::grid::Grid;

/// Largest sizes a level may declare. Loading checks the declared size against these before it
/// allocates anything, so a hostile file cannot make a game allocate unbounded memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most cells in one grid (`nx × ny`).
    pub max_cells: usize,
    /// Most cells along one side.
    pub max_side: usize,
    /// Most gates.
    pub max_gates: usize,
    /// Most water sources.
    pub max_sources: usize,
    /// Most water sinks.
    pub max_sinks: usize,
    /// Most boundary segments.
    pub max_boundaries: usize,
    /// Most placed rigid bodies.
    pub max_bodies: usize,
    /// Most gauges (stage gauges and discharge lines).
    pub max_gauges: usize,
    /// How many times over the map's cells the level's sources, sinks, gates, structures
    /// and discharge gauges may cover in all (their bounding boxes summed; at least
    /// [`MIN_COVERAGE_CELLS`] whatever the map's size). A simulation stores or visits each
    /// covered cell, so this bounds what a small file can make it allocate and do per step.
    pub max_coverage: usize,
}

/// Cells that a level's objects may always cover in all, however small its map (so that a
/// small map may still hold many point sources and short structures): 2¹⁸.
pub const MIN_COVERAGE_CELLS: u64 = 1 << 18;

impl Default for Limits {
    /// 8192 × 8192 cells, 16384 cells a side, 10 000 objects of each kind, objects covering
    /// the map 16 times over in all.
    fn default() -> Self {
        Self {
            max_cells: 8192 * 8192,
            max_side: 16384,
            max_gates: 10_000,
            max_sources: 10_000,
            max_sinks: 10_000,
            max_boundaries: 10_000,
            max_bodies: 10_000,
            max_gauges: 10_000,
            max_coverage: 16,
        }
    }
}

impl Limits {
    /// No size limits: only the content checks apply. Used when saving a level already in
    /// memory; never use it to load files from untrusted sources.
    pub fn unlimited() -> Self {
        Self {
            max_cells: usize::MAX,
            max_side: usize::MAX,
            max_gates: usize::MAX,
            max_sources: usize::MAX,
            max_sinks: usize::MAX,
            max_boundaries: usize::MAX,
            max_bodies: usize::MAX,
            max_gauges: usize::MAX,
            max_coverage: usize::MAX,
        }
    }

    /// Checks the cells a level's objects cover in all (`covered`, on a map of `cells`).
    pub fn check_coverage(&self, covered: u64, cells: usize) -> Result<(), ValidationError> {
        let most = (cells as u64)
            .saturating_mul(self.max_coverage as u64)
            .max(MIN_COVERAGE_CELLS);
        if covered > most {
            let why = if most == MIN_COVERAGE_CELLS {
                "the least allowed on any map".to_string()
            } else {
                format!("{} times the map's {cells} cells", self.max_coverage)
            };
            return Err(ValidationError::new(
                "sources, sinks, gates, structures and gauges",
                format!(
                    "together they cover {covered} cells, more than the limit of {most} ({why})"
                ),
            ));
        }
        Ok(())
    }

    /// Checks a declared grid size `nx × ny` (at least 2 × 2, within the limits).
    pub fn check_size(&self, nx: usize, ny: usize) -> Result<(), ValidationError> {
        for (field, n) in [("size.nx", nx), ("size.ny", ny)] {
            if n < 2 {
                return Err(ValidationError::new(
                    field,
                    format!("{n} cells, need at least 2"),
                ));
            }
            if n > self.max_side {
                return Err(ValidationError::new(
                    field,
                    format!("{n} cells, more than the limit of {} a side", self.max_side),
                ));
            }
        }
        match nx.checked_mul(ny) {
            Some(cells) if cells <= self.max_cells => Ok(()),
            _ => Err(ValidationError::new(
                "size",
                format!(
                    "{nx} × {ny} cells is more than the limit of {} cells",
                    self.max_cells
                ),
            )),
        }
    }

    /// Checks the number of sources, sinks, boundaries and bodies against the limits.
    pub fn check_counts(
        &self,
        sources: usize,
        sinks: usize,
        boundaries: usize,
        bodies: usize,
    ) -> Result<(), ValidationError> {
        for (field, n, max) in [
            ("sources", sources, self.max_sources),
            ("sinks", sinks, self.max_sinks),
            ("boundaries", boundaries, self.max_boundaries),
            ("bodies", bodies, self.max_bodies),
        ] {
            if n > max {
                return Err(ValidationError::new(
                    field,
                    format!("{n} entries, more than the limit of {max}"),
                ));
            }
        }
        Ok(())
    }

    /// Checks the number of gates against the limit.
    pub fn check_gates(&self, gates: usize) -> Result<(), ValidationError> {
        if gates > self.max_gates {
            return Err(ValidationError::new(
                "gates",
                format!("{gates} entries, more than the limit of {}", self.max_gates),
            ));
        }
        Ok(())
    }
}

/// The first problem found in a level: where it is and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    /// Path to the offending value, e.g. `sources[2].shape.radius` or `terrain(x=3, y=7)`.
    pub field: String,
    /// What is wrong with it.
    pub reason: String,
}

impl ValidationError {
    /// An error at `field` for `reason`.
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid `{}`: {}", self.field, self.reason)
    }
}

impl std::error::Error for ValidationError {}

/// The result of one check: the first problem found, if any.
pub(super) type Check = Result<(), ValidationError>;

impl Level {
    /// Checks the whole level: sizes within `limits`, every grid `nx × ny` and every flow array
    /// the right length, every number finite and in range, objects inside the map.
    pub fn validate(&self, limits: &Limits) -> Result<(), ValidationError> {
        let (nx, ny) = (self.nx(), self.ny());
        limits.check_size(nx, ny)?;
        limits.check_counts(
            self.sources.len(),
            self.sinks.len(),
            self.boundaries.len(),
            self.bodies.len(),
        )?;
        within("cell_size", self.cell_size, &CELL_SIZE, "m")?;
        check_params(&self.params)?;

        check_grid("terrain", &self.terrain, nx, ny, Values::Height)?;
        check_grid("water", &self.water, nx, ny, Values::Depth)?;
        if let Some(roughness) = &self.roughness {
            check_grid("roughness", roughness, nx, ny, Values::Finite)?;
            if let Some(i) = roughness.data.iter().position(|n| !(0.0..=1.0).contains(n)) {
                return Err(ValidationError::new(
                    format!("roughness(x={}, y={})", i % nx, i / nx),
                    format!("Manning's n {} is outside 0 ≤ n ≤ 1", roughness.data[i]),
                ));
            }
        }
        if let Some(flow) = &self.flow {
            check_flow(flow, nx, ny)?;
        }

        self.check_forcing()?;
        let extent = [nx as f32 * self.cell_size, ny as f32 * self.cell_size];
        self.check_boundaries()?;
        for (i, body) in self.bodies.iter().enumerate() {
            check_body(&format!("bodies[{i}]"), body)?;
        }
        super::footprint::too_many("gauges", self.gauges.len(), limits.max_gauges)?;
        for (i, gauge) in self.gauges.iter().enumerate() {
            super::gauge::check(&format!("gauges[{i}].kind"), gauge, extent)?;
        }
        limits.check_gates(self.gates.len())?;
        for (i, gate) in self.gates.iter().enumerate() {
            let at = format!("gates[{i}]");
            check_shape(&at, &gate.shape)?;
            on_map(&at, &gate.shape, extent)?;
            height(&format!("{at}.crest"), gate.crest)?;
            if let Some(t) = gate.open_at {
                within(&format!("{at}.open_at"), t, &(0.0..=MAX_TIME as f32), "s")?;
            }
        }
        limits.check_coverage(super::footprint::covered_cells(self), nx * ny)
    }

    /// Checks the boundary segments alone, as [`Self::validate`] does: each on its edge with a
    /// condition in range, none overlapping another of its edge (what a running simulation
    /// takes again, `GpuSimulation::set_boundaries`).
    pub fn check_boundaries(&self) -> Result<(), ValidationError> {
        let (nx, ny) = (self.nx(), self.ny());
        for (i, boundary) in self.boundaries.iter().enumerate() {
            check_boundary(&format!("boundaries[{i}]"), boundary, nx, ny)?;
            // One condition a cell: the solver's order between overlapping stretches differs
            // by kind (a scheduled one refills its cells every sub-step).
            let overlapped = self.boundaries[..i].iter().position(|b| {
                b.edge == boundary.edge && b.start < boundary.end && boundary.start < b.end
            });
            if let Some(j) = overlapped {
                return Err(ValidationError::new(
                    format!("boundaries[{i}]"),
                    format!(
                        "cells {}..{} of the {:?} edge overlap boundaries[{j}]; each edge cell has one condition",
                        boundary.start, boundary.end, boundary.edge
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Checks the sources, sinks and structures alone, as [`Self::validate`] does: what a
    /// running simulation takes again when a game or the editor changes them
    /// (`Simulation::set_sources_sinks`; a NaN rate blew every later step up).
    pub fn check_forcing(&self) -> Result<(), ValidationError> {
        let (nx, ny) = (self.nx(), self.ny());
        let extent = [nx as f32 * self.cell_size, ny as f32 * self.cell_size];
        for (i, source) in self.sources.iter().enumerate() {
            let at = format!("sources[{i}]");
            check_shape(&at, &source.shape)?;
            on_map(&at, &source.shape, extent)?;
            match &source.kind {
                SourceKind::Rate { m3_per_s } => rate(&format!("{at}.kind.m3_per_s"), *m3_per_s)?,
                SourceKind::Level {
                    surface,
                    max_m3_per_s,
                } => {
                    height(&format!("{at}.kind.surface"), *surface)?;
                    rate(&format!("{at}.kind.max_m3_per_s"), *max_m3_per_s)?;
                }
                SourceKind::Hydrograph(s) => check_schedule(&format!("{at}.kind"), s)?,
            }
        }
        for (i, sink) in self.sinks.iter().enumerate() {
            let at = format!("sinks[{i}]");
            check_shape(&at, &sink.shape)?;
            on_map(&at, &sink.shape, extent)?;
            match &sink.kind {
                SinkKind::Rate { m3_per_s } => rate(&format!("{at}.kind.m3_per_s"), *m3_per_s)?,
                SinkKind::Level {
                    surface,
                    max_m3_per_s,
                } => {
                    height(&format!("{at}.kind.surface"), *surface)?;
                    rate(&format!("{at}.kind.max_m3_per_s"), *max_m3_per_s)?;
                }
                SinkKind::Hydrograph(s) => check_schedule(&format!("{at}.kind"), s)?,
            }
        }
        let structures = self.structures.len();
        super::footprint::too_many("structures", structures, super::structure::MAX_STRUCTURES)?;
        for (i, s) in self.structures.iter().enumerate() {
            super::structure::check(&format!("structures[{i}]"), s, (nx, ny, self.cell_size))?;
        }
        Ok(())
    }
}

pub(super) fn finite(field: &str, v: f32) -> Check {
    if v.is_finite() {
        Ok(())
    } else {
        Err(ValidationError::new(
            field,
            format!("{v} is not a finite number"),
        ))
    }
}

fn positive(field: &str, v: f32) -> Check {
    finite(field, v)?;
    if v > 0.0 {
        Ok(())
    } else {
        Err(ValidationError::new(
            field,
            format!("{v} must be greater than 0"),
        ))
    }
}

/// `v` a discharge, m³/s: finite, ≥ 0 and at most [`MAX_RATE`] (also a circle's radius).
pub(super) fn rate(field: &str, v: f32) -> Check {
    finite(field, v)?;
    if v < 0.0 {
        Err(ValidationError::new(field, format!("{v} is negative")))
    } else if v > MAX_RATE {
        Err(ValidationError::new(
            field,
            format!(
                "{} is more than the {} a level may have",
                number(v),
                number(MAX_RATE)
            ),
        ))
    } else {
        Ok(())
    }
}

fn check_boundary_kind(at: &str, kind: &BoundaryKind) -> Check {
    match kind {
        BoundaryKind::Wall | BoundaryKind::Open => Ok(()),
        BoundaryKind::FixedLevel { surface } => height(&format!("{at}.surface"), *surface),
        BoundaryKind::Inflow { m3_per_s } => rate(&format!("{at}.m3_per_s"), *m3_per_s),
        BoundaryKind::Tide(s) => check_levels(at, s),
        BoundaryKind::Hydrograph(s) => check_schedule(at, s),
    }
}

fn check_friction(f: &Friction) -> Check {
    let (field, v, ok, range) = match *f {
        Friction::Manning { n } => (
            "params.friction.n",
            n,
            (0.0..=1.0).contains(&n),
            "0 ≤ n ≤ 1",
        ),
        // Below 0.001 the law's g·dt/c² overflows f32 (c = 1e-20): the first step gave NaN.
        Friction::Chezy { c } => (
            "params.friction.c",
            c,
            (1e-3..=1e4).contains(&c),
            "0.001 ≤ c ≤ 10000",
        ),
        Friction::Linear { per_second } => (
            "params.friction.per_second",
            per_second,
            (0.0..1.0).contains(&per_second),
            "0 ≤ per_second < 1",
        ),
    };
    finite(field, v)?;
    if ok {
        Ok(())
    } else {
        Err(ValidationError::new(
            field,
            format!("{v} is outside {range}"),
        ))
    }
}

impl Params {
    /// Checks the parameters as a level's are checked on load (ranges, a finite friction, a
    /// default edge a segment's schedule does not need): what a running simulation's
    /// `set_params` asks of them too.
    pub fn validate(&self) -> Result<(), ValidationError> {
        check_params(self)
    }
}

fn check_params(p: &Params) -> Check {
    within("params.gravity", p.gravity, &GRAVITY, "m/s²")?;
    within("params.dt", p.dt, &TIME_STEP, "s")?;
    check_friction(&p.friction)?;
    if let Some(s) = &p.sediment {
        super::sediment::check(s)?;
    }
    positive("params.cfl", p.cfl)?;
    if p.cfl > 1.0 {
        return Err(ValidationError::new(
            "params.cfl",
            format!("{} is outside 0 < cfl ≤ 1", p.cfl),
        ));
    }
    within("params.rain_mm_per_hour", p.rain_mm_per_hour, &RAIN, "mm/h")?;
    if let BoundaryKind::Tide(_) | BoundaryKind::Hydrograph(_) | BoundaryKind::Inflow { .. } =
        p.default_boundary
    {
        // A schedule belongs to a painted segment: as the default of every uncovered cell
        // the CPU held its first value for good and the GPU read no schedule at all. A
        // discharge is spread along its segment: as the default each edge cell took all of it
        // (128 times the rate on a 32² map).
        return Err(ValidationError::new(
            "params.default_boundary",
            "an inflow, tide or hydrograph enters along a boundary segment, not as the \
             default edge: paint it on the edges as a segment (Wall, Open or FixedLevel may be \
             the default)",
        ));
    }
    check_boundary_kind("params.default_boundary", &p.default_boundary)
}

/// What the values of an array must be.
#[derive(Clone, Copy, PartialEq)]
enum Values {
    /// Finite.
    Finite,
    /// Heights: finite and within ±[`MAX_HEIGHT`].
    Height,
    /// Depths: finite, ≥ 0 and at most [`MAX_HEIGHT`].
    Depth,
}

/// Checks a cell grid's size and values.
fn check_grid(name: &str, grid: &Grid, nx: usize, ny: usize, values: Values) -> Check {
    if grid.nx != nx || grid.ny != ny {
        return Err(ValidationError::new(
            name,
            format!(
                "grid is {} × {} cells but the level is {nx} × {ny}",
                grid.nx, grid.ny
            ),
        ));
    }
    check_values(name, &grid.data, nx, ny, values)
}

/// Checks that a row-major `w × h` array has `w·h` values, each as `values` asks.
fn check_values(name: &str, data: &[f32], w: usize, h: usize, values: Values) -> Check {
    let expected = w.saturating_mul(h);
    if data.len() != expected {
        return Err(ValidationError::new(
            name,
            format!("has {} values but needs {w} × {h} = {expected}", data.len()),
        ));
    }
    // One pass each; a range holds no NaN, so NaN fails every test.
    let allowed = match values {
        Values::Finite => f32::MIN..=f32::MAX,
        Values::Height => -MAX_HEIGHT..=MAX_HEIGHT,
        Values::Depth => 0.0..=MAX_HEIGHT,
    };
    let bad = data.iter().position(|v| !allowed.contains(v));
    let Some(i) = bad else { return Ok(()) };
    let v = data[i];
    let reason = if !v.is_finite() {
        format!("{v} is not a finite number")
    } else if v < 0.0 && values == Values::Depth {
        format!("depth {v} is negative")
    } else {
        format!(
            "{} m is beyond the {} m a height or depth may reach",
            number(v),
            number(MAX_HEIGHT)
        )
    };
    Err(ValidationError::new(
        format!("{name}(x={}, y={})", i % w, i / w),
        reason,
    ))
}

/// A shape (already checked finite) reaches onto the map of `extent` metres: a point lies on
/// it, a circle's or a box's extent overlaps it. (One wholly off the map would be placed on
/// the edge cell nearest its centre.)
fn on_map(at: &str, shape: &Shape, extent: [f32; 2]) -> Check {
    if shape.reaches(extent) {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{at}.shape"),
        format!(
            "{shape:?} lies wholly outside the map (0..{} × 0..{} m)",
            extent[0], extent[1]
        ),
    ))
}

pub(super) fn check_shape(at: &str, shape: &Shape) -> Check {
    let f = |name: &str, v: f32| finite(&format!("{at}.shape.{name}"), v);
    match *shape {
        Shape::Point { x, y } => {
            f("x", x)?;
            f("y", y)
        }
        Shape::Circle { x, y, radius } => {
            f("x", x)?;
            f("y", y)?;
            rate(&format!("{at}.shape.radius"), radius)
        }
        Shape::Box { x0, y0, x1, y1 } => {
            f("x0", x0)?;
            f("y0", y0)?;
            f("x1", x1)?;
            f("y1", y1)?;
            if x1 < x0 {
                return Err(ValidationError::new(
                    format!("{at}.shape.x1"),
                    format!("maximum x {x1} is less than minimum x {x0}"),
                ));
            }
            if y1 < y0 {
                return Err(ValidationError::new(
                    format!("{at}.shape.y1"),
                    format!("maximum y {y1} is less than minimum y {y0}"),
                ));
            }
            Ok(())
        }
    }
}

fn check_boundary(at: &str, b: &Boundary, nx: usize, ny: usize) -> Check {
    let edge_len = match b.edge {
        Edge::West | Edge::East => ny,
        Edge::North | Edge::South => nx,
    };
    if b.start >= b.end {
        return Err(ValidationError::new(
            format!("{at}.end"),
            format!(
                "segment {}..{} is empty (end must be greater than start)",
                b.start, b.end
            ),
        ));
    }
    if b.end as usize > edge_len {
        return Err(ValidationError::new(
            format!("{at}.end"),
            format!(
                "{} is past the {:?} edge, which is {edge_len} cells long",
                b.end, b.edge
            ),
        ));
    }
    check_boundary_kind(&format!("{at}.kind"), &b.kind)
}
