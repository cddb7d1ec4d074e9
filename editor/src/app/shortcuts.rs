//! Keyboard shortcuts: the usual file and edit chords, `[`/`]` for the brush size, digits for
//! the sculpting tools and letters for the water tools, Delete for the selected source or
//! sink, `F` to frame and Home to reset the view; Space plays or pauses the water, `.` runs
//! one step and Ctrl+R resets it; Ctrl+B bakes the level, Ctrl+K keeps the preview's water. With the Body tool (K), W, E and R pick the gizmo's mode and
//! Ctrl+D duplicates the selected body.

use egui::{Key, KeyboardShortcut, Modifiers};

use super::EditorApp;
use super::actions::Action;
use super::gizmo::GizmoMode;
use super::timeline_panel::TimelineAction;
use crate::tools::Tool;

/// A named shortcut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shortcut {
    New,
    Open,
    Save,
    SaveAs,
    Quit,
    Undo,
    Redo,
    RedoAlt,
    Frame,
    ResetView,
    Bake,
    KeepState,
}

impl Shortcut {
    /// The key chord.
    pub fn keys(self) -> KeyboardShortcut {
        let cmd = Modifiers::COMMAND;
        let cmd_shift = Modifiers::COMMAND | Modifiers::SHIFT;
        match self {
            Shortcut::New => KeyboardShortcut::new(cmd, Key::N),
            Shortcut::Open => KeyboardShortcut::new(cmd, Key::O),
            Shortcut::Save => KeyboardShortcut::new(cmd, Key::S),
            Shortcut::SaveAs => KeyboardShortcut::new(cmd_shift, Key::S),
            Shortcut::Quit => KeyboardShortcut::new(cmd, Key::Q),
            Shortcut::Undo => KeyboardShortcut::new(cmd, Key::Z),
            Shortcut::Redo => KeyboardShortcut::new(cmd_shift, Key::Z),
            Shortcut::RedoAlt => KeyboardShortcut::new(cmd, Key::Y),
            Shortcut::Frame => KeyboardShortcut::new(Modifiers::NONE, Key::F),
            Shortcut::ResetView => KeyboardShortcut::new(Modifiers::NONE, Key::Home),
            Shortcut::Bake => KeyboardShortcut::new(cmd, Key::B),
            Shortcut::KeepState => KeyboardShortcut::new(cmd, Key::K),
        }
    }
}

/// Chords with a modifier, most specific first (egui matches Ctrl+Shift+Z as Ctrl+Z too).
const CHORDS: [(Shortcut, fn() -> Action); 10] = [
    (Shortcut::SaveAs, || Action::SaveAs),
    (Shortcut::Save, || Action::Save),
    (Shortcut::Bake, || Action::Bake),
    (Shortcut::KeepState, || Action::KeepState),
    (Shortcut::Redo, || Action::Redo),
    (Shortcut::Undo, || Action::Undo),
    (Shortcut::RedoAlt, || Action::Redo),
    (Shortcut::Open, || Action::Open),
    (Shortcut::New, || Action::New),
    (Shortcut::Quit, || Action::Quit),
];

const DIGITS: [Key; 9] = [
    Key::Num1,
    Key::Num2,
    Key::Num3,
    Key::Num4,
    Key::Num5,
    Key::Num6,
    Key::Num7,
    Key::Num8,
    Key::Num9,
];

/// The letter keys of the water tools (none of them flies the camera or frames the view).
const LETTERS: [(Key, Tool); 10] = [
    (Key::I, Tool::Source),
    (Key::O, Tool::Sink),
    (Key::B, Tool::Boundary),
    (Key::P, Tool::Water),
    (Key::L, Tool::FillBasin),
    (Key::G, Tool::Gate),
    (Key::U, Tool::Gauge),
    (Key::H, Tool::Structure),
    (Key::K, Tool::Body),
    (Key::N, Tool::Roughness),
];

/// The gizmo mode keys of the Body tool (W, E and R, as in most 3D tools; not while flying).
const GIZMO_KEYS: [(Key, GizmoMode); 3] = [
    (Key::W, GizmoMode::Move),
    (Key::E, GizmoMode::Rotate),
    (Key::R, GizmoMode::Scale),
];

/// The actions of the shortcuts pressed this frame, in the order pressed within each group
/// (none while a dialog is open, a background job runs or a text field has the keyboard).
pub(crate) fn actions(app: &EditorApp, ctx: &egui::Context) -> Vec<Action> {
    let busy = app.bake.is_some() || app.file_task.is_some();
    if app.dialog.is_some() || busy || ctx.egui_wants_keyboard_input() {
        return Vec::new();
    }
    let flying = ctx.input(|i| i.pointer.secondary_down());
    let body_tool = app.sculpt.tool == Tool::Body;
    ctx.input_mut(|i| {
        let mut actions: Vec<Action> = CHORDS
            .iter()
            .filter(|(shortcut, _)| i.consume_shortcut(&shortcut.keys()))
            .map(|(_, action)| action())
            .collect();
        let mut key = |modifiers, key| i.consume_key(modifiers, key);
        let none = Modifiers::NONE;
        if let Some((_, tool)) = LETTERS.iter().find(|(k, _)| key(none, *k)) {
            actions.push(Action::SelectTool(*tool));
        }
        if key(none, Key::Delete) || key(none, Key::Backspace) {
            actions.push(Action::DeleteSelection);
        }
        if body_tool {
            if let Some((_, mode)) = GIZMO_KEYS.iter().find(|(k, _)| !flying && key(none, *k)) {
                actions.push(Action::SetGizmoMode(*mode));
            }
            if key(Modifiers::COMMAND, Key::D) {
                actions.push(Action::DuplicateBody);
            }
        }
        if key(none, Key::Space) {
            actions.push(Action::PlayPause);
        }
        if key(none, Key::Period) {
            actions.push(Action::StepWater);
        }
        if key(Modifiers::COMMAND, Key::R) {
            actions.push(Action::ResetWater);
        }
        if key(none, Key::PageUp) {
            actions.push(Action::Timeline(TimelineAction::PreviousKey));
        }
        if key(none, Key::PageDown) {
            actions.push(Action::Timeline(TimelineAction::NextKey));
        }
        if let Some(d) = DIGITS.iter().position(|k| key(none, *k))
            && let Some(tool) = Tool::SCULPT.get(d)
        {
            actions.push(Action::SelectTool(*tool));
        }
        let grow = i.count_and_consume_key(none, Key::CloseBracket);
        let shrink = i.count_and_consume_key(none, Key::OpenBracket);
        actions.extend(std::iter::repeat_n(Action::GrowBrush, grow));
        actions.extend(std::iter::repeat_n(Action::ShrinkBrush, shrink));
        if !flying && i.consume_shortcut(&Shortcut::Frame.keys()) {
            actions.push(Action::FrameView);
        }
        if i.consume_shortcut(&Shortcut::ResetView.keys()) {
            actions.push(Action::ResetView);
        }
        if i.consume_key(none, Key::Escape) {
            actions.push(Action::Cancel);
        }
        actions
    })
}
