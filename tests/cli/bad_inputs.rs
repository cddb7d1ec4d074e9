//! The bad-input corpus (`tests/bad_inputs/`, written by its `make_corpus.py`, plus the fuzz
//! regressions in `tests/bad_inputs/fuzz_regressions/`): every level goes through
//! `spillway check` and every heightmap through `spillway import --terrain`. Each must exit
//! non-zero with an error naming the file, the place and the reason (the case's `expect`
//! lines), without a panic, within a time bound (a subprocess under `timeout`) and within
//! bounded memory (`ulimit -v`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Seconds one case may run before it counts as a hang.
const TIME_LIMIT_S: u32 = 60;
/// Virtual memory one case may map, KiB (the binary and its threads need about 1 GiB).
const MEMORY_LIMIT_KIB: u64 = 3 << 20;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/bad_inputs")
}

/// Runs the binary with `args` under a time and memory limit.
fn bounded(dir: &Path, args: &[&str]) -> Output {
    let mut script =
        format!("ulimit -v {MEMORY_LIMIT_KIB} && exec timeout -s KILL {TIME_LIMIT_S} \"$0\"");
    for i in 1..=args.len() {
        script.push_str(&format!(" \"${i}\""));
    }
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_spillway"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run sh")
}

/// Checks one refused input; returns a description of what is wrong, if anything.
fn judge(case: &str, out: &Output, expect: &str) -> Option<String> {
    let err = String::from_utf8_lossy(&out.stderr);
    let all = format!("{}{err}", String::from_utf8_lossy(&out.stdout));
    let problem = match out.status.code() {
        None => Some("killed (time or memory limit)".to_string()),
        Some(0) => Some("accepted".to_string()),
        Some(137 | 124) => Some("timed out".to_string()),
        Some(101) => Some("panicked (exit 101)".to_string()),
        Some(_) if all.contains("panicked") => Some("panicked".to_string()),
        Some(_) if all.contains("memory allocation") => Some("ran out of memory".to_string()),
        Some(_) => expect
            .lines()
            .filter(|l| !l.is_empty())
            .find(|l| !err.contains(l))
            .map(|l| format!("the error lacks `{l}`")),
    };
    problem.map(|p| format!("{case}: {p}; stderr: {}", err.trim()))
}

fn assert_all_refused(failures: Vec<String>, count: usize) {
    assert!(count > 0, "no cases found");
    assert!(
        failures.is_empty(),
        "{} of {count} bad inputs mishandled:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The level cases: folders holding `level.ron`, a sidecar or not, and `expect`.
fn level_cases(root: &Path) -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = fs::read_dir(root)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    cases.retain(|p| p.join("level.ron").exists());
    cases.sort();
    cases
}

fn check_levels(root: &Path) -> (Vec<String>, usize) {
    let cases = level_cases(root);
    let failures = cases
        .iter()
        .filter_map(|case| {
            let expect = fs::read_to_string(case.join("expect")).unwrap_or_default();
            let out = bounded(case, &["check", "level.ron"]);
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            if out.status.code() != Some(2) && out.status.code() != Some(0) {
                return judge(&name, &out, &expect)
                    .or_else(|| Some(format!("{name}: exit {:?}, not 2", out.status.code())));
            }
            judge(&name, &out, &expect)
        })
        .collect();
    (failures, cases.len())
}

#[test]
fn every_bad_level_is_refused_by_check() {
    let (failures, n) = check_levels(&corpus().join("levels"));
    assert_all_refused(failures, n);
}

#[test]
fn every_bad_heightmap_is_refused_by_import() {
    let dir = corpus().join("heightmaps");
    let out_dir = tempfile::tempdir().unwrap();
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".expect"))
        .collect();
    names.sort();
    let failures: Vec<String> = names
        .iter()
        .filter_map(|name| {
            let expect = fs::read_to_string(dir.join(format!("{name}.expect"))).unwrap_or_default();
            let target = out_dir.path().join(format!("{name}.ron"));
            let out = bounded(
                &dir,
                &["import", "--terrain", name, "-o", target.to_str().unwrap()],
            );
            judge(name, &out, &expect)
        })
        .collect();
    assert_all_refused(failures, names.len());
}

#[test]
fn fuzz_regressions_replay_without_panics() {
    // Crashing inputs the fuzzers found (see fuzz/README.md), kept as they were found: each
    // must now give a clean error (or load, where the fix made it valid), never a panic.
    let root = corpus().join("fuzz_regressions");
    for (target, args) in [
        ("level", &["check"][..]),
        ("heightmap", &["import", "--terrain"][..]),
    ] {
        let Ok(entries) = fs::read_dir(root.join(target)) else {
            continue;
        };
        let out_dir = tempfile::tempdir().unwrap();
        for entry in entries.flatten() {
            let path = entry.path();
            if target == "level" && path.extension().is_none_or(|e| e != "ron") {
                continue; // a sidecar beside its level
            }
            let mut full: Vec<&str> = args.to_vec();
            let file = path.to_str().unwrap();
            full.push(file);
            let target_ron = out_dir.path().join("out.ron");
            if target == "heightmap" {
                full.extend(["-o", target_ron.to_str().unwrap()]);
            }
            let out = bounded(out_dir.path(), &full);
            let all = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                matches!(out.status.code(), Some(0..=2)) && !all.contains("panicked"),
                "{file}: exit {:?}: {all}",
                out.status.code()
            );
        }
    }
}

#[cfg(unix)]
#[test]
fn a_pipe_given_as_a_level_or_a_heightmap_is_refused_at_once() {
    // Opening a named pipe waits for a writer: `check` and `import` hung on one.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for name in ["pipe.ron", "pipe.png", "pipe.npy"] {
        let made = Command::new("mkfifo").arg(d.join(name)).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("no mkfifo here: skipped");
            return;
        }
    }
    let failures: Vec<String> = [
        ("pipe.ron", vec!["check", "pipe.ron"]),
        (
            "pipe.png",
            vec!["import", "--terrain", "pipe.png", "-o", "a.ron"],
        ),
        (
            "pipe.npy",
            vec!["import", "--terrain", "pipe.npy", "-o", "b.ron"],
        ),
    ]
    .iter()
    .filter_map(|(file, args)| {
        let out = bounded(d, args);
        judge(file, &out, &format!("{file}\nnot a plain file"))
    })
    .collect();
    assert_all_refused(failures, 3);
}
