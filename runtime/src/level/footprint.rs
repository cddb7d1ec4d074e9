//! How many cells a level's objects make a simulation store or visit: each source, sink,
//! gate, structure and discharge gauge is turned into a list of cells (or a scan of its
//! bounding box) when a simulation is built, and some are walked every step. The count here
//! is an upper bound, computed without allocating, so [`super::Limits::max_coverage`] can
//! refuse a file whose few bytes would cost gigabytes or minutes (a thousand whole-map gates).

use super::{GaugeKind, Level, Limits, Shape, StructureKind, ValidationError};

impl Level {
    /// Checks only how many objects of each kind the level holds and the cells they cover,
    /// against `limits`: no grid is read (but the terrain's highest point where there is a
    /// breach). An editor asks it after an edit adds or grows objects, so that a level it saves
    /// opens again with the limits it opened with. The shapes must be numbers a level may hold
    /// ([`Level::validate`] checks them); the same errors as it gives for these limits.
    pub fn check_objects(&self, limits: &Limits) -> Result<(), ValidationError> {
        let (sources, sinks) = (self.sources.len(), self.sinks.len());
        limits.check_counts(sources, sinks, self.boundaries.len(), self.bodies.len())?;
        too_many("gauges", self.gauges.len(), limits.max_gauges)?;
        too_many(
            "structures",
            self.structures.len(),
            super::structure::MAX_STRUCTURES,
        )?;
        limits.check_gates(self.gates.len())?;
        limits.check_coverage(covered_cells(self), self.nx() * self.ny())
    }
}

/// `n` entries of `field` against the most allowed, `max`.
pub(super) fn too_many(field: &str, n: usize, max: usize) -> Result<(), ValidationError> {
    if n > max {
        return Err(ValidationError::new(
            field,
            format!("{n} entries, more than the limit of {max}"),
        ));
    }
    Ok(())
}

/// Cells in the bounding box `lo..hi` (world metres, already grown by any margin) clipped to
/// an `nx × ny` map of `dx` cells, at least 1 (every object takes at least its own cell).
fn box_cells(lo: [f32; 2], hi: [f32; 2], (nx, ny, dx): (usize, usize, f32)) -> u64 {
    let span = |lo: f32, hi: f32, n: usize| -> u64 {
        let a = ((lo / dx).floor() - 1.0).clamp(0.0, n as f32) as u64;
        let b = ((hi / dx).ceil() + 1.0).clamp(0.0, n as f32) as u64;
        b.saturating_sub(a)
    };
    (span(lo[0], hi[0], nx) * span(lo[1], hi[1], ny)).max(1)
}

/// Cells of a source's, sink's or gate's shape (as `sim::forcing::rasterise` scans it).
fn shape_cells(shape: &Shape, grid: (usize, usize, f32)) -> u64 {
    match *shape {
        Shape::Point { .. } => 1,
        Shape::Circle { x, y, radius } => {
            box_cells([x - radius, y - radius], [x + radius, y + radius], grid)
        }
        Shape::Box { x0, y0, x1, y1 } => {
            box_cells([x0.min(x1), y0.min(y1)], [x0.max(x1), y0.max(y1)], grid)
        }
    }
}

/// Cells along the line `from`–`to`, grown by `reach` metres on every side.
fn line_cells(from: [f32; 2], to: [f32; 2], reach: f32, grid: (usize, usize, f32)) -> u64 {
    let lo = [from[0].min(to[0]) - reach, from[1].min(to[1]) - reach];
    let hi = [from[0].max(to[0]) + reach, from[1].max(to[1]) + reach];
    box_cells(lo, hi, grid)
}

/// The cells all of `level`'s objects cover or scan, summed (an upper bound; validated
/// numbers only: call after the shapes and structures are checked).
pub(super) fn covered_cells(level: &Level) -> u64 {
    let grid = (level.nx(), level.ny(), level.cell_size);
    // Read only where a breach needs it (an editor asks after each edit of its objects).
    let breaches =
        (level.structures.iter()).any(|s| matches!(s.kind, StructureKind::Breach { .. }));
    let highest = match breaches {
        true => (level.terrain.data.iter().copied()).fold(f32::NEG_INFINITY, f32::max),
        false => 0.0,
    };
    let shapes = (level.sources.iter().map(|s| &s.shape))
        .chain(level.sinks.iter().map(|s| &s.shape))
        .chain(level.gates.iter().map(|g| &g.shape));
    let mut total: u64 = shapes.map(|s| shape_cells(s, grid)).sum();
    for s in &level.structures {
        let (from, to) = s.kind.ends();
        total += match s.kind {
            StructureKind::Culvert { .. } => 2,
            StructureKind::Weir { .. } | StructureKind::SluiceGate { .. } => {
                line_cells(from, to, 0.0, grid)
            }
            // The cut reaches half its width and its side slopes up to the highest ground.
            StructureKind::Breach {
                bottom,
                width,
                side_slope,
                ..
            } => {
                let reach = 0.5 * width + (highest - bottom).max(0.0) * side_slope;
                line_cells(from, to, reach.min(f32::MAX), grid)
            }
        };
    }
    for g in &level.gauges {
        total += match g.kind {
            GaugeKind::Stage { .. } => 1,
            GaugeKind::Discharge { from, to } => line_cells(from, to, 0.0, grid),
        };
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_counts_the_cells_it_spans_and_no_more_than_the_map() {
        let grid = (100, 50, 2.0);
        // 10 × 10 cells, plus the one-cell margin on each side.
        let b = Shape::Box {
            x0: 20.0,
            y0: 20.0,
            x1: 40.0,
            y1: 40.0,
        };
        assert_eq!(shape_cells(&b, grid), 12 * 12);
        let everything = Shape::Box {
            x0: -1e30,
            y0: -1e30,
            x1: 1e30,
            y1: 1e30,
        };
        assert_eq!(shape_cells(&everything, grid), 100 * 50);
        let off_map = Shape::Circle {
            x: -500.0,
            y: -500.0,
            radius: 1.0,
        };
        assert_eq!(shape_cells(&off_map, grid), 1);
        assert_eq!(line_cells([0.0, 0.0], [1e9, 1e9], 1e30, grid), 100 * 50);
    }

    #[test]
    fn checking_the_objects_alone_finds_what_validation_finds() {
        let mut level = Level::flat(64, 64, 1.0, 0.0);
        let whole = Shape::Box {
            x0: 0.0,
            y0: 0.0,
            x1: 64.0,
            y1: 64.0,
        };
        let rain = |i| crate::level::Source {
            name: format!("Rain {i}"),
            shape: whole.clone(),
            kind: crate::level::SourceKind::Rate { m3_per_s: 1.0 },
            enabled: true,
        };
        // 64 boxes of 4096 cells are the least any map may hold (2¹⁸); one more is past it.
        level.sources = (0..64).map(rain).collect();
        let limits = Limits::default();
        assert_eq!(level.check_objects(&limits), Ok(()));
        level.sources.push(rain(64));
        let refused = level.check_objects(&limits);
        assert!(refused.is_err());
        assert_eq!(refused, level.validate(&limits));
        let few = Limits {
            max_sources: 3,
            ..Limits::default()
        };
        assert_eq!(level.check_objects(&few), level.validate(&few));
    }
}
