//! A level's body files travel with it: `spillway bake -o` into another folder copies the glTF
//! files of its bodies there (a level loads them only from inside its own folder), so the baked
//! level checks and runs where it was written; `spillway check` loads every body file as a game
//! would and names the level, the body and the file when one is missing or lies outside the
//! level's folder; a bake never copies a file from outside the level's folder. `bake --json`
//! reports the same as one JSON object, and `--require-steady` fails a bake that has not
//! settled.

use std::path::Path;

use spillway::level::file;

use crate::bodies::crate_dam;
use crate::{spillway, stderr};

/// `spillway ARGS` in `dir`, which must succeed; its stdout.
fn ok(dir: &Path, args: &[&str]) -> String {
    let out = spillway(dir, args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `spillway bake LEVEL -o OUT` for one simulated second on the CPU, then `extra`.
fn bake_args<'a>(level: &'a str, out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "bake",
        level,
        "-o",
        out,
        "--max-seconds",
        "1",
        "--backend",
        "cpu",
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn a_level_baked_into_another_folder_brings_its_body_files_and_runs_there() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    crate_dam(&src);
    let text = ok(dir.path(), &bake_args("src/dam.ron", "out/baked.ron", &[]));
    println!("{text}");
    assert!(
        text.contains("its body file copied into out/bodies"),
        "{text}"
    );
    let copied = dir.path().join("out/bodies/crate.glb");
    assert_eq!(
        std::fs::read(&copied).unwrap(),
        std::fs::read(src.join("bodies/crate.glb")).unwrap(),
        "the crate's mesh, byte for byte"
    );
    let baked = file::load(&dir.path().join("out/baked.ron")).unwrap();
    assert!(baked.bodies.iter().all(|b| b.gltf == "bodies/crate.glb"));
    // The baked level checks and runs from its own folder, with its ten crates.
    ok(dir.path(), &["check", "out/baked.ron"]);
    let json = ok(
        dir.path(),
        &[
            "sim",
            "out/baked.ron",
            "--seconds",
            "1",
            "--json",
            "--backend",
            "cpu",
        ],
    );
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["bodies"], 10, "{json}");
    // Baked beside itself, nothing is copied and nothing is said about it.
    let text = ok(
        dir.path(),
        &[
            "bake",
            "src/dam.ron",
            "-o",
            "src/again.ron",
            "--max-seconds",
            "1",
        ],
    );
    assert!(!text.contains("copied"), "{text}");
    assert!(!src.join("bodies/bodies").exists());

    // A build pipeline reads the same from `--json`: one object on stdout.
    let bake_json = |out: &str| {
        let args = bake_args("src/dam.ron", out, &["--json"]);
        let json: serde_json::Value = serde_json::from_str(&ok(dir.path(), &args)).unwrap();
        println!("{json}");
        json
    };
    let json = bake_json("out2/baked.ron");
    assert_eq!(json["output"], "out2/baked.ron");
    assert_eq!(json["body_files_copied"], 1);
    assert_eq!(json["bodies"], 10);
    assert_eq!(json["steady"], false);
    assert!(
        (json["seconds"].as_f64().unwrap() - 1.0).abs() < 1e-6,
        "{json}"
    );
    assert!(json["rate"].as_f64().unwrap() > json["tolerance"].as_f64().unwrap());
    assert!(dir.path().join("out2/bodies/crate.glb").exists());
    assert_eq!(bake_json("src/again.ron")["body_files_copied"], 0);

    // `--require-steady` stops a pipeline on a level that has not settled, and still writes it.
    let args = bake_args("src/dam.ron", "out3/baked.ron", &["--require-steady"]);
    let out = spillway(dir.path(), &args);
    let message = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(3),
        "not steady has its own code: {message}"
    );
    assert!(
        message.contains("src/dam.ron: not steady after 1 s") && message.contains("was written"),
        "{message}"
    );
    assert!(file::load(&dir.path().join("out3/baked.ron")).is_ok());
}

#[test]
fn check_names_the_body_whose_file_is_missing_or_outside_the_level_folder() {
    let dir = tempfile::tempdir().unwrap();
    let path = crate_dam(dir.path());
    ok(dir.path(), &["check", "dam.ron"]);

    std::fs::rename(
        dir.path().join("bodies/crate.glb"),
        dir.path().join("crate.glb"),
    )
    .unwrap();
    let out = spillway(dir.path(), &["check", "dam.ron"]);
    let message = stderr(&out);
    println!("{message}");
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(
        message.contains("dam.ron: bodies[0] (dam crate 1):")
            && message.contains("bodies/crate.glb")
            && message.contains("cannot read it"),
        "{message}"
    );

    // `sim` names it too, and says how to run the water without the bodies.
    let out = spillway(
        dir.path(),
        &["sim", "dam.ron", "--steps", "1", "--backend", "cpu"],
    );
    let message = stderr(&out);
    assert!(!out.status.success());
    assert!(
        message.contains("bodies[0] (dam crate 1):") && message.contains("--no-bodies runs"),
        "{message}"
    );

    // `bake` names it and says to mend it (it advised --no-bodies, which keeps the bodies in
    // the level too); `bake --no-bodies` beside the input names it as well (it wrote a level a
    // check refuses).
    let out = spillway(
        dir.path(),
        &["bake", "dam.ron", "-o", "baked.ron", "--max-seconds", "1"],
    );
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{message}");
    assert!(
        message.contains("mend or put back the body's file"),
        "{message}"
    );
    let out = spillway(
        dir.path(),
        &[
            "bake",
            "dam.ron",
            "-o",
            "baked.ron",
            "--no-bodies",
            "--max-seconds",
            "1",
        ],
    );
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{message}");
    assert!(message.contains("cannot read it"), "{message}");
    assert!(!dir.path().join("baked.ron").exists());

    // A level in a folder of its own whose bodies name the crate beside that folder.
    let inner = dir.path().join("inner");
    std::fs::create_dir_all(&inner).unwrap();
    let mut level = file::load(&path).unwrap();
    for body in &mut level.bodies {
        body.gltf = "../crate.glb".into();
    }
    file::save(&level, &inner.join("dam.ron")).unwrap();
    let out = spillway(dir.path(), &["check", "inner/dam.ron"]);
    let message = stderr(&out);
    println!("{message}");
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(
        message.contains("inner/dam.ron: bodies[0] (dam crate 1):")
            && message.contains("`../crate.glb` points outside the level's folder"),
        "{message}"
    );

    // Nor does a bake into another folder copy it there, with or without the bodies coupled.
    for extra in [&[][..], &["--no-bodies"][..]] {
        let out = spillway(
            dir.path(),
            &bake_args("inner/dam.ron", "out/baked.ron", extra),
        );
        let message = stderr(&out);
        assert!(!out.status.success(), "{extra:?}");
        assert!(
            message.contains("points outside the level's folder"),
            "{extra:?}: {message}"
        );
        assert!(!dir.path().join("out/bodies").exists(), "{extra:?}");
    }
}
