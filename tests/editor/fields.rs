//! The inspector's number fields as a designer uses them: clicking into one and leaving it
//! without typing changes nothing (no edit, no undo step, the level not modified).

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use spillway::level::Shape;

use crate::support::{bumpy_level, editor_with};

#[test]
fn clicking_into_a_position_and_out_changes_nothing() {
    // A source placed by a click sits at a position with more digits than its field shows:
    // leaving the field read its rounded text back, moved the source a few millimetres, made
    // an undo step and marked the saved level modified.
    let mut ed = editor_with(&bumpy_level());
    ed.key(Modifiers::NONE, Key::I);
    ed.click_at(ed.at(0.43, 0.57));
    ed.key(Modifiers::COMMAND, Key::S);
    let doc = ed.harness.state().document();
    assert!(!doc.is_modified(), "saved");
    let before = doc.level().sources[0].clone();
    let undo = doc.history().undo_len();
    let Shape::Circle { x, .. } = before.shape else {
        panic!("a circle: {:?}", before.shape);
    };
    let shown = format!("x {x:.2} m");
    assert_ne!(
        format!("{x:.2}").parse::<f32>().ok(),
        Some(x),
        "x has more digits: {x}"
    );
    ed.harness.get_by_value(&shown).click();
    ed.frames(2);
    ed.key(Modifiers::NONE, Key::Enter);
    ed.frames(3);
    let doc = ed.harness.state().document();
    assert_eq!(doc.level().sources[0], before, "the source moved");
    assert_eq!(doc.history().undo_len(), undo, "an undo step of nothing");
    assert!(!doc.is_modified(), "marked modified");
}
