//! Body files in a project: a level's bodies name their glTF files relative to the level, and
//! a game loads them only from inside the level's folder. Saving copies each body's file (and a
//! `.gltf`'s external buffers) into `bodies/` beside the level unless it already lies inside
//! the level's folder, and rewrites the paths ([`relink`]).

use std::path::{Component, Path, PathBuf};

use spillway::level::Body;
use thiserror::Error;

use crate::tools::body::library::resolve;

/// Why a body's file could not be brought into the project; the message names the file.
#[derive(Debug, Error)]
pub enum BodyFileError {
    /// The path names no file (it ends in `..` or is a root).
    #[error("{}: not a file", file.display())]
    NotAFile {
        /// The body's file.
        file: PathBuf,
    },
    /// Copying the file (or one of its external buffers) into the project failed.
    #[error("{}: cannot copy it into {}: {source}", file.display(), into.display())]
    Copy {
        /// The body's file.
        file: PathBuf,
        /// The folder it was being copied into (the project's `bodies/`).
        into: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
}

/// The folder beside a level where copied body files go.
pub const BODIES_DIR: &str = "bodies";

/// `path` relative to `dir` with `/` separators, if `path` lies inside `dir`.
pub fn inside(path: &Path, dir: &Path) -> Option<String> {
    let path = std::fs::canonicalize(path).ok()?;
    let dir = std::fs::canonicalize(dir).ok()?;
    let rel = path.strip_prefix(&dir).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The relative, non-escaping external URIs of a `.gltf` file (buffers and images).
fn external_uris(gltf: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(gltf) else {
        return Vec::new();
    };
    let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for list in ["buffers", "images"] {
        for item in json[list].as_array().into_iter().flatten() {
            if let Some(uri) = item["uri"].as_str()
                && !uri.starts_with("data:")
                && Path::new(uri)
                    .components()
                    .all(|c| matches!(c, Component::Normal(_)))
            {
                out.push(uri.to_owned());
            }
        }
    }
    out
}

fn same_bytes(a: &Path, b: &Path) -> bool {
    matches!((std::fs::read(a), std::fs::read(b)), (Ok(x), Ok(y)) if x == y)
}

/// Copies `source` into `level_dir/bodies/` (with its external buffers, for a `.gltf`) unless
/// it lies inside `level_dir` already; returns the path relative to `level_dir`. A different
/// file of the same name there gets a numbered name beside it.
pub fn bring_in(source: &Path, level_dir: &Path) -> Result<String, BodyFileError> {
    if let Some(rel) = inside(source, level_dir) {
        return Ok(rel);
    }
    let dir = level_dir.join(BODIES_DIR);
    let fail = |e| BodyFileError::Copy {
        file: source.to_path_buf(),
        into: dir.clone(),
        source: e,
    };
    let name = source
        .file_name()
        .ok_or_else(|| BodyFileError::NotAFile {
            file: source.to_path_buf(),
        })?
        .to_string_lossy()
        .into_owned();
    let stem = Path::new(&name)
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let ext = Path::new(&name)
        .extension()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    std::fs::create_dir_all(&dir).map_err(fail)?;
    let mut target = dir.join(&name);
    let mut n = 2;
    while target.exists() && !same_bytes(source, &target) {
        target = dir.join(format!("{stem}-{n}.{ext}"));
        n += 1;
    }
    if !target.exists() {
        std::fs::copy(source, &target).map_err(fail)?;
    }
    if let Some(src_dir) = source.parent() {
        for uri in external_uris(source) {
            let to = dir.join(&uri);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(fail)?;
            }
            if !to.exists() {
                std::fs::copy(src_dir.join(&uri), &to).map_err(fail)?;
            }
        }
    }
    let file = target.file_name().unwrap_or_default().to_string_lossy();
    Ok(format!("{BODIES_DIR}/{file}"))
}

/// The bodies with every file inside `new_dir` (copied in where needed) and paths relative to
/// it; `old_dir` is the folder their paths are relative to now (`None`: not saved yet).
pub fn relink(
    bodies: &[Body],
    old_dir: Option<&Path>,
    new_dir: &Path,
) -> Result<Vec<Body>, BodyFileError> {
    bodies
        .iter()
        .map(|b| {
            let source: PathBuf = resolve(old_dir, &b.gltf);
            let gltf = bring_in(&source, new_dir)?;
            Ok(Body { gltf, ..b.clone() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_outside_the_level_folder_are_copied_in_once() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let level_dir = tmp.path().join("level");
        std::fs::create_dir_all(&level_dir).expect("dir");
        let src = tmp.path().join("crate.glb");
        std::fs::write(&src, b"glb bytes").expect("write");
        let bring = |file: &Path| bring_in(file, &level_dir).expect("copied in");
        assert_eq!(bring(&src), "bodies/crate.glb");
        assert_eq!(bring(&src), "bodies/crate.glb");
        let copied = level_dir.join("bodies/crate.glb");
        assert_eq!(bring(&copied), "bodies/crate.glb");
        std::fs::write(&src, b"other bytes").expect("write");
        assert_eq!(bring(&src), "bodies/crate-2.glb");
    }

    #[test]
    fn a_missing_file_is_named() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let gone = tmp.path().join("gone.glb");
        let err = bring_in(&gone, &tmp.path().join("level")).expect_err("no such file");
        assert!(matches!(err, BodyFileError::Copy { .. }));
        let message = err.to_string();
        assert!(
            message.contains("gone.glb")
                && message.contains("cannot copy it into")
                && message.contains("bodies"),
            "{message}"
        );
    }
}
