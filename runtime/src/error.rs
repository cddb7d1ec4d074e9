//! `LevelError`: everything that can go wrong loading, validating or saving a level file.
//!
//! Every message is one line that names the file, the place in it and what is wrong, so an
//! editor or a game log can show it to a designer as it is.

use std::io;
use std::path::PathBuf;

use thiserror::Error;

/// Why a level could not be loaded or saved.
#[derive(Debug, Error)]
pub enum LevelError {
    /// Reading, writing, renaming or listing a file failed.
    #[error("{path}: cannot {action}: {source}")]
    Io {
        /// The file or folder involved.
        path: PathBuf,
        /// What was being done, e.g. "read the level file".
        action: &'static str,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },

    /// The RON text is not valid RON, or does not have the shape of a level file (a missing
    /// field, a field of the wrong type, an unknown field).
    #[error("{path}:{line}:{column}: {message}")]
    Ron {
        /// The level file.
        path: PathBuf,
        /// Line of the problem, counting from 1.
        line: usize,
        /// Column of the problem, counting from 1.
        column: usize,
        /// What the RON parser found wrong.
        message: String,
    },

    /// The file parses, but a value is out of range or inconsistent.
    #[error("{path}: invalid `{field}`: {reason}")]
    Invalid {
        /// The level file.
        path: PathBuf,
        /// Where in the level, e.g. `sources[2].shape.radius` or `terrain(x=3, y=7)`.
        field: String,
        /// What is wrong with it.
        reason: String,
    },

    /// A grid's binary sidecar is missing, too short, corrupt, or named outside the level's folder.
    #[error("{path}: grid `{grid}` in sidecar `{sidecar}`: {problem}")]
    Sidecar {
        /// The level file that references the sidecar.
        path: PathBuf,
        /// The grid being read, e.g. `terrain` or `flow.flow_x`.
        grid: String,
        /// The sidecar file name as written in the level file.
        sidecar: String,
        /// What is wrong.
        problem: SidecarProblem,
    },

    /// The file was written by a newer version of Spillway.
    #[error(
        "{path}: format_version {found} is newer than this build of Spillway supports \
         (up to {supported}); update Spillway to open this level"
    )]
    UnsupportedVersion {
        /// The level file.
        path: PathBuf,
        /// The version written in the file.
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
}

/// What is wrong with a grid sidecar file.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SidecarProblem {
    /// The sidecar file does not exist.
    #[error("the sidecar file is missing (looked for {0})")]
    Missing(PathBuf),
    /// The file name is not a plain file name in the level's own folder.
    #[error("the sidecar must be a plain file name in the level's folder, not a path")]
    OutsideFolder,
    /// The file does not start with the sidecar magic bytes.
    #[error("not a Spillway grid sidecar (bad magic header)")]
    BadMagic,
    /// The grid's bytes reach past the end of the file.
    #[error(
        "truncated: the grid needs bytes {start}..{end} but the file has only {file_len} bytes"
    )]
    Truncated {
        /// First byte of the grid.
        start: u64,
        /// One past the last byte of the grid.
        end: u64,
        /// Actual length of the sidecar file.
        file_len: u64,
    },
    /// The grid's bytes do not match the checksum written in the level file.
    #[error(
        "checksum mismatch: the level file says crc32 {expected:08x}, the data has {actual:08x}"
    )]
    ChecksumMismatch {
        /// Checksum written in the level file.
        expected: u32,
        /// Checksum of the bytes read.
        actual: u32,
    },
    /// The byte length written in the level file does not match the grid's size.
    #[error("length is {len} bytes but a {cells}-cell f32 grid needs {expected} bytes")]
    WrongLength {
        /// Byte length written in the level file.
        len: u64,
        /// Number of values the grid must hold.
        cells: u64,
        /// The byte length those values need.
        expected: u64,
    },
    /// A compressed grid declares more bytes than its values could ever take.
    #[error("length is {len} bytes but a compressed {cells}-cell grid takes at most {most} bytes")]
    TooLong {
        /// Byte length written in the level file.
        len: u64,
        /// Number of values the grid must hold.
        cells: u64,
        /// The most bytes they can take compressed.
        most: u64,
    },
    /// A compressed grid's bytes (whose checksum matched) do not decode to its values.
    #[error("the compressed data does not decode: {0}")]
    Undecodable(String),
}
