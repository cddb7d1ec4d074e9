//! A level given terrain of another size (a heightmap imported over it): what of it still
//! fits the new map is kept, and what no longer does is left out and named.

use spillway::level::GaugeKind;
use spillway::{Grid, Level};

/// A resized level and what was left out of it.
#[derive(Debug)]
pub struct Resized {
    /// The level on the new terrain.
    pub level: Level,
    /// The sources, sinks, gates, gauges and structures wholly beyond the new map, by kind and
    /// name ("source spring").
    pub dropped: Vec<String>,
}

/// `level` with `terrain` of another size: dry, without saved flow or roughness grid,
/// boundaries clipped to the new edges, and the objects beyond the new map left out (a
/// level keeps none: they fail validation).
pub fn resized_level(level: &Level, terrain: Grid) -> Resized {
    let (nx, ny) = (terrain.nx, terrain.ny);
    let extent = [nx as f32 * level.cell_size, ny as f32 * level.cell_size];
    let on = |p: [f32; 2]| (0.0..=extent[0]).contains(&p[0]) && (0.0..=extent[1]).contains(&p[1]);
    let mut out = level.clone();
    out.water = Grid::filled(nx, ny, 0.0);
    out.terrain = terrain;
    out.flow = None;
    // A roughness grid of the old size would no longer fit: the level-wide n applies again.
    out.roughness = None;
    out.boundaries.retain_mut(|b| {
        let len = match b.edge {
            spillway::level::Edge::West | spillway::level::Edge::East => ny,
            _ => nx,
        } as u32;
        b.end = b.end.min(len);
        b.start < b.end
    });
    let mut dropped = Vec::new();
    let mut keep = |kind: &str, name: &str, fits: bool| {
        if !fits {
            dropped.push(format!("{kind} {name}"));
        }
        fits
    };
    out.sources
        .retain(|s| keep("source", &s.name, s.shape.reaches(extent)));
    out.sinks
        .retain(|s| keep("sink", &s.name, s.shape.reaches(extent)));
    out.gates
        .retain(|g| keep("gate", &g.name, g.shape.reaches(extent)));
    out.gauges.retain(|g| {
        let fits = match g.kind {
            GaugeKind::Stage { x, y } => on([x, y]),
            GaugeKind::Discharge { from, to } => on(from) && on(to),
        };
        keep("gauge", &g.name, fits)
    });
    out.structures.retain(|s| {
        let (from, to) = s.kind.ends();
        keep("structure", &s.name, on(from) && on(to))
    });
    Resized {
        level: out,
        dropped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spillway::level::{Shape, Sink, SinkKind, Source, SourceKind};

    #[test]
    fn objects_beyond_a_smaller_map_are_left_out_by_name_and_the_rest_kept() {
        let mut level = Level::flat(40, 40, 1.0, 0.0);
        let source = |name: &str, x: f32| Source {
            name: name.into(),
            shape: Shape::Circle {
                x,
                y: 5.0,
                radius: 2.0,
            },
            kind: SourceKind::Rate { m3_per_s: 1.0 },
            enabled: true,
        };
        level.sources = vec![
            source("near", 5.0),
            source("far", 30.0),
            source("edge", 21.0),
        ];
        level.sinks.push(Sink {
            name: "drain".into(),
            shape: Shape::Point { x: 35.0, y: 35.0 },
            kind: SinkKind::Rate { m3_per_s: 1.0 },
            enabled: true,
        });
        let resized = resized_level(&level, Grid::filled(20, 20, 0.0));
        let names: Vec<&str> = resized
            .level
            .sources
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        // "edge" reaches onto the 20 m map from outside: kept.
        assert_eq!(names, ["near", "edge"]);
        assert!(resized.level.sinks.is_empty());
        assert_eq!(resized.dropped, ["source far", "sink drain"]);
        assert!(resized.level.validate(&Default::default()).is_ok());
    }
}
