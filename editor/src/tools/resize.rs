//! A level given terrain of another size (a heightmap imported over it): what of it still
//! fits the new map is kept, and what no longer does is left out and named.

use spillway::level::GaugeKind;
use spillway::{Grid, Level};

/// A resized level and what was left out of it.
#[derive(Debug)]
pub struct Resized {
    /// The level on the new terrain.
    pub level: Level,
    /// The sources, sinks, gates, gauges, structures and bodies beyond the new map, by kind
    /// and name ("source spring").
    pub dropped: Vec<String>,
}

/// `level` with `terrain` of another size: dry, without saved flow, its roughness grid cut
/// or padded with the level-wide n, boundaries clipped to the new edges, and the objects
/// beyond the new map left out (a level keeps none: they fail validation; a body standing
/// off the map would fall off it).
pub fn resized_level(level: &Level, terrain: Grid) -> Resized {
    let (nx, ny) = (terrain.nx, terrain.ny);
    let extent = [nx as f32 * level.cell_size, ny as f32 * level.cell_size];
    let on = |p: [f32; 2]| (0.0..=extent[0]).contains(&p[0]) && (0.0..=extent[1]).contains(&p[1]);
    let mut out = level.clone();
    out.water = Grid::filled(nx, ny, 0.0);
    out.terrain = terrain;
    out.flow = None;
    // The painted roughness stays where it was painted; new ground has the level-wide n.
    out.roughness = level.roughness.as_ref().map(|r| {
        let n = match level.params.friction {
            spillway::level::Friction::Manning { n } => n,
            _ => spillway::level::DEFAULT_MANNING_N,
        };
        Grid::from_fn(
            nx,
            ny,
            |x, y| if x < r.nx && y < r.ny { r.get(x, y) } else { n },
        )
    });
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
    out.bodies.retain(|b| {
        let [x, y, _] = b.translation;
        keep("body", &b.name, on([x, y]))
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
        level.bodies = vec![
            spillway::level::Body {
                name: "crate".into(),
                gltf: "crate.glb".into(),
                translation: [30.0, 30.0, 1.0],
                rotation: [0.0, 0.0, 0.0, 1.0],
                scale: [1.0; 3],
                density: 500.0,
                dynamic: true,
                coupling: Default::default(),
                collider: Default::default(),
            };
            2
        ];
        level.bodies[1].translation = [5.0, 5.0, 1.0];
        level.roughness = Some(Grid::from_fn(40, 40, |x, _| 0.01 * x as f32));
        let resized = resized_level(&level, Grid::filled(20, 20, 0.0));
        // The painted roughness is cut to the new map, not dropped.
        let rough = resized.level.roughness.as_ref().expect("kept");
        assert_eq!((rough.nx, rough.ny), (20, 20));
        assert_eq!(
            rough.get(10, 3),
            level.roughness.as_ref().unwrap().get(10, 3)
        );
        assert_eq!(resized.level.bodies.len(), 1);
        let names: Vec<&str> = resized
            .level
            .sources
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        // "edge" reaches onto the 20 m map from outside: kept.
        assert_eq!(names, ["near", "edge"]);
        assert!(resized.level.sinks.is_empty());
        assert_eq!(resized.dropped, ["source far", "sink drain", "body crate"]);
        assert!(resized.level.validate(&Default::default()).is_ok());
    }
}
