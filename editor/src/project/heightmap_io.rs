//! Heightmap import and export: 16- and 8-bit grayscale PNG and RAW r16 with an explicit
//! height range (black or 0 is `min`, white or 65535 is `max`), and f32 NumPy `.npy` arrays in
//! metres. Reading PNG and `.npy` uses [`crate::heightmap`]; writing is here.

use std::path::{Path, PathBuf};

use image::ExtendedColorType;
use image::ImageEncoder;
use image::codecs::png::PngEncoder;
use spillway::Grid;
use thiserror::Error;

use crate::heightmap::{self, HeightmapError};

/// Why a heightmap file could not be imported or exported; the message names the file.
#[derive(Debug, Error)]
pub enum HeightmapIoError {
    /// A PNG or `.npy` file could not be read (the reader's error names the file).
    #[error(transparent)]
    Read(#[from] HeightmapError),
    /// The height range given for the file maps no heights.
    #[error("{}: {source}", path.display())]
    Range {
        /// The file.
        path: PathBuf,
        /// What is wrong with the range.
        source: EmptyRange,
    },
    /// The RAW size given is outside the accepted sides.
    #[error(
        "{}: a RAW size of {width} × {height} is outside 2 to {MAX_RAW_SIDE} samples a side",
        path.display()
    )]
    RawSize {
        /// The file.
        path: PathBuf,
        /// Samples a row.
        width: usize,
        /// Rows.
        height: usize,
    },
    /// A RAW size holds more cells than a level may.
    #[error(
        "{}: a RAW size of {width} × {height} is more than the {limit} cells a level may hold",
        path.display()
    )]
    RawCells {
        /// The file.
        path: PathBuf,
        /// Samples a row.
        width: usize,
        /// Rows.
        height: usize,
        /// The most cells a level holds.
        limit: usize,
    },
    /// A RAW file's length does not match the size given.
    #[error(
        "{}: the file has {len} bytes but {width} × {height} 16-bit samples need {needed}",
        path.display()
    )]
    RawLength {
        /// The file.
        path: PathBuf,
        /// The file's length, bytes.
        len: usize,
        /// Samples a row.
        width: usize,
        /// Rows.
        height: usize,
        /// Bytes the size needs.
        needed: usize,
    },
    /// The grid could not be encoded for the file.
    #[error("{}: {source}", path.display())]
    Encode {
        /// The file.
        path: PathBuf,
        /// Why encoding failed.
        source: EncodeError,
    },
    /// The operating system refused to read or write the file.
    #[error("{}: cannot {action}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done: "read" or "write".
        action: &'static str,
        /// The operating system's error.
        source: std::io::Error,
    },
}

/// Why a grid cannot be turned into the bytes of a heightmap format.
#[derive(Debug, Error)]
pub enum EncodeError {
    /// The height range maps no heights.
    #[error(transparent)]
    Range(#[from] EmptyRange),
    /// The PNG encoder failed.
    #[error("cannot encode the PNG: {0}")]
    Png(#[source] image::ImageError),
}

/// A height range that maps no heights: empty, upside down, not finite, or reaching past the
/// heights a level may hold (±`spillway::level::ranges::MAX_HEIGHT`).
#[derive(Clone, Copy, Debug, Error, PartialEq)]
#[error(
    "the height range {} m to {} m is empty or out of bounds: the top must be above the \
     bottom, both within ±1000000 m (the heights a level may hold)",
    .0.min,
    .0.max
)]
pub struct EmptyRange(pub HeightRange);

/// A heightmap file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeightmapFormat {
    /// 16-bit grayscale PNG over a height range.
    Png16,
    /// 8-bit grayscale PNG over a height range.
    Png8,
    /// Headerless little-endian unsigned 16-bit samples, row by row, over a height range.
    RawR16,
    /// NumPy array of 32-bit floats, metres.
    Npy,
}

impl HeightmapFormat {
    /// Every format, in menu order.
    pub const ALL: [HeightmapFormat; 4] = [
        HeightmapFormat::Png16,
        HeightmapFormat::Png8,
        HeightmapFormat::RawR16,
        HeightmapFormat::Npy,
    ];

    /// The name shown to users.
    pub fn name(self) -> &'static str {
        match self {
            HeightmapFormat::Png16 => "PNG, 16-bit grayscale",
            HeightmapFormat::Png8 => "PNG, 8-bit grayscale",
            HeightmapFormat::RawR16 => "RAW r16 (little-endian)",
            HeightmapFormat::Npy => "NumPy .npy (float32 metres)",
        }
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            HeightmapFormat::Png16 | HeightmapFormat::Png8 => "png",
            HeightmapFormat::RawR16 => "r16",
            HeightmapFormat::Npy => "npy",
        }
    }

    /// Whether the format stores values over a height range (all but `.npy`).
    pub fn needs_range(self) -> bool {
        self != HeightmapFormat::Npy
    }

    /// The format a file's extension suggests (`.png` is read at its own bit depth).
    pub fn from_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "png" => Some(HeightmapFormat::Png16),
            "r16" | "raw" => Some(HeightmapFormat::RawR16),
            "npy" => Some(HeightmapFormat::Npy),
            _ => None,
        }
    }

    /// Height difference one step of the format stands for over `range` (0 for floats).
    pub fn precision(self, range: HeightRange) -> f32 {
        let span = range.max - range.min;
        match self {
            HeightmapFormat::Png16 | HeightmapFormat::RawR16 => span / 65535.0,
            HeightmapFormat::Png8 => span / 255.0,
            HeightmapFormat::Npy => 0.0,
        }
    }
}

/// The heights the lowest and highest sample values stand for, metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeightRange {
    /// Height of sample 0 (black).
    pub min: f32,
    /// Height of the largest sample (white).
    pub max: f32,
}

impl HeightRange {
    /// The range spanned by `grid`'s values (widened to at least 1 m so it is never empty).
    pub fn of(grid: &Grid) -> Self {
        let (lo, hi) = grid
            .data
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        if !lo.is_finite() || !hi.is_finite() {
            return Self { min: 0.0, max: 1.0 };
        }
        Self {
            min: lo,
            max: hi.max(lo + 1.0),
        }
    }

    /// Whether a file can hold it and a level its heights: both ends within the heights a
    /// level may hold, the highest above the lowest (a range past them made terrain that
    /// Save refused, or NaN where the span overflowed).
    pub fn check(self) -> Result<(), EmptyRange> {
        let heights = spillway::level::ranges::HEIGHTS;
        if !(heights.contains(&self.min) && heights.contains(&self.max) && self.max > self.min) {
            return Err(EmptyRange(self));
        }
        Ok(())
    }
}

/// How to read a heightmap file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImportSettings {
    /// The file's format (`Png16` reads 8-bit PNGs too).
    pub format: HeightmapFormat,
    /// Heights of the lowest and highest sample values (ignored for `.npy`).
    pub range: HeightRange,
    /// Width and height in samples (RAW only: the file does not say).
    pub raw_size: (usize, usize),
}

/// Largest side of a RAW heightmap, samples (the level format's own limit).
const MAX_RAW_SIDE: usize = 16384;

/// Reads the heightmap at `path` as heights in metres. The error names the file and the problem.
pub fn import(path: &Path, settings: &ImportSettings) -> Result<Grid, HeightmapIoError> {
    let range = settings.range;
    let check_range = || {
        range.check().map_err(|source| HeightmapIoError::Range {
            path: path.to_path_buf(),
            source,
        })
    };
    match settings.format {
        HeightmapFormat::Png16 | HeightmapFormat::Png8 => {
            check_range()?;
            let map = heightmap::png::read(path, range.max - range.min)?;
            let mut grid = map.grid;
            grid.data.iter_mut().for_each(|v| *v += range.min);
            Ok(grid)
        }
        HeightmapFormat::RawR16 => {
            check_range()?;
            let (w, h) = settings.raw_size;
            if w < 2 || h < 2 || w > MAX_RAW_SIDE || h > MAX_RAW_SIDE {
                return Err(HeightmapIoError::RawSize {
                    path: path.to_path_buf(),
                    width: w,
                    height: h,
                });
            }
            // More cells than a level holds: refused before the file is read (a 16384² RAW
            // was read, turned into a 1 GiB grid and a resized level, then refused).
            let max_cells = spillway::level::Limits::default().max_cells;
            if w * h > max_cells {
                return Err(HeightmapIoError::RawCells {
                    path: path.to_path_buf(),
                    width: w,
                    height: h,
                    limit: max_cells,
                });
            }
            let io = |source| HeightmapIoError::Io {
                path: path.to_path_buf(),
                action: "read",
                source,
            };
            let wrong_length = |len: usize| HeightmapIoError::RawLength {
                path: path.to_path_buf(),
                len,
                width: w,
                height: h,
                needed: w * h * 2,
            };
            // The length is checked before reading, so a huge file is refused unread.
            let len = std::fs::metadata(path).map_err(io)?.len();
            if len != (w * h * 2) as u64 {
                return Err(wrong_length(usize::try_from(len).unwrap_or(usize::MAX)));
            }
            let bytes = std::fs::read(path).map_err(io)?;
            if bytes.len() != w * h * 2 {
                return Err(wrong_length(bytes.len()));
            }
            let scale = (range.max - range.min) as f64 / 65535.0;
            let data = bytes
                .chunks_exact(2)
                .map(|c| {
                    (range.min as f64 + u16::from_le_bytes([c[0], c[1]]) as f64 * scale) as f32
                })
                .collect();
            Ok(Grid { nx: w, ny: h, data })
        }
        HeightmapFormat::Npy => Ok(heightmap::npy::read(path)?.grid),
    }
}

/// A square RAW size that fits `path`'s length (`None` when the length is not twice a square).
pub fn guess_raw_size(path: &Path) -> Option<(usize, usize)> {
    let len = std::fs::metadata(path).ok()?.len();
    if len % 2 != 0 {
        return None;
    }
    let samples = len / 2;
    let side = (samples as f64).sqrt().round() as u64;
    (side >= 2 && side * side == samples).then_some((side as usize, side as usize))
}

/// Writes `grid` to `path` in `format`, mapping `range` to the full sample range (values
/// outside it are clamped). The file is replaced atomically.
pub fn export(
    path: &Path,
    grid: &Grid,
    format: HeightmapFormat,
    range: HeightRange,
) -> Result<(), HeightmapIoError> {
    let bytes = encode(grid, format, range).map_err(|source| HeightmapIoError::Encode {
        path: path.to_path_buf(),
        source,
    })?;
    write(path, &bytes)
}

/// As [`export`], for values that are not heights (a map of the run: arrival times past
/// the heights a level may hold): the range need only be finite and not empty.
pub fn export_values(
    path: &Path,
    grid: &Grid,
    format: HeightmapFormat,
    range: HeightRange,
) -> Result<(), HeightmapIoError> {
    let encode_error = |source| HeightmapIoError::Encode {
        path: path.to_path_buf(),
        source,
    };
    if format.needs_range()
        && !(range.min.is_finite() && range.max.is_finite() && range.max > range.min)
    {
        return Err(encode_error(EncodeError::Range(EmptyRange(range))));
    }
    write(path, &encode_in(grid, format, range).map_err(encode_error)?)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), HeightmapIoError> {
    super::write_atomic(path, bytes).map_err(|source| HeightmapIoError::Io {
        path: path.to_path_buf(),
        action: "write",
        source,
    })
}

/// The bytes of `grid` in `format` over `range`.
pub fn encode(
    grid: &Grid,
    format: HeightmapFormat,
    range: HeightRange,
) -> Result<Vec<u8>, EncodeError> {
    if format.needs_range() {
        range.check()?;
    }
    let bytes = encode_in(grid, format, range)?;
    // Heights only: a map of the run's range (arrival times) is no height range to import.
    Ok(match format {
        HeightmapFormat::Png16 | HeightmapFormat::Png8 => {
            heightmap::png::with_range_note(&bytes, range.min, range.max)
        }
        _ => bytes,
    })
}

/// [`encode`], the range already checked.
fn encode_in(
    grid: &Grid,
    format: HeightmapFormat,
    range: HeightRange,
) -> Result<Vec<u8>, EncodeError> {
    let quantize = |v: f32, top: f64| -> f64 {
        let t = (v as f64 - range.min as f64) / (range.max as f64 - range.min as f64);
        (t.clamp(0.0, 1.0) * top).round()
    };
    let (w, h) = (grid.nx as u32, grid.ny as u32);
    match format {
        HeightmapFormat::Png16 => {
            let samples: Vec<u8> = grid
                .data
                .iter()
                .flat_map(|&v| (quantize(v, 65535.0) as u16).to_ne_bytes())
                .collect();
            png(&samples, w, h, ExtendedColorType::L16)
        }
        HeightmapFormat::Png8 => {
            let samples: Vec<u8> = grid
                .data
                .iter()
                .map(|&v| quantize(v, 255.0) as u8)
                .collect();
            png(&samples, w, h, ExtendedColorType::L8)
        }
        HeightmapFormat::RawR16 => Ok(grid
            .data
            .iter()
            .flat_map(|&v| (quantize(v, 65535.0) as u16).to_le_bytes())
            .collect()),
        HeightmapFormat::Npy => Ok(heightmap::npy::encode(grid)),
    }
}

fn png(samples: &[u8], w: u32, h: u32, color: ExtendedColorType) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    PngEncoder::new(&mut out)
        .write_image(samples, w, h, color)
        .map_err(EncodeError::Png)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raw_size_past_a_levels_cells_is_refused_unread() {
        // Each side within 16384, the whole past 8192²: read, made a 1 GiB grid, then refused.
        let settings = ImportSettings {
            format: HeightmapFormat::RawR16,
            range: HeightRange {
                min: 0.0,
                max: 100.0,
            },
            raw_size: (16384, 16384),
        };
        let err = import(Path::new("/nonexistent/huge.r16"), &settings).expect_err("refused");
        assert!(matches!(err, HeightmapIoError::RawCells { .. }), "{err}");
        assert!(err.to_string().contains("huge.r16"), "{err}");
    }

    #[test]
    fn a_png_export_notes_its_range_for_the_import() {
        // A PNG holds no unit: the range an export used was remembered for the session only,
        // and an import after a restart took 0 to 100 m (heights 2.5 times too large here).
        let dir = tempfile::tempdir().expect("temp dir");
        let grid = Grid::from_fn(9, 7, |x, y| 20.0 + x as f32 * 4.5 + y as f32);
        let range = HeightRange::of(&grid);
        for format in [HeightmapFormat::Png16, HeightmapFormat::Png8] {
            let path = dir.path().join(format!("h{}.png", format.name().len()));
            export(&path, &grid, format, range).expect("export");
            let noted = heightmap::png::range_note(&path);
            assert_eq!(noted, Some((range.min, range.max)), "{format:?}");
            let settings = ImportSettings {
                format,
                range,
                raw_size: (9, 7),
            };
            let back = import(&path, &settings).expect("import");
            let step = format.precision(range);
            for (a, b) in grid.data.iter().zip(&back.data) {
                assert!((a - b).abs() <= step * 0.5 + 1e-4, "{a} vs {b}");
            }
        }
        // A PNG made elsewhere notes nothing.
        let plain = dir.path().join("plain.png");
        let mut out = Vec::new();
        PngEncoder::new(&mut out)
            .write_image(&[0u8; 4], 2, 2, ExtendedColorType::L8)
            .expect("encode");
        std::fs::write(&plain, out).expect("write");
        assert_eq!(heightmap::png::range_note(&plain), None);
    }

    #[test]
    fn every_format_round_trips_within_its_precision() {
        let dir = tempfile::tempdir().expect("temp dir");
        let grid = Grid::from_fn(37, 23, |x, y| {
            -5.0 + x as f32 * 1.3 + (y as f32 * 0.7).sin() * 4.0
        });
        let range = HeightRange::of(&grid);
        for format in HeightmapFormat::ALL {
            let path = dir.path().join(format!("h.{}", format.extension()));
            export(&path, &grid, format, range).expect("export");
            let settings = ImportSettings {
                format,
                range,
                raw_size: (37, 23),
            };
            let back = import(&path, &settings).expect("import");
            assert_eq!((back.nx, back.ny), (37, 23));
            let tol = format.precision(range) * 0.5 + 1e-4;
            for (a, b) in grid.data.iter().zip(&back.data) {
                assert!((a - b).abs() <= tol, "{format:?}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn raw_of_the_wrong_length_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("h.r16");
        std::fs::write(&path, [0u8; 10]).expect("write");
        let settings = ImportSettings {
            format: HeightmapFormat::RawR16,
            range: HeightRange { min: 0.0, max: 1.0 },
            raw_size: (4, 4),
        };
        let err = import(&path, &settings).expect_err("wrong length");
        assert!(matches!(err, HeightmapIoError::RawLength { len: 10, .. }));
        let message = err.to_string();
        assert!(
            message.contains("h.r16") && message.contains("10 bytes"),
            "{message}"
        );
    }

    #[test]
    fn an_empty_range_is_refused_naming_the_file() {
        let settings = ImportSettings {
            format: HeightmapFormat::Png16,
            range: HeightRange { min: 3.0, max: 3.0 },
            raw_size: (4, 4),
        };
        let err = import(Path::new("flat.png"), &settings).expect_err("empty range");
        let message = err.to_string();
        assert!(
            message.starts_with("flat.png: the height range 3 m to 3 m"),
            "{message}"
        );
        // Heights no level may hold: the terrain imported, and Save refused it.
        for (min, max) in [(0.0, 2.0e6), (-3.0e38, 3.0e38)] {
            let settings = ImportSettings {
                range: HeightRange { min, max },
                ..settings
            };
            let err = import(Path::new("tall.png"), &settings).expect_err("out of bounds");
            assert!(err.to_string().contains("within ±1000000 m"), "{err}");
        }
    }
}
