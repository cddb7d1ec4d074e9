//! Project files around the document: file dialogs behind the [`FileDialogs`] trait (so tests
//! inject paths), the [`ConfigPaths`] of per-user files, recent files ([`recent`]), autosave
//! and crash recovery ([`recovery`]) and heightmap import and export ([`heightmap_io`]).

pub mod body_files;
#[cfg(feature = "gui")]
pub mod dialogs;
pub mod heightmap_io;
pub mod maps_io;
pub mod recent;
pub mod recovery;
pub mod session_lock;

use std::path::{Path, PathBuf};

use spillway::level::Limits;

#[cfg(feature = "gui")]
pub use dialogs::{FileDialogs, NativeDialogs, ScriptedDialogs};
pub use heightmap_io::{HeightRange, HeightmapFormat, ImportSettings};
pub use recent::RecentFiles;
pub use recovery::{RecoveredWork, Recovery};

/// Where the editor keeps its per-user files. Injectable, so tests never touch the real ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigPaths {
    /// The recent-files list (RON).
    pub recent_files: PathBuf,
    /// The folder of autosaved recovery files.
    pub recovery_dir: PathBuf,
}

impl ConfigPaths {
    /// Paths inside one folder: `DIR/recent.ron` and `DIR/recovery/`.
    pub fn in_dir(dir: &Path) -> Self {
        Self {
            recent_files: dir.join("recent.ron"),
            recovery_dir: dir.join("recovery"),
        }
    }

    /// The user's configuration folder: `$XDG_CONFIG_HOME/spillway`, else
    /// `$HOME/.config/spillway`; `None` when neither variable is set.
    pub fn from_env() -> Option<Self> {
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|h| PathBuf::from(h).join(".config"))
            })?;
        Some(Self::in_dir(&base.join("spillway")))
    }
}

/// The limits the editor opens levels with: a game's defaults ([`Limits::default`]), except
/// that objects may cover the map up to 256 times over rather than 16 (a designer's
/// overlapping rain boxes). The editor saves such a level, saying that a game's default
/// limits refuse it, and must open it again.
pub fn open_limits() -> Limits {
    Limits {
        max_coverage: 256,
        ..Limits::default()
    }
}

/// Loads the level at `path` with [`open_limits`].
pub fn open_level(path: &Path) -> Result<spillway::Level, spillway::LevelError> {
    spillway::level::file::load_with_limits(path, &open_limits())
}

/// The level file that `path` names: `path` itself, or for a project folder its `level.ron`
/// (else the one `.ron` file in it). A folder with no level, or several and none named
/// `level.ron`, gives the message that says which, naming the folder.
pub fn level_file(path: &Path) -> Result<PathBuf, String> {
    if !path.is_dir() {
        return Ok(path.to_path_buf());
    }
    let named = path.join("level.ron");
    if named.is_file() {
        return Ok(named);
    }
    let mut levels = std::fs::read_dir(path)
        .into_iter()
        .flatten()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e.eq_ignore_ascii_case("ron")));
    match (levels.next(), levels.next()) {
        (Some(only), None) => Ok(only),
        (None, _) => Err(format!(
            "{}: a folder without a level file (level.ron)",
            path.display()
        )),
        (Some(_), Some(_)) => Err(format!(
            "{}: several .ron files and none named level.ron: name the level file",
            path.display()
        )),
    }
}

/// Writes `bytes` to `path` through a temporary file of its own in the same folder, synced and
/// renamed into place, the folder synced after: a crash or a power cut never leaves a
/// half-written or empty file (a recovery note, an export, the recent list).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir)?;
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // Readable as a file written plainly is (the umask applies), not the owner's alone.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut temp = builder.tempfile_in(&dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    #[cfg(unix)]
    if let Ok(folder) = std::fs::File::open(&dir) {
        let _ = folder.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::level_file;

    #[test]
    fn a_file_written_atomically_replaces_the_old_and_reads_as_others_do() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("recent.ron");
        super::write_atomic(&path, b"old").expect("written");
        super::write_atomic(&path, b"new").expect("written again");
        assert_eq!(std::fs::read(&path).expect("read"), b"new");
        let names: Vec<_> = (std::fs::read_dir(dir.path()).expect("list").flatten())
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, ["recent.ron"], "no temporary file left");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let plain = dir.path().join("plain");
            std::fs::write(&plain, b"x").expect("written plainly");
            let mode = |p: &std::path::Path| p.metadata().expect("meta").permissions().mode();
            assert_eq!(mode(&path) & 0o777, mode(&plain) & 0o777);
        }
    }

    #[test]
    fn a_folder_names_its_level_ron_else_its_only_ron_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("river.ron");
        assert_eq!(
            level_file(&file),
            Ok(file.clone()),
            "a path that is not a folder"
        );
        assert!(
            level_file(dir.path())
                .unwrap_err()
                .contains("without a level file")
        );
        std::fs::write(&file, "()").expect("write");
        assert_eq!(
            level_file(dir.path()),
            Ok(file.clone()),
            "the only .ron file"
        );
        std::fs::write(dir.path().join("other.ron"), "()").expect("write");
        let several = level_file(dir.path()).unwrap_err();
        assert!(several.contains("several .ron files"), "{several}");
        let named = dir.path().join("level.ron");
        std::fs::write(&named, "()").expect("write");
        assert_eq!(level_file(dir.path()), Ok(named), "level.ron first");
    }
}
