//! Flow sizing: the depth and speed a discharge settles at in the channel through a point, by
//! Manning's formula for uniform flow, so a designer can size a river before pressing Play.
//!
//! The channel's cross-section is read from the terrain along the line through the point
//! across the local down-slope direction; its lowest point is the channel bed. For a water
//! level `w` the wetted area `A`, wetted perimeter `P` and hydraulic radius `R = A/P` of the
//! connected wet part give the discharge `Q(w) = A·R^⅔·S^½ / n` (Manning; Chézy:
//! `C·A·(R·S)^½`), which grows with `w`; the normal level is where `Q(w)` equals the
//! discharge, found by bisection.

use spillway::Level;
use spillway::level::{BoundaryKind, Friction, SourceKind};

/// Shallowest bed slope used, so flat ground gives a deep slow answer rather than none.
pub const MIN_SLOPE: f32 = 1e-4;
/// Cells sampled on each side of the point along the cross-section.
const HALF_SECTION: usize = 96;
/// Cells either side of the cursor searched for the channel bed.
const NEAR: usize = 16;

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
    let (cx, cy) = ((x / cs) as usize, (y / cs) as usize);
    if cx >= nx || cy >= ny {
        return None;
    }
    // The channel bed near the cursor, on the line across the local down-slope; then the
    // section across the down-slope at the middle of that bed, where the down-slope runs along
    // the channel (at the cursor, near a bank, it may not).
    let dir = across(level, x, y).0;
    let (samples, centre) = line(level, x, y, dir);
    let k = channel_bed(&samples, centre) as f32 - centre as f32;
    let (bx, by) = (x + dir.0 * k * cs, y + dir.1 * k * cs);
    let ((ax, ay), slope) = across(level, bx, by);
    let (samples, centre) = line(level, bx, by, (ax, ay));
    let bed_index = channel_bed(&samples, centre);
    let bed = samples[bed_index].0;
    let law = level.params.friction;
    if matches!(law, Friction::Linear { .. }) {
        return None;
    }
    let wet = |w: f32| wet_section(&samples, bed_index, w, cs);
    let flow_of = |w: f32| {
        let s = wet(w);
        if s.area <= 0.0 {
            return 0.0;
        }
        let r = s.area / s.perimeter.max(1e-6);
        match law {
            Friction::Manning { .. } => s.area * r.powf(2.0 / 3.0) * slope.sqrt() / s.n.max(1e-4),
            Friction::Chezy { c } => c * s.area * (r * slope).sqrt(),
            Friction::Linear { .. } => 0.0,
        }
    };
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
    let s = wet(hi);
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

/// The unit vector across the local down-slope at `(x, y)` (any direction on flat ground),
/// and the bed slope there (at least [`MIN_SLOPE`]), from a gradient over ±2 cells.
fn across(level: &Level, x: f32, y: f32) -> ((f32, f32), f32) {
    let cs = level.cell_size;
    let (nx, ny) = (level.nx() as isize, level.ny() as isize);
    let (ci, cj) = ((x / cs).floor() as isize, (y / cs).floor() as isize);
    let h = |i: isize, j: isize| {
        level
            .terrain
            .get(i.clamp(0, nx - 1) as usize, j.clamp(0, ny - 1) as usize)
    };
    let gx = (h(ci + 2, cj) - h(ci - 2, cj)) / (4.0 * cs);
    let gy = (h(ci, cj + 2) - h(ci, cj - 2)) / (4.0 * cs);
    let g = gx.hypot(gy);
    let dir = if g > 0.0 {
        (-gy / g, gx / g)
    } else {
        (1.0, 0.0)
    };
    (dir, g.max(MIN_SLOPE))
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
    perimeter: f32,
    width: f32,
    /// Mean Manning's n over the wet cells.
    n: f32,
}

/// The wet part of the section connected to `bed` for a surface at `w`.
fn wet_section(samples: &[(f32, f32)], bed: usize, w: f32, cs: f32) -> Section {
    let (mut a, mut b) = (bed, bed);
    while a > 0 && samples[a - 1].0 < w {
        a -= 1;
    }
    while b + 1 < samples.len() && samples[b + 1].0 < w {
        b += 1;
    }
    let wet = &samples[a..=b];
    let area: f32 = wet.iter().map(|(z, _)| (w - z).max(0.0) * cs).sum();
    // The bed (one cell wide per sample), the steps between wet cells, and the banks from the
    // outermost wet cells up to the surface.
    let steps: f32 = wet.windows(2).map(|p| (p[1].0 - p[0].0).abs()).sum();
    let banks = (w - wet[0].0).max(0.0) + (w - wet[wet.len() - 1].0).max(0.0);
    let perimeter = wet.len() as f32 * cs + steps + banks;
    Section {
        area,
        perimeter,
        width: wet.len() as f32 * cs,
        n: wet.iter().map(|(_, n)| n).sum::<f32>() / wet.len() as f32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spillway::Grid;

    /// A straight 20 m wide rectangular channel with 5 m walls, sloping 1% down along +x.
    fn channel() -> Level {
        let mut level = Level::flat(200, 100, 1.0, 0.0);
        level.terrain = Grid::from_fn(200, 100, |x, y| {
            let bed = 10.0 - 0.01 * x as f32;
            if (40..60).contains(&y) {
                bed
            } else {
                bed + 5.0
            }
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
        // Rectangular 20 m channel: Q = (1/n)·b·h·(b·h/(b+2h))^⅔·√S; check the answer fits.
        let (b, h, n) = (20.0f32, flow.depth, 0.03f32);
        let back = b * h * (b * h / (b + 2.0 * h)).powf(2.0 / 3.0) * 0.1 / n;
        assert!((back - q).abs() < 0.05 * q, "{flow:?} gives {back}");
        assert!((flow.speed - q / (b * h)).abs() < 1e-3);
        // Rougher ground: deeper and slower.
        let mut rough = level.clone();
        rough.params.friction = Friction::Manning { n: 0.1 };
        let slow = normal_flow(&rough, 100.5, 50.5, q).unwrap();
        assert!(slow.depth > flow.depth && slow.speed < flow.speed);
    }

    #[test]
    fn from_the_bank_the_answer_is_the_channel_below() {
        let level = channel();
        let in_channel = normal_flow(&level, 100.5, 50.5, 20.0).unwrap();
        let near_bank = normal_flow(&level, 100.5, 37.5, 20.0).unwrap();
        assert!((in_channel.depth - near_bank.depth).abs() < 1e-3);
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
