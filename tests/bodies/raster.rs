//! Rasterising posed meshes from above and below: columns, cover and volume.

use spillway::body::Pose;
use spillway::body::raster::{CellGrid, Coverage};

use super::asset;

const GRID: CellGrid = CellGrid {
    nx: 32,
    ny: 32,
    cell_size: 0.25,
};

#[test]
fn an_aligned_crate_fills_its_cells_exactly() {
    let cov = Coverage::rasterise(&asset("crate"), &Pose::at([4.0, 4.0, 1.5]), GRID, 4);
    let cells: Vec<_> = cov.cells().collect();
    assert_eq!(cells.len(), 16);
    for (i, j, bottom, top, cover) in cells {
        assert!((14..18).contains(&i) && (14..18).contains(&j));
        assert_eq!((bottom, top, cover), (1.0, 2.0, 1.0));
    }
    assert!((cov.volume() - 1.0).abs() < 1e-6);
}

#[test]
fn a_turned_crate_keeps_its_volume_and_widens_its_footprint() {
    let half = std::f32::consts::FRAC_PI_8; // a 45° turn about z
    let pose = Pose {
        translation: [4.0, 4.0, 1.5],
        rotation: [0.0, 0.0, half.sin(), half.cos()],
        scale: [1.0; 3],
    };
    let cov = Coverage::rasterise(&asset("crate"), &pose, GRID, 8);
    let (lo, hi) = cov
        .cells()
        .fold((usize::MAX, 0), |(lo, hi), c| (lo.min(c.0), hi.max(c.0)));
    let width = (hi - lo + 1) as f32 * 0.25;
    println!(
        "turned crate: volume {:.4} m³, width {width} m",
        cov.volume()
    );
    assert!((cov.volume() - 1.0).abs() < 0.03);
    assert!(width > 1.3 && width <= 1.75, "√2 m across: {width}");
}

#[test]
fn bodies_off_the_map_are_clipped_or_ignored() {
    let crate_mesh = asset("crate");
    let outside = Coverage::rasterise(&crate_mesh, &Pose::at([-5.0, 4.0, 0.5]), GRID, 4);
    assert!(outside.is_empty() && outside.cells().count() == 0);
    let far = Coverage::rasterise(&crate_mesh, &Pose::at([1e30, 4.0, 0.5]), GRID, 4);
    assert!(far.is_empty());
    let nan = Coverage::rasterise(&crate_mesh, &Pose::at([f32::NAN, 4.0, 0.5]), GRID, 4);
    assert!(nan.is_empty());
    let edge = Coverage::rasterise(&crate_mesh, &Pose::at([0.0, 4.0, 0.5]), GRID, 4);
    assert_eq!(edge.cells().count(), 2 * 4, "the half inside the map");
    assert!((edge.volume() - 0.5).abs() < 1e-6);
    // A grid of no cells (a game's before its level loads) holds nothing; it panicked.
    let none = CellGrid {
        cell_size: 1.0,
        ..Default::default()
    };
    assert!(Coverage::rasterise(&crate_mesh, &Pose::at([0.5, 0.5, 0.5]), none, 4).is_empty());
}

/// A moving body is rasterised every step into the buffers of an older coverage: what it held
/// before (a bigger body, a body half off the map, nothing) must leave no trace.
#[test]
fn rasterising_into_a_used_coverage_gives_the_fresh_result() {
    let log = asset("log");
    let crate_mesh = asset("crate");
    let tilted = Pose {
        translation: [4.0, 4.0, 1.5],
        rotation: [0.1, 0.2, 0.3, 0.9],
        scale: [1.0; 3],
    };
    let earlier = [
        Coverage::rasterise(&log, &Pose::at([3.0, 5.0, 1.0]), GRID, 8),
        Coverage::rasterise(&crate_mesh, &Pose::at([0.0, 4.0, 0.5]), GRID, 4),
        Coverage::rasterise(&crate_mesh, &Pose::at([-5.0, 4.0, 0.5]), GRID, 4),
        Coverage::default(),
    ];
    for (mesh, pose) in [(&crate_mesh, &tilted), (&log, &Pose::at([2.0, 2.0, 0.5]))] {
        let fresh = Coverage::rasterise(mesh, pose, GRID, 4);
        assert!(!fresh.is_empty());
        for old in &earlier {
            let mut reused = old.clone();
            reused.rasterise_into(mesh, pose, GRID, 4);
            assert_eq!(reused, fresh);
        }
    }
}
