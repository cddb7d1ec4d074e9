//! `RecentFiles`: the levels opened lately, newest first, kept in a small RON file.

use std::path::{Path, PathBuf};

/// How many recent files are remembered.
pub const MAX_RECENT: usize = 10;

/// The recent-files list and the file it persists to (none: kept in memory only).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecentFiles {
    file: Option<PathBuf>,
    paths: Vec<PathBuf>,
}

impl RecentFiles {
    /// Loads the list from `file`; a missing or unreadable file gives an empty list.
    pub fn load(file: Option<PathBuf>) -> Self {
        let paths = file
            .as_deref()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .and_then(|text| ron::from_str::<Vec<PathBuf>>(&text).ok())
            .unwrap_or_default()
            .into_iter()
            .take(MAX_RECENT)
            .collect();
        Self { file, paths }
    }

    /// The remembered paths, newest first.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// Puts `path` first and saves the list.
    pub fn add(&mut self, path: &Path) {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.paths.retain(|p| *p != path);
        self.paths.insert(0, path);
        self.paths.truncate(MAX_RECENT);
        self.store();
    }

    /// Forgets `path` (it no longer opens) and saves the list.
    pub fn remove(&mut self, path: &Path) {
        self.paths.retain(|p| p != path);
        self.store();
    }

    /// Forgets every path and saves the list.
    pub fn clear(&mut self) {
        self.paths.clear();
        self.store();
    }

    fn store(&self) {
        let Some(file) = &self.file else { return };
        // A path that is not UTF-8 cannot be written as RON text: left out, not the whole list.
        let paths: Vec<&PathBuf> = self.paths.iter().filter(|p| p.to_str().is_some()).collect();
        if let Ok(text) = ron::ser::to_string_pretty(&paths, ron::ser::PrettyConfig::new()) {
            // Losing the recent list is not worth interrupting the user for.
            let _ = super::write_atomic(file, text.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn persists_newest_first_without_duplicates() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("recent.ron");
        let mut r = RecentFiles::load(Some(file.clone()));
        r.add(Path::new("/a.ron"));
        r.add(Path::new("/b.ron"));
        r.add(Path::new("/a.ron"));
        let again = RecentFiles::load(Some(file));
        assert_eq!(
            again.paths(),
            &[PathBuf::from("/a.ron"), PathBuf::from("/b.ron")]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_path_that_is_not_utf8_leaves_the_rest_of_the_list_saved() {
        // RON text cannot hold it: the whole list failed to save while it was in it.
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("recent.ron");
        let mut r = RecentFiles::load(Some(file.clone()));
        r.add(Path::new(std::ffi::OsStr::from_bytes(
            b"/caf\xe9/level.ron",
        )));
        r.add(Path::new("/b.ron"));
        let again = RecentFiles::load(Some(file));
        assert_eq!(again.paths(), [PathBuf::from("/b.ron")]);
    }
}
