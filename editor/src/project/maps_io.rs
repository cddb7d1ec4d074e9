//! Export of the maps of a run for a game: each map as a `.npy` of 32-bit floats (exact values,
//! NumPy's format) and a 16-bit PNG over the map's range, with `maps.txt` saying each PNG's
//! range and unit. `spillway bake --maps DIR` and the editor's File menu write the same files.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use spillway::sim::maps::{MapKind, NEVER, RunMaps};

use super::heightmap_io::{self, HeightRange, HeightmapFormat, HeightmapIoError};

/// Writes the maps into folder `dir` (made if missing): `max_depth.npy`, `max_depth.png`, … and
/// `maps.txt`. Returns the files written.
pub fn export_maps(dir: &Path, maps: &RunMaps) -> Result<Vec<PathBuf>, HeightmapIoError> {
    export_maps_with(dir, maps, &mut |_| true)
}

/// As [`export_maps`], telling `report` the share done before each map; it stops once `report`
/// says no, with the files written so far and a `maps.txt` naming only them (an older
/// `maps.txt` in the folder gave other ranges for the PNGs just written over).
pub fn export_maps_with(
    dir: &Path,
    maps: &RunMaps,
    report: &mut dyn FnMut(f32) -> bool,
) -> Result<Vec<PathBuf>, HeightmapIoError> {
    std::fs::create_dir_all(dir).map_err(|source| HeightmapIoError::Io {
        path: dir.to_path_buf(),
        action: "write",
        source,
    })?;
    // The old index goes first: a run stopped half-way (Ctrl+C) left it beside new PNGs, its
    // ranges those of another run, read back at the wrong scale.
    let txt = dir.join("maps.txt");
    match std::fs::remove_file(&txt) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(HeightmapIoError::Io {
                path: txt,
                action: "write",
                source: e,
            });
        }
        _ => {}
    }
    let mut written = Vec::new();
    let mut index = String::from(
        "# Maps of a Spillway run: sample 0 of each 16-bit PNG is `min`, sample 65535 is `max`.\n\
         # The .npy files hold the exact values (32-bit floats, row-major, nx columns).\n",
    );
    let _ = writeln!(index, "size {} x {}", maps.nx, maps.ny);
    for (k, kind) in MapKind::ALL.into_iter().enumerate() {
        if !report(k as f32 / MapKind::ALL.len() as f32) {
            index.push_str("# Cancelled: the maps not listed were not written.\n");
            break;
        }
        let grid = maps.grid(kind);
        let most = grid.data.iter().copied().fold(0.0f32, f32::max);
        // Arrival: never-reached cells (-1) are black, the earliest arrival just above.
        let min = if kind == MapKind::Arrival { NEVER } else { 0.0 };
        let range = HeightRange {
            min,
            max: most.max(min + 1e-3),
        };
        for format in [HeightmapFormat::Npy, HeightmapFormat::Png16] {
            let path = dir.join(format!("{}.{}", kind.stem(), format.extension()));
            heightmap_io::export_values(&path, &grid, format, range)?;
            written.push(path);
        }
        let _ = writeln!(
            index,
            "{}.png: {} in {}, min {} max {}{}",
            kind.stem(),
            kind.name(),
            kind.unit(),
            range.min,
            range.max,
            if kind == MapKind::Arrival {
                " (-1: never reached)"
            } else {
                ""
            }
        );
    }
    super::write_atomic(&txt, index.as_bytes()).map_err(|source| HeightmapIoError::Io {
        path: txt.clone(),
        action: "write",
        source,
    })?;
    written.push(txt);
    Ok(written)
}

#[cfg(test)]
mod tests {
    use spillway::sim::maps::RunMaps;

    #[test]
    fn a_long_runs_arrival_times_are_written() {
        // Times past the ±1e6 a height may be were refused as a height range, half-way
        // through the folder.
        let dir = tempfile::tempdir().expect("temp dir");
        let maps = RunMaps {
            nx: 2,
            ny: 2,
            max_depth: vec![0.0, 1.0, 2.0, 0.5],
            max_speed: vec![0.0, 1.0, 2.0, 0.5],
            arrival: vec![-1.0, 10.0, 1.2e6, 5.0e6],
            hazard: vec![0.0, 1.0, 2.0, 0.5],
        };
        let written = super::export_maps(dir.path(), &maps).expect("written");
        assert!(written.iter().any(|p| p.ends_with("arrival.png")));
        // Seconds are no heights: no range an import would take is noted in the PNG.
        let png = dir.path().join("arrival.png");
        assert_eq!(crate::heightmap::png::range_note(&png), None);
        // Stopped after the first map (Cancel): its files only, and the share told.
        let other = dir.path().join("stopped");
        let mut shares = Vec::new();
        let written = super::export_maps_with(&other, &maps, &mut |share| {
            shares.push(share);
            share == 0.0
        })
        .expect("written so far");
        assert_eq!(shares, vec![0.0, 0.25]);
        assert_eq!(written.len(), 3, "{written:?}");
        // Its maps.txt names the map written, and only it.
        let txt = std::fs::read_to_string(other.join("maps.txt")).expect("maps.txt");
        assert!(txt.contains("max_depth.png"), "{txt}");
        assert!(!txt.contains("max_speed.png"), "{txt}");
        assert!(txt.contains("Cancelled"), "{txt}");
        // Killed half-way (Ctrl+C) over that folder: no index of the earlier run is left beside
        // the new PNGs (its ranges were another run's).
        let killed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            super::export_maps_with(&other, &maps, &mut |share| {
                assert!(share < 0.5, "killed");
                true
            })
        }));
        assert!(killed.is_err());
        assert!(!other.join("maps.txt").exists(), "the old index is gone");
    }
}
