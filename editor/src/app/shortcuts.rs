//! Keyboard shortcuts: the usual file and edit chords, `[`/`]` for the brush size, digits for
//! the sculpting tools and letters for the water tools, Delete for the selected source or
//! sink, `F` to frame and Home to reset the view; Space plays or pauses the water, `.` runs
//! one step and Ctrl+R resets it; Ctrl+B bakes the level, Ctrl+K keeps the preview's water. With the Body tool (K), W, E and R pick the gizmo's mode and
//! Ctrl+D duplicates the selected body.

use egui::{Key, KeyboardShortcut, Modifiers};

use super::EditorApp;
use super::actions::Action;
use super::gizmo::GizmoMode;
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
const LETTERS: [(Key, Tool); 8] = [
    (Key::I, Tool::Source),
    (Key::O, Tool::Sink),
    (Key::B, Tool::Boundary),
    (Key::P, Tool::Water),
    (Key::L, Tool::FillBasin),
    (Key::G, Tool::Gate),
    (Key::K, Tool::Body),
    (Key::N, Tool::Roughness),
];

/// The gizmo mode keys of the Body tool (W, E and R, as in most 3D tools; not while flying).
const GIZMO_KEYS: [(Key, GizmoMode); 3] = [
    (Key::W, GizmoMode::Move),
    (Key::E, GizmoMode::Rotate),
    (Key::R, GizmoMode::Scale),
];

/// Carries out the shortcuts pressed this frame (none while a dialog is open or a text field
/// has the keyboard).
pub(crate) fn handle(app: &mut EditorApp, ctx: &egui::Context) {
    let busy = app.bake.is_some() || app.file_task.is_some();
    if app.dialog.is_some() || busy || ctx.egui_wants_keyboard_input() {
        return;
    }
    let mut actions = Vec::new();
    ctx.input_mut(|i| {
        for (shortcut, action) in CHORDS {
            if i.consume_shortcut(&shortcut.keys()) {
                actions.push(action());
            }
        }
    });
    for action in actions {
        app.request(action);
    }
    let flying = ctx.input(|i| i.pointer.secondary_down());
    let (letter, delete) = ctx.input_mut(|i| {
        let letter = LETTERS
            .iter()
            .find(|(k, _)| i.consume_key(Modifiers::NONE, *k))
            .map(|(_, tool)| *tool);
        let delete = i.consume_key(Modifiers::NONE, Key::Delete)
            || i.consume_key(Modifiers::NONE, Key::Backspace);
        (letter, delete)
    });
    if app.sculpt.tool == Tool::Body {
        let (mode, duplicate) = ctx.input_mut(|i| {
            let mode = GIZMO_KEYS
                .iter()
                .find(|(k, _)| !flying && i.consume_key(Modifiers::NONE, *k))
                .map(|(_, m)| *m);
            (mode, i.consume_key(Modifiers::COMMAND, Key::D))
        });
        if let Some(mode) = mode {
            app.bodies.mode = mode;
        }
        if duplicate && let Some(n) = app.bodies.duplicate(&mut app.document) {
            app.notify(n, false);
        }
    }
    let (play, step, restart) = ctx.input_mut(|i| {
        (
            i.consume_key(Modifiers::NONE, Key::Space),
            i.consume_key(Modifiers::NONE, Key::Period),
            i.consume_key(Modifiers::COMMAND, Key::R),
        )
    });
    if play {
        if app.preview.playing {
            app.preview.pause();
        } else {
            app.preview.play();
        }
    }
    if step {
        app.preview.step_once();
    }
    if restart {
        app.preview.reset();
    }
    let (grow, shrink, frame, reset, escape, digit) = ctx.input_mut(|i| {
        let digit = DIGITS
            .iter()
            .position(|k| i.consume_key(Modifiers::NONE, *k));
        (
            i.count_and_consume_key(Modifiers::NONE, Key::CloseBracket),
            i.count_and_consume_key(Modifiers::NONE, Key::OpenBracket),
            !flying && i.consume_shortcut(&Shortcut::Frame.keys()),
            i.consume_shortcut(&Shortcut::ResetView.keys()),
            i.consume_key(Modifiers::NONE, Key::Escape),
            digit,
        )
    });
    for _ in 0..grow {
        app.sculpt.brush.grow();
    }
    for _ in 0..shrink {
        app.sculpt.brush.shrink();
    }
    if frame {
        app.viewport.frame_on_next_frame();
    }
    if reset {
        app.viewport.reset_on_next_frame();
    }
    if escape {
        if let Some(stroke) = app.sculpt.stroke.take() {
            stroke.cancel(&mut app.document);
            app.notify("Stroke cancelled", false);
        } else if app.authoring.cancel(&mut app.document) || app.bodies.cancel(&mut app.document) {
            app.notify("Cancelled", false);
        } else {
            app.authoring.selection = None;
            app.bodies.selected = None;
        }
    }
    if delete && app.sculpt.tool == Tool::Body {
        if let Some(name) = app.bodies.delete(&mut app.document) {
            app.notify(format!("Deleted {name}"), false);
        }
    } else if delete {
        app.delete_selection();
    }
    if let Some(tool) = digit.and_then(|d| Tool::SCULPT.get(d)) {
        app.sculpt.tool = *tool;
    }
    if let Some(tool) = letter {
        app.sculpt.tool = tool;
    }
}
