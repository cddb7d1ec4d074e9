//! The on-disk level format: RON plus a checksummed binary sidecar.
//!
//! A level `NAME.ron` is a pretty-printed RON document a designer can read and diff. It holds
//! the format version, the parameters, the objects and, for each grid, a reference into the
//! binary sidecar `NAME.<crc32>.grids` in the same folder:
//!
//! ```ron
//! (
//!     format_version: 3,
//!     name: "dam break valley",
//!     cell_size: 1.0,
//!     size: (nx: 512, ny: 512),
//!     params: (solver: Pipes, friction: Manning(n: 0.03), gravity: 9.81, dt: 0.02, /* ... */),
//!     sources: [], sinks: [], boundaries: [], bodies: [],
//!     terrain: (file: "level.5c3e9a01.grids", offset: 8, len: 1048576, crc32: 2712847316, encoding: F32Le),
//!     water: (file: "level.5c3e9a01.grids", offset: 1048584, len: 5311, crc32: 558161692, encoding: ShuffleLz4),
//!     flow: None,
//! )
//! ```
//!
//! The sidecar is the magic bytes `SPWGRID1` followed by the grids, each either raw
//! little-endian `f32` (`F32Le`) or, where that saves at least a tenth of its bytes, in chunks of
//! byte-shuffled LZ4 (`ShuffleLz4`: a `u32` length and the compressed bytes per 2^18 values;
//! [`GridStorage`] chooses). Files written before compression existed hold only `F32Le` grids and
//! load unchanged.
//! Its name carries a checksum of its content, so [`save`] never overwrites the sidecar that the
//! current level file references: it writes the new sidecar, then replaces the level file
//! atomically, then deletes the old sidecar. A crash at any point leaves a loadable level.

#[path = "atomic_file.rs"]
mod atomic;
#[path = "migrate.rs"]
mod migrate;
#[path = "sidecar.rs"]
mod sidecar;
#[path = "file_text.rs"]
mod text;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{
    Body, Boundary, FORMAT_VERSION, FlowState, Gate, Gauge, Level, Params, Sink, SolverKind,
    Source, Structure,
};
use super::{Limits, ValidationError};
use crate::error::LevelError;
use crate::grid::Grid;
use atomic::TempFile;
use sidecar::{GridRef, GridRequest, Sidecars};
pub use text::open_plain;
use text::{read_text, ron_error, text_of, too_long};

/// Largest level file (the RON text, not the sidecar) that [`load`] reads.
const MAX_RON_BYTES: u64 = 256 << 20;

/// Reads just the version, whatever else the file holds.
#[derive(Deserialize)]
struct VersionProbe {
    format_version: u32,
}

/// The RON document of format version 3 (the current one). Older versions are parsed by their
/// own structs in `migrate.rs` and converted to this one.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LevelFile {
    format_version: u32,
    name: String,
    cell_size: f32,
    size: Size,
    #[serde(default)]
    params: Params,
    #[serde(default)]
    sources: Vec<Source>,
    #[serde(default)]
    sinks: Vec<Sink>,
    #[serde(default)]
    boundaries: Vec<Boundary>,
    #[serde(default)]
    bodies: Vec<Body>,
    #[serde(default)]
    gates: Vec<Gate>,
    /// Stage gauges and discharge lines (optional in every version: older files have none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    gauges: Vec<Gauge>,
    /// Culverts, weirs and sluice gates (optional in every version).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    structures: Vec<Structure>,
    terrain: GridRef,
    water: GridRef,
    #[serde(default)]
    flow: Option<FlowFile>,
    /// Since version 3: Manning's `n` per cell.
    #[serde(default)]
    roughness: Option<GridRef>,
}

/// Grid size in cells.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Size {
    nx: u64,
    ny: u64,
}

/// Saved solver state: small values inline, face arrays in the sidecar.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FlowFile {
    solver: SolverKind,
    time: f64,
    ghost: Vec<f32>,
    flow_x: GridRef,
    flow_y: GridRef,
    /// Since version 2: the compensated-summation remainder per cell.
    #[serde(default)]
    carry: Option<GridRef>,
    /// Since version 2: the solver's second face field (see `FlowState::aux_x`).
    #[serde(default)]
    aux_x: Option<GridRef>,
    /// Since version 2: see `FlowState::aux_y`.
    #[serde(default)]
    aux_y: Option<GridRef>,
    /// Since version 2: the last step's largest face speed.
    #[serde(default)]
    max_speed: Option<f32>,
    /// With a moving bed: the lowest the ground may erode to (see `FlowState::bed_floor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bed_floor: Option<GridRef>,
}

/// Loads the level at `path` (a `.ron` file with its sidecar beside it), checking it against
/// [`Limits::default`].
pub fn load(path: &Path) -> Result<Level, LevelError> {
    load_with_limits(path, &Limits::default())
}

/// Loads the level at `path`, refusing anything larger than `limits`. The declared size is
/// checked before any grid memory is allocated, every grid's checksum is verified, and the
/// result is [validated](Level::validate).
pub fn load_with_limits(path: &Path, limits: &Limits) -> Result<Level, LevelError> {
    let text = read_text(path)?;
    let file = parse(path, &text)?;
    into_level(path, file, &Sidecars::Folder(&folder_of(path)), limits)
}

/// A level held in memory instead of in a folder: a game's asset pack, an archive, bytes
/// built into the program, a platform without files. The bytes are those the editor saved:
/// `NAME.ron` and the sidecar(s) `NAME.<crc32>.grids` its grids name.
#[derive(Clone, Copy, Debug)]
pub struct LevelBytes<'a> {
    /// What messages call the level file (its path in the pack, say `levels/valley.ron`).
    pub name: &'a Path,
    /// The level file's bytes (RON text).
    pub ron: &'a [u8],
    /// Its sidecars: each one's file name as the level file gives it, and its bytes.
    pub sidecars: &'a [(&'a str, &'a [u8])],
}

/// Loads a level from bytes in memory, exactly as [`load_with_limits`] loads it from a folder:
/// the same size limits, checksums, migrations and validation, and errors that name
/// `bytes.name`, the place and the reason (a sidecar the level file names but `bytes` lacks is
/// named as missing). Nothing is read from the file system. The bodies' glTF files come from
/// the pack likewise: `body::world::import_meshes_from_bytes` (features `bodies`, `rapier`).
///
/// ```no_run
/// use spillway::level::{Limits, file::{self, LevelBytes}};
/// // Say a game's pack holds the editor's two files:
/// let ron = std::fs::read("valley/level.ron")?;
/// let grids = std::fs::read("valley/level.5c3e9a01.grids")?;
/// let level = file::load_bytes(
///     &LevelBytes {
///         name: "valley/level.ron".as_ref(),
///         ron: &ron,
///         sidecars: &[("level.5c3e9a01.grids", &grids)],
///     },
///     &Limits::default(),
/// )?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_bytes(bytes: &LevelBytes<'_>, limits: &Limits) -> Result<Level, LevelError> {
    let path = bytes.name;
    if bytes.ron.len() as u64 > MAX_RON_BYTES {
        return Err(too_long(path, bytes.ron.len() as u64));
    }
    let text = text_of(path, bytes.ron.to_vec())?;
    let file = parse(path, &text)?;
    into_level(path, file, &Sidecars::Given(bytes.sidecars), limits)
}

/// Saves `level` to `path` (`NAME.ron`) and a sidecar `NAME.<crc32>.grids` beside it,
/// atomically: both are written to temporary files and synced, the sidecar is renamed into
/// place first and the level file last, then the level's older sidecars are removed. The level
/// is validated first without size limits ([`Limits::unlimited`]), so a value no level can mean
/// is never written; a level past [`Limits::default`] (more than 8192² cells, objects covering
/// the map more than 16 times) is written, and then loads only with [`load_with_limits`]
/// (check it first with [`Level::validate`]).
pub fn save(level: &Level, path: &Path) -> Result<(), LevelError> {
    save_with_progress(level, path, &mut |_| true)
}

/// [`save`], telling `progress` the share of the work done (0 to 1): the first half after
/// each grid is compressed, the second after each grid is written (every 256 KiB within a raw
/// grid). When `progress` returns `false` the save stops with an [`io::ErrorKind::Interrupted`]
/// error ("cancelled"): the temporary files are removed and the files on disk stay as they were.
pub fn save_with_progress(
    level: &Level,
    path: &Path,
    progress: &mut dyn FnMut(f32) -> bool,
) -> Result<(), LevelError> {
    save_with(level, path, GridStorage::Compressed, progress)
}

/// How a save stores the grids in the sidecar.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GridStorage {
    /// Each grid byte-shuffled and LZ4-compressed where that saves at least a tenth of its
    /// bytes (`encoding: ShuffleLz4`), else raw; what [`save`] does.
    #[default]
    Compressed,
    /// Every grid raw little-endian `f32` (`encoding: F32Le`): for tools that read or patch the
    /// sidecar's bytes themselves.
    Raw,
}

/// [`save_with_progress`] with the grids stored as `storage` says. Files of either storage
/// load the same; files written before compression existed (all raw) load unchanged.
pub fn save_with(
    level: &Level,
    path: &Path,
    storage: GridStorage,
    progress: &mut dyn FnMut(f32) -> bool,
) -> Result<(), LevelError> {
    level
        .validate(&Limits::unlimited())
        .map_err(|e| invalid(path, e))?;
    let dir = folder_of(path);
    let Some(file_name) = path.file_name().and_then(|s| s.to_str()) else {
        return Err(invalid(
            path,
            ValidationError::new("(file name)", "must be valid UTF-8 text"),
        ));
    };
    // `level.ron` gets sidecars `level.<crc>.grids`; any other name keeps its extension, so
    // `level.ron` and `level.bak` in one folder never remove each other's sidecars.
    // A `:` or `\` in the level's name (Linux and macOS allow them) would make a sidecar name
    // the loader refuses as a path: they are escaped in the sidecar's name, reversibly (`%3A`,
    // `%5C`, and `%` as `%25`), so two levels' sidecars never share a name.
    let stem = file_name
        .strip_suffix(".ron")
        .filter(|s| !s.is_empty())
        .unwrap_or(file_name)
        .replace('%', "%25")
        .replace(':', "%3A")
        .replace('\\', "%5C");
    let stem = stem.as_str();

    let mut grids: Vec<&[f32]> = vec![&level.terrain.data, &level.water.data];
    if let Some(r) = &level.roughness {
        grids.push(&r.data);
    }
    if let Some(flow) = &level.flow {
        grids.extend([flow.flow_x.as_slice(), flow.flow_y.as_slice()]);
        for extra in [&flow.carry, &flow.aux_x, &flow.aux_y, &flow.bed_floor] {
            if !extra.is_empty() {
                grids.push(extra);
            }
        }
    }
    let compress = storage == GridStorage::Compressed;
    let written = sidecar::write_sidecar(&dir, stem, &grids, compress, progress)?;
    let sidecar::WrittenSidecar {
        file_name: sidecar_name,
        refs,
        fresh,
    } = written;
    // The level file put in place, or the sidecar this save made removed again: a failed
    // save leaves the folder as it was.
    let placed = (|| -> Result<(), LevelError> {
        let mut refs = refs.into_iter();
        let mut next_ref = || {
            refs.next().ok_or_else(|| LevelError::Io {
                path: path.to_path_buf(),
                action: "write the grid sidecar",
                source: io::Error::other("sidecar returned fewer grids than written"),
            })
        };

        let file = LevelFile {
            format_version: FORMAT_VERSION,
            name: level.name.clone(),
            cell_size: level.cell_size,
            size: Size {
                nx: level.nx() as u64,
                ny: level.ny() as u64,
            },
            params: level.params.clone(),
            sources: level.sources.clone(),
            sinks: level.sinks.clone(),
            boundaries: level.boundaries.clone(),
            bodies: level.bodies.clone(),
            gates: level.gates.clone(),
            gauges: level.gauges.clone(),
            structures: level.structures.clone(),
            terrain: next_ref()?,
            water: next_ref()?,
            roughness: match &level.roughness {
                Some(_) => Some(next_ref()?),
                None => None,
            },
            flow: match &level.flow {
                None => None,
                Some(flow) => {
                    let flow_x = next_ref()?;
                    let flow_y = next_ref()?;
                    let mut optional = |v: &Vec<f32>| match v.is_empty() {
                        true => Ok(None),
                        false => next_ref().map(Some),
                    };
                    Some(FlowFile {
                        solver: flow.solver,
                        time: flow.time,
                        ghost: flow.ghost.clone(),
                        flow_x,
                        flow_y,
                        carry: optional(&flow.carry)?,
                        aux_x: optional(&flow.aux_x)?,
                        aux_y: optional(&flow.aux_y)?,
                        max_speed: flow.max_speed,
                        bed_floor: optional(&flow.bed_floor)?,
                    })
                }
            },
        };
        let text = to_ron(&file).map_err(|e| LevelError::Io {
            path: path.to_path_buf(),
            action: "write the level as RON",
            source: io::Error::other(e),
        })?;

        let io_err = |p: &Path, action, source| LevelError::Io {
            path: p.to_path_buf(),
            action,
            source,
        };
        let mut temp = TempFile::create(&dir, file_name)
            .map_err(|e| io_err(&dir, "create a temporary file", e))?;
        temp.file()
            .and_then(|f| {
                f.write_all(text.as_bytes())?;
                f.sync_all()
            })
            .map_err(|e| io_err(path, "write the level file", e))?;
        temp.persist(path)
            .map_err(|e| io_err(path, "rename the level file into place", e))?;
        Ok(())
    })();
    if let Err(e) = placed {
        if fresh {
            let _ = std::fs::remove_file(dir.join(&sidecar_name));
        }
        return Err(e);
    }
    atomic::sync_dir(&dir);
    sidecar::remove_stale_sidecars(&dir, stem, &sidecar_name);
    // A save killed half-way (Ctrl-C, a CI timeout) left its temporary copies, grids and all.
    let grids = format!("{stem}.{}", sidecar::EXTENSION);
    atomic::remove_abandoned(&dir, &[file_name, &grids]);
    Ok(())
}

/// The pretty RON text of a level file.
fn to_ron(file: &LevelFile) -> Result<String, ron::Error> {
    let pretty = ron::ser::PrettyConfig::new()
        .new_line("\n")
        .indentor("    ")
        .compact_arrays(true);
    let mut text = ron::ser::to_string_pretty(file, pretty)?;
    text.push('\n');
    Ok(text)
}

/// The folder holding `path` (`.` for a bare file name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn invalid(path: &Path, e: ValidationError) -> LevelError {
    LevelError::Invalid {
        path: path.to_path_buf(),
        field: e.field,
        reason: e.reason,
    }
}

/// Parses the RON text of any supported version into the current [`LevelFile`].
fn parse(path: &Path, text: &str) -> Result<LevelFile, LevelError> {
    let probe: VersionProbe = ron::from_str(text).map_err(|e| ron_error(path, text, e))?;
    match probe.format_version {
        FORMAT_VERSION => ron::from_str(text).map_err(|e| ron_error(path, text, e)),
        2 => ron::from_str::<migrate::LevelFileV2>(text)
            .map(migrate::v2_to_v3)
            .map_err(|e| ron_error(path, text, e)),
        // Each older version parses with its own struct and migrates step by step. When the
        // format changes again, move `LevelFile` to `migrate.rs` as `LevelFileV2`, add an arm
        // here, and bump FORMAT_VERSION.
        1 => ron::from_str::<migrate::LevelFileV1>(text)
            .map(migrate::v1_to_v2)
            .map(migrate::v2_to_v3)
            .map_err(|e| ron_error(path, text, e)),
        found if found > FORMAT_VERSION => Err(LevelError::UnsupportedVersion {
            path: path.to_path_buf(),
            found,
            supported: FORMAT_VERSION,
        }),
        found => Err(invalid(
            path,
            ValidationError::new(
                "format_version",
                format!("{found} is not a format version (the first is 1)"),
            ),
        )),
    }
}

/// Checks the declared sizes against `limits`, reads the grids and validates the level.
fn into_level(
    path: &Path,
    file: LevelFile,
    store: &Sidecars<'_>,
    limits: &Limits,
) -> Result<Level, LevelError> {
    let side = |field: &str, n: u64| {
        usize::try_from(n).map_err(|_| {
            invalid(
                path,
                ValidationError::new(field, format!("{n} is too large")),
            )
        })
    };
    let (nx, ny) = (
        side("size.nx", file.size.nx)?,
        side("size.ny", file.size.ny)?,
    );
    limits
        .check_size(nx, ny)
        .and_then(|()| {
            limits.check_counts(
                file.sources.len(),
                file.sinks.len(),
                file.boundaries.len(),
                file.bodies.len(),
            )
        })
        .and_then(|()| limits.check_gates(file.gates.len()))
        .map_err(|e| invalid(path, e))?;
    let too_big = || invalid(path, ValidationError::new("size", "grid size overflows"));
    let cells = nx.checked_mul(ny).ok_or_else(too_big)?;
    let faces_x = (nx + 1).checked_mul(ny).ok_or_else(too_big)?;
    let faces_y = nx.checked_mul(ny + 1).ok_or_else(too_big)?;

    let mut requests = vec![
        GridRequest {
            name: "terrain",
            grid: &file.terrain,
            cells,
        },
        GridRequest {
            name: "water",
            grid: &file.water,
            cells,
        },
    ];
    if let Some(grid) = &file.roughness {
        requests.push(GridRequest {
            name: "roughness",
            grid,
            cells,
        });
    }
    if let Some(flow) = &file.flow {
        requests.push(GridRequest {
            name: "flow.flow_x",
            grid: &flow.flow_x,
            cells: faces_x,
        });
        requests.push(GridRequest {
            name: "flow.flow_y",
            grid: &flow.flow_y,
            cells: faces_y,
        });
        let extras = [
            ("flow.carry", &flow.carry, cells),
            ("flow.aux_x", &flow.aux_x, faces_x),
            ("flow.aux_y", &flow.aux_y, faces_y),
            ("flow.bed_floor", &flow.bed_floor, cells),
        ];
        for (name, grid, cells) in extras {
            if let Some(grid) = grid {
                requests.push(GridRequest { name, grid, cells });
            }
        }
    }
    let mut grids = sidecar::read_grids(path, store, &requests)?.into_iter();
    let mut next = || grids.next().unwrap_or_default();

    let level = Level {
        name: file.name,
        cell_size: file.cell_size,
        terrain: Grid {
            nx,
            ny,
            data: next(),
        },
        water: Grid {
            nx,
            ny,
            data: next(),
        },
        roughness: file.roughness.map(|_| Grid {
            nx,
            ny,
            data: next(),
        }),
        flow: file.flow.map(|flow| FlowState {
            solver: flow.solver,
            flow_x: next(),
            flow_y: next(),
            ghost: flow.ghost,
            time: flow.time,
            carry: flow.carry.map(|_| next()).unwrap_or_default(),
            aux_x: flow.aux_x.map(|_| next()).unwrap_or_default(),
            aux_y: flow.aux_y.map(|_| next()).unwrap_or_default(),
            max_speed: flow.max_speed,
            bed_floor: flow.bed_floor.map(|_| next()).unwrap_or_default(),
        }),
        sources: file.sources,
        sinks: file.sinks,
        boundaries: file.boundaries,
        params: file.params,
        bodies: file.bodies,
        gates: file.gates,
        gauges: file.gauges,
        structures: file.structures,
    };
    level.validate(limits).map_err(|e| invalid(path, e))?;
    Ok(level)
}
