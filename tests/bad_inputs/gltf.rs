//! The glTF part of the bad-input corpus (`tests/bad_inputs/gltf/`, one folder per case, and
//! the fuzzers' finds in `tests/bad_inputs/fuzz_regressions/gltf/`): every file goes through
//! `spillway::body::import::import` with the case folder as the level's folder. Each must be
//! refused with an error naming the file and the reason (the case's `expect` lines), without a
//! panic, within a time bound (each import runs on its own thread) and without one large
//! allocation (a counting allocator).

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use spillway::body::import::{ImportLimits, import};

/// Records the largest single allocation.
struct PeakAlloc;

static LARGEST_ALLOC: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call unchanged to the system allocator; only records sizes.
unsafe impl GlobalAlloc for PeakAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST_ALLOC.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: PeakAlloc = PeakAlloc;

/// Largest single allocation a refused file may cause (the limits allow 64 MiB files).
const ALLOC_LIMIT: usize = 64 << 20;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bad_inputs")
}

/// Imports `file` with `root` as the level folder on its own thread, bounded in time; the
/// error text, or why there is none.
fn refuse(file: &Path, root: &Path) -> Result<String, String> {
    let (tx, rx) = mpsc::channel();
    let (file, root) = (file.to_path_buf(), root.to_path_buf());
    let worker = std::thread::spawn(move || {
        let out = std::panic::catch_unwind(|| import(&file, &root, &ImportLimits::default()));
        let _ = tx.send(out.map(|r| r.map(|m| m.triangles.len()).map_err(|e| e.to_string())));
    });
    match rx.recv_timeout(Duration::from_secs(30)) {
        Err(_) => Err("hung (no answer in 30 s)".into()),
        Ok(Err(_)) => Err("panicked".into()),
        Ok(Ok(Ok(n))) => {
            let _ = worker.join();
            Err(format!("accepted ({n} triangles)"))
        }
        Ok(Ok(Err(e))) => {
            let _ = worker.join();
            Ok(e)
        }
    }
}

#[test]
fn every_bad_gltf_is_refused() {
    let mut cases: Vec<PathBuf> = fs::read_dir(corpus().join("gltf"))
        .expect("corpus")
        .flatten()
        .map(|e| e.path())
        .collect();
    cases.sort();
    assert!(!cases.is_empty());
    let mut failures = Vec::new();
    for case in &cases {
        let expect = fs::read_to_string(case.join("expect")).expect("expect file");
        let name = expect.lines().next().unwrap_or("body.gltf");
        LARGEST_ALLOC.store(0, Ordering::Relaxed);
        let outcome = refuse(&case.join(name), case);
        let largest = LARGEST_ALLOC.load(Ordering::Relaxed);
        let label = case.file_name().unwrap().to_string_lossy();
        match outcome {
            Err(why) => failures.push(format!("{label}: {why}")),
            Ok(err) => {
                if let Some(missing) = expect.lines().find(|l| !l.is_empty() && !err.contains(l)) {
                    failures.push(format!("{label}: the error lacks `{missing}`: {err}"));
                }
            }
        }
        if largest > ALLOC_LIMIT {
            failures.push(format!("{label}: allocated {largest} bytes at once"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} bad glTF files mishandled:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn fuzz_regressions_replay_without_panics() {
    let Ok(entries) = fs::read_dir(corpus().join("fuzz_regressions/gltf")) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let root = path.parent().unwrap().to_path_buf();
        if let Err(why) = refuse(&path, &root)
            && (why.starts_with("hung") || why.starts_with("panicked"))
        {
            panic!("{}: {why}", path.display());
        }
    }
}

#[test]
fn a_device_named_as_a_body_file_is_refused_at_once() {
    // `/dev/zero` says it is empty and never ends: the size check passed and the read ran
    // until memory was gone. A pipe would never answer.
    let zero = Path::new("/dev/zero");
    if !zero.exists() {
        return;
    }
    LARGEST_ALLOC.store(0, Ordering::Relaxed);
    let err = refuse(zero, Path::new("/dev")).expect("refused");
    println!("{err}");
    assert!(err.contains("not a regular file"), "{err}");
    assert!(LARGEST_ALLOC.load(Ordering::Relaxed) <= ALLOC_LIMIT);
}

/// Writes `doc` as `body.gltf` in a folder of its own and imports it: the error, and the
/// largest single allocation on the way.
fn refuse_doc(doc: &str) -> (String, usize) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("body.gltf");
    fs::write(&file, doc).unwrap();
    LARGEST_ALLOC.store(0, Ordering::Relaxed);
    let err = refuse(&file, dir.path()).expect("refused");
    let largest = LARGEST_ALLOC.load(Ordering::Relaxed);
    println!("{err}; largest allocation {largest} bytes");
    assert!(err.contains("body.gltf"), "{err}");
    (err, largest)
}

#[test]
fn a_scene_listing_one_root_too_often_is_refused_before_it_is_gathered() {
    // `0,` 200 000 times (fewer values than the JSON may hold): the roots were gathered (96
    // bytes each on the walk's stack) before the node visits were counted, and refused as
    // a tree too deep; a 60 MB file took gigabytes before the JSON's values were counted.
    let roots = vec!["0"; 200_000].join(",");
    let (err, largest) = refuse_doc(&format!(
        r#"{{"asset":{{"version":"2.0"}},"scenes":[{{"nodes":[{roots}]}}],"nodes":[{{}}]}}"#
    ));
    assert!(err.contains("root nodes"), "{err}");
    assert!(largest <= ALLOC_LIMIT, "{largest} bytes at once");
}

#[test]
fn a_json_of_a_million_empty_nodes_is_refused_before_it_is_parsed() {
    // 3 MB of `{},`: the parser made a vector of 200 MB for them before any check of ours.
    let nodes = vec!["{}"; 1_000_000].join(",");
    let (err, largest) = refuse_doc(&format!(
        r#"{{"asset":{{"version":"2.0"}},"nodes":[{nodes}]}}"#
    ));
    assert!(err.contains("count of values in its JSON"), "{err}");
    assert!(largest <= ALLOC_LIMIT, "{largest} bytes at once");
}
