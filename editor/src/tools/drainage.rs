//! Drainage of the terrain, for the Flow paths and Catchments overlays: where rain falling on
//! each cell runs (steepest descent over the eight neighbours, as GIS tools do) and how much
//! ground drains through each cell.
//!
//! - **Flow paths**: the upslope area of every cell, on the terrain with its pits filled by a
//!   priority flood from the map's edges (Barnes et al. 2014), so every path runs on to an edge;
//!   ties flood first in, first out, so flats drain towards their outlet.
//! - **Catchments**: the basin each cell drains into, by steepest descent on the terrain as it
//!   is: a pit (a lake bed, a hollow) or the cell by which water leaves the map. Flats drain
//!   towards their lower rim; a flat with none is one pit.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};

use spillway::Grid;

/// No receiver: a pit, or an outlet.
const NONE: u32 = u32::MAX;

/// The drainage of a terrain.
#[derive(Clone, Debug, PartialEq)]
pub struct Drainage {
    /// Area draining through each cell, itself included, m² (row-major).
    pub area: Grid,
    /// The catchment of each cell: an id shared by every cell draining into the same pit
    /// (row-major, ids as `f32`, from 0).
    pub basin: Grid,
    /// How many catchments there are.
    pub basins: usize,
}

/// The eight neighbours of cell `k` of an `nx × ny` grid, with their distances in cells.
fn neighbours(k: usize, nx: usize, ny: usize) -> impl Iterator<Item = (usize, f32)> {
    let (i, j) = ((k % nx) as isize, (k / nx) as isize);
    const D: f32 = std::f32::consts::SQRT_2;
    [
        (-1, 0, 1.0),
        (1, 0, 1.0),
        (0, -1, 1.0),
        (0, 1, 1.0),
        (-1, -1, D),
        (1, -1, D),
        (-1, 1, D),
        (1, 1, D),
    ]
    .into_iter()
    .filter_map(move |(di, dj, d)| {
        let (a, b) = (i + di, j + dj);
        (a >= 0 && b >= 0 && (a as usize) < nx && (b as usize) < ny)
            .then(|| (b as usize * nx + a as usize, d))
    })
}

/// A cell waiting in the flood: its filled height, then the order it came in.
#[derive(Clone, Copy, PartialEq)]
struct Queued(f32, u64, u32);

impl Eq for Queued {}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Queued {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// The upslope area of every cell, m², over the terrain with its pits filled.
fn upslope_area(terrain: &Grid, cell_size: f32) -> Vec<f32> {
    let (nx, ny) = (terrain.nx, terrain.ny);
    let n = nx * ny;
    let mut recv = vec![NONE; n];
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut heap = BinaryHeap::new();
    let mut count = 0u64;
    for (k, seen) in seen.iter_mut().enumerate() {
        let (i, j) = (k % nx, k / nx);
        if i == 0 || j == 0 || i + 1 == nx || j + 1 == ny {
            *seen = true;
            heap.push(Reverse(Queued(terrain.data[k], count, k as u32)));
            count += 1;
        }
    }
    while let Some(Reverse(Queued(h, _, c))) = heap.pop() {
        let c = c as usize;
        order.push(c);
        for (m, _) in neighbours(c, nx, ny) {
            if !seen[m] {
                seen[m] = true;
                recv[m] = c as u32;
                heap.push(Reverse(Queued(terrain.data[m].max(h), count, m as u32)));
                count += 1;
            }
        }
    }
    let mut area = vec![cell_size * cell_size; n];
    for &c in order.iter().rev() {
        if recv[c] != NONE {
            area[recv[c] as usize] += area[c];
        }
    }
    area
}

/// The catchment id of every cell and how many there are.
fn catchments(terrain: &Grid) -> (Vec<u32>, usize) {
    let (nx, ny) = (terrain.nx, terrain.ny);
    let h = &terrain.data;
    let n = nx * ny;
    // Steepest descent where there is a lower neighbour.
    let mut recv: Vec<u32> = (0..n)
        .map(|k| {
            let mut best = (0.0f32, NONE);
            for (m, d) in neighbours(k, nx, ny) {
                let slope = (h[m] - h[k]) / d;
                if slope < best.0 {
                    best = (slope, m as u32);
                }
            }
            best.1
        })
        .collect();
    // Flats drain towards their lower rim: breadth first from the cells that drain, over
    // neighbours of the same height.
    let mut queue: VecDeque<usize> = (0..n).filter(|&k| recv[k] != NONE).collect();
    while let Some(k) = queue.pop_front() {
        for (m, _) in neighbours(k, nx, ny) {
            if recv[m] == NONE && h[m] == h[k] {
                recv[m] = k as u32;
                queue.push_back(m);
            }
        }
    }
    // What is left are pits; a flat pit (level cells joined) is one catchment.
    let mut basin = vec![NONE; n];
    let mut basins = 0u32;
    for k in 0..n {
        if recv[k] != NONE || basin[k] != NONE {
            continue;
        }
        basin[k] = basins;
        let mut flat = vec![k];
        while let Some(c) = flat.pop() {
            for (m, _) in neighbours(c, nx, ny) {
                if recv[m] == NONE && basin[m] == NONE && h[m] == h[c] {
                    basin[m] = basins;
                    flat.push(m);
                }
            }
        }
        basins += 1;
    }
    // Every other cell takes the catchment its path ends in.
    let mut path = Vec::new();
    for k in 0..n {
        let mut c = k;
        while basin[c] == NONE {
            path.push(c);
            c = recv[c] as usize;
        }
        let id = basin[c];
        for p in path.drain(..) {
            basin[p] = id;
        }
    }
    (basin, basins as usize)
}

/// The drainage of `terrain`, cells `cell_size` metres wide.
pub fn drainage(terrain: &Grid, cell_size: f32) -> Drainage {
    let (nx, ny) = (terrain.nx, terrain.ny);
    let area = upslope_area(terrain, cell_size);
    let (ids, basins) = catchments(terrain);
    Drainage {
        area: Grid { nx, ny, data: area },
        basin: Grid {
            nx,
            ny,
            data: ids.into_iter().map(|b| b as f32).collect(),
        },
        basins,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two valleys running south, split by a ridge along x = 20, each sloping down to the
    /// south edge; 41 × 30 cells.
    fn two_valleys() -> Grid {
        Grid::from_fn(41, 30, |x, y| {
            let across = (x as f32 - 20.0).abs();
            let valley = (across - 10.0).abs();
            10.0 - 0.2 * y as f32 + 0.5 * valley - 0.3 * across.min(1.0)
        })
    }

    #[test]
    fn every_square_metre_reaches_an_edge_once() {
        let terrain = two_valleys();
        let d = drainage(&terrain, 2.0);
        let (nx, ny) = (terrain.nx, terrain.ny);
        // Every path ends at an edge cell and edge cells drain nowhere: the area through the
        // edge cells is the map's area, each cell counted once.
        let out: f64 = (0..nx * ny)
            .filter(|k| {
                let (i, j) = (k % nx, k / nx);
                i == 0 || j == 0 || i + 1 == nx || j + 1 == ny
            })
            .map(|k| f64::from(d.area.data[k]))
            .sum();
        assert!((out - (nx * ny * 4) as f64).abs() < 1e-3, "{out}");
        // Each valley's floor carries more than a third of its half of the map at its mouth.
        let mouth = |x: usize| d.area.data[(ny - 1) * nx + x];
        assert!(mouth(10) > 0.3 * 20.0 * 30.0 * 4.0, "{}", mouth(10));
        assert!(mouth(30) > 0.3 * 20.0 * 30.0 * 4.0, "{}", mouth(30));
    }

    #[test]
    fn the_ridge_splits_the_catchments_of_the_two_valleys() {
        let terrain = two_valleys();
        let d = drainage(&terrain, 1.0);
        let nx = terrain.nx;
        let id = |x: usize, y: usize| d.basin.data[y * nx + x];
        assert_ne!(id(10, 5), id(30, 5), "two valleys, two catchments");
        assert_eq!(id(10, 5), id(5, 20), "one valley, one catchment");
        assert_eq!(id(30, 5), id(35, 20));
    }

    #[test]
    fn a_flat_map_is_one_catchment_and_a_hollow_its_own() {
        let flat = Grid::filled(12, 9, 3.0);
        assert_eq!(drainage(&flat, 1.0).basins, 1);
        // A hollow with a flat floor inside a ring 4 m high, the ground outside falling away.
        let hollow = Grid::from_fn(20, 20, |x, y| {
            let r = ((x as f32 - 10.0).powi(2) + (y as f32 - 10.0).powi(2)).sqrt();
            if r < 7.0 {
                (r - 3.0).max(0.0)
            } else {
                4.0 - 0.5 * (r - 7.0)
            }
        });
        let d = drainage(&hollow, 1.0);
        let id = |x: usize, y: usize| d.basin.data[y * 20 + x];
        // The hollow's slopes drain into its flat floor; the ground outside the ring does not.
        assert_eq!(id(10, 10), id(10, 12));
        assert_eq!(id(10, 10), id(12, 10));
        assert_ne!(id(10, 10), id(19, 19));
    }
}
