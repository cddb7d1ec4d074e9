//! Crates the player drops: rapier bodies coupled both ways to the water by spillway's
//! [`BodyWorld`].
//!
//! `BodyWorld` steps with the CPU [`Simulation`] only (driving the GPU solver with it is under
//! way), so the crates live on a CPU twin of the water: at the first drop the GPU's water is
//! baked into a copy of the level ([`GpuSimulation::bake_into`]), a CPU `Simulation` starts
//! from it with the gates opened so far, and it then steps in lockstep with the GPU solver and
//! opens the same gates. The crates float, drift and knock into the ground on the twin, which
//! follows the same physics from the same state; the water drawn is the GPU's, which does not
//! feel the crates.

use std::collections::VecDeque;
use std::error::Error;
use std::path::Path;
use std::sync::Arc;

use spillway::Simulation;
use spillway::body::import::{ImportError, ImportLimits, import};
use spillway::body::world::{BodyId, BodyWorld, WorldError};
use spillway::body::{Pose, TriMesh};
use spillway::gpu::GpuSimulation;
use spillway::level::{Body, Coupling, Level};

/// Most crates at once: dropping more removes the oldest.
const MAX_CRATES: usize = 48;
/// Density of a crate, kg/m³: wood, so it floats.
const DENSITY: f32 = 600.0;

/// The CPU water the crates are coupled to, and their rapier world.
struct Twin {
    sim: Simulation,
    world: BodyWorld,
}

/// The dropped crates.
pub struct Crates {
    mesh: Arc<TriMesh>,
    /// Edge length of a crate, metres.
    size: f32,
    /// Below this height a crate has fallen off the map and is removed.
    floor: f32,
    twin: Option<Twin>,
    ids: VecDeque<BodyId>,
    dropped: usize,
}

impl Crates {
    /// Crates of `assets/crate.glb` under `root` (the workspace), `size` metres wide; crates
    /// below `floor` are removed.
    pub fn new(root: &Path, size: f32, floor: f32) -> Result<Self, ImportError> {
        let mesh = import(
            &root.join("assets/crate.glb"),
            root,
            &ImportLimits::default(),
        )?;
        Ok(Self {
            mesh: Arc::new(mesh),
            size,
            floor,
            twin: None,
            ids: VecDeque::new(),
            dropped: 0,
        })
    }

    /// The crate mesh (a unit cube; poses scale it).
    pub fn mesh(&self) -> &TriMesh {
        &self.mesh
    }

    /// Crates in the world.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Drops a crate with its centre at `at`, turned by `yaw` about z. The first drop starts
    /// the CPU twin from the GPU's water now (a blocking read-back, once).
    pub fn drop_at(
        &mut self,
        gpu: &mut GpuSimulation,
        level: &Level,
        at: [f32; 3],
        yaw: f32,
    ) -> Result<(), Box<dyn Error>> {
        let twin = match &mut self.twin {
            Some(t) => t,
            None => {
                let baked = gpu.bake_into(level)?;
                let mut sim = Simulation::new(&baked)?;
                for gate in gpu.gates().iter().filter(|g| g.open) {
                    sim.open_gate(&gate.name);
                }
                let world = BodyWorld::new(&sim);
                self.twin.insert(Twin { sim, world })
            }
        };
        self.dropped += 1;
        let (s, c) = (0.5 * yaw).sin_cos();
        let body = Body {
            name: format!("crate {}", self.dropped),
            gltf: "assets/crate.glb".into(),
            translation: at,
            rotation: [0.0, 0.0, s, c],
            scale: [self.size; 3],
            density: DENSITY,
            dynamic: true,
            coupling: Coupling::Auto,
        };
        self.ids.push_back(twin.world.add(&body, self.mesh.clone()));
        while self.ids.len() > MAX_CRATES {
            let oldest = self.ids.pop_front().expect("more than MAX_CRATES");
            twin.world.remove(oldest);
        }
        Ok(())
    }

    /// Opens gate `name` on the twin too.
    pub fn open_gate(&mut self, name: &str) {
        if let Some(t) = &mut self.twin {
            t.sim.open_gate(name);
        }
    }

    /// Steps the twin and the crates `steps` times by `dt`, as the GPU solver was stepped.
    pub fn step(&mut self, steps: usize, dt: f32) -> Result<(), WorldError> {
        let Some(t) = &mut self.twin else {
            return Ok(());
        };
        for _ in 0..steps {
            t.world.step(&mut t.sim, dt)?;
        }
        let floor = self.floor;
        self.ids.retain(|&id| {
            let fallen = t.world.pose(id).is_none_or(|p| p.translation[2] < floor);
            if fallen {
                t.world.remove(id);
            }
            !fallen
        });
        Ok(())
    }

    /// Where every crate is now.
    pub fn poses(&self) -> Vec<Pose> {
        let Some(t) = &self.twin else {
            return Vec::new();
        };
        self.ids.iter().filter_map(|&id| t.world.pose(id)).collect()
    }
}
