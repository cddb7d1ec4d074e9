//! Water-to-body forces (Kellomäki 2014 §4): buoyancy and drag per covered cell, and damping by
//! submerged fraction. Engine-neutral: the inputs are a body's [`Coverage`], its motion and a
//! [`Water`] view; the output is a force and torque about the centre of mass for any physics
//! engine to apply, plus damping rates.
//!
//! Per covered cell `A` with cover `c`, the submerged extent `u` is the part of the body's
//! mean column (mean bottom and mean thickness over the covered samples) below the effective
//! surface `s(A)` and above the cell's ground ([`Water::terrain`]):
//! - buoyancy `ρ·g·c·u·ℓ²` upward, at the cell centre, halfway up the submerged part;
//! - drag `½·C·ρ·c·u·ℓ·(ℓ / 1 m)·|Δv|·Δv` with `Δv` the water velocity (horizontal; the water
//!   does not move up or down) minus the body's velocity at that point, applied at the same point. The paper's `½·C·ρ·u·ℓ·Δv²` on
//!   its 1 m cells; the factor `ℓ / 1 m` keeps a body's drag the same on any cell size (it sums
//!   to `½·C·ρ·V/(1 m)·|Δv|·Δv` for a submerged volume `V`);
//! - damping: `linear_damping · f` and `angular_damping · f` (1/s), `f` the submerged fraction,
//!   for the engine's damping of the body (it tames the excess rotation that forces sampled on a
//!   grid cause).
//!
//! Drag is applied for a whole step, from the velocities at its start. On a light, flat body
//! (a plank: 15 kg over two cells) entering the water fast, that impulse can exceed what
//! stops the body relative to the water, and the next step's drag, the other way, is larger
//! still: the body is flung off at hundreds of m/s. Buoyancy on a body far lighter than water
//! does the same upward. [`WaterForces::limited`] caps the drag of a step at what brings the
//! body to the water's velocity, as an implicit step would, and the lift at what carries it up
//! by its submersion.

use super::raster::Coverage;
use crate::sim::Simulation;

/// The cell size of the paper's drag formula, metres.
const REFERENCE_CELL: f32 = 1.0;

/// The water state the forces read: one view of a simulation's grids.
#[derive(Clone, Copy, Debug)]
pub struct Water<'a> {
    /// Cells along x.
    pub nx: usize,
    /// Cells along y.
    pub ny: usize,
    /// Cell size, metres.
    pub cell_size: f32,
    /// Effective surface per cell, metres (`Simulation::effective_surface`).
    pub surface: &'a [f32],
    /// Water depth per cell, metres.
    pub depth: &'a [f32],
    /// Ground height per cell, metres (the solver's terrain); empty when unknown, every
    /// column of a body then taken as standing above the ground. A body's part below the
    /// ground of its cell (a crate on a slope, its downhill side below the cell's centre
    /// height) is under no water.
    pub terrain: &'a [f32],
    /// x-face discharges, `(nx+1)·ny`, m³/s (`Simulation::discharges`).
    pub qx: &'a [f32],
    /// y-face discharges, `nx·(ny+1)`, m³/s.
    pub qy: &'a [f32],
}

impl<'a> Water<'a> {
    /// The water of `sim`, with `surface` its effective surface
    /// (`Simulation::effective_surface`).
    pub fn of(sim: &'a Simulation, surface: &'a [f32]) -> Self {
        let (qx, qy) = sim.discharges();
        Self {
            nx: sim.nx(),
            ny: sim.ny(),
            cell_size: sim.cell_size(),
            surface,
            depth: sim.depth(),
            terrain: sim.terrain(),
            qx,
            qy,
        }
    }

    /// Whether the grids have the sizes `nx`, `ny` imply.
    pub fn is_consistent(&self) -> bool {
        let n = self.nx * self.ny;
        self.surface.len() == n
            && self.depth.len() == n
            && (self.terrain.is_empty() || self.terrain.len() == n)
            && self.qx.len() == (self.nx + 1) * self.ny
            && self.qy.len() == self.nx * (self.ny + 1)
    }

    /// Horizontal water velocity of cell `(i, j)`, m/s; zero under 1 mm of water.
    pub fn velocity(&self, i: usize, j: usize) -> [f32; 2] {
        let (nx, k) = (self.nx, j * self.nx + i);
        let h = self.depth[k];
        if h <= 1e-3 {
            return [0.0, 0.0];
        }
        let qx = 0.5 * (self.qx[j * (nx + 1) + i] + self.qx[j * (nx + 1) + i + 1]);
        let qy = 0.5 * (self.qy[k] + self.qy[k + nx]);
        [qx / (h * self.cell_size), qy / (h * self.cell_size)]
    }
}

/// Constants of the water-to-body coupling.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fluid {
    /// Water density, kg/m³.
    pub density: f32,
    /// Gravitational acceleration, m/s².
    pub gravity: f32,
    /// Drag coefficient `C` (the paper uses 1–15).
    pub drag: f32,
    /// Linear damping rate of a fully submerged body, 1/s.
    pub linear_damping: f32,
    /// Angular damping rate of a fully submerged body, 1/s.
    pub angular_damping: f32,
    /// Damping rate of a fully submerged body's vertical motion on top of `linear_damping`,
    /// 1/s: the heave that the floaters' push on the water ([`crate::body::world`]) keeps
    /// going, damped without slowing a drift along the surface.
    pub heave_damping: f32,
}

impl Default for Fluid {
    fn default() -> Self {
        Self {
            density: 1000.0,
            gravity: 9.81,
            drag: 5.0,
            linear_damping: 0.5,
            angular_damping: 1.0,
            heave_damping: 0.0,
        }
    }
}

/// A body's motion, world frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Motion {
    /// Centre of mass, metres.
    pub center_of_mass: [f32; 3],
    /// Velocity of the centre of mass, m/s.
    pub linear_velocity: [f32; 3],
    /// Angular velocity, rad/s.
    pub angular_velocity: [f32; 3],
}

/// What the water does to one body this step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WaterForces {
    /// Buoyancy, N (upward).
    pub buoyancy: [f32; 3],
    /// Drag, N.
    pub drag: [f32; 3],
    /// Buoyancy plus drag, N, to apply at the centre of mass together with `torque`.
    pub force: [f32; 3],
    /// Torque of buoyancy and drag about the centre of mass, N·m.
    pub torque: [f32; 3],
    /// The part of `torque` that is drag's, N·m.
    pub drag_torque: [f32; 3],
    /// How fast the drag grows with the body's velocity relative to the water: the sum of
    /// `|drag| / |Δv|` over the cells, N·s/m.
    pub drag_rate: f32,
    /// The same for spin: the sum of `|drag| / |Δv| · r²` over the cells, `r` the distance from
    /// the centre of mass, N·m·s.
    pub drag_spin_rate: f32,
    /// How deep the body's deepest column reaches under the surface, metres.
    pub deepest: f32,
    /// Volume of the body below the effective surface, m³.
    pub submerged_volume: f32,
    /// `submerged_volume` over the body's volume from its coverage, 0..1.
    pub submerged_fraction: f32,
    /// Linear damping rate to apply, 1/s.
    pub linear_damping: f32,
    /// Angular damping rate to apply, 1/s.
    pub angular_damping: f32,
}

/// The water's forces on a body covering `coverage` and moving with `motion` (§4). Cells of the
/// coverage outside `water`'s grid, and a `water` whose grids do not match its size, contribute
/// nothing.
pub fn water_forces(
    coverage: &Coverage,
    motion: &Motion,
    water: &Water,
    fluid: &Fluid,
) -> WaterForces {
    let mut out = WaterForces::default();
    if !water.is_consistent() {
        return out;
    }
    let l = water.cell_size;
    let area = l * l;
    let com = motion.center_of_mass;
    let column_volume = coverage.volume();
    let mut submerged = 0.0f64;
    for k in 0..coverage.window_cells() {
        let c = coverage.cover[k];
        let (i, j) = (
            coverage.i0 + k % coverage.width,
            coverage.j0 + k / coverage.width,
        );
        if c <= 0.0 || i >= water.nx || j >= water.ny {
            continue;
        }
        let cell = j * water.nx + i;
        let (bottom, thickness) = (coverage.mean_bottom[k], coverage.thickness[k]);
        let top = bottom + thickness.max(0.0);
        // The column's part in the water: above the ground (buoyancy and drag on dry slopes
        // came from the part below it).
        let bottom = bottom.max(
            water
                .terrain
                .get(cell)
                .copied()
                .unwrap_or(f32::NEG_INFINITY),
        );
        let s = water.surface[cell];
        let u = (s - bottom).clamp(0.0, (top - bottom).max(0.0));
        if !(u > 0.0 && u.is_finite()) {
            continue;
        }
        submerged += (c * u * area) as f64;
        out.deepest = out.deepest.max(u);
        // Where the body's volume over the cell stands (the cell's centre for a coverage
        // without it).
        let [x, y] = (coverage.centre.get(k).copied())
            .unwrap_or([(i as f32 + 0.5) * l, (j as f32 + 0.5) * l]);
        let at = [x, y, bottom + 0.5 * u];
        let arm = sub(at, com);
        let lift = [0.0, 0.0, fluid.density * fluid.gravity * c * u * area];
        // Body velocity at the point: v + ω × r.
        let spin = cross(motion.angular_velocity, arm);
        let water_v = water.velocity(i, j);
        let dv = [
            water_v[0] - motion.linear_velocity[0] - spin[0],
            water_v[1] - motion.linear_velocity[1] - spin[1],
            -motion.linear_velocity[2] - spin[2],
        ];
        let speed = (dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]).sqrt();
        let k = 0.5 * fluid.drag * fluid.density * c * u * l * (l / REFERENCE_CELL) * speed;
        let drag = [k * dv[0], k * dv[1], k * dv[2]];
        out.buoyancy = add(out.buoyancy, lift);
        out.drag = add(out.drag, drag);
        out.torque = add(out.torque, cross(arm, add(lift, drag)));
        out.drag_torque = add(out.drag_torque, cross(arm, drag));
        out.drag_rate += k;
        out.drag_spin_rate += k * (arm[0] * arm[0] + arm[1] * arm[1] + arm[2] * arm[2]);
    }
    out.force = add(out.buoyancy, out.drag);
    out.submerged_volume = submerged as f32;
    out.submerged_fraction = if column_volume > 0.0 {
        (submerged / column_volume).clamp(0.0, 1.0) as f32
    } else {
        0.0
    };
    out.linear_damping = fluid.linear_damping * out.submerged_fraction;
    out.angular_damping = fluid.angular_damping * out.submerged_fraction;
    out
}

impl WaterForces {
    /// These forces for a step of `dt` seconds on a body of `mass` (kg) with principal moments
    /// of inertia `inertia` (kg·m²), under `gravity` (m/s²), kept within what an explicit step
    /// can take:
    /// - drag (and its torque) scaled down where, applied for the whole step, it would more
    ///   than stop the body relative to the water: `drag_rate·dt > mass`, or
    ///   `drag_spin_rate·dt > inertia` for spin about the axis of the smallest moment; and, since
    ///   drag at a point off the centre of mass also turns the body, which speeds the point's
    ///   change, `drag_rate·dt/mass + drag_spin_rate·dt/I` over 1, `I` the largest moment (a
    ///   plank of 1.5 kg took a step's drag on its submerged end up to what stops that end as if
    ///   it carried the plank's whole mass, and left the water at 11.41 m/s);
    /// - buoyancy (and its torque) scaled down where its lift beyond the body's weight would
    ///   carry the body up by more than its deepest submersion in one step (a body much
    ///   lighter than water, pushed under: a cork log would otherwise leave the water at
    ///   15 m/s after a step of 1/12 s).
    ///
    /// Forces within all three are unchanged. Non-finite or non-positive arguments change
    /// nothing.
    pub fn limited(mut self, mass: f32, inertia: [f32; 3], gravity: f32, dt: f32) -> Self {
        let share = |rate: f32, of: f32| {
            let impulse = rate * dt;
            if of > 0.0 && of.is_finite() && impulse > of && impulse.is_finite() {
                of / impulse
            } else {
                1.0
            }
        };
        let (smallest, largest) = (
            inertia[0].min(inertia[1]).min(inertia[2]),
            inertia[0].max(inertia[1]).max(inertia[2]),
        );
        // A point's change in a step per unit of its speed against the water, from the drag
        // moving the body and, where the body can turn, turning it: at most 1.
        let turned = match largest > 0.0 && largest.is_finite() {
            true => self.drag_spin_rate * dt / largest,
            false => 0.0,
        };
        let both = match mass > 0.0 && mass.is_finite() {
            true => self.drag_rate * dt / mass + turned,
            false => 0.0,
        };
        let linear = if both > 1.0 && both.is_finite() {
            1.0 / both
        } else {
            1.0
        };
        let turning = linear.min(share(self.drag_spin_rate, smallest));
        // The most lift beyond the weight: Δv·dt ≤ deepest, Δv = lift·dt / mass.
        let weight = mass * gravity;
        let most = weight + mass * self.deepest / (dt * dt);
        let lifting = if self.buoyancy[2] > most && most.is_finite() && weight >= 0.0 {
            most / self.buoyancy[2]
        } else {
            1.0
        };
        if linear == 1.0 && turning == 1.0 && lifting == 1.0 {
            return self;
        }
        let lift_torque = sub(self.torque, self.drag_torque);
        let kept = self.drag_torque.map(|t| t * turning);
        self.torque = add(lift_torque.map(|t| t * lifting), kept);
        self.drag_torque = kept;
        self.drag = self.drag.map(|d| d * linear);
        self.buoyancy = self.buoyancy.map(|b| b * lifting);
        self.force = add(self.buoyancy, self.drag);
        self
    }
}

fn add(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
