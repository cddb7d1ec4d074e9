//! A source's hydrograph through the inspector: the Hydrograph kind offers a flood wave from its
//! rate, points are added and undone, the curve is saved with the level and the preview's water
//! follows it.

use egui::{Key, Modifiers};
use spillway::level::{Schedule, SourceKind};

use crate::support::{bumpy_level, editor_with};

fn schedule(ed: &crate::support::Editor) -> Schedule {
    match &ed.harness.state().document().level().sources[0].kind {
        SourceKind::Hydrograph(s) => s.clone(),
        other => panic!("the kind is {other:?}"),
    }
}

#[test]
fn a_source_follows_a_hydrograph_made_in_the_inspector() {
    let mut ed = editor_with(&bumpy_level());
    ed.key(Modifiers::NONE, Key::I);
    ed.click_at(ed.at(0.5, 0.5));
    ed.click("Hydrograph");
    let s = schedule(&ed);
    assert_eq!(s.points, vec![[0.0, 5.0], [600.0, 20.0], [1800.0, 5.0]]);
    ed.click("Add point");
    assert_eq!(schedule(&ed).points.len(), 4);
    assert_eq!(schedule(&ed).points[3], [1860.0, 5.0]);
    let doc = ed.harness.state().document();
    assert_eq!(doc.history().undo_label(), Some("Edit source"));
    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(schedule(&ed).points.len(), 3);

    // The water follows it: after 1 s the source has added about 5.075 m³ (5 → 5.025 m³/s).
    for _ in 0..50 {
        ed.key(Modifiers::NONE, Key::Period);
    }
    let stats = ed
        .harness
        .state_mut()
        .preview_mut()
        .wait_stats()
        .expect("running");
    let expected = Schedule::integral(&schedule(&ed), stats.time);
    println!(
        "inflow {} m³ after {} s, curve {expected}",
        stats.inflow, stats.time
    );
    assert!(
        (stats.inflow - expected).abs() < 0.01 * expected,
        "{}",
        stats.inflow
    );

    // Saved with the level.
    ed.key(Modifiers::COMMAND, Key::S);
    ed.frames(2);
    let saved = spillway::level::file::load(&ed.dir.path().join("level.ron")).expect("saved");
    assert_eq!(saved.sources[0].kind, SourceKind::Hydrograph(schedule(&ed)));
}

#[test]
fn a_point_time_typed_digit_by_digit_stays_in_its_row() {
    use egui_kittest::kittest::Queryable;
    let mut ed = editor_with(&bumpy_level());
    ed.key(Modifiers::NONE, Key::I);
    ed.click_at(ed.at(0.5, 0.5));
    ed.click("Hydrograph");
    // Click the last point's time to type in it, and type 50 over it, one key at a time: with
    // "5" typed the points would sort before the "0" came.
    ed.harness.get_by_value("1800 s").click();
    ed.harness.run_steps(3);
    ed.key(Modifiers::COMMAND, Key::A);
    for digit in ["5", "0"] {
        ed.harness.event(egui::Event::Text(digit.into()));
        ed.harness.run_steps(2);
    }
    ed.key(Modifiers::NONE, Key::Enter);
    ed.harness.run_steps(3);
    assert_eq!(
        schedule(&ed).points,
        vec![[0.0, 5.0], [50.0, 5.0], [600.0, 20.0]],
        "the point typed at 50 s, then sorted"
    );
}

#[test]
fn nan_typed_into_a_number_field_keeps_the_value() {
    use egui_kittest::kittest::Queryable;
    let mut ed = editor_with(&bumpy_level());
    ed.key(Modifiers::NONE, Key::I);
    ed.click_at(ed.at(0.5, 0.5));
    let rate = |ed: &crate::support::Editor| {
        ed.harness.state().document().level().sources[0]
            .kind
            .clone()
    };
    assert_eq!(rate(&ed), SourceKind::Rate { m3_per_s: 5.0 });
    for typed in ["NaN", "inf"] {
        ed.harness
            .get_by(|n| {
                n.value()
                    .is_some_and(|v| v.starts_with("5") && v.ends_with("m³/s"))
            })
            .click();
        ed.harness.run_steps(3);
        ed.key(Modifiers::COMMAND, Key::A);
        ed.harness.event(egui::Event::Text(typed.into()));
        ed.harness.run_steps(2);
        ed.key(Modifiers::NONE, Key::Enter);
        ed.harness.run_steps(3);
        assert_eq!(
            rate(&ed),
            SourceKind::Rate { m3_per_s: 5.0 },
            "{typed} leaves the rate (it set the top of the range, 1e6 m³/s)"
        );
    }
}

#[test]
fn a_time_typed_out_of_order_and_never_left_is_sorted_when_the_map_is_clicked() {
    // Typed 50 over 1800 s, then a click on the map placed the next source: the edit was
    // recorded unsorted (the field never left while its source was shown) and the level would
    // not save until the first source was selected again.
    let mut ed = editor_with(&bumpy_level());
    ed.key(Modifiers::NONE, Key::I);
    ed.click_at(ed.at(0.5, 0.5));
    ed.click("Hydrograph");
    type_over_the_last_time(&mut ed, "50");
    ed.harness.run_steps(2);
    ed.click_at(ed.at(0.3, 0.3));
    let times: Vec<f32> = schedule(&ed).points.iter().map(|p| p[0]).collect();
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
    ed.key(Modifiers::COMMAND, Key::S);
    ed.frames(2);
    assert!(
        ed.harness.state().dialog().is_none(),
        "{:?}",
        ed.harness.state().dialog()
    );
    assert!(!ed.harness.state().document().is_modified(), "saved");
}

#[test]
fn a_time_typed_out_of_order_while_the_water_runs_leaves_the_run_going() {
    // While the field is typed in, the points stand out of order for a frame or more: the
    // GPU refused the schedule and the preview threw its run away.
    let mut ed = editor_with(&bumpy_level());
    ed.key(Modifiers::NONE, Key::I);
    ed.click_at(ed.at(0.5, 0.5));
    ed.click("Hydrograph");
    ed.click("Play");
    ed.frames(5);
    assert!(ed.harness.state().preview().is_live(), "the water runs");
    type_over_the_last_time(&mut ed, "50");
    ed.harness.run_steps(5);
    assert!(
        ed.harness.state().preview().is_live(),
        "the run was thrown away"
    );
    ed.key(Modifiers::NONE, Key::Enter);
    ed.frames(5);
    assert!(
        ed.harness.state().preview().is_live(),
        "the run was thrown away"
    );
    let times: Vec<f32> = schedule(&ed).points.iter().map(|p| p[0]).collect();
    assert_eq!(times, vec![0.0, 50.0, 600.0]);
}

/// Clicks the last point's time (1800 s), selects it and types `text` over it, leaving the
/// field focused.
fn type_over_the_last_time(ed: &mut crate::support::Editor, text: &str) {
    use egui_kittest::kittest::Queryable;
    ed.harness.get_by_value("1800 s").click();
    ed.harness.run_steps(3);
    ed.key(Modifiers::COMMAND, Key::A);
    ed.harness.event(egui::Event::Text(text.into()));
}
