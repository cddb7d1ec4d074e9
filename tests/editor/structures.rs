//! Structures through the real UI: the Structure tool places a weir by a drag across a river,
//! with its crest a metre above the lowest ground under it; the running water backs up behind
//! it; the crest is edited in the inspector; a culvert is placed by a drag; both are undoable
//! and saved in the level.

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable as _;
use spillway::level::StructureKind;

use crate::support::{editor_with, line, river};

fn crest(ed: &crate::support::Editor) -> f32 {
    match ed.harness.state().document().level().structures[0].kind {
        StructureKind::Weir { crest, .. } => crest,
        ref other => panic!("{other:?}"),
    }
}

#[test]
fn a_weir_and_a_culvert_are_placed_backed_up_against_edited_undone_and_saved() {
    let level = river();
    let mut ed = editor_with(&level);
    ed.key(Modifiers::NONE, Key::H);
    ed.click("Weir");
    let path = line(ed.screen(101.0, 0.5), ed.screen(101.0, 19.5), 12);
    ed.drag(&path, Modifiers::NONE);
    let structures = ed.harness.state().document().level().structures.clone();
    assert_eq!(structures.len(), 1, "{structures:?}");
    assert_eq!(structures[0].name, "Weir 1");
    let (from, to) = structures[0].kind.ends();
    assert!(
        (from[0] - 101.0).abs() < 3.0 && to[1] - from[1] > 12.0,
        "{from:?} {to:?}"
    );
    let ground = 0.005 * (200.0 - 101.0);
    assert!((crest(&ed) - (ground + 1.0)).abs() < 0.05, "{}", crest(&ed));
    assert_eq!(
        ed.harness.state().document().history().undo_label(),
        Some("Add weir")
    );

    // The river, 0.5 m deep, backs up behind the weir a metre high; below it the water runs
    // away and none follows.
    for _ in 0..400 {
        ed.key(Modifiers::NONE, Key::Period);
    }
    let depth = ed.harness.state().preview().read_depth().expect("running");
    let nx = level.nx();
    let column = |i: usize| (0..level.ny()).map(|j| depth[j * nx + i]).sum::<f32>() / 10.0;
    println!(
        "after 8 s: {:.3} m behind the weir, {:.3} m below it",
        column(49),
        column(51)
    );
    assert!(column(49) > 0.55, "{}", column(49));
    assert!(column(51) < 0.45, "{}", column(51));

    // The crest, edited in the inspector (typed), is one undo step.
    {
        use egui_kittest::kittest::{NodeT, Queryable};
        let now = crest(&ed) as f64;
        let field = ed
            .harness
            .get_all_by_role(egui::accesskit::Role::SpinButton)
            .find(|n| {
                n.accesskit_node()
                    .numeric_value()
                    .is_some_and(|v| (v - now).abs() < 1e-3)
            })
            .expect("the crest field");
        field.click();
    }
    ed.frames(2);
    ed.key(Modifiers::COMMAND, Key::A);
    ed.harness.event(egui::Event::Text("2.5".into()));
    ed.key(Modifiers::NONE, Key::Enter);
    ed.frames(3);
    assert_eq!(crest(&ed), 2.5);
    assert_eq!(
        ed.harness.state().document().history().undo_label(),
        Some("Edit structure")
    );

    ed.click("Culvert");
    let path = line(ed.screen(60.0, 10.0), ed.screen(140.0, 10.0), 12);
    ed.drag(&path, Modifiers::NONE);
    let level_now = ed.harness.state().document().level().clone();
    assert_eq!(level_now.structures.len(), 2);
    assert_eq!(level_now.structures[1].name, "Culvert 1");
    assert_eq!(level_now.structures[1].kind.label(), "Culvert");
    // A diameter past what a level may hold (100 m) stops there: the level still saves.
    type_into_field(&mut ed, 1.0, "150");
    let level_now = ed.harness.state().document().level().clone();
    assert!(matches!(
        level_now.structures[1].kind,
        StructureKind::Culvert { diameter, .. } if diameter == 100.0
    ));

    ed.key(Modifiers::COMMAND, Key::S);
    ed.frames(2);
    let saved = spillway::level::file::load(&ed.dir.path().join("level.ron")).expect("saved");
    assert_eq!(saved.structures, level_now.structures);
    ed.key(Modifiers::COMMAND, Key::Z);
    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(ed.harness.state().document().level().structures.len(), 1);
    ed.key(Modifiers::COMMAND, Key::Z);
    assert!((crest(&ed) - (ground + 1.0)).abs() < 0.05);
    ed.key(Modifiers::COMMAND, Key::Z);
    assert!(ed.harness.state().document().level().structures.is_empty());
}

/// Types `text` into the inspector's number field showing `now`.
fn type_into_field(ed: &mut crate::support::Editor, now: f64, text: &str) {
    use egui_kittest::kittest::{NodeT, Queryable};
    ed.harness
        .get_all_by_role(egui::accesskit::Role::SpinButton)
        .find(|n| {
            n.accesskit_node()
                .numeric_value()
                .is_some_and(|v| (v - now).abs() < 1e-3)
        })
        .expect("the field")
        .click();
    ed.frames(2);
    ed.key(Modifiers::COMMAND, Key::A);
    ed.harness.event(egui::Event::Text(text.into()));
    ed.key(Modifiers::NONE, Key::Enter);
    ed.frames(3);
}

fn structure_names(ed: &crate::support::Editor) -> Vec<String> {
    let level = ed.harness.state().document().level();
    level.structures.iter().map(|s| s.name.clone()).collect()
}

#[test]
fn the_selection_follows_its_structure_through_undo_and_a_click_off_clears_it() {
    let mut ed = editor_with(&river());
    ed.key(Modifiers::NONE, Key::H);
    ed.click("Weir");
    for x in [60.0, 100.0, 140.0] {
        let path = line(ed.screen(x, 0.5), ed.screen(x, 19.5), 8);
        ed.drag(&path, Modifiers::NONE);
    }
    assert_eq!(structure_names(&ed), ["Weir 1", "Weir 2", "Weir 3"]);
    ed.click_at(ed.screen(60.0, 10.0));
    ed.key(Modifiers::NONE, Key::Delete);
    assert_eq!(structure_names(&ed), ["Weir 2", "Weir 3"]);
    // Weir 3 selected (second in the list), then the delete undone: Weir 3 is third again,
    // and the selection went with it (it stayed on the second, Weir 2, which Delete removed).
    ed.click_at(ed.screen(140.0, 10.0));
    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(structure_names(&ed), ["Weir 1", "Weir 2", "Weir 3"]);
    ed.key(Modifiers::NONE, Key::Delete);
    assert_eq!(structure_names(&ed), ["Weir 1", "Weir 2"]);
    // A click off every structure adds nothing and selects nothing: with Weir 2 selected
    // first, Delete after the click off removes none.
    ed.click_at(ed.screen(100.0, 10.0));
    ed.click_at(ed.screen(120.0, 10.0));
    assert_eq!(structure_names(&ed), ["Weir 1", "Weir 2"]);
    ed.key(Modifiers::NONE, Key::Delete);
    assert_eq!(
        structure_names(&ed),
        ["Weir 1", "Weir 2"],
        "the click off cleared it"
    );
    ed.click_at(ed.screen(60.0, 10.0));
    ed.key(Modifiers::NONE, Key::Escape);
    ed.key(Modifiers::NONE, Key::Delete);
    assert_eq!(
        structure_names(&ed),
        ["Weir 1", "Weir 2"],
        "Escape cleared it"
    );
}

/// The river with a weir drawn across it at x = 101 m (the Structure tool, Weir): the editor
/// and the weir's crest as placed.
fn weir_across_the_river() -> (crate::support::Editor, f32) {
    let mut ed = editor_with(&river());
    ed.key(Modifiers::NONE, Key::H);
    ed.click("Weir");
    ed.drag(
        &line(ed.screen(101.0, 0.5), ed.screen(101.0, 19.5), 12),
        Modifiers::NONE,
    );
    let placed = crest(&ed);
    (ed, placed)
}

/// Presses the crest field (showing `crest`) and drags it 60 points right, still held; returns
/// where it was pressed.
fn hold_the_crest_field(ed: &mut crate::support::Editor, crest: f32) -> egui::Pos2 {
    let at = ed.press_field(crest as f64);
    for dx in [10.0, 30.0, 60.0] {
        ed.move_to(at + egui::vec2(dx, 0.0));
    }
    at
}

#[test]
fn keep_this_state_pressed_while_a_field_is_dragged_keeps_the_field_its_own_step() {
    // Ctrl+K while the crest field was held mid-drag recorded the half-dragged crest as the
    // state before Keep this state: undoing everything left the weir at that crest.
    let (mut ed, placed) = weir_across_the_river();
    for _ in 0..5 {
        ed.key(Modifiers::NONE, Key::Period);
    }
    let at = hold_the_crest_field(&mut ed, placed);
    let held = crest(&ed);
    assert!(
        held > placed,
        "the drag raised the crest: {held} vs {placed}"
    );
    ed.harness.key_press_modifiers(Modifiers::COMMAND, Key::K);
    ed.harness.step();
    let end = at + egui::vec2(90.0, 0.0);
    ed.move_to(end);
    ed.press_or_release(false, end);
    ed.frames(3);
    assert_eq!(
        ed.harness.state().document().history().undo_len(),
        4,
        "add, the held edit, keep, the rest of the drag"
    );
    for _ in 0..3 {
        ed.key(Modifiers::COMMAND, Key::Z);
    }
    assert_eq!(crest(&ed), placed, "undone back to the weir as placed");
}

#[test]
fn escape_while_a_field_is_dragged_drops_the_change() {
    // Escape mid-drag cleared the selection, and the half-dragged crest was recorded as an
    // "Edit structure" step.
    let (mut ed, placed) = weir_across_the_river();
    let at = hold_the_crest_field(&mut ed, placed);
    assert!(crest(&ed) > placed, "the drag raised the crest");
    ed.escape_mid_drag(at);
    assert_eq!(crest(&ed), placed, "the crest as placed");
    assert_eq!(
        ed.harness.state().document().history().undo_len(),
        1,
        "only the weir's placing"
    );
}

#[test]
fn a_weir_drawn_along_the_maps_edge_is_refused_with_the_reason() {
    // It crossed no face between two cells: placed, it held back nothing, silently.
    let mut ed = editor_with(&river());
    ed.key(Modifiers::NONE, Key::H);
    ed.click("Weir");
    let path = line(ed.screen(60.0, 0.2), ed.screen(140.0, 0.2), 12);
    ed.drag(&path, Modifiers::NONE);
    assert!(ed.harness.state().document().level().structures.is_empty());
    assert_eq!(ed.harness.state().document().history().undo_len(), 0);
    use egui_kittest::kittest::Queryable;
    assert!(
        ed.harness
            .query_by_label_contains("crosses no face between two cells")
            .is_some(),
        "the status bar says why"
    );
}

#[test]
fn the_inspector_names_its_selection_and_a_name_taken() {
    // A sink renamed after another went unsaid (a game trigger by the name acts on both), and
    // with the Source tool the selected sink's button read "Delete source".
    use egui_kittest::kittest::Queryable;
    let mut ed = editor_with(&river());
    ed.key(Modifiers::NONE, Key::O);
    ed.click_at(ed.screen(40.0, 10.0));
    ed.click_at(ed.screen(140.0, 10.0));
    let names = |ed: &crate::support::Editor| -> Vec<String> {
        let level = ed.harness.state().document().level();
        level.sinks.iter().map(|s| s.name.clone()).collect()
    };
    assert_eq!(names(&ed), ["Sink 1", "Sink 2"]);
    let warning = "Another sink is named so: a game trigger by it acts on both";
    assert!(ed.harness.query_by_label(warning).is_none());
    ed.retype("Sink 2", "Sink 1");
    assert_eq!(names(&ed), ["Sink 1", "Sink 1"]);
    assert!(ed.harness.query_by_label(warning).is_some());
    ed.key(Modifiers::NONE, Key::I);
    assert!(ed.harness.query_by_label("Delete sink").is_some());
    assert!(ed.harness.query_by_label("Delete source").is_none());
}

#[test]
fn the_viewport_draws_the_cut_of_a_breach_as_the_water_runs() {
    // The water stood on the solver's ground, cut by the breach, while the viewport drew the
    // document's whole dam over it: the water in the breach was hidden under the dam.
    let mut level = spillway_tests::breach_dam(Some(spillway::level::BreachStart::At(0.0)));
    if let spillway::level::StructureKind::Breach { growth, .. } = &mut level.structures[0].kind {
        *growth = spillway::level::BreachGrowth::Steady(0.0);
    }
    let mut ed = crate::support::editor_with(&level);
    ed.frames(2);
    let before = ed.harness.state().terrain_cells_drawn();
    ed.click("Play");
    ed.frames(10);
    // The running ground is read once a second of wall time.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    ed.frames(2);
    ed.click("Pause");
    ed.frames(2);
    let drawn = ed.harness.state().terrain_cells_drawn() - before;
    let ground = ed
        .harness
        .state()
        .preview()
        .read_terrain()
        .expect("the running ground");
    let cut = (ground.iter().zip(&level.terrain.data))
        .filter(|(g, t)| g < t)
        .count() as u64;
    println!("the breach cut {cut} cells; the viewport drew {drawn} cells anew");
    assert!(cut > 10, "the breach cut {cut} cells");
    assert!(drawn >= cut, "{drawn} cells drawn for {cut} cut");
    // Reset: the document's dam again.
    ed.click("Reset");
    ed.frames(2);
    let again = ed.harness.state().terrain_cells_drawn() - before - drawn;
    let all = (level.nx() * level.ny()) as u64;
    assert!(again >= all, "{again} cells drawn again of {all}");
}

#[test]
fn f_frames_the_gate_the_gate_tool_shows_not_a_source_left_selected() {
    // The source placed first stayed selected (unmarked under the Gate tool): F framed it and
    // said so, with the new gate the selection drawn.
    let mut ed = editor_with(&crate::support::bumpy_level());
    ed.key(Modifiers::NONE, Key::I);
    ed.click_at(ed.screen(20.5, 50.5));
    assert_eq!(ed.harness.state().document().level().sources.len(), 1);
    ed.key(Modifiers::NONE, Key::G);
    ed.drag(
        &line(ed.screen(60.5, 20.5), ed.screen(66.5, 26.5), 8),
        Modifiers::NONE,
    );
    let gate = ed.harness.state().document().level().gates[0].clone();
    let (lo, hi) = gate.shape.bounds();
    ed.key(Modifiers::NONE, Key::F);
    ed.frames(2);
    let target = ed.harness.state().camera().target;
    let centre = [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])];
    println!("{} at {centre:?}: the view aims at {target:?}", gate.name);
    assert!(
        (target.x - centre[0]).abs() < 1.0 && (target.y - centre[1]).abs() < 1.0,
        "{target:?} against {centre:?}"
    );
    let said = format!("Framed {}", gate.name);
    assert!(
        ed.harness.query_by_label_contains(&said).is_some(),
        "{said}"
    );
}
