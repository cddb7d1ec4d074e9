//! `spillway import` reads RAW r16 heightmaps (World Machine, Gaea and Unreal write them) with a
//! stated size and height range: `--raw-size WxH` (a square file needs none), `--height-min`
//! for sample 0 (an offset on a `.npy` too) and `--height-scale` from sample 0 to 65535. A file
//! whose length does not fit the size, or a non-square file without a size, is refused by name.
//! A PNG the editor exported comes back at the height range it notes; a `.npy` DEM in
//! millimetres comes in through its scale.

use spillway::level::file;

use crate::{spillway, stderr};

/// Writes `samples` (rows of `width`) as little-endian 16-bit RAW.
fn write_r16(path: &std::path::Path, samples: &[u16]) {
    let bytes: Vec<u8> = samples.iter().flat_map(|s| s.to_le_bytes()).collect();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn import_raw_r16_with_its_size_and_height_range() {
    let dir = tempfile::tempdir().unwrap();
    // Four samples a row, three rows: 0, 65535 and steps between.
    let samples: Vec<u16> = (0..12u32).map(|k| (k * 65535 / 11) as u16).collect();
    write_r16(&dir.path().join("valley.r16"), &samples);
    let args = [
        "import",
        "--terrain",
        "valley.r16",
        "--raw-size",
        "4x3",
        "--height-min",
        "-10",
        "--height-scale",
        "20",
        "-o",
        "level.ron",
    ];
    let out = spillway(dir.path(), &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let level = file::load(&dir.path().join("level.ron")).unwrap();
    assert_eq!((level.nx(), level.ny()), (4, 3));
    for (k, &s) in samples.iter().enumerate() {
        let expected = -10.0 + 20.0 * s as f32 / 65535.0;
        let got = level.terrain.data[k];
        assert!(
            (got - expected).abs() < 1e-5,
            "sample {k}: {got} m, not {expected}"
        );
    }
    assert_eq!(level.terrain.data[0], -10.0);
    assert_eq!(level.terrain.data[11], 10.0);

    // A square file needs no size; without a scale the default is said.
    write_r16(&dir.path().join("square.raw"), &[0, 32768, 65535, 0]);
    let out = spillway(
        dir.path(),
        &["import", "--terrain", "square.raw", "-o", "square.ron"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("100 m"), "{}", stderr(&out));
    let level = file::load(&dir.path().join("square.ron")).unwrap();
    assert_eq!((level.nx(), level.ny()), (2, 2));
    assert_eq!(level.terrain.data[2], 100.0);
}

#[test]
fn a_raw_file_that_does_not_fit_its_size_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    write_r16(&dir.path().join("odd.r16"), &[1; 6]);
    let refused = |extra: &[&str]| {
        let mut args = vec!["import", "--terrain", "odd.r16"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["-o", "level.ron"]);
        let out = spillway(dir.path(), &args);
        assert!(!out.status.success(), "{extra:?}");
        assert!(!dir.path().join("level.ron").exists());
        stderr(&out)
    };
    let message = refused(&[]);
    assert!(
        message.contains("odd.r16") && message.contains("--raw-size"),
        "{message}"
    );
    let message = refused(&["--raw-size", "4x4"]);
    assert!(
        message.contains("odd.r16") && message.contains("12 bytes") && message.contains("32"),
        "{message}"
    );
    // A file not there (or a folder) is said so, as a failure (exit 1): its size was asked
    // for, as a usage error (exit 2).
    std::fs::create_dir(dir.path().join("folder.raw")).unwrap();
    for name in ["typo.r16", "folder.raw"] {
        let out = spillway(
            dir.path(),
            &["import", "--terrain", name, "-o", "level.ron"],
        );
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: {message}");
        assert!(
            message.contains(name) && message.contains("cannot read the heightmap"),
            "{message}"
        );
    }
    let message = refused(&["--raw-size", "four"]);
    assert!(message.contains("`four` is not a size"), "{message}");
    // No level's size: a usage error (exit 2) before the file is read, as a bad option is.
    for size in ["0x0", "1x16", "100000x100000"] {
        let out = spillway(
            dir.path(),
            &[
                "import",
                "--terrain",
                "odd.r16",
                "--raw-size",
                size,
                "-o",
                "level.ron",
            ],
        );
        assert_eq!(out.status.code(), Some(2), "{size}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("is no level's size"),
            "{}",
            stderr(&out)
        );
    }
    std::fs::write(dir.path().join("flat.npy"), b"not read").unwrap();
    let out = spillway(
        dir.path(),
        &[
            "import",
            "--terrain",
            "flat.npy",
            "--raw-size",
            "2x2",
            "-o",
            "x.ron",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--raw-size is for RAW heightmaps"));
}

#[test]
fn height_min_raises_a_npy_terrain_too() {
    let dir = tempfile::tempdir().unwrap();
    let terrain = spillway::Grid::from_fn(3, 2, |i, j| (i + 3 * j) as f32);
    spillway_editor::heightmap::npy::write(&dir.path().join("t.npy"), &terrain).unwrap();
    let args = [
        "import",
        "--terrain",
        "t.npy",
        "--height-scale",
        "2",
        "--height-min",
        "-4.5",
        "-o",
        "level.ron",
    ];
    let out = spillway(dir.path(), &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let level = file::load(&dir.path().join("level.ron")).unwrap();
    let expected: Vec<f32> = terrain.data.iter().map(|v| v * 2.0 - 4.5).collect();
    assert_eq!(level.terrain.data, expected);
}

#[test]
fn a_png_the_editor_exported_comes_back_at_its_noted_heights() {
    // The editor notes a PNG export's range in the file; `spillway import` read such a PNG at
    // 0 to 100 m whatever the heights were.
    let dir = tempfile::tempdir().unwrap();
    let img = image::ImageBuffer::<image::Luma<u16>, Vec<u16>>::from_fn(4, 3, |x, y| {
        image::Luma([((x + 4 * y) * 65535 / 11) as u16])
    });
    let mut bytes = Vec::new();
    img.write_to(
        &mut std::io::Cursor::new(&mut bytes),
        image::ImageFormat::Png,
    )
    .unwrap();
    let noted = spillway_editor::heightmap::png::with_range_note(&bytes, -20.0, 80.0);
    std::fs::write(dir.path().join("exported.png"), noted).unwrap();
    let out = spillway(
        dir.path(),
        &["import", "--terrain", "exported.png", "-o", "level.ron"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("notes its height range, -20 m"),
        "{}",
        stderr(&out)
    );
    let level = file::load(&dir.path().join("level.ron")).unwrap();
    assert!((level.terrain.get(0, 0) + 20.0).abs() < 1e-3);
    assert!((level.terrain.get(3, 2) - 80.0).abs() < 1e-3);
    // Flags given win over the note.
    let out = spillway(
        dir.path(),
        &[
            "import",
            "--terrain",
            "exported.png",
            "--height-scale",
            "10",
            "-o",
            "flag.ron",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let level = file::load(&dir.path().join("flag.ron")).unwrap();
    assert!((level.terrain.get(3, 2) - 10.0).abs() < 1e-3);
}

#[test]
fn a_dem_in_millimetres_imports_with_its_scale() {
    // Heights were held to ±1e6 m before `--height-scale` took them to metres: a DEM in
    // millimetres from 1500 m up was refused.
    let dir = tempfile::tempdir().unwrap();
    let mm = spillway::Grid::from_fn(16, 16, |i, j| 1.5e6 + 1000.0 * (i + j) as f32);
    spillway_editor::heightmap::npy::write(&dir.path().join("mm.npy"), &mm).unwrap();
    let path = super::import(
        dir.path(),
        &["--terrain", "mm.npy", "--height-scale", "0.001"],
    );
    let level = spillway::level::file::load(&path).unwrap();
    assert!((level.terrain.data[0] - 1500.0).abs() < 1e-3);
    assert!((level.terrain.data[17] - 1502.0).abs() < 1e-3);
    // Past the heights a level may have once scaled: refused, named in metres.
    let out = super::spillway(
        dir.path(),
        &["import", "--terrain", "mm.npy", "-o", "x/level.ron"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", super::stderr(&out));
    assert!(
        super::stderr(&out).contains("1500000"),
        "{}",
        super::stderr(&out)
    );
}
