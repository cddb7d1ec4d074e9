//! `spillway sim --hash`: the state hash is identical across runs and thread counts, and a
//! level baked by `spillway bake` after N steps and run M more steps hashes exactly like the
//! level run N + M steps straight.

use std::path::{Path, PathBuf};
use std::process::Command;

use spillway::level::{Boundary, BoundaryKind, Edge, Shape, Source, SourceKind, file};
use spillway::{Grid, Level};

use super::{spillway, stderr};

/// A 96 × 64 valley with a dam of water, a spring and an open east edge: enough rows for the
/// solver to split its work between threads.
fn valley(dir: &Path) -> PathBuf {
    let (nx, ny) = (96, 64);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |x, y| {
        0.01 * (x as f32 - 48.0).abs() + 0.2 * (0.3 * y as f32).sin()
    });
    level.water = Grid::from_fn(nx, ny, |x, _| if x < 20 { 2.0 } else { 0.0 });
    level.sources.push(Source {
        name: "spring".into(),
        shape: Shape::Circle {
            x: 5.0,
            y: 30.0,
            radius: 2.0,
        },
        kind: SourceKind::Rate { m3_per_s: 0.5 },
        enabled: true,
    });
    level.boundaries.push(Boundary {
        edge: Edge::East,
        start: 0,
        end: ny as u32,
        kind: BoundaryKind::Open,
    });
    let path = dir.join("valley.ron");
    file::save(&level, &path).unwrap();
    path
}

/// `spillway sim LEVEL --backend cpu --steps N --hash --json [extra]` with
/// `RAYON_NUM_THREADS=threads`: the report, checked for a clean run with a 16-digit hash.
fn sim_report(
    dir: &Path,
    level: &Path,
    steps: u64,
    threads: usize,
    extra: &[&str],
) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_spillway"))
        .args([
            "sim",
            level.to_str().unwrap(),
            "--backend",
            "cpu",
            "--json",
            "--hash",
        ])
        .args(["--steps", &steps.to_string()])
        .args(extra)
        .env("RAYON_NUM_THREADS", threads.to_string())
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["threads"], threads, "{report}");
    assert_eq!(report["steps"], steps, "{report}");
    assert_eq!(report["nan_seen"], false, "{report}");
    assert_eq!(report["negative_seen"], false, "{report}");
    let hash = report["hash"].as_str().expect("a hash field");
    assert_eq!(hash.len(), 16, "{hash}");
    report
}

/// The hash of [`sim_report`] with no extra arguments.
fn hash_of(dir: &Path, level: &Path, steps: u64, threads: usize) -> String {
    sim_report(dir, level, steps, threads, &[])["hash"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn hash_is_identical_across_runs_and_thread_counts() {
    let dir = tempfile::tempdir().unwrap();
    let level = valley(dir.path());
    let one = hash_of(dir.path(), &level, 120, 1);
    assert_eq!(one, hash_of(dir.path(), &level, 120, 1), "two runs");
    assert_eq!(one, hash_of(dir.path(), &level, 120, 2), "1 vs 2 threads");
    assert_ne!(one, hash_of(dir.path(), &level, 119, 2), "one step fewer");
}

#[test]
fn hash_prints_in_the_text_summary_with_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let level = valley(dir.path());
    let out = spillway(
        dir.path(),
        &[
            "sim",
            level.to_str().unwrap(),
            "--backend",
            "cpu",
            "--seconds",
            "1",
            "--hash",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("hash ")).expect(&text);
    // 1 s of dt 0.02 is 50 steps.
    assert_eq!(line, format!("hash {}", hash_of(dir.path(), &level, 50, 2)));
}

#[test]
fn a_baked_level_continues_exactly_as_the_straight_run() {
    let dir = tempfile::tempdir().unwrap();
    let level = valley(dir.path());
    let baked = dir.path().join("baked.ron");
    // A tolerance no run reaches: the bake stops at --max-seconds, 2 s = 100 steps of 0.02 s.
    let out = spillway(
        dir.path(),
        &[
            "bake",
            level.to_str().unwrap(),
            "-o",
            baked.to_str().unwrap(),
            "--backend",
            "cpu",
            "--until-steady",
            "1e-30",
            "--max-seconds",
            "2",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let straight = hash_of(dir.path(), &level, 100 + 70, 2);
    let resumed = hash_of(dir.path(), &baked, 70, 1);
    assert_eq!(
        straight, resumed,
        "baked after 100 steps + 70 more differs from 170 straight"
    );
}

#[test]
fn steps_and_seconds_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let level = valley(dir.path());
    let lv = level.to_str().unwrap();
    let out = spillway(dir.path(), &["sim", lv, "--steps", "3", "--seconds", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = spillway(dir.path(), &["sim", lv]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// [`sim_report`] of 80 steps with `--cpu-vectors WIDTH [extra]`: the vectors the report says
/// it used, and the hash.
fn hash_with_vectors(dir: &Path, level: &Path, width: &str, extra: &[&str]) -> (String, String) {
    let report = sim_report(
        dir,
        level,
        80,
        2,
        &[&["--cpu-vectors", width], extra].concat(),
    );
    let field = |k: &str| report[k].as_str().expect(k).to_string();
    (field("vectors"), field("hash"))
}

#[test]
fn hash_is_identical_with_the_dry_ground_computed_or_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let level = valley(dir.path());
    for extra in [
        &[][..],
        &["--manning", "0.03"][..],
        &["--solver", "swe", "--manning", "0.03"][..],
    ] {
        for threads in [1, 2] {
            let hash = |more: &[&str]| {
                let report = sim_report(dir.path(), &level, 120, threads, &[extra, more].concat());
                report["hash"].as_str().expect("hash").to_string()
            };
            assert_eq!(
                hash(&[]),
                hash(&["--no-dry-skip"]),
                "{extra:?} on {threads} threads"
            );
        }
    }
}

#[test]
fn hash_is_identical_at_every_vector_width() {
    let dir = tempfile::tempdir().unwrap();
    let level = valley(dir.path());
    for extra in [
        &[][..],
        &["--solver", "swe"][..],
        &["--manning", "0.03"][..],
    ] {
        let (widest, hash) = hash_with_vectors(dir.path(), &level, "auto", extra);
        for width in ["avx512", "avx2", "baseline"] {
            let (used, other) = hash_with_vectors(dir.path(), &level, width, extra);
            // Never wider than asked, nor than the CPU has.
            assert!(
                used == width || used == widest || used == "baseline",
                "{width}: {used}"
            );
            assert_eq!(hash, other, "{extra:?}: {widest} against {used}");
        }
    }
}
