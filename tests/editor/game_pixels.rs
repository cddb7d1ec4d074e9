//! The game draws a level as the editor's viewport shows it: both draw with `spillway-render`,
//! so a designer's preview is what the player sees.

use std::path::{Path, PathBuf};

use spillway_game::Game;

use crate::support::editor_in;

/// The workspace root (the sample projects and the bundled assets).
fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Copies the files of folder `from` (one level of subfolders) into `to`.
fn copy_project(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("the sample project") {
        let path = entry.expect("an entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_project(&path, &target);
        } else {
            std::fs::create_dir_all(to).expect("a folder");
            std::fs::copy(&path, &target).expect("a copy");
        }
    }
}

#[test]
fn the_game_draws_the_crate_dam_as_the_editor_shows_it() {
    // The sample with a river against a row of heavy crates: terrain, live water from the GPU
    // solver, blockers and bodies. The editor steps its preview once; the game steps once.
    let dir = tempfile::tempdir().expect("temp dir");
    copy_project(&workspace().join("projects/crate_dam"), dir.path());
    let path = dir.path().join("level.ron");
    let level = spillway::level::file::load(&path).expect("the sample loads");
    let mut ed = editor_in(tempfile::tempdir().expect("temp dir"), Some(path));
    ed.harness.remove_cursor();
    ed.click("Step");
    ed.frames(2);
    let (w, h, editor) = ed
        .harness
        .state()
        .viewport_pixels()
        .expect("the viewport was rendered");
    let camera = *ed.harness.state().camera();
    let time = ed.harness.ctx.input(|i| i.time) as f32;

    let mut game = Game::headless(level.clone(), dir.path(), &workspace()).expect("the game");
    assert_eq!(game.advance(level.params.dt as f64).expect("a step"), 1);
    let (gw, gh, played) = game.snapshot([w, h], &camera, time).expect("a frame");
    assert_eq!((gw, gh), (w, h));

    // Channels more than 8 levels apart, and the largest difference.
    let (mut differ, mut worst) = (0usize, 0u8);
    for (a, b) in editor.chunks_exact(4).zip(played.chunks_exact(4)) {
        let d = (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap_or(0);
        worst = worst.max(d);
        differ += (d > 8) as usize;
    }
    let pixels = (w * h) as usize;
    println!("{w} × {h}: {differ} pixels differ by more than 8 levels, worst {worst}");
    if std::env::var_os("SPILLWAY_SAVE_PIXELS").is_some() {
        image::RgbaImage::from_raw(w, h, editor.clone())
            .unwrap()
            .save("/tmp/crate_dam.png")
            .unwrap();
    }
    let water = editor
        .chunks_exact(4)
        .filter(|p| p[2] > p[0].saturating_add(8))
        .count();
    assert!(
        water > pixels / 50,
        "the frame shows water ({water} pixels)"
    );
    assert!(
        differ * 1000 <= pixels,
        "{differ} of {pixels} pixels differ by more than 8 levels (worst {worst})"
    );
}

#[test]
fn a_gate_opening_at_its_time_is_lowered_in_the_game() {
    // A reservoir behind a gate (x = 20..22 m, crest 3 m) that opens by itself at 0.2 s.
    let level = spillway_tests::gated_reservoir(Some(0.2));
    let dir = tempfile::tempdir().expect("temp dir");
    let gate_cell = 10 * 60 + 21;
    let mut game = Game::headless(level.clone(), dir.path(), &workspace()).expect("the game");
    assert_eq!(
        game.drawn_ground()[gate_cell],
        3.0,
        "closed: drawn at its crest"
    );
    game.advance(0.5).expect("steps");
    let ground = level.terrain.data[gate_cell];
    assert_eq!(
        game.drawn_ground()[gate_cell],
        ground,
        "opened at its time: the wall is gone from the drawn ground"
    );
    // A level baked after the gate opened (open_at 0 s, with its flow state) starts with it
    // open.
    let mut sim = spillway::Simulation::new(&level).expect("a simulation");
    sim.advance(0.5).expect("steps");
    let baked = sim.bake_into(&level);
    assert_eq!(baked.gates[0].open_at, Some(0.0));
    let game = Game::headless(baked, dir.path(), &workspace()).expect("the game");
    assert_eq!(game.drawn_ground()[gate_cell], ground);
}
