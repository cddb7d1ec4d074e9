//! The windowed game (`spillway-game`) driven by real input: it runs under a virtual X display (Xvfb) on
//! whatever Vulkan adapter there is (lavapipe in CI), and `xdotool` types into its window
//! through the X server's XTEST extension, as a keyboard would. Space drops crates, G opens the
//! level's gate, holding W flies forward, B starts the breach sample's breach, Escape quits with
//! a report of what happened.
//!
//! A test target of the game's package (`cargo test -p spillway-game --test game_input`, which
//! builds the game); needs `xvfb-run` and `xdotool` (`.ci/setup` installs them).

use std::path::PathBuf;
use std::process::Command;

/// The game's binary, built by cargo for this test.
fn game() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_spillway-game"))
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Starts the game on `$LEVEL`, waits for its window and focuses it; the keys follow.
const START: &str = r#"
set -u
"$GAME" "$LEVEL" --frames 1000000 > "$OUT" 2>&1 &
pid=$!
wid=$(timeout 120 xdotool search --sync --name "Spillway" | head -1)
[ -n "$wid" ] || { echo "no game window"; kill $pid; exit 3; }
sleep 3
xdotool windowfocus --sync "$wid"
xset r off 2>/dev/null || true
"#;

/// Plays the game on `level` (under `projects/`) under Xvfb with the keys of `keys` (a shell
/// script run after [`START`], ending with Escape and `wait $pid`). Returns what the game
/// printed; fails the test unless it quit cleanly.
fn play(level: &str, keys: &str) -> String {
    for tool in ["xvfb-run", "xdotool"] {
        assert!(
            have(tool),
            "`{tool}` is needed (apt install xvfb xdotool; .ci/setup does)"
        );
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("game.out");
    let status = Command::new("timeout")
        .args(["300", "xvfb-run", "-a", "-s", "-screen 0 1024x768x24"])
        .args(["bash", "-c", &format!("{START}{keys}")])
        .env("GAME", game())
        .env("LEVEL", root.join("projects").join(level).join("level.ron"))
        .env("OUT", &out)
        .status()
        .expect("xvfb-run runs");
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    println!("{text}");
    assert!(status.success(), "the game did not quit cleanly: {status}");
    text
}

/// Presses Space, G, Space, holds W for 1.5 s, then Escape.
const SCRIPT: &str = r#"
xdotool key space; sleep 0.5
xdotool key g; sleep 0.5
xdotool key space; sleep 0.5
xdotool keydown w; sleep 1.5; xdotool keyup w; sleep 0.5
xdotool key Escape
wait $pid
"#;

#[test]
fn keys_drop_crates_open_the_gate_fly_and_quit() {
    let text = play("crate_dam", SCRIPT);
    for line in [
        "baked at t = 40.0 s, the water starts flowing",
        "dropped a crate (1 now)",
        "opened 1 gate(s)",
        "dropped a crate (2 now)",
        "gates open 1/1",
    ] {
        assert!(text.contains(line), "no `{line}` in the game's output");
    }
    // A starved X server (2 cores rendering on lavapipe) can deliver a tap as a press and an
    // auto-repeated press; whatever arrived, the HUD counts every crate that was dropped.
    let drops = text.matches("dropped a crate").count();
    assert!(drops >= 2, "two Space taps dropped {drops} crates");
    let hud = format!("({drops} crates)");
    assert!(text.contains(&hud), "no `{hud}` in the game's output");
    let flew: f32 = text
        .lines()
        .find_map(|l| l.strip_prefix("flew ")?.split(' ').next()?.parse().ok())
        .expect("the game reports how far the camera flew");
    assert!(flew > 2.0, "holding W flew only {flew} m");
}

/// Presses B, lets the breach cut the dam for a few seconds, then Escape.
const BREACH_SCRIPT: &str = r#"
xdotool key b; sleep 4
xdotool key b; sleep 1
xdotool key Escape
wait $pid
"#;

#[test]
fn b_starts_the_breach_of_the_breach_sample() {
    let text = play("breach_dam", BREACH_SCRIPT);
    assert!(
        text.contains("started 1 breach(es)"),
        "no `started 1 breach(es)` in the game's output"
    );
    assert!(
        text.contains("started 0 breach(es)"),
        "a second B starts none (the breach runs already)"
    );
    assert!(
        !text.contains("added `dam`"),
        "a gate was added to a level with a breach"
    );
}

#[test]
fn bad_options_are_refused_before_the_window_opens() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("no such folder/shot.png");
    let jpeg = dir.path().join("shot.jpg");
    for (args, says) in [
        (
            vec!["--frames", "0"],
            "--frames: `0` is not a count of one or more",
        ),
        (
            vec![
                "--frames",
                "5",
                "--screenshot",
                jpeg.to_str().expect("utf-8"),
            ],
            "must be a .png file",
        ),
        (
            vec![
                "--frames",
                "5",
                "--screenshot",
                missing.to_str().expect("utf-8"),
            ],
            "does not exist",
        ),
    ] {
        let out = Command::new(game())
            .args(&args)
            .output()
            .expect("the game runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} was taken");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
