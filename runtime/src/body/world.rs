//! A rapier3d world of a level's bodies, stepped together with the water (feature `rapier`).
//!
//! [`BodyWorld`] owns the rigid bodies (convex hulls for dynamic bodies, triangle meshes for
//! static ones) and the terrain as a heightfield collider, all in the level's frame (metres, z
//! up). One [`BodyWorld::step`] is the coupled step of Kellomäki 2014:
//!
//! 1. every body is rasterised from above and below ([`Coverage`]);
//! 2. the water under and around the bodies is read as the last step left it (or taken from
//!    the copy [`BodyWorld::read_ahead`] asked for after that step: the same water);
//! 3. blockers (bodies denser than water, or marked so) become the solver's two-layer
//!    [`Blockers`] (§3);
//! 4. buoyancy, drag and damping ([`water_forces`](super::forces::water_forces), §4) are set on each dynamic body from that
//!    water (forces reset every step), and floaters push the surface down by the change of their
//!    submerged volume (§4.2, after Thürey et al.) through [`WaterSolver::displace`];
//! 5. the water advances by `dt` and rapier steps by the same `dt`.
//!
//! The water is any [`WaterSolver`]: the CPU [`Simulation`](crate::sim::Simulation) or, with feature `gpu`, the
//! [`GpuSimulation`](crate::gpu::GpuSimulation), which then reads back only the cells the bodies
//! need (one small gather per step). A game without rapier can do the same with the
//! engine-neutral parts: [`Coverage`], [`Blockers`], [`WaterSolver`] and
//! [`water_forces`](super::forces::water_forces).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use rapier3d::prelude::{
    ColliderHandle, PhysicsWorld, Pose as RapierPose, RigidBodyBuilder, RigidBodyHandle, Rotation,
    Vector,
};

mod cells;
mod ground;
mod motion;
mod step;
mod threads;
mod tiles;
pub use tiles::GROUND_TOLERANCE;
mod times;
mod water;
pub use motion::{BodyState, FALL_BELOW};
pub use threads::MIN_PHYSICS_THREADS;
pub use times::StepTimes;
pub use water::CLEARANCE;
pub mod collider;
use cells::Window;
use thiserror::Error;

use super::forces::{Fluid, WaterForces};
use super::import::{ImportError, ImportLimits, ImportProblem, import_body, import_bytes};
use super::raster::{CellGrid, Coverage};
use super::solver::{SolverError, WaterCopy, WaterSolver};
use super::{Pose, TriMesh, blocks_water};
use crate::level::{Body, Boundary, BoundaryKind, Level};
use crate::sim::blocking::{BlockerError, Blockers};

/// Linear damping toward rest of a fully submerged body in a world, 1/s: enough to settle a
/// bobbing crate within seconds, little enough that a log drifts at most of the surface speed.
pub const DAMPING: f32 = 0.3;

/// Damping of a fully submerged body's vertical motion in a world on top of [`DAMPING`], 1/s
/// ([`Fluid::heave_damping`]).
pub const HEAVE_DAMPING: f32 = 3.0;

/// Sub-samples per cell side when rasterising bodies.
const SAMPLES: u32 = 4;

/// Cells around a body's window read back ahead for the next step at the least: its ring. A
/// moving body gets the cells its speed may take it across too (at least one on each side it
/// moves toward); a cell it reaches beyond them is read when needed, waiting for the GPU. (Two,
/// room to move one cell whatever the speed, read 17 488 cells a step for `body_bench`'s 200
/// bodies, and took 0.258–0.300 ms of each step on an H100 against 0.210–0.231 ms with one, for
/// one step in 630 more read at once, 7 against 6; the read-ahead test's bodies read at once in
/// 4 steps of 150 against 2.)
const MARGIN: usize = 1;

/// The most cells a body's read-ahead reaches beyond [`MARGIN`] (a body thrown faster is read
/// when it lands somewhere unforeseen).
const MAX_REACH: usize = 16;

/// How far a sleeping body's water forces may move from those it fell asleep under before it
/// wakes, as a share of its weight (its torque's, of its weight times its radius of gyration):
/// a lake rising under a resting floater by 2% of its draft, a wave, a body dropped beside it.
pub const WAKE_SHARE: f32 = 0.02;

/// Identifies a body of a [`BodyWorld`] (its insertion index; stays valid after removals of
/// other bodies).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyId(pub usize);

/// The mesh of every body of `level`, in order, imported from `root` (the level's folder; each
/// file parsed once and shared by the bodies that name it). The first body whose file is
/// missing, broken or outside `root` is the error, named by its index and name. `spillway
/// check` calls this to prove a level's body files load before a game does.
pub fn import_meshes(level: &Level, root: &Path) -> Result<Vec<Arc<TriMesh>>, WorldError> {
    let limits = ImportLimits::default();
    meshes_of(level, |gltf| import_body(root, gltf, &limits))
}

/// [`import_meshes`] from glTF files held in memory (a game's asset pack, with a level from
/// [`crate::level::file::load_bytes`]): `files` gives each body's `gltf` path, as the level
/// names it, with the file's bytes (a `.glb`, or a `.gltf` with `data:` buffers;
/// [`import_bytes`]). A path not among `files` is named as missing.
pub fn import_meshes_from_bytes(
    level: &Level,
    files: &[(&str, &[u8])],
) -> Result<Vec<Arc<TriMesh>>, WorldError> {
    let limits = ImportLimits::default();
    meshes_of(level, |gltf| {
        match files.iter().find(|(name, _)| *name == gltf) {
            Some((_, bytes)) => import_bytes(Path::new(gltf), bytes, &limits),
            None => Err(ImportError {
                file: gltf.into(),
                problem: ImportProblem::Io(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "not among the files given",
                )),
            }),
        }
    })
}

/// Every body's mesh from `import` (called once per distinct `gltf` path), or the first
/// body whose import fails.
fn meshes_of(
    level: &Level,
    mut import: impl FnMut(&str) -> Result<TriMesh, ImportError>,
) -> Result<Vec<Arc<TriMesh>>, WorldError> {
    let mut meshes: HashMap<&str, Arc<TriMesh>> = HashMap::new();
    let mut out = Vec::with_capacity(level.bodies.len());
    for (index, body) in level.bodies.iter().enumerate() {
        let mesh = match meshes.get(body.gltf.as_str()) {
            Some(m) => m.clone(),
            None => {
                let m = import(&body.gltf).map_err(|source| WorldError::Import {
                    index,
                    name: body.name.clone(),
                    source,
                })?;
                let m = Arc::new(m);
                meshes.insert(&body.gltf, m.clone());
                m
            }
        };
        out.push(mesh);
    }
    Ok(out)
}

/// What can go wrong building or stepping a [`BodyWorld`].
#[derive(Debug, Error)]
pub enum WorldError {
    /// A body's glTF file could not be imported.
    #[error("bodies[{index}] ({name}): {source}")]
    Import {
        /// Index of the body in the level.
        index: usize,
        /// The body's name.
        name: String,
        /// The import error (file and reason).
        source: ImportError,
    },
    /// The water solver failed (a blow-up, a lost GPU); bodies were not moved.
    #[error("the water solver: {0}")]
    Solver(#[from] SolverError),
    /// The blockers do not fit the simulation.
    #[error(transparent)]
    Blockers(#[from] BlockerError),
}

/// One body of the world.
struct Slot {
    handle: RigidBodyHandle,
    /// The mesh in the body's frame, unscaled (the pose scales it).
    mesh: Arc<TriMesh>,
    scale: [f32; 3],
    blocks: bool,
    dynamic: bool,
    /// Coverage at the pose of the last step.
    coverage: Coverage,
    /// Coverage at the pose of the step before.
    previous: Coverage,
    /// The pose `coverage` was rasterised at (`None` before the first step).
    rasterised_at: Option<Pose>,
    /// The state was set ([`BodyWorld::set_state`]): the water already holds the body where
    /// it now is, so the next step moves none for the jump.
    rebase: bool,
    /// The state was set before this step: a blocker's cells are handed over as settled
    /// (`Blockers::settle`), the water holding the body where it is.
    settle: bool,
    /// The cells read back ahead for this body after the last step.
    requested: Option<Window>,
    /// Cells the body's window may reach by the next step, west, south, east and north of
    /// it (from its velocity and spin), with its ring.
    reach: [usize; 4],
    forces: WaterForces,
    /// Whether the body fell over the map's edge and was set aside ([`BodyWorld::has_left`]).
    left: bool,
}

/// The level's rigid bodies in a rapier3d world, coupled both ways with a water
/// solver ([`WaterSolver`]).
pub struct BodyWorld {
    physics: PhysicsWorld,
    /// The ground's heightfield tiles ([`Self::set_terrain`]).
    terrain: tiles::Ground,
    slots: Vec<Option<Box<Slot>>>,
    grid: CellGrid,
    /// Water-to-body constants (density, drag, damping).
    pub fluid: Fluid,
    /// Whether each step asks the solver to read the water around the bodies back while the
    /// rigid bodies step, for the next step to take, instead of waiting for it then: on by
    /// default where the solver reads ahead ([`WaterSolver::reads_ahead`]: the GPU). The bodies
    /// see the same water either way, bit for bit, also when the water is edited between
    /// steps (`tests/bodies/gpu_coupled.rs`).
    pub read_ahead: bool,
    blockers: Blockers,
    /// The water under and around the bodies, read once per step.
    water: WaterCopy,
    /// Where the steps' time went, summed since the world was made.
    times: StepTimes,
    /// Buffers the coupling reuses from step to step.
    scratch: Scratch,
    /// Workers of the pool rapier steps on ([`Self::set_physics_threads`]).
    physics_threads: usize,
    /// The world's own pool for rapier, started at its first step.
    pool: Option<Arc<rayon::ThreadPool>>,
    /// The lowest ground of the terrain collider, metres (−∞ without one).
    floor: f32,
    /// The highest ground of the terrain collider, metres (−∞ without one).
    ceiling: f32,
    /// The walls along the map's edges where the water meets a wall ([`Self::set_edges`]).
    walls: Vec<ColliderHandle>,
    /// The boundaries the walls were made for.
    edges: Option<(Vec<Boundary>, BoundaryKind)>,
}

/// Buffers the coupling reuses from step to step.
#[derive(Default)]
struct Scratch {
    /// The surfaces around one floater.
    surfaces: Vec<f32>,
    /// One floater's change of submerged volume over its window.
    delta: Vec<f32>,
    /// The water all floaters move, per cell.
    moved: Vec<(usize, f32)>,
    /// Scratch of [`cells::merge`].
    keys: Vec<u64>,
    /// Each slot's forces of the step, in order (`None`: a body that takes none).
    forces: Vec<Option<WaterForces>>,
    /// By slot index: the water force and torque a sleeping body fell asleep under.
    rest: Vec<Option<[f32; 6]>>,
}

impl BodyWorld {
    /// An empty world over the water grid of `sim`, with its terrain as a heightfield collider
    /// (none if the solver cannot give its terrain: a lost GPU) and gravity along −z.
    pub fn new<S: WaterSolver + ?Sized>(sim: &S) -> Self {
        let grid = sim.grid();
        let mut physics = PhysicsWorld::new();
        physics.gravity = Vector::new(0.0, 0.0, -sim.gravity());
        let mut world = Self {
            physics,
            terrain: tiles::Ground::default(),
            slots: Vec::new(),
            grid,
            fluid: Fluid {
                gravity: sim.gravity(),
                linear_damping: DAMPING,
                heave_damping: HEAVE_DAMPING,
                ..Fluid::default()
            },
            read_ahead: sim.reads_ahead(),
            blockers: Blockers::new(grid.nx, grid.ny),
            water: WaterCopy::new(grid),
            times: StepTimes::default(),
            scratch: Scratch::default(),
            physics_threads: threads::default_physics_threads(),
            pool: None,
            floor: f32::NEG_INFINITY,
            ceiling: f32::NEG_INFINITY,
            walls: Vec::new(),
            edges: None,
        };
        if let Ok(terrain) = sim.read_terrain() {
            world.set_terrain(&terrain);
        }
        world
    }

    /// A world with every body of `level`, meshes imported from `root` (the level's folder;
    /// [`import_meshes`]), walled where the level's water meets a wall ([`Self::set_edges`]).
    /// A level with a saved flow state (a bake) holds its bodies' water already: they enter
    /// settled ([`Self::add_settled`]).
    pub fn from_level<S: WaterSolver + ?Sized>(
        level: &Level,
        sim: &S,
        root: &Path,
    ) -> Result<Self, WorldError> {
        Ok(Self::from_meshes(level, sim, import_meshes(level, root)?))
    }

    /// [`Self::from_level`] with the bodies' meshes given, one per body of `level` in order
    /// (from [`import_meshes_from_bytes`], say, or a game's own loader through
    /// [`TriMesh::new`]).
    pub fn from_meshes<S: WaterSolver + ?Sized>(
        level: &Level,
        sim: &S,
        meshes: Vec<Arc<TriMesh>>,
    ) -> Self {
        let mut world = Self::new(sim);
        world.set_edges(&level.boundaries, &level.params.default_boundary);
        for (body, mesh) in level.bodies.iter().zip(meshes) {
            match level.flow {
                Some(_) => world.add_settled(body, mesh),
                None => world.add(body, mesh),
            };
        }
        world
    }

    /// Adds `body` (its placement, density, motion type and coupling) with its `mesh`; returns
    /// its id.
    pub fn add(&mut self, body: &Body, mesh: Arc<TriMesh>) -> BodyId {
        let pose = Pose::of(body);
        let density = if body.density.is_finite() && body.density > 0.0 {
            body.density
        } else {
            1000.0
        };
        let collider = collider::collider(body, &mesh, pose.scale, density).friction(0.7);
        let rb = if body.dynamic {
            RigidBodyBuilder::dynamic()
        } else {
            RigidBodyBuilder::fixed()
        }
        .pose(rapier_pose(&pose))
        .can_sleep(true);
        let (handle, _) = self.physics.insert(rb, collider);
        // Boxed: a removed body's slot stays (its id is never another's), a pointer wide.
        self.slots.push(Some(Box::new(Slot {
            handle,
            mesh,
            scale: pose.scale,
            blocks: blocks_water(body),
            dynamic: body.dynamic,
            coverage: Coverage::default(),
            previous: Coverage::default(),
            rasterised_at: None,
            rebase: false,
            settle: false,
            requested: None,
            reach: [MARGIN; 4],
            forces: WaterForces::default(),
            left: false,
        })));
        BodyId(self.slots.len() - 1)
    }

    /// Adds `body` as [`Self::add`] does, into water that already holds it where it is: its
    /// first step moves no water for it. The bodies of a level with a saved flow state (a
    /// bake, a save game) are so: the bake kept the water with them settled in it, and adding
    /// them plainly pushed each one's submerged volume aside a second time.
    pub fn add_settled(&mut self, body: &Body, mesh: Arc<TriMesh>) -> BodyId {
        let id = self.add(body, mesh);
        if let Some(Some(slot)) = self.slots.get_mut(id.0) {
            slot.rebase = true;
        }
        id
    }

    /// Removes a body (a crate knocked out of a dam, deleted in the editor).
    pub fn remove(&mut self, id: BodyId) -> bool {
        let Some(slot) = self.slots.get_mut(id.0).and_then(Option::take) else {
            return false;
        };
        self.physics.remove_body(slot.handle);
        true
    }

    /// Ids of the bodies in the world.
    pub fn ids(&self) -> Vec<BodyId> {
        (0..self.slots.len())
            .filter(|&i| self.slots[i].is_some())
            .map(BodyId)
            .collect()
    }

    /// Where body `id` is now.
    pub fn pose(&self, id: BodyId) -> Option<Pose> {
        let slot = self.slot(id)?;
        let rb = self.physics.bodies.get(slot.handle)?;
        let p = rb.position();
        let (t, r) = (p.translation, p.rotation);
        Some(Pose {
            translation: [t.x, t.y, t.z],
            rotation: [r.x, r.y, r.z, r.w],
            scale: slot.scale,
        })
    }

    /// Velocity of body `id`'s centre of mass, m/s.
    pub fn velocity(&self, id: BodyId) -> Option<[f32; 3]> {
        let rb = self.physics.bodies.get(self.slot(id)?.handle)?;
        let v = rb.linvel();
        Some([v.x, v.y, v.z])
    }

    /// Mass of body `id`, kg.
    pub fn mass(&self, id: BodyId) -> Option<f32> {
        Some(self.physics.bodies.get(self.slot(id)?.handle)?.mass())
    }

    /// The water's forces on body `id` in the last step.
    pub fn water_forces(&self, id: BodyId) -> Option<WaterForces> {
        Some(self.slot(id)?.forces)
    }

    /// Whether body `id` blocks water (else it floats).
    pub fn blocks(&self, id: BodyId) -> Option<bool> {
        Some(self.slot(id)?.blocks)
    }

    /// Gives body `id` an impulse (N·s) at a world point: a player knocking a crate over.
    /// Returns whether it was given: `false` for a body that is not dynamic, not in the world,
    /// or an impulse or point that is not finite (rapier set such a body aside for good).
    pub fn push(&mut self, id: BodyId, impulse: [f32; 3], at: [f32; 3]) -> bool {
        if !impulse.iter().chain(&at).all(|v| v.is_finite()) {
            return false;
        }
        let Some(handle) = self.slot(id).filter(|s| s.dynamic).map(|s| s.handle) else {
            return false;
        };
        let Some(rb) = self.physics.bodies.get_mut(handle) else {
            return false;
        };
        rb.apply_impulse_at_point(
            Vector::new(impulse[0], impulse[1], impulse[2]),
            Vector::new(at[0], at[1], at[2]),
            true,
        );
        true
    }

    /// Workers of the world's rapier pool ([`Self::set_physics_threads`]).
    pub fn physics_threads(&self) -> usize {
        self.physics_threads
    }

    /// Sets how many workers the pool that steps this world's rigid bodies has (at least
    /// [`MIN_PHYSICS_THREADS`]; by default the machine's cores, from 2 to 8). Each world has a
    /// pool of its own, started at its first step, so worlds stepped at once never wait on
    /// each other's work.
    pub fn set_physics_threads(&mut self, threads: usize) {
        let threads = threads.max(MIN_PHYSICS_THREADS);
        if threads != self.physics_threads {
            self.physics_threads = threads;
            self.pool = None;
            self.physics.set_thread_pool(None);
        }
    }

    /// The world's pool for rapier, started (and handed to rapier) on first use; `None` where
    /// no thread could be started.
    fn physics_pool(&mut self) -> Option<Arc<rayon::ThreadPool>> {
        if self.pool.is_none() {
            self.pool = threads::physics_pool(self.physics_threads);
            self.physics.set_thread_pool(self.pool.clone());
        }
        self.pool.clone()
    }

    /// Where the coupled steps' time went since the world was made.
    pub fn step_times(&self) -> StepTimes {
        self.times
    }

    fn slot(&self, id: BodyId) -> Option<&Slot> {
        self.slots.get(id.0)?.as_deref()
    }
}

fn rapier_pose(pose: &Pose) -> RapierPose {
    let [x, y, z, w] = pose.rotation;
    let q = Rotation::from_xyzw(x, y, z, w);
    let q = if q.length() > 0.0 && q.is_finite() {
        q.normalize()
    } else {
        Rotation::IDENTITY
    };
    let [tx, ty, tz] = pose.translation;
    RapierPose::from_parts(Vector::new(tx, ty, tz), q)
}
