//! Hostile files (absurd sizes, lengths past the file) are refused fast, before allocating.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use spillway::LevelError;
use spillway::error::SidecarProblem;
use spillway::level::Limits;
use spillway::level::file::{load, load_with_limits};

use crate::{load_err, take_largest_alloc};

/// A hand-written level file declaring `nx × ny` cells whose grids claim `len` bytes each.
fn hostile_ron(nx: u64, ny: u64, len: u64) -> String {
    format!(
        r#"(
    format_version: 1,
    name: "evil",
    cell_size: 1.0,
    size: (nx: {nx}, ny: {ny}),
    terrain: (file: "evil.grids", offset: 8, len: {len}, crc32: 0, encoding: F32Le),
    water: (file: "evil.grids", offset: 8, len: {len}, crc32: 0, encoding: F32Le),
)
"#
    )
}

fn write_hostile(dir: &Path, nx: u64, ny: u64, len: u64) -> std::path::PathBuf {
    let path = dir.join("evil.ron");
    fs::write(&path, hostile_ron(nx, ny, len)).expect("write");
    fs::write(dir.join("evil.grids"), b"SPWGRID1\0\0\0\0\0\0\0\0").expect("write");
    path
}

/// Asserts `f` finishes quickly and allocates nothing near the declared size.
fn quick_and_small<T>(f: impl FnOnce() -> T) -> T {
    take_largest_alloc();
    let start = Instant::now();
    let out = f();
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "took {:?}",
        start.elapsed()
    );
    let largest = take_largest_alloc();
    assert!(largest < 16 << 20, "allocated {largest} bytes at once");
    out
}

#[test]
fn million_by_million_grid_is_refused_before_allocating() {
    let dir = tempfile::tempdir().expect("dir");
    let n = 1_000_000u64;
    let path = write_hostile(dir.path(), n, n, n * n * 4);
    quick_and_small(|| {
        let err = load_err(&path, &["`size", "limit"]);
        assert!(matches!(err, LevelError::Invalid { .. }), "{err:?}");
    });
}

#[test]
fn without_limits_the_sidecar_length_still_stops_allocation() {
    let dir = tempfile::tempdir().expect("dir");
    let n = 1_000_000u64;
    let path = write_hostile(dir.path(), n, n, n * n * 4);
    let err = quick_and_small(|| load_with_limits(&path, &Limits::unlimited()))
        .expect_err("must be refused");
    let msg = err.to_string();
    assert!(
        msg.contains("evil.ron") && msg.contains("truncated"),
        "{msg}"
    );
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
fn declared_length_must_match_the_grid_size() {
    let dir = tempfile::tempdir().expect("dir");
    let path = write_hostile(dir.path(), 4, 4, u64::MAX);
    let err = quick_and_small(|| load_err(&path, &["`terrain`", "length"]));
    assert!(
        matches!(
            err,
            LevelError::Sidecar {
                problem: SidecarProblem::WrongLength { .. },
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn offset_overflow_is_truncation_not_a_panic() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("evil.ron");
    let text = hostile_ron(2, 2, 16).replacen("offset: 8", &format!("offset: {}", u64::MAX), 1);
    fs::write(&path, text).expect("write");
    fs::write(
        dir.path().join("evil.grids"),
        [b"SPWGRID1".as_slice(), &[0; 32]].concat(),
    )
    .expect("write");
    load_err(&path, &["`terrain`", "truncated"]);
}

#[test]
fn oversized_side_and_tiny_grids_are_refused() {
    let dir = tempfile::tempdir().expect("dir");
    for (nx, ny, field) in [
        (20_000, 2, "`size.nx`"),
        (2, 1, "`size.ny`"),
        (0, 0, "`size.nx`"),
    ] {
        let path = write_hostile(dir.path(), nx, ny, nx * ny * 4);
        load_err(&path, &[field]);
    }
}

#[test]
fn custom_limits_apply() {
    let dir = tempfile::tempdir().expect("dir");
    let path = write_hostile(dir.path(), 64, 64, 64 * 64 * 4);
    let limits = Limits {
        max_cells: 1000,
        ..Limits::default()
    };
    let err = load_with_limits(&path, &limits).expect_err("over the cell limit");
    assert!(err.to_string().contains("1000 cells"), "{err}");
}

#[test]
fn deeply_nested_ron_is_refused_without_overflowing_the_stack() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("deep.ron");
    let depth = 100_000;
    let text = format!(
        "(format_version: 1, name: {}{})",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    fs::write(&path, text).expect("write");
    let err = load(&path).expect_err("refused");
    assert!(err.to_string().contains("deep.ron:1:"), "{err}");
}

/// A small level with `gates` gates over the whole map (each a few dozen bytes of RON).
fn level_with_gates(dir: &Path, gates: usize) -> std::path::PathBuf {
    let mut level = spillway::Level::flat(96, 160, 1.0, 0.0);
    level.gates = (0..gates)
        .map(|i| spillway::level::Gate {
            name: format!("g{i}"),
            shape: spillway::level::Shape::Box {
                x0: 0.0,
                y0: 0.0,
                x1: 96.0,
                y1: 160.0,
            },
            crest: 10.0,
            open_at: Some(0.0),
        })
        .collect();
    let path = dir.join(format!("gates{gates}.ron"));
    spillway::level::file::save(&level, &path).expect("save");
    path
}

#[test]
fn objects_covering_the_map_thousands_of_times_are_refused_by_name() {
    // 1600 whole-map gates: 160 KB of RON that would store 24.6 million gate cells and,
    // opening together, take minutes on the first step.
    let dir = tempfile::tempdir().expect("dir");
    let path = level_with_gates(dir.path(), 1600);
    let err = quick_and_small(|| load(&path)).expect_err("too much covered");
    let text = err.to_string();
    assert!(text.contains("gates1600.ron"), "{text}");
    assert!(
        text.contains("sources, sinks, gates, structures and gauges"),
        "{text}"
    );
    assert!(text.contains("more than the limit of 262144"), "{text}");
    // Sixteen times over is allowed; a small map may still hold thousands of point objects.
    let path = level_with_gates(dir.path(), 16);
    let level = load(&path).expect("16 whole-map gates");
    let mut points = level.clone();
    points.gates.clear();
    points.sources = (0..10_000)
        .map(|i| spillway::level::Source {
            name: format!("s{i}"),
            shape: spillway::level::Shape::Point {
                x: (i % 96) as f32,
                y: (i / 96) as f32,
            },
            kind: spillway::level::SourceKind::Rate { m3_per_s: 0.001 },
            enabled: true,
        })
        .collect();
    points
        .validate(&Limits::default())
        .expect("10 000 point sources");
    let mut sim = spillway::Simulation::new(&level).expect("sim");
    sim.step(0.02).expect("the sixteen gates open together");
    assert!(sim.gates().iter().all(|g| g.open));
}

/// The error of loading `path` on another thread, within five seconds (a hang fails).
#[cfg(unix)]
fn load_soon(path: &Path) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    let p = path.to_path_buf();
    std::thread::spawn(move || tx.send(load(&p).map(|_| ()).map_err(|e| e.to_string())));
    let got = rx.recv_timeout(Duration::from_secs(5));
    let got = got.unwrap_or_else(|_| panic!("loading {} hung", path.display()));
    got.expect_err("a pipe loaded as a level")
}

#[cfg(unix)]
#[test]
fn a_pipe_named_as_the_level_or_its_grids_is_refused_at_once() {
    // Opening a named pipe waits for a writer: a folder unpacked from an archive with one in
    // it hung `spillway check`, the editor and the game.
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    let fifo = |p: &Path| {
        let made = std::process::Command::new("mkfifo").arg(p).status();
        made.is_ok_and(|s| s.success())
    };
    if !fifo(&d.join("pipe.ron")) {
        eprintln!("no mkfifo here: skipped");
        return;
    }
    let msg = load_soon(&d.join("pipe.ron"));
    assert!(
        msg.contains("pipe.ron") && msg.contains("not a plain file"),
        "{msg}"
    );
    let path = d.join("lake.ron");
    spillway::level::file::save(&spillway::Level::flat(8, 8, 1.0, 0.0), &path).expect("save");
    let grids = (fs::read_dir(d).expect("dir").flatten())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "grids"))
        .expect("a sidecar");
    fs::remove_file(&grids).expect("remove");
    assert!(fifo(&grids));
    let msg = load_soon(&path);
    let name = grids.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        msg.contains(&name) && msg.contains("not a plain file"),
        "{msg}"
    );
}
