//! `spillway import`: a new level from a terrain heightmap (`.npy`, grayscale PNG or RAW r16)
//! and an optional water-depth array (`.npy` of the same shape).

use std::path::{Path, PathBuf};

use clap::Args;
use spillway::level::{Limits, file};
use spillway::{Grid, Level};

use super::options::{
    BoundaryArg, SolverOverrides, number, parse_cell_size, parse_positive, parse_raw_size,
};
use super::{CliError, CliResult, create_parent, note, say};
use crate::heightmap::{self, HeightmapKind, npy, png};
use crate::project::heightmap_io::{
    self, HeightRange, HeightmapFormat, ImportSettings, guess_raw_size,
};

/// Arguments of `spillway import`.
#[derive(Clone, Debug, Args)]
pub struct ImportArgs {
    /// Terrain heightmap: a 2-D float32/float64 .npy array (rows = y, metres), an 8/16-bit
    /// grayscale PNG, or RAW r16 (.r16 or .raw: little-endian 16-bit samples, rows = y).
    #[arg(long, value_name = "FILE")]
    pub terrain: PathBuf,
    /// Samples a row and rows of a RAW heightmap, e.g. 1025x1025 (default: the square its
    /// length fits).
    #[arg(long, value_name = "WxH", value_parser = parse_raw_size)]
    pub raw_size: Option<(usize, usize)>,
    /// Height in metres of black in a PNG and of sample 0 in a RAW file, added to a .npy's
    /// values (default 0; a PNG the editor exported notes its own range, taken when neither
    /// this nor --height-scale is given).
    #[arg(long, value_name = "M", value_parser = number, allow_negative_numbers = true)]
    pub height_min: Option<f32>,
    /// Initial water depth in metres: a .npy array of the terrain's shape.
    #[arg(long, value_name = "FILE")]
    pub water: Option<PathBuf>,
    /// Edge length of one cell in metres.
    #[arg(long, value_name = "M", default_value_t = 1.0, value_parser = parse_cell_size)]
    pub cell_size: f32,
    /// Height multiplier: metres from black to full white for a PNG and from sample 0 to
    /// 65535 for a RAW file (default 100), a factor on the values of a .npy (default 1).
    #[arg(long, value_name = "S", value_parser = parse_positive)]
    pub height_scale: Option<f32>,
    /// Condition on map edges that no boundary segment covers.
    #[arg(long, value_enum, default_value = "wall")]
    pub boundary: BoundaryArg,
    /// Solver parameters.
    #[command(flatten)]
    pub solver: SolverOverrides,
    /// Level name (default: the output's folder name for `level.ron`, else its file stem).
    #[arg(long)]
    pub name: Option<String>,
    /// The level file to write (.ron; its grid sidecar goes beside it).
    #[arg(short = 'o', long = "output", value_name = "LEVEL.ron")]
    pub output: PathBuf,
}

/// Reads the heightmaps and builds the level (without writing it).
pub fn build(args: &ImportArgs) -> Result<Level, CliError> {
    let fail = |e: heightmap::HeightmapError| CliError::failure(e.to_string());
    let terrain_path = &args.terrain;
    let raw = HeightmapFormat::from_path(terrain_path) == Some(HeightmapFormat::RawR16);
    if args.raw_size.is_some() && !raw {
        return Err(CliError::invalid(format!(
            "{}: --raw-size is for RAW heightmaps (.r16 or .raw)",
            terrain_path.display()
        )));
    }
    // Heights of the lowest and highest sample, for the formats with no height unit.
    let range = |kind: &str, white: &str| {
        let span = args.height_scale.unwrap_or_else(|| {
            note(&format!(
                "note: {}: {kind} has no height unit; {white} = {} m above --height-min (the \
                 default --height-scale)",
                terrain_path.display(),
                png::DEFAULT_HEIGHT_SCALE
            ));
            png::DEFAULT_HEIGHT_SCALE
        });
        let min = args.height_min.unwrap_or(0.0);
        HeightRange {
            min,
            max: min + span,
        }
    };
    let io = |e: heightmap_io::HeightmapIoError| CliError::failure(e.to_string());
    let terrain = if raw {
        // Its size guessed from its length: a missing file or a folder is said so (its size
        // was asked for instead, as a usage error, and only then was the file found missing).
        if args.raw_size.is_none() {
            spillway::level::file::open_plain(terrain_path).map_err(|e| {
                CliError::failure(format!(
                    "{}: cannot read the heightmap: {e}",
                    terrain_path.display()
                ))
            })?;
        }
        let (w, h) = args
            .raw_size
            .or_else(|| guess_raw_size(terrain_path))
            .ok_or_else(|| {
                CliError::invalid(format!(
                    "{}: a RAW heightmap does not say its size, and its length is not a square \
                     of 16-bit samples: give --raw-size WIDTHxHEIGHT",
                    terrain_path.display()
                ))
            })?;
        // The size is checked before the file is read.
        check_size(terrain_path, w, h)?;
        let settings = ImportSettings {
            format: HeightmapFormat::RawR16,
            range: range("a RAW file", "sample 65535"),
            raw_size: (w, h),
        };
        heightmap_io::import(terrain_path, &settings).map_err(io)?
    } else {
        match heightmap::sniff(terrain_path).map_err(fail)? {
            HeightmapKind::Npy => {
                let (scale, min) = (args.height_scale, args.height_min);
                if scale.is_none() && min.is_none() {
                    npy::read(terrain_path).map_err(fail)?.grid
                } else {
                    // Scaled before the heights are checked (a DEM in millimetres); a height
                    // past a level's is the options' doing (`run` says so).
                    let mut grid = npy::read_unscaled(terrain_path).map_err(fail)?.grid;
                    let (scale, min) = (scale.unwrap_or(1.0), min.unwrap_or(0.0));
                    grid.data.iter_mut().for_each(|v| *v = min + *v * scale);
                    grid
                }
            }
            HeightmapKind::Png => {
                // The range the editor's export noted in the file, unless the flags give one.
                let noted = (args.height_min.is_none() && args.height_scale.is_none())
                    .then(|| png::range_note(terrain_path))
                    .flatten();
                let range = match noted {
                    Some((min, max)) => {
                        note(&format!(
                            "note: {}: the PNG notes its height range, {min} m (black) to {max} m (full white)",
                            terrain_path.display()
                        ));
                        HeightRange { min, max }
                    }
                    None => range("a PNG", "full white"),
                };
                let settings = ImportSettings {
                    format: HeightmapFormat::Png16,
                    range,
                    raw_size: (0, 0),
                };
                heightmap_io::import(terrain_path, &settings).map_err(io)?
            }
        }
    };
    check_size(terrain_path, terrain.nx, terrain.ny)?;
    if let Some(i) = terrain.data.iter().position(|v| !v.is_finite()) {
        return Err(CliError::failure(format!(
            "{}: height at row {}, column {} is not finite after scaling",
            terrain_path.display(),
            i / terrain.nx,
            i % terrain.nx
        )));
    }

    let water = match &args.water {
        None => Grid::filled(terrain.nx, terrain.ny, 0.0),
        Some(path) => read_water(path, &terrain)?,
    };

    let mut level = Level::flat(terrain.nx, terrain.ny, args.cell_size, 0.0);
    level.name = args
        .name
        .clone()
        .unwrap_or_else(|| default_name(&args.output));
    level.terrain = terrain;
    level.water = water;
    level.params.default_boundary = args.boundary.into();
    args.solver.apply(&mut level.params);
    Ok(level)
}

/// Refuses a terrain of `nx` × `ny` cells that no level may have, naming the file.
fn check_size(path: &Path, nx: usize, ny: usize) -> CliResult {
    Limits::default().check_size(nx, ny).map_err(|e| {
        CliError::failure(format!(
            "{}: the terrain is {nx} × {ny} cells: {e}",
            path.display()
        ))
    })
}

/// Reads a water-depth array and checks it against the terrain's shape and for negative depths.
fn read_water(path: &Path, terrain: &Grid) -> Result<Grid, CliError> {
    let fail = |e: heightmap::HeightmapError| CliError::failure(e.to_string());
    if heightmap::sniff(path).map_err(fail)? != HeightmapKind::Npy {
        return Err(CliError::failure(format!(
            "{}: water depths must be a .npy array (metres)",
            path.display()
        )));
    }
    let water = npy::read(path).map_err(fail)?.grid;
    if (water.nx, water.ny) != (terrain.nx, terrain.ny) {
        return Err(CliError::failure(format!(
            "{}: shape ({}, {}) does not match the terrain's ({}, {})",
            path.display(),
            water.ny,
            water.nx,
            terrain.ny,
            terrain.nx
        )));
    }
    if let Some(i) = water.data.iter().position(|&d| d < 0.0) {
        return Err(CliError::failure(format!(
            "{}: depth {} at row {}, column {} is negative",
            path.display(),
            water.data[i],
            i / water.nx,
            i % water.nx
        )));
    }
    Ok(water)
}

/// The name of a level written to `output`: its folder's name for `…/NAME/level.ron`, else the
/// file stem.
fn default_name(output: &Path) -> String {
    // Absolute first: `-o level.ron` run inside `rivers/` names the level "rivers" too.
    let output = std::path::absolute(output).unwrap_or_else(|_| output.to_path_buf());
    let stem = output.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let folder = output
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|s| s.to_str());
    match (stem, folder) {
        ("level", Some(f)) if !f.is_empty() => f.replace('_', " "),
        ("", _) => "untitled".into(),
        (s, _) => s.replace('_', " "),
    }
}

/// Runs `spillway import`.
pub fn run(args: &ImportArgs) -> CliResult {
    let level = build(args)?;
    // Checked before the save, which would blame the file it writes: the heights come from
    // the heightmap and the options.
    if let Err(e) = level.validate(&spillway::level::Limits::unlimited()) {
        return Err(CliError::invalid(format!(
            "{}{}: the level it makes is not valid: `{}`: {} (check --height-scale and \
             --height-min)",
            args.terrain.display(),
            args.water
                .as_deref()
                .map_or(String::new(), |w| format!(" with {}", w.display())),
            e.field,
            e.reason
        )));
    }
    create_parent(&args.output)?;
    file::save(&level, &args.output).map_err(|e| CliError::failure(e.to_string()))?;
    let (lo, hi) = level
        .terrain
        .data
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    say(&format!(
        "wrote {}: \"{}\", {}×{} cells of {} m, terrain {lo:.3}..{hi:.3} m, water {:.3} m³",
        args.output.display(),
        level.name,
        level.nx(),
        level.ny(),
        level.cell_size,
        level.water_volume()
    ))
}
