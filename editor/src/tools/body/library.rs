//! [`MeshCache`]: body meshes parsed once per file (the runtime's glTF import), each with an
//! id the renderer uploads it under; and the bundled body library (`assets/*.glb`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use spillway::body::TriMesh;
use spillway::body::import::{ImportError, ImportLimits, import};

/// Identifies one parsed mesh of the library (the renderer uploads each once, under this
/// number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MeshId(pub u32);

/// A parsed body mesh and the figures the editor shows of it.
#[derive(Debug)]
pub struct BodyMesh {
    /// Its id.
    pub id: MeshId,
    /// The file it came from (as given when first loaded).
    pub path: PathBuf,
    /// The triangles, metres, z up, origin at the bounding-box centre.
    pub mesh: TriMesh,
    /// Enclosed volume, m³ (unscaled).
    pub volume: f64,
}

/// How long a file found unchanged is taken as unchanged: each frame asks for every body's
/// mesh, and a level of 200 crates stated and resolved their file 200 times a frame.
pub const RECHECK: Duration = Duration::from_millis(500);

/// Meshes by file: each file is parsed once, the first time a body of it is shown or placed,
/// and again when it changed on disk (a body re-exported from a modelling tool; noticed
/// within [`RECHECK`]).
#[derive(Default)]
pub struct MeshCache {
    meshes: HashMap<PathBuf, (Stamp, Arc<BodyMesh>)>,
    /// The paths as asked for: their cache key and when their file was last found unchanged.
    checked: HashMap<PathBuf, (PathBuf, Instant)>,
    limits: ImportLimits,
    parses: usize,
    /// The next mesh's id (a file parsed again gets a new one, so the renderer uploads it).
    next_id: u32,
}

/// What tells a file's versions apart: its modification time and length (`None`: it cannot
/// be read).
pub type Stamp = Option<(Option<std::time::SystemTime>, u64)>;

/// The stamp of the file at `path` now. A glTF's takes in the buffer files it names: one
/// put back or replaced alone is a change too (the body stayed unloaded, or kept its old
/// mesh, while only the `.gltf` was looked at).
pub fn stamp(path: &Path) -> Stamp {
    let (modified, len) = std::fs::metadata(path)
        .ok()
        .map(|m| (m.modified().ok(), m.len()))?;
    let (mut newest, mut bytes) = (modified, len);
    // A `.glb`'s buffers may name files too.
    if let Some(folder) = path.parent() {
        let buffers = crate::project::body_files::external_buffers(path).unwrap_or_default();
        for name in buffers {
            // A missing buffer counts too: its coming back is the change.
            let m = std::fs::metadata(folder.join(name)).ok();
            newest = newest.max(m.as_ref().and_then(|m| m.modified().ok()));
            let size = m.map_or(u64::MAX, |m| m.len());
            bytes = bytes.wrapping_add(size).wrapping_add(1);
        }
    }
    Some((newest, bytes))
}

/// The cache key of `path`: its canonical form where it exists.
fn key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

impl MeshCache {
    /// An empty cache importing with the runtime's default limits.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty cache importing with `limits` (vertex, triangle and file size caps).
    pub fn with_limits(limits: ImportLimits) -> Self {
        Self {
            limits,
            ..Self::default()
        }
    }

    /// The mesh of the glTF file at `path`, parsing it on first use and again when the file
    /// changed (looked at once per [`RECHECK`]). External buffers must lie in the file's own
    /// folder. An error names the file and says what is wrong.
    pub fn load(&mut self, path: &Path) -> Result<Arc<BodyMesh>, ImportError> {
        if let Some((k, at)) = self.checked.get(path)
            && at.elapsed() < RECHECK
            && let Some((_, m)) = self.meshes.get(k)
        {
            return Ok(m.clone());
        }
        self.load_checked(path)
    }

    /// As [`Self::load`], looking at the file now (a file the designer just chose).
    pub fn load_checked(&mut self, path: &Path) -> Result<Arc<BodyMesh>, ImportError> {
        let k = key(path);
        let now = stamp(path);
        if let Some((was, m)) = self.meshes.get(&k)
            && *was == now
        {
            let m = m.clone();
            self.checked.insert(path.to_path_buf(), (k, Instant::now()));
            return Ok(m);
        }
        let root = path.parent().unwrap_or(Path::new("."));
        self.parses += 1;
        let mesh = import(path, root, &self.limits)?;
        let body = Arc::new(BodyMesh {
            id: MeshId(self.next_id),
            path: path.to_path_buf(),
            volume: mesh.volume(),
            mesh,
        });
        self.next_id += 1;
        self.checked
            .insert(path.to_path_buf(), (k.clone(), Instant::now()));
        self.meshes.insert(k, (now, body.clone()));
        Ok(body)
    }

    /// The mesh of `path` if it was parsed already (never parses).
    pub fn get(&self, path: &Path) -> Option<&Arc<BodyMesh>> {
        self.meshes.get(&key(path)).map(|(_, m)| m)
    }

    /// The ids of the meshes held now (a file parsed again holds its new mesh only).
    pub fn ids(&self) -> Vec<MeshId> {
        self.meshes.values().map(|(_, m)| m.id).collect()
    }

    /// How many files were parsed (each file at most once).
    pub fn parses(&self) -> usize {
        self.parses
    }
}

/// Where a level body's `gltf` path points: relative to the level's folder `level_dir` (the
/// current folder for a level not saved yet), or absolute (a body placed in an unsaved level,
/// not yet copied into a project). A relative path that leaves the folder (`../..`, a link
/// out of it) is refused, as a game refuses it: a shared level file could otherwise have the
/// editor read, or copy into the project on save, any file on disk.
pub fn resolve(level_dir: Option<&Path>, gltf: &str) -> Result<PathBuf, ImportError> {
    let p = Path::new(gltf);
    if p.is_absolute() {
        return Ok(p.to_path_buf());
    }
    let dir = match level_dir {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().unwrap_or_default(),
    };
    spillway::body::import::body_file(&dir, gltf)
}

/// The bundled body library: the `assets/` folder beside the current folder or the editor's
/// source tree.
pub fn assets_dir() -> Option<PathBuf> {
    let here = PathBuf::from("assets");
    if here.is_dir() {
        return Some(here);
    }
    let beside = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("assets");
    beside.is_dir().then_some(beside)
}

/// The `.glb` and `.gltf` files of the bundled library, sorted by name.
pub fn bundled_bodies() -> Vec<PathBuf> {
    let Some(dir) = assets_dir() else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| is_body_file(p))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Whether `path` names a glTF file (`.glb` or `.gltf`).
pub fn is_body_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("glb") || e.eq_ignore_ascii_case("gltf"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_named_as_a_gltf_is_refused_without_waiting_on_it() {
        // Its buffers were looked for by reading it whole, before the importer (which refuses
        // it at once) saw it: the editor waited on the pipe for good as the level opened.
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("body.gltf");
        let made = std::process::Command::new("mkfifo").arg(&path).status();
        if !made.is_ok_and(|s| s.success()) {
            return;
        }
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let loaded = MeshCache::new().load_checked(&path);
            let _ = tx.send(loaded.map(|_| ()).map_err(|e| e.to_string()));
        });
        let answer = rx.recv_timeout(Duration::from_secs(20));
        let err = answer
            .expect("an answer, not a wait on the pipe")
            .unwrap_err();
        assert!(err.contains("not a regular file"), "{err}");
    }

    #[test]
    fn a_file_changed_on_disk_is_parsed_again_after_the_recheck_interval() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("body.glb");
        let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
        std::fs::copy(assets.join("crate.glb"), &path).expect("copy");
        let mut cache = MeshCache::new();
        let first = cache.load(&path).expect("the crate");
        std::fs::copy(assets.join("log.glb"), &path).expect("copy");
        // Within the interval: the mesh as it was, the file not looked at.
        assert_eq!(cache.load(&path).expect("cached").id, first.id);
        assert_eq!(cache.parses(), 1);
        // Looked at now (a file the designer chose), or after the interval: parsed again.
        assert_ne!(cache.load_checked(&path).expect("the log").id, first.id);
        std::fs::copy(assets.join("crate.glb"), &path).expect("copy");
        std::thread::sleep(RECHECK + Duration::from_millis(50));
        let again = cache.load(&path).expect("the crate again");
        assert_eq!(cache.parses(), 3);
        assert!((again.volume - first.volume).abs() < 1e-9);
    }

    #[test]
    fn a_gltfs_buffer_put_back_is_a_change() {
        // Only the `.gltf` was looked at: a body whose `.bin` was missing stayed unloaded once
        // the buffer was back, and a `.bin` replaced alone kept the old mesh.
        let dir = tempfile::tempdir().expect("dir");
        let gltf = dir.path().join("log.gltf");
        std::fs::write(&gltf, r#"{"buffers":[{"uri":"log.bin","byteLength":4}]}"#).expect("write");
        let without = stamp(&gltf);
        std::fs::write(dir.path().join("log.bin"), b"1234").expect("write");
        let with = stamp(&gltf);
        assert_ne!(with, without);
        std::fs::write(dir.path().join("log.bin"), b"123456").expect("write");
        assert_ne!(stamp(&gltf), with, "replaced alone");
        // Files it does not name do not count, nor any beside a `.glb` (its own buffer).
        let named = stamp(&gltf);
        std::fs::write(dir.path().join("other.bin"), b"1234").expect("write");
        assert_eq!(stamp(&gltf), named, "another model's buffer");
        let glb = dir.path().join("crate.glb");
        std::fs::write(&glb, b"glb").expect("write");
        let before = stamp(&glb);
        std::fs::write(dir.path().join("other.bin"), b"12").expect("write");
        assert_eq!(stamp(&glb), before);
    }
}
