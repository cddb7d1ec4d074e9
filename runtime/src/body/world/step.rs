//! The coupled step: the bodies rasterised, the water read, then two sides at once.
//!
//! After the bodies are rasterised and the water under them read, the step splits:
//! - the bodies' side (a worker of rayon's pool): buoyancy, drag and damping from the copy of
//!   the water, then rapier's step handed to the world's own pool, then the floaters pushing the
//!   water aside in the copy;
//! - the water's side (the caller): the blockers handed to the solver meanwhile, then, once the
//!   push is done, the floaters' displacement, the water's steps and the read-ahead.
//!
//! Neither side writes what the other reads before they meet (the forces and the blockers read
//! the copy, which only the push writes, after the forces), so the result is the same as one
//! after the other, bit for bit.

use std::time::Instant;

use rapier3d::prelude::{PhysicsWorld, RigidBodySet, Vector};
use rayon::prelude::*;

use super::water::{block, push_floaters, request};
use super::{BodyId, BodyState, BodyWorld, SAMPLES, Scratch, Slot, WAKE_SHARE, WorldError};
use crate::body::Pose;
use crate::body::forces::{Fluid, Motion, Water, WaterForces, water_forces};
use crate::body::raster::{CellGrid, Coverage};
use crate::body::solver::{WaterCopy, WaterSolver};

impl BodyWorld {
    /// One coupled step of `dt` seconds: bodies to water, water to bodies, the water's advance
    /// and the rigid-body step. Rapier steps the bodies on the world's pool while the water
    /// takes the blockers, the floaters' displacement and its own step: neither reads what the
    /// other writes, so the result is the same as one after the other. On a solver error the
    /// bodies are put back where they were.
    pub fn step<S: WaterSolver + ?Sized>(
        &mut self,
        sim: &mut S,
        dt: f32,
    ) -> Result<(), WorldError> {
        self.step_coarse(sim, dt, 1)
    }

    /// A coarser coupled step for fast-forward: the water takes `water_steps` steps of `dt`
    /// under the same blockers while the rigid bodies take one step of `water_steps × dt` (the
    /// forces and the floaters' displacement once, from the water before the first of them).
    /// `step_coarse(sim, dt, 1)` is [`Self::step`] exactly. The water loses nothing (every water
    /// step runs and the volume balance holds); the bodies move as rapier moves them over the
    /// longer step, so a run differs from one coupled at every step. The editor's preview uses
    /// it when the speed asked needs more steps a frame than fit coupled one by one; the bake,
    /// `spillway sim` and `spillway bake` always couple every step. `water_steps` 0 counts as 1.
    pub fn step_coarse<S: WaterSolver + ?Sized>(
        &mut self,
        sim: &mut S,
        dt: f32,
        water_steps: usize,
    ) -> Result<(), WorldError> {
        if !(dt.is_finite() && dt > 0.0) {
            // Refused before anything moves (the water refused it only after the blockers
            // were set and the floaters' water moved).
            return Err(WorldError::Solver(
                crate::sim::StepError::BadTimeStep(dt).into(),
            ));
        }
        let water_steps = water_steps.max(1);
        let body_dt = dt * water_steps as f32;
        // The water's gravity, changed since the world was made (the editor's Level panel while
        // the preview runs): the bodies fell and floated at the old one.
        let g = sim.gravity();
        if g != self.fluid.gravity && g.is_finite() {
            self.fluid.gravity = g;
            self.physics.gravity = Vector::new(0.0, 0.0, -g);
        }
        let mut clock = Instant::now();
        let mut lap = |field: &mut f64| {
            let now = Instant::now();
            *field += (now - clock).as_secs_f64();
            clock = now;
        };
        let mut t = self.times;
        // The bodies rasterised at their poses while the water the last step read ahead comes
        // back (neither touches what the other does).
        let (grid, bodies) = (self.grid, &self.physics.bodies);
        let (slots, water) = (&mut self.slots, &mut self.water);
        let mut took = 0.0;
        let taken = rayon::in_place_scope(|scope| {
            scope.spawn(|_| rasterise(slots, bodies, grid));
            let start = Instant::now();
            let taken = sim.take_cells(water);
            took = start.elapsed().as_secs_f64();
            taken
        })?;
        lap(&mut t.rasterise);
        t.take += took;
        // The water as the last step left it (with the blockers it ran with), then the new
        // blockers: read now or read ahead, the bodies see the same water.
        t.read_now += self.read_water(sim, taken)? as u64;
        self.foresee(body_dt);
        lap(&mut t.read);
        let side_start = clock;
        // The water's side's phases: blockers (with the push), displacement, steps (seconds).
        let mut side = [0.0; 3];
        let before: Vec<(BodyId, BodyState)> = self
            .ids()
            .into_iter()
            .filter_map(|id| Some((id, self.state(id)?)))
            .collect();
        self.physics.integration_parameters.dt = body_dt;
        let pool = self.physics_pool();
        let Self {
            physics,
            slots,
            grid,
            blockers,
            water,
            read_ahead,
            scratch,
            fluid,
            terrain,
            ..
        } = self;
        let terrain = terrain.heights();
        let (grid, read_ahead, fluid) = (*grid, *read_ahead, *fluid);
        let Scratch {
            moved,
            delta,
            keys,
            forces,
            rest,
            ..
        } = scratch;
        let WaterCopy {
            grid: wgrid,
            surface,
            depth,
            qx,
            qy,
        } = water;
        let (surface, qx, qy, wgrid) = (&**surface, &**qx, &**qy, *wgrid);
        // Rapier's time and its lateness, and the forces' time (seconds).
        let mut rapier = (0.0, 0.0);
        let mut forces_took = 0.0;
        // The forces from the copy of the water (which the push then changes).
        let mut set_forces =
            |bodies: &mut RigidBodySet, slots: &[Option<Box<Slot>>], depth: &[f32]| {
                let start = Instant::now();
                let view = Water {
                    nx: wgrid.nx,
                    ny: wgrid.ny,
                    cell_size: wgrid.cell_size,
                    surface,
                    depth,
                    terrain,
                    qx,
                    qy,
                };
                apply_forces(bodies, slots, &view, &fluid, body_dt, forces, rest);
                forces_took = start.elapsed().as_secs_f64();
            };
        let steps = WaterSteps {
            dt,
            count: water_steps,
            read_ahead,
            grid,
        };
        let water_side = match pool {
            // Rapier on a worker of the world's own pool (no thread started per step; a panic
            // there comes back here at the scope's end) after the forces, which run with the
            // floaters' push on rayon's pool while this thread hands the blockers and then the
            // water's step to the solver.
            Some(pool) => pool.in_place_scope(|bodies_scope| {
                let rapier = &mut rapier;
                let shared: &[Option<Box<Slot>>] = slots;
                let (depth_job, moved_job) = (&mut **depth, &mut *moved);
                let blocked = rayon::in_place_scope(|scope| {
                    scope.spawn(move |_| {
                        set_forces(&mut physics.bodies, shared, depth_job);
                        let asked = Instant::now();
                        bodies_scope.spawn(move |_| step_rapier(physics, rapier, asked));
                        push_floaters(shared, grid, surface, depth_job, moved_job, delta, keys);
                    });
                    block(shared, blockers, grid, surface, sim)
                });
                side[0] = side_start.elapsed().as_secs_f64();
                blocked?;
                advance(sim, moved, steps, slots, &mut side)
            }),
            None => {
                set_forces(&mut physics.bodies, slots, depth);
                let result = block(slots, blockers, grid, surface, sim)
                    .map_err(WorldError::from)
                    .and_then(|()| {
                        push_floaters(slots, grid, surface, depth, moved, delta, keys);
                        side[0] = side_start.elapsed().as_secs_f64();
                        advance(sim, moved, steps, slots, &mut side)
                    });
                step_rapier(physics, &mut rapier, Instant::now());
                result
            }
        };
        // The water's side timed its own phases; the rest is the wait for rapier.
        let [block_took, displace_took, advance_took] = side;
        t.block += block_took;
        t.displace += displace_took;
        t.advance += advance_took;
        t.waited += side_start.elapsed().as_secs_f64() - side.iter().sum::<f64>();
        t.forces += forces_took;
        t.physics += rapier.0;
        t.started += rapier.1;
        #[cfg(feature = "rapier-profile")]
        for (sum, stage) in t.rapier_stages.iter_mut().zip(rapier_stages(&self.physics)) {
            *sum += stage;
        }
        for (slot, f) in self
            .slots
            .iter_mut()
            .flatten()
            .zip(self.scratch.forces.iter())
        {
            if let Some(f) = f {
                slot.forces = *f;
            }
        }
        if let Err(e) = water_side {
            // Back where they were, moving as they were; a body set aside after falling off
            // the map stays set aside (`set_state` would bring it back).
            for (id, state) in &before {
                self.put_back(*id, state);
            }
            return Err(e);
        }
        t.steps += 1;
        self.set_aside_fallen();
        self.times = t;
        Ok(())
    }
}

/// Rapier's step of `physics`, with its time and its lateness since `asked` (seconds) in `out`.
fn step_rapier(physics: &mut PhysicsWorld, out: &mut (f64, f64), asked: Instant) {
    let start = Instant::now();
    physics.step();
    *out = (start.elapsed().as_secs_f64(), (start - asked).as_secs_f64());
}

/// Rapier's own stage times of its last step (seconds, in [`super::StepTimes::rapier_stages`]'s
/// order), read only with the feature `rapier-profile` (without it rapier times nothing).
#[cfg(feature = "rapier-profile")]
fn rapier_stages(physics: &PhysicsWorld) -> [f64; 10] {
    let c = &physics.physics_pipeline.counters;
    let s = &c.stages;
    [
        c.step_time.time_ms(),
        s.user_changes.time_ms(),
        s.update_time.time_ms(),
        s.collision_detection_time.time_ms(),
        c.cd.broad_phase_time.time_ms(),
        c.cd.narrow_phase_time.time_ms(),
        s.island_construction_time.time_ms(),
        s.island_constraints_collection_time.time_ms(),
        s.solver_time.time_ms(),
        s.ccd_time.time_ms(),
    ]
    .map(|ms| ms * 1e-3)
}

/// The water's steps of a coupled step: `count` steps of `dt` seconds, then, with
/// `read_ahead`, the request for the water the next step reads over `grid`.
#[derive(Clone, Copy)]
struct WaterSteps {
    dt: f32,
    count: usize,
    read_ahead: bool,
    grid: CellGrid,
}

/// The rest of the water's side: the floaters' displacement (`moved`), then `steps`. Adds the
/// displacement's and the steps' time (seconds) to `side[1]` and `side[2]`.
fn advance<S: WaterSolver + ?Sized>(
    sim: &mut S,
    moved: &[(usize, f32)],
    steps: WaterSteps,
    slots: &mut [Option<Box<Slot>>],
    side: &mut [f64; 3],
) -> Result<(), WorldError> {
    let start = Instant::now();
    sim.displace(moved)?;
    let displaced = Instant::now();
    side[1] += (displaced - start).as_secs_f64();
    sim.advance_steps(steps.dt, steps.count)?;
    // The water around the bodies after this step, read back while the rigid bodies step and
    // rasterise (the GPU does not wait): the next step takes it.
    if steps.read_ahead {
        request(slots, steps.grid, sim)?;
    }
    side[2] += displaced.elapsed().as_secs_f64();
    Ok(())
}

/// Buoyancy, drag and damping on every dynamic body of `slots` for a step of `dt`, from the
/// water after its step (drag no more than stops a body relative to the water within `dt`).
/// `out` gets each slot's forces in order (`None` for a body that takes none). A body asleep in
/// rapier (at rest for half a second) is woken, with everything resting on it, once its water
/// forces move more than [`WAKE_SHARE`] of its weight from those it fell asleep under (`rest`,
/// by slot index).
fn apply_forces(
    bodies: &mut RigidBodySet,
    slots: &[Option<Box<Slot>>],
    water: &Water,
    fluid: &Fluid,
    dt: f32,
    out: &mut Vec<Option<WaterForces>>,
    rest: &mut Vec<Option<[f32; 6]>>,
) {
    out.clear();
    rest.resize(slots.len(), None);
    for (slot, rest) in slots.iter().zip(rest.iter_mut()) {
        let Some(slot) = slot else {
            *rest = None;
            continue;
        };
        let rb = bodies.get_mut(slot.handle).filter(|_| slot.dynamic);
        let Some(rb) = rb else {
            out.push(None);
            continue;
        };
        let (c, v, w) = (rb.center_of_mass(), rb.linvel(), rb.angvel());
        let motion = Motion {
            center_of_mass: [c.x, c.y, c.z],
            linear_velocity: [v.x, v.y, v.z],
            angular_velocity: [w.x, w.y, w.z],
        };
        let inertia = rb.mass_properties().local_mprops.principal_inertia();
        let f = water_forces(&slot.coverage, &motion, water, fluid).limited(
            rb.mass(),
            [inertia.x, inertia.y, inertia.z],
            fluid.gravity,
            dt,
        );
        // Damping toward rest, as the paper does (§4): it takes out the energy of the bobbing
        // and spinning that forces sampled on a grid add. The current carries a body through
        // drag alone.
        let m = rb.mass();
        // The floaters' heave damped more (their push on the water keeps it going).
        let heave = match slot.blocks {
            false => f.linear_damping + fluid.heave_damping * f.submerged_fraction,
            true => f.linear_damping,
        };
        // As the decay it stands for: the velocity falls to v·e^(−λ·dt) over the step
        // (applied as −λ·m·v, a step longer than 1/λ reversed it, and one longer than 2/λ made
        // it grow).
        let implicit = |rate: f32| {
            if dt > 0.0 {
                -(-rate * dt).exp_m1() / dt
            } else {
                rate
            }
        };
        let (along, up) = (implicit(f.linear_damping), implicit(heave));
        let damp = [-along * m * v.x, -along * m * v.y, -up * m * v.z];
        let force = [
            f.force[0] + damp[0],
            f.force[1] + damp[1],
            f.force[2] + damp[2],
        ];
        // Asleep (rapier: at rest for half a second) only under the forces it fell asleep
        // under.
        let weight = m * fluid.gravity.abs();
        let now = [f.force, f.torque]
            .as_flattened()
            .try_into()
            .unwrap_or([0.0; 6]);
        let changed = rb.is_sleeping() && {
            let at_rest = *rest.get_or_insert(now);
            let share = WAKE_SHARE * weight;
            // The torque's share about the body's radius of gyration.
            let radius = (inertia.max_element() / m.max(f32::MIN_POSITIVE)).sqrt();
            let (df, dm) = (
                distance(&now[..3], &at_rest[..3]),
                distance(&now[3..], &at_rest[3..]),
            );
            !(df <= share && dm <= share * radius)
        };
        if !rb.is_sleeping() || changed {
            *rest = None;
        }
        rb.reset_forces(false);
        rb.reset_torques(false);
        if force.iter().chain(&f.torque).all(|x| x.is_finite()) {
            rb.add_force(Vector::new(force[0], force[1], force[2]), false);
            rb.add_torque(Vector::new(f.torque[0], f.torque[1], f.torque[2]), false);
        }
        if changed {
            rb.wake_up(true);
        }
        rb.set_angular_damping(f.angular_damping);
        out.push(Some(f));
    }
}

/// The distance between two vectors of three.
fn distance(a: &[f32], b: &[f32]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// Rasterises every body at its current pose, in parallel; a body that has not moved (at rest
/// or asleep) keeps its coverage without being rasterised again. The coverage of the step
/// before becomes `previous`, and the buffers of the one before that are reused.
fn rasterise(slots: &mut [Option<Box<Slot>>], bodies: &RigidBodySet, grid: CellGrid) {
    slots.par_iter_mut().flatten().for_each(|slot| {
        let Some(rb) = bodies.get(slot.handle) else {
            return;
        };
        let p = rb.position();
        let (t, r) = (p.translation, p.rotation);
        let pose = Pose {
            translation: [t.x, t.y, t.z],
            rotation: [r.x, r.y, r.z, r.w],
            scale: slot.scale,
        };
        let mut now = std::mem::take(&mut slot.previous);
        if slot.left {
            // Set aside under the ground: out of the coupling.
            now = Coverage::default();
        } else if slot.rasterised_at == Some(pose) {
            now.clone_from(&slot.coverage);
        } else {
            now.rasterise_into(&slot.mesh, &pose, grid, SAMPLES);
        }
        slot.rasterised_at = Some(pose);
        slot.settle = std::mem::take(&mut slot.rebase);
        if slot.settle {
            // Where a state put it, the water already holds it (a keyframe restored with
            // its water): no water moves for the jump (it pushed its whole volume aside again).
            slot.previous.clone_from(&now);
            slot.coverage = now;
        } else {
            slot.previous = std::mem::replace(&mut slot.coverage, now);
        }
    });
}
