//! The rigid bodies: the level's placed bodies and the crates the player drops, in one
//! rapier world ([`BodyWorld`]) coupled both ways to the GPU water. Bodies denser than water
//! block it (the solver's two-layer blockers), lighter ones float on it and push it aside;
//! the water's buoyancy and drag move the dynamic ones. Each coupled step reads back the
//! water under and around the bodies (a small gather); with no bodies the water steps alone.

use std::collections::{HashMap, VecDeque};
use std::error::Error;
use std::path::Path;
use std::sync::Arc;

use spillway::Level;
use spillway::body::import::{ImportLimits, import, import_bytes};
use spillway::body::kind::kind_of;
use spillway::body::world::{BodyId, BodyWorld, import_meshes};
use spillway::body::{Pose, TriMesh};
use spillway::gpu::GpuSimulation;
use spillway::level::{Body, Coupling};

/// Most crates at once: dropping more removes the oldest.
const MAX_CRATES: usize = 48;
/// The crate's mesh, under the assets root.
const CRATE_FILE: &str = "assets/crate.glb";

/// The bundled crate, built into the game for when `assets/` is not beside it.
const CRATE_GLB: &[u8] = include_bytes!("../../assets/crate.glb");
/// Density of a crate, kg/m³: wood, so it floats.
const CRATE_DENSITY: f32 = 600.0;

/// One body and what to draw it with.
#[derive(Clone, Copy, Debug)]
pub struct Shown {
    /// Index into [`Bodies::meshes`].
    pub mesh: usize,
    /// Where it is now.
    pub pose: Pose,
    /// Its colour (linear RGB), from its file's name as the editor colours it.
    pub colour: [f32; 3],
}

/// The level's bodies and the dropped crates in a rapier world.
pub struct Bodies {
    world: BodyWorld,
    /// Every distinct mesh; the crate's is the first.
    meshes: Vec<Arc<TriMesh>>,
    /// The colour of each mesh's bodies.
    colours: Vec<[f32; 3]>,
    /// Each body and its mesh index, in the order added.
    bodies: Vec<(BodyId, usize)>,
    /// Dropped crates, oldest first.
    crates: VecDeque<BodyId>,
    /// Edge length of a crate, metres.
    crate_size: f32,
    dropped: usize,
}

impl Bodies {
    /// The bodies of `level` (meshes imported from `dir`, its folder) over `sim`'s water, and
    /// crates of `assets/crate.glb` under `assets_root` (else the crate built into the game),
    /// `crate_size` metres wide.
    pub fn new(
        level: &Level,
        dir: &Path,
        sim: &GpuSimulation,
        assets_root: &Path,
        crate_size: f32,
    ) -> Result<Self, Box<dyn Error>> {
        let limits = ImportLimits::default();
        let file = assets_root.join(CRATE_FILE);
        // A game copied away from the workspace still has its crate: the one built in.
        let crate_mesh = if file.is_file() {
            import(&file, assets_root, &limits)?
        } else {
            import_bytes(Path::new(CRATE_FILE), CRATE_GLB, &limits)?
        };
        let mut out = Self {
            world: BodyWorld::new(sim),
            meshes: vec![Arc::new(crate_mesh)],
            colours: vec![kind_of(CRATE_FILE).colour],
            bodies: Vec::new(),
            crates: VecDeque::new(),
            crate_size,
            dropped: 0,
        };
        // Bodies stay in where the water meets a wall, and leave where it flows out.
        out.world
            .set_edges(&level.boundaries, &level.params.default_boundary);
        // Each file is imported once (the runtime shares its mesh between the bodies naming
        // it) and uploaded once: a mesh's index is where its file first appears.
        let imported = import_meshes(level, dir)?;
        let mut by_file: HashMap<&str, usize> = HashMap::new();
        for (body, mesh) in level.bodies.iter().zip(imported) {
            let index = *by_file.entry(&body.gltf).or_insert_with(|| {
                out.meshes.push(mesh.clone());
                out.colours.push(kind_of(&body.gltf).colour);
                out.meshes.len() - 1
            });
            // A baked level's water holds its bodies where they rest (they enter settled).
            let id = match level.flow {
                Some(_) => out.world.add_settled(body, mesh),
                None => out.world.add(body, mesh),
            };
            out.bodies.push((id, index));
        }
        Ok(out)
    }

    /// Every distinct mesh (uploaded once by the renderer).
    pub fn meshes(&self) -> &[Arc<TriMesh>] {
        &self.meshes
    }

    /// Crates the player dropped that are still in the world.
    pub fn crates(&self) -> usize {
        self.crates.len()
    }

    /// Bodies in the world, placed and dropped.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    /// Whether no body is in the world.
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    /// Drops a crate with its centre at `at`, turned by `yaw` about z.
    pub fn drop_crate(&mut self, at: [f32; 3], yaw: f32) {
        self.dropped += 1;
        let (s, c) = (0.5 * yaw).sin_cos();
        let body = Body {
            name: format!("crate {}", self.dropped),
            gltf: CRATE_FILE.into(),
            translation: at,
            rotation: [0.0, 0.0, s, c],
            scale: [self.crate_size; 3],
            density: CRATE_DENSITY,
            dynamic: true,
            coupling: Coupling::Auto,
            collider: Default::default(),
        };
        let id = self.world.add(&body, self.meshes[0].clone());
        self.bodies.push((id, 0));
        self.crates.push_back(id);
        if self.crates.len() > MAX_CRATES {
            let oldest = self.crates.pop_front().expect("more than MAX_CRATES");
            self.remove(oldest);
        }
    }

    fn remove(&mut self, id: BodyId) {
        self.world.remove(id);
        self.bodies.retain(|b| b.0 != id);
        self.crates.retain(|&c| c != id);
    }

    /// Rebuilds the terrain collider from `ground`, the solver's (a gate opened and lowered
    /// its cells, a breach cut, the bed moved).
    pub fn terrain_changed(&mut self, ground: &[f32]) {
        self.world.set_terrain(ground);
    }

    /// Steps the water and the bodies `steps` times by `dt`: coupled steps while there are
    /// bodies, else the water alone (recorded without waiting).
    pub fn step(
        &mut self,
        sim: &mut GpuSimulation,
        steps: usize,
        dt: f32,
    ) -> Result<(), Box<dyn Error>> {
        if self.bodies.is_empty() {
            if sim.has_blockers() {
                sim.clear_blockers();
            }
            sim.step_n(steps, dt)?;
            return Ok(());
        }
        for _ in 0..steps {
            self.world.step(sim, dt)?;
        }
        // Bodies carried over an open edge fall and are set aside by the world: gone.
        let fallen: Vec<BodyId> = (self.bodies.iter())
            .map(|b| b.0)
            .filter(|&id| self.world.has_left(id) != Some(false))
            .collect();
        for id in fallen {
            self.remove(id);
        }
        Ok(())
    }

    /// Every body as it stands now.
    pub fn shown(&self) -> Vec<Shown> {
        (self.bodies.iter())
            .filter_map(|&(id, mesh)| {
                Some(Shown {
                    mesh,
                    pose: self.world.pose(id)?,
                    colour: self.colours[mesh],
                })
            })
            .collect()
    }
}
