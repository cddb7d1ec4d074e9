//! Integration tests: format. The level file (RON plus checksummed sidecar) round-trips
//! bit-exactly, refuses hostile or damaged files with a message naming the file and the place,
//! survives interrupted saves, and stays compact.

mod continuation;
mod damage;
mod hostile;
mod in_memory;
mod migration;
mod roundtrip;
mod validate;

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use spillway::Grid;
use spillway::level::{
    Body, Boundary, BoundaryKind, Coupling, CrossSection, Edge, FlowState, Level, Shape, Sink,
    SinkKind, SolverKind, Source, SourceKind,
};

/// Records the largest single allocation, so tests can show a hostile file allocates nothing big.
struct PeakAlloc;

static LARGEST_ALLOC: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call unchanged to the system allocator; only records sizes.
unsafe impl GlobalAlloc for PeakAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST_ALLOC.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LARGEST_ALLOC.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST_ALLOC.fetch_max(new_size, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: PeakAlloc = PeakAlloc;

/// The largest single allocation since the last call (tests of this binary allocate far less
/// than the sizes this is compared with, so running in parallel does not disturb it).
pub fn take_largest_alloc() -> usize {
    LARGEST_ALLOC.swap(0, Ordering::Relaxed)
}

/// A level of `nx × ny` cells using every kind of object, with flow state and awkward values
/// (negative zero, subnormals, large exponents) in the grids.
pub fn rich_level(nx: usize, ny: usize) -> Level {
    let mut level = Level::flat(nx, ny, 0.5, 0.0);
    level.name = "river \"delta\" — test".into();
    level.terrain = Grid::from_fn(nx, ny, |x, y| {
        let v = (x as f32 * 0.37).sin() * 3.0 + y as f32 * 0.013 - 1.0;
        match (x + 3 * y) % 11 {
            0 => -0.0,
            1 => f32::MIN_POSITIVE / 8.0,
            2 => spillway::level::ranges::MAX_HEIGHT / 2.0,
            _ => v,
        }
    });
    level.water = Grid::from_fn(nx, ny, |x, y| {
        if (x * 7 + y) % 5 == 0 {
            0.0
        } else {
            (x as f32 / nx as f32) * 1.7 + 1.0e-7 * y as f32
        }
    });
    level.flow = Some(FlowState {
        solver: SolverKind::Swe,
        flow_x: (0..(nx + 1) * ny)
            .map(|i| (i as f32 * 0.731).cos() * 0.01)
            .collect(),
        flow_y: (0..nx * (ny + 1)).map(|i| -(i as f32) * 1.0e-5).collect(),
        ghost: (0..2 * (nx + ny))
            .map(|i| [0.1, -2.5, 1.0 / 3.0, 7.0e-20][i % 4])
            .collect(),
        time: 1_234.567_890_123,
        carry: (0..nx * ny)
            .map(|i| (i as f32 * 0.37).sin() * 1.0e-7)
            .collect(),
        aux_x: (0..(nx + 1) * ny).map(|i| i as f32 * 1.0e-3).collect(),
        aux_y: (0..nx * (ny + 1)).map(|i| -(i as f32) * 3.0e-3).collect(),
        max_speed: Some(1.0 / 7.0),
        bed_floor: (0..nx * ny).map(|i| i as f32 * 0.01 - 3.0).collect(),
    });
    level.params.solver = SolverKind::Swe;
    level.params.cross_section = CrossSection::FaceDepth;
    level.params.gravity = 9.80665;
    level.params.dt = 0.1 / 3.0;
    level.params.friction = spillway::level::Friction::Linear { per_second: 0.015 };
    level.params.cfl = 0.7;
    level.params.rain_mm_per_hour = 2.5;
    level.params.default_boundary = BoundaryKind::FixedLevel { surface: -0.25 };
    level.sources = vec![
        Source {
            name: "spring".into(),
            shape: Shape::Point { x: 1.25, y: 2.0 },
            kind: SourceKind::Rate { m3_per_s: 0.3 },
            enabled: true,
        },
        Source {
            name: "lake".into(),
            shape: Shape::Circle {
                x: 3.0,
                y: 3.0,
                radius: 1.5,
            },
            kind: SourceKind::Level {
                surface: 2.0,
                max_m3_per_s: 10.0,
            },
            enabled: false,
        },
    ];
    level.sinks = vec![
        Sink {
            name: "drain".into(),
            shape: Shape::Box {
                x0: 0.0,
                y0: 0.0,
                x1: 2.0,
                y1: 1.0,
            },
            kind: SinkKind::Rate { m3_per_s: 0.1 },
            enabled: true,
        },
        Sink {
            name: "overflow".into(),
            shape: Shape::Circle {
                x: 2.5,
                y: 1.0,
                radius: 0.0,
            },
            kind: SinkKind::Level {
                surface: 0.5,
                max_m3_per_s: 4.0,
            },
            enabled: true,
        },
        Sink {
            name: "pump".into(),
            shape: Shape::Point { x: 2.0, y: 2.5 },
            kind: SinkKind::Hydrograph(spillway::level::Schedule {
                points: vec![[0.0, 0.0], [3600.0, 0.25]],
                period: Some(86_400.0),
            }),
            enabled: true,
        },
    ];
    level.sources.push(Source {
        name: "flood".into(),
        shape: Shape::Point { x: 0.75, y: 0.5 },
        kind: SourceKind::Hydrograph(spillway::level::Schedule {
            points: vec![[0.0, 0.5], [600.0, 2.0 / 3.0], [1800.5, 0.5]],
            period: None,
        }),
        enabled: true,
    });
    let (w, h) = (nx as u32, ny as u32);
    level.boundaries = vec![
        Boundary {
            edge: Edge::West,
            start: 0,
            end: h,
            kind: BoundaryKind::Open,
        },
        Boundary {
            edge: Edge::East,
            start: 1,
            end: h - 1,
            kind: BoundaryKind::Wall,
        },
        Boundary {
            edge: Edge::North,
            start: 0,
            end: w / 2,
            kind: BoundaryKind::FixedLevel { surface: 1.5 },
        },
        Boundary {
            edge: Edge::South,
            start: w / 2,
            end: w,
            kind: BoundaryKind::Inflow { m3_per_s: 2.0 },
        },
    ];
    level.bodies = vec![
        Body {
            name: "crate".into(),
            gltf: "props/crate.gltf".into(),
            translation: [1.0, 2.0, 0.5],
            rotation: [0.0, 0.0, 0.382_683_4, 0.923_879_5],
            scale: [1.0, 1.0, 2.0],
            density: 600.0,
            dynamic: true,
            coupling: Coupling::Floater,
            collider: Default::default(),
        },
        Body {
            name: "boulder".into(),
            gltf: "../shared/rock.glb".into(),
            translation: [4.0, 4.0, -1.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [0.5, 0.5, 0.5],
            density: 2600.0,
            dynamic: false,
            coupling: Coupling::Auto,
            collider: Default::default(),
        },
    ];
    level.gates = vec![
        spillway::level::Gate {
            name: "dam".into(),
            shape: Shape::Box {
                x0: 2.0,
                y0: 0.0,
                x1: 3.0,
                y1: 20.0,
            },
            crest: 12.5,
            open_at: Some(30.0),
        },
        spillway::level::Gate {
            name: "sluice".into(),
            // Reaching onto the map from its corner (a gate wholly off the map is refused).
            shape: Shape::Circle {
                x: 1.0,
                y: 1.0,
                radius: 2.0,
            },
            crest: 3.0,
            open_at: None,
        },
    ];
    use spillway::level::{Schedule, Structure, StructureKind};
    level.structures = vec![
        Structure {
            name: "culvert".into(),
            kind: StructureKind::Culvert {
                from: [1.0, 1.0],
                to: [2.5, 2.25],
                diameter: 0.6,
                length: 2.8,
                roughness: 0.011,
            },
        },
        Structure {
            name: "weir".into(),
            kind: StructureKind::Weir {
                from: [2.0, 0.0],
                to: [2.0, 1.5],
                crest: 1.25,
                coefficient: 0.9,
            },
        },
        Structure {
            name: "sluice gate".into(),
            kind: StructureKind::SluiceGate {
                from: [0.5, 2.0],
                to: [2.75, 2.0],
                sill: -0.5,
                opening: Schedule {
                    points: vec![[0.0, 0.0], [60.0, 0.75]],
                    period: Some(3600.0),
                },
                contraction: 0.6,
            },
        },
    ];
    level
}

/// A temporary folder and the path of `level.ron` inside it.
pub fn temp_level_path() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("level.ron");
    (dir, path)
}

/// Saves `level` to a fresh temporary folder.
pub fn saved(level: &Level) -> (tempfile::TempDir, PathBuf) {
    let (dir, path) = temp_level_path();
    spillway::level::file::save(level, &path).expect("save");
    (dir, path)
}

/// As [`saved`], with every grid raw (`GridStorage::Raw`), so tests can damage single values.
pub fn saved_raw(level: &Level) -> (tempfile::TempDir, PathBuf) {
    let (dir, path) = temp_level_path();
    let raw = spillway::level::file::GridStorage::Raw;
    spillway::level::file::save_with(level, &path, raw, &mut |_| true).expect("save");
    (dir, path)
}

/// The files in `dir`, sorted.
pub fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A grid reference as written in the level file.
#[derive(Debug)]
pub struct GridRefText {
    /// Sidecar file name.
    pub file: String,
    /// Byte offset.
    pub offset: usize,
    /// Byte length.
    pub len: usize,
    /// Checksum.
    pub crc32: u32,
}

/// Finds `field: value` after byte `from` in RON text; returns the raw value text.
fn field_after<'a>(text: &'a str, from: usize, field: &str) -> &'a str {
    let key = format!("{field}: ");
    let at = from + text[from..].find(&key).expect("field present") + key.len();
    let end = at + text[at..].find([',', '\n', ')']).expect("value end");
    text[at..end].trim()
}

/// Reads the reference of grid `name` (`terrain`, `water`, `flow_x`, `flow_y`) from RON text.
pub fn grid_ref(text: &str, name: &str) -> GridRefText {
    let start = text
        .find(&format!("{name}: ("))
        .expect("grid reference present");
    GridRefText {
        file: field_after(text, start, "file")
            .trim_matches('"')
            .to_string(),
        offset: field_after(text, start, "offset").parse().expect("offset"),
        len: field_after(text, start, "len").parse().expect("len"),
        crc32: field_after(text, start, "crc32").parse().expect("crc32"),
    }
}

/// CRC-32 (IEEE), bit by bit: slow but independent of the crate under test.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Overwrites value `index` of grid `name` in the sidecar with `value` and fixes the checksum
/// in the level file, so only the value itself is wrong.
pub fn patch_value(path: &Path, name: &str, index: usize, value: f32) {
    let text = fs::read_to_string(path).expect("read level");
    let grid = grid_ref(&text, name);
    let sidecar = path.with_file_name(&grid.file);
    let mut bytes = fs::read(&sidecar).expect("read sidecar");
    let at = grid.offset + 4 * index;
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
    let crc = crc32(&bytes[grid.offset..grid.offset + grid.len]);
    fs::write(&sidecar, &bytes).expect("write sidecar");
    let start = text.find(&format!("{name}: (")).expect("grid");
    let old = format!("crc32: {},", grid.crc32);
    let at = start + text[start..].find(&old).expect("crc field");
    let patched = format!("{}crc32: {crc},{}", &text[..at], &text[at + old.len()..]);
    fs::write(path, patched).expect("write level");
}

/// Replaces the first `from` in the level file with `to`.
pub fn edit_ron(path: &Path, from: &str, to: &str) {
    let text = fs::read_to_string(path).expect("read level");
    assert!(text.contains(from), "level file lacks {from:?}:\n{text}");
    fs::write(path, text.replacen(from, to, 1)).expect("write level");
}

/// Loads `path`, expecting failure, and checks the message names the file and each of `places`.
pub fn load_err(path: &Path, places: &[&str]) -> spillway::LevelError {
    let err = match spillway::level::file::load(path) {
        Ok(_) => panic!("{} loaded but should have been refused", path.display()),
        Err(e) => e,
    };
    let msg = err.to_string();
    assert!(!msg.contains('\n'), "message is not one line: {msg}");
    assert!(
        msg.contains(&path.display().to_string()),
        "message does not name the file: {msg}"
    );
    for place in places {
        assert!(
            msg.contains(place),
            "message does not name {place:?}: {msg}"
        );
    }
    err
}
