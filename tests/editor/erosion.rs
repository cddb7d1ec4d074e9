//! Erode terrain through the real UI: Water ▸ Erode terrain ▸ Sand ▸ Erode runs the river over a
//! sand bed in the background (on the editor's GPU, lavapipe here) and makes the terrain it
//! leaves one undo step; with Where ▸ Box the bed moves only inside the box.

use egui::{Key, Modifiers};

use crate::support::{Editor, editor_with, river};

/// Runs frames until the undo step `label` is made.
fn wait_for(ed: &mut Editor, label: &str) {
    for _ in 0..1200 {
        if ed.harness.state().document().history().undo_label() == Some(label) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        ed.frames(1);
    }
    panic!("no {label} after a minute");
}

fn open_water_menu(ed: &mut Editor) {
    use egui_kittest::kittest::Queryable;
    let menu = ed
        .harness
        .get_by_role_and_label(egui::accesskit::Role::Button, "Water");
    menu.click();
    ed.harness.run_steps(3);
}

#[test]
fn erode_terrain_runs_the_river_over_sand_as_one_undo_step() {
    let level = river();
    let mut ed = editor_with(&level);
    let before = ed.terrain();
    // The water running: the erode pauses it (it ran on over the ground being replaced).
    ed.click("Play");
    ed.frames(3);
    assert!(ed.harness.state().preview().playing);
    {
        use egui_kittest::kittest::Queryable;
        let menu = ed
            .harness
            .get_by_role_and_label(egui::accesskit::Role::Button, "Water");
        menu.click();
        ed.harness.run_steps(3);
    }
    ed.click("Erode terrain");
    ed.click("Sand");
    ed.click("Erode");
    assert!(
        !ed.harness.state().preview().playing,
        "paused for the erode"
    );
    {
        // The progress window says where it runs (a CPU fallback is hours slower).
        use egui_kittest::kittest::Queryable;
        let mut said = false;
        for _ in 0..600 {
            ed.frames(1);
            said = ed.harness.query_by_label("Running on the GPU").is_some();
            if said {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(said, "the progress window says where it runs");
    }
    wait_for(&mut ed, "Erode (sand, 120 s ×100)");
    let after = ed.terrain();
    let changed = after.iter().zip(&before).filter(|(a, b)| a != b).count();
    let deepest = (after.iter().zip(&before))
        .map(|(a, b)| b - a)
        .fold(0.0f32, f32::max);
    println!("{changed} cells moved, the deepest scour {deepest:.3} m");
    assert!(changed > 100, "{changed}");
    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(ed.terrain(), before);
}

#[test]
fn erode_in_a_box_moves_the_bed_only_inside_it() {
    let level = river();
    let mut ed = editor_with(&level);
    let before = ed.terrain();
    open_water_menu(&mut ed);
    ed.click("Erode terrain");
    ed.click("Gravel");
    ed.click("Box");
    // The box starts on the middle half of the map: x 50 to 150 m, y 5 to 15 m.
    assert_eq!(
        ed.harness.state().erosion_region(),
        Some([50.0, 5.0, 150.0, 15.0])
    );
    ed.click("Erode");
    wait_for(&mut ed, "Erode (gravel, 120 s ×100)");
    let after = ed.terrain();
    let (nx, dx) = (level.nx(), level.cell_size);
    let moved: Vec<(f32, f32)> = (0..after.len())
        .filter(|&c| after[c] != before[c])
        .map(|c| (((c % nx) as f32 + 0.5) * dx, ((c / nx) as f32 + 0.5) * dx))
        .collect();
    println!("{} cells moved inside the box", moved.len());
    assert!(moved.len() > 50, "{}", moved.len());
    assert!(
        moved
            .iter()
            .all(|&(x, y)| (50.0..=150.0).contains(&x) && (5.0..=15.0).contains(&y)),
        "a cell outside the box moved"
    );
}

#[test]
#[ignore = "writes screenshots to /tmp for a person to look at"]
fn look_at_erosion() {
    let level = river();
    let mut ed = editor_with(&level);
    open_water_menu(&mut ed);
    ed.click("Erode terrain");
    ed.click("Box");
    ed.harness.run_steps(2);
    ed.harness
        .render()
        .unwrap()
        .save("/tmp/erode_menu.png")
        .unwrap();
    ed.click("Erode");
    for k in 0..40 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        ed.frames(1);
        if k == 20 {
            ed.harness
                .render()
                .unwrap()
                .save("/tmp/erode_running.png")
                .unwrap();
        }
    }
    wait_for(&mut ed, "Erode (sand, 120 s ×100)");
    ed.frames(2);
    ed.harness
        .render()
        .unwrap()
        .save("/tmp/erode_done.png")
        .unwrap();
}
