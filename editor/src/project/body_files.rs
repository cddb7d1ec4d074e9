//! Body files in a project: a level's bodies name their glTF files relative to the level, and
//! a game loads them only from inside the level's folder. Saving copies each body's file (and
//! the external buffers a `.gltf` or `.glb` names) into `bodies/` beside the level unless it already lies inside
//! the level's folder, and rewrites the paths ([`relink`]).

use std::path::{Component, Path, PathBuf};

use spillway::body::import::percent_decode;
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
    /// A glTF file names a buffer that lies outside the file's own folder (through `..` inside
    /// the level's folder, or a link): it is not copied.
    #[error("{}: its buffer `{uri}` lies outside the file's folder, so it is not copied", file.display())]
    Outside {
        /// The body's file.
        file: PathBuf,
        /// The buffer's URI.
        uri: String,
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
    /// The body's path leaves the level's folder (`../..`, a link out of it): nothing is
    /// read or copied from there.
    #[error(transparent)]
    OutsideLevel(#[from] spillway::body::import::ImportError),
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

/// The external buffers of a glTF file, `.gltf` or `.glb` (the only external files the
/// runtime reads), as the file names they stand for (percent-decoded, as the runtime's
/// importer resolves them). A URI that leaves the file's folder by name is refused.
pub(crate) fn external_buffers(gltf: &Path) -> Result<Vec<String>, BodyFileError> {
    let Some(text) = gltf_json(gltf) else {
        return Ok(Vec::new());
    };
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(&text) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for item in json["buffers"].as_array().into_iter().flatten() {
        let Some(uri) = item["uri"].as_str().filter(|u| !u.starts_with("data:")) else {
            continue;
        };
        let name = percent_decode(uri);
        if !Path::new(&name)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
        {
            return Err(BodyFileError::Outside {
                file: gltf.to_path_buf(),
                uri: uri.to_owned(),
            });
        }
        out.push(name);
    }
    Ok(out)
}

/// The JSON of a glTF file: the whole of a `.gltf`, the first chunk of a binary `.glb` (whose
/// buffers may name files too: they were neither copied in on save nor watched). Only a
/// regular file within the importer's size limit is read (a pipe named `.gltf` held the
/// editor for good as the level opened; one of 8 GB was read whole, twice a second while it
/// was shown): the importer refuses the others, naming why.
fn gltf_json(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let most = spillway::body::import::ImportLimits::default().max_file_bytes;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > most {
        return None;
    }
    let mut file = std::fs::File::open(path).ok()?;
    let mut head = [0u8; 20];
    // Read until the header is whole or the file ends (a read may return less).
    let mut n = 0;
    while n < head.len() {
        match file.read(&mut head[n..]).ok()? {
            0 => break,
            got => n += got,
        }
    }
    if n == 20 && &head[..4] == b"glTF" && &head[16..20] == b"JSON" {
        let len = u32::from_le_bytes([head[12], head[13], head[14], head[15]]) as u64;
        let mut json = Vec::new();
        file.take(len.min(most)).read_to_end(&mut json).ok()?;
        return Some(json);
    }
    let mut text = head[..n].to_vec();
    file.read_to_end(&mut text).ok()?;
    Some(text)
}

fn same_bytes(a: &Path, b: &Path) -> bool {
    matches!((std::fs::read(a), std::fs::read(b)), (Ok(x), Ok(y)) if x == y)
}

/// Copies `source` into `level_dir/bodies/` (a `.gltf` with external buffers into a folder
/// of its own there, `bodies/<name>/`, with them) unless it lies inside `level_dir` already;
/// returns the path relative to `level_dir` and whether the file was copied (not when the same
/// bytes were there already). A different file of the same name there gets a numbered name
/// (or folder) beside it, so two models whose buffers share a name (every `scene.gltf` with
/// its `scene.bin`) both come in. A buffer is copied only from the file's own folder (links
/// resolved).
pub fn bring_in(source: &Path, level_dir: &Path) -> Result<(String, bool), BodyFileError> {
    if let Some(rel) = inside(source, level_dir) {
        return Ok((rel, false));
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
    // Every buffer is checked before anything is copied.
    let mut buffers = Vec::new();
    if let Some(src_dir) = source.parent() {
        for name in external_buffers(source)? {
            let from = src_dir.join(&name);
            if !from.exists() {
                let gone = format!("its buffer `{name}` does not exist");
                return Err(fail(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    gone,
                )));
            }
            if inside(&from, src_dir).is_none() {
                return Err(BodyFileError::Outside {
                    file: source.to_path_buf(),
                    uri: name,
                });
            }
            buffers.push((from, name));
        }
    }
    // Where it goes: beside the others, or with buffers in a folder of its own; the first
    // place free or holding these very bytes.
    let fits = |folder: &Path, file: &Path| {
        let same_or_free = |from: &Path, to: &Path| !to.exists() || same_bytes(from, to);
        same_or_free(source, file)
            && (buffers.iter()).all(|(from, name)| same_or_free(from, &folder.join(name)))
    };
    let (folder, target) = (1..)
        .map(|n| {
            let numbered = |base: &str| match n {
                1 => base.to_owned(),
                n => format!("{base}-{n}"),
            };
            if buffers.is_empty() {
                let file = match n {
                    1 => name.clone(),
                    n => format!("{stem}-{n}.{ext}"),
                };
                (dir.clone(), dir.join(file))
            } else {
                let folder = dir.join(numbered(&stem));
                let file = folder.join(&name);
                (folder, file)
            }
        })
        .find(|(folder, file)| fits(folder, file))
        .expect("an unused name comes");
    std::fs::create_dir_all(&folder).map_err(fail)?;
    let copied = !target.exists();
    if copied {
        std::fs::copy(source, &target).map_err(fail)?;
    }
    for (from, name) in &buffers {
        let to = folder.join(name);
        if to.exists() {
            continue;
        }
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(fail)?;
        }
        std::fs::copy(from, to).map_err(fail)?;
    }
    let relative = target.strip_prefix(level_dir).unwrap_or(&target);
    let parts: Vec<String> = (relative.components())
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Ok((parts.join("/"), copied))
}

/// The bodies with every file inside `new_dir` (copied in where needed) and paths relative to
/// it, and how many body files were copied; `old_dir` is the folder their paths are relative
/// to now (`None`: not saved yet). A body whose file is gone (a level copied without its
/// `bodies/`) keeps its path, or for an absolute one `bodies/` and its name: nothing to
/// copy, the level saves, and it says which file it misses when it opens.
pub fn relink(
    bodies: &[Body],
    old_dir: Option<&Path>,
    new_dir: &Path,
) -> Result<(Vec<Body>, usize), BodyFileError> {
    let mut copied = 0;
    let bodies = bodies
        .iter()
        .map(|b| {
            let source: PathBuf = resolve(old_dir, &b.gltf)?;
            if !source.exists() {
                let gltf = match (Path::new(&b.gltf).is_absolute(), source.file_name()) {
                    (true, Some(name)) => format!("{BODIES_DIR}/{}", name.to_string_lossy()),
                    _ => b.gltf.clone(),
                };
                return Ok(Body { gltf, ..b.clone() });
            }
            let (gltf, new) = bring_in(&source, new_dir)?;
            copied += usize::from(new);
            Ok(Body { gltf, ..b.clone() })
        })
        .collect::<Result<_, BodyFileError>>()?;
    Ok((bodies, copied))
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
        let bring = |file: &Path| bring_in(file, &level_dir).expect("copied in").0;
        assert_eq!(
            bring_in(&src, &level_dir).unwrap(),
            ("bodies/crate.glb".to_string(), true)
        );
        assert_eq!(
            bring_in(&src, &level_dir).unwrap(),
            ("bodies/crate.glb".to_string(), false),
            "the same bytes are there: nothing copied"
        );
        let copied = level_dir.join("bodies/crate.glb");
        assert_eq!(bring(&copied), "bodies/crate.glb");
        std::fs::write(&src, b"other bytes").expect("write");
        assert_eq!(bring(&src), "bodies/crate-2.glb");
    }

    /// A `.gltf` in `dir` whose one buffer is `uri`.
    fn gltf_with_buffer(dir: &Path, name: &str, uri: &str) -> PathBuf {
        let path = dir.join(name);
        let json = format!(
            r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"uri":"{uri}","byteLength":4}}]}}"#
        );
        std::fs::write(&path, json).expect("write");
        path
    }

    #[test]
    fn a_glb_naming_a_buffer_file_comes_with_it() {
        // A binary glTF's buffers were not looked for: saved, the level's copy had no
        // `boat.bin`, and a check or the game could not load it.
        let tmp = tempfile::tempdir().expect("temp dir");
        let (src, level_dir) = (tmp.path().join("src"), tmp.path().join("level"));
        std::fs::create_dir_all(&src).expect("dir");
        let mut json =
            br#"{"asset":{"version":"2.0"},"buffers":[{"uri":"boat.bin","byteLength":4}]}"#
                .to_vec();
        json.resize(json.len().next_multiple_of(4), b' ');
        let mut glb = b"glTF".to_vec();
        glb.extend(2u32.to_le_bytes());
        glb.extend((20 + json.len() as u32).to_le_bytes());
        glb.extend((json.len() as u32).to_le_bytes());
        glb.extend(b"JSON");
        glb.extend(&json);
        std::fs::write(src.join("boat.glb"), glb).expect("write");
        std::fs::write(src.join("boat.bin"), [0u8; 4]).expect("write");
        assert_eq!(
            external_buffers(&src.join("boat.glb")).unwrap(),
            ["boat.bin"]
        );
        let (rel, copied) = bring_in(&src.join("boat.glb"), &level_dir).expect("brought in");
        assert!(copied);
        let folder = level_dir
            .join(&rel)
            .parent()
            .expect("a folder")
            .to_path_buf();
        assert!(
            folder.join("boat.bin").is_file(),
            "{rel}: its buffer came with it"
        );
    }

    #[test]
    fn a_gltf_comes_with_its_buffers_and_only_from_its_own_folder() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let (src, level_dir) = (tmp.path().join("src"), tmp.path().join("level"));
        std::fs::create_dir_all(&src).expect("dir");
        // A buffer named with an escape, as exporters write spaces.
        std::fs::write(src.join("log mesh.bin"), b"1234").expect("write");
        let log = gltf_with_buffer(&src, "log.gltf", "log%20mesh.bin");
        assert_eq!(bring_in(&log, &level_dir).unwrap().0, "bodies/log/log.gltf");
        assert_eq!(
            std::fs::read(level_dir.join("bodies/log/log mesh.bin")).unwrap(),
            b"1234"
        );
        assert_eq!(
            bring_in(&log, &level_dir).unwrap(),
            ("bodies/log/log.gltf".to_string(), false),
            "the same bytes are there: nothing copied"
        );

        // Another model whose buffer has the same name but other bytes comes in beside it
        // (two downloads, each a `scene.gltf` with its `scene.bin`, refused to save).
        let other = tmp.path().join("other");
        std::fs::create_dir_all(&other).expect("dir");
        std::fs::write(other.join("log mesh.bin"), b"5678").expect("write");
        let plank = gltf_with_buffer(&other, "plank.gltf", "log%20mesh.bin");
        assert_eq!(
            bring_in(&plank, &level_dir).unwrap().0,
            "bodies/plank/plank.gltf"
        );
        let same_name = gltf_with_buffer(&other, "log.gltf", "log%20mesh.bin");
        assert_eq!(
            bring_in(&same_name, &level_dir).unwrap().0,
            "bodies/log-2/log.gltf"
        );
        assert_eq!(
            std::fs::read(level_dir.join("bodies/log/log mesh.bin")).unwrap(),
            b"1234"
        );
        assert_eq!(
            std::fs::read(level_dir.join("bodies/log-2/log mesh.bin")).unwrap(),
            b"5678"
        );

        // A buffer outside the file's folder, by name or through a link, is not copied.
        std::fs::write(tmp.path().join("secret.bin"), b"key!").expect("write");
        let up = gltf_with_buffer(&other, "up.gltf", "../secret.bin");
        assert!(matches!(
            bring_in(&up, &level_dir),
            Err(BodyFileError::Outside { .. })
        ));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(tmp.path().join("secret.bin"), other.join("link.bin"))
                .expect("link");
            let linked = gltf_with_buffer(&other, "linked.gltf", "link.bin");
            let err = bring_in(&linked, &level_dir).expect_err("a link out");
            assert!(
                err.to_string().contains("lies outside the file's folder"),
                "{err}"
            );
            assert!(!level_dir.join("bodies/linked").exists(), "nothing copied");
        }
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
