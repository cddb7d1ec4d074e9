//! River valley: a 2 km valley on 1024 × 1024 cells of 2 m falling 0.3 % to the east. A river
//! fed with 40 m³/s through an inflow segment of the west edge meanders down a 30 m wide,
//! 3 m deep gravel channel, runs into a lake held behind a ridge that crosses the valley,
//! leaves the lake through a 12 m wide gorge cut into the ridge (dropping 3 m in rapids),
//! meanders on and leaves through an open segment of the east edge. Manning's `n` per cell:
//! gravel channel and lake bed 0.03, floodplain grass 0.035 to brush 0.07 (brush along the
//! banks), forest 0.1 on the valley sides and the ridge.
//!
//! The lake starts filled to just below its spill level (the channel's bed where it leaves the
//! lake for the gorge) and the channel at the normal depth of its local slope, so a bake need
//! not fill them. To pass the whole river the lake must still rise about 1.2 m over its spill
//! level (critical flow in the gorge), which takes it an hour or more of simulated time.
//!
//! All lengths are world metres: x east (columns), y south (rows).

use std::f32::consts::{PI, TAU};
use std::path::Path;

use spillway::level::{Boundary, BoundaryKind, Edge, Friction};
use spillway::{Grid, Level};
use spillway_editor::cli::BoundaryArg;

use super::{Result, import, smoothstep};

/// Cells a side.
const N: usize = 1024;
/// Cell size, metres (the map is 2048 m a side).
const DX: f32 = 2.0;
/// The map's side, metres.
const SIDE: f32 = N as f32 * DX;

/// Inflow through the west edge, m³/s.
const INFLOW: f32 = 40.0;
/// Down-valley slope of the valley floor.
const SLOPE: f32 = 0.003;
/// Height of the valley floor at the west edge, metres.
const FLOOR_WEST: f32 = 40.0;
/// How far the valley floor drops through the gorge, metres.
const GORGE_DROP: f32 = 3.0;

/// Depth of the channel below the floodplain, metres.
const CHANNEL_DEPTH: f32 = 3.0;
/// Half-width of the channel bed, metres (30 m wide).
const HALF_WIDTH: f32 = 15.0;
/// Half-width of the gorge's bed, metres (12 m wide).
const GORGE_HALF_WIDTH: f32 = 6.0;
/// Rise of the channel banks per metre across.
const BANK_SLOPE: f32 = 1.2;
/// Rise of the gorge walls per metre across.
const GORGE_WALL_SLOPE: f32 = 5.0;
/// Mean lateral swing of the meanders about the valley axis, metres.
const MEANDER_AMPLITUDE: f32 = 80.0;
/// Mean meander wavelength: 4.5 waves across the map, so the channel meets both edges at
/// right angles.
const MEANDER_WAVELENGTH: f32 = SIDE / 4.5;

/// Where the channel leaves the lake for the gorge (its bed there is the lake's spill level),
/// metres east.
const GORGE_ENTRANCE: f32 = 1290.0;
/// The ridge's crest on the river's line, metres east.
const RIDGE_X: f32 = 1400.0;
/// Height of the ridge above the floodplain, metres.
const RIDGE_HEIGHT: f32 = 20.0;
/// Gaussian half-thickness of the ridge, metres.
const RIDGE_THICKNESS: f32 = 55.0;

/// Semi-axes of the lake's ellipse (at its spill level), metres along x and y.
const LAKE_A: f32 = 180.0;
const LAKE_B: f32 = 130.0;
/// Depth of the lake at its centre below the spill level, metres.
const LAKE_DEPTH: f32 = 6.0;
/// How far below its spill level the lake starts, metres (about -1.2 would start it at the
/// level where the gorge passes the whole river).
const LAKE_BELOW_SPILL: f32 = 0.1;

/// Floodplain half-width about the valley axis, metres; the valley sides rise beyond it.
const FLOODPLAIN_HALF_WIDTH: f32 = 430.0;
/// Height of the valley sides above the floor, metres.
const SIDE_HEIGHT: f32 = 45.0;

/// Manning's n: gravel bed, grass, brush, forest.
const N_CHANNEL: f32 = 0.03;
const N_GRASS: f32 = 0.035;
const N_BRUSH: f32 = 0.07;
const N_FOREST: f32 = 0.1;

/// The valley's axis: a gentle bend, square to the west and east edges.
fn valley_axis(x: f32) -> f32 {
    0.5 * SIDE - 90.0 * (PI * x / SIDE).cos()
}

/// Meander amplitude factor: 1 on the meandering reaches, 0 (a straight channel) through the
/// lake and the gorge.
fn meandering(x: f32) -> f32 {
    1.0 - smoothstep(760.0, 900.0, x) * (1.0 - smoothstep(1560.0, 1700.0, x))
}

/// The channel's centre line: y at x. The meanders' wavelength and amplitude vary along the
/// valley (longer waves swing wider), and the line meets both edges at right angles.
fn centre(x: f32) -> f32 {
    let c = (3.0 * PI * x / SIDE).cos();
    let phase = TAU * x / MEANDER_WAVELENGTH + 0.75 * (3.0 * PI * x / SIDE).sin();
    let amplitude = MEANDER_AMPLITUDE * (1.0 - 0.2 * c) * meandering(x);
    valley_axis(x) + amplitude * phase.cos()
}

/// dy/dx of the centre line.
fn centre_slope(x: f32) -> f32 {
    centre(x + 0.5) - centre(x - 0.5)
}

/// Height of the valley floor on the river's line at x: the slope and the drop through the
/// gorge.
fn floor(x: f32) -> f32 {
    FLOOR_WEST - SLOPE * x - GORGE_DROP * smoothstep(GORGE_ENTRANCE, RIDGE_X + 120.0, x)
}

/// How far east of `RIDGE_X` the ridge's crest is at y (the ridge crosses the valley
/// obliquely).
fn ridge_offset(y: f32) -> f32 {
    0.15 * (y - centre(RIDGE_X))
}

/// Height of the channel bed where the centre line is at x.
fn bed(x: f32) -> f32 {
    floor(x) - CHANNEL_DEPTH
}

/// 1 in the gorge, 0 on the open reaches.
fn gorge(x: f32) -> f32 {
    smoothstep(GORGE_ENTRANCE, GORGE_ENTRANCE + 40.0, x)
        * (1.0 - smoothstep(RIDGE_X + 60.0, RIDGE_X + 100.0, x))
}

/// The lake's spill level: the gorge's bed where it leaves the lake.
fn spill_level() -> f32 {
    bed(GORGE_ENTRANCE)
}

/// Centre of the lake's oval, whose east tip is the gorge entrance on the river's line.
fn lake_centre() -> (f32, f32) {
    (GORGE_ENTRANCE - LAKE_A, centre(GORGE_ENTRANCE))
}

/// The point of the centre line nearest to `(x, y)`: its x and the distance to it. Gauss–Newton
/// from the point straight across; cells far from the channel get a rough (too large) distance.
fn nearest(x: f32, y: f32) -> (f32, f32) {
    if (y - centre(x)).abs() > 200.0 {
        return (x, f32::INFINITY);
    }
    let mut t = x;
    for _ in 0..3 {
        let (f, s) = (centre(t), centre_slope(t));
        let step = ((x - t) + (y - f) * s) / (1.0 + s * s);
        t += step.clamp(-40.0, 40.0);
    }
    (t, (x - t).hypot(y - centre(t)))
}

/// Terrain height, initial water depth and Manning's n of the cell centred at `(x, y)`.
fn cell(x: f32, y: f32) -> (f32, f32, f32) {
    // The land. The floodplain falls gently (0.2 %) toward the valley's axis; beyond it the
    // sides rise, hilly, and keep rising to the map's edges.
    let dv = (y - valley_axis(x)).abs();
    let beyond = (dv - FLOODPLAIN_HALF_WIDTH).max(0.0);
    let side = SIDE_HEIGHT * smoothstep(0.0, 470.0, beyond) + 0.03 * beyond;
    let hills = 3.0 * smoothstep(0.0, 270.0, beyond) * (x / 83.0).sin() * (y / 61.0).cos();
    // The ridge and the drop below it follow the ridge's oblique line.
    let along = x - ridge_offset(y);
    let ridge = RIDGE_HEIGHT
        * (-((along - RIDGE_X) / RIDGE_THICKNESS).powi(2)).exp()
        * (1.0 + 0.1 * (y / 37.0).sin());
    let bumps =
        0.35 * (x / 41.0 + (y / 67.0).sin()).sin() * (y / 53.0 - 0.5 * (x / 90.0).sin()).cos();
    let surface = floor(along) - SLOPE * (x - along)
        + 0.002 * dv.min(FLOODPLAIN_HALF_WIDTH)
        + side
        + hills
        + ridge
        + bumps;

    // The channel: a flat bed with banks (gorge walls in the ridge), following the centre line.
    let (t, d) = nearest(x, y);
    let g = gorge(t);
    let half_width = HALF_WIDTH + (GORGE_HALF_WIDTH - HALF_WIDTH) * g;
    let wall_slope = BANK_SLOPE + (GORGE_WALL_SLOPE - BANK_SLOPE) * g;
    let e = d - half_width;
    // max(e, 0), rounded over a metre.
    let out = 0.5 * (e + (e * e + 1.0).sqrt());
    let channel = if d.is_finite() {
        bed(t) + wall_slope * out
    } else {
        f32::INFINITY
    };

    // The lake: a bowl whose rim at the spill level is an oval (an ellipse, dented on its flanks)
    // with its east tip at the gorge entrance; the ridge stands on it, so the lake's east shore
    // is the ridge's slope.
    let (lx, ly) = lake_centre();
    let (u, v) = ((x - lx) / LAKE_A, (y - ly) / LAKE_B);
    let rho2 = u * u + v * v;
    let (cos, sin) = if rho2 > 0.0 {
        (u / rho2.sqrt(), v / rho2.sqrt())
    } else {
        (1.0, 0.0)
    };
    // 1 + 0.12·sin 2θ + 0.08·sin 3θ: 1 at both tips (θ = 0, π).
    let r2 = rho2 * (1.0 + 0.24 * sin * cos + 0.08 * sin * (3.0 - 4.0 * sin * sin));
    let spill = spill_level();
    let bowl = spill - LAKE_DEPTH + LAKE_DEPTH * r2 + ridge;

    let terrain = surface.min(channel).min(bowl);

    // Initial water: the lake just below its spill level; the channel, except in the gorge
    // (which runs dry until the lake spills), at the normal depth of its slope.
    let water = if r2 < 1.0 && x < GORGE_ENTRANCE {
        (spill - LAKE_BELOW_SPILL - terrain).max(0.0)
    } else if channel <= terrain + 1e-3
        && e < 4.0
        && !(GORGE_ENTRANCE..RIDGE_X + 120.0).contains(&t)
    {
        let q = INFLOW / (2.0 * half_width);
        let s = centre_slope(t);
        let slope = (floor(t - 1.0) - floor(t + 1.0)) / 2.0 / (1.0 + s * s).sqrt();
        let normal = (q * N_CHANNEL / slope.sqrt()).powf(0.6);
        (bed(t) + normal - terrain).max(0.0)
    } else {
        0.0
    };

    // Roughness: patches of grass and brush on the floodplain, brush along the banks, forest
    // where the land rises (valley sides, ridge); gravel in the channel and the lake.
    let patches = 0.5
        + 0.3 * (x / 97.0 + 1.3 * (y / 143.0).sin()).sin()
        + 0.2 * (y / 71.0 - 0.8 * (x / 113.0).cos()).sin();
    let mut n = N_GRASS + (N_BRUSH - N_GRASS) * smoothstep(0.6, 0.8, patches);
    let riparian = 1.0 - smoothstep(10.0, 30.0, e);
    n += (N_BRUSH - n) * riparian;
    let rise = side + ridge;
    n += (N_FOREST - n) * smoothstep(1.5, 5.0, rise);
    let bank_top = CHANNEL_DEPTH / wall_slope;
    let wet =
        (1.0 - smoothstep(bank_top - 1.0, bank_top + 1.0, e)).max(1.0 - smoothstep(1.0, 1.15, r2));
    n += (N_CHANNEL - n) * wet;

    (terrain, water, n)
}

/// The cells `start..end` along an edge whose centres lie within `half` of `at`.
fn segment(at: f32, half: f32) -> (u32, u32) {
    let start = ((at - half) / DX - 0.5).ceil().max(0.0) as u32;
    let end = (((at + half) / DX - 0.5).floor() as u32 + 1).min(N as u32);
    (start, end)
}

/// The level: the grids cell by cell, imported like the other samples, with Manning friction,
/// the roughness grid, the inflow over the channel's bed at the west edge and the outfall
/// across the channel at the east edge (every other edge cell a wall).
pub fn river_valley(scratch: &Path) -> Result<Level> {
    let mut terrain = Grid::filled(N, N, 0.0);
    let mut water = Grid::filled(N, N, 0.0);
    let mut roughness = Grid::filled(N, N, 0.0);
    for j in 0..N {
        for i in 0..N {
            let (x, y) = ((i as f32 + 0.5) * DX, (j as f32 + 0.5) * DX);
            let (z, h, n) = cell(x, y);
            terrain.set(i, j, z);
            water.set(i, j, h);
            roughness.set(i, j, n);
        }
    }
    let mut level = import(
        scratch,
        "river_valley",
        &terrain,
        &water,
        DX,
        BoundaryArg::Wall,
    )?;
    level.params.dt = 0.1;
    level.params.friction = Friction::Manning { n: N_CHANNEL };
    level.roughness = Some(roughness);
    // The inflow over the channel's flat bed at the west edge.
    let (start, end) = segment(centre(0.0), HALF_WIDTH - 1.0);
    level.boundaries.push(Boundary {
        edge: Edge::West,
        start,
        end,
        kind: BoundaryKind::Inflow { m3_per_s: INFLOW },
    });
    // The outfall across the channel and its banks at the east edge.
    let (start, end) = segment(centre(SIDE), HALF_WIDTH + CHANNEL_DEPTH / BANK_SLOPE + 2.0);
    level.boundaries.push(Boundary {
        edge: Edge::East,
        start,
        end,
        kind: BoundaryKind::Open,
    });
    Ok(level)
}
