//! The Gauge tool, free of windows: a click makes a stage gauge, a drag a discharge line;
//! names are unique ("Gauge 2", "Line 1"); a click near an existing gauge picks it.

use spillway::Level;
use spillway::level::{Gauge, GaugeKind};

/// A drag shorter than this many cells is a click: a stage gauge.
const CLICK_CELLS: f32 = 1.5;
/// How near (cells) a click must be to pick a gauge.
const PICK_CELLS: f32 = 2.0;

/// The gauge a press at `a` and a release at `b` (world metres) make in `level`, clamped into
/// the map: a stage gauge at `a` for a click, else a discharge line from `a` to `b`.
pub fn new_gauge(level: &Level, a: [f32; 2], b: [f32; 2]) -> Gauge {
    let cs = level.cell_size;
    let extent = [level.nx() as f32 * cs, level.ny() as f32 * cs];
    let clamp = |p: [f32; 2]| [p[0].clamp(0.0, extent[0]), p[1].clamp(0.0, extent[1])];
    let (a, b) = (clamp(a), clamp(b));
    let long = (b[0] - a[0]).hypot(b[1] - a[1]) >= CLICK_CELLS * cs;
    let (base, kind) = if long {
        ("Line", GaugeKind::Discharge { from: a, to: b })
    } else {
        ("Gauge", GaugeKind::Stage { x: a[0], y: a[1] })
    };
    let name = (1..)
        .map(|n| format!("{base} {n}"))
        .find(|n| level.gauges.iter().all(|g| &g.name != n))
        .unwrap_or_else(|| base.into());
    Gauge { name, kind }
}

/// The gauge of `level` nearest to world point `(x, y)`, if one is within reach.
pub fn hit_gauge(level: &Level, x: f32, y: f32) -> Option<usize> {
    let reach = PICK_CELLS * level.cell_size;
    let distance = |g: &Gauge| match g.kind {
        GaugeKind::Stage { x: gx, y: gy } => (x - gx).hypot(y - gy),
        GaugeKind::Discharge { from, to } => {
            let d = [to[0] - from[0], to[1] - from[1]];
            let len2 = (d[0] * d[0] + d[1] * d[1]).max(1e-9);
            let t = (((x - from[0]) * d[0] + (y - from[1]) * d[1]) / len2).clamp(0.0, 1.0);
            (x - from[0] - t * d[0]).hypot(y - from[1] - t * d[1])
        }
    };
    level
        .gauges
        .iter()
        .enumerate()
        .map(|(i, g)| (i, distance(g)))
        .filter(|(_, d)| *d <= reach)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// The unit of what a gauge reads.
pub fn unit(kind: &GaugeKind) -> &'static str {
    match kind {
        GaugeKind::Stage { .. } => "m",
        GaugeKind::Discharge { .. } => "m³/s",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_click_is_a_stage_gauge_and_a_drag_a_line_with_unique_names() {
        let mut level = Level::flat(20, 20, 2.0, 0.0);
        let g = new_gauge(&level, [10.0, 10.0], [10.5, 10.0]);
        assert_eq!(g.kind, GaugeKind::Stage { x: 10.0, y: 10.0 });
        assert_eq!(g.name, "Gauge 1");
        level.gauges.push(g);
        let line = new_gauge(&level, [5.0, 1.0], [5.0, 90.0]);
        assert_eq!(
            line.kind,
            GaugeKind::Discharge {
                from: [5.0, 1.0],
                to: [5.0, 40.0]
            }
        );
        assert_eq!(new_gauge(&level, [3.0, 3.0], [3.0, 3.0]).name, "Gauge 2");
        level.gauges.push(line);
        assert_eq!(hit_gauge(&level, 11.0, 10.0), Some(0));
        assert_eq!(hit_gauge(&level, 6.0, 20.0), Some(1));
        assert_eq!(hit_gauge(&level, 30.0, 30.0), None);
    }
}
