//! Flow sizing: the depth and speed a discharge settles at in the channel through a point, by
//! the solver's own friction law for uniform flow, so a designer can size a river before
//! pressing Play.
//!
//! The channel's cross-section is read from the terrain along a line through the point: of
//! lines at every 15°, the one whose water stands narrowest (across the channel; along it, or
//! near a bank diagonally, a line's water runs far). Its lowest point near the point is the
//! channel bed, and the bed slope is the fall of the channel's lowest cells over a few cells
//! up and down it. The solver takes friction cell by cell at each cell's own depth, with no
//! friction from the banks, so for a water level `w` each wet cell of the section carries
//! `b·h^(5/3)·S^½ / n` (Manning; Chézy: `C·b·h^(3/2)·S^½`) for its depth `h = w − z` and the
//! cell width `b`; the normal level is where their sum equals the discharge, found by bisection.

use spillway::Level;
use spillway::level::{BoundaryKind, Friction, SourceKind};

/// Shallowest bed slope used, so flat ground gives a deep slow answer rather than none.
pub const MIN_SLOPE: f32 = 1e-4;
/// Cells sampled on each side of the point along the cross-section.
const HALF_SECTION: usize = 96;
/// Cells either side of the cursor searched for the channel bed.
const NEAR: usize = 16;
/// Lines tried through the point for the section across the channel (in half a turn).
const DIRECTIONS: usize = 12;
/// Cells followed up and down the channel's bed for its slope.
const REACH: usize = 8;

/// The uniform flow of a discharge in the channel through a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NormalFlow {
    /// The discharge, m³/s.
    pub discharge: f32,
    /// The bed slope along the flow (at least [`MIN_SLOPE`]).
    pub slope: f32,
    /// Manning's `n` over the wetted cells (0 for Chézy).
    pub n: f32,
    /// Deepest water in the section (surface minus the lowest bed), m.
    pub depth: f32,
    /// Mean speed `Q / A`, m/s.
    pub speed: f32,
    /// Width of the water surface, m.
    pub width: f32,
    /// Height of the water surface, m.
    pub surface: f32,
}

/// Where a discharge comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Discharge {
    /// What the designer sizes: "Spring", "inflow edge (east)", "all inflows".
    pub what: String,
    /// m³/s.
    pub m3_per_s: f32,
}

/// The discharge of source `index` (a fixed rate, the capacity of a level source, or the
/// peak of a hydrograph).
pub fn source_discharge(level: &Level, index: usize) -> Option<Discharge> {
    let s = level.sources.get(index)?;
    let q = match &s.kind {
        SourceKind::Rate { m3_per_s } => *m3_per_s,
        SourceKind::Level { max_m3_per_s, .. } => *max_m3_per_s,
        SourceKind::Hydrograph(h) => h.max(),
    };
    Some(Discharge {
        what: s.name.clone(),
        m3_per_s: q,
    })
}

/// Everything that flows in: enabled sources and inflow edges (painted segments, and the
/// default edge never is one).
pub fn total_inflow(level: &Level) -> Option<Discharge> {
    let sources: f32 = (0..level.sources.len())
        .filter(|&i| level.sources[i].enabled)
        .filter_map(|i| source_discharge(level, i))
        .map(|d| d.m3_per_s)
        .sum();
    let edges: f32 = level
        .boundaries
        .iter()
        .filter_map(|b| match b.kind {
            BoundaryKind::Inflow { m3_per_s } => Some(m3_per_s),
            BoundaryKind::Hydrograph(ref s) => Some(s.max()),
            _ => None,
        })
        .sum();
    let q = sources + edges;
    (q > 0.0).then(|| Discharge {
        what: "all inflows".into(),
        m3_per_s: q,
    })
}

/// The uniform flow of `discharge` (m³/s) in the channel through world point `(x, y)`;
/// `None` off the map, for a discharge ≤ 0, or under the linear friction law (which has no
/// uniform depth).
pub fn normal_flow(level: &Level, x: f32, y: f32, discharge: f32) -> Option<NormalFlow> {
    let cs = level.cell_size;
    let (nx, ny) = (level.nx(), level.ny());
    if !(discharge > 0.0 && discharge.is_finite() && x >= 0.0 && y >= 0.0) {
        return None;
    }
    if (x / cs) as usize >= nx
        || (y / cs) as usize >= ny
        || matches!(level.params.friction, Friction::Linear { .. })
    {
        return None;
    }
    // Across the channel, the water stands narrowest: along it, or diagonally near a bank, a
    // line's water runs far (a slope over ±2 cells near a bank took the bank for the valley's
    // fall, and sized a river from along its own bed).
    (0..DIRECTIONS)
        .filter_map(|k| {
            let turn = std::f32::consts::PI * k as f32 / DIRECTIONS as f32;
            flow_across(level, (x, y), (turn.cos(), turn.sin()), discharge)
        })
        // Of lines as narrow, the one with the highest bed (a line a little askew of the
        // channel reaches further down it), then the shallowest (askew the other way, it
        // climbs up it).
        .min_by(|a, b| {
            let bed = |f: &NormalFlow| f.surface - f.depth;
            (a.width.total_cmp(&b.width))
                .then(bed(b).total_cmp(&bed(a)))
                .then(a.depth.total_cmp(&b.depth))
        })
}

/// The uniform flow of `discharge` in the section through `(x, y)` along `dir`.
fn flow_across(
    level: &Level,
    (x, y): (f32, f32),
    dir: (f32, f32),
    discharge: f32,
) -> Option<NormalFlow> {
    let cs = level.cell_size;
    let (samples, centre) = line(level, x, y, dir);
    let bed_index = channel_bed(&samples, centre);
    let bed = samples[bed_index].0;
    let k = bed_index as f32 - centre as f32;
    let slope = bed_slope(level, (x + dir.0 * k * cs, y + dir.1 * k * cs), dir);
    let law = level.params.friction;
    let flow_of = |w: f32| wet_section(&samples, bed_index, w, cs, law).conveyance * slope.sqrt();
    let (mut lo, mut hi) = (bed, bed + 1.0);
    let mut doublings = 0;
    while flow_of(hi) < discharge {
        hi = bed + (hi - bed) * 2.0;
        doublings += 1;
        // 2¹⁴ m of water: no channel; and a bed so high that f32 cannot add a metre to it.
        if doublings > 14 || hi <= bed || hi.is_nan() {
            return None;
        }
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if flow_of(mid) < discharge {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let s = wet_section(&samples, bed_index, hi, cs, law);
    Some(NormalFlow {
        discharge,
        slope,
        n: if matches!(law, Friction::Manning { .. }) {
            s.n
        } else {
            0.0
        },
        depth: hi - bed,
        speed: discharge / s.area.max(1e-9),
        width: s.width,
        surface: hi,
    })
}

/// The bed slope of the channel whose bed is at `(x, y)` and whose section runs along
/// `across` (at least [`MIN_SLOPE`]): the fall of its lowest cells over [`REACH`] cells up and
/// down it, each step keeping to the lowest of the cells within two of its line.
fn bed_slope(level: &Level, (x, y): (f32, f32), across: (f32, f32)) -> f32 {
    let cs = level.cell_size;
    let (nx, ny) = (level.nx() as isize, level.ny() as isize);
    let cell = |(px, py): (f32, f32)| {
        let (i, j) = ((px / cs).floor() as isize, (py / cs).floor() as isize);
        (i >= 0 && j >= 0 && i < nx && j < ny).then(|| level.terrain.get(i as usize, j as usize))
    };
    let along = (-across.1, across.0);
    let end = |sign: f32| {
        let mut p = (x, y);
        let mut z = cell(p)?;
        for _ in 0..REACH {
            let ahead = (p.0 + sign * along.0 * cs, p.1 + sign * along.1 * cs);
            // The first of equals is kept: on a flat bed the path goes straight on.
            let lowest = [0, -1, 1, -2, 2]
                .into_iter()
                .map(|o| {
                    let o = o as f32 * cs;
                    (ahead.0 + across.0 * o, ahead.1 + across.1 * o)
                })
                .filter_map(|q| cell(q).map(|h| (q, h)))
                .min_by(|a, b| a.1.total_cmp(&b.1))?;
            (p, z) = lowest;
        }
        Some(z)
    };
    match (end(-1.0), end(1.0)) {
        (Some(up), Some(down)) => ((up - down).abs() / (2 * REACH) as f32 / cs).max(MIN_SLOPE),
        _ => MIN_SLOPE,
    }
}

/// The terrain and Manning's n along the line through `(x, y)` in direction `dir`, one sample
/// per cell for up to [`HALF_SECTION`] cells each side (inside the map), and the index of the
/// sample at `(x, y)`.
fn line(level: &Level, x: f32, y: f32, dir: (f32, f32)) -> (Vec<(f32, f32)>, usize) {
    let cs = level.cell_size;
    let (nx, ny) = (level.nx(), level.ny());
    let mut samples = Vec::with_capacity(2 * HALF_SECTION + 1);
    let mut centre = 0;
    for k in -(HALF_SECTION as isize)..=HALF_SECTION as isize {
        let (px, py) = (x + dir.0 * k as f32 * cs, y + dir.1 * k as f32 * cs);
        let (i, j) = ((px / cs).floor(), (py / cs).floor());
        if i >= 0.0 && j >= 0.0 && (i as usize) < nx && (j as usize) < ny {
            if k == 0 {
                centre = samples.len();
            }
            let (i, j) = (i as usize, j as usize);
            samples.push((level.terrain.get(i, j), level.manning_n(i, j)));
        }
    }
    if samples.is_empty() {
        samples.push((level.terrain.sample(x / cs, y / cs), level.manning_n(0, 0)));
    }
    let centre = centre.min(samples.len() - 1);
    (samples, centre)
}

/// The channel bed of a section: its lowest sample within [`NEAR`] of `centre`, then down to
/// the bottom of that valley (the lowest point of the whole section could be another valley),
/// then the middle of the bed if it is flat.
fn channel_bed(samples: &[(f32, f32)], centre: usize) -> usize {
    let window = centre.saturating_sub(NEAR)..(centre + NEAR + 1).min(samples.len());
    let near = window
        .min_by(|&a, &b| samples[a].0.total_cmp(&samples[b].0))
        .unwrap_or(centre);
    let low = descend(samples, near);
    // The middle of a flat bed, away from its banks.
    let level = samples[low].0;
    let flat = |k: usize| (samples[k].0 - level).abs() <= 1e-3;
    let (mut a, mut b) = (low, low);
    while a > 0 && flat(a - 1) {
        a -= 1;
    }
    while b + 1 < samples.len() && flat(b + 1) {
        b += 1;
    }
    (a + b) / 2
}

/// Walks downhill along the section from `start` to the bottom of its valley.
fn descend(samples: &[(f32, f32)], start: usize) -> usize {
    let mut i = start;
    loop {
        let left = (i > 0 && samples[i - 1].0 < samples[i].0).then(|| i - 1);
        let right = (i + 1 < samples.len() && samples[i + 1].0 < samples[i].0).then_some(i + 1);
        i = match (left, right) {
            (Some(l), Some(r)) => {
                if samples[l].0 <= samples[r].0 {
                    l
                } else {
                    r
                }
            }
            (Some(l), None) => l,
            (None, Some(r)) => r,
            (None, None) => return i,
        };
    }
}

struct Section {
    area: f32,
    width: f32,
    /// Mean Manning's n over the wet cells.
    n: f32,
    /// Discharge per `√S`, m³/s: the wet cells' strips summed by the friction law.
    conveyance: f32,
}

/// The wet part of the section connected to `bed` for a surface at `w`, under `law`.
fn wet_section(samples: &[(f32, f32)], bed: usize, w: f32, cs: f32, law: Friction) -> Section {
    let (mut a, mut b) = (bed, bed);
    while a > 0 && samples[a - 1].0 < w {
        a -= 1;
    }
    while b + 1 < samples.len() && samples[b + 1].0 < w {
        b += 1;
    }
    let wet = &samples[a..=b];
    let depths = wet.iter().map(|&(z, n)| ((w - z).max(0.0), n));
    // Each wet cell a strip of its own depth, as the solver's friction takes it.
    let conveyance = match law {
        Friction::Manning { .. } => depths
            .map(|(h, n)| cs * h.powf(5.0 / 3.0) / n.max(1e-4))
            .sum(),
        Friction::Chezy { c } => depths.map(|(h, _)| c * cs * h * h.sqrt()).sum(),
        Friction::Linear { .. } => 0.0,
    };
    Section {
        area: wet.iter().map(|(z, _)| (w - z).max(0.0) * cs).sum(),
        width: wet.len() as f32 * cs,
        n: wet.iter().map(|(_, n)| n).sum::<f32>() / wet.len() as f32,
        conveyance,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spillway::Grid;

    /// A straight 20 m wide rectangular channel with 5 m walls, sloping 1% down along +x.
    fn channel() -> Level {
        channel_in(40..60)
    }

    /// A straight rectangular channel over the rows `rows` of 1 m cells, with 5 m walls,
    /// sloping 1% down along +x.
    fn channel_in(rows: std::ops::Range<usize>) -> Level {
        let mut level = Level::flat(200, 100, 1.0, 0.0);
        level.terrain = Grid::from_fn(200, 100, |x, y| {
            let bed = 10.0 - 0.01 * x as f32;
            if rows.contains(&y) { bed } else { bed + 5.0 }
        });
        level
    }

    #[test]
    fn a_wide_channel_runs_at_the_depth_manning_gives() {
        let level = channel();
        let q = 20.0;
        let flow = normal_flow(&level, 100.5, 50.5, q).unwrap();
        assert!((flow.slope - 0.01).abs() < 1e-4, "{flow:?}");
        assert_eq!(flow.width, 20.0);
        // Rectangular 20 m channel, friction from the bed alone as the solver's:
        // Q = b·h^(5/3)·√S / n.
        let (b, h, n) = (20.0f32, flow.depth, 0.03f32);
        let back = b * h.powf(5.0 / 3.0) * 0.1 / n;
        assert!((back - q).abs() < 1e-3 * q, "{flow:?} gives {back}");
        assert!((flow.speed - q / (b * h)).abs() < 1e-3);
        // Rougher ground: deeper and slower.
        let mut rough = level.clone();
        rough.params.friction = Friction::Manning { n: 0.1 };
        let slow = normal_flow(&rough, 100.5, 50.5, q).unwrap();
        assert!(slow.depth > flow.depth && slow.speed < flow.speed);
    }

    #[test]
    fn from_the_bank_the_answer_is_the_channel_below() {
        // Within two cells of a bank the slope over ±2 cells took the bank's for the valley's
        // (125 %) and sized the river from along its bed: 0.21 m deep at 8.4 m/s, not 0.49 m.
        let level = channel();
        let in_channel = normal_flow(&level, 100.5, 50.5, 20.0).unwrap();
        for y in [37.5, 39.5, 40.5, 41.5, 58.5, 60.5] {
            let near_bank = normal_flow(&level, 100.5, y, 20.0).unwrap();
            assert!(
                (in_channel.depth - near_bank.depth).abs() < 1e-3
                    && (near_bank.slope - 0.01).abs() < 1e-4
                    && near_bank.width == 20.0,
                "{y}: {near_bank:?}"
            );
        }
    }

    #[test]
    fn a_narrow_channel_runs_as_the_solver_runs_it() {
        // 4 m wide: the hydraulic radius with the banks made it 17 % deeper than the solver,
        // whose friction is the bed's alone, lets it stand (and every cell read 13 m wide).
        let level = channel_in(40..44);
        let q = 5.0f32;
        let want = (q * 0.03 / (4.0 * 0.1)).powf(0.6);
        for y in [40.5, 41.5, 42.5, 43.5] {
            let flow = normal_flow(&level, 100.5, y, q).unwrap();
            assert_eq!(flow.width, 4.0, "{flow:?}");
            assert!(
                (flow.depth - want).abs() < 1e-3,
                "{y}: {flow:?}, want {want}"
            );
        }
    }

    #[test]
    fn near_the_map_edge_the_channel_under_the_cursor_is_found() {
        // The channel runs along the map's south edge (y 2..8); another, deeper one at y 60..80.
        let mut level = Level::flat(200, 100, 1.0, 0.0);
        level.terrain = Grid::from_fn(200, 100, |x, y| {
            let bed = 10.0 - 0.01 * x as f32;
            match y {
                2..8 => bed,
                60..80 => bed - 3.0,
                _ => bed + 5.0,
            }
        });
        let flow = normal_flow(&level, 100.5, 5.5, 5.0).unwrap();
        assert_eq!(flow.width, 6.0, "{flow:?}");
        assert!(
            (flow.surface - flow.depth - (10.0 - 0.01 * 100.0)).abs() < 1e-3,
            "{flow:?}"
        );
    }

    #[test]
    fn a_bed_too_high_for_f32_metres_gives_no_answer_rather_than_a_hang() {
        let mut level = channel();
        level.terrain.data.iter_mut().for_each(|h| *h += 3.0e7);
        assert!(normal_flow(&level, 100.5, 50.5, 20.0).is_none());
    }

    #[test]
    fn nothing_to_size_without_a_discharge_or_off_the_map() {
        let level = channel();
        assert!(normal_flow(&level, 100.0, 50.0, 0.0).is_none());
        assert!(normal_flow(&level, -1.0, 50.0, 10.0).is_none());
        assert!(normal_flow(&level, 100.0, 500.0, 10.0).is_none());
        assert!(normal_flow(&level, 100.0, 50.0, f32::NAN).is_none());
    }
}
