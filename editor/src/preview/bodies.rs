//! Bodies in the live preview: the document's bodies in a rapier3d world ([`BodyWorld`])
//! coupled both ways with the preview's water (GPU, or CPU after a lost device). Crates dam the
//! river, logs drift, a boulder sinks, while time runs. The document is never written: the
//! bodies move only here, and a reset puts them back where the designer placed them.
//!
//! The world follows the document's edits while the water runs: a body deleted (a dam crate)
//! leaves the world at once, so the water it held floods down; a body placed or edited enters
//! at its placement; the others keep moving.

use std::collections::HashMap;
use std::sync::Arc;

use spillway::body::solver::WaterSolver;
use spillway::body::world::{BodyId, BodyState, BodyWorld, WorldError};
use spillway::body::{Pose, TriMesh};
use spillway::level::{Body, Boundary, BoundaryKind};

/// The document's bodies as the preview last saw them, with their meshes (`None`: the file
/// does not load; such a body stays out of the physics).
#[derive(Clone, Default)]
pub struct WantedBodies {
    /// The bodies, in document order.
    pub bodies: Vec<Body>,
    /// Each body's mesh, by glTF path as written in the level.
    pub meshes: HashMap<String, Arc<TriMesh>>,
    /// glTF paths the keyframes' bodies hold that a save rewrote, and what to.
    pub relinked: HashMap<String, String>,
    /// Placements "Keep this state" moved to where the water had brought the bodies, as
    /// (before, after), oldest first: a keyframe from before holds a body by its old one.
    pub kept: Vec<(Body, Body)>,
}

impl WantedBodies {
    fn mesh(&self, body: &Body) -> Option<Arc<TriMesh>> {
        self.meshes.get(&body.gltf).cloned()
    }

    /// A keyframe's body states with the paths a save rewrote since, each body under the
    /// placement "Keep this state" has given it since.
    pub fn relinked_states(&self, states: &BodyStates) -> BodyStates {
        let mut states = states.clone();
        for (body, _) in &mut states {
            if let Some(path) = self.relinked.get(&body.gltf) {
                body.gltf.clone_from(path);
            }
            // The last keep from a placement is the one in force (an undone keep's stays in
            // the list); a keep of a kept body follows on. A pair per keep bounds the walk.
            for _ in 0..self.kept.len() {
                match self.kept.iter().rev().find(|(before, _)| before == body) {
                    Some((_, after)) if after != body => body.clone_from(after),
                    _ => break,
                }
            }
        }
        states
    }

    /// Notes the bodies "Keep this state" moved: those that differ from `before` (the bodies
    /// handed over until now) only by their pose, when no other body changed.
    pub fn note_kept(&mut self, before: &[Body]) {
        let same = before.len() == self.bodies.len()
            && (before.iter().zip(&self.bodies)).all(|(a, b)| same_but_pose(a, b));
        if same {
            for (a, b) in before.iter().zip(&self.bodies) {
                if a != b {
                    self.kept.push((a.clone(), b.clone()));
                }
            }
        }
    }
}

/// Each document body as it entered the physics, with how it sat and moved then (`None`:
/// outside the physics): a keyframe's bodies, put back by placement, not by place in the
/// list, so a body deleted or added before the others leaves theirs as they were.
pub type BodyStates = Vec<(Body, Option<BodyState>)>;

/// The preview's rigid-body world.
pub struct PreviewBodies {
    world: BodyWorld,
    /// One entry per document body, in document order: its placement when it entered the
    /// world, and its id there (`None`: its mesh did not load).
    placed: Vec<(Body, Option<BodyId>)>,
    /// Placements the water holds already (a bake's bodies where they rest), each taken by the
    /// first body that enters with it: it enters settled.
    settled: Vec<Body>,
}

impl PreviewBodies {
    /// An empty world over the water of `sim` (its terrain as the ground); bodies entering
    /// with one of the `settled` placements move no water for it (the water holds them).
    pub fn new<S: WaterSolver + ?Sized>(sim: &S, settled: Vec<Body>) -> Self {
        Self {
            world: BodyWorld::new(sim),
            placed: Vec::new(),
            settled,
        }
    }

    /// The bodies' glTF paths rewritten through `to` (a save moved their files).
    pub fn relink(&mut self, to: &dyn Fn(&str) -> String) {
        let placed = self.placed.iter_mut().map(|(b, _)| b);
        for body in placed.chain(&mut self.settled) {
            body.gltf = to(&body.gltf);
        }
    }

    /// The ground the bodies stand on, row-major (the running water's, read back).
    pub fn set_ground(&mut self, ground: &[f32]) {
        self.world.set_terrain(ground);
    }

    /// Whether any body takes part in the physics.
    pub fn is_empty(&self) -> bool {
        self.placed.iter().all(|(_, id)| id.is_none())
    }

    /// Brings the world in line with the document's bodies: deleted bodies leave it, new or
    /// edited ones enter at their placement, unchanged ones keep moving; the map's edges wall
    /// the bodies in where the level's `boundaries` (over its `default` boundary) wall the
    /// water in.
    pub fn sync(&mut self, wanted: &WantedBodies, boundaries: &[Boundary], default: &BoundaryKind) {
        self.world.set_edges(boundaries, default);
        if self.placed.len() == wanted.bodies.len()
            && self
                .placed
                .iter()
                .zip(&wanted.bodies)
                .all(|((b, _), w)| b == w)
        {
            return;
        }
        let old = std::mem::take(&mut self.placed);
        let mut next = 0;
        for body in &wanted.bodies {
            if let Some(offset) = old[next..].iter().position(|(b, _)| b == body) {
                for (_, id) in &old[next..next + offset] {
                    self.remove(*id);
                }
                self.placed.push(old[next + offset].clone());
                next += offset + 1;
            } else {
                let settled = (self.settled.iter()).position(|b| b == body);
                let settled = settled.map(|i| self.settled.swap_remove(i)).is_some();
                let id = wanted.mesh(body).map(|m| match settled {
                    true => self.world.add_settled(body, m),
                    false => self.world.add(body, m),
                });
                self.placed.push((body.clone(), id));
            }
        }
        for (_, id) in &old[next..] {
            self.remove(*id);
        }
    }

    fn remove(&mut self, id: Option<BodyId>) {
        if let Some(id) = id {
            self.world.remove(id);
        }
    }

    /// One coupled step of the bodies and the water: `water_steps` water steps of `dt` seconds
    /// under one rigid-body step as long (1: an exact coupled step; see [`super::stride`]).
    pub fn step<S: WaterSolver + ?Sized>(
        &mut self,
        sim: &mut S,
        dt: f32,
        water_steps: usize,
    ) -> Result<(), WorldError> {
        self.world.step_coarse(sim, dt, water_steps)
    }

    /// Where the world's coupled steps have spent their time since it was made.
    pub fn step_times(&self) -> spillway::body::world::StepTimes {
        self.world.step_times()
    }

    /// Where each document body is now (its placement, for one outside the physics).
    pub fn poses(&self) -> Vec<Pose> {
        self.placed
            .iter()
            .map(|(body, id)| {
                id.and_then(|id| self.world.pose(id))
                    .unwrap_or_else(|| Pose::of(body))
            })
            .collect()
    }

    /// Where each document body is now, to keep as the level's state: as [`Self::poses`], but
    /// a body that went over an open edge of the map keeps its placement (it lies set aside
    /// under the map); with the names of those bodies.
    pub fn kept_poses(&self) -> (Vec<Pose>, Vec<String>) {
        let mut left = Vec::new();
        let poses = (self.placed.iter())
            .map(|(body, id)| {
                if id.is_some_and(|id| self.world.has_left(id) == Some(true)) {
                    left.push(body.name.clone());
                }
                id.and_then(|id| self.world.kept_pose(id))
                    .unwrap_or_else(|| Pose::of(body))
            })
            .collect();
        (poses, left)
    }

    /// How each document body sits and moves, for a keyframe.
    pub fn states(&self) -> BodyStates {
        (self.placed.iter())
            .map(|(body, id)| (body.clone(), id.and_then(|id| self.world.state(id))))
            .collect()
    }

    /// Puts the bodies back as a keyframe saw them, each to the state of the same placed body
    /// (a keyframe from before "Keep this state" under its kept placement:
    /// [`WantedBodies::relinked_states`]); a body added or edited since (moved with the
    /// gizmo) keeps its placement.
    pub fn set_states(&mut self, states: &[(Body, Option<BodyState>)]) {
        let mut used = vec![false; states.len()];
        for (body, id) in &self.placed {
            let Some(k) = (0..states.len()).find(|&k| !used[k] && &states[k].0 == body) else {
                continue;
            };
            used[k] = true;
            if let (Some(id), Some(state)) = (id, &states[k].1) {
                self.world.set_state(*id, state);
            }
        }
    }

    /// Takes `bodies` as the placements of the bodies in the world, where each differs from
    /// its placement only by its pose ("Keep this state": the document's bodies moved to where
    /// the water brought them), so they go on moving instead of entering again at rest.
    pub fn adopt(&mut self, bodies: &[Body]) {
        let same = self.placed.len() == bodies.len()
            && (self.placed.iter().zip(bodies)).all(|((p, _), b)| same_but_pose(p, b));
        if same {
            for ((placed, _), body) in self.placed.iter_mut().zip(bodies) {
                placed.clone_from(body);
            }
        }
    }

    /// Gives the document's body `index` an impulse (N·s) at a world point: knocking a crate
    /// over. Returns whether it is a dynamic body of the physics.
    pub fn push(&mut self, index: usize, impulse: [f32; 3], at: [f32; 3]) -> bool {
        match self.placed.get(index) {
            Some((_, Some(id))) => self.world.push(*id, impulse, at),
            _ => false,
        }
    }

    /// Mass of the document's body `index`, kg (zero outside the physics).
    pub fn mass(&self, index: usize) -> f32 {
        match self.placed.get(index) {
            Some((_, Some(id))) => self.world.mass(*id).unwrap_or(0.0),
            _ => 0.0,
        }
    }
}

/// Whether two bodies are the same but for where they stand (translation and rotation).
fn same_but_pose(a: &Body, b: &Body) -> bool {
    let posed = |x: &Body| Body {
        translation: [0.0; 3],
        rotation: [0.0, 0.0, 0.0, 1.0],
        ..x.clone()
    };
    posed(a) == posed(b)
}
