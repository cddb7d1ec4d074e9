//! Gauges through the real UI: the Gauge tool places a discharge line by a drag across a river
//! and a stage gauge by a click; while the water runs both are read and plotted; they are
//! undoable and saved in the level.

use egui::{Key, Modifiers};
use spillway::level::GaugeKind;

use crate::support::{editor_with, line, river};

#[test]
fn a_discharge_line_and_a_stage_gauge_are_placed_read_plotted_undone_and_saved() {
    let mut ed = editor_with(&river());
    ed.key(Modifiers::NONE, Key::U);
    let path = line(ed.screen(101.0, 1.0), ed.screen(101.0, 19.0), 12);
    ed.drag(&path, Modifiers::NONE);
    ed.click_at(ed.screen(151.0, 10.0));
    let gauges = ed.harness.state().document().level().gauges.clone();
    assert_eq!(gauges.len(), 2, "{gauges:?}");
    assert_eq!(gauges[0].name, "Line 1");
    let GaugeKind::Discharge { from, to } = gauges[0].kind else {
        panic!("{gauges:?}");
    };
    assert!(
        (from[0] - 101.0).abs() < 3.0 && (to[1] - from[1]) > 12.0,
        "{from:?} {to:?}"
    );
    assert!(
        matches!(gauges[1].kind, GaugeKind::Stage { .. }),
        "{gauges:?}"
    );

    ed.harness.state_mut().preview_mut().speed = 10.0;
    ed.click("Play");
    for _ in 0..40 {
        std::thread::sleep(spillway_editor::preview::GAUGE_INTERVAL);
        ed.frames(1);
    }
    ed.click("Pause");
    let series = ed.harness.state().preview().gauge_series().to_vec();
    assert_eq!(series.len(), 2);
    assert!(series.iter().all(|s| s.points.len() >= 5), "{series:?}");
    let q = series[0].points.last().expect("read")[1];
    assert!(
        q > 1.0 && q < 40.0,
        "the line reads the river's discharge: {q} m³/s"
    );
    assert_eq!(series[0].unit, "m³/s");
    let stage = series[1].points.last().expect("read")[1];
    assert!(stage > 0.0, "{stage}");

    // Saved with the level, and undoable.
    ed.key(Modifiers::COMMAND, Key::S);
    ed.frames(2);
    let path = ed.dir.path().join("level.ron");
    let saved = spillway::level::file::load(&path).expect("saved");
    assert_eq!(saved.gauges, gauges);
    ed.key(Modifiers::COMMAND, Key::Z);
    ed.key(Modifiers::COMMAND, Key::Z);
    assert!(ed.harness.state().document().level().gauges.is_empty());
}

#[test]
fn reset_while_playing_starts_the_gauges_plot_again() {
    // The old run's readings stayed: the new run's were skipped until it passed their time,
    // then joined onto the old curve.
    let mut level = river();
    level.gauges.push(spillway::level::Gauge {
        name: "stage".into(),
        kind: GaugeKind::Stage { x: 151.0, y: 10.0 },
    });
    let mut ed = editor_with(&level);
    ed.harness.state_mut().preview_mut().speed = 10.0;
    ed.click("Play");
    for _ in 0..20 {
        std::thread::sleep(spillway_editor::preview::GAUGE_INTERVAL);
        ed.frames(1);
    }
    let before = ed.harness.state().preview().gauge_series()[0]
        .points
        .clone();
    let last = before.last().expect("read")[0];
    assert!(last > 1.0, "ran {last} s");
    ed.click("Reset");
    for _ in 0..4 {
        std::thread::sleep(spillway_editor::preview::GAUGE_INTERVAL);
        ed.frames(1);
    }
    let after = &ed.harness.state().preview().gauge_series()[0].points;
    assert!(!after.is_empty(), "the new run is read");
    assert!(
        after.iter().all(|p| p[0] < last),
        "only the new run's readings: {after:?}"
    );
}

#[test]
fn a_step_plots_the_water_it_leaves_at_its_time() {
    // On the GPU the gauges were read before the frame's steps reached the GPU, and stamped
    // with the clock after them: Step plotted the water from before the step.
    let mut level = river();
    level.gauges.push(spillway::level::Gauge {
        name: "inflow".into(),
        kind: GaugeKind::Stage { x: 1.0, y: 10.0 },
    });
    let start = level.terrain.get(0, 5) + level.water.get(0, 5);
    let mut ed = editor_with(&level);
    // A second Step within the interval plotted nothing of its water, ever: with readings
    // an hour apart, both Steps are read.
    ed.harness.state_mut().preview_mut().gauge_interval = std::time::Duration::from_secs(3600);
    ed.click("Step");
    ed.click("Step");
    ed.frames(2);
    let preview = ed.harness.state().preview();
    let depth = preview.read_depth().expect("live");
    let now = level.terrain.get(0, 5) + depth[5 * level.nx()];
    assert!(now != start, "the inflow raised the water in a step");
    let last = *preview.gauge_series()[0].points.last().expect("read");
    println!("{last:?}, surface {now} m at {} s", preview.clock());
    assert_eq!(last[0], preview.clock());
    assert_eq!(last[1] as f32, now, "the water the step left");
}
