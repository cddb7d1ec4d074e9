//! Leaks: where the standing water a designer authored would escape, and from which level,
//! found before the water runs. Each lake (a connected body of authored water with a flat
//! surface) is flooded outward over the ground the water meets (`spill::walls`: terrain,
//! closed gates and blocking bodies on the ground as walls);
//! if the basin holding it spills below the lake's surface, the lake leaks there: through a gap
//! in a wall, over a saddle too low, or off an open edge of the map. Sloping water (a river) is
//! meant to flow and is not checked.

use spillway::Level;

use super::spill::{Seen, Spill, spill_from};

/// Depth above which a cell holds authored water, metres.
const WET: f32 = 1e-3;
/// Largest spread of a lake's surface for it to count as standing water, metres.
const FLAT: f32 = 0.01;
/// How far below a lake's surface its basin must spill to count as a leak, metres.
const TOLERANCE: f32 = 1e-3;

/// A lake that would not hold its water.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leak {
    /// The lake's surface, metres.
    pub surface: f32,
    /// Its cells.
    pub cells: usize,
    /// Its volume, m³.
    pub volume: f32,
    /// Where the water escapes and the level the lake falls to there.
    pub escape: Spill,
}

/// Every lake of `level` that leaks over `ground` (`spill::walls`), largest first.
pub fn leaks(level: &Level, ground: &[f32]) -> Vec<Leak> {
    let (nx, ny) = (level.nx(), level.ny());
    let water = &level.water.data;
    let area = level.cell_size * level.cell_size;
    let mut label = vec![false; nx * ny];
    let mut out = Vec::new();
    let mut seen = Seen::new(nx * ny);
    for first in 0..nx * ny {
        if label[first] || water[first] <= WET {
            continue;
        }
        // The lake around `first`: wet cells connected through faces.
        let mut lake = vec![first];
        label[first] = true;
        let mut next = 0;
        while next < lake.len() {
            let k = lake[next];
            next += 1;
            let (i, j) = (k % nx, k / nx);
            let around = [
                (i > 0).then(|| k - 1),
                (i + 1 < nx).then(|| k + 1),
                (j > 0).then(|| k - nx),
                (j + 1 < ny).then(|| k + nx),
            ];
            for n in around.into_iter().flatten() {
                if !label[n] && water[n] > WET {
                    label[n] = true;
                    lake.push(n);
                }
            }
        }
        let (lo, hi) = lake.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &k| {
            let s = ground[k] + water[k];
            (lo.min(s), hi.max(s))
        });
        if hi - lo > FLAT {
            continue;
        }
        if let Some(escape) = spill_from(level, ground, &lake, hi - TOLERANCE, &mut seen)
            && escape.surface < hi - TOLERANCE
        {
            out.push(Leak {
                surface: hi,
                cells: lake.len(),
                volume: lake.iter().map(|&k| water[k]).sum::<f32>() * area,
                escape,
            });
        }
    }
    out.sort_by(|a, b| b.volume.total_cmp(&a.volume));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::spill::walls;
    use spillway::Grid;
    use spillway::level::{Boundary, BoundaryKind, Edge};

    /// A 30 × 30 map of flat ground at 0 m cut by a one-cell wall 5 m high along the diagonal
    /// x + y = 29, with a reservoir filled to 3 m on its north-west side (x + y < 29).
    fn reservoir() -> Level {
        let n = 30;
        let mut level = Level::flat(n, n, 1.0, 0.0);
        level.terrain = Grid::from_fn(n, n, |x, y| if x + y == 29 { 5.0 } else { 0.0 });
        level.water = Grid::from_fn(n, n, |x, y| if x + y < 29 { 3.0 } else { 0.0 });
        level
    }

    #[test]
    fn a_diagonal_one_cell_wall_holds_its_reservoir() {
        // Its cells touch only at corners, and water crosses faces only: no leak.
        assert_eq!(leaks(&reservoir(), &walls(&reservoir(), &[])), vec![]);
    }

    #[test]
    fn a_one_cell_gap_in_the_diagonal_wall_is_where_the_reservoir_leaks() {
        let mut level = reservoir();
        level.terrain.data[20 * 30 + 9] = 1.0; // (9, 20): x + y = 29
        let found = leaks(&level, &walls(&level, &[]));
        assert_eq!(found.len(), 1, "{found:?}");
        let leak = found[0];
        assert_eq!(leak.surface, 3.0);
        assert_eq!(leak.escape.surface, 1.0);
        // The escape is the gap or a lake cell beside it.
        let (x, y) = leak.escape.cell;
        assert!(
            (x as i32 - 9).abs() + (y as i32 - 20).abs() <= 1,
            "{leak:?}"
        );
        assert!(!leak.escape.off_map);
    }

    #[test]
    fn a_reservoir_against_an_open_edge_leaks_off_the_map() {
        let mut level = reservoir();
        level.boundaries.push(Boundary {
            edge: Edge::North,
            start: 0,
            end: 30,
            kind: BoundaryKind::Open,
        });
        let found = leaks(&level, &walls(&level, &[]));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].escape.off_map);
        assert_eq!(found[0].escape.cell.1, 0);
    }

    #[test]
    fn sloping_water_is_a_river_and_is_not_checked() {
        let mut level = Level::flat(20, 5, 1.0, 0.0);
        level.terrain = Grid::from_fn(20, 5, |x, _| -0.1 * x as f32);
        level.water = Grid::filled(20, 5, 0.5);
        assert_eq!(leaks(&level, &walls(&level, &[])), vec![]);
    }
}
