//! The ranges a level's physical quantities must lie in.
//!
//! Loading refuses a level with a value outside them by name (`cell_size`, `params.gravity`,
//! `terrain(x=3, y=7)`, `boundaries[0].kind.surface`, ...), and the editor's controls keep to
//! them, so a value the editor could never make is a clear error on load instead of a solver
//! that runs away at its first step. The bounds are wide: they refuse only what no level means
//! (a cell of 1e-30 m, a gravity of 1e30 m/s², a lake surface at 1e38 m).

use std::ops::RangeInclusive;

use super::validate::ValidationError;

/// Cell sizes a level may have, metres: 1 cm to 1 km (the editor's New level dialog offers the
/// same).
pub const CELL_SIZE: RangeInclusive<f32> = 0.01..=1000.0;

/// Gravitational accelerations a level may have, m/s²: 0.1 to 100 (Earth's is 9.81; the
/// editor's Level panel offers the same).
pub const GRAVITY: RangeInclusive<f32> = 0.1..=100.0;

/// The largest magnitude of a height, metres: terrain, a water surface (a source's or sink's
/// level, a fixed level or tide), a gate's or structure's crest, sill or bottom, and the depth
/// of water (the editor's brushes and structure controls keep to it too).
pub const MAX_HEIGHT: f32 = 1.0e6;

/// The heights a level may hold, metres: ±[`MAX_HEIGHT`].
pub const HEIGHTS: RangeInclusive<f32> = -MAX_HEIGHT..=MAX_HEIGHT;

/// The largest discharge of a source, sink, inflow edge or hydrograph point, m³/s (the
/// editor's controls reach it; the Amazon's mouth carries 2e5).
pub const MAX_RATE: f32 = 1.0e7;

/// Rain a level may have, mm/h (the wettest hour on record is some 300).
pub const RAIN: RangeInclusive<f32> = 0.0..=10_000.0;

/// Time steps a level may have, seconds (the editor's Level panel offers 0.001 to 10).
pub const TIME_STEP: RangeInclusive<f32> = 1.0e-4..=10.0;

/// The latest time a level's clock, a gate's opening or a breach's start may have, seconds
/// (some 31 years; an `f64` clock still counts a step of [`TIME_STEP`]'s shortest there).
pub const MAX_TIME: f64 = 1.0e9;

/// A culvert's inside diameter, metres.
pub const PIPE_DIAMETER: RangeInclusive<f32> = 0.01..=100.0;

/// A culvert's length, and a breach's width, metres.
pub const STRUCTURE_LENGTH: RangeInclusive<f32> = 0.0..=1.0e5;

/// `v` within `range` (which also refuses NaN), in `unit` (`""` for a plain number).
pub(super) fn within(
    field: &str,
    v: f32,
    range: &RangeInclusive<f32>,
    unit: &str,
) -> Result<(), ValidationError> {
    if range.contains(&v) {
        return Ok(());
    }
    let reason = if v.is_finite() {
        let (lo, hi) = (number(*range.start()), number(*range.end()));
        let unit = if unit.is_empty() {
            String::new()
        } else {
            format!(" {unit}")
        };
        format!("{}{unit} is outside {lo} to {hi}{unit}", number(v))
    } else {
        format!("{v} is not a finite number")
    };
    Err(ValidationError::new(field, reason))
}

/// `v` as people write it: `1e30` rather than thirty-one digits, `0.5` as it is.
pub fn number(v: f32) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e6).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// `v` a height (a surface, a crest): finite and within ±[`MAX_HEIGHT`].
pub(super) fn height(field: &str, v: f32) -> Result<(), ValidationError> {
    within(field, v, &HEIGHTS, "m")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_outside_names_its_range_and_unit() {
        let e = within("params.gravity", 1e30, &GRAVITY, "m/s²").unwrap_err();
        assert_eq!(e.field, "params.gravity");
        assert_eq!(e.reason, "1e30 m/s² is outside 0.1 to 100 m/s²");
        let e = height("x", f32::NAN).unwrap_err();
        assert_eq!(e.reason, "NaN is not a finite number");
        assert!(height("x", -MAX_HEIGHT).is_ok() && height("x", 1.5 * MAX_HEIGHT).is_err());
        assert!(within("cell_size", 0.01, &CELL_SIZE, "m").is_ok());
        assert_eq!(number(1e-30), "1e-30");
        let e = within("porosity", 2.0, &(0.0..=0.9), "").unwrap_err();
        assert_eq!(e.reason, "2 is outside 0 to 0.9");
        assert_eq!(number(-2.5), "-2.5");
        assert_eq!(number(0.0), "0");
    }
}
