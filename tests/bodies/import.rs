//! glTF import: every bundled asset, the same mesh through external and `data:` buffers, and
//! broken, empty, oversized and escaping files written by the test.

use std::path::Path;

use serde_json::Value;
use spillway::body::import::{ImportLimits, ImportProblem, import, import_body, import_bytes};
use spillway::body::raster::{CellGrid, Coverage};
use spillway::body::{Pose, TriMesh};

use super::{asset, assets};

fn size(m: &TriMesh) -> [f32; 3] {
    let (lo, hi) = m.bounds().expect("vertices");
    [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]]
}

fn close(a: [f32; 3], b: [f32; 3], tol: f32) -> bool {
    a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= tol)
}

#[test]
fn every_asset_imports_with_its_size_z_up() {
    let expect = [
        ("crate", [1.0, 1.0, 1.0]),
        ("log", [3.0, 0.4, 0.4]),
        ("plank", [2.0, 0.3, 0.05]),
        ("cart", [2.4, 1.8, 1.15]),
    ];
    for (name, dims) in expect {
        let m = asset(name);
        assert!(close(size(&m), dims, 1e-4), "{name}: {:?}", size(&m));
    }
    let barrel = size(&asset("barrel"));
    assert!(
        (barrel[2] - 0.9).abs() < 1e-4 && barrel[0] < 0.7,
        "barrel {barrel:?}"
    );
    let boulder = asset("boulder");
    let b = size(&boulder);
    assert!(b[0] > b[1] && b[1] > b[2] && b[2] > 0.6, "boulder {b:?}");
    assert!(boulder.volume() > 0.5 && boulder.volume() < 1.5);
    assert!((asset("crate").volume() - 1.0).abs() < 1e-5);
    for name in ["crate", "log", "plank", "barrel", "boulder", "cart"] {
        let len = std::fs::metadata(assets().join(format!("{name}.glb")))
            .expect("asset")
            .len();
        assert!(len < 16 * 1024, "{name}.glb is {len} bytes");
    }
}

#[test]
fn cart_nodes_are_placed_and_leave_clearance_under_the_chassis() {
    let cart = asset("cart");
    // Chassis (8 vertices) and four wheels (34 vertices each) from node transforms.
    assert_eq!(cart.positions.len(), 8 + 4 * 34);
    let grid = CellGrid {
        nx: 40,
        ny: 40,
        cell_size: 0.1,
    };
    let pose = Pose::at([2.0, 2.0, 0.575]); // wheels on z = 0
    let cov = Coverage::rasterise(&cart, &pose, grid, 2);
    let under = |i: usize, j: usize| {
        cov.cells()
            .find(|c| c.0 == i && c.1 == j)
            .expect("covered cell")
    };
    let centre = under(20, 20);
    assert!(
        (centre.2 - 0.55).abs() < 1e-3,
        "chassis bottom {}",
        centre.2
    );
    assert!((centre.3 - 1.15).abs() < 1e-3, "chassis top {}", centre.3);
    // A wheel at (2.8, 2.8): its lowest point touches the ground.
    let wheel = under(28, 28);
    assert!(wheel.2 < 0.02, "wheel bottom {}", wheel.2);
}

/// The JSON chunk and binary chunk of a GLB.
fn chunks(glb: &[u8]) -> (Value, Vec<u8>) {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    let bin_len = u32::from_le_bytes(glb[bin_at..bin_at + 4].try_into().unwrap()) as usize;
    (json, glb[bin_at + 8..bin_at + 8 + bin_len].to_vec())
}

fn crate_parts() -> (Value, Vec<u8>) {
    chunks(&std::fs::read(assets().join("crate.glb")).unwrap())
}

fn write_gltf(dir: &Path, name: &str, mut json: Value, uri: &str) -> std::path::PathBuf {
    json["buffers"][0]["uri"] = Value::String(uri.into());
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
    path
}

fn base64(data: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in data.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= c.len() {
                s.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

#[test]
fn gltf_with_external_and_embedded_buffers_imports_the_same_mesh() {
    let dir = tempfile::tempdir().unwrap();
    let (json, bin) = crate_parts();
    let want = asset("crate");
    std::fs::create_dir(dir.path().join("bodies")).unwrap();
    std::fs::write(dir.path().join("bodies/crate data.bin"), &bin).unwrap();
    let ext = write_gltf(
        &dir.path().join("bodies"),
        "crate.gltf",
        json.clone(),
        "crate%20data.bin",
    );
    assert_eq!(
        import(&ext, dir.path(), &ImportLimits::default()).unwrap(),
        want
    );
    let via_level = import_body(dir.path(), "bodies/crate.gltf", &ImportLimits::default()).unwrap();
    assert_eq!(via_level, want);
    let uri = format!("data:application/octet-stream;base64,{}", base64(&bin));
    let emb = write_gltf(dir.path(), "embedded.gltf", json, &uri);
    assert_eq!(
        import(&emb, dir.path(), &ImportLimits::default()).unwrap(),
        want
    );
}

fn problem(path: &Path, root: &Path, limits: &ImportLimits) -> (String, ImportProblem) {
    let e = import(path, root, limits).expect_err("import must fail");
    (e.to_string(), e.problem)
}

#[test]
fn broken_empty_oversized_missing_and_escaping_files_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let limits = ImportLimits::default();
    let (json, bin) = crate_parts();

    let garbage = root.join("garbage.glb");
    std::fs::write(&garbage, b"glTF\x02\0\0\0not really a glb at all").unwrap();
    let (msg, p) = problem(&garbage, root, &limits);
    assert!(
        matches!(p, ImportProblem::Broken(_)) && msg.contains("garbage.glb"),
        "{msg}"
    );

    let glb = std::fs::read(assets().join("crate.glb")).unwrap();
    let cut = root.join("truncated.glb");
    std::fs::write(&cut, &glb[..glb.len() - 40]).unwrap();
    let (msg, p) = problem(&cut, root, &limits);
    assert!(
        matches!(
            p,
            ImportProblem::Broken(_) | ImportProblem::MissingBuffer { .. }
        ),
        "{msg}"
    );
    assert!(msg.contains("truncated.glb"));

    let empty = root.join("empty.gltf");
    std::fs::write(
        &empty,
        br#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[]}],"scene":0}"#,
    )
    .unwrap();
    let (msg, p) = problem(&empty, root, &limits);
    assert!(
        matches!(p, ImportProblem::Empty) && msg.contains("empty.gltf"),
        "{msg}"
    );

    let big = ImportLimits {
        max_file_bytes: 100,
        ..limits
    };
    let (msg, p) = problem(&assets().join("crate.glb"), &assets(), &big);
    assert!(
        matches!(
            p,
            ImportProblem::Oversized {
                what: "the file",
                ..
            }
        ),
        "{msg}"
    );
    let few = ImportLimits {
        max_vertices: 4,
        ..limits
    };
    let (msg, p) = problem(&assets().join("crate.glb"), &assets(), &few);
    assert!(
        matches!(
            p,
            ImportProblem::Oversized {
                what: "the number of vertices",
                ..
            }
        ),
        "{msg}"
    );

    let missing = write_gltf(root, "missing.gltf", json.clone(), "nowhere.bin");
    let (msg, p) = problem(&missing, root, &limits);
    assert!(
        matches!(p, ImportProblem::MissingBuffer { index: 0, .. }),
        "{msg}"
    );
    assert!(
        msg.contains("missing.gltf") && msg.contains("nowhere.bin"),
        "{msg}"
    );

    let inner = root.join("level");
    std::fs::create_dir(&inner).unwrap();
    std::fs::write(root.join("outside.bin"), &bin).unwrap();
    for uri in [
        "../outside.bin",
        "/etc/passwd",
        "file:///etc/passwd",
        "sub/../../outside.bin",
    ] {
        let esc = write_gltf(&inner, "escape.gltf", json.clone(), uri);
        let (msg, p) = problem(&esc, &inner, &limits);
        assert!(matches!(p, ImportProblem::OutsideFolder(_)), "{uri}: {msg}");
    }
    let e = import_body(&inner, "../outside.glb", &limits).expect_err("outside");
    assert!(matches!(e.problem, ImportProblem::OutsideFolder(_)), "{e}");

    let short = write_gltf(root, "short.gltf", json.clone(), "short.bin");
    std::fs::write(root.join("short.bin"), &bin[..bin.len() / 2]).unwrap();
    let (msg, p) = problem(&short, root, &limits);
    assert!(matches!(p, ImportProblem::MissingBuffer { .. }), "{msg}");

    // An external buffer too large, or that cannot be read, is named: it is not the glTF
    // that is too large or unreadable.
    let large = write_gltf(root, "large.gltf", json.clone(), "large.bin");
    std::fs::write(root.join("large.bin"), vec![0u8; 4096]).unwrap();
    let small = ImportLimits {
        max_file_bytes: 2048,
        ..limits
    };
    let (msg, p) = problem(&large, root, &small);
    assert!(
        matches!(p, ImportProblem::MissingBuffer { index: 0, .. }),
        "{msg}"
    );
    assert!(msg.contains("`large.bin` is 4096 bytes"), "{msg}");
    let folder = write_gltf(root, "folder.gltf", json, "a_folder.bin");
    std::fs::create_dir(root.join("a_folder.bin")).unwrap();
    let (msg, p) = problem(&folder, root, &limits);
    assert!(
        matches!(p, ImportProblem::MissingBuffer { index: 0, .. }),
        "{msg}"
    );
    assert!(msg.contains("`a_folder.bin` cannot be read"), "{msg}");
}

#[test]
fn a_mesh_placed_by_many_nodes_counts_every_placement_against_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (mut json, bin) = crate_parts();
    std::fs::write(dir.path().join("crate.bin"), &bin).unwrap();
    let nodes: Vec<Value> = (0..20)
        .map(|k| serde_json::json!({"mesh": 0, "translation": [k as f32 * 2.0, 0.0, 0.0]}))
        .collect();
    json["scenes"][0]["nodes"] = (0..20).collect::<Vec<_>>().into();
    json["nodes"] = nodes.into();
    let path = write_gltf(dir.path(), "stack.gltf", json, "crate.bin");
    let all = import(&path, dir.path(), &ImportLimits::default()).unwrap();
    assert_eq!(all.positions.len(), 20 * 8);
    assert_eq!(all.triangles.len(), 20 * 12);
    let few = ImportLimits {
        max_vertices: 50,
        ..ImportLimits::default()
    };
    let (msg, p) = problem(&path, dir.path(), &few);
    assert!(matches!(p, ImportProblem::Oversized { .. }), "{msg}");
}

#[test]
fn mutated_files_give_a_mesh_or_an_error_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let limits = ImportLimits::default();
    let mut seed = 0x2545_f491u32;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    let (mut meshes, mut errors) = (0, 0);
    for name in ["crate", "cart", "boulder"] {
        let original = std::fs::read(assets().join(format!("{name}.glb"))).unwrap();
        for round in 0..300 {
            let mut bytes = original.clone();
            match round % 3 {
                0 => {
                    for _ in 0..1 + next() % 4 {
                        let at = next() as usize % bytes.len();
                        bytes[at] = next() as u8;
                    }
                }
                1 => bytes.truncate(next() as usize % bytes.len()),
                _ => {
                    // Corrupt the JSON chunk's numbers: counts, offsets, indices.
                    let at = 20 + next() as usize % 200;
                    if bytes[at].is_ascii_digit() {
                        bytes[at] = b'0' + (next() % 10) as u8;
                    }
                }
            }
            let path = dir.path().join("mutant.glb");
            std::fs::write(&path, &bytes).unwrap();
            match import(&path, dir.path(), &limits) {
                Ok(m) => {
                    assert!(
                        m.triangles
                            .iter()
                            .flatten()
                            .all(|&i| (i as usize) < m.positions.len())
                    );
                    meshes += 1;
                }
                Err(e) => {
                    assert!(e.to_string().contains("mutant.glb"));
                    errors += 1;
                }
            }
        }
    }
    println!("mutants: {meshes} imported, {errors} refused");
    assert!(errors > 100);
}

#[test]
fn a_gltf_in_memory_imports_as_its_file_does_and_needs_its_buffers_inside() {
    let limits = ImportLimits::default();
    let name = Path::new("pack/bodies/crate.glb");
    let glb = std::fs::read(assets().join("crate.glb")).unwrap();
    assert_eq!(import_bytes(name, &glb, &limits).unwrap(), asset("crate"));
    let (mut json, bin) = crate_parts();
    json["buffers"][0]["uri"] = Value::String(format!(
        "data:application/octet-stream;base64,{}",
        base64(&bin)
    ));
    let embedded = serde_json::to_vec(&json).unwrap();
    assert_eq!(
        import_bytes(name, &embedded, &limits).unwrap(),
        asset("crate")
    );

    // A buffer in a file beside it cannot be read from memory: named, not looked for on disk.
    json["buffers"][0]["uri"] = Value::String("crate.bin".into());
    let external = serde_json::to_vec(&json).unwrap();
    let e = import_bytes(name, &external, &limits).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.starts_with("pack/bodies/crate.glb: ") && msg.contains("`crate.bin`"),
        "{msg}"
    );
    assert!(matches!(e.problem, ImportProblem::MissingBuffer { .. }));
    let small = ImportLimits {
        max_file_bytes: 100,
        ..limits
    };
    let e = import_bytes(name, &glb, &small).unwrap_err();
    assert!(matches!(e.problem, ImportProblem::Oversized { .. }), "{e}");
    let e = import_bytes(name, &glb[..glb.len() / 2], &limits).unwrap_err();
    assert!(e.to_string().starts_with("pack/bodies/crate.glb: "), "{e}");
}
