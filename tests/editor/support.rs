//! Shared set-up: an editor harness on a temporary project, and input helpers.

use std::path::{Path, PathBuf};
use std::time::Duration;

use egui::{Event, Modifiers, PointerButton, Pos2};
use egui_kittest::Harness;
use spillway::{Grid, Level};
use spillway_editor::app::{EditorApp, EditorOptions};
use spillway_editor::project::{ConfigPaths, ScriptedDialogs};

/// Window size of every test, points.
pub const WINDOW: egui::Vec2 = egui::vec2(1000.0, 700.0);

/// An editor under test, with its scripted file dialogs and its private folder.
pub struct Editor {
    /// The harness driving the app.
    pub harness: Harness<'static, EditorApp>,
    /// Answers to the next file dialogs.
    pub dialogs: ScriptedDialogs,
    /// The project and configuration folder (deleted at the end of the test).
    pub dir: tempfile::TempDir,
}

/// A gentle, bumpy 96 × 80 level of 1 m cells: every cell height different, so undo mistakes
/// show.
pub fn bumpy_level() -> Level {
    let mut level = Level::flat(96, 80, 1.0, 0.0);
    level.name = "test hills".into();
    level.terrain = Grid::from_fn(96, 80, |x, y| {
        let (fx, fy) = (x as f32, y as f32);
        2.0 + 1.5 * (fx * 0.11).sin() * (fy * 0.07).cos() + 0.001 * ((x * 7 + y * 13) % 17) as f32
    });
    level
}

/// Saves `level` as `level.ron` in `dir`.
pub fn save_level(level: &Level, dir: &Path) -> PathBuf {
    let path = dir.join("level.ron");
    spillway::level::file::save(level, &path).expect("save the test level");
    path
}

/// A dynamic crate of 2500 kg/m³ named `name` whose glTF file is `gltf` (relative to its
/// level), unrotated and unscaled at `at`.
pub fn crate_body(name: &str, gltf: &str, at: [f32; 3]) -> spillway::level::Body {
    spillway::level::Body {
        name: name.into(),
        gltf: gltf.into(),
        translation: at,
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
        density: 2500.0,
        dynamic: true,
        coupling: Default::default(),
        collider: Default::default(),
    }
}

/// `level` saved as a project in a fresh folder with the bundled crate's mesh beside it as
/// `crate.glb`, and the editor opened on it.
pub fn editor_with_crate_file(level: &Level) -> Editor {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = save_level(level, dir.path());
    let crate_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/crate.glb");
    std::fs::copy(crate_file, dir.path().join("crate.glb")).expect("copy the crate");
    editor_in(dir, Some(path))
}

/// Starts the editor on `level` (saved as a project in a fresh folder), with a GPU renderer.
pub fn editor_with(level: &Level) -> Editor {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = save_level(level, dir.path());
    editor_in(dir, Some(path))
}

/// Starts the editor in `dir` (its configuration folder too), opening `project`.
pub fn editor_in(dir: tempfile::TempDir, project: Option<PathBuf>) -> Editor {
    editor_in_with(
        dir,
        project,
        spillway_editor::app::BACKGROUND_BYTES,
        1.0 / 60.0,
    )
}

/// Starts the editor on `level` with frames `frame_seconds` apart (a slow machine).
pub fn editor_with_frames_of(level: &Level, frame_seconds: f32) -> Editor {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = save_level(level, dir.path());
    let bytes = spillway_editor::app::BACKGROUND_BYTES;
    editor_in_with(dir, Some(path), bytes, frame_seconds)
}

/// Starts the editor on `level` with the autosave due at every frame of unsaved work.
pub fn editor_autosaving(level: &Level) -> Editor {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = save_level(level, dir.path());
    let bytes = spillway_editor::app::BACKGROUND_BYTES;
    start(dir, Some(path), bytes, 1.0 / 60.0, Duration::ZERO)
}

/// Starts the editor on `level` with file work above `background_bytes` in the background.
pub fn editor_with_background(level: &Level, background_bytes: u64) -> Editor {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = save_level(level, dir.path());
    editor_in_with(dir, Some(path), background_bytes, 1.0 / 60.0)
}

fn editor_in_with(
    dir: tempfile::TempDir,
    project: Option<PathBuf>,
    background_bytes: u64,
    frame_seconds: f32,
) -> Editor {
    let hour = Duration::from_secs(3600);
    start(dir, project, background_bytes, frame_seconds, hour)
}

fn start(
    dir: tempfile::TempDir,
    project: Option<PathBuf>,
    background_bytes: u64,
    frame_seconds: f32,
    autosave_interval: Duration,
) -> Editor {
    let dialogs = ScriptedDialogs::new();
    let options = EditorOptions {
        project,
        config: Some(ConfigPaths::in_dir(&dir.path().join("config"))),
        dialogs: Box::new(dialogs.clone()),
        autosave_interval,
        history_budget: 64 << 20,
        background_bytes,
    };
    let mut harness = Harness::builder()
        .with_size(WINDOW)
        .with_step_dt(frame_seconds)
        .wgpu()
        .build_eframe(move |cc| EditorApp::new(cc, options));
    harness.run_steps(3);
    Editor {
        harness,
        dialogs,
        dir,
    }
}

impl Editor {
    /// The terrain heights now.
    pub fn terrain(&self) -> Vec<f32> {
        self.harness.state().document().level().terrain.data.clone()
    }

    /// A point of the viewport, as a fraction of its width and height.
    pub fn at(&self, fx: f32, fy: f32) -> Pos2 {
        let r = self.harness.state().viewport_rect();
        egui::pos2(r.min.x + r.width() * fx, r.min.y + r.height() * fy)
    }

    /// Where the ground at world point `(x, y)` appears in the window.
    pub fn screen(&self, x: f32, y: f32) -> Pos2 {
        let level = self.harness.state().document().level();
        let z = level
            .terrain
            .sample(x / level.cell_size, y / level.cell_size);
        self.harness
            .state()
            .screen_pos([x, y, z])
            .expect("the point is in front of the camera")
    }

    /// Clicks the left button at `p` (press and release without moving). Returns the terrain
    /// point under it.
    pub fn click_at(&mut self, p: Pos2) -> [f32; 3] {
        self.drag(&[p], Modifiers::NONE)[0]
    }

    /// Runs `n` frames.
    pub fn frames(&mut self, n: usize) {
        self.harness.run_steps(n);
    }

    /// Presses the left button at `path[0]`, moves through `path` one point a frame and
    /// releases at the last, holding `modifiers`. Returns the terrain points under the path.
    pub fn drag(&mut self, path: &[Pos2], modifiers: Modifiers) -> Vec<[f32; 3]> {
        let picks = path
            .iter()
            .map(|p| {
                self.harness
                    .state()
                    .pick(*p)
                    .expect("the path is over the terrain")
            })
            .collect();
        self.drag_anywhere(path, modifiers);
        picks
    }

    /// As [`Self::drag`], with a path that may leave the terrain.
    pub fn drag_anywhere(&mut self, path: &[Pos2], modifiers: Modifiers) {
        let h = &mut self.harness;
        h.event(Event::ModifiersChanged(modifiers));
        h.event(Event::PointerMoved(path[0]));
        h.step();
        h.event(Event::PointerButton {
            pos: path[0],
            button: PointerButton::Primary,
            pressed: true,
            modifiers,
        });
        h.step();
        for p in &path[1..] {
            h.event(Event::PointerMoved(*p));
            h.step();
        }
        h.event(Event::PointerButton {
            pos: *path.last().expect("a path"),
            button: PointerButton::Primary,
            pressed: false,
            modifiers,
        });
        h.event(Event::ModifiersChanged(Modifiers::NONE));
        h.step();
        h.run_steps(2);
    }

    /// Escape while the pointer holds a field pressed at `at`, then the drag goes on 90 px and
    /// is let go.
    pub fn escape_mid_drag(&mut self, at: Pos2) {
        self.harness.key_press(egui::Key::Escape);
        self.harness.step();
        let end = at + egui::vec2(90.0, 0.0);
        self.move_to(end);
        self.press_or_release(false, end);
        self.frames(3);
    }

    /// Presses the left button on the middle of the number field showing `value` (and holds
    /// it). Returns where.
    pub fn press_field(&mut self, value: f64) -> Pos2 {
        use egui_kittest::kittest::{NodeT, Queryable};
        let b = self
            .harness
            .get_all_by_role(egui::accesskit::Role::SpinButton)
            .find(|n| {
                n.accesskit_node()
                    .numeric_value()
                    .is_some_and(|v| (v - value).abs() < 1e-3)
            })
            .unwrap_or_else(|| panic!("a field showing {value}"))
            .accesskit_node()
            .bounding_box()
            .expect("laid out");
        let at = egui::pos2((b.x0 + b.x1) as f32 / 2.0, (b.y0 + b.y1) as f32 / 2.0);
        self.harness.event(Event::PointerMoved(at));
        self.harness.step();
        self.press_or_release(true, at);
        at
    }

    /// Moves the pointer to `p` (a button held drags), then runs a frame.
    pub fn move_to(&mut self, p: Pos2) {
        self.harness.event(Event::PointerMoved(p));
        self.harness.step();
    }

    /// Types `to` over the text field showing `from` (click, select all, type, Enter).
    pub fn retype(&mut self, from: &str, to: &str) {
        use egui_kittest::kittest::{NodeT, Queryable};
        (self.harness.get_all_by_value(from))
            .find(|n| n.accesskit_node().role() == egui::accesskit::Role::TextInput)
            .unwrap_or_else(|| panic!("a text field showing {from:?}"))
            .click();
        self.frames(2);
        self.key(Modifiers::COMMAND, egui::Key::A);
        self.harness.event(Event::Text(to.into()));
        self.key(Modifiers::NONE, egui::Key::Enter);
        self.frames(3);
    }

    /// Presses (or lets go of) the left button at `p`, then runs a frame.
    pub fn press_or_release(&mut self, pressed: bool, p: Pos2) {
        self.harness.event(Event::PointerButton {
            pos: p,
            button: PointerButton::Primary,
            pressed,
            modifiers: Modifiers::NONE,
        });
        self.harness.step();
    }

    /// Clicks the left button at window point `p` (anywhere: a widget, not only the
    /// terrain), then runs a few frames.
    pub fn click_screen(&mut self, p: Pos2) {
        let h = &mut self.harness;
        h.event(Event::PointerMoved(p));
        h.step();
        for pressed in [true, false] {
            h.event(Event::PointerButton {
                pos: p,
                button: PointerButton::Primary,
                pressed,
                modifiers: Modifiers::NONE,
            });
            h.step();
        }
        h.run_steps(2);
    }

    /// Clicks the window's close button (the window asks the app first).
    pub fn close_window(&mut self) {
        self.harness
            .input_mut()
            .viewports
            .entry(egui::ViewportId::ROOT)
            .or_default()
            .events
            .push(egui::ViewportEvent::Close);
    }

    /// Presses a key with modifiers, then runs a frame.
    pub fn key(&mut self, modifiers: Modifiers, key: egui::Key) {
        self.harness.key_press_modifiers(modifiers, key);
        self.harness.run_steps(2);
    }

    /// Clicks the one widget whose label contains `text` (menu items carry their shortcut in
    /// the label), then runs a few frames.
    pub fn click_contains(&mut self, text: &str) {
        use egui_kittest::kittest::Queryable;
        self.harness.get_by_label_contains(text).click();
        self.harness.run_steps(3);
    }

    /// Clicks the widget labelled `label`, then runs a few frames.
    pub fn click(&mut self, label: &str) {
        use egui_kittest::kittest::Queryable;
        self.harness.get_by_label(label).click();
        self.harness.run_steps(3);
    }
}

/// Points evenly spaced from `a` to `b`, `n` of them.
pub fn line(a: Pos2, b: Pos2, n: usize) -> Vec<Pos2> {
    (0..n)
        .map(|i| a + (b - a) * (i as f32 / (n - 1) as f32))
        .collect()
}

/// Distance from `(x, y)` to the polyline through `points` (x, y of each).
pub fn distance_to_path(x: f32, y: f32, points: &[[f32; 3]]) -> f32 {
    let mut best = f32::INFINITY;
    for w in points.windows(2) {
        let (ax, ay, bx, by) = (w[0][0], w[0][1], w[1][0], w[1][1]);
        let (dx, dy) = (bx - ax, by - ay);
        let len2 = dx * dx + dy * dy;
        let t = if len2 > 0.0 {
            (((x - ax) * dx + (y - ay) * dy) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        best = best.min(((x - ax - t * dx).powi(2) + (y - ay - t * dy).powi(2)).sqrt());
    }
    best
}

/// A 200 m × 20 m river of 2 m cells on a 0.5 % slope, fed 20 m³/s from the west, leaving by
/// the east edge, already flowing 0.5 m deep.
pub fn river() -> Level {
    let (nx, ny, dx) = (100, 10, 2.0);
    let mut level = Level::flat(nx, ny, dx, 0.0);
    level.terrain = spillway::Grid::from_fn(nx, ny, |i, _| 0.005 * (200.0 - (i as f32 + 0.5) * dx));
    level.water = spillway::Grid::filled(nx, ny, 0.5);
    level.params.friction = spillway::level::Friction::Manning { n: 0.035 };
    level.params.dt = 0.02;
    for (edge, kind) in [
        (
            spillway::level::Edge::West,
            spillway::level::BoundaryKind::Inflow { m3_per_s: 20.0 },
        ),
        (
            spillway::level::Edge::East,
            spillway::level::BoundaryKind::Open,
        ),
    ] {
        level.boundaries.push(spillway::level::Boundary {
            edge,
            start: 0,
            end: ny as u32,
            kind,
        });
    }
    level
}

/// A device on the machine's adapter (lavapipe in CI) with the limits a level of `nx` × `ny`
/// cells needs.
pub fn gpu_device(nx: usize, ny: usize) -> (wgpu::Device, wgpu::Queue) {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapter =
        pollster::block_on(instance.request_adapter(&Default::default())).expect("a GPU adapter");
    let desc = wgpu::DeviceDescriptor {
        required_limits: spillway::gpu::required_limits(nx, ny),
        ..Default::default()
    };
    pollster::block_on(adapter.request_device(&desc)).expect("a device")
}

/// How many pixels of two RGBA frames differ by more than 8 in some channel.
pub fn changed_pixels(a: &[u8], b: &[u8]) -> usize {
    (a.chunks_exact(4).zip(b.chunks_exact(4)))
        .filter(|(p, q)| p.iter().zip(*q).any(|(x, y)| x.abs_diff(*y) > 8))
        .count()
}
