//! The forms behind the dialogs: new level, heightmap import and heightmap export.

use std::path::PathBuf;

use spillway::Level;
use spillway::level::Limits;

use crate::app::NewLevelError;

use crate::project::heightmap_io::{self, HeightRange, HeightmapFormat, ImportSettings};

/// The New level form.
#[derive(Clone, Debug, PartialEq)]
pub struct NewLevelForm {
    /// Cells along x.
    pub nx: usize,
    /// Cells along y.
    pub ny: usize,
    /// Cell edge, metres.
    pub cell_size: f32,
    /// Initial terrain height, metres.
    pub height: f32,
}

impl Default for NewLevelForm {
    fn default() -> Self {
        Self {
            nx: 256,
            ny: 256,
            cell_size: 1.0,
            height: 0.0,
        }
    }
}

impl NewLevelForm {
    /// The level the form describes, or why it cannot be made.
    pub fn level(&self) -> Result<Level, NewLevelError> {
        Limits::default()
            .check_size(self.nx, self.ny)
            .map_err(|e| NewLevelError::Size(e.reason))?;
        if !(self.cell_size > 0.0 && self.cell_size.is_finite()) {
            return Err(NewLevelError::CellSize);
        }
        if !self.height.is_finite() {
            return Err(NewLevelError::Height);
        }
        Ok(Level::flat(self.nx, self.ny, self.cell_size, self.height))
    }
}

/// The heightmap import form.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportForm {
    /// The file to read.
    pub path: PathBuf,
    /// Its format.
    pub format: HeightmapFormat,
    /// Height of black / sample 0, metres.
    pub min: f32,
    /// Height of white / the largest sample, metres.
    pub max: f32,
    /// RAW width in samples.
    pub raw_width: usize,
    /// RAW height in samples.
    pub raw_height: usize,
    /// Why the last attempt failed.
    pub error: Option<String>,
}

impl ImportForm {
    /// A form for `path`, with the format from its extension, a RAW size (the level's when
    /// the file holds that many samples, else a square that fits it) and a height range as
    /// defaults: the range the file was `exported` with (this session, or written in the
    /// PNG by the export: a map exported, touched up elsewhere and imported comes back at its
    /// heights), else the terrain's own widened to at least 0 to 100 m.
    pub fn new(path: PathBuf, level: &Level, exported: Option<HeightRange>) -> Self {
        let format = HeightmapFormat::from_path(&path).unwrap_or(HeightmapFormat::Png16);
        let (nx, ny) = (level.nx(), level.ny());
        let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
        // A 1024 × 256 export is 512² samples too: the level's own size comes first.
        let (w, h) = if bytes == (nx * ny * 2) as u64 {
            (nx, ny)
        } else {
            heightmap_io::guess_raw_size(&path).unwrap_or((nx, ny))
        };
        let own = HeightRange::of(&level.terrain);
        let noted =
            (crate::heightmap::png::range_note(&path)).map(|(min, max)| HeightRange { min, max });
        let range = exported.or(noted).unwrap_or(HeightRange {
            min: own.min.min(0.0).floor(),
            max: own.max.max(100.0).ceil(),
        });
        Self {
            path,
            format,
            min: range.min,
            max: range.max,
            raw_width: w,
            raw_height: h,
            error: None,
        }
    }

    /// The import settings the form describes.
    pub fn settings(&self) -> ImportSettings {
        ImportSettings {
            format: self.format,
            range: HeightRange {
                min: self.min,
                max: self.max,
            },
            raw_size: (self.raw_width, self.raw_height),
        }
    }
}

/// The heightmap export form.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportForm {
    /// The format to write.
    pub format: HeightmapFormat,
    /// Height written as black / 0, metres.
    pub min: f32,
    /// Height written as white / the largest sample, metres.
    pub max: f32,
    /// Why the last attempt failed.
    pub error: Option<String>,
}

impl ExportForm {
    /// A 16-bit PNG over the terrain's own height range.
    pub fn new(level: &Level) -> Self {
        let range = HeightRange::of(&level.terrain);
        Self {
            format: HeightmapFormat::Png16,
            min: range.min,
            max: range.max,
            error: None,
        }
    }

    /// The height range the form describes.
    pub fn range(&self) -> HeightRange {
        HeightRange {
            min: self.min,
            max: self.max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ImportForm;

    #[test]
    fn a_raw_file_the_size_of_the_level_is_read_at_the_levels_size() {
        // 32 × 8 is 256 samples, 16² too: the square guess won and scrambled the rows.
        let dir = tempfile::tempdir().expect("temp dir");
        let level = spillway::Level::flat(32, 8, 1.0, 0.0);
        let path = dir.path().join("valley.r16");
        std::fs::write(&path, vec![0u8; 32 * 8 * 2]).expect("write");
        let form = ImportForm::new(path.clone(), &level, None);
        assert_eq!((form.raw_width, form.raw_height), (32, 8));
        // Another size: the square that fits.
        std::fs::write(&path, vec![0u8; 20 * 20 * 2]).expect("write");
        let form = ImportForm::new(path, &level, None);
        assert_eq!((form.raw_width, form.raw_height), (20, 20));
    }
}
