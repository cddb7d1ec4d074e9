//! The `eroded_valley` sample: a river run over a sand valley by `spillway_editor::erode` (the
//! editor's Water ▸ Erode terrain), so its channel and delta are the water's own work.

use std::path::Path;

use spillway::level::{Boundary, BoundaryKind, Edge};
use spillway::{Grid, Level};
use spillway_editor::cli::BoundaryArg;
use spillway_editor::erode::{Erosion, Material};

use super::{Result, import};

/// Simulated seconds of river the valley is eroded by.
pub const SECONDS: f64 = 900.0;
/// The bed ages this much faster than the water runs (the Erode menu's default ×100).
pub const SPEEDUP: f32 = 100.0;

/// The valley before the water shaped it: 240 m × 96 m of 2 m cells falling 1 % east into a
/// lake basin (x > 170 m, 3 m deep), a shallow groove where a river of 20 m³/s enters at the
/// west edge, an open outlet at the lake's east edge.
pub fn valley(scratch: &Path) -> Result<Level> {
    let (nx, ny, dx) = (120, 48, 2.0f32);
    let ground = |x: f32, y: f32| {
        let slope = 0.01 * (170.0 - x).max(0.0);
        let lake = if x > 170.0 {
            -3.0 * ((x - 170.0) / 10.0).min(1.0)
        } else {
            0.0
        };
        let sides = 6.0 * ((y - 48.0) / 48.0).powi(2);
        let groove = -0.3 * (-((y - 48.0) / 6.0).powi(2)).exp();
        slope + lake + sides + groove + 0.05 * (x / 7.0).sin() * (y / 5.0).cos()
    };
    let terrain = Grid::from_fn(nx, ny, |i, j| {
        ground((i as f32 + 0.5) * dx, (j as f32 + 0.5) * dx)
    });
    let water = Grid::from_fn(nx, ny, |i, j| (0.0 - terrain.get(i, j)).max(0.0));
    let mut level = import(
        scratch,
        "eroded_valley",
        &terrain,
        &water,
        dx,
        BoundaryArg::Wall,
    )?;
    level.params.dt = 0.05;
    for (edge, start, end, kind) in [
        (Edge::West, 20, 28, BoundaryKind::Inflow { m3_per_s: 20.0 }),
        (Edge::East, 16, 32, BoundaryKind::Open),
    ] {
        level.boundaries.push(Boundary {
            edge,
            start,
            end,
            kind,
        });
    }
    Ok(level)
}

/// The valley after [`SECONDS`] of its river over sand, the bed aged [`SPEEDUP`] times.
pub fn eroded_valley(scratch: &Path) -> Result<Level> {
    let mut level = valley(scratch)?;
    let sand = spillway::level::Sediment {
        speedup: SPEEDUP,
        suspension: None,
        region: None,
        ..Material::Sand.sediment()
    };
    let after = Erosion::new(&level, sand, None).run(SECONDS, &mut |_, _| true)?;
    let change: Vec<f32> = (after.data.iter().zip(&level.terrain.data))
        .map(|(a, b)| a - b)
        .collect();
    let scour = change.iter().fold(0.0f32, |m, &c| m.min(c));
    let deposit = change.iter().fold(0.0f32, |m, &c| m.max(c));
    let moved: f64 = change.iter().map(|&c| c.max(0.0) as f64).sum::<f64>() * 4.0;
    println!(
        "eroded_valley: deepest scour {:.2} m, highest deposit {deposit:.2} m, {moved:.0} m³ of \
         bed laid down",
        -scour
    );
    level.terrain = after;
    Ok(level)
}
