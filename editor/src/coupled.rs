//! A solver with the level's bodies coupled to it ([`Coupled`]): what `spillway sim`,
//! `spillway bake` and the editor's Bake run.

use std::path::Path;

use spillway::Level;
use spillway::body::solver::WaterSolver;
use spillway::body::world::{BodyWorld, WorldError};
use spillway::level::StructureKind;

use crate::bake::{BakeError, Settling};

/// A solver with the level's bodies coupled to it both ways (a rapier world: blockers dam the
/// water, floaters ride it), as the editor's preview runs them; without bodies, the solver
/// alone. `spillway sim`, `spillway bake` and the editor's Bake all run levels through it, so a
/// build pipeline bakes the level the designer saw.
pub struct Coupled<S> {
    /// The water solver.
    pub sim: S,
    /// The bodies (`None`: the level has none, or they were left out).
    pub world: Option<BodyWorld>,
    /// The ground under the water can change (gates, breaches, a moving bed): the bodies are
    /// given it again each simulated second.
    ground_moves: bool,
    /// Steps since the bodies were last given the ground.
    since_ground: u64,
}

impl<S: Settling + WaterSolver> Coupled<S> {
    /// `sim` with every body of `level` (meshes imported from `root`, the level's folder);
    /// without bodies when `bodies` is false or the level has none. Fails, naming the body, when
    /// a mesh does not import.
    pub fn new(sim: S, level: &Level, root: &Path, bodies: bool) -> Result<Self, BakeError> {
        let ground_moves = !level.gates.is_empty()
            || level.params.sediment.is_some()
            || (level.structures.iter()).any(|s| matches!(s.kind, StructureKind::Breach { .. }));
        if !bodies || level.bodies.is_empty() {
            return Ok(Self {
                sim,
                world: None,
                ground_moves,
                since_ground: 0,
            });
        }
        let mut world = BodyWorld::from_level(level, &sim, root)?;
        // No more physics workers than the run's own pool (`--threads`), 8 at most as by
        // default (and 2 at least: `MIN_PHYSICS_THREADS`).
        world.set_physics_threads(rayon::current_num_threads().min(8));
        Ok(Self {
            sim,
            world: Some(world),
            ground_moves,
            since_ground: 0,
        })
    }

    /// How many bodies move with the water.
    pub fn bodies(&self) -> usize {
        self.world.as_ref().map_or(0, |w| w.ids().len())
    }
}

impl<S: Settling + WaterSolver> Settling for Coupled<S> {
    fn dt(&self) -> f32 {
        self.sim.dt()
    }

    fn steps_between_stops(&self) -> u64 {
        self.sim.steps_between_stops()
    }

    fn run_steps(&mut self, n: u64) -> Result<(), BakeError> {
        let Some(world) = self.world.as_mut() else {
            return self.sim.run_steps(n);
        };
        let dt = self.sim.dt();
        // The ground as the water runs over it (a gate opened, the bed moved), once a
        // simulated second: the bodies stood on the ground the run began on (a crate on a
        // gate's crest stayed in the air once the gate opened). Counted by steps, step by
        // step: counted once a call, how often depended on how the steps were handed over
        // (every 2 s on the GPU's bake, every 12 s in a sim of 10 minutes).
        let every = ((1.0 / dt as f64).round() as u64).max(1);
        for _ in 0..n {
            world.step(&mut self.sim, dt)?;
            self.since_ground += 1;
            if self.ground_moves && self.since_ground >= every {
                self.since_ground = 0;
                let ground = self.sim.read_terrain().map_err(WorldError::from)?;
                world.set_terrain(&ground);
            }
        }
        // No steps, but what the solver owes: on the GPU, the time of steps that ran short.
        self.sim.run_steps(0)
    }

    fn depth_now(&mut self) -> Result<Vec<f32>, BakeError> {
        self.sim.depth_now()
    }

    /// The baked water, and each body where it came to rest; a body that went over an open
    /// edge of the map keeps its placement (it fell, and lies set aside under the map).
    fn baked(&mut self, level: &Level) -> Result<Level, BakeError> {
        let mut out = self.sim.baked(level)?;
        if let Some(world) = &self.world {
            world.keep_poses(&mut out);
        }
        Ok(out)
    }

    fn left_map(&self, level: &Level) -> Vec<String> {
        let Some(world) = &self.world else {
            return Vec::new();
        };
        (level.bodies.iter().zip(world.ids()))
            .filter(|(_, id)| world.has_left(*id) == Some(true))
            .map(|(body, _)| body.name.clone())
            .collect()
    }
}
