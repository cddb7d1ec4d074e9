//! Output paths, checked before any work: a folder given for a level means its level file
//! (as input folders do), an output never overwrites one of the command's inputs, and the
//! output's folder is made and proved writable before a run of minutes, so a typo in a build
//! script costs neither the source data nor the run.

use std::path::{Path, PathBuf};

use super::CliError;

/// The file a project folder's level is kept in.
const LEVEL_FILE: &str = "level.ron";

/// The level file `-o PATH` names: for an existing folder the level file it holds, as when
/// it is an input (its `level.ron`, else its one `.ron` file if that reads as a level: a bake
/// into the folder it came from replaces that level rather than adding a second one beside
/// it; a build's `settings.ron` is no level to overwrite), else `level.ron` in it;
/// `PATH/level.ron` when `PATH` ends with a path separator; else `PATH`.
pub fn level_output(path: &Path) -> PathBuf {
    let text = path.as_os_str().to_string_lossy();
    if path.is_dir() {
        crate::project::level_file(path)
            .ok()
            .filter(|file| reads_as_level(file))
            .unwrap_or_else(|| path.join(LEVEL_FILE))
    } else if text.ends_with('/') || text.ends_with(std::path::MAIN_SEPARATOR) {
        path.join(LEVEL_FILE)
    } else {
        path.to_path_buf()
    }
}

/// Whether the file at `path` reads as a level file of some format version (the runtime's
/// loader asks the same first); a level's RON text is small, its grids are in the sidecar.
fn reads_as_level(path: &Path) -> bool {
    #[derive(serde::Deserialize)]
    struct VersionProbe {
        #[allow(dead_code)]
        format_version: u32,
    }
    let text = std::fs::read_to_string(path).unwrap_or_default();
    ron::from_str::<VersionProbe>(&text).is_ok()
}

/// Runs `command`, whose output checks may make `folders` (and folders above them); when it
/// is refused or fails, the folders it made are taken away again (only while empty), so it
/// leaves the disk as it found it.
pub fn or_unmade<T>(
    folders: &[&Path],
    command: impl FnOnce() -> Result<T, CliError>,
) -> Result<T, CliError> {
    let made = MadeFolders::missing(folders);
    let result = command();
    if result.is_err() {
        made.remove();
    }
    result
}

/// The folders that do not exist yet on the way to some output folders: what a command's
/// output checks are about to make.
struct MadeFolders(Vec<PathBuf>);

impl MadeFolders {
    /// The missing folders among `folders` and their ancestors, deepest first.
    fn missing(folders: &[&Path]) -> Self {
        let mut made = Vec::new();
        for &folder in folders {
            let mut at = Some(folder);
            while let Some(p) = at.filter(|p| !p.as_os_str().is_empty() && !p.exists()) {
                made.push(p.to_path_buf());
                at = p.parent();
            }
        }
        made.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
        made.dedup();
        Self(made)
    }

    /// Removes the folders made, deepest first, each only while it is empty.
    fn remove(&self) {
        for p in &self.0 {
            let _ = std::fs::remove_dir(p);
        }
    }
}

/// Writes `path` into a JSON report as text, its bytes that are not UTF-8 replaced (JSON
/// holds only text: a report of a run that wrote its files must not fail for a name).
pub fn lossy_path<S: serde::Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&path.to_string_lossy())
}

/// `path` made absolute and with links resolved as far as it exists (an output file usually
/// does not yet: its folder is resolved and its name appended).
pub fn resolved(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            resolved(dir).join(name)
        }
        _ => std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
    }
}

/// Checks the output file `out` (`what` names the option, `-o` or `--dump-depth`) before
/// the command runs: named with `extension` (so it can never be a level's grid sidecar or a
/// body's glTF file, nor a folder meant as one), not a folder, not a device or a pipe (which
/// the atomic save would replace with a file), not one of `inputs`, its folder made and
/// writable.
pub fn check_output(
    out: &Path,
    what: &str,
    inputs: &[&Path],
    extension: &str,
) -> Result<(), CliError> {
    if out.is_dir() {
        return Err(CliError::invalid(format!(
            "{}: {what} names a folder; give the file to write",
            out.display()
        )));
    }
    let target = resolved(out);
    if let Some(input) = inputs.iter().find(|i| resolved(i) == target) {
        return Err(CliError::invalid(format!(
            "{}: {what} is the input {} itself; write the output to another file",
            out.display(),
            input.display()
        )));
    }
    let named = out.extension().and_then(|e| e.to_str());
    if !named.is_some_and(|e| e.eq_ignore_ascii_case(extension)) {
        let folder = if extension == "ron" {
            " (or a folder: an existing one, or end the path with / to make one)"
        } else {
            ""
        };
        return Err(CliError::invalid(format!(
            "{}: {what} must name a .{extension} file{folder}",
            out.display()
        )));
    }
    if let Ok(meta) = std::fs::metadata(out)
        && !meta.is_file()
    {
        return Err(CliError::invalid(format!(
            "{}: {what} names something that is not a regular file (a device or a pipe); \
             write the output to a file",
            out.display()
        )));
    }
    super::create_parent(out)?;
    writable(out, &super::level_folder(out))
}

/// Checks the output folder `dir` (`what` names the option, `--maps`) before the command
/// runs: made if missing, and writable, so a run of minutes does not end in a failure to
/// write its last files.
pub fn check_folder(dir: &Path, what: &str) -> Result<(), CliError> {
    if dir.exists() && !dir.is_dir() {
        return Err(CliError::invalid(format!(
            "{}: {what} names a file; give a folder",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        CliError::failure(format!("{}: cannot make the folder: {e}", dir.display()))
    })?;
    writable(dir, dir)
}

/// Whether a file can be made in `dir` (for the output `out`), tried with a probe file.
fn writable(out: &Path, dir: &Path) -> Result<(), CliError> {
    let probe = dir.join(format!(".spillway-write-check-{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(CliError::failure(format!(
            "{}: cannot write into {}: {e}",
            out.display(),
            dir.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_means_its_level_file_and_an_input_is_never_an_output() {
        let dir = tempfile::tempdir().expect("dir");
        let d = dir.path();
        assert_eq!(level_output(d), d.join(LEVEL_FILE));
        let slash = PathBuf::from(format!("{}/new/", d.display()));
        assert_eq!(level_output(&slash), slash.join(LEVEL_FILE));
        let file = d.join("a.ron");
        assert_eq!(level_output(&file), file);
        std::fs::write(&file, "x").expect("write");
        let err = check_output(&file, "-o", &[&d.join("./a.ron")], "ron").expect_err("same file");
        assert!(err.message.contains("is the input"), "{}", err.message);
        assert_eq!(err.code, 2);
        let err = check_output(d, "--dump-depth", &[], "npy").expect_err("a folder");
        assert!(err.message.contains("names a folder"), "{}", err.message);
        // A level's sidecar, a body's glTF, a path meant as a folder: refused by their names.
        for name in ["level.0123abcd.grids", "bodies/crate.glb", "build"] {
            let err = check_output(&d.join(name), "-o", &[], "ron").expect_err(name);
            assert!(
                err.message.contains("must name a .ron file"),
                "{}",
                err.message
            );
        }
        let deep = d.join("x/y/out.npy");
        check_output(&deep, "--dump-depth", &[&file], "npy").expect("made and writable");
        assert!(d.join("x/y").is_dir());
        assert_eq!(std::fs::read_dir(d.join("x/y")).expect("dir").count(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_device_or_a_pipe_is_never_replaced_by_an_output() {
        let dir = tempfile::tempdir().expect("dir");
        let fifo = dir.path().join("pipe.ron");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let err = check_output(&fifo, "-o", &[], "ron").expect_err("a pipe");
            assert!(
                err.message.contains("not a regular file"),
                "{}",
                err.message
            );
            assert_eq!(err.code, 2);
        }
        // /dev/null has no extension; named as a level it is refused by its name already.
        let err = check_output(Path::new("/dev/null"), "-o", &[], "ron").expect_err("a device");
        assert_eq!(err.code, 2);
    }
}
