//! Heightmaps in and out of the editor: NumPy `.npy` arrays ([`npy`]) and grayscale PNG images
//! ([`png`]), read into and written from runtime [`Grid`](spillway::Grid)s.
//!
//! Row index is y (down the map), column index is x, as in [`spillway::Grid`].

pub mod npy;
pub mod png;

use std::path::{Path, PathBuf};

use thiserror::Error;

/// Why a heightmap file could not be read or written. The message names the file.
#[derive(Debug, Error)]
pub enum HeightmapError {
    /// The operating system refused to read or write the file.
    #[error("{}: cannot {action}: {source}", path.display())]
    Io {
        /// The file involved.
        path: PathBuf,
        /// What was being done, e.g. "read the heightmap".
        action: &'static str,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file is readable but its content is not an acceptable heightmap.
    #[error("{}: {problem}", path.display())]
    Format {
        /// The file involved.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
}

impl HeightmapError {
    /// A [`HeightmapError::Format`] for `path`.
    pub fn format(path: &Path, problem: impl Into<String>) -> Self {
        Self::Format {
            path: path.to_path_buf(),
            problem: problem.into(),
        }
    }
}

/// The kinds of heightmap file the editor reads, told apart by their first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeightmapKind {
    /// A NumPy `.npy` array.
    Npy,
    /// A PNG image.
    Png,
}

/// Tells the kind of a heightmap file from its magic bytes, whatever its extension.
pub fn sniff(path: &Path) -> Result<HeightmapKind, HeightmapError> {
    use std::io::Read;
    let io = |source| HeightmapError::Io {
        path: path.to_path_buf(),
        action: "read the heightmap",
        source,
    };
    let mut head = Vec::with_capacity(8);
    spillway::level::file::open_plain(path)
        .map_err(io)?
        .take(8)
        .read_to_end(&mut head)
        .map_err(io)?;
    if head.starts_with(npy::MAGIC) {
        Ok(HeightmapKind::Npy)
    } else if head.starts_with(png::MAGIC) {
        Ok(HeightmapKind::Png)
    } else {
        Err(HeightmapError::format(
            path,
            "is neither a NumPy .npy array nor a PNG image (unknown magic bytes)",
        ))
    }
}
