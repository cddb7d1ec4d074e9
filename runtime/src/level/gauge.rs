//! Gauges: where a designer watches the water. A *stage* gauge reads the depth and the surface
//! at a point; a *discharge* line reads the flow across a channel, in m³/s, counted positive
//! along the line's direction turned a quarter anticlockwise as the map is drawn (x right,
//! y down): eastward for a line drawn from north to south. They are saved in the level; the editor plots them while the water runs and a
//! game may read them too (`sim::gauges`).

use serde::{Deserialize, Serialize};

/// A named gauge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gauge {
    /// Name shown in the editor's plots.
    pub name: String,
    /// What it measures, and where.
    pub kind: GaugeKind,
}

/// What a gauge measures.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum GaugeKind {
    /// The depth and water surface at world point `(x, y)`, metres.
    Stage {
        /// World x, metres.
        x: f32,
        /// World y, metres.
        y: f32,
    },
    /// The discharge across the line from `from` to `to` (world metres), m³/s.
    Discharge {
        /// One end, world (x, y).
        from: [f32; 2],
        /// The other end, world (x, y).
        to: [f32; 2],
    },
}

/// Checks `gauge` (at `at`, e.g. `gauges[2].kind`) on a map spanning `extent` metres: its
/// points are finite and on the map.
pub(crate) fn check(
    at: &str,
    gauge: &Gauge,
    extent: [f32; 2],
) -> Result<(), super::ValidationError> {
    let points = match gauge.kind {
        GaugeKind::Stage { x, y } => vec![("", [x, y])],
        GaugeKind::Discharge { from, to } => vec![(".from", from), (".to", to)],
    };
    for (part, p) in points {
        let on_map = p.iter().all(|v| v.is_finite())
            && (0.0..=extent[0]).contains(&p[0])
            && (0.0..=extent[1]).contains(&p[1]);
        if !on_map {
            let reason = if p.iter().all(|v| v.is_finite()) {
                format!(
                    "({}, {}) lies outside the map (0..{} × 0..{} m)",
                    p[0], p[1], extent[0], extent[1]
                )
            } else {
                format!("({}, {}) is not a finite point", p[0], p[1])
            };
            return Err(super::ValidationError::new(format!("{at}{part}"), reason));
        }
    }
    Ok(())
}
