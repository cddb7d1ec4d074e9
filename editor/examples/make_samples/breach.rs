//! The `breach_dam` sample: a reservoir behind an earth dam that breaches when the river
//! feeding it tops the crest.

use std::path::Path;

use spillway::level::{
    Boundary, BoundaryKind, BreachGrowth, BreachStart, Edge, Gauge, GaugeKind, Shape, Source,
    SourceKind, Structure, StructureKind,
};
use spillway::{Grid, Level};
use spillway_editor::cli::BoundaryArg;

use super::{Result, import};

/// The dam's crest, metres.
const CREST: f32 = 12.0;

/// A valley 240 m × 120 m (2 m cells) falling east; an earth dam with a crest at 12 m across it
/// at x = 80–96 m holds a reservoir filled to 11.9 m; a river of 30 m³/s feeds the reservoir at
/// the west end, so within a minute the water tops the dam by 5 cm and the breach `dam breach`
/// starts: over 60 s it cuts down to the valley floor below the dam, 16 m wide at the bottom
/// with 1:1 sides. A discharge line `below the dam` at x = 130 m reads the flood; the east
/// edge is open.
pub fn breach_dam(scratch: &Path) -> Result<Level> {
    let (nx, ny, dx) = (120, 60, 2.0f32);
    let ground = |x: f32, y: f32| {
        let floor = 6.0 - 0.02 * x;
        let sides = 20.0 * (1.0 - (-(y - 60.0).powi(2) / 800.0).exp());
        let dam = CREST - ((x - 88.0).abs() - 4.0).max(0.0);
        (floor + sides).max(dam)
    };
    let terrain = Grid::from_fn(nx, ny, |i, j| {
        ground((i as f32 + 0.5) * dx, (j as f32 + 0.5) * dx)
    });
    let water = Grid::from_fn(nx, ny, |i, j| {
        if (i as f32 + 0.5) * dx < 88.0 {
            (CREST - 0.1 - terrain.get(i, j)).max(0.0)
        } else {
            0.0
        }
    });
    let mut level = import(
        scratch,
        "breach_dam",
        &terrain,
        &water,
        dx,
        BoundaryArg::Wall,
    )?;
    level.params.dt = 0.05;
    level.boundaries.push(Boundary {
        edge: Edge::East,
        start: 0,
        end: ny as u32,
        kind: BoundaryKind::Open,
    });
    level.sources.push(Source {
        name: "river".into(),
        shape: Shape::Box {
            x0: 0.0,
            y0: 44.0,
            x1: 6.0,
            y1: 76.0,
        },
        kind: SourceKind::Rate { m3_per_s: 30.0 },
        enabled: true,
    });
    let floor_below = ground(100.0, 60.0);
    level.structures.push(Structure {
        name: "dam breach".into(),
        kind: StructureKind::Breach {
            from: [78.0, 60.0],
            to: [98.0, 60.0],
            bottom: floor_below,
            width: 16.0,
            side_slope: 1.0,
            start: BreachStart::Overtopping(0.05),
            growth: BreachGrowth::Steady(60.0),
            opened: None,
        },
    });
    level.gauges.push(Gauge {
        name: "below the dam".into(),
        kind: GaugeKind::Discharge {
            from: [130.0, 0.0],
            to: [130.0, 120.0],
        },
    });
    Ok(level)
}
