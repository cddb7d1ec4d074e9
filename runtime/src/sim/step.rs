//! One sub-step of the CPU solver: forcing, border faces, momentum, the fused limit-and-depth
//! pass, structures, then ghost columns and the ledger.

use super::blocking::{BlockedPipes, BlockedSwe, UpperStep};
use super::kernel::{PassGrid, limit_and_update};
use super::structures::StepWater;
use super::{Simulation, StepError, advect, erosion, forcing, friction, pipes, swe};

/// What a sub-step does with the face velocities once its water is known to be finite.
enum Velocities {
    /// The solver advects none.
    None,
    /// The flow pass wrote them beside the old ones: take them, with their fastest speed.
    Keep(f32),
    /// Compute them from the new discharges (`extend`: one face into the dry side of fronts).
    Store {
        /// Extend them past wet fronts (semi-Lagrangian advection).
        extend: bool,
    },
}

impl Simulation {
    pub(super) fn substep(&mut self, dt: f32) -> Result<(), StepError> {
        // Schedules are read at the sub-step's middle (their average over it), as on the GPU.
        self.edges.follow(self.time + 0.5 * dt as f64);
        self.structures
            .open_breaches(&mut self.terrain, &self.depth, (self.time, dt));
        let p = &self.params;
        let rain = p.rain_mm_per_hour / 1000.0 / 3600.0;
        let (added, removed) = forcing::apply(
            &self.patches,
            rain,
            &self.terrain,
            &mut self.depth,
            &mut self.carry,
            (self.time, dt),
            self.dx,
        );
        let fr = friction::BedFriction::new(p, self.roughness.as_deref(), dt, self.dx);
        let g_dt = p.gravity * dt;
        let grid = PassGrid {
            nx: self.nx,
            ny: self.ny,
            dt,
            dx: self.dx,
        };
        let created;
        let (report, velocities) = match &mut self.swe {
            None => {
                self.edges.accelerate(
                    &self.terrain,
                    &self.depth,
                    (&self.qx, &self.qy),
                    grid,
                    g_dt,
                    &fr,
                    p.cross_section,
                );
                // The flow pass advects each face row as it needs it, and keeps the face
                // velocities where nothing changes the faces after it.
                let (terrain, depth, edges) = (&self.terrain, &self.depth, &self.edges);
                let accel = pipes::PipesAccel {
                    nx: self.nx,
                    ny: self.ny,
                    terrain,
                    depth,
                    qx: &self.qx,
                    qy: &self.qy,
                    edges,
                    g_dt,
                    fr,
                    cs: p.cross_section,
                };
                let out = (&mut self.qx_next, &mut self.qy_next);
                let (d_new, carry) = (&mut self.depth_next, &mut self.carry);
                let kept = self.structures.is_empty();
                let rows = swe::StoreRows {
                    dx: self.dx,
                    film_cap: self.film_cap,
                };
                let (momentum, store) = match self.pipe_momentum.as_mut() {
                    Some(swe::Velocities {
                        u, v, u_adv, v_adv, ..
                    }) => {
                        let m = advect::Momentum {
                            grid,
                            u,
                            v,
                            depth,
                            qx: &self.qx,
                            qy: &self.qy,
                        };
                        let store =
                            kept.then_some((u_adv.as_mut_slice(), v_adv.as_mut_slice(), rows));
                        (Some(m), store)
                    }
                    None => (None, None),
                };
                let r = match (self.blocking.as_deref(), momentum) {
                    (None, None) => {
                        limit_and_update(&accel, grid, depth, out.0, out.1, d_new, carry, None)
                    }
                    (None, Some(momentum)) => {
                        let acc = pipes::AdvectedPipes {
                            inner: accel,
                            momentum,
                            skip_dry: self.skip_dry,
                        };
                        limit_and_update(&acc, grid, depth, out.0, out.1, d_new, carry, store)
                    }
                    (Some(blocking), momentum) => {
                        let acc = BlockedPipes {
                            inner: accel,
                            blocking,
                            grid,
                            momentum,
                        };
                        limit_and_update(&acc, grid, depth, out.0, out.1, d_new, carry, store)
                    }
                };
                created = self.structures.apply(
                    StepWater {
                        terrain: &self.terrain,
                        old: &self.depth,
                        new: &mut self.depth_next,
                        qx: &mut self.qx_next,
                        qy: &mut self.qy_next,
                    },
                    (self.time, dt),
                    self.dx,
                    p.gravity,
                );
                let velocities = match (&self.pipe_momentum, kept) {
                    (None, _) => Velocities::None,
                    (Some(_), true) => Velocities::Keep(r.max_speed),
                    (Some(_), false) => Velocities::Store { extend: false },
                };
                (r, velocities)
            }
            Some(vel) => {
                // The edges use the pipes rule on the border faces with upwind sections.
                self.edges.accelerate(
                    &self.terrain,
                    &self.depth,
                    (&self.qx, &self.qy),
                    grid,
                    g_dt,
                    &fr,
                    crate::level::CrossSection::Upwind,
                );
                // Without blockers, the flow pass advects each face row of the conservative
                // scheme as it needs it, and keeps the velocities where nothing changes the
                // faces after it.
                let conservative = p.advection == crate::level::Advection::Conservative;
                let fused = conservative;
                let kept = fused && self.structures.is_empty();
                if !conservative {
                    vel.advect_semi_lagrangian(grid);
                }
                let (terrain, depth, edges) = (&self.terrain, &self.depth, &self.edges);
                let accel = |adv| swe::SweAccel {
                    grid,
                    terrain,
                    depth,
                    adv,
                    edges,
                    g_dt,
                    fr,
                };
                let out = (&mut self.qx_next, &mut self.qy_next);
                let (d_new, carry) = (&mut self.depth_next, &mut self.carry);
                let rows = swe::StoreRows {
                    dx: self.dx,
                    film_cap: self.film_cap,
                };
                let swe::Velocities {
                    u, v, u_adv, v_adv, ..
                } = &mut *vel;
                let (momentum, store, adv) = if fused {
                    let m = advect::Momentum {
                        grid,
                        u,
                        v,
                        depth,
                        qx: &self.qx,
                        qy: &self.qy,
                    };
                    let store = kept.then_some((u_adv.as_mut_slice(), v_adv.as_mut_slice(), rows));
                    (Some(m), store, (&[][..], &[][..]))
                } else {
                    (None, None, (&u_adv[..], &v_adv[..]))
                };
                let r = match (self.blocking.as_deref(), momentum) {
                    (None, Some(momentum)) => {
                        let acc = swe::AdvectedSwe {
                            inner: accel((&[], &[])),
                            momentum,
                            skip_dry: self.skip_dry,
                        };
                        limit_and_update(&acc, grid, depth, out.0, out.1, d_new, carry, store)
                    }
                    (None, None) => {
                        let acc = accel(adv);
                        limit_and_update(&acc, grid, depth, out.0, out.1, d_new, carry, None)
                    }
                    (Some(blocking), momentum) => {
                        let acc = BlockedSwe {
                            inner: accel(adv),
                            blocking,
                            grid,
                            momentum,
                        };
                        limit_and_update(&acc, grid, depth, out.0, out.1, d_new, carry, store)
                    }
                };
                created = self.structures.apply(
                    StepWater {
                        terrain: &self.terrain,
                        old: &self.depth,
                        new: &mut self.depth_next,
                        qx: &mut self.qx_next,
                        qy: &mut self.qy_next,
                    },
                    (self.time, dt),
                    self.dx,
                    p.gravity,
                );
                let velocities = if kept {
                    Velocities::Keep(r.max_speed)
                } else {
                    Velocities::Store {
                        extend: !conservative,
                    }
                };
                (r, velocities)
            }
        };
        if let Some(c) = report.blow_up {
            // The sinks took from the water kept: count what they took, so the balance stays
            // true of the water the step leaves. The sources' and the rain's water went into
            // the carry, which the failed pass emptied into the depths thrown away: not kept,
            // so not booked (it was, and the balance was off by it after every blow-up; a NaN
            // rate's left the ledger NaN for good). The residues the failed pass wrote where
            // it blew up go (they made every later step blow up there too), and the face
            // velocities stay those of the water kept.
            let _ = added;
            if removed.is_finite() {
                self.outflow += removed;
            }
            for c in self.carry.iter_mut().filter(|c| !c.is_finite()) {
                *c = 0.0;
            }
            return Err(StepError::BlowUp {
                x: c % self.nx,
                y: c / self.nx,
                time: self.time,
            });
        }
        if let Some(v) = self.swe.as_mut().or(self.pipe_momentum.as_mut()) {
            match velocities {
                Velocities::None => {}
                Velocities::Keep(max_speed) => v.keep_stored(max_speed),
                Velocities::Store { extend } => {
                    let q = (self.qx_next.as_slice(), self.qy_next.as_slice());
                    v.store(grid, &self.depth, q, extend, self.film_cap);
                }
            }
        }
        std::mem::swap(&mut self.depth, &mut self.depth_next);
        std::mem::swap(&mut self.qx, &mut self.qx_next);
        std::mem::swap(&mut self.qy, &mut self.qy_next);
        let (e_in, e_out) = self.edges.finish(
            &self.qx,
            &self.qy,
            &self.terrain,
            &self.depth,
            self.nx,
            self.ny,
            self.params.gravity,
            dt,
            self.dx,
        );
        if let Some(b) = self.blocking.as_mut() {
            let upper = UpperStep {
                g_dt,
                dt,
                dx: self.dx,
                friction: &fr,
                rain: rain * dt,
            };
            b.flow_upper(&self.terrain, &mut self.depth, &upper);
            b.update_surface(&self.terrain, &self.depth);
        }
        if let Some(bed) = self.bed.as_mut() {
            let q = (self.qx.as_slice(), self.qy.as_slice());
            let g = self.params.gravity;
            let rough = erosion::Roughness::new(self.params.friction, self.roughness.as_deref());
            bed.erode(
                &mut self.terrain,
                &self.depth,
                q,
                &self.edges,
                grid,
                g,
                rough,
            );
        }
        self.inflow += added + e_in + created;
        self.outflow += removed + e_out;
        self.max_depth = report.max_depth;
        self.time += dt as f64;
        self.substeps += 1;
        Ok(())
    }
}
