//! The binary grid sidecar: `NAME.<crc32>.grids` beside `NAME.ron`, holding the magic bytes
//! `SPWGRID1` followed by the grids one after another, each as raw little-endian `f32` or
//! compressed (`ShuffleLz4`, see `codec.rs`). The level file references each grid by byte
//! offset, byte length, CRC-32 and encoding.
//!

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::atomic::TempFile;
use crate::error::{LevelError, SidecarProblem};

/// First bytes of every sidecar file.
pub(super) const MAGIC: &[u8; 8] = b"SPWGRID1";

/// Extension of sidecar files.
pub(super) const EXTENSION: &str = "grids";

/// Values converted per write call when saving.
const WRITE_CHUNK: usize = 1 << 16;

/// Values read and converted per read call when loading.
const READ_CHUNK: usize = 1 << 16;

/// Where one grid's values are stored, as written in the level file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GridRef {
    /// Sidecar file name, in the level file's folder.
    pub file: String,
    /// Byte offset of the first value in the sidecar.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
    /// CRC-32 (IEEE) of those bytes.
    pub crc32: u32,
    /// How the values are encoded.
    pub encoding: Encoding,
}

/// Encoding of a grid's values in the sidecar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Encoding {
    /// Raw little-endian IEEE-754 `f32`, row by row.
    F32Le,
    /// Chunks of byte-shuffled, LZ4-compressed `f32` (`level::codec`); written where it saves
    /// at least a tenth of the raw bytes.
    ShuffleLz4,
}

/// Encoded bytes must be below this share of the raw ones for a grid to be stored compressed.
const WORTH_COMPRESSING: f64 = 0.9;

/// One grid to load: its name in messages, its reference and the number of values it must hold.
pub(super) struct GridRequest<'a> {
    /// Field name, e.g. `terrain` or `flow.flow_x`.
    pub name: &'static str,
    /// The reference from the level file.
    pub grid: &'a GridRef,
    /// Number of `f32` values expected.
    pub cells: usize,
}

/// Whether `name` is a plain file name (no folder, no `..`, no drive or root).
fn is_plain_file_name(name: &str) -> bool {
    if name.is_empty() || name.contains(['/', '\\', ':', '\0']) {
        return false;
    }
    let mut components = Path::new(name).components();
    matches!(
        (components.next(), components.next()),
        (Some(Component::Normal(_)), None)
    )
}

/// Reads and checks the requested grids from their sidecars in `store`. Every declared length is
/// checked against the grid size, and every sidecar's length against the declared ranges, before
/// any grid memory is allocated. Grids are read, checksummed and converted in parallel.
pub(super) fn read_grids(
    level_path: &Path,
    store: &Sidecars<'_>,
    requests: &[GridRequest<'_>],
) -> Result<Vec<Vec<f32>>, LevelError> {
    let fail = |req: &GridRequest<'_>, problem| LevelError::Sidecar {
        path: level_path.to_path_buf(),
        grid: req.name.to_string(),
        sidecar: req.grid.file.clone(),
        problem,
    };

    // Check references and sidecar lengths first: nothing is allocated before this passes.
    let mut file_lens: HashMap<&str, u64> = HashMap::new();
    for req in requests {
        let grid = req.grid;
        if !is_plain_file_name(&grid.file) {
            return Err(fail(req, SidecarProblem::OutsideFolder));
        }
        let cells = req.cells as u64;
        let expected = cells.saturating_mul(4);
        match grid.encoding {
            Encoding::F32Le if grid.len != expected => {
                return Err(fail(
                    req,
                    SidecarProblem::WrongLength {
                        len: grid.len,
                        cells,
                        expected,
                    },
                ));
            }
            Encoding::ShuffleLz4 if grid.len > crate::level::codec::max_encoded_len(req.cells) => {
                return Err(fail(
                    req,
                    SidecarProblem::TooLong {
                        len: grid.len,
                        cells,
                        most: crate::level::codec::max_encoded_len(req.cells),
                    },
                ));
            }
            _ => {}
        }
        let file_len = match file_lens.get(grid.file.as_str()) {
            Some(&len) => len,
            None => {
                let sidecar = store.path(&grid.file);
                let len = check_header(store, &grid.file).map_err(|e| match e {
                    HeaderError::Problem(p) => fail(req, p),
                    HeaderError::Io(source) => LevelError::Io {
                        path: sidecar.clone(),
                        action: "read the grid sidecar",
                        source,
                    },
                })?;
                file_lens.insert(&grid.file, len);
                len
            }
        };
        let end = grid.offset.saturating_add(grid.len);
        if end > file_len {
            return Err(fail(
                req,
                SidecarProblem::Truncated {
                    start: grid.offset,
                    end,
                    file_len,
                },
            ));
        }
    }

    requests
        .par_iter()
        .map(|req| {
            let grid = req.grid;
            let sidecar = store.path(&grid.file);
            let read = store
                .open(&grid.file)
                .and_then(|(mut file, _)| match grid.encoding {
                    Encoding::F32Le => {
                        read_grid(&mut *file, grid.offset, req.cells).map(|(v, crc)| (Ok(v), crc))
                    }
                    Encoding::ShuffleLz4 => {
                        read_encoded(&mut *file, grid.offset, grid.len, req.cells)
                    }
                });
            let (values, actual) = read.map_err(|source| {
                if source.kind() == io::ErrorKind::UnexpectedEof {
                    let file_len = store.open(&grid.file).map_or(0, |(_, len)| len);
                    fail(
                        req,
                        SidecarProblem::Truncated {
                            start: grid.offset,
                            end: grid.offset.saturating_add(grid.len),
                            file_len,
                        },
                    )
                } else {
                    LevelError::Io {
                        path: sidecar.clone(),
                        action: "read the grid sidecar",
                        source,
                    }
                }
            })?;
            if actual != grid.crc32 {
                return Err(fail(
                    req,
                    SidecarProblem::ChecksumMismatch {
                        expected: grid.crc32,
                        actual,
                    },
                ));
            }
            values.map_err(|why| fail(req, SidecarProblem::Undecodable(why)))
        })
        .collect()
}

enum HeaderError {
    Problem(SidecarProblem),
    Io(io::Error),
}

/// Where a level's sidecars are read from: the level file's folder, or bytes a game holds.
pub(super) enum Sidecars<'a> {
    /// Files in this folder.
    Folder(&'a Path),
    /// Files given by name, with their bytes.
    Given(&'a [(&'a str, &'a [u8])]),
}

/// A sidecar opened for reading.
trait ReadSeek: Read + Seek {}
impl<T: Read + Seek> ReadSeek for T {}

impl Sidecars<'_> {
    /// The sidecar `name` as messages name it: its path in the folder, or the name given.
    fn path(&self, name: &str) -> PathBuf {
        match self {
            Sidecars::Folder(dir) => dir.join(name),
            Sidecars::Given(_) => PathBuf::from(name),
        }
    }

    /// Opens the sidecar `name` at its start, with its length in bytes. A name that was not
    /// given reads as a file that is not there (`NotFound`).
    fn open(&self, name: &str) -> io::Result<(Box<dyn ReadSeek + '_>, u64)> {
        match self {
            Sidecars::Folder(dir) => {
                let file = super::text::open_plain(&dir.join(name))?;
                let len = file.metadata()?.len();
                Ok((Box::new(file), len))
            }
            Sidecars::Given(files) => {
                let (_, bytes) = files.iter().find(|(n, _)| *n == name).ok_or_else(|| {
                    io::Error::new(io::ErrorKind::NotFound, "no sidecar of that name was given")
                })?;
                Ok((Box::new(io::Cursor::new(*bytes)), bytes.len() as u64))
            }
        }
    }
}

/// Opens a sidecar, checks its magic bytes and returns its length.
fn check_header(store: &Sidecars<'_>, name: &str) -> Result<u64, HeaderError> {
    let (mut file, len) = store.open(name).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            HeaderError::Problem(SidecarProblem::Missing(store.path(name)))
        } else {
            HeaderError::Io(e)
        }
    })?;
    let mut magic = [0u8; MAGIC.len()];
    if len < MAGIC.len() as u64 {
        return Err(HeaderError::Problem(SidecarProblem::BadMagic));
    }
    file.read_exact(&mut magic).map_err(HeaderError::Io)?;
    if &magic != MAGIC {
        return Err(HeaderError::Problem(SidecarProblem::BadMagic));
    }
    Ok(len)
}

/// Reads `cells` little-endian `f32` values at `offset` (the length was checked by the
/// caller) and returns them with the CRC-32 of their bytes. Reads through a cache-sized buffer,
/// checksumming and converting as it goes, so only the result is allocated at full size.
fn read_grid(file: &mut dyn ReadSeek, offset: u64, cells: usize) -> io::Result<(Vec<f32>, u32)> {
    file.seek(SeekFrom::Start(offset))?;
    let mut values = Vec::with_capacity(cells);
    let mut hasher = crc32fast::Hasher::new();
    let mut buf = vec![0u8; READ_CHUNK * 4];
    while values.len() < cells {
        let n = (cells - values.len()).min(READ_CHUNK) * 4;
        let bytes = &mut buf[..n];
        file.read_exact(bytes)?;
        hasher.update(bytes);
        let (chunks, _) = bytes.as_chunks::<4>();
        values.extend(chunks.iter().map(|&b| f32::from_le_bytes(b)));
    }
    Ok((values, hasher.finalize()))
}

/// Reads the `len` encoded bytes at `offset` and returns their values (or why they do not
/// decode) with the CRC-32 of the bytes. `len` was checked against the grid's most by the
/// caller, so the read allocates no more than the grid would.
fn read_encoded(
    file: &mut dyn ReadSeek,
    offset: u64,
    len: u64,
    cells: usize,
) -> io::Result<(Result<Vec<f32>, String>, u32)> {
    file.seek(SeekFrom::Start(offset))?;
    let mut bytes = vec![0u8; len as usize];
    file.read_exact(&mut bytes)?;
    let crc = crc32fast::hash(&bytes);
    Ok((crate::level::codec::decode(&bytes, cells), crc))
}

/// A sidecar that has been written and renamed into place.
pub(super) struct WrittenSidecar {
    /// Its file name, in the level's folder.
    pub file_name: String,
    /// References to the grids, in the order they were given.
    pub refs: Vec<GridRef>,
    /// Whether this save made it (else an identical sidecar was there already, perhaps the
    /// one the level on disk references).
    pub fresh: bool,
}

/// Writes `grids` to a new sidecar named after `stem` and its content checksum, atomically:
/// a temporary file is written and synced, then renamed to `STEM.<crc32>.grids`. A sidecar of
/// that name with identical content is reused; one with different content is left alone and a
/// `STEM.<crc32>-N.grids` name is used instead, so a sidecar that a level file references is
/// never overwritten.
pub(super) fn write_sidecar(
    dir: &Path,
    stem: &str,
    grids: &[&[f32]],
    compress: bool,
    progress: &mut dyn FnMut(f32) -> bool,
) -> Result<WrittenSidecar, LevelError> {
    let io_err = |path: &Path, action, source| LevelError::Io {
        path: path.to_path_buf(),
        action,
        source,
    };
    let all = grids.iter().map(|g| g.len()).sum::<usize>().max(1) as f64;
    // Compressing is the first half of the progress (it takes longer than writing), and Cancel
    // stops it between grids.
    let (written_from, written_share) = if compress { (0.5, 0.5) } else { (0.0, 1.0) };
    let cancelled = || io::Error::new(io::ErrorKind::Interrupted, "cancelled");
    // Each grid compressed where that saves at least a tenth of its bytes (its chunks in
    // parallel).
    let mut encoded: Vec<Option<Vec<u8>>> = Vec::with_capacity(grids.len());
    let mut squeezed = 0usize;
    for g in grids {
        if !compress {
            encoded.push(None);
            continue;
        }
        let bytes = crate::level::codec::encode(g);
        let worth = (bytes.len() as f64) < WORTH_COMPRESSING * 4.0 * g.len() as f64;
        encoded.push(worth.then_some(bytes));
        squeezed += g.len();
        if !progress((0.5 * squeezed as f64 / all) as f32) {
            return Err(io_err(dir, "compress the grids", cancelled()));
        }
    }
    let mut temp = TempFile::create(dir, &format!("{stem}.{EXTENSION}"))
        .map_err(|e| io_err(dir, "create a temporary sidecar", e))?;
    let mut total = crc32fast::Hasher::new();
    let mut offsets = Vec::with_capacity(grids.len());
    let written = (|| -> io::Result<()> {
        let file = temp.file()?;
        file.write_all(MAGIC)?;
        total.update(MAGIC);
        let mut offset = MAGIC.len() as u64;
        let mut buf = Vec::with_capacity(WRITE_CHUNK * 4);
        let mut done = 0usize;
        let mut report =
            |done: usize| progress((written_from + written_share * done as f64 / all) as f32);
        for (grid, encoded) in grids.iter().zip(&encoded) {
            let mut hasher = crc32fast::Hasher::new();
            let len = match encoded {
                Some(bytes) => {
                    hasher.update(bytes);
                    file.write_all(bytes)?;
                    done += grid.len();
                    if !report(done) {
                        return Err(cancelled());
                    }
                    bytes.len() as u64
                }
                None => {
                    for chunk in grid.chunks(WRITE_CHUNK) {
                        buf.clear();
                        buf.extend(chunk.iter().flat_map(|v| v.to_le_bytes()));
                        hasher.update(&buf);
                        file.write_all(&buf)?;
                        done += chunk.len();
                        if !report(done) {
                            return Err(cancelled());
                        }
                    }
                    grid.len() as u64 * 4
                }
            };
            total.combine(&hasher);
            let encoding = if encoded.is_some() {
                Encoding::ShuffleLz4
            } else {
                Encoding::F32Le
            };
            offsets.push((offset, len, hasher.finalize(), encoding));
            offset += len;
        }
        file.sync_all()
    })();
    // Named as the user knows it (its checksum name comes after it is written), never by the
    // hidden temporary copy's name.
    let sidecar = dir.join(format!("{stem}.{EXTENSION}"));
    written.map_err(|e| io_err(&sidecar, "write the grid sidecar", e))?;

    let hash = total.finalize();
    let mut file_name = String::new();
    let mut fresh = false;
    for n in 0u32.. {
        file_name = match n {
            0 => format!("{stem}.{hash:08x}.{EXTENSION}"),
            n => format!("{stem}.{hash:08x}-{n}.{EXTENSION}"),
        };
        let target = dir.join(&file_name);
        match same_content(temp.path(), &target) {
            Ok(Some(true)) => break, // identical sidecar already there: keep it, drop ours
            Ok(Some(false)) if n < 1000 => continue,
            Ok(None) => {
                temp.persist(&target)
                    .map_err(|e| io_err(&target, "rename the grid sidecar into place", e))?;
                // Its name on disk before the level file's (renames may reach the disk out of
                // order: a power cut could keep the new level file naming grids not there).
                super::atomic::sync_dir(dir);
                fresh = true;
                break;
            }
            Ok(Some(false)) => {
                let e = io::Error::new(io::ErrorKind::AlreadyExists, "too many checksum twins");
                return Err(io_err(&target, "choose a sidecar name", e));
            }
            Err(e) => return Err(io_err(&target, "compare with the existing sidecar", e)),
        }
    }

    let refs = offsets
        .into_iter()
        .map(|(offset, len, crc32, encoding)| GridRef {
            file: file_name.clone(),
            offset,
            len,
            crc32,
            encoding,
        })
        .collect();
    Ok(WrittenSidecar {
        file_name,
        refs,
        fresh,
    })
}

/// `None` if `b` does not exist, else whether the two files hold the same bytes.
fn same_content(a: &Path, b: &Path) -> io::Result<Option<bool>> {
    let mut fb = match File::open(b) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut fa = File::open(a)?;
    if fa.metadata()?.len() != fb.metadata()?.len() {
        return Ok(Some(false));
    }
    let (mut ba, mut bb) = (vec![0u8; 1 << 20], vec![0u8; 1 << 20]);
    loop {
        let n = fa.read(&mut ba)?;
        if n == 0 {
            return Ok(Some(true));
        }
        fb.read_exact(&mut bb[..n])?;
        if ba[..n] != bb[..n] {
            return Ok(Some(false));
        }
    }
}

/// Whether `name` is a sidecar this module names for the level stem `stem`:
/// `STEM.<8 hex>.grids` or `STEM.<8 hex>-N.grids`.
fn is_own_sidecar(name: &str, stem: &str) -> bool {
    let Some(rest) = name
        .strip_prefix(stem)
        .and_then(|r| r.strip_prefix('.'))
        .and_then(|r| r.strip_suffix(".grids"))
    else {
        return false;
    };
    let (hash, twin) = match rest.split_once('-') {
        Some((h, n)) => (h, Some(n)),
        None => (rest, None),
    };
    hash.len() == 8
        && hash.bytes().all(|b| b.is_ascii_hexdigit())
        && twin.is_none_or(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Largest file read to see whether it names a sidecar (a level file's text is far smaller).
const MAX_NAMING_FILE: u64 = 64 << 20;

/// Extensions of files that are never level files (bodies, heightmaps, grids).
const NOT_LEVELS: [&str; 9] = [
    "grids", "glb", "gltf", "bin", "png", "npy", "r16", "raw", "jpg",
];

/// Removes this level's sidecars other than `keep`, except those another file of the folder
/// names (a copy of the level file, `backup.ron`, still reads the grids it was saved with):
/// best effort, a stale sidecar left behind only costs disk space.
pub(super) fn remove_stale_sidecars(dir: &Path, stem: &str, keep: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let stale: Vec<String> = (entries.flatten())
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|name| name != keep && is_own_sidecar(name, stem))
        .collect();
    if stale.is_empty() {
        return;
    }
    let named = named_elsewhere(dir, &stale, keep);
    for name in stale.iter().filter(|n| !named.contains(n)) {
        let _ = fs::remove_file(dir.join(name));
    }
}

/// Which of `names` a file of `dir` (a level file other than the one whose sidecar is `keep`)
/// mentions.
fn named_elsewhere(dir: &Path, names: &[String], keep: &str) -> Vec<String> {
    let mut named = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return names.to_vec();
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let small = entry
            .metadata()
            .is_ok_and(|m| m.is_file() && m.len() <= MAX_NAMING_FILE);
        if !small || NOT_LEVELS.iter().any(|n| ext.eq_ignore_ascii_case(n)) {
            continue;
        }
        let Ok(text) = fs::read(&path) else { continue };
        let text = String::from_utf8_lossy(&text);
        if text.contains(keep) {
            // The level just saved (or a copy naming the new grids): what it names is kept.
            continue;
        }
        named.extend(names.iter().filter(|n| text.contains(n.as_str())).cloned());
    }
    named
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_only() {
        assert!(is_plain_file_name("level.0a1b2c3d.grids"));
        for bad in [
            "",
            ".",
            "..",
            "../x.grids",
            "/x.grids",
            "a/b.grids",
            "a\\b",
            "C:x",
        ] {
            assert!(!is_plain_file_name(bad), "{bad}");
        }
    }

    #[test]
    fn own_sidecars() {
        assert!(is_own_sidecar("lvl.0a1b2c3d.grids", "lvl"));
        assert!(is_own_sidecar("lvl.0a1b2c3d-2.grids", "lvl"));
        assert!(!is_own_sidecar("lvl.b.0a1b2c3d.grids", "lvl"));
        assert!(!is_own_sidecar("lvl.0a1b2c3.grids", "lvl"));
        assert!(!is_own_sidecar("lvl.0a1b2c3d-.grids", "lvl"));
        assert!(!is_own_sidecar("other.0a1b2c3d.grids", "lvl"));
    }
}
