//! Fill to spill: the surface at which a basin overflows and the cell it overflows at, found by
//! a priority flood over the ground the water meets ([`walls`]: terrain with closed gates and
//! the blocking bodies that stand on the ground as walls). The Fill tool fills a clicked basin
//! to exactly that level and marks the spill point.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use spillway::Level;
use spillway::body::raster::{CellGrid, Coverage};
use spillway::body::{Pose, TriMesh};
use spillway::level::{BoundaryKind, Edge};

/// Share of a cell a body must cover to wall it.
const WALL_COVER: f32 = 0.5;
/// The most gap under a body, metres, for it to still stand on the ground as a wall (a larger
/// gap lets the water pass under it).
const WALL_GAP: f32 = 0.05;

/// The ground the water meets in `level`: the terrain with every closed gate at its crest and
/// every body of `bodies` (those that block water, each with its pose and mesh) standing on the
/// ground raised to its top over the cells it mostly covers. Row-major `nx·ny`.
pub fn walls(level: &Level, bodies: &[(Pose, &TriMesh)]) -> Vec<f32> {
    let mut ground = spillway::sim::closed_ground(level);
    let grid = CellGrid {
        nx: level.nx(),
        ny: level.ny(),
        cell_size: level.cell_size,
    };
    for (pose, mesh) in bodies {
        let c = Coverage::rasterise(mesh, pose, grid, 4);
        for (i, j, bottom, top, cover) in c.cells() {
            let k = j * grid.nx + i;
            if cover >= WALL_COVER && bottom <= ground[k] + WALL_GAP {
                ground[k] = ground[k].max(top);
            }
        }
    }
    ground
}

/// Where and at which surface a basin overflows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spill {
    /// The surface the basin holds before it overflows, metres.
    pub surface: f32,
    /// The cell the water leaves over: the saddle, or the edge cell it leaves the map by.
    pub cell: (usize, usize),
    /// Whether it leaves over an open edge of the map (else into a lower basin).
    pub off_map: bool,
}

/// A rim cell of the growing region, lowest first: its ground, the cell and the region cell it
/// was reached from.
#[derive(Clone, Copy, PartialEq)]
struct Rim(f32, u32, u32);

impl Eq for Rim {}

impl PartialOrd for Rim {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rim {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0
            .total_cmp(&other.0)
            .then(self.1.cmp(&other.1))
            .then(self.2.cmp(&other.2))
    }
}

/// The level the water in edge cell `(x, y)` must stand at to leave the map there, as the
/// solver's edges have it: any (an open edge: `-∞`), the outside water's (a fixed level, or a
/// tide's lowest); `None` where no water leaves (a wall, or an inflow, which only adds water).
fn outlet(level: &Level, x: usize, y: usize) -> Option<f32> {
    let (nx, ny) = (level.nx(), level.ny());
    let leaves_at = |edge: Edge, k: usize| {
        let kind = level
            .boundaries
            .iter()
            .rev()
            .find(|b| b.edge == edge && (b.start as usize) <= k && k < b.end as usize)
            .map_or(&level.params.default_boundary, |b| &b.kind);
        match kind {
            BoundaryKind::Open => Some(f32::NEG_INFINITY),
            BoundaryKind::FixedLevel { surface } => Some(*surface),
            BoundaryKind::Tide(s) => s.points.iter().map(|p| p[1]).reduce(f32::min),
            BoundaryKind::Wall | BoundaryKind::Inflow { .. } | BoundaryKind::Hydrograph(_) => None,
        }
    };
    [
        (x == 0).then(|| leaves_at(Edge::West, y)),
        (x + 1 == nx).then(|| leaves_at(Edge::East, y)),
        (y == 0).then(|| leaves_at(Edge::North, x)),
        (y + 1 == ny).then(|| leaves_at(Edge::South, x)),
    ]
    .into_iter()
    .flatten()
    .flatten()
    .reduce(f32::min)
}

/// Marks a rim entry that is an outlet reached at the outside water's level, not a cell.
const OUTLET: u32 = u32::MAX;

/// The bottom of the basin cell `(x, y)` drains to over `ground`: from the cell, always on to
/// its lowest 4-neighbour while that is lower, until no neighbour is (a pit, or a flat). Every
/// cell on the way lies at or below the cell's ground.
pub fn basin_floor(level: &Level, ground: &[f32], x: usize, y: usize) -> (usize, usize) {
    let (nx, ny) = (level.nx(), level.ny());
    let (mut x, mut y) = (x.min(nx - 1), y.min(ny - 1));
    // Each move goes strictly lower, so no cell is visited twice.
    loop {
        let here = ground[y * nx + x];
        let mut best = (here, x, y);
        let mut look = |i: usize, j: usize| {
            let h = ground[j * nx + i];
            if h < best.0 {
                best = (h, i, j);
            }
        };
        if x > 0 {
            look(x - 1, y);
        }
        if x + 1 < nx {
            look(x + 1, y);
        }
        if y > 0 {
            look(x, y - 1);
        }
        if y + 1 < ny {
            look(x, y + 1);
        }
        if (best.1, best.2) == (x, y) {
            return (x, y);
        }
        (x, y) = (best.1, best.2);
    }
}

/// The spill of the basin cell `(x, y)` lies in (or drains to) over `ground` ([`walls`]): the
/// region grows from the basin's floor ([`basin_floor`]) over its lowest rim cell each time;
/// the water level is the highest ground crossed so far. The first rim cell lower than that
/// level lies beyond the spill point, the region cell it was reached from; an edge cell whose
/// edge lets water out is a spill point too. `None` when the cell is outside the map or the
/// basin holds water up to the top of the map (walled in all round).
pub fn spill(level: &Level, ground: &[f32], x: usize, y: usize) -> Option<Spill> {
    let (nx, ny) = (level.nx(), level.ny());
    if x >= nx || y >= ny {
        return None;
    }
    let (x, y) = basin_floor(level, ground, x, y);
    let mut seen = Seen::new(nx * ny);
    spill_from(level, ground, &[y * nx + x], f32::INFINITY, &mut seen)
}

/// The cells floods of one map have reached, kept between floods so that many small floods (a
/// leak check of thousands of puddles) each cost the cells they reach, not the map's size.
pub struct Seen {
    /// Per cell, the flood that last reached it.
    stamp: Vec<u32>,
    /// The flood under way.
    now: u32,
}

impl Seen {
    /// Marks for a map of `cells` cells, none reached yet.
    pub fn new(cells: usize) -> Self {
        Self {
            stamp: vec![0; cells],
            now: 0,
        }
    }

    /// Starts a new flood: no cell is reached by it yet.
    fn next_flood(&mut self) {
        self.now = self.now.wrapping_add(1);
        if self.now == 0 {
            self.stamp.fill(0);
            self.now = 1;
        }
    }

    /// Marks cell `k` reached by this flood; whether it was not yet.
    fn reach(&mut self, k: usize) -> bool {
        let first = self.stamp[k] != self.now;
        self.stamp[k] = self.now;
        first
    }
}

/// The spill of the basin holding the cells `start` (row-major indices, all in the map) over
/// `ground`: as [`spill`], with the region starting as all of them. A start cell on an edge
/// that lets water out spills there, at its ground. `seen` holds the map's marks, reused
/// between calls. The flood gives up (`None`) once the basin would hold water at `below` or
/// higher: a leak check needs no spill above the lake's surface, and stops at its basin's rim.
pub fn spill_from(
    level: &Level,
    ground: &[f32],
    start: &[usize],
    below: f32,
    seen: &mut Seen,
) -> Option<Spill> {
    let (nx, ny) = (level.nx(), level.ny());
    seen.next_flood();
    let mut rim = BinaryHeap::new();
    for &k in start {
        seen.reach(k);
        rim.push(Reverse(Rim(ground[k], k as u32, k as u32)));
    }
    let mut surface = f32::NEG_INFINITY;
    while let Some(Reverse(Rim(h, k, from))) = rim.pop() {
        let k = k as usize;
        let (i, j) = (k % nx, k / nx);
        if from == OUTLET {
            // The basin rose to the outside water's level at this edge cell: it leaves there.
            return Some(Spill {
                surface: surface.max(h),
                cell: (i, j),
                off_map: true,
            });
        }
        // Start cells are the region already (only they are reached from themselves): their
        // ground sets no level, unless a single cell is where the basin starts.
        let is_start = from as usize == k;
        if !is_start && h < surface {
            let from = from as usize;
            return Some(Spill {
                surface,
                cell: (from % nx, from / nx),
                off_map: false,
            });
        }
        if !is_start && surface.max(h) >= below {
            return None;
        }
        if !is_start || start.len() == 1 {
            surface = surface.max(h);
        }
        match outlet(level, i, j) {
            Some(outside) if outside <= surface.max(h) => {
                return Some(Spill {
                    surface: surface.max(h),
                    cell: (i, j),
                    off_map: true,
                });
            }
            // Water outside stands higher: the basin leaves here only once it stands as high
            // (a lower saddle inland may come first).
            Some(outside) => rim.push(Reverse(Rim(outside, k as u32, OUTLET))),
            None => {}
        }
        let mut visit = |n: usize| {
            if seen.reach(n) {
                rim.push(Reverse(Rim(ground[n], n as u32, k as u32)));
            }
        };
        if i > 0 {
            visit(k - 1);
        }
        if i + 1 < nx {
            visit(k + 1);
        }
        if j > 0 {
            visit(k - nx);
        }
        if j + 1 < ny {
            visit(k + nx);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use spillway::Grid;
    use spillway::body::Pose;
    use spillway::level::Boundary;

    /// Two bowls side by side, 1 m cells, rims 5 m high, joined by a channel whose floor is at
    /// 3 m (x = 16..=24, y = 9..=11), walls all round.
    fn two_bowls() -> Level {
        let (nx, ny) = (41, 21);
        let mut level = Level::flat(nx, ny, 1.0, 0.0);
        level.terrain = Grid::from_fn(nx, ny, |x, y| {
            let cx = if x <= 20 { 10.0 } else { 30.0 };
            let r = ((x as f32 - cx).powi(2) + (y as f32 - 10.0).powi(2)).sqrt();
            let bowl = (0.5 * r).min(5.0);
            if (16..=24).contains(&x) && (9..=11).contains(&y) {
                bowl.min(3.0)
            } else {
                bowl
            }
        });
        level
    }

    #[test]
    fn a_bowl_spills_over_its_lowest_saddle_into_its_neighbour() {
        let level = two_bowls();
        let s = spill(&level, &walls(&level, &[]), 10, 10).expect("it spills");
        assert_eq!(s.surface, 3.0);
        assert!((16..=24).contains(&s.cell.0), "in the channel: {s:?}");
        assert!((9..=11).contains(&s.cell.1), "in the channel: {s:?}");
        assert!(!s.off_map);
        // The other bowl spills over the same saddle, the other way.
        assert_eq!(
            spill(&level, &walls(&level, &[]), 30, 10)
                .expect("it spills")
                .surface,
            3.0
        );
    }

    #[test]
    fn floods_sharing_marks_find_what_fresh_ones_do_and_stop_at_the_level_asked() {
        let level = two_bowls();
        let ground = walls(&level, &[]);
        let (west, east) = (10 * 41 + 10, 10 * 41 + 30);
        let mut seen = Seen::new(41 * 21);
        for start in [west, east, west] {
            let shared = spill_from(&level, &ground, &[start], f32::INFINITY, &mut seen);
            let fresh = spill_from(
                &level,
                &ground,
                &[start],
                f32::INFINITY,
                &mut Seen::new(41 * 21),
            );
            assert_eq!(shared, fresh);
            assert_eq!(shared.map(|s| s.surface), Some(3.0));
        }
        // Asked only for a spill below 2.9 m, the flood stops at that level: the bowl holds.
        assert_eq!(spill_from(&level, &ground, &[west], 2.9, &mut seen), None);
        let s = spill_from(&level, &ground, &[west], 3.1, &mut seen);
        assert_eq!(s.map(|s| s.surface), Some(3.0));
    }

    #[test]
    fn a_click_on_the_side_of_a_bowl_finds_the_same_spill_as_its_bottom() {
        let level = two_bowls();
        let ground = walls(&level, &[]);
        let bottom = spill(&level, &ground, 10, 10).expect("it spills");
        // 2 m up the west side and 1.5 m up the south side of the west bowl.
        for (x, y) in [(6, 10), (10, 13), (7, 8)] {
            assert_eq!(basin_floor(&level, &ground, x, y), (10, 10));
            assert_eq!(spill(&level, &ground, x, y), Some(bottom), "from {x}, {y}");
        }
        // On the east bowl's side it is the east bowl's, which spills over the same saddle.
        assert_eq!(basin_floor(&level, &ground, 34, 12), (30, 10));
        // On the flat rim no cell is lower: the water stays where it is put.
        let rim = spill(&level, &ground, 0, 0).expect("it spills");
        assert_eq!((rim.surface, rim.off_map), (5.0, false));
    }

    #[test]
    fn an_open_edge_lower_than_the_saddle_is_where_it_spills() {
        let mut level = two_bowls();
        // A channel with its floor at 2 m from the west bowl to the north edge at x = 10.
        for y in 0..=6 {
            let t = &mut level.terrain.data[y * 41 + 10];
            *t = t.min(2.0);
        }
        level.boundaries.push(Boundary {
            edge: Edge::North,
            start: 0,
            end: 41,
            kind: BoundaryKind::Open,
        });
        let s = spill(&level, &walls(&level, &[]), 10, 10).expect("it spills");
        assert!(s.off_map, "{s:?}");
        assert_eq!(s.cell, (10, 0));
        assert_eq!(s.surface, 2.0, "{s:?}");
    }

    #[test]
    fn an_edge_leaves_as_the_solver_lets_it() {
        // The west bowl's 2 m channel to the north edge, the 3 m saddle to the east bowl. An
        // inflow only adds water, and water leaves to a fixed outside level only once it
        // stands that high: every edge but a wall counted as open at its ground.
        let mut level = two_bowls();
        for y in 0..=6 {
            let t = &mut level.terrain.data[y * 41 + 10];
            *t = t.min(2.0);
        }
        let north = |kind| Boundary {
            edge: Edge::North,
            start: 0,
            end: 41,
            kind,
        };
        let spill_with = |kind| {
            let mut l = level.clone();
            l.boundaries.push(north(kind));
            spill(&l, &walls(&l, &[]), 10, 10).expect("it spills")
        };
        let inflow = spill_with(BoundaryKind::Inflow { m3_per_s: 5.0 });
        assert_eq!((inflow.surface, inflow.off_map), (3.0, false), "{inflow:?}");
        let high_sea = spill_with(BoundaryKind::FixedLevel { surface: 4.0 });
        assert_eq!((high_sea.surface, high_sea.off_map), (3.0, false));
        let low_sea = spill_with(BoundaryKind::FixedLevel { surface: 2.5 });
        assert_eq!(
            (low_sea.surface, low_sea.off_map),
            (2.5, true),
            "{low_sea:?}"
        );
        assert_eq!(low_sea.cell, (10, 0));
    }

    #[test]
    fn a_closed_gate_raises_the_saddle_to_its_crest() {
        let mut level = two_bowls();
        level.gates.push(spillway::level::Gate {
            name: "sluice".into(),
            shape: spillway::level::Shape::Box {
                x0: 20.0,
                y0: 0.0,
                x1: 21.0,
                y1: 21.0,
            },
            crest: 4.0,
            open_at: None,
        });
        let s = spill(&level, &walls(&level, &[]), 10, 10).expect("it spills");
        assert_eq!(s.surface, 4.0, "{s:?}");
    }

    #[test]
    fn a_body_standing_in_the_channel_is_a_wall_and_one_above_it_is_not() {
        let level = two_bowls();
        let cube = crate::tools::body::tests::cube();
        // A block 4.5 m tall across the channel (x = 19.5..21.5, y = 8..13), standing on its
        // floor (3 m): the west bowl now holds water up to its rim (5 m, walls all round).
        let standing = Pose {
            translation: [20.5, 10.5, 3.0 + 2.25],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [2.0, 5.0, 4.5],
        };
        let ground = walls(&level, &[(standing, &cube)]);
        let s = spill(&level, &ground, 10, 10);
        assert!(s.is_none_or(|s| s.surface > 4.9), "{s:?}");
        // Lifted 1 m off the floor, the water passes under it: the saddle is 3 m again.
        let lifted = Pose {
            translation: [20.5, 10.5, 4.0 + 2.25],
            ..standing
        };
        let ground = walls(&level, &[(lifted, &cube)]);
        assert_eq!(spill(&level, &ground, 10, 10).expect("spills").surface, 3.0);
    }

    #[test]
    fn a_basin_walled_in_all_round_never_spills() {
        let level = Level::flat(8, 8, 1.0, 0.0);
        assert_eq!(spill(&level, &walls(&level, &[]), 3, 3), None);
        assert_eq!(spill(&level, &walls(&level, &[]), 99, 3), None);
    }
}
