//! The timeline under the viewport (once the water has run): the preview's run drawn as a bar
//! over simulated time, with
//! its keyframes, its events (gates opening, edits) and its branches. Click or drag on the bar
//! to scrub (the water goes to that moment, paused); PageUp and PageDown step between
//! keyframes; an edit made after scrubbing back starts a branch. The Branches menu switches
//! between branches, compares the water with another branch (the Change overlay then shows
//! the difference) and discards a branch; the Keyframes menu sets the spacing and the memory
//! budget, which the bar beside it shows filling. "Bake this frame" makes the water shown the
//! level's initial state (one undo step).

use egui::{Color32, Sense, Stroke, Ui, pos2, vec2};
use spillway_render::WaterOverlay;

use super::EditorApp;
use super::actions::Action;
use crate::preview::timeline::{Branch, Timeline};

/// What the designer asks of the timeline.
#[derive(Clone, Debug, PartialEq)]
pub enum TimelineAction {
    /// Go to this simulated time, seconds, of the current branch.
    Seek(f64),
    /// Go to the keyframe before the water's moment.
    PreviousKey,
    /// Go to the keyframe after the water's moment.
    NextKey,
    /// Continue on branch `n` (its water at the same moment, or at its end).
    Switch(usize),
    /// Drop branch `n` and its keyframes.
    Discard(usize),
    /// Compare the water with branch `n` (`None`: with the authored water again).
    Compare(Option<usize>),
}

/// What the timeline remembers between frames.
#[derive(Default)]
pub(crate) struct TimelineView {
    /// The branch and keyframe time whose depths the renderer compares with now.
    pub(crate) compared: Option<(usize, f64)>,
}

/// Carries out a timeline action.
pub(crate) fn perform(app: &mut EditorApp, action: TimelineAction) {
    let preview = &mut app.preview;
    let now = preview.seeking().unwrap_or_else(|| preview.clock());
    match action {
        TimelineAction::Seek(t) => preview.seek(t),
        TimelineAction::PreviousKey => {
            if let Some(t) = previous_key(&preview.timeline, now) {
                preview.seek(t);
            }
        }
        TimelineAction::NextKey => {
            if let Some(t) = next_key(&preview.timeline, now) {
                preview.seek(t);
            }
        }
        TimelineAction::Switch(n) => {
            preview.switch_branch(n);
        }
        TimelineAction::Discard(n) => {
            preview.timeline.discard(n);
        }
        TimelineAction::Compare(n) => {
            preview.timeline.compare = n;
            if n.is_some() {
                app.viewport.water_overlay = WaterOverlay::Difference;
            }
        }
    }
}

/// The time of the current branch's last keyframe before `now`, if any.
fn previous_key(timeline: &Timeline, now: f64) -> Option<f64> {
    let keys = &timeline.branch().keys;
    keys.iter()
        .rev()
        .map(|k| k.time())
        .find(|&t| t < now - 1e-6)
}

/// The time of the current branch's first keyframe after `now`, if any.
fn next_key(timeline: &Timeline, now: f64) -> Option<f64> {
    let keys = &timeline.branch().keys;
    keys.iter().map(|k| k.time()).find(|&t| t > now + 1e-6)
}

/// Keeps the renderer's reference depths (the Change overlay's) on the compared branch's
/// water at the preview's moment, or on the authored water when nothing is compared.
pub(crate) fn update_reference(app: &mut EditorApp) {
    let timeline = &app.preview.timeline;
    let now = app.preview.clock();
    let wanted = timeline.compare.and_then(|b| {
        let key = timeline.branches.get(b)?.key_at(now)?;
        Some((b, key.time(), key.clone()))
    });
    let Some(renderer) = app.renderer.as_mut() else {
        return;
    };
    let view = &mut app.timeline_view;
    match wanted {
        Some((b, t, key)) if view.compared != Some((b, t)) => {
            let level = app.document.level();
            // A keyframe of another size (a run that outlived a resize) compares with nothing.
            if let Ok(depth) = key.snapshot.depth()
                && depth.len() == level.nx() * level.ny()
            {
                let grid = spillway::Grid {
                    nx: level.nx(),
                    ny: level.ny(),
                    data: depth,
                };
                if renderer.set_reference_depth(Some(&grid)) {
                    view.compared = Some((b, t));
                }
            }
        }
        None if view.compared.is_some() => {
            renderer.set_reference_depth(None);
            view.compared = None;
        }
        _ => {}
    }
}

/// Shows the timeline.
pub(crate) fn show(app: &mut EditorApp, ui: &mut Ui) {
    let mut asked = Vec::new();
    ui.horizontal_wrapped(|ui| controls(app, ui, &mut asked));
    if let Some(action) = bar(app, ui) {
        asked.push(action);
    }
    for action in asked {
        app.request(Action::Timeline(action));
    }
}

fn controls(app: &mut EditorApp, ui: &mut Ui, asked: &mut Vec<TimelineAction>) {
    let preview = &mut app.preview;
    let live = preview.is_live();
    let at = preview.seeking().unwrap_or_else(|| preview.clock());
    ui.strong("Timeline");
    // Enabled only where there is a keyframe to go to (none: recording is off, or the run
    // is at its first or last one).
    let before = live && previous_key(&preview.timeline, at).is_some();
    if ui
        .add_enabled(before, egui::Button::new("Previous key"))
        .on_hover_text("Back to the keyframe before this moment (PageUp)")
        .on_disabled_hover_text("No keyframe before this moment (Keyframes ▸ Record)")
        .clicked()
    {
        asked.push(TimelineAction::PreviousKey);
    }
    let after = live && next_key(&preview.timeline, at).is_some();
    if ui
        .add_enabled(after, egui::Button::new("Next key"))
        .on_hover_text("On to the keyframe after this moment (PageDown)")
        .on_disabled_hover_text("No keyframe after this moment")
        .clicked()
    {
        asked.push(TimelineAction::NextKey);
    }
    let now = preview.clock();
    let timeline = &preview.timeline;
    let branch = timeline.branch();
    let text = match preview.seeking() {
        Some(t) => format!("going to {t:.1} s"),
        None => format!("t = {now:.1} s of {:.1} s", branch.end.max(now)),
    };
    ui.label(text).on_hover_text(format!(
        "Simulated time on {}; the bar spans the longest branch",
        branch.name
    ));
    if ui
        .add_enabled(live, egui::Button::new("Bake this frame"))
        .on_hover_text("Make the water shown the level's initial state (one undo step, Ctrl+K)")
        .clicked()
    {
        app.request(Action::KeepState);
    }
    events_menu(&app.preview.timeline, ui, asked);
    branches_menu(&app.preview.timeline, ui, asked);
    keyframes_menu(&mut app.preview.timeline, ui);
    memory(&app.preview.timeline, ui);
}

fn events_menu(timeline: &Timeline, ui: &mut Ui, asked: &mut Vec<TimelineAction>) {
    let events = &timeline.branch().events;
    // Going to a moment starts from a keyframe before it: without any (recording off) a
    // click only paused the water.
    let reachable = !timeline.branch().keys.is_empty();
    ui.add_enabled_ui(!events.is_empty() && reachable, |ui| {
        ui.menu_button(format!("Events ({})", events.len()), |ui| {
            for e in events {
                if ui
                    .button(format!("{:.1} s: {}", e.time, e.label))
                    .on_hover_text("Go to this moment")
                    .clicked()
                {
                    asked.push(TimelineAction::Seek(e.time));
                    ui.close();
                }
            }
        })
        .response
        .on_hover_text("Jump to the moment a gate opened or the level was edited");
    });
}

fn branches_menu(timeline: &Timeline, ui: &mut Ui, asked: &mut Vec<TimelineAction>) {
    let n = timeline.branches.len();
    ui.menu_button(format!("Branches ({n})"), |ui| {
        for (i, b) in timeline.branches.iter().enumerate() {
            ui.horizontal(|ui| {
                let current = i == timeline.current;
                ui.label(describe(b)).on_hover_text(if current {
                    "The water runs on this branch"
                } else {
                    "Another history of the water, kept until discarded"
                });
                if current {
                    ui.weak("(current)");
                    return;
                }
                if ui.button("Continue").on_hover_text("Run this branch's water from this moment (its end, if it ended before), with the level as it is now: undo your edits first to replay its old future").clicked() {
                    asked.push(TimelineAction::Switch(i));
                    ui.close();
                }
                let comparing = timeline.compare == Some(i);
                let (label, to) = if comparing {
                    ("Stop comparing", None)
                } else {
                    ("Compare", Some(i))
                };
                if ui
                    .button(label)
                    .on_hover_text("Change overlay: red where the water is deeper than on this branch, blue where shallower")
                    .clicked()
                {
                    asked.push(TimelineAction::Compare(to));
                    ui.close();
                }
                if ui.button("Discard").on_hover_text("Forget this branch's water").clicked() {
                    asked.push(TimelineAction::Discard(i));
                    ui.close();
                }
            });
        }
    })
    .response
    .on_hover_text("An edit after scrubbing back starts a branch; the old one is kept here");
    if let Some(c) = timeline.compare.and_then(|c| timeline.branches.get(c)) {
        ui.colored_label(Color32::from_rgb(230, 120, 90), format!("vs {}", c.name))
            .on_hover_text("The Change overlay compares with this branch's water at its keyframe before this moment: red deeper here, blue shallower");
    }
}

fn describe(b: &Branch) -> String {
    match b.forked_at {
        Some(t) => format!("{}: from {t:.1} s to {:.1} s", b.name, b.end),
        None => format!("{}: {:.1} s to {:.1} s", b.name, b.start, b.end),
    }
}

fn keyframes_menu(timeline: &mut Timeline, ui: &mut Ui) {
    ui.menu_button("Keyframes", |ui| {
        ui.checkbox(&mut timeline.recording, "Record keyframes")
            .on_hover_text("Keep the water every few seconds to scrub back to");
        ui.horizontal(|ui| {
            ui.label("Every");
            ui.add(
                crate::app::number(&mut timeline.spacing)
                    .range(0.1..=600.0)
                    .suffix(" s"),
            )
            .on_hover_text("Simulated seconds between keyframes (and at least a quarter second of real time: at high speeds they are further apart)");
        });
        ui.horizontal(|ui| {
            ui.label("Memory budget");
            let mut mb = (timeline.budget >> 20) as u32;
            if ui
                .add(crate::app::number(&mut mb).range(16..=65536).suffix(" MB"))
                .on_hover_text("Most memory the keyframes take; beyond it every other keyframe is dropped and the spacing doubles")
                .changed()
            {
                timeline.set_budget((mb as usize) << 20);
            }
        });
    });
}

fn memory(timeline: &Timeline, ui: &mut Ui) {
    let (used, budget) = (timeline.bytes(), timeline.budget.max(1));
    let mb = |b: usize| b as f64 / (1u64 << 20) as f64;
    ui.add(
        egui::ProgressBar::new((used as f32 / budget as f32).min(1.0))
            .desired_width(150.0)
            .text(format!("{:.1} of {:.0} MB", mb(used), mb(budget))),
    )
    .on_hover_text(format!(
        "Keyframes' memory; one every {:.1} s of simulated time{}",
        timeline.spacing_in_force(),
        if timeline.spacing_in_force() > timeline.spacing {
            " (spaced out to fit the budget)"
        } else {
            ""
        }
    ));
}

/// The bar: the current branch's run with its keyframes and events, other branches as thin
/// lines, the water's moment. Returns a seek when the designer clicks or drags on it.
fn bar(app: &EditorApp, ui: &mut Ui) -> Option<TimelineAction> {
    let preview = &app.preview;
    let timeline = &preview.timeline;
    let now = preview.seeking().unwrap_or_else(|| preview.clock());
    let rows = timeline.branches.len().min(4) as f32;
    let size = vec2(ui.available_width(), 26.0 + 5.0 * rows);
    let (rect, response) = ui.allocate_exact_size(size, Sense::click_and_drag());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Slider, true, "Timeline bar"));
    let origin = timeline.origin().min(now);
    let span = (timeline.span().max(now) - origin).max(1.0);
    let x = |t: f64| rect.left() + ((t - origin) / span) as f32 * rect.width();
    let painter = ui.painter_at(rect);
    let visuals = ui.visuals();
    painter.rect_filled(rect, 3.0, visuals.extreme_bg_color);
    let main = egui::Rect::from_min_max(
        pos2(rect.left(), rect.top() + 8.0),
        pos2(rect.right(), rect.top() + 22.0),
    );
    let branch = timeline.branch();
    let run = egui::Rect::from_min_max(main.min, pos2(x(branch.end), main.bottom()));
    painter.rect_filled(run, 2.0, Color32::from_rgb(50, 90, 140));
    for k in &branch.keys {
        let kx = x(k.time());
        painter.line_segment(
            [pos2(kx, main.top() + 2.0), pos2(kx, main.bottom() - 2.0)],
            Stroke::new(1.0, Color32::from_rgb(150, 190, 230)),
        );
    }
    let mut y = main.bottom() + 4.0;
    for (i, b) in timeline.branches.iter().enumerate() {
        if i == timeline.current || y > rect.bottom() {
            continue;
        }
        let colour = if timeline.compare == Some(i) {
            Color32::from_rgb(230, 120, 90)
        } else {
            Color32::GRAY
        };
        let from = b.forked_at.unwrap_or(b.start);
        painter.line_segment(
            [pos2(x(from), y), pos2(x(b.end), y)],
            Stroke::new(3.0, colour),
        );
        y += 5.0;
    }
    for e in &branch.events {
        let ex = x(e.time);
        let tip = [
            pos2(ex, main.top()),
            pos2(ex - 4.0, rect.top() + 1.0),
            pos2(ex + 4.0, rect.top() + 1.0),
        ];
        painter.add(egui::Shape::convex_polygon(
            tip.to_vec(),
            Color32::from_rgb(240, 170, 40),
            Stroke::NONE,
        ));
    }
    let nx = x(now);
    painter.line_segment(
        [pos2(nx, rect.top()), pos2(nx, rect.bottom())],
        Stroke::new(2.0, visuals.strong_text_color()),
    );
    let hovered_event = response.hover_pos().and_then(|p| {
        (branch.events.iter()).find(|e| (x(e.time) - p.x).abs() <= 5.0 && p.y < main.top() + 4.0)
    });
    let response = match hovered_event {
        Some(e) => response.on_hover_text(format!(
            "{} at {:.1} s (click to go there)",
            e.label, e.time
        )),
        None => response.on_hover_text("Click or drag to go to a moment of this branch"),
    };
    if !(response.clicked() || response.dragged()) || branch.keys.is_empty() {
        return None;
    }
    let p = response.interact_pointer_pos()?;
    if let Some(e) = hovered_event.filter(|_| response.clicked()) {
        return Some(TimelineAction::Seek(e.time));
    }
    let t = origin + ((p.x - rect.left()) / rect.width()) as f64 * span;
    let t = t.clamp(origin, branch.end);
    ((t - now).abs() * rect.width() as f64 / span >= 1.0).then_some(TimelineAction::Seek(t))
}
