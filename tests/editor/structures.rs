//! Structures through the real UI: the Structure tool places a weir by a drag across a river,
//! with its crest a metre above the lowest ground under it; the running water backs up behind
//! it; the crest is edited in the inspector; a culvert is placed by a drag; both are undoable
//! and saved in the level.

use egui::{Key, Modifiers};
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

    ed.key(Modifiers::COMMAND, Key::S);
    ed.frames(2);
    let saved = spillway::level::file::load(&ed.dir.path().join("level.ron")).expect("saved");
    assert_eq!(saved.structures, level_now.structures);
    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(ed.harness.state().document().level().structures.len(), 1);
    ed.key(Modifiers::COMMAND, Key::Z);
    assert!((crest(&ed) - (ground + 1.0)).abs() < 0.05);
    ed.key(Modifiers::COMMAND, Key::Z);
    assert!(ed.harness.state().document().level().structures.is_empty());
}
