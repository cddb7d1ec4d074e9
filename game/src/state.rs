//! The game's state: the level, its water on the GPU, the level's placed bodies, the dropped
//! crates, the gates, the stats the HUD shows, and the editor's renderer
//! ([`spillway_render::TerrainRenderer`]) drawing them from the solver's buffers.

use std::error::Error;
use std::path::Path;

use spillway::gpu::GpuSimulation;
use spillway::level::{BoundaryKind, Edge, Gate, Shape, StructureKind};
use spillway::sim::closed_ground;
use spillway::{CellRect, Level};
use spillway_render::math::Vec3;
use spillway_render::{
    BodyInstance, Bounds, Camera, Dirty, MeshId, Overlays, Scene, TerrainRenderer, WaterStyle,
    level_bounds,
};

use crate::bodies::Bodies;

/// Most simulated seconds one frame catches up (a slow frame does not snowball).
pub const MAX_CATCH_UP: f64 = 0.25;

/// Closes the level with a gate where it has none, so G has something to open: a wall across
/// the map in front of the level's first open edge (4 cells inside it), so the rivers keep
/// flowing through the level and pool only before the outlet; without an open edge, at 30 % of
/// the width (as the `headless` example does). 1 m above the highest ground along it. A level
/// with structures has its own events (B starts its breaches) and gets none. Returns whether it
/// added one.
pub fn add_gate_if_none(level: &mut Level) -> bool {
    if !level.gates.is_empty() || !level.structures.is_empty() {
        return false;
    }
    let (nx, ny, dx) = (level.nx(), level.ny(), level.cell_size);
    let outlet = level
        .boundaries
        .iter()
        .find(|b| b.kind == BoundaryKind::Open)
        .map(|b| b.edge);
    // The wall's first column (vertical wall) or row (horizontal wall).
    let (vertical, at) = match outlet {
        Some(Edge::East) => (true, nx.saturating_sub(6)),
        Some(Edge::West) => (true, 4.min(nx - 1)),
        Some(Edge::South) => (false, ny.saturating_sub(6)),
        Some(Edge::North) => (false, 4.min(ny - 1)),
        None => (true, (0.3 * nx as f32) as usize),
    };
    let t = &level.terrain.data;
    let (shape, line): (Shape, Vec<f32>) = if vertical {
        let line = (0..ny).flat_map(|j| [t[j * nx + at], t[j * nx + (at + 1).min(nx - 1)]]);
        let x0 = at as f32 * dx;
        let shape = Shape::Box {
            x0,
            y0: 0.0,
            x1: x0 + 2.0 * dx,
            y1: ny as f32 * dx,
        };
        (shape, line.collect())
    } else {
        let line = (0..nx).flat_map(|i| [t[at * nx + i], t[(at + 1).min(ny - 1) * nx + i]]);
        let y0 = at as f32 * dx;
        let shape = Shape::Box {
            x0: 0.0,
            y0,
            x1: nx as f32 * dx,
            y1: y0 + 2.0 * dx,
        };
        (shape, line.collect())
    };
    let crest = line.iter().fold(f32::MIN, |a, &b| a.max(b)) + 1.0;
    level.gates.push(Gate {
        name: "dam".into(),
        shape,
        crest,
        open_at: None,
    });
    true
}

/// Everything the game simulates and draws.
pub struct Game {
    level: Level,
    /// What the renderer draws: the level with its closed gates standing on the terrain.
    shown: Level,
    sim: GpuSimulation,
    renderer: TerrainRenderer,
    bodies: Bodies,
    /// Lowest and highest terrain.
    heights: (f32, f32),
    /// Simulated seconds owed to real time.
    owed: f64,
    /// The latest asynchronous stats: simulated time and water volume (m³).
    stats: Option<(f64, f64)>,
    /// Simulated time of the next read of the ground, while the level has breaches (infinite
    /// without).
    next_ground_read: f64,
    /// Whether each gate was open when the ground was last drawn and given to the bodies.
    gates_open: Vec<bool>,
}

impl Game {
    /// Builds the GPU water of `level` (loaded from `dir`) on `device`, drawing into targets of
    /// `format`; crate assets come from `assets_root`.
    pub fn new(
        level: Level,
        dir: &Path,
        assets_root: &Path,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        format: wgpu::TextureFormat,
    ) -> Result<Self, Box<dyn Error>> {
        let sim = GpuSimulation::new(&level, device, queue)?;
        Self::on(level, sim, dir, assets_root, format)
    }

    /// The game of `level` without a window, on a GPU device of its own, drawing off screen
    /// ([`Self::snapshot`]) in `spillway_render::target::COLOUR_FORMAT`, as the editor does:
    /// for tests and thumbnails.
    pub fn headless(level: Level, dir: &Path, assets_root: &Path) -> Result<Self, Box<dyn Error>> {
        let sim = GpuSimulation::headless(&level)?;
        Self::on(
            level,
            sim,
            dir,
            assets_root,
            spillway_render::target::COLOUR_FORMAT,
        )
    }

    /// The game of `level` on `sim`'s device.
    fn on(
        level: Level,
        mut sim: GpuSimulation,
        dir: &Path,
        assets_root: &Path,
        format: wgpu::TextureFormat,
    ) -> Result<Self, Box<dyn Error>> {
        // The deepest water each cell has held: the renderer darkens the ground it wetted.
        sim.record_maps()?;
        let (device, queue) = (sim.device().clone(), sim.queue().clone());
        let heights = level
            .terrain
            .data
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), &h| (lo.min(h), hi.max(h)));
        let crate_size = level.cell_size.clamp(1.0, 3.0);
        let bodies = Bodies::new(&level, dir, &sim, assets_root, crate_size)?;
        let mut renderer = TerrainRenderer::with_format(&device, &queue, format);
        for (i, mesh) in bodies.meshes().iter().enumerate() {
            renderer.upload_body_mesh(MeshId(i as u32), mesh);
        }
        let level_has_breaches = level
            .structures
            .iter()
            .any(|s| matches!(s.kind, StructureKind::Breach { .. }));
        // The ground the water moves: breaches cut it, a moving bed carves it.
        let ground_moves = level_has_breaches || level.params.sediment.is_some();
        let mut shown = level.clone();
        shown.terrain.data = closed_ground(&level);
        renderer.sync(&shown, &Dirty::everything());
        if let Some(e) = renderer.error() {
            return Err(e.to_string().into());
        }
        let gates_open = sim.gates().iter().map(|g| g.open).collect();
        Ok(Self {
            gates_open,
            renderer,
            level,
            shown,
            sim,
            bodies,
            heights,
            owed: 0.0,
            stats: None,
            next_ground_read: if ground_moves { 0.0 } else { f64::INFINITY },
        })
    }

    /// The level's extent, what the camera frames.
    pub fn bounds(&self) -> Bounds {
        level_bounds(&self.level, self.renderer.height_range())
    }

    /// Lowest and highest terrain, metres.
    pub fn heights(&self) -> (f32, f32) {
        self.heights
    }

    /// Map size in metres.
    pub fn extent(&self) -> (f32, f32) {
        let dx = self.level.cell_size;
        (self.level.nx() as f32 * dx, self.level.ny() as f32 * dx)
    }

    /// Steps the water (and the bodies) by `seconds` of real time, in whole steps of the
    /// level's `dt` (the remainder is owed to the next frame); returns the steps recorded.
    /// A span that is not a finite number is refused (it would leave the water stopped for
    /// good, every later frame owing NaN).
    pub fn advance(&mut self, seconds: f64) -> Result<usize, Box<dyn Error>> {
        if !seconds.is_finite() {
            return Err(Box::new(spillway::sim::StepError::BadSpan(seconds)));
        }
        let dt = self.level.params.dt;
        self.owed += seconds.clamp(0.0, MAX_CATCH_UP);
        let steps = (self.owed / dt as f64).floor() as usize;
        self.owed -= steps as f64 * dt as f64;
        self.bodies.step(&mut self.sim, steps, dt)?;
        self.follow_gates()?;
        self.sim.request_stats();
        if let Some(s) = self.sim.poll_stats() {
            self.stats = Some((s.time, s.volume));
        }
        if self.bodies.is_empty() {
            // Steps the water needed more sub-steps for than were recorded ran short: run the
            // time they lost again, at most as many steps as this frame's (the water's own
            // time fell behind the clock, and the gates that open on the clock ran ahead of
            // it). With bodies, every step is coupled to them, so none is added.
            let (commands, _) = self.sim.encode_catch_up(dt, steps.max(1))?;
            self.sim.queue().submit(commands);
        }
        self.follow_breaches()?;
        Ok(steps)
    }

    /// The water's own simulated time as the last read-back found it, seconds (`None` before
    /// the first): the clock less what clamped steps have not yet run again.
    pub fn water_time(&self) -> Option<f64> {
        self.stats.map(|(t, _)| t)
    }

    /// Opens every closed gate; returns how many opened.
    pub fn open_gates(&mut self) -> Result<usize, Box<dyn Error>> {
        let mut opened = 0;
        for gate in self.sim.gates().into_iter().filter(|g| !g.open) {
            opened += self.sim.open_gate(&gate.name)? as usize;
        }
        self.follow_gates()?;
        Ok(opened)
    }

    /// Gates that opened since the ground was last drawn (at their time, or by a trigger) are
    /// lowered in the drawn terrain and in the bodies' ground.
    fn follow_gates(&mut self) -> Result<(), Box<dyn Error>> {
        let open: Vec<bool> = self.sim.gates().iter().map(|g| g.open).collect();
        if open != self.gates_open {
            self.gates_open = open;
            self.follow_ground()?;
        }
        Ok(())
    }

    /// Reads the ground as the water sees it (closed gates standing, breaches as cut, the bed
    /// as the water moved it), once, and where it changed draws it and gives it to the bodies.
    fn follow_ground(&mut self) -> Result<(), Box<dyn Error>> {
        let ground = self.sim.read_terrain()?;
        if ground != self.shown.terrain.data {
            self.show_ground(&ground);
            self.bodies.terrain_changed(&ground);
        }
        Ok(())
    }

    /// The ground drawn, row-major: the terrain with the gates still closed standing on it.
    pub fn drawn_ground(&self) -> &[f32] {
        &self.shown.terrain.data
    }

    /// Starts every stopped source and sink by name (the level's triggers, as a lever in a
    /// game would); returns how many started.
    pub fn start_stopped(&mut self) -> Result<usize, Box<dyn Error>> {
        let names: Vec<String> = (self.level.sources.iter().map(|s| (&s.name, s.enabled)))
            .chain(self.level.sinks.iter().map(|s| (&s.name, s.enabled)))
            .filter(|(_, on)| !on)
            .map(|(n, _)| n.clone())
            .collect();
        for name in &names {
            self.level.set_running(name, true);
        }
        if !names.is_empty() {
            self.sim.set_sources_sinks(&self.level)?;
        }
        Ok(names.len())
    }

    /// Draws `ground` as the terrain, redrawing only the cells that changed.
    fn show_ground(&mut self, ground: &[f32]) {
        let nx = self.level.nx();
        let mut changed: Option<CellRect> = None;
        for (i, (old, new)) in self.shown.terrain.data.iter_mut().zip(ground).enumerate() {
            if *old != *new {
                *old = *new;
                let cell = CellRect::new(i % nx, i / nx, i % nx + 1, i / nx + 1);
                changed = Some(changed.map_or(cell, |c| c.union(&cell)));
            }
        }
        if let Some(rect) = changed {
            self.renderer.sync(&self.shown, &Dirty::terrain(rect));
        }
    }

    /// Starts every breach of the level by name (the level's triggers, as a charge set off
    /// in a game would); returns how many started (none that had started already).
    pub fn start_breaches(&mut self) -> Result<usize, Box<dyn Error>> {
        let names: Vec<String> = self
            .level
            .structures
            .iter()
            .filter(|s| matches!(s.kind, StructureKind::Breach { .. }))
            .map(|s| s.name.clone())
            .collect();
        let mut started = 0;
        for name in &names {
            started += usize::from(self.sim.start_breach(name)?);
        }
        Ok(started)
    }

    /// Once a simulated second, while the level has breaches or a moving bed: draws the ground
    /// as the water sees it (read back from the solver), so a breach shows as it cuts the dam, and gives
    /// it to the bodies.
    fn follow_breaches(&mut self) -> Result<(), Box<dyn Error>> {
        let Some((time, _)) = self.stats else {
            return Ok(());
        };
        if time < self.next_ground_read {
            return Ok(());
        }
        self.next_ground_read = time + 1.0;
        self.follow_ground()
    }

    /// Height of the ground as drawn (closed gates standing, breaches as cut, the bed as the
    /// water moved it) at a world point (nearest cell), or `None` off the map.
    fn ground(&self, x: f32, y: f32) -> Option<f32> {
        let dx = self.level.cell_size;
        let (i, j) = ((x / dx).floor(), (y / dx).floor());
        let (nx, ny) = (self.level.nx(), self.level.ny());
        (i >= 0.0 && j >= 0.0 && (i as usize) < nx && (j as usize) < ny)
            .then(|| self.shown.terrain.data[j as usize * nx + i as usize])
    }

    /// Drops a crate where the camera looks (a little above the ground it sees, or ahead of
    /// the camera if it sees none), shifted sideways by `side` metres.
    pub fn drop_crate(&mut self, cam: &Camera, side: f32) {
        let (w, h) = self.extent();
        let (right, _, f) = cam.basis();
        let eye = cam.eye();
        let step = 0.5 * self.level.cell_size;
        let reach = 2.0 * w.max(h);
        let mut at = eye + f * 20.0_f32.min(0.25 * w.max(h));
        let mut s = 0.0;
        while s < reach {
            let p = eye + f * s;
            if let Some(g) = self.ground(p.x, p.y)
                && p.z <= g
            {
                at = Vec3::new(p.x, p.y, g + 3.0 * self.level.cell_size.clamp(1.0, 3.0));
                break;
            }
            s += step;
        }
        at = at + right * side;
        // Two cells in from the edges, or the middle of a map narrower than four.
        let margin = (self.level.cell_size * 2.0).min(0.5 * w.min(h));
        at.x = at.x.clamp(margin, w - margin);
        at.y = at.y.clamp(margin, h - margin);
        self.bodies.drop_crate([at.x, at.y, at.z], f.y.atan2(f.x));
    }

    /// Crates the player dropped so far.
    pub fn crates(&self) -> usize {
        self.bodies.crates()
    }

    /// The one-line HUD: frames per second, water volume, simulated time, gates, crates.
    pub fn hud(&self, fps: f32) -> String {
        let gates = self.sim.gates();
        let open = gates.iter().filter(|g| g.open).count();
        let water = match self.stats {
            Some((t, v)) => format!("water {v:.0} m³ | t {t:.1} s"),
            None => "water … m³".into(),
        };
        format!(
            "Spillway: {} | {fps:.0} fps | {water} | gates open {open}/{} | bodies {} ({} crates) | \
             WASD QE fly, wheel closer, drag look, Space crate, G gates, F sources, B breaches, Esc quit",
            self.level.name,
            gates.len(),
            self.bodies.len(),
            self.bodies.crates()
        )
    }

    /// Hands the renderer this frame: the water from the solver's buffers, the bodies where
    /// they stand, and what `cam` sees in an image of `size` pixels, `time` seconds into the
    /// game (for the ripples).
    fn frame(&mut self, size: [u32; 2], cam: &Camera, time: f32) -> Scene {
        let water = self.sim.water_view();
        self.renderer
            .set_water(Some((water, WaterStyle::shaded(time))));
        let bodies: Vec<BodyInstance> = (self.bodies.shown().iter())
            .map(|b| BodyInstance {
                mesh: MeshId(b.mesh as u32),
                pose: b.pose,
                colour: [b.colour[0], b.colour[1], b.colour[2], 1.0],
                selected: false,
            })
            .collect();
        self.renderer.set_bodies(&bodies);
        Scene {
            camera: *cam,
            overlays: Overlays::default(),
            brush: None,
            size,
        }
    }

    /// Draws the frame into `target` of `size` pixels (a texture of the format the game was
    /// made for), seen by `cam`, `time` seconds into the game.
    pub fn draw(&mut self, target: &wgpu::Texture, size: [u32; 2], cam: &Camera, time: f32) {
        let scene = self.frame(size, cam, time);
        self.renderer.render_to(&self.shown, &scene, target);
    }

    /// Draws the frame off screen and reads it back as RGBA rows (blocking): screenshots and
    /// tests.
    pub fn snapshot(
        &mut self,
        size: [u32; 2],
        cam: &Camera,
        time: f32,
    ) -> Result<(u32, u32, Vec<u8>), Box<dyn Error>> {
        let scene = self.frame(size, cam, time);
        self.renderer.render(&self.shown, &scene);
        Ok(self.renderer.read_pixels()?)
    }

    /// The GPU device.
    pub fn device(&self) -> &wgpu::Device {
        self.sim.device()
    }

    /// The GPU queue.
    pub fn queue(&self) -> &wgpu::Queue {
        self.sim.queue()
    }
}

#[cfg(test)]
mod tests {
    use super::Game;
    use spillway::level::{Friction, Level};

    /// A 10 m deep reservoir released onto a dry flat in steps of 0.1 s: the sub-steps each
    /// step needs grow several-fold within the first steps, faster than the GPU's plan.
    fn dam_break() -> Level {
        let (nx, ny) = (120, 8);
        let mut level = Level::flat(nx, ny, 1.0, 0.0);
        level.water = spillway::Grid::from_fn(nx, ny, |i, _| if i < 30 { 10.0 } else { 0.0 });
        level.params.friction = Friction::NONE;
        level.params.dt = 0.1;
        level
    }

    #[test]
    fn the_water_keeps_up_with_the_clock_when_steps_run_short() {
        // The game never ran again the time clamped steps lost: the water's own time fell
        // behind the clock for good.
        let dir = tempfile::tempdir().unwrap();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut game = Game::headless(dam_break(), dir.path(), &root).expect("a GPU");
        // No spare sub-steps: each step runs on what the last read-back planned.
        game.sim.set_substep_headroom(0);
        let frame = 0.2;
        for _ in 0..20 {
            game.advance(frame).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        // Frames with nothing owed go on making up the lost time.
        for _ in 0..10 {
            game.advance(0.0).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let clock = game.sim.clock();
        let water = game.sim.stats().unwrap().time;
        let clamped = game.sim.status().clamped_steps;
        println!("clock {clock:.3} s, water {water:.3} s, {clamped} steps clamped");
        assert!(clamped > 0, "the water outran the recorded sub-steps");
        assert!(clock > 3.9, "{clock}");
        assert!(
            (clock - water).abs() < 0.15,
            "water {water} s against clock {clock} s"
        );
        assert!(
            game.advance(f64::NAN).is_err(),
            "a NaN frame time is refused"
        );
    }

    #[test]
    fn opening_a_gate_keeps_the_breach_drawn_as_it_cut_the_dam() {
        // The gate's opening drew the ground again from the authored terrain: the breach's
        // cut vanished from the screen until the next read of the ground.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let dir = root.join("projects/breach_dam");
        let mut level = spillway::level::file::load(&dir.join("level.ron")).expect("sample");
        level.gates.push(spillway::level::Gate {
            name: "sluice".into(),
            shape: spillway::level::Shape::Box {
                x0: 10.0,
                y0: 10.0,
                x1: 14.0,
                y1: 14.0,
            },
            crest: 30.0,
            open_at: None,
        });
        let mut game = Game::headless(level.clone(), &dir, &root).expect("a GPU");
        assert_eq!(game.start_breaches().unwrap(), 1);
        let crest = 30 * level.nx() + 44;
        for _ in 0..400 {
            game.advance(0.25).unwrap();
            if game.drawn_ground()[crest] < 10.0 {
                break;
            }
        }
        let cut = game.drawn_ground()[crest];
        assert!(cut < 10.0, "the breach cut the dam: {cut} m");
        assert_eq!(game.open_gates().unwrap(), 1);
        let drawn = game.drawn_ground()[crest];
        assert!(drawn <= cut, "still cut once the gate opened: {drawn} m");
    }
}
