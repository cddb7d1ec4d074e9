//! Output paths, checked before any work: a folder given for a level means its `level.ron`
//! (as input folders do), an output never overwrites one of the command's inputs, and the
//! output's folder is made and proved writable before a run of minutes, so a typo in a build
//! script costs neither the source data nor the run.

use std::path::{Path, PathBuf};

use super::CliError;

/// The file a project folder's level is kept in.
const LEVEL_FILE: &str = "level.ron";

/// The level file `-o PATH` names: `PATH/level.ron` when `PATH` is an existing folder or ends
/// with a path separator, else `PATH`.
pub fn level_output(path: &Path) -> PathBuf {
    let text = path.as_os_str().to_string_lossy();
    if path.is_dir() || text.ends_with('/') || text.ends_with(std::path::MAIN_SEPARATOR) {
        path.join(LEVEL_FILE)
    } else {
        path.to_path_buf()
    }
}

/// `path` made absolute and with links resolved as far as it exists (an output file usually
/// does not yet: its folder is resolved and its name appended).
fn resolved(path: &Path) -> PathBuf {
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
/// the command runs: not a folder, not one of `inputs`, its folder made and writable.
pub fn check_output(out: &Path, what: &str, inputs: &[&Path]) -> Result<(), CliError> {
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
    super::create_parent(out)?;
    let dir = super::level_folder(out);
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
        let err = check_output(&file, "-o", &[&d.join("./a.ron")]).expect_err("same file");
        assert!(err.message.contains("is the input"), "{}", err.message);
        assert_eq!(err.code, 2);
        let err = check_output(d, "--dump-depth", &[]).expect_err("a folder");
        assert!(err.message.contains("names a folder"), "{}", err.message);
        let deep = d.join("x/y/out.npy");
        check_output(&deep, "--dump-depth", &[&file]).expect("made and writable");
        assert!(d.join("x/y").is_dir());
        assert_eq!(std::fs::read_dir(d.join("x/y")).expect("dir").count(), 0);
    }
}
