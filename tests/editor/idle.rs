//! An idle editor rests: once the paused water's figures, a probe reading and a keyframe on
//! their way are in, it asks for no frame (a repaint every 100 ms kept the GPU reducing the
//! whole grid ten times a second).

use egui::Modifiers;

#[test]
fn a_paused_preview_lets_the_editor_rest() {
    // Paused, the preview asked for the figures and the probe again every frame and a frame
    // every 100 ms: an idle editor kept reducing the whole grid ten times a second. On either
    // solver, and after an edit made while paused.
    let delay = |ed: &crate::support::Editor| {
        (ed.harness.output().viewport_output)
            .get(&egui::ViewportId::ROOT)
            .map(|v| v.repaint_delay)
    };
    // (A notice's timeout or the autosave may still ask for a frame seconds away.)
    let resting = |ed: &crate::support::Editor| {
        delay(ed).is_none_or(|d| d >= std::time::Duration::from_secs(1))
    };
    let settle = |ed: &mut crate::support::Editor| {
        for _ in 0..20 {
            std::thread::sleep(std::time::Duration::from_millis(20));
            ed.frames(1);
        }
    };
    for cpu in [false, true] {
        let mut ed = crate::support::editor_with(&crate::preview::basin());
        if cpu {
            ed.click("CPU solver");
        }
        ed.click("Play");
        ed.frames(10);
        ed.click("Pause");
        settle(&mut ed);
        assert!(
            ed.harness.state().preview().stats.is_some(),
            "the figures are in"
        );
        assert!(
            resting(&ed),
            "cpu {cpu}: resting once they are in: {:?}",
            delay(&ed)
        );
        // Hovering the terrain reads the cell once; an edit reads the water again.
        ed.harness.hover_at(ed.at(0.5, 0.5));
        settle(&mut ed);
        assert!(
            ed.harness.state().preview().probe.is_some(),
            "the cell is read"
        );
        ed.drag(&[ed.at(0.4, 0.5), ed.at(0.45, 0.5)], Modifiers::NONE);
        settle(&mut ed);
        assert!(
            resting(&ed),
            "cpu {cpu}: resting after an edit: {:?}",
            delay(&ed)
        );
    }
}
