//! `spillway-game`: a small windowed game on a Spillway level: fly over the level the editor
//! exported while its water runs on the GPU solver in real time, drop crates into it and open
//! its gates. It draws with the editor's renderer (`spillway-render`), so it looks as the
//! editor's preview does.
//!
//! ```text
//! cargo run -p spillway-game --release [-- LEVEL.ron] [--frames N]
//!     [--screenshot PATH] [--demo] [--warmup SECONDS]
//! ```
//!
//! Without a level it loads `projects/crate_dam/level.ron`, baked by the editor with its river
//! already flowing against a row of crates. A baked level starts with its rivers flowing (the
//! start-up line says whether the level is baked); `--warmup SECONDS` runs the water ahead
//! before the first frame, for levels that are not. The level's gates open with G; a level
//! without gates gets one, `dam`, a wall across the map in front of its outlet
//! (see `state::add_gate_if_none`).
//!
//! Controls: WASD fly, Q/E down/up, Shift faster, the wheel closer (and slower) or further,
//! drag with the left mouse button to look,
//! Space drops a crate where you look, G opens the gates, F starts the stopped sources and
//! sinks, B starts the breaches (the level's triggers by name), Escape quits. The title bar shows
//! the frame rate, the water volume and simulated time (from the solver's asynchronous
//! stats), the gates open and the crates.
//!
//! What runs where:
//! - the water: [`spillway::gpu::GpuSimulation`] on the window's own device, stepped every
//!   frame by the real time elapsed in whole steps of the level's `dt` (with `--frames`, by a
//!   fixed 1/60 s a frame), drawn straight from its buffers by
//!   [`spillway_render::TerrainRenderer`], the renderer of the editor's viewport;
//! - the rigid bodies, the level's placed ones and the crates dropped (`assets/crate.glb`):
//!   rapier bodies in a [`spillway::body::world::BodyWorld`] coupled both ways to that same
//!   GPU water (blockers, floaters, buoyancy and drag; see `bodies.rs`), meshes imported
//!   with [`spillway::body::import`].
//!
//! For a check without a screen: `--frames N` runs N frames and exits, `--screenshot PATH`
//! writes the last one as a PNG, and `--demo` drops a few crates and opens the gates on the
//! way, e.g. under Xvfb:
//!
//! ```text
//! xvfb-run -a -s "-screen 0 1280x720x24" cargo run -p spillway-game -- \
//!     --frames 120 --screenshot /tmp/game.png --demo
//! ```

mod window;

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use spillway::level::file;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::WindowId;

use spillway_game::add_gate_if_none;
use spillway_game::player::Player;
use spillway_game::state::MAX_CATCH_UP;
use window::Gfx;

/// Simulated seconds per frame with `--frames` (reproducible whatever the machine's speed).
const FIXED_FRAME: f64 = 1.0 / 60.0;

/// Command-line options.
struct Options {
    level: PathBuf,
    frames: Option<u64>,
    screenshot: Option<PathBuf>,
    demo: bool,
    warmup: f64,
}

const USAGE: &str = "usage: game [LEVEL.ron] [--frames N] [--screenshot PATH] [--demo] \
                     [--warmup SECONDS]";

/// The workspace root (the sample projects and assets live there).
fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Parses the arguments; `Ok(None)` for `--help`.
fn parse_args() -> Result<Option<Options>, String> {
    let mut opts = Options {
        level: workspace().join("projects/crate_dam/level.ron"),
        frames: None,
        screenshot: None,
        demo: false,
        warmup: 0.0,
    };
    let mut args = std::env::args().skip(1);
    let mut level = None;
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value\n{USAGE}"));
        match a.as_str() {
            "-h" | "--help" => return Ok(None),
            "--frames" => {
                let v = value("--frames")?;
                let n = (v.parse().ok())
                    .filter(|&n: &u64| n > 0)
                    .ok_or(format!("--frames: `{v}` is not a count of one or more"))?;
                opts.frames = Some(n);
            }
            "--screenshot" => opts.screenshot = Some(value("--screenshot")?.into()),
            "--demo" => opts.demo = true,
            "--warmup" => {
                let v = value("--warmup")?;
                opts.warmup = v
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .ok_or(format!("--warmup: `{v}` is not a number of seconds"))?;
            }
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`\n{USAGE}")),
            s if level.is_none() => level = Some(PathBuf::from(s)),
            s => return Err(format!("unexpected argument `{s}`\n{USAGE}")),
        }
    }
    if opts.screenshot.is_some() && opts.frames.is_none() {
        return Err(format!("--screenshot needs --frames N\n{USAGE}"));
    }
    if let Some(shot) = &opts.screenshot {
        // Said now, not after the whole run.
        let png = shot
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"));
        let parent = shot.parent().filter(|p| !p.as_os_str().is_empty());
        if !png {
            return Err(format!(
                "--screenshot: `{}` must be a .png file",
                shot.display()
            ));
        }
        if parent.is_some_and(|p| !p.is_dir()) {
            return Err(format!(
                "--screenshot: the folder of `{}` does not exist",
                shot.display()
            ));
        }
    }
    if let Some(l) = level {
        opts.level = l;
    }
    Ok(Some(opts))
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let Some(opts) = parse_args()? else {
        println!("{USAGE}");
        return Ok(());
    };
    // Validated: every error names the file, the place and the reason.
    let mut level = file::load(&opts.level)?;
    match &level.flow {
        Some(f) => println!(
            "{}: baked at t = {:.1} s, the water starts flowing",
            opts.level.display(),
            f.time
        ),
        None => println!(
            "{}: not baked, the water starts from its authored state{}",
            opts.level.display(),
            if opts.warmup > 0.0 {
                format!(" and runs {} s ahead", opts.warmup)
            } else {
                String::new()
            }
        ),
    }
    if add_gate_if_none(&mut level) {
        println!(
            "the level has no gate: added `dam` across the map before its outlet (G opens it)"
        );
    }
    let event_loop = EventLoop::new().map_err(|e| format!("cannot open a window: {e}"))?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let mut app = App::new(opts, level);
    event_loop.run_app(&mut app)?;
    match app.error.take() {
        Some(e) => Err(e),
        None => {
            println!("{} frames", app.frames);
            Ok(())
        }
    }
}

/// The winit application: input, the frame loop and the exit.
struct App {
    opts: Options,
    level: Option<spillway::Level>,
    gfx: Option<Gfx>,
    error: Option<Box<dyn Error>>,
    player: Option<Player>,
    /// Where the camera started, to report how far the player flew.
    start_eye: spillway_render::math::Vec3,
    dragging: bool,
    cursor: Option<(f64, f64)>,
    frames: u64,
    start: Instant,
    last: Instant,
    /// Frames and start of the current frame-rate window.
    fps_window: (u32, Instant),
    fps: f32,
}

impl App {
    fn new(opts: Options, level: spillway::Level) -> Self {
        let now = Instant::now();
        Self {
            opts,
            level: Some(level),
            gfx: None,
            error: None,
            player: None,
            start_eye: Default::default(),
            dragging: false,
            cursor: None,
            frames: 0,
            start: now,
            last: now,
            fps_window: (0, now),
            fps: 0.0,
        }
    }

    /// Stops the game with `e` as its result.
    fn fail(&mut self, event_loop: &ActiveEventLoop, e: Box<dyn Error>) {
        self.error.get_or_insert(e);
        event_loop.exit();
    }

    /// Starts the game: window, device, water, camera, and the warm-up.
    fn start(&mut self, event_loop: &ActiveEventLoop) -> Result<(), Box<dyn Error>> {
        let Some(level) = self.level.take() else {
            return Ok(());
        };
        let mut gfx = Gfx::new(event_loop, &self.opts, level)?;
        let size = gfx.window.inner_size();
        let aspect = size.width.max(1) as f32 / size.height.max(1) as f32;
        let player = Player::overlooking(&gfx.game.bounds(), aspect);
        self.start_eye = player.camera.eye();
        self.player = Some(player);
        let mut left = self.opts.warmup;
        while left > 0.0 {
            gfx.game.advance(left.min(0.25))?;
            left -= 0.25;
        }
        self.start = Instant::now();
        self.last = self.start;
        self.fps_window = (0, self.start);
        self.gfx = Some(gfx);
        Ok(())
    }

    /// One frame: input, water steps, drawing, HUD, and the scripted end with `--frames`.
    fn frame(&mut self, event_loop: &ActiveEventLoop) -> Result<(), Box<dyn Error>> {
        let (Some(gfx), Some(player)) = (self.gfx.as_mut(), self.player.as_mut()) else {
            return Ok(());
        };
        let now = Instant::now();
        let scripted = self.opts.frames;
        // Real time, or a fixed frame time with `--frames`.
        // A stall (the window dragged, the process stopped) counts as one long frame at
        // most: the water catches up no more than that, and the eye flies no further.
        let elapsed = match scripted {
            Some(_) => FIXED_FRAME,
            None => (now - self.last).as_secs_f64().min(MAX_CATCH_UP),
        };
        self.last = now;
        if let Some(n) = scripted
            && self.opts.demo
        {
            // Five crates side by side early on, the gates open halfway, and meanwhile the
            // camera flies ahead for a closer look.
            if (10..=50).contains(&self.frames) && self.frames.is_multiple_of(10) {
                let side = (self.frames as f32 / 10.0 - 3.0) * 3.0;
                gfx.game.drop_crate(&player.camera, side);
            }
            if self.frames == n / 2 {
                gfx.game.open_gates()?;
            }
            player.held.forward = self.frames > 50 && self.frames <= 50 + 30;
        }
        player.fly(elapsed as f32);
        let cam = &player.camera;
        gfx.game.advance(elapsed)?;
        // Frames stepped, what `--frames` and the demo count: a frame the window could not
        // show (hidden, resized) still moved the water, and must not drop the same crate again.
        self.frames += 1;
        let time = (now - self.start).as_secs_f32();
        if gfx.present(cam, time)? {
            self.fps_window.0 += 1;
        }
        let window = (now - self.fps_window.1).as_secs_f32();
        if window >= 0.5 {
            self.fps = self.fps_window.0 as f32 / window;
            self.fps_window = (0, now);
            gfx.window.set_title(&gfx.game.hud(self.fps));
        }
        if scripted.is_some_and(|n| self.frames >= n) {
            println!("{}", gfx.game.hud(self.fps));
            if let Some(path) = &self.opts.screenshot {
                gfx.screenshot(cam, time, path)?;
            }
            event_loop.exit();
        }
        Ok(())
    }

    /// A key went down or up.
    fn key(&mut self, code: KeyCode, down: bool, repeat: bool) -> Result<bool, Box<dyn Error>> {
        let Some(player) = self.player.as_mut() else {
            return Ok(true);
        };
        let h = &mut player.held;
        match code {
            KeyCode::KeyW | KeyCode::ArrowUp => h.forward = down,
            KeyCode::KeyS | KeyCode::ArrowDown => h.back = down,
            KeyCode::KeyA | KeyCode::ArrowLeft => h.left = down,
            KeyCode::KeyD | KeyCode::ArrowRight => h.right = down,
            KeyCode::KeyQ => h.down = down,
            KeyCode::KeyE => h.up = down,
            KeyCode::ShiftLeft | KeyCode::ShiftRight => h.fast = down,
            KeyCode::Escape if down => {
                // What the player did, for whoever ran the game (and the input test).
                if let Some(gfx) = self.gfx.as_ref() {
                    println!("{}", gfx.game.hud(self.fps));
                    let d = (player.camera.eye() - self.start_eye).length();
                    println!("flew {d:.1} m from the start");
                }
                return Ok(false);
            }
            KeyCode::Space if down && !repeat => {
                if let Some(gfx) = self.gfx.as_mut() {
                    gfx.game.drop_crate(&player.camera, 0.0);
                    println!("dropped a crate ({} now)", gfx.game.crates());
                }
            }
            KeyCode::KeyG if down && !repeat => {
                if let Some(gfx) = self.gfx.as_mut() {
                    let opened = gfx.game.open_gates()?;
                    println!("opened {opened} gate(s)");
                }
            }
            KeyCode::KeyB if down && !repeat => {
                if let Some(gfx) = self.gfx.as_mut() {
                    let started = gfx.game.start_breaches()?;
                    println!("started {started} breach(es)");
                }
            }
            KeyCode::KeyF if down && !repeat => {
                if let Some(gfx) = self.gfx.as_mut() {
                    let started = gfx.game.start_stopped()?;
                    println!("started {started} stopped source(s) and sink(s)");
                }
            }
            _ => {}
        }
        Ok(true)
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if let Err(e) = self.start(event_loop) {
            self.fail(event_loop, e);
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let result = match event {
            WindowEvent::CloseRequested => {
                event_loop.exit();
                Ok(())
            }
            WindowEvent::Resized(_) => {
                if let Some(gfx) = self.gfx.as_mut() {
                    gfx.resize();
                }
                Ok(())
            }
            WindowEvent::KeyboardInput { event, .. } => match event.physical_key {
                PhysicalKey::Code(code) => {
                    let down = event.state == ElementState::Pressed;
                    match self.key(code, down, event.repeat) {
                        Ok(false) => {
                            event_loop.exit();
                            Ok(())
                        }
                        other => other.map(|_| ()),
                    }
                }
                PhysicalKey::Unidentified(_) => Ok(()),
            },
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => {
                self.dragging = state == ElementState::Pressed;
                Ok(())
            }
            WindowEvent::CursorMoved { position, .. } => {
                if let (true, Some((x, y)), Some(player)) =
                    (self.dragging, self.cursor, self.player.as_mut())
                {
                    player.turn((position.x - x) as f32, (position.y - y) as f32);
                }
                self.cursor = Some((position.x, position.y));
                Ok(())
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let scroll = match delta {
                    MouseScrollDelta::LineDelta(_, lines) => lines * 50.0,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32,
                };
                if let (Some(player), Some(gfx)) = (self.player.as_mut(), self.gfx.as_ref()) {
                    player.zoom(scroll, &gfx.game.bounds());
                }
                Ok(())
            }
            WindowEvent::Focused(false) => {
                // Keys released while another window has the focus never arrive here.
                if let Some(player) = self.player.as_mut() {
                    player.held = Default::default();
                }
                self.dragging = false;
                Ok(())
            }
            WindowEvent::RedrawRequested => self.frame(event_loop),
            _ => Ok(()),
        };
        if let Err(e) = result {
            self.fail(event_loop, e);
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        if let Some(gfx) = &self.gfx {
            gfx.window.request_redraw();
        }
    }
}
