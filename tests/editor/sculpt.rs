//! Sculpting with real input: drags across the viewport, Shift, `[` and `]`, undo and redo.

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use spillway_editor::tools::Tool;

use crate::support::{bumpy_level, distance_to_path, editor_with, line};

const RADIUS: f32 = 4.0;

#[test]
fn a_drag_with_the_raise_tool_raises_the_terrain_under_the_path_and_nowhere_far_from_it() {
    let level = bumpy_level();
    let mut ed = editor_with(&level);
    ed.harness.state_mut().brush_mut().radius = RADIUS;
    assert_eq!(ed.harness.state().tool(), Tool::Raise);
    let before = ed.terrain();
    let path = line(ed.at(0.35, 0.5), ed.at(0.65, 0.55), 12);
    let picks = ed.drag(&path, Modifiers::NONE);
    let after = ed.terrain();

    let nx = level.nx();
    let (mut raised_on_path, mut on_path) = (0, 0);
    for (i, (b, a)) in before.iter().zip(&after).enumerate() {
        let (x, y) = ((i % nx) as f32 + 0.5, (i / nx) as f32 + 0.5);
        let d = distance_to_path(x, y, &picks);
        if d > RADIUS + 1.0 {
            assert_eq!(
                a, b,
                "cell ({x}, {y}) is {d:.1} m from the path but changed"
            );
        } else if d < RADIUS * 0.4 {
            on_path += 1;
            if a > b {
                raised_on_path += 1;
            }
            assert!(a >= b, "cell ({x}, {y}) on the path went down");
        }
    }
    assert!(on_path > 20, "the path crosses only {on_path} cells");
    assert_eq!(
        raised_on_path, on_path,
        "every cell near the path is raised"
    );
    assert!(ed.harness.state().document().is_modified());
    assert_eq!(
        ed.harness.state().document().history().undo_len(),
        1,
        "one stroke, one step"
    );
}

#[test]
fn undo_restores_every_cell_exactly_and_redo_reapplies_the_stroke() {
    let mut ed = editor_with(&bumpy_level());
    ed.harness.state_mut().brush_mut().radius = 6.0;
    let before = ed.terrain();
    ed.drag(&line(ed.at(0.3, 0.4), ed.at(0.7, 0.6), 10), Modifiers::NONE);
    let after = ed.terrain();
    assert_ne!(before, after);

    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(
        ed.terrain(),
        before,
        "Ctrl+Z restores every cell bit for bit"
    );
    assert!(
        !ed.harness.state().document().is_modified(),
        "back at the saved state"
    );

    ed.key(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    assert_eq!(ed.terrain(), after, "Ctrl+Shift+Z re-applies the stroke");

    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(ed.terrain(), before);
    ed.key(Modifiers::COMMAND, Key::Y);
    assert_eq!(ed.terrain(), after, "Ctrl+Y re-applies it too");

    // The stroke stored only the tiles it touched, not the whole terrain.
    let stored = ed.harness.state().document().history().bytes();
    assert!(
        stored < 2 * 4 * before.len(),
        "{stored} bytes of undo for one stroke"
    );
}

#[test]
fn shift_lowers_instead_of_raising() {
    let mut ed = editor_with(&bumpy_level());
    ed.harness.state_mut().brush_mut().radius = RADIUS;
    let before = ed.terrain();
    ed.drag(&line(ed.at(0.4, 0.5), ed.at(0.6, 0.5), 8), Modifiers::SHIFT);
    let after = ed.terrain();
    let lowered = before.iter().zip(&after).filter(|(b, a)| a < b).count();
    let raised = before.iter().zip(&after).filter(|(b, a)| a > b).count();
    assert!(lowered > 20, "only {lowered} cells lowered");
    assert_eq!(raised, 0, "Shift never raises");
}

#[test]
fn brackets_change_the_brush_radius() {
    let mut ed = editor_with(&bumpy_level());
    let r0 = ed.harness.state().brush().radius;
    ed.key(Modifiers::NONE, Key::CloseBracket);
    let r1 = ed.harness.state().brush().radius;
    assert!(r1 > r0 * 1.2, "] grows the brush: {r0} -> {r1}");
    ed.key(Modifiers::NONE, Key::OpenBracket);
    ed.key(Modifiers::NONE, Key::OpenBracket);
    let r2 = ed.harness.state().brush().radius;
    assert!(r2 < r0 * 0.85, "[ shrinks the brush: {r0} -> {r2}");
}

#[test]
fn flatten_pulls_towards_the_height_where_the_stroke_started() {
    let mut ed = editor_with(&bumpy_level());
    ed.key(Modifiers::NONE, Key::Num3);
    assert_eq!(ed.harness.state().tool(), Tool::Flatten);
    ed.harness.state_mut().brush_mut().strength = 1.0;
    let before = ed.terrain();
    let path = line(ed.at(0.4, 0.5), ed.at(0.6, 0.5), 30);
    let picks = ed.drag(&path, Modifiers::NONE);
    // The pick under the first point (the tool samples the same surface).
    let target = picks[0][2];
    let after = ed.terrain();
    let closer = before
        .iter()
        .zip(&after)
        .filter(|(b, a)| (*a - target).abs() < (*b - target).abs())
        .count();
    let further = before
        .iter()
        .zip(&after)
        .filter(|(b, a)| (*a - target).abs() > (*b - target).abs() + 1e-3)
        .count();
    assert!(closer > 20, "{closer} cells moved towards {target}");
    assert_eq!(further, 0);
}

#[test]
fn undoing_a_tall_stroke_gives_the_terrain_its_colours_back() {
    let level = bumpy_level();
    let mut ed = editor_with(&level);
    ed.harness.state_mut().brush_mut().radius = RADIUS;
    ed.harness.state_mut().brush_mut().strength = 1.0;
    ed.frames(1);
    let range = |ed: &crate::support::Editor| {
        ed.harness
            .state()
            .drawn_height_range()
            .expect("the renderer has the level")
    };
    let before = range(&ed);
    // Raise the same spot over many frames: a peak well above the rest.
    let here = ed.at(0.5, 0.5);
    let path = vec![here; 40];
    ed.drag(&path, Modifiers::NONE);
    ed.frames(1);
    let raised = range(&ed);
    assert!(raised.1 > before.1 + 0.5, "{before:?} → {raised:?}");
    ed.key(Modifiers::COMMAND, Key::Z);
    ed.frames(1);
    assert_eq!(ed.terrain(), level.terrain.data, "undo restores the ground");
    assert_eq!(
        range(&ed),
        before,
        "the colours span the ground as it is again"
    );
}

#[test]
fn in_a_short_window_the_tool_panel_scrolls_to_every_tool() {
    let mut ed = editor_with(&bumpy_level());
    ed.harness.set_size(egui::vec2(1024.0, 560.0));
    ed.frames(3);
    let body = format!("{}  {}", Tool::Body.key(), Tool::Body.name());
    ed.harness.get_by_label(&body).scroll_to_me();
    ed.frames(3);
    ed.harness.get_by_label(&body).click();
    ed.frames(2);
    assert_eq!(ed.harness.state().tool(), Tool::Body);
}

#[test]
fn ctrl_s_in_the_middle_of_a_stroke_waits_for_it() {
    // Saving half a stroke wrote it to the file and marked the state before the stroke as the
    // saved one: undoing the stroke then showed no changes while the file held half of it.
    let level = bumpy_level();
    let mut ed = editor_with(&level);
    let path = ed
        .harness
        .state()
        .document()
        .path()
        .expect("saved")
        .to_path_buf();
    let on_disk = std::fs::read(&path).expect("the level file");
    let (a, b) = (ed.at(0.4, 0.5), ed.at(0.6, 0.5));
    let h = &mut ed.harness;
    h.event(egui::Event::PointerMoved(a));
    h.step();
    h.event(egui::Event::PointerButton {
        pos: a,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: Modifiers::NONE,
    });
    h.step();
    h.event(egui::Event::PointerMoved(b));
    h.step();
    ed.key(Modifiers::COMMAND, Key::S);
    assert!(
        ed.harness
            .query_by_label_contains("Let go of the stroke")
            .is_some(),
        "says why it did not save"
    );
    let h = &mut ed.harness;
    h.event(egui::Event::PointerButton {
        pos: b,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    h.run_steps(3);
    assert_eq!(
        std::fs::read(&path).expect("the level file"),
        on_disk,
        "not saved"
    );
    assert!(ed.harness.state().document().is_modified());
    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(ed.terrain(), level.terrain.data, "the stroke undone");
    assert!(
        !ed.harness.state().document().is_modified(),
        "back at the file's state"
    );
}

#[test]
fn a_click_with_the_ramp_tool_changes_nothing() {
    // A ramp of no length pulled every cell of the brush to the clicked height: a flat disc.
    let level = bumpy_level();
    let mut ed = editor_with(&level);
    ed.key(Modifiers::NONE, Key::Num7);
    assert_eq!(ed.harness.state().tool(), Tool::Ramp);
    ed.click_at(ed.at(0.5, 0.5));
    assert_eq!(ed.terrain(), level.terrain.data);
    assert_eq!(ed.harness.state().document().history().undo_len(), 0);
    // A drag builds one.
    ed.drag(&line(ed.at(0.4, 0.5), ed.at(0.6, 0.5), 8), Modifiers::NONE);
    assert_ne!(ed.terrain(), level.terrain.data);
}

#[test]
fn use_height_under_cursor_can_be_clicked_after_the_cursor_leaves_the_terrain() {
    // The button showed only while the cursor was over the terrain, so it vanished as the
    // mouse went for it.
    let mut ed = editor_with(&bumpy_level());
    ed.key(Modifiers::NONE, Key::Num4);
    assert_eq!(ed.harness.state().tool(), Tool::SetHeight);
    let over = ed.at(0.5, 0.5);
    let ground = ed
        .harness
        .state()
        .pick(over)
        .expect("terrain under the cursor")[2];
    ed.harness.event(egui::Event::PointerMoved(over));
    ed.frames(2);
    ed.click("Use height under cursor");
    let target = ed.harness.state_mut().brush_mut().target_height;
    assert!((target - ground).abs() < 1e-3, "{target} vs {ground}");
}

#[test]
fn a_stroke_dragged_off_the_map_reaches_its_edge_and_comes_back_without_a_line() {
    // One frame from the middle of the map to past its east edge: the stroke paints to the
    // edge (it stopped at the last point over the terrain); then back on the map further
    // south: it starts again there (it drew a line across from where it left).
    let level = bumpy_level();
    let mut ed = editor_with(&level);
    ed.harness.state_mut().brush_mut().radius = 3.0;
    let before = ed.terrain();
    let path = [
        ed.screen(48.0, 40.0),
        ed.screen(115.0, 40.0),
        ed.screen(115.0, 74.0),
        ed.screen(70.0, 74.0),
        ed.screen(64.0, 74.0),
    ];
    ed.drag_anywhere(&path, Modifiers::NONE);
    let after = ed.terrain();
    let nx = level.nx();
    let raised = |x: usize, y: usize| after[y * nx + x] > before[y * nx + x];
    assert!(
        raised(70, 40) && raised(94, 40),
        "the stroke reaches the east edge"
    );
    assert!(raised(66, 74), "and goes on where it came back");
    for (x, y) in [(56, 50), (60, 57), (80, 60), (94, 70)] {
        assert!(
            !raised(x, y),
            "({x}, {y}) lies between where it left and came back"
        );
    }
    assert_eq!(
        ed.harness.state().document().history().undo_len(),
        1,
        "one stroke"
    );
}

#[test]
fn turning_the_camera_under_a_held_brush_paints_nothing_more() {
    // A right drag (orbit) while the left button held the Raise brush swept it across the
    // terrain as the view turned, its outline hidden.
    use egui::{Event, PointerButton};
    let level = bumpy_level();
    let mut ed = editor_with(&level);
    ed.harness.state_mut().brush_mut().radius = RADIUS;
    let before = ed.terrain();
    let start = ed.at(0.5, 0.5);
    let pick = ed.harness.state().pick(start).expect("on the terrain");
    ed.move_to(start);
    ed.press_or_release(true, start);
    let right = |pressed| Event::PointerButton {
        pos: start,
        button: PointerButton::Secondary,
        pressed,
        modifiers: Modifiers::NONE,
    };
    ed.harness.event(right(true));
    ed.harness.step();
    for k in 1..=10 {
        ed.move_to(start + egui::vec2(12.0 * k as f32, 0.0));
    }
    ed.press_or_release(false, start + egui::vec2(120.0, 0.0));
    ed.harness.event(right(false));
    ed.frames(2);
    let after = ed.terrain();
    let nx = level.nx();
    for (i, (b, a)) in before.iter().zip(&after).enumerate() {
        let (x, y) = ((i % nx) as f32 + 0.5, (i / nx) as f32 + 0.5);
        let d = ((x - pick[0]).powi(2) + (y - pick[1]).powi(2)).sqrt();
        assert!(
            d <= RADIUS + 1.0 || a == b,
            "cell ({x}, {y}), {d:.1} m away, changed"
        );
    }
}
