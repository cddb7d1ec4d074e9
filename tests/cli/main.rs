//! The `spillway` command line as a build engineer drives it: the real binary on real files.

mod bad_inputs;
mod bench;
mod bodies;
mod body_files;
mod crates;
mod determinism;
mod folders;
mod kill_save;
mod outputs;
mod raw_heightmaps;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use spillway::level::file;
use spillway::{Grid, Level};
use spillway_editor::heightmap::npy;

/// Runs the binary with `args` in `dir`; asserts no panic text reaches the user.
pub(crate) fn spillway(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_spillway"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!all.contains("panicked"), "panic reached the user: {all}");
    out
}

pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn ramp(nx: usize, ny: usize) -> Grid {
    Grid::from_fn(nx, ny, |i, j| i as f32 * 0.5 + j as f32 * 0.25)
}

/// Writes a little-endian f64 `.npy` of shape (ny, nx).
fn write_npy_f64(path: &Path, g: &Grid) {
    let header = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': ({}, {}), }}",
        g.ny, g.nx
    );
    let mut header = header.into_bytes();
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(b' ');
    }
    header.push(b'\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(&header);
    for v in &g.data {
        bytes.extend_from_slice(&(*v as f64).to_le_bytes());
    }
    std::fs::write(path, bytes).unwrap();
}

fn import(dir: &Path, extra: &[&str]) -> PathBuf {
    let mut args = vec!["import"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["-o", "level.ron"]);
    let out = spillway(dir, &args);
    assert!(out.status.success(), "import failed: {}", stderr(&out));
    dir.join("level.ron")
}

#[test]
fn a_gpu_run_without_a_desktop_session_prints_no_false_error() {
    // Mesa's device-select layer printed "error: XDG_RUNTIME_DIR is invalid or not set in the
    // environment." twice where no desktop session runs (CI, a build server) before a run
    // that went well.
    let dir = tempfile::tempdir().unwrap();
    let mut level = Level::flat(16, 16, 1.0, 0.0);
    level.water = Grid::filled(16, 16, 0.5);
    file::save(&level, &dir.path().join("level.ron")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_spillway"))
        .args(["sim", "level.ron", "--steps", "2", "--backend", "gpu"])
        .current_dir(dir.path())
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("NODEVICE_SELECT")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(!err.contains("XDG_RUNTIME_DIR"), "a false error: {err}");
}

#[test]
fn import_npy_f32_and_f64_keeps_heights_and_depths() {
    let dir = tempfile::tempdir().unwrap();
    let terrain = ramp(12, 7);
    let water = Grid::from_fn(12, 7, |i, _| if i < 4 { 1.5 } else { 0.0 });
    npy::write(&dir.path().join("t32.npy"), &terrain).unwrap();
    write_npy_f64(&dir.path().join("t64.npy"), &terrain);
    npy::write(&dir.path().join("w.npy"), &water).unwrap();
    for t in ["t32.npy", "t64.npy"] {
        let path = import(
            dir.path(),
            &[
                "--terrain",
                t,
                "--water",
                "w.npy",
                "--cell-size",
                "2",
                "--solver",
                "swe",
            ],
        );
        let level = file::load(&path).unwrap();
        assert_eq!((level.nx(), level.ny()), (12, 7));
        assert_eq!(level.terrain.data, terrain.data, "{t}");
        assert_eq!(level.water.data, water.data);
        assert_eq!(level.cell_size, 2.0);
        assert_eq!(level.params.solver, spillway::SolverKind::Swe);
        assert!(
            spillway(dir.path(), &["check", "level.ron"])
                .status
                .success()
        );
    }
}

#[test]
fn import_png_8_and_16_bit_scales_heights() {
    let dir = tempfile::tempdir().unwrap();
    let img8 = image::GrayImage::from_fn(5, 3, |x, y| image::Luma([(x * 50 + y) as u8]));
    img8.save(dir.path().join("h8.png")).unwrap();
    let img16 = image::ImageBuffer::<image::Luma<u16>, Vec<u16>>::from_fn(5, 3, |x, y| {
        image::Luma([(x * 16000 + y) as u16])
    });
    img16.save(dir.path().join("h16.png")).unwrap();
    let level = file::load(&import(
        dir.path(),
        &["--terrain", "h8.png", "--height-scale", "255"],
    ))
    .unwrap();
    for (x, y) in [(0, 0), (4, 2), (2, 1)] {
        assert!((level.terrain.get(x, y) - (x * 50 + y) as f32).abs() < 1e-3);
    }
    let level = file::load(&import(
        dir.path(),
        &["--terrain", "h16.png", "--height-scale", "65535"],
    ))
    .unwrap();
    for (x, y) in [(0, 0), (4, 2), (3, 1)] {
        assert!((level.terrain.get(x, y) - (x * 16000 + y) as f32).abs() < 1e-2);
    }
}

fn small_level(dir: &Path) -> PathBuf {
    let mut level = Level::flat(24, 16, 1.0, 0.0);
    level.terrain = ramp(24, 16);
    level.water = Grid::from_fn(24, 16, |i, _| if i < 8 { 3.0 } else { 0.0 });
    level.sources.push(spillway::level::Source {
        name: "spring".into(),
        shape: spillway::level::Shape::Circle {
            x: 4.0,
            y: 8.0,
            radius: 2.0,
        },
        kind: spillway::level::SourceKind::Rate { m3_per_s: 1.0 },
        enabled: true,
    });
    let path = dir.join("small.ron");
    file::save(&level, &path).unwrap();
    path
}

#[test]
fn sim_prints_json_and_dumps_depth() {
    let dir = tempfile::tempdir().unwrap();
    small_level(dir.path());
    let out = spillway(
        dir.path(),
        &[
            "sim",
            "small.ron",
            "--seconds",
            "2",
            "--json",
            "--dump-depth",
            "depth.npy",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    for key in [
        "steps",
        "seconds",
        "volume_initial",
        "volume",
        "inflow",
        "outflow",
        "balance_error",
        "max_depth",
        "wet_cells",
        "ms_per_step",
    ] {
        assert!(json.get(key).is_some(), "missing {key} in {json}");
    }
    assert!((json["inflow"].as_f64().unwrap() - 2.0).abs() < 1e-3);
    assert!(json["balance_error"].as_f64().unwrap().abs() < 1e-6);
    let depth = npy::read(&dir.path().join("depth.npy")).unwrap();
    assert_eq!(
        (depth.grid.ny, depth.grid.nx),
        (16, 24),
        "shape (rows, cols)"
    );
}

#[test]
fn bake_saves_flow_state_that_check_accepts() {
    let dir = tempfile::tempdir().unwrap();
    small_level(dir.path());
    let out = spillway(
        dir.path(),
        &[
            "bake",
            "small.ron",
            "-o",
            "baked.ron",
            "--until-steady",
            "0.05",
            "--max-seconds",
            "20",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let check = spillway(dir.path(), &["check", "baked.ron"]);
    assert!(check.status.success(), "{}", stderr(&check));
    let baked = file::load(&dir.path().join("baked.ron")).unwrap();
    let flow = baked.flow.expect("baked flow state");
    assert!(flow.time > 0.0);
}

#[test]
fn bake_writes_the_maps_of_its_run_for_the_game() {
    let dir = tempfile::tempdir().unwrap();
    small_level(dir.path());
    let out = spillway(
        dir.path(),
        &[
            "bake",
            "small.ron",
            "-o",
            "baked.ron",
            "--max-seconds",
            "10",
            "--backend",
            "cpu",
            "--maps",
            "maps",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let maps = dir.path().join("maps");
    for stem in ["max_depth", "max_speed", "arrival", "hazard"] {
        for ext in ["npy", "png"] {
            assert!(maps.join(format!("{stem}.{ext}")).is_file(), "{stem}.{ext}");
        }
    }
    let index = std::fs::read_to_string(maps.join("maps.txt")).unwrap();
    assert!(
        index.contains("max_depth.png: Max depth in m, min 0 max"),
        "{index}"
    );
    // The reservoir's 3 m stood from the start; the water spread down the ramp later.
    let depth = npy::read(&maps.join("max_depth.npy")).unwrap().grid;
    assert_eq!((depth.nx, depth.ny), (24, 16));
    assert!(depth.get(2, 8) >= 3.0, "{}", depth.get(2, 8));
    let arrival = npy::read(&maps.join("arrival.npy")).unwrap().grid;
    assert_eq!(arrival.get(2, 8), 0.0);
    let later = arrival.data.iter().filter(|&&t| t > 0.0).count();
    let never = arrival.data.iter().filter(|&&t| t == -1.0).count();
    assert!(
        later > 0 && never > 0,
        "reached later {later}, never {never}"
    );
    let png = image::open(maps.join("hazard.png")).unwrap();
    assert_eq!(png.color(), image::ColorType::L16);
}

#[test]
fn check_refuses_a_corrupt_level_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("broken.ron"),
        "(format_version: 1, name: \"x\", cell_size: oops)",
    )
    .unwrap();
    let out = spillway(dir.path(), &["check", "broken.ron"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("broken.ron"), "{}", stderr(&out));
    let out = spillway(dir.path(), &["sim", "missing.ron", "--seconds", "1"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("missing.ron"), "{}", stderr(&out));
}

#[test]
fn edit_without_a_display_says_so_clearly() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&[][..], &["edit", "projects/x/level.ron"][..]] {
        let out = Command::new(env!("CARGO_BIN_EXE_spillway"))
            .args(args)
            .current_dir(dir.path())
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let text = stderr(&out);
        assert!(text.to_lowercase().contains("display"), "{text}");
        assert!(!text.contains("panicked"), "{text}");
    }
}

#[test]
fn bad_usage_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    small_level(dir.path());
    for args in [
        &["sim", "small.ron", "--seconds", "1", "--friction", "1.5"][..],
        &["sim", "small.ron", "--seconds", "-1"][..],
        &["sim", "small.ron"][..],
        &["bench", "--sizes", "1"][..],
        &["frobnicate"][..],
    ] {
        let out = spillway(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn import_refuses_bad_arrays_and_names_the_file_and_place() {
    let dir = tempfile::tempdir().unwrap();
    let mut terrain = ramp(6, 5);
    npy::write(&dir.path().join("ok.npy"), &terrain).unwrap();
    terrain.set(4, 3, f32::NAN);
    npy::write(&dir.path().join("nan.npy"), &terrain).unwrap();
    npy::write(&dir.path().join("small_water.npy"), &ramp(5, 5)).unwrap();
    npy::write(&dir.path().join("negative.npy"), &Grid::filled(6, 5, -1.0)).unwrap();
    let mut truncated = npy::encode(&ramp(6, 5));
    truncated.truncate(truncated.len() - 3);
    std::fs::write(dir.path().join("truncated.npy"), truncated).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    image::RgbImage::new(4, 4)
        .save(dir.path().join("colour.png"))
        .unwrap();
    let cases: [(&[&str], &[&str]); 6] = [
        (
            &["--terrain", "nan.npy"],
            &["nan.npy", "row 3, column 4", "not a finite number"],
        ),
        (
            &["--terrain", "truncated.npy"],
            &["truncated.npy", "needs 120 data bytes"],
        ),
        (&["--terrain", "notes.txt"], &["notes.txt", "neither"]),
        (&["--terrain", "colour.png"], &["colour.png", "grayscale"]),
        (
            &["--terrain", "ok.npy", "--water", "small_water.npy"],
            &["small_water.npy", "does not match"],
        ),
        (
            &["--terrain", "ok.npy", "--water", "negative.npy"],
            &["negative.npy", "negative"],
        ),
    ];
    for (args, wanted) in cases {
        let mut all = vec!["import"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-o", "out/level.ron"]);
        let out = spillway(dir.path(), &all);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        for w in wanted {
            assert!(err.contains(w), "{args:?}: {err:?} should contain {w:?}");
        }
    }
    assert!(
        !dir.path().join("out/level.ron").exists(),
        "nothing written on failure"
    );
}

#[test]
fn import_png_without_scale_uses_and_prints_the_default() {
    let dir = tempfile::tempdir().unwrap();
    image::GrayImage::from_pixel(4, 4, image::Luma([255u8]))
        .save(dir.path().join("white.png"))
        .unwrap();
    let out = spillway(
        dir.path(),
        &[
            "import",
            "--terrain",
            "white.png",
            "--boundary",
            "open",
            "-o",
            "nested/island/level.ron",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("100 m"),
        "the default scale is printed: {}",
        stderr(&out)
    );
    let level = file::load(&dir.path().join("nested/island/level.ron")).unwrap();
    assert!(level.terrain.data.iter().all(|&h| (h - 100.0).abs() < 1e-4));
    assert_eq!(
        level.params.default_boundary,
        spillway::level::BoundaryKind::Open
    );
    assert_eq!(level.name, "island");
}

#[test]
fn sim_human_summary_and_bake_steady_line() {
    let dir = tempfile::tempdir().unwrap();
    small_level(dir.path());
    let out = spillway(
        dir.path(),
        &[
            "sim",
            "small.ron",
            "--seconds",
            "1",
            "--threads",
            "1",
            "--dt",
            "0.05",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("20 steps") && text.contains("balance error"),
        "{text}"
    );

    // A dry flat level is steady after its first simulated second.
    file::save(&Level::flat(8, 8, 1.0, 0.0), &dir.path().join("dry.ron")).unwrap();
    let out = spillway(dir.path(), &["bake", "dry.ron", "-o", "dry_baked.ron"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("1.0 s simulated") && text.contains("steady"),
        "{text}"
    );
    let baked = file::load(&dir.path().join("dry_baked.ron")).unwrap();
    let flow = baked.flow.expect("flow state");
    assert_eq!((flow.flow_x.len(), flow.flow_y.len()), (9 * 8, 8 * 9));
    let check = spillway(dir.path(), &["check", "dry_baked.ron"]);
    assert!(String::from_utf8_lossy(&check.stdout).starts_with("ok: "));
}

#[test]
fn check_refuses_a_damaged_sidecar_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    small_level(dir.path());
    let sidecar = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "grids"))
        .expect("a sidecar");
    let mut bytes = std::fs::read(&sidecar).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&sidecar, bytes).unwrap();
    let out = spillway(dir.path(), &["check", "small.ron"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("small.ron") && stderr(&out).contains("checksum"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn sim_runs_on_the_gpu_backend_like_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    small_level(dir.path());
    let mut volumes = Vec::new();
    for backend in ["cpu", "gpu"] {
        let out = spillway(
            dir.path(),
            &[
                "sim",
                "small.ron",
                "--seconds",
                "2",
                "--json",
                "--backend",
                backend,
            ],
        );
        assert!(out.status.success(), "{backend}: {}", stderr(&out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["backend"], backend);
        volumes.push(json["volume"].as_f64().unwrap());
    }
    assert!(
        (volumes[0] - volumes[1]).abs() < 1e-3 * volumes[0],
        "{volumes:?}"
    );
}

#[test]
fn bake_on_the_gpu_settles_like_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    small_level(dir.path());
    let mut depths = Vec::new();
    for backend in ["cpu", "gpu"] {
        let name = format!("baked_{backend}.ron");
        let out = spillway(
            dir.path(),
            &[
                "bake",
                "small.ron",
                "-o",
                &name,
                "--until-steady",
                "0.05",
                "--max-seconds",
                "10",
                "--backend",
                backend,
            ],
        );
        assert!(out.status.success(), "{backend}: {}", stderr(&out));
        let baked = file::load(&dir.path().join(&name)).unwrap();
        assert!(baked.flow.expect("baked flow state").time > 0.0);
        depths.push(baked.water.data);
    }
    let worst = depths[0]
        .iter()
        .zip(&depths[1])
        .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
    assert!(worst < 1e-3, "CPU and GPU bakes differ by {worst} m");
}

#[test]
fn auto_backend_picks_the_cpu_without_a_hardware_gpu() {
    let dir = tempfile::tempdir().unwrap();
    small_level(dir.path());
    let out = spillway(
        dir.path(),
        &["sim", "small.ron", "--seconds", "1", "--json"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let expected = if spillway::gpu::hardware_adapter().is_some() {
        "gpu"
    } else {
        "cpu"
    };
    assert_eq!(json["backend"], expected);
}

#[test]
fn an_adapter_name_that_matches_nothing_is_named_with_the_adapters_there_are() {
    let dir = tempfile::tempdir().unwrap();
    small_level(dir.path());
    let out = Command::new(env!("CARGO_BIN_EXE_spillway"))
        .args(["sim", "small.ron", "--steps", "1", "--backend", "gpu"])
        .current_dir(dir.path())
        .env("SPILLWAY_GPU_ADAPTER", "no-such-gpu")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(
        message.contains("no GPU adapter's name contains \"no-such-gpu\" (SPILLWAY_GPU_ADAPTER)"),
        "{message}"
    );
}
