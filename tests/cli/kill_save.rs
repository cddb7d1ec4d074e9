//! Saves are atomic: `spillway bake -o TARGET` is killed (SIGKILL) at random moments while it
//! loads, runs and saves a large level over an existing one, and after every kill TARGET loads
//! and validates and is exactly the old level or exactly the new one, never a torn mix (the
//! sidecar is written under a new content-hashed name before the RON is renamed over the old);
//! the next save takes away the temporary files the killed ones left.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use spillway::level::file;
use spillway::{Grid, Level};

use super::stderr;

/// A 1024 × 768 level: about 3 MiB a grid, 16 MiB with the baked flow state.
fn big_level(dir: &Path) -> std::path::PathBuf {
    let (nx, ny) = (1024, 768);
    let mut level = Level::flat(nx, ny, 1.0, 0.0);
    level.terrain = Grid::from_fn(nx, ny, |x, y| {
        0.001 * x as f32 + 0.1 * (0.05 * y as f32).sin()
    });
    level.water = Grid::from_fn(nx, ny, |x, _| if x < 300 { 1.0 } else { 0.0 });
    let path = dir.join("big.ron");
    file::save(&level, &path).unwrap();
    path
}

/// `spillway bake SOURCE -o TARGET` for one step of dt.
fn bake(source: &Path, target: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spillway"));
    cmd.args([
        "bake",
        source.to_str().unwrap(),
        "-o",
        target.to_str().unwrap(),
    ])
    .args([
        "--backend",
        "cpu",
        "--until-steady",
        "1e-30",
        "--max-seconds",
        "0.02",
    ])
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    cmd
}

#[test]
fn killed_saves_leave_the_old_or_the_new_level() {
    let dir = tempfile::tempdir().unwrap();
    let source = big_level(dir.path());
    let old = file::load(&source).unwrap();
    let old_hash = old.state_hash();

    // The new level, from one complete bake, and how long a whole bake takes.
    let reference = dir.path().join("reference.ron");
    let t0 = Instant::now();
    let out = bake(&source, &reference).output().unwrap();
    let full = t0.elapsed();
    assert!(out.status.success(), "{}", stderr(&out));
    let new_hash = file::load(&reference).unwrap().state_hash();
    assert_ne!(old_hash, new_hash);

    let target = dir.path().join("target.ron");
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let (mut saw_old, mut saw_new) = (0, 0);
    for round in 0..12 {
        // The target starts as the old level each round.
        file::save(&old, &target).unwrap();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        // Kill anywhere from the start to a little past the end of a whole bake.
        let at = full.mul_f64((seed % 1000) as f64 / 1000.0 * 1.1);
        let mut child = bake(&source, &target).spawn().unwrap();
        std::thread::sleep(at);
        let _ = child.kill(); // SIGKILL; an error means it had already finished
        let _ = child.wait();
        let level = file::load(&target)
            .unwrap_or_else(|e| panic!("round {round}, killed after {at:?}: {e}"));
        let hash = level.state_hash();
        if hash == old_hash {
            saw_old += 1;
        } else if hash == new_hash {
            saw_new += 1;
        } else {
            panic!("round {round}, killed after {at:?}: the target is neither level");
        }
    }
    println!("a whole bake takes {full:?}; after 12 kills: {saw_old} old, {saw_new} new");
    assert!(saw_old + saw_new == 12);
    // The next save takes away the temporary copies killed saves left (grids and all: they
    // stayed hidden in the folder and shipped with it). One as a save killed in its grids
    // leaves it, by a process gone (no pid reaches 2²² + 1 on Linux), whatever the kills did.
    let left = dir
        .path()
        .join(".target.grids.4194305.1796438161421498368.0.tmp");
    std::fs::write(&left, vec![0u8; 1 << 20]).unwrap();
    file::save(&old, &target).unwrap();
    let temps: Vec<_> = (std::fs::read_dir(dir.path()).unwrap().flatten())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(temps.is_empty(), "left behind: {temps:?}");
}
