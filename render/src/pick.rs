//! Picking: where a view ray first meets the terrain, by marching along the ray over the
//! heightfield as drawn (two triangles a cell) and refining the crossing by bisection.

use spillway::Grid;

use crate::camera::Ray;
use crate::math::Vec3;

/// The terrain height at world point `(x, y)` on the surface drawn (clamped to the cell
/// centres): each square between four cell centres is two triangles split along the diagonal
/// from its (i, j + 1) corner to its (i + 1, j) corner, as the terrain tiles draw it (bilinear
/// heights put the crest of a one-cell levee drawn diagonally at half its height).
pub fn height_at(terrain: &Grid, cell_size: f32, x: f32, y: f32) -> f32 {
    let (nx, ny) = (terrain.nx, terrain.ny);
    if nx < 2 || ny < 2 {
        return terrain.sample(x / cell_size, y / cell_size);
    }
    let u = (x / cell_size - 0.5).clamp(0.0, (nx - 1) as f32);
    let v = (y / cell_size - 0.5).clamp(0.0, (ny - 1) as f32);
    let (i, j) = ((u as usize).min(nx - 2), (v as usize).min(ny - 2));
    let (tx, ty) = (u - i as f32, v - j as f32);
    let h = |a: usize, b: usize| terrain.data[(j + b) * nx + i + a];
    let (h00, h10, h01, h11) = (h(0, 0), h(1, 0), h(0, 1), h(1, 1));
    if tx + ty <= 1.0 {
        h00 + tx * (h10 - h00) + ty * (h01 - h00)
    } else {
        h11 + (1.0 - tx) * (h01 - h11) + (1.0 - ty) * (h10 - h11)
    }
}

/// The first point where `ray` meets the terrain of `terrain` (cells of `cell_size` metres,
/// heights within `z_range`), or `None` if it misses the level.
pub fn pick(terrain: &Grid, cell_size: f32, z_range: (f32, f32), ray: &Ray) -> Option<Vec3> {
    let width = terrain.nx as f32 * cell_size;
    let depth = terrain.ny as f32 * cell_size;
    let (zmin, zmax) = (z_range.0 - 1.0, z_range.1 + 1.0);
    let (mut t0, mut t1) = (0.0f32, f32::INFINITY);
    for (o, d, lo, hi) in [
        (ray.origin.x, ray.dir.x, 0.0, width),
        (ray.origin.y, ray.dir.y, 0.0, depth),
        (ray.origin.z, ray.dir.z, zmin, zmax),
    ] {
        if d.abs() < 1e-9 {
            if o < lo || o > hi {
                return None;
            }
            continue;
        }
        let (a, b) = ((lo - o) / d, (hi - o) / d);
        t0 = t0.max(a.min(b));
        t1 = t1.min(a.max(b));
    }
    if t0.is_nan() || t0 > t1 || !t1.is_finite() {
        return None;
    }
    let above = |t: f32| {
        let p = ray.at(t);
        p.z - height_at(terrain, cell_size, p.x, p.y)
    };
    if above(t0) <= 0.0 {
        // The ray enters the level's box below the surface: through a side (the terrain has
        // no walls there) or from an eye under the ground.
        return None;
    }
    // Counted steps from the entry point: `t + step` stops moving once the step is below the
    // spacing of f32 at `t` (a far camera over tiny cells), and the march never ended. Half a
    // cell apart across the map (a fixed count stretched the steps past a cell on paths of
    // more than 4096 cells, and a thin wall in plain view was missed): at most twice the
    // cells a straight path over the map crosses.
    let across = (t1 - t0) * ray.dir.x.hypot(ray.dir.y) / (cell_size * 0.5);
    let most = 2 * (terrain.nx + terrain.ny) + 2;
    let n = (across.ceil() as usize).clamp(1, most);
    let mut prev = t0;
    for i in 1..=n {
        let t = if i == n {
            t1
        } else {
            t0 + (t1 - t0) * (i as f32 / n as f32)
        };
        if above(t) <= 0.0 {
            let (mut lo, mut hi) = (prev, t);
            for _ in 0..24 {
                let mid = 0.5 * (lo + hi);
                if above(mid) > 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            return Some(ray.at(hi));
        }
        prev = t;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diagonal_levee_is_picked_at_the_height_drawn() {
        // A one-cell levee along the diagonal the tiles split their squares on: bilinear
        // heights read its crest between two raised corners at half its height.
        let mut g = Grid::filled(8, 8, 0.0);
        for k in 0..8 {
            g.set(k, 7 - k, 2.0);
        }
        // Midway between the centres of cells (3, 4) and (4, 3), both on the crest.
        let z = height_at(&g, 1.0, 4.0, 4.0);
        assert!((z - 2.0).abs() < 1e-6, "{z}");
        assert_eq!(height_at(&g, 1.0, 3.5, 4.5), 2.0);
        assert_eq!(height_at(&g, 1.0, 0.5, 0.5), 0.0);
    }

    #[test]
    fn a_far_ray_over_tiny_cells_ends() {
        // 1 cm cells seen from 300 km: the half-cell step was below f32's spacing there, so
        // the march stood still and the editor hung on hover.
        let mut g = Grid::filled(64, 64, 0.0);
        g.set(10, 10, 1.0e6);
        let ray = Ray {
            origin: Vec3::new(-3.0e5, 0.32, 0.5),
            dir: Vec3::new(1.0, 0.0, -1.0e-6).normalized(),
        };
        let hit = pick(&g, 0.01, (0.0, 1.0e6), &ray);
        assert!(hit.is_none_or(|p| p.x.is_finite()), "{hit:?}");
    }

    #[test]
    fn a_ray_straight_down_hits_the_surface() {
        let g = Grid::from_fn(50, 40, |x, _| x as f32 * 0.5);
        let ray = Ray {
            origin: Vec3::new(20.25, 10.0, 100.0),
            dir: Vec3::new(0.0, 0.0, -1.0),
        };
        let hit = pick(&g, 1.0, (0.0, 25.0), &ray).expect("hit");
        assert!(
            (hit.z - height_at(&g, 1.0, 20.25, 10.0)).abs() < 1e-3,
            "{hit:?}"
        );
        let miss = Ray {
            origin: Vec3::new(-5.0, 10.0, 100.0),
            dir: Vec3::new(0.0, 0.0, -1.0),
        };
        assert!(pick(&g, 1.0, (0.0, 25.0), &miss).is_none());
    }

    #[test]
    fn a_slanted_ray_stops_at_the_first_ridge() {
        let g = Grid::from_fn(
            100,
            10,
            |x, _| if (40..45).contains(&x) { 20.0 } else { 0.0 },
        );
        let ray = Ray {
            origin: Vec3::new(0.0, 5.0, 10.0),
            dir: Vec3::new(1.0, 0.0, -0.05).normalized(),
        };
        let hit = pick(&g, 1.0, (0.0, 20.0), &ray).expect("hit");
        assert!(hit.x > 38.0 && hit.x < 41.0, "{hit:?}");
    }

    #[test]
    fn a_thin_wall_seen_across_a_long_level_is_hit() {
        // 10 000 cells in a row, a one-cell wall 20 m high 50 m from the eye, looked at 10 m
        // below its top: the march took 8192 steps at most, more than a cell each here, and
        // passed through the wall from some places.
        let g = Grid::from_fn(10_000, 3, |x, _| if x == 100 { 20.0 } else { 0.0 });
        for k in 0..=10 {
            let ray = Ray {
                origin: Vec3::new(50.0 + 0.1 * k as f32, 1.5, 10.0),
                dir: Vec3::new(1.0, 0.0, 0.0),
            };
            let hit = pick(&g, 1.0, (0.0, 20.0), &ray);
            assert!(
                hit.is_some_and(|p| p.x > 99.0 && p.x < 102.0),
                "from {}: {hit:?}",
                ray.origin.x
            );
        }
    }
}
