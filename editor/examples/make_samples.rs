//! Regenerates the sample projects in `projects/`: writes each terrain and water array as a
//! `.npy`, imports them with the same code as `spillway import`, adds the sources and boundary
//! segments with the runtime API, and saves `projects/NAME/level.ron` with its grid sidecar.
//!
//! `cargo run -p spillway-editor --example make_samples [-- OUT_DIR]`

use std::error::Error;
use std::path::{Path, PathBuf};

use spillway::level::{Boundary, BoundaryKind, Edge, Shape, Source, SourceKind, file};
use spillway::{Grid, Level};
use spillway_editor::cli::BoundaryArg;
use spillway_editor::cli::import::{ImportArgs, build};
use spillway_editor::heightmap::npy;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

fn main() -> Result<()> {
    let out = match std::env::args_os().nth(1) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects"),
    };
    let scratch = tempfile::tempdir()?;
    for (name, make) in [
        (
            "dam_break_valley",
            dam_break_valley as fn(&Path) -> Result<Level>,
        ),
        ("river_gorge", river_gorge),
        ("flooding_island", flooding_island),
    ] {
        let level = make(scratch.path())?;
        let dir = out.join(name);
        std::fs::create_dir_all(&dir)?;
        let path = dir.join("level.ron");
        file::save(&level, &path)?;
        println!(
            "wrote {} ({}×{} cells)",
            path.display(),
            level.nx(),
            level.ny()
        );
    }
    Ok(())
}

/// Writes the arrays as `.npy` in `scratch` and imports them like `spillway import` would.
fn import(
    scratch: &Path,
    name: &str,
    terrain: &Grid,
    water: &Grid,
    cell_size: f32,
    boundary: BoundaryArg,
) -> Result<Level> {
    let terrain_path = scratch.join(format!("{name}_terrain.npy"));
    let water_path = scratch.join(format!("{name}_water.npy"));
    npy::write(&terrain_path, terrain)?;
    npy::write(&water_path, water)?;
    let args = ImportArgs {
        terrain: terrain_path,
        water: Some(water_path),
        cell_size,
        height_scale: None,
        boundary,
        solver: Default::default(),
        name: Some(name.replace('_', " ")),
        output: scratch.join(format!("{name}.ron")),
    };
    build(&args).map_err(|e| e.message.into())
}

fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A winding valley falling to the east; a reservoir filled to 22 m stands behind the line of a
/// dam (x = 100 m) that is gone at t = 0; the valley below is dry; the east edge is open.
fn dam_break_valley(scratch: &Path) -> Result<Level> {
    let (nx, ny, dx) = (160, 96, 2.0f32);
    let terrain = Grid::from_fn(nx, ny, |i, j| {
        let (x, y) = ((i as f32 + 0.5) * dx, (j as f32 + 0.5) * dx);
        let centre = 96.0 + 16.0 * (x / 60.0).sin();
        let floor = 12.0 - 0.04 * x;
        let sides = 30.0 * (1.0 - (-(y - centre).powi(2) / 1500.0).exp());
        floor + sides + 0.3 * (x / 9.0).sin() * (y / 11.0).cos()
    });
    let water = Grid::from_fn(nx, ny, |i, j| {
        let x = (i as f32 + 0.5) * dx;
        if x < 100.0 {
            (22.0 - terrain.get(i, j)).max(0.0)
        } else {
            0.0
        }
    });
    let mut level = import(
        scratch,
        "dam_break_valley",
        &terrain,
        &water,
        dx,
        BoundaryArg::Wall,
    )?;
    level.params.dt = 0.05;
    level.boundaries.push(Boundary {
        edge: Edge::East,
        start: 0,
        end: ny as u32,
        kind: BoundaryKind::Open,
    });
    Ok(level)
}

/// A river fed by a 40 m³/s spring at the north edge runs south down a channel, through a narrow
/// gorge cut into a ridge, into a lake basin filled to just below its outlet sill; the outlet
/// channel leaves through an open segment of the south edge.
fn river_gorge(scratch: &Path) -> Result<Level> {
    let (nx, ny, dx) = (96, 160, 2.0f32);
    // The land falls 0.05 m per cell (2.5 %) to the south.
    let slope = 0.05f32;
    // Bed of the outlet channel where it leaves the lake (row 150): the lake's sill.
    let sill = 27.0 - slope * 150.0;
    let centre = |j: f32| 48.0 + 8.0 * (j / 15.0).sin();
    let half_width =
        |j: f32| 6.0 - 4.0 * smoothstep(45.0, 55.0, j) * (1.0 - smoothstep(85.0, 95.0, j));
    let terrain = Grid::from_fn(nx, ny, |i, j| {
        let (fi, fj) = (i as f32, j as f32);
        let ground = 30.0 - slope * fj;
        let ridge = 10.0 * smoothstep(40.0, 60.0, fj) * (1.0 - smoothstep(80.0, 100.0, fj));
        let bank = smoothstep(
            half_width(fj) - 1.0,
            half_width(fj) + 1.5,
            (fi - centre(fj)).abs(),
        );
        let channel = ground - 3.0 + bank * (3.0 + ridge);
        let r = ((fi - 48.0).powi(2) + (fj - 125.0).powi(2)).sqrt() / 25.0;
        let lake = 14.0 + 9.0 * r * r;
        channel.min(lake)
    });
    let water = Grid::from_fn(nx, ny, |i, j| {
        let r = ((i as f32 - 48.0).powi(2) + (j as f32 - 125.0).powi(2)).sqrt();
        if r < 30.0 {
            (sill - 0.1 - terrain.get(i, j)).max(0.0)
        } else {
            0.0
        }
    });
    let mut level = import(
        scratch,
        "river_gorge",
        &terrain,
        &water,
        dx,
        BoundaryArg::Wall,
    )?;
    let (c0, c1) = (centre(0.0), centre(ny as f32 - 1.0));
    // The spring: a rate source over the head of the channel, along the north edge.
    level.sources.push(Source {
        name: "spring".into(),
        shape: Shape::Box {
            x0: (c0 - 6.0) * dx,
            y0: 0.0,
            x1: (c0 + 6.0) * dx,
            y1: 3.0 * dx,
        },
        kind: SourceKind::Rate { m3_per_s: 40.0 },
        enabled: true,
    });
    level.boundaries.push(Boundary {
        edge: Edge::South,
        start: (c1 - 8.0) as u32,
        end: (c1 + 8.0) as u32,
        kind: BoundaryKind::Open,
    });
    Ok(level)
}

/// An island with a low coastal plain and two hills in a sea at 0 m; every map edge holds the
/// sea at 2.5 m, so the sea rises and floods the plain while the hills stay dry.
fn flooding_island(scratch: &Path) -> Result<Level> {
    let (nx, ny, dx) = (128, 128, 2.0f32);
    let terrain = Grid::from_fn(nx, ny, |i, j| {
        let (x, y) = (i as f32 - 64.0, j as f32 - 64.0);
        let r = (x * x + y * y).sqrt();
        // A coastal plain 0.5–2 m above the sea out to r ≈ 38 cells, falling to a 6 m deep sea.
        let plain = 2.0 - 1.5 * smoothstep(10.0, 38.0, r) - 8.0 * smoothstep(36.0, 50.0, r);
        let hills = 9.0 * (-((x - 8.0).powi(2) + (y + 6.0).powi(2)) / 80.0).exp()
            + 6.0 * (-((x + 14.0).powi(2) + (y - 10.0).powi(2)) / 50.0).exp();
        plain + hills + 0.3 * (x / 5.0).sin() * (y / 7.0).cos()
    });
    let water = Grid::from_fn(nx, ny, |i, j| (0.0 - terrain.get(i, j)).max(0.0));
    let mut level = import(
        scratch,
        "flooding_island",
        &terrain,
        &water,
        dx,
        BoundaryArg::Wall,
    )?;
    level.params.friction = 0.1;
    level.params.default_boundary = BoundaryKind::FixedLevel { surface: 2.5 };
    Ok(level)
}
