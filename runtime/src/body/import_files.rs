//! Where an imported glTF's bytes come from: files inside the level's folder (never out of
//! it, by name or through links), size-checked before they are read, and `data:` URIs.

use std::path::{Component, Path, PathBuf};

use super::{ImportLimits, ImportProblem};

/// The most values (objects, arrays and the items between their commas) a glTF's JSON may
/// hold: far more than a scene of bodies needs, and few enough that the parser's own
/// structures stay in the tens of megabytes (a 3 MB file of `{},` made a vector of 200 MB).
pub(super) const MAX_JSON_VALUES: usize = 1 << 18;

/// The JSON of glTF bytes (a `.glb`'s first chunk, else all of them), checked to hold no more
/// than [`MAX_JSON_VALUES`] values before it is parsed: counted outside strings, so `data:`
/// URIs cost nothing.
pub(super) fn check_json_size(bytes: &[u8]) -> Result<(), ImportProblem> {
    let json = match bytes {
        [
            b'g',
            b'l',
            b'T',
            b'F',
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            l0,
            l1,
            l2,
            l3,
            b'J',
            b'S',
            b'O',
            b'N',
            rest @ ..,
        ] => {
            let len = u32::from_le_bytes([*l0, *l1, *l2, *l3]) as usize;
            &rest[..len.min(rest.len())]
        }
        _ => bytes,
    };
    let (mut values, mut in_string, mut escaped) = (0usize, false, false);
    for &b in json {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' | b',' => values += 1,
            _ => {}
        }
        if values > MAX_JSON_VALUES {
            return Err(ImportProblem::Oversized {
                what: "the count of values in its JSON",
                size: values as u64,
                limit: MAX_JSON_VALUES as u64,
            });
        }
    }
    Ok(())
}

/// Reads a whole file after checking its size.
pub(super) fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ImportProblem> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        // A device or a pipe says it is empty and never ends (`/dev/zero`), or never answers.
        return Err(ImportProblem::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a device, a pipe or a folder)",
        )));
    }
    let size = meta.len();
    if size > limit {
        return Err(ImportProblem::Oversized {
            what: "the file",
            size,
            limit,
        });
    }
    // No more than it said, should it grow while being read.
    let mut bytes = Vec::with_capacity(size as usize);
    std::io::Read::read_to_end(
        &mut std::io::Read::take(std::fs::File::open(path)?, limit.saturating_add(1)),
        &mut bytes,
    )?;
    if bytes.len() as u64 > limit {
        return Err(ImportProblem::Oversized {
            what: "the file",
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// `relative` joined to `root`, refused if it leaves `root` by name or through links.
pub(super) fn inside(root: &Path, relative: &Path) -> Result<PathBuf, ImportProblem> {
    let outside = || ImportProblem::OutsideFolder(format!("`{}`", relative.display()));
    let mut depth = 0usize;
    for c in relative.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => depth = depth.checked_sub(1).ok_or_else(outside)?,
            Component::RootDir | Component::Prefix(_) => return Err(outside()),
        }
    }
    let joined = root.join(relative);
    // A level named without a folder (`level.ron`) has the empty path as its folder: the
    // current folder, which canonicalises (the empty path does not, and skipped the check).
    let base = if root.as_os_str().is_empty() {
        Path::new(".")
    } else {
        root
    };
    if let (Ok(r), Ok(j)) = (base.canonicalize(), base.join(relative).canonicalize())
        && !j.starts_with(&r)
    {
        return Err(outside());
    }
    Ok(joined)
}

/// The bytes of an external or `data:` buffer.
pub(super) fn uri_bytes(
    uri: &str,
    folder: &Path,
    root: &Path,
    limits: &ImportLimits,
    index: usize,
) -> Result<Vec<u8>, ImportProblem> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let Some((_, b64)) = rest.split_once(";base64,") else {
            return Err(ImportProblem::Unsupported(format!(
                "buffer {index}: a data URI that is not base64"
            )));
        };
        if b64.len() as u64 / 4 * 3 > limits.max_file_bytes {
            return Err(ImportProblem::Oversized {
                what: "an embedded buffer",
                size: b64.len() as u64 / 4 * 3,
                limit: limits.max_file_bytes,
            });
        }
        return base64(b64)
            .ok_or_else(|| ImportProblem::Broken(format!("buffer {index}: bad base64 data")));
    }
    if uri.contains(':') {
        return Err(ImportProblem::OutsideFolder(format!(
            "buffer {index} (`{uri}`)"
        )));
    }
    let decoded = percent_decode(uri);
    let rel_folder = folder.strip_prefix(root).unwrap_or(Path::new(""));
    let path = inside(root, &rel_folder.join(&decoded))
        .map_err(|_| ImportProblem::OutsideFolder(format!("buffer {index} (`{decoded}`)")))?;
    if !path.exists() {
        return Err(ImportProblem::MissingBuffer {
            index,
            why: format!("`{decoded}` does not exist"),
        });
    }
    // Said of the buffer's own file, not of the glTF that names it.
    read_limited(&path, limits.max_file_bytes).map_err(|problem| match problem {
        ImportProblem::Oversized { size, limit, .. } => ImportProblem::MissingBuffer {
            index,
            why: format!("`{decoded}` is {size} bytes, over the limit of {limit}"),
        },
        ImportProblem::Io(e) => ImportProblem::MissingBuffer {
            index,
            why: format!("`{decoded}` cannot be read: {e}"),
        },
        other => other,
    })
}

/// A glTF file's relative URI as the file name it stands for: `%XX` escapes decoded, as this
/// importer resolves external buffers (so a tool copying a `.gltf` with its buffers finds the
/// same files).
pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).and_then(|&c| hex(c)),
                b.get(i + 2).and_then(|&c| hex(c)),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn base64(s: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in s
        .as_bytes()
        .iter()
        .filter(|c| !c.is_ascii_whitespace() && **c != b'=')
    {
        acc = acc << 6 | value(c)? as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_link_out_of_the_current_folder_is_refused_for_a_level_named_without_a_folder() {
        // `level.ron` alone: its folder is the empty path, the current folder.
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("secret.glb");
        std::fs::write(&target, b"glTF").unwrap();
        let link = PathBuf::from(format!(".inside-test-{}.glb", std::process::id()));
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let refused = inside(Path::new(""), &link);
        let plain = inside(Path::new(""), Path::new("Cargo.toml"));
        std::fs::remove_file(&link).unwrap();
        assert!(
            matches!(refused, Err(ImportProblem::OutsideFolder(_))),
            "{refused:?}"
        );
        assert_eq!(plain.unwrap(), PathBuf::from("Cargo.toml"));
    }
}
