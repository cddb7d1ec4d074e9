//! Erode terrain through the real UI: Water ▸ Erode terrain ▸ Sand ▸ Erode runs the river over a
//! sand bed in the background and makes the terrain it leaves one undo step.

use egui::{Key, Modifiers};

use crate::support::{editor_with, river};

#[test]
fn erode_terrain_runs_the_river_over_sand_as_one_undo_step() {
    let level = river();
    let mut ed = editor_with(&level);
    let before = ed.terrain();
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
    let label = Some("Erode (sand, 120 s ×100)");
    for _ in 0..600 {
        if ed.harness.state().document().history().undo_label() == label {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        ed.frames(1);
    }
    assert_eq!(ed.harness.state().document().history().undo_label(), label);
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
