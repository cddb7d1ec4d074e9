//! Regenerates the sample projects in `projects/`: writes each terrain and water array as a
//! `.npy`, imports them with the same code as `spillway import`, adds the sources, boundary
//! segments and bodies with the runtime API, and saves `projects/NAME/level.ron` with its grid
//! sidecar. A level's bodies name their glTF files `bodies/NAME.glb`, copied from `assets/` into
//! the project's `bodies/` folder (where the editor's save puts them: a game loads body files
//! only from inside the level's folder).
//!
//! `cargo run -p spillway-editor --example make_samples [-- OUT_DIR [NAME...]]`: with names,
//! only those samples.

use std::error::Error;
use std::path::{Path, PathBuf};

use spillway::body::TriMesh;
use spillway::body::import::{ImportLimits, import as import_mesh};
use spillway::body::raster::{CellGrid, Coverage};
use spillway::level::{
    Body, Boundary, BoundaryKind, Coupling, Edge, Shape, Source, SourceKind, file,
};
use spillway::sim::blocking::Blockers;
use spillway::{Grid, Level, Simulation};
use spillway_editor::cli::BoundaryArg;
use spillway_editor::cli::import::{ImportArgs, build};
use spillway_editor::heightmap::npy;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

#[path = "make_samples/breach.rs"]
mod breach;
#[path = "make_samples/eroded.rs"]
mod eroded;
#[path = "make_samples/river_valley.rs"]
mod river_valley;

fn main() -> Result<()> {
    let out = match std::env::args_os().nth(1) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects"),
    };
    let only: Vec<String> = std::env::args().skip(2).collect();
    let scratch = tempfile::tempdir()?;
    for (name, make) in [
        (
            "dam_break_valley",
            dam_break_valley as fn(&Path) -> Result<Level>,
        ),
        ("river_gorge", river_gorge),
        ("flooding_island", flooding_island),
        ("crate_dam", crate_dam),
        ("dam_knockdown", dam_knockdown),
        ("river_valley", river_valley::river_valley),
        ("breach_dam", breach::breach_dam),
        ("eroded_valley", eroded::eroded_valley),
        ("eroded_valley_before", eroded::valley),
    ] {
        // The uneroded valley is made only when asked for by name (for before pictures).
        let asked = only.iter().any(|n| n == name);
        if (!only.is_empty() || name == "eroded_valley_before") && !asked {
            continue;
        }
        let level = make(scratch.path())?;
        let dir = out.join(name);
        std::fs::create_dir_all(&dir)?;
        copy_body_files(&level, &dir)?;
        let path = dir.join("level.ron");
        file::save(&level, &path)?;
        if let Some(note) = note(name) {
            // RON comments: the designer reading the level file sees what the sample is for.
            let text = std::fs::read_to_string(&path)?;
            let comment: String = note.lines().map(|l| format!("// {l}\n")).collect();
            std::fs::write(&path, comment + &text)?;
        }
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
        raw_size: None,
        height_min: None,
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
    level.params.friction = spillway::level::Friction::Linear { per_second: 0.1 };
    level.params.default_boundary = BoundaryKind::FixedLevel { surface: 2.5 };
    Ok(level)
}

/// The RON comment at the top of a sample's level file, for the samples that need telling what
/// to do.
fn note(name: &str) -> Option<&'static str> {
    match name {
        "crate_dam" => Some(
            "crate dam: a row of heavy crates dams the river; the water rises behind them and\n\
             spills over their tops. Delete or push a crate in preview to breach the dam.",
        ),
        "dam_knockdown" => Some(
            "dam knockdown: the reservoir stands behind a dam of stacked crates (\"dam crate\n\
             ROW-COLUMN\"). Start the preview, then delete the dam crates (or push them\n\
             downstream, east) and watch the flood wave run down the valley into the village.",
        ),
        "breach_dam" => Some(
            "breach dam: a river of 30 m³/s fills the reservoir behind an earth dam; when the\n\
             water tops the crest by 5 cm, the breach \"dam breach\" starts and cuts down to the\n\
             valley floor over 60 s. A game can start it early by name (the game example: B).",
        ),
        "eroded_valley" => Some(
            "eroded valley: a sand valley whose river (20 m³/s from the west edge) ran 900\n\
             simulated seconds over it with Water ▸ Erode terrain (sand, bed aged ×100): the\n\
             channel it cut and the delta it built in the lake are the water's work.",
        ),
        "river_valley" => Some(
            "river valley: a 2 km valley (1024 × 1024 cells of 2 m) falling 0.3 % to the east. A\n\
             river fed with 40 m³/s through the west edge meanders down a 30 m wide gravel\n\
             channel into a lake behind a ridge, leaves it through a 12 m wide gorge and runs\n\
             on to the open east edge. Manning's n per cell (roughness): channel 0.03, grass\n\
             0.035 to brush 0.07, forest 0.1. The lake starts just below its spill level and\n\
             must rise about 1.2 m before the gorge passes the whole river: bake it first.",
        ),
        _ => None,
    }
}

/// The repository's `assets/` folder.
fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets")
}

/// The mesh of `assets/NAME.glb`.
fn asset(name: &str) -> Result<TriMesh> {
    let root = assets();
    Ok(import_mesh(
        &root.join(format!("{name}.glb")),
        &root,
        &ImportLimits::default(),
    )?)
}

/// Copies each body's file from `assets/` into the project's `bodies/` folder.
fn copy_body_files(level: &Level, dir: &Path) -> Result<()> {
    for body in &level.bodies {
        let file = Path::new(&body.gltf)
            .file_name()
            .ok_or_else(|| format!("{}: not a file name", body.gltf))?;
        let target = dir.join(&body.gltf);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::copy(assets().join(file), target)?;
    }
    Ok(())
}

/// A body of `assets/ASSET.glb` (as `bodies/ASSET.glb` in the project) at `at`, unrotated.
fn body(name: String, asset: &str, at: [f32; 3], density: f32, dynamic: bool) -> Body {
    Body {
        name,
        gltf: format!("bodies/{asset}.glb"),
        translation: at,
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
        density,
        dynamic,
        coupling: Coupling::Auto,
        collider: Default::default(),
    }
}

/// A static stone pier (a crate scaled to `1 m × 2 m` by `height`) standing on `ground` at
/// `(x, y)`: it closes the gap between a row of crates and the bank. The rigid-body terrain is
/// interpolated between cell centres, so a crate beside a steep bank would be pushed off it; the
/// pier is static and does not mind.
fn pier(name: String, x: f32, y: f32, ground: f32, height: f32) -> Body {
    let mut b = body(name, "crate", [x, y, ground + 0.5 * height], 2400.0, false);
    b.scale = [2.0, 1.0, height];
    b
}

/// The blockers of `level`'s bodies at their placed poses (as `BodyWorld` rasterises them).
fn placed_blockers(level: &Level, sim: &Simulation) -> Result<Blockers> {
    let grid = CellGrid {
        nx: sim.nx(),
        ny: sim.ny(),
        cell_size: sim.cell_size(),
    };
    let mut blockers = Blockers::new(sim.nx(), sim.ny());
    for body in &level.bodies {
        let name = Path::new(&body.gltf)
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or("body file name")?;
        let mesh = asset(name)?;
        let pose = spillway::body::Pose::of(body);
        Coverage::rasterise(&mesh, &pose, grid, 4).add_to(&mut blockers);
    }
    Ok(blockers)
}

/// Crate dam: a river valley 128 m × 64 m on 1 m cells falling 2 % to the east. The river, fed
/// with 3 m³/s through the west edge, meanders down a 10 m wide channel with steep 1.5 m banks;
/// at x = 80 m a row of eight dynamic 1 m crates (2400 kg/m³) between two static piers dams it.
/// The friction of the two body samples: linear, 0.02 per second, the law they were made and
/// timed under before Manning's n became the default (the crate dam's pool reaches the crate
/// tops about 30 s into the preview; under Manning's n = 0.03 the river upstream runs deeper and
/// slower: 0.000 m³ had left by 60 s and 0.024 m³ by 90 s, the `outflow` of `spillway sim
/// --seconds 60|90 --json`).
/// Their tests and README rows give the timings under linear friction.
const SAMPLE_FRICTION: spillway::level::Friction =
    spillway::level::Friction::Linear { per_second: 0.02 };

/// The level is baked 40 s after a pool 0.5 m deep stood behind the crates, so the river already
/// runs into the pool; in preview the pool rises to the crate tops (about 30 s) and spills over
/// them, down to the open east edge.
fn crate_dam(scratch: &Path) -> Result<Level> {
    let (nx, ny, dx) = (128, 64, 1.0f32);
    let floor = |x: f32| 4.0 - 0.02 * x;
    let centre = |x: f32| {
        32.0 + 6.0 * (std::f32::consts::TAU * x / 80.0).sin() * (1.0 - smoothstep(45.0, 65.0, x))
    };
    let half_width = 5.0;
    let terrain = Grid::from_fn(nx, ny, |i, j| {
        let (x, y) = ((i as f32 + 0.5) * dx, (j as f32 + 0.5) * dx);
        let d = (y - centre(x)).abs();
        let bank = if d < half_width {
            0.0
        } else {
            1.5 + 3.5 * smoothstep(half_width, half_width + 12.0, d)
                + 0.2 * (x / 7.0).sin() * (y / 5.0).cos()
        };
        floor(x) + bank
    });
    let dam_i = 80usize;
    let dam_x = (dam_i as f32 + 0.5) * dx;
    let top = floor(dam_x) + 1.0;
    let water = Grid::from_fn(nx, ny, |i, j| {
        if i < dam_i {
            (top - 0.5 - terrain.get(i, j)).max(0.0)
        } else {
            0.0
        }
    });
    let mut level = import(
        scratch,
        "crate_dam",
        &terrain,
        &water,
        dx,
        BoundaryArg::Wall,
    )?;
    level.params.friction = SAMPLE_FRICTION;
    let c0 = centre(0.0);
    level.boundaries.push(Boundary {
        edge: Edge::West,
        start: (c0 - half_width) as u32,
        end: (c0 + half_width) as u32,
        kind: BoundaryKind::Inflow { m3_per_s: 3.0 },
    });
    level.boundaries.push(Boundary {
        edge: Edge::East,
        start: 0,
        end: ny as u32,
        kind: BoundaryKind::Open,
    });
    let c = centre(dam_x);
    for k in 1..(2.0 * half_width) as usize - 1 {
        let y = c - half_width + 0.5 + k as f32;
        level.bodies.push(body(
            format!("dam crate {k}"),
            "crate",
            [dam_x, y, floor(dam_x) + 0.52],
            2400.0,
            true,
        ));
    }
    for (side, y) in [
        ("north", c - half_width + 0.5),
        ("south", c + half_width - 0.5),
    ] {
        level
            .bodies
            .push(pier(format!("{side} pier"), dam_x, y, floor(dam_x), 1.5));
    }
    // Bake: the river runs into the pool behind the crates (held as blockers where they stand).
    let mut sim = Simulation::new(&level)?;
    sim.set_blockers(&placed_blockers(&level, &sim)?)?;
    sim.advance(40.0)?;
    Ok(sim.bake_into(&level))
}

/// Dam knockdown: a valley 160 m × 80 m on 1 m cells falling 3 % to the east. A reservoir 1.7 m
/// deep at the dam (about 3 m at its deepest) fills the wide upper valley, held at x = 50 m by a dam
/// of twenty dynamic crates (2400 kg/m³) stacked two high across the 12 m neck between two
/// static piers. Below the dam
/// the valley is dry down to a village of static huts, carts, crates and barrels around
/// x = 100–125 m; the east edge is open. Delete or push the dam crates in preview and the flood
/// wave runs down into the village.
fn dam_knockdown(scratch: &Path) -> Result<Level> {
    let (nx, ny, dx) = (160, 80, 1.0f32);
    let floor = |x: f32| 5.0 - 0.03 * x;
    let centre = 40.0;
    let neck = |x: f32| smoothstep(42.0, 46.0, x) * (1.0 - smoothstep(54.0, 58.0, x));
    // Half-width of the valley floor: 22 m in the reservoir, 6 m at the dam, 9 m below it.
    let half_width = |x: f32| {
        if x < 50.0 {
            22.0 - 16.0 * smoothstep(38.0, 46.0, x)
        } else {
            6.0 + 3.0 * smoothstep(54.0, 64.0, x)
        }
    };
    // The reservoir bed lies up to 2 m below the valley's slope.
    let basin = |x: f32| 2.0 * (1.0 - smoothstep(30.0, 48.0, x));
    let terrain = Grid::from_fn(nx, ny, |i, j| {
        let (x, y) = ((i as f32 + 0.5) * dx, (j as f32 + 0.5) * dx);
        let (d, w) = ((y - centre).abs(), half_width(x));
        let ground = if d < w {
            -basin(x)
        } else {
            // Steep 2.6 m walls at the neck, so the water can pass only through the dam;
            // elsewhere banks rising 5 m over 8 m.
            let wall = 2.6 * neck(x);
            let bank = 5.0 * smoothstep(w - 0.5, w + 8.0, d);
            wall.max(bank) + 0.2 * (x / 6.0).sin() * (y / 4.0).cos()
        };
        floor(x) + ground
    });
    let dam_i = 50usize;
    let dam_x = (dam_i as f32 + 0.5) * dx;
    let surface = floor(dam_x) + 1.7;
    let water = Grid::from_fn(nx, ny, |i, j| {
        if i < dam_i {
            (surface - terrain.get(i, j)).max(0.0)
        } else {
            0.0
        }
    });
    let mut level = import(
        scratch,
        "dam_knockdown",
        &terrain,
        &water,
        dx,
        BoundaryArg::Wall,
    )?;
    level.params.friction = SAMPLE_FRICTION;
    level.name = "dam knockdown: delete or push the dam crates in preview".into();
    level.boundaries.push(Boundary {
        edge: Edge::East,
        start: 0,
        end: ny as u32,
        kind: BoundaryKind::Open,
    });
    let w = half_width(dam_x);
    for row in 0..2 {
        for k in 1..(2.0 * w) as usize - 1 {
            let y = centre - w + 0.5 + k as f32;
            level.bodies.push(body(
                format!("dam crate {}-{k}", row + 1),
                "crate",
                [dam_x, y, floor(dam_x) + 0.52 + row as f32 * 1.02],
                2400.0,
                true,
            ));
        }
    }
    for (side, y) in [("north", centre - w + 0.5), ("south", centre + w - 0.5)] {
        level
            .bodies
            .push(pier(format!("{side} pier"), dam_x, y, floor(dam_x), 2.4));
    }
    // The village: static bodies on the valley floor, each resting on the highest terrain
    // under its footprint.
    let village: [House; 11] = [
        ("hut 1", "crate", 104.0, 33.5, [4.0, 3.0, 2.5], 600.0, 0.0),
        ("hut 2", "crate", 112.0, 46.5, [3.0, 4.0, 2.5], 600.0, 0.0),
        ("hut 3", "crate", 121.0, 35.0, [4.0, 4.0, 3.0], 600.0, 0.0),
        ("cart 1", "cart", 108.0, 41.0, [1.0; 3], 1500.0, 0.3),
        ("cart 2", "cart", 117.0, 43.0, [1.0; 3], 1500.0, -0.2),
        ("crate 1", "crate", 99.5, 38.5, [1.0; 3], 600.0, 0.0),
        ("crate 2", "crate", 99.5, 39.5, [1.0; 3], 600.0, 0.0),
        ("crate 3", "crate", 115.5, 37.5, [1.0; 3], 600.0, 0.4),
        ("barrel 1", "barrel", 101.0, 37.0, [1.0; 3], 700.0, 0.0),
        ("barrel 2", "barrel", 110.5, 36.0, [1.0; 3], 700.0, 0.0),
        ("barrel 3", "barrel", 119.0, 47.0, [1.0; 3], 700.0, 0.0),
    ];
    for (name, file, x, y, scale, density, angle) in village {
        let mesh = asset(file)?;
        let (lo, hi) = mesh.bounds().ok_or("empty mesh")?;
        let reach = 0.5 * (hi[0] - lo[0]).max(hi[1] - lo[1]) * scale[0].max(scale[1]);
        let mut ground = f32::NEG_INFINITY;
        for dj in -3..=3 {
            for di in -3..=3 {
                let (px, py) = (x + reach * di as f32 / 3.0, y + reach * dj as f32 / 3.0);
                let (i, j) = ((px / dx) as usize, (py / dx) as usize);
                ground = ground.max(terrain.get(i.min(nx - 1), j.min(ny - 1)));
            }
        }
        let mut b = body(
            name.into(),
            file,
            [x, y, ground - lo[2] * scale[2] + 0.01],
            density,
            false,
        );
        b.scale = scale;
        b.rotation = [0.0, 0.0, (angle / 2.0f32).sin(), (angle / 2.0f32).cos()];
        // The village stands in the water's way, whatever its wood's density.
        b.coupling = Coupling::Blocker;
        level.bodies.push(b);
    }
    Ok(level)
}

/// A village building: name, asset, x, y, scale, density, heading (degrees).
type House = (&'static str, &'static str, f32, f32, [f32; 3], f32, f32);
