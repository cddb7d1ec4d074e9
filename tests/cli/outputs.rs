//! Outputs are checked before any work, as a build script needs: `-o DIR` means its
//! `level.ron`, an output that is one of the inputs is refused and the input kept, a folder or
//! a file where the other is wanted is refused before the run, and `--seconds` shorter than a
//! step still runs one.

use spillway::Level;
use spillway::level::file;

use super::{spillway, stderr};

fn lake(dir: &std::path::Path) -> std::path::PathBuf {
    let project = dir.join("lake");
    std::fs::create_dir_all(&project).unwrap();
    let mut level = Level::flat(24, 16, 1.0, 0.0);
    level.water = spillway::Grid::from_fn(24, 16, |x, _| if x < 8 { 1.0 } else { 0.0 });
    file::save(&level, &project.join("level.ron")).unwrap();
    project
}

#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    lake(d);
    let before = std::fs::read(d.join("lake/level.ron")).unwrap();
    let out = spillway(
        d,
        &[
            "sim",
            "lake",
            "--steps",
            "2",
            "--dump-depth",
            "lake/./level.ron",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("is the input"), "{}", stderr(&out));
    assert_eq!(std::fs::read(d.join("lake/level.ron")).unwrap(), before);

    super::write_npy_f64(&d.join("t.npy"), &super::ramp(8, 6));
    let out = spillway(d, &["import", "--terrain", "t.npy", "-o", "t.npy"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("t.npy: -o is the input"),
        "{}",
        stderr(&out)
    );
    assert!(spillway_editor::heightmap::npy::read(&d.join("t.npy")).is_ok());
}

#[test]
fn a_folder_output_means_its_level_and_bad_outputs_fail_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    lake(d);
    std::fs::create_dir_all(d.join("out")).unwrap();
    let out = spillway(d, &["bake", "lake", "-o", "out", "--max-seconds", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(file::load(&d.join("out/level.ron")).unwrap().flow.is_some());
    let out = spillway(d, &["bake", "lake", "-o", "new/", "--max-seconds", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(d.join("new/level.ron").is_file());
    // A folder whose one level is not `level.ron`: the output is that level, as the input is
    // (a second level was written beside it, and later commands read that one).
    std::fs::create_dir_all(d.join("vproj")).unwrap();
    std::fs::rename(d.join("new/level.ron"), d.join("vproj/valley.ron")).unwrap();
    for f in std::fs::read_dir(d.join("new")).unwrap().flatten() {
        std::fs::rename(f.path(), d.join("vproj").join(f.file_name())).unwrap();
    }
    let out = spillway(d, &["bake", "vproj", "-o", "vproj", "--max-seconds", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!d.join("vproj/level.ron").exists(), "{}", stderr(&out));
    assert!(file::load(&d.join("vproj/valley.ron")).is_ok());

    // A file where the maps' folder should be: refused at once, nothing written.
    std::fs::write(d.join("afile"), "").unwrap();
    let out = spillway(d, &["bake", "lake", "-o", "b/level.ron", "--maps", "afile"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--maps names a file"),
        "{}",
        stderr(&out)
    );
    assert!(!d.join("b").exists(), "nothing written");
    let out = spillway(d, &["sim", "lake", "--steps", "1", "--dump-depth", "out"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("names a folder"), "{}", stderr(&out));
    // A dump into a folder that does not exist yet: made.
    let out = spillway(
        d,
        &["sim", "lake", "--steps", "1", "--dump-depth", "x/y/d.npy"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(d.join("x/y/d.npy").is_file());
    // Refused or failed commands take away the folders their outputs made, however deep: a
    // bad -o after --maps, a level that does not load, an import refused.
    let out = spillway(d, &["bake", "lake", "-o", "c/out.txt", "--maps", "m1/m2"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = spillway(d, &["bake", "missing.ron", "-o", "nb/x/level.ron"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    for left in ["m1", "c", "nb"] {
        assert!(!d.join(left).exists(), "{left} left behind");
    }
    // --maps naming the level file -o writes is refused for what it is (it blamed -o).
    let out = spillway(
        d,
        &["bake", "lake", "-o", "m/level.ron", "--maps", "m/level.ron"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--maps names the level file"),
        "{}",
        stderr(&out)
    );
    assert!(!d.join("m").exists());
    // Named another way (`./`), too: compared as text, it ran the whole bake, then failed.
    let out = spillway(
        d,
        &[
            "bake",
            "lake",
            "-o",
            "m/level.ron",
            "--maps",
            "./m/level.ron",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!d.join("m").exists());
}

#[test]
fn a_folder_output_never_overwrites_a_ron_file_that_is_no_level() {
    // A build folder holding its `settings.ron` alone: `-o` took it for the folder's level
    // and replaced it.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    lake(d);
    std::fs::create_dir_all(d.join("build")).unwrap();
    let settings = "// pipeline settings\n(quality: \"high\")\n";
    std::fs::write(d.join("build/settings.ron"), settings).unwrap();
    let out = spillway(d, &["bake", "lake", "-o", "build", "--max-seconds", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let kept = std::fs::read_to_string(d.join("build/settings.ron")).unwrap();
    assert_eq!(kept, settings);
    assert!(file::load(&d.join("build/level.ron")).is_ok());
}

#[test]
fn seconds_shorter_than_a_step_run_one_step() {
    let dir = tempfile::tempdir().unwrap();
    lake(dir.path());
    let out = spillway(
        dir.path(),
        &[
            "sim",
            "lake",
            "--seconds",
            "0.001",
            "--json",
            "--backend",
            "cpu",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["steps"], 1);
}

#[test]
fn an_imported_level_is_named_after_its_folder_from_inside_it_too() {
    let dir = tempfile::tempdir().unwrap();
    let rivers = dir.path().join("rivers");
    std::fs::create_dir_all(&rivers).unwrap();
    super::write_npy_f64(&rivers.join("t.npy"), &super::ramp(8, 6));
    let out = spillway(
        &rivers,
        &["import", "--terrain", "t.npy", "-o", "level.ron"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        file::load(&rivers.join("level.ron")).unwrap().name,
        "rivers"
    );
}

#[test]
fn a_bake_over_its_own_file_says_it_drops_the_comments_and_the_old_version() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    lake(d);
    let path = d.join("lake/level.ron");
    let text = std::fs::read_to_string(&path).unwrap();
    let commented = text.replacen(
        "format_version: 3,",
        "// the lake by the mill\n    format_version: 3,",
        1,
    );
    std::fs::write(&path, commented).unwrap();
    let out = spillway(
        d,
        &["bake", "lake", "-o", "lake/level.ron", "--max-seconds", "1"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("level.ron: the comments in the level file are not kept"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("format version"), "{}", stderr(&out));
    // Baked again, now without comments: no note; to another file: none either.
    let out = spillway(
        d,
        &["bake", "lake", "-o", "lake/level.ron", "--max-seconds", "1"],
    );
    assert!(!stderr(&out).contains("note:"), "{}", stderr(&out));

    // An older file (version 1) baked over itself is told it is now version 3.
    let v1 = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/format/fixtures/v1_baked"
    );
    let old = d.join("old");
    std::fs::create_dir_all(&old).unwrap();
    for entry in std::fs::read_dir(v1).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), old.join(entry.file_name())).unwrap();
    }
    let level = std::fs::read_dir(&old)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "ron"))
        .unwrap();
    let out = spillway(
        d,
        &[
            "bake",
            level.to_str().unwrap(),
            "-o",
            level.to_str().unwrap(),
            "--max-seconds",
            "1",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("written in format version 3 (it was version 1"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_output_never_lands_on_a_levels_sidecar_a_device_or_a_name_meant_as_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    lake(d);
    let sidecar = std::fs::read_dir(d.join("lake"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "grids"))
        .unwrap();
    let kept = std::fs::read(&sidecar).unwrap();
    let name = format!("lake/{}", sidecar.file_name().unwrap().to_str().unwrap());
    // Both wrote over the grids and left the level unloadable.
    for args in [
        vec!["sim", "lake", "--steps", "1", "--dump-depth", &name],
        vec!["bake", "lake", "-o", &name, "--max-seconds", "1"],
    ] {
        let out = spillway(d, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("must name a ."), "{}", stderr(&out));
    }
    assert_eq!(std::fs::read(&sidecar).unwrap(), kept);
    assert!(file::load(&d.join("lake/level.ron")).is_ok());
    // `-o build` (no such folder yet) wrote a level file called `build`.
    let out = spillway(d, &["bake", "lake", "-o", "build", "--max-seconds", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!d.join("build").exists());
    // A pipe (and, as root, a device such as /dev/null) was replaced by a level file.
    #[cfg(unix)]
    {
        let fifo = d.join("pipe.ron");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let out = spillway(d, &["bake", "lake", "-o", "pipe.ron", "--max-seconds", "1"]);
            assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
            assert!(
                stderr(&out).contains("not a regular file"),
                "{}",
                stderr(&out)
            );
            let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
            assert!(!kind.is_file(), "the pipe is still a pipe");
        }
    }
}

#[test]
fn run_lengths_that_run_nothing_or_for_ever_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    lake(d);
    for args in [
        vec!["sim", "lake", "--seconds", "0"],
        vec!["sim", "lake", "--seconds", "1e-300"],
        vec!["sim", "lake", "--steps", "18446744073709551615"],
    ] {
        let out = spillway(d, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    // Threads beyond the cores only cost their start: as many as there are cores.
    let out = spillway(
        d,
        &[
            "sim",
            "lake",
            "--steps",
            "2",
            "--threads",
            "60000",
            "--backend",
            "cpu",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("cores here"), "{}", stderr(&out));
}

#[test]
fn an_import_whose_options_make_a_bad_level_blames_them_not_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    super::write_npy_f64(&d.join("t.npy"), &super::ramp(8, 6));
    let out = spillway(
        d,
        &[
            "import",
            "--terrain",
            "t.npy",
            "--height-scale",
            "1e30",
            "-o",
            "x/deeper/level.ron",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("t.npy: the level it makes is not valid")
            && stderr(&out).contains("--height-scale"),
        "{}",
        stderr(&out)
    );
    assert!(!d.join("x").exists(), "no empty folder left behind");
}

#[cfg(unix)]
#[test]
fn a_json_report_names_a_path_that_is_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    lake(d);
    let odd = std::ffi::OsStr::from_bytes(b"out\xfe/level.ron");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_spillway"))
        .args(["bake", "lake", "--max-seconds", "1", "--json", "-o"])
        .arg(odd)
        .current_dir(d)
        .output()
        .unwrap();
    // It wrote the level, then failed to print the report (exit 1, no JSON).
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["output"], "out\u{fffd}/level.ron");
}

#[cfg(unix)]
#[test]
fn a_depth_dump_replaces_a_link_instead_of_writing_through_it() {
    // A `depth.npy` linked to the level's sidecar: the dump wrote through the link, and the
    // level no longer loaded.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let project = lake(d);
    let sidecar = std::fs::read_dir(&project)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.ends_with(".grids"))
        .expect("the lake's sidecar");
    std::os::unix::fs::symlink(&sidecar, project.join("depth.npy")).unwrap();
    let out = spillway(
        d,
        &[
            "sim",
            "lake",
            "--steps",
            "2",
            "--dump-depth",
            "lake/depth.npy",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        file::load(&project.join("level.ron")).is_ok(),
        "the level still loads"
    );
    let meta = std::fs::symlink_metadata(project.join("depth.npy")).unwrap();
    assert!(meta.is_file(), "the dump is a file of its own");
    assert!(spillway_editor::heightmap::npy::read(&project.join("depth.npy")).is_ok());
}

#[test]
fn a_level_with_a_step_too_short_to_run_is_refused_and_a_bake_runs_at_least_one_step() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    lake(d);
    // Validation refuses a step no level means (it hung `sim --seconds 1`).
    let out = spillway(d, &["sim", "lake", "--seconds", "1", "--dt", "1e-30"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("0.0001 to 10 s"), "{}", stderr(&out));
    // The shortest step allowed for the longest time allowed is past the steps a run takes.
    let out = spillway(d, &["sim", "lake", "--seconds", "1e7", "--dt", "1e-4"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("steps, more than the"),
        "{}",
        stderr(&out)
    );
    // A bake shorter than half a step runs one (it ran none and reported no rate).
    let out = spillway(
        d,
        &[
            "bake",
            "lake",
            "-o",
            "b.ron",
            "--max-seconds",
            "0.001",
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json["seconds"].as_f64().unwrap() > 0.0, "{json}");
    assert!(json["rate"].is_number(), "{json}");
}

#[test]
fn a_bake_into_its_own_folder_replaces_itself_not_the_folders_other_level() {
    // `-o p` meant p's `level.ron`: baking `p/hard.ron` there replaced level "a" with the baked
    // "hard" (and deleted a's grids).
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let project = lake(d);
    let mut hard = file::load(&project.join("level.ron")).unwrap();
    hard.name = "hard".into();
    file::save(&hard, &project.join("hard.ron")).unwrap();
    let mut a = file::load(&project.join("level.ron")).unwrap();
    a.name = "a".into();
    file::save(&a, &project.join("level.ron")).unwrap();
    for output in ["lake", "./lake/"] {
        let out = spillway(
            d,
            &["bake", "lake/hard.ron", "-o", output, "--max-seconds", "1"],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(file::load(&project.join("level.ron")).unwrap().name, "a");
        let baked = file::load(&project.join("hard.ron")).unwrap();
        assert!(baked.name == "hard" && baked.flow.is_some(), "{output}");
    }
}
