//! Shared helpers of the fuzz targets.
//!
//! The heightmap readers live in the editor crate, whose window code is far too heavy to build
//! under the fuzzer's instrumentation; their module (`editor/src/heightmap/`: `.npy` and PNG,
//! with no UI dependency) is compiled here from the same source files.

use std::fs;
use std::path::{Path, PathBuf};

#[path = "../../editor/src/heightmap/mod.rs"]
pub mod heightmap;

/// One temporary folder per fuzzing process, reused by every input.
pub fn scratch() -> &'static Path {
    use std::sync::OnceLock;
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("a temporary folder"))
        .path()
}

/// Splits a fuzz input at its first 0xFF byte (never part of UTF-8 text): the level's RON text
/// before it, the sidecar's bytes after it; writes them as `level.ron` and `level.grids` in
/// `dir` and returns the level's path. The corpus seeds are real levels in that form.
pub fn write_level(dir: &Path, data: &[u8]) -> PathBuf {
    let (ron, sidecar) = match data.iter().position(|&b| b == 0xFF) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let path = dir.join("level.ron");
    let _ = fs::write(&path, ron);
    let _ = fs::write(dir.join("level.grids"), sidecar);
    path
}
