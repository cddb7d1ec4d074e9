//! One sub-step of the CPU solver: forcing, border faces, momentum, the fused limit-and-depth
//! pass, structures, then ghost columns and the ledger.

use super::blocking::{BlockedPipes, BlockedSwe};
use super::kernel::{PassGrid, limit_and_update};
use super::structures::StepWater;
use super::{Simulation, StepError, advect, erosion, forcing, friction, pipes, swe};

impl Simulation {
    pub(super) fn substep(&mut self, dt: f32) -> Result<(), StepError> {
        self.edges.follow(self.time);
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
        let report = match &mut self.swe {
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
                // Without blockers, the flow pass advects each face row as it needs it;
                // the blocked faces read whole grids of advected discharges.
                let fused = self.blocking.is_none();
                if let (Some(m), false) = (self.pipe_momentum.as_mut(), fused) {
                    m.advect_conservative(grid, &self.depth, &self.qx, &self.qy);
                    m.advected_discharges(grid, &self.depth, &self.terrain);
                }
                let (terrain, depth, edges) = (&self.terrain, &self.depth, &self.edges);
                let accel = |qx, qy| pipes::PipesAccel {
                    nx: self.nx,
                    ny: self.ny,
                    terrain,
                    depth,
                    qx,
                    qy,
                    edges,
                    g_dt,
                    fr,
                    cs: p.cross_section,
                };
                let out = (&mut self.qx_next, &mut self.qy_next);
                let (d_new, carry) = (&mut self.depth_next, &mut self.carry);
                // Where nothing changes the faces after the flow pass, it keeps their
                // velocities too.
                let kept = fused && self.structures.is_empty();
                let rows = swe::StoreRows {
                    dx: self.dx,
                    film_cap: self.film_cap,
                };
                let r = match (self.blocking.as_deref(), self.pipe_momentum.as_mut()) {
                    (None, None) => {
                        let acc = accel(&self.qx, &self.qy);
                        limit_and_update(&acc, grid, &self.depth, out.0, out.1, d_new, carry, None)
                    }
                    (None, Some(m)) => {
                        let swe::Velocities {
                            u, v, u_adv, v_adv, ..
                        } = m;
                        let momentum = advect::Momentum {
                            grid,
                            u,
                            v,
                            depth: &self.depth,
                            qx: &self.qx,
                            qy: &self.qy,
                        };
                        let acc = pipes::AdvectedPipes {
                            inner: accel(&self.qx, &self.qy),
                            momentum,
                        };
                        let store =
                            kept.then_some((u_adv.as_mut_slice(), v_adv.as_mut_slice(), rows));
                        limit_and_update(&acc, grid, &self.depth, out.0, out.1, d_new, carry, store)
                    }
                    (Some(blocking), m) => {
                        let (qx, qy) = match m {
                            Some(m) => (&m.u, &m.v),
                            None => (&self.qx, &self.qy),
                        };
                        let acc = BlockedPipes {
                            inner: accel(qx, qy),
                            blocking,
                            grid,
                        };
                        limit_and_update(&acc, grid, &self.depth, out.0, out.1, d_new, carry, None)
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
                if let Some(m) = self.pipe_momentum.as_mut() {
                    if kept {
                        m.keep_stored(r.max_speed);
                    } else {
                        let q = (self.qx_next.as_slice(), self.qy_next.as_slice());
                        m.store(grid, &self.depth, q, false, self.film_cap);
                    }
                }
                r
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
                let fused = conservative && self.blocking.is_none();
                let kept = fused && self.structures.is_empty();
                match p.advection {
                    _ if fused => {}
                    crate::level::Advection::Conservative => {
                        vel.advect_conservative(grid, &self.depth, &self.qx, &self.qy)
                    }
                    crate::level::Advection::SemiLagrangian => vel.advect_semi_lagrangian(grid),
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
                let r = match self.blocking.as_deref() {
                    None if fused => {
                        let swe::Velocities {
                            u, v, u_adv, v_adv, ..
                        } = &mut *vel;
                        let momentum = advect::Momentum {
                            grid,
                            u,
                            v,
                            depth,
                            qx: &self.qx,
                            qy: &self.qy,
                        };
                        let acc = swe::AdvectedSwe {
                            inner: accel((&[], &[])),
                            momentum,
                        };
                        let store =
                            kept.then_some((u_adv.as_mut_slice(), v_adv.as_mut_slice(), rows));
                        limit_and_update(&acc, grid, depth, out.0, out.1, d_new, carry, store)
                    }
                    None => {
                        let acc = accel((&vel.u_adv, &vel.v_adv));
                        limit_and_update(&acc, grid, depth, out.0, out.1, d_new, carry, None)
                    }
                    Some(blocking) => {
                        let acc = BlockedSwe {
                            inner: accel((&vel.u_adv, &vel.v_adv)),
                            blocking,
                            grid,
                        };
                        limit_and_update(&acc, grid, depth, out.0, out.1, d_new, carry, None)
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
                if kept {
                    vel.keep_stored(r.max_speed);
                } else {
                    vel.store(
                        grid,
                        &self.depth,
                        (&self.qx_next, &self.qy_next),
                        !conservative,
                        self.film_cap,
                    );
                }
                r
            }
        };
        if let Some(c) = report.blow_up {
            return Err(StepError::BlowUp {
                x: c % self.nx,
                y: c / self.nx,
                time: self.time,
            });
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
