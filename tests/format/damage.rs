//! Damaged files are refused with one-line messages naming the file, the place and the problem.

use std::fs;

use spillway::LevelError;
use spillway::error::SidecarProblem;

use crate::{edit_ron, grid_ref, load_err, patch_value, rich_level, saved_raw};

#[test]
fn truncated_sidecar() {
    let (_dir, path) = saved_raw(&rich_level(20, 10));
    let text = fs::read_to_string(&path).expect("read");
    let water = grid_ref(&text, "water");
    let sidecar = path.with_file_name(&water.file);
    let bytes = fs::read(&sidecar).expect("read");
    fs::write(&sidecar, &bytes[..water.offset + 10]).expect("truncate");
    let err = load_err(&path, &["`water`", &water.file, "truncated"]);
    assert!(
        matches!(
            err,
            LevelError::Sidecar {
                problem: SidecarProblem::Truncated { .. },
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn flipped_byte_fails_the_checksum() {
    let (_dir, path) = saved_raw(&rich_level(20, 10));
    let text = fs::read_to_string(&path).expect("read");
    let terrain = grid_ref(&text, "terrain");
    let sidecar = path.with_file_name(&terrain.file);
    let mut bytes = fs::read(&sidecar).expect("read");
    bytes[terrain.offset + 123] ^= 0x10;
    fs::write(&sidecar, &bytes).expect("write");
    let err = load_err(&path, &["`terrain`", "checksum mismatch"]);
    assert!(
        matches!(
            err,
            LevelError::Sidecar {
                problem: SidecarProblem::ChecksumMismatch { .. },
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn flipped_byte_in_flow_state_names_the_flow_grid() {
    let (_dir, path) = saved_raw(&rich_level(20, 10));
    let text = fs::read_to_string(&path).expect("read");
    let flow_y = grid_ref(&text, "flow_y");
    let sidecar = path.with_file_name(&flow_y.file);
    let mut bytes = fs::read(&sidecar).expect("read");
    bytes[flow_y.offset + flow_y.len - 1] ^= 1;
    fs::write(&sidecar, &bytes).expect("write");
    load_err(&path, &["`flow.flow_y`", "checksum mismatch"]);
}

#[test]
fn missing_sidecar() {
    let (_dir, path) = saved_raw(&rich_level(6, 6));
    let text = fs::read_to_string(&path).expect("read");
    let terrain = grid_ref(&text, "terrain");
    fs::remove_file(path.with_file_name(&terrain.file)).expect("remove");
    let err = load_err(&path, &["`terrain`", &terrain.file, "missing"]);
    assert!(
        matches!(
            err,
            LevelError::Sidecar {
                problem: SidecarProblem::Missing(_),
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn sidecar_outside_the_level_folder_is_refused() {
    let (dir, path) = saved_raw(&rich_level(6, 6));
    let text = fs::read_to_string(&path).expect("read");
    let terrain = grid_ref(&text, "terrain");
    // Put a perfectly good sidecar one folder up: it must still not be read.
    let inner = dir.path().join("inner");
    fs::create_dir(&inner).expect("mkdir");
    let moved = inner.join("level.ron");
    fs::rename(&path, &moved).expect("move level");
    fs::rename(dir.path().join(&terrain.file), dir.path().join("x.grids")).expect("move sidecar");
    for bad in [
        "../x.grids",
        "/tmp/x.grids",
        "sub/x.grids",
        "..",
        "C:x.grids",
        "..\\\\x.grids",
    ] {
        let text = fs::read_to_string(&moved).expect("read");
        fs::write(&moved, text.replace(&terrain.file, bad)).expect("write");
        let err = load_err(&moved, &["`terrain`", "plain file name"]);
        assert!(
            matches!(
                err,
                LevelError::Sidecar {
                    problem: SidecarProblem::OutsideFolder,
                    ..
                }
            ),
            "{bad}: {err:?}"
        );
        fs::write(&moved, &text).expect("restore");
    }
}

#[test]
fn sidecar_with_wrong_magic() {
    let (_dir, path) = saved_raw(&rich_level(6, 6));
    let text = fs::read_to_string(&path).expect("read");
    let sidecar = path.with_file_name(grid_ref(&text, "terrain").file);
    let mut bytes = fs::read(&sidecar).expect("read");
    bytes[0] = b'X';
    fs::write(&sidecar, &bytes).expect("write");
    load_err(&path, &["`terrain`", "magic"]);
}

#[test]
fn nan_in_a_grid_names_the_cell() {
    let (nx, ny) = (20, 10);
    let (_dir, path) = saved_raw(&rich_level(nx, ny));
    patch_value(&path, "terrain", 7 * nx + 3, f32::NAN);
    let err = load_err(
        &path,
        &["`terrain(x=3, y=7)`", "NaN", "not a finite number"],
    );
    assert!(matches!(err, LevelError::Invalid { .. }), "{err:?}");
}

#[test]
fn infinity_in_flow_state_names_the_face() {
    let (nx, ny) = (20, 10);
    let (_dir, path) = saved_raw(&rich_level(nx, ny));
    patch_value(&path, "flow_x", 2 * (nx + 1) + nx, f32::INFINITY);
    load_err(&path, &["`flow.flow_x(x=20, y=2)`", "inf"]);
}

#[test]
fn negative_depth_names_the_cell() {
    let (nx, ny) = (20, 10);
    let (_dir, path) = saved_raw(&rich_level(nx, ny));
    patch_value(&path, "water", 4 * nx + 11, -0.5);
    load_err(&path, &["`water(x=11, y=4)`", "-0.5", "negative"]);
}

#[test]
fn newer_format_version_is_refused() {
    let (_dir, path) = saved_raw(&rich_level(6, 6));
    edit_ron(&path, "format_version: 3,", "format_version: 7,");
    let err = load_err(&path, &["format_version 7", "newer", "up to 3"]);
    assert!(
        matches!(
            err,
            LevelError::UnsupportedVersion {
                found: 7,
                supported: spillway::level::FORMAT_VERSION,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn version_zero_is_refused() {
    let (_dir, path) = saved_raw(&rich_level(6, 6));
    edit_ron(&path, "format_version: 3,", "format_version: 0,");
    load_err(&path, &["`format_version`"]);
}

/// 1-based line number of the first line containing `needle`.
fn line_of(path: &std::path::Path, needle: &str) -> usize {
    let text = fs::read_to_string(path).expect("read");
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle")
        + 1
}

#[test]
fn ron_syntax_error_gives_line_and_column() {
    let (_dir, path) = saved_raw(&rich_level(6, 6));
    edit_ron(&path, "    cell_size: 0.5,", "    cell_size: 0.5 0.7,");
    let line = line_of(&path, "cell_size");
    let err = load_err(&path, &[&format!("level.ron:{line}:")]);
    match err {
        LevelError::Ron {
            line: l, column, ..
        } => {
            assert_eq!(l, line);
            assert!(column > 4, "column {column}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn wrong_field_type_gives_line_and_column() {
    let (_dir, path) = saved_raw(&rich_level(6, 6));
    edit_ron(
        &path,
        "    cell_size: 0.5,",
        "    cell_size: \"half a metre\",",
    );
    let line = line_of(&path, "cell_size");
    let err = load_err(&path, &[&format!("level.ron:{line}:"), "half a metre"]);
    assert!(matches!(err, LevelError::Ron { .. }), "{err:?}");
}

#[test]
fn misspelt_field_is_named() {
    let (_dir, path) = saved_raw(&rich_level(6, 6));
    edit_ron(&path, "    sinks: [", "    snks: [");
    let line = line_of(&path, "snks");
    load_err(&path, &[&format!("level.ron:{line}:"), "snks"]);
}

#[test]
fn out_of_range_parameter_names_the_field() {
    let (_dir, path) = saved_raw(&rich_level(6, 6));
    edit_ron(&path, "        cfl: 0.7,", "        cfl: 1.5,");
    load_err(&path, &["`params.cfl`", "1.5"]);
}

#[test]
fn negative_radius_names_the_field() {
    let (_dir, path) = saved_raw(&rich_level(6, 6));
    edit_ron(&path, "radius: 1.5", "radius: -1.5");
    load_err(&path, &["`sources[1].shape.radius`", "-1.5 is negative"]);
}

#[test]
fn missing_level_file_names_it() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("nowhere.ron");
    let err = load_err(&path, &["cannot read the level file"]);
    assert!(matches!(err, LevelError::Io { .. }), "{err:?}");
}

#[test]
fn a_compressed_grid_that_does_not_decode_is_refused_with_the_grid_named() {
    let (_dir, path) = crate::saved(&spillway::Level::flat(64, 64, 1.0, 2.0));
    let text = fs::read_to_string(&path).unwrap();
    let start = text.find("terrain: (").unwrap();
    assert!(
        text[start..].find("ShuffleLz4").unwrap() < text[start..].find(')').unwrap(),
        "the terrain is stored compressed:\n{text}"
    );
    // The first chunk's length word made huge, the checksum patched to match: the chunk runs
    // past the grid's bytes.
    let grid = grid_ref(&text, "terrain");
    let sidecar = path.with_file_name(&grid.file);
    let mut bytes = fs::read(&sidecar).unwrap();
    bytes[grid.offset..grid.offset + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let crc = crate::crc32(&bytes[grid.offset..grid.offset + grid.len]);
    fs::write(&sidecar, &bytes).unwrap();
    let old = format!("crc32: {},", grid.crc32);
    let at = start + text[start..].find(&old).unwrap();
    let patched = format!("{}crc32: {crc},{}", &text[..at], &text[at + old.len()..]);
    fs::write(&path, patched).unwrap();
    let err = load_err(&path, &["terrain", "does not decode"]);
    assert!(
        matches!(
            err,
            LevelError::Sidecar {
                problem: SidecarProblem::Undecodable(_),
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn a_compressed_grid_longer_than_its_values_could_take_is_refused_before_reading() {
    let (_dir, path) = crate::saved(&spillway::Level::flat(64, 64, 1.0, 2.0));
    let text = fs::read_to_string(&path).unwrap();
    let grid = grid_ref(&text, "terrain");
    edit_ron(&path, &format!("len: {},", grid.len), "len: 999999999,");
    let err = load_err(&path, &["terrain", "at most"]);
    assert!(
        matches!(
            err,
            LevelError::Sidecar {
                problem: SidecarProblem::TooLong { .. },
                ..
            }
        ),
        "{err:?}"
    );
}
