//! `spillway bench`: its JSON rows, the shallow-water solver's simulated seconds per second, and
//! Manning friction (`--manning`), with a clear error for a coefficient that is not one.

use super::{spillway, stderr};

#[test]
fn bench_prints_a_json_list() {
    let dir = tempfile::tempdir().unwrap();
    let out = spillway(
        dir.path(),
        &["bench", "--sizes", "64", "--steps", "5", "--json"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = &json.as_array().expect("a list")[0];
    assert_eq!(row["n"], 64);
    assert_eq!(row["backend"], "cpu");
    assert!(row["gcells"].as_f64().unwrap() > 0.0);
    assert!(row["ms_per_step"].as_f64().unwrap() > 0.0);
    assert_eq!(
        row["gpu_timed"], false,
        "the CPU is timed by the wall clock"
    );
}

#[test]
fn bench_refuses_more_steps_than_a_run_may_take_and_sizes_past_a_levels() {
    // It ran for ever (`sim` refused the same count).
    let dir = tempfile::tempdir().unwrap();
    let out = spillway(
        dir.path(),
        &["bench", "--sizes", "8", "--steps", "18446744073709551615"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // Nor a scene larger than any level (16384² took many GiB before any message).
    let out = spillway(dir.path(), &["bench", "--sizes", "8,16384"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("16384"), "{}", stderr(&out));
}

#[test]
fn bench_times_the_shallow_water_solver_in_simulated_seconds_per_second() {
    let dir = tempfile::tempdir().unwrap();
    let out = spillway(
        dir.path(),
        &[
            "bench", "--sizes", "64", "--steps", "5", "--solver", "swe", "--json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = &json.as_array().expect("a list")[0];
    assert_eq!(row["solver"], "swe");
    // 25 ms steps: simulated seconds per wall second is 0.025 s over the time per step.
    let ms = row["ms_per_step"].as_f64().unwrap();
    let rate = row["sim_s_per_s"].as_f64().unwrap();
    assert!(
        (rate - 25.0 / ms).abs() < 1e-6 * rate,
        "{rate} vs {ms} ms per step"
    );
}

#[test]
fn bench_times_manning_friction_and_refuses_a_coefficient_that_is_not_one() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "bench",
        "--sizes",
        "64",
        "--steps",
        "5",
        "--section",
        "face-depth",
        "--pipe-advection",
        "--json",
    ];
    let linear = spillway(dir.path(), &args);
    assert!(linear.status.success(), "{}", stderr(&linear));
    let linear: serde_json::Value = serde_json::from_slice(&linear.stdout).unwrap();
    assert!(linear[0]["manning"].is_null());
    let manning = spillway(dir.path(), &[&args[..], &["--manning", "0.03"]].concat());
    assert!(manning.status.success(), "{}", stderr(&manning));
    let manning: serde_json::Value = serde_json::from_slice(&manning.stdout).unwrap();
    let row = &manning[0];
    assert!((row["manning"].as_f64().unwrap() - 0.03).abs() < 1e-6);
    // A different law, so a different water volume error after the same steps.
    assert_ne!(row["volume_rel_error"], linear[0]["volume_rel_error"]);
    for bad in ["0", "-0.1", "NaN", "inf", "oops", "1e30"] {
        let flag = format!("--manning={bad}");
        let out = spillway(dir.path(), &["bench", "--sizes", "64", &flag]);
        assert_eq!(out.status.code(), Some(2), "--manning {bad}");
        let err = stderr(&out);
        assert!(
            err.contains(bad) && err.contains("Manning coefficient"),
            "--manning {bad}: {err}"
        );
    }
}
