//! The upper water columns (Kellomäki 2014 §3.1, §3.4): water standing on top of a body raised
//! off the terrain flows through the upper interfaces on its own, with its own stored
//! discharges, so that it stays on top and runs off the body's edges instead of joining the
//! water in the gap below (rain on a trough on stilts, a wave over a cart).
//!
//! The upper flow runs after each sub-step's depth update, over the faces of raised stored
//! cells (`Column::raised`). Each such face joins the upper column of a raised side to the water
//! of the other side above the interface's floor (the higher of the two sides' floors: a
//! blocker's top, or the terrain of a free cell). It is a pipe like every other: accelerated by
//! the difference of the two heads, with bed friction, carrying at most its section a step, and
//! each side's outflows scaled to the water it has (§3.4). Rain on a raised body lands on top.
//!
//! The gap's water and the upper column meet only around the body, except where the water
//! around a raised body stands over its top (its effective surface, the pressure of the gap, is
//! at or above it: a submerged body). There the two are one body of water: the gap is full and
//! the rest stands on top.

use super::super::friction::BedFriction;
use super::{BLOCKED_COVER, Blocking, film, partial_surface};

/// Where the water of one side of an upper interface is kept.
#[derive(Clone, Copy, PartialEq)]
enum Holder {
    /// The upper column of the `stored` cell with this index.
    Upper(usize),
    /// The cell's depth.
    Cell,
}

/// One side of an upper interface.
#[derive(Clone, Copy)]
struct Side {
    /// Bottom of the water that may pass (a blocker's top, or a free cell's terrain).
    floor: f32,
    /// Top of that water.
    top: f32,
    /// Its volume per area, what the side may give in one step.
    water: f32,
    holder: Holder,
}

/// A face of the upper flow in one sub-step: its cells, its discharge before limiting.
#[derive(Clone, Copy)]
pub(super) struct UpperFace {
    l: u32,
    r: u32,
    /// Whether the face is along x (`r = l + 1`), else along y (`r = l + nx`).
    x: bool,
    q: f32,
    holders: (Holder, Holder),
    water: (f32, f32),
}

/// What the upper flow needs of the sub-step.
pub(crate) struct UpperStep<'a> {
    /// Gravity times the sub-step, m/s.
    pub g_dt: f32,
    /// The sub-step, seconds.
    pub dt: f32,
    /// Cell size, metres.
    pub dx: f32,
    /// Bed friction of the sub-step.
    pub friction: &'a BedFriction<'a>,
    /// Rain of the sub-step (metres), which lands on top of the bodies.
    pub rain: f32,
}

/// The face between cells `l` and `r = l + 1` (`x`) or `r = l + nx`, as a key.
fn face_id(l: usize, x: bool) -> u64 {
    2 * l as u64 + u64::from(!x)
}

impl Blocking {
    /// One side of an upper interface: cell `k`'s water above its floor. The upper flow's faces
    /// join an upper column to another or to a free or partly covered cell, never to a stored
    /// cell of one column.
    fn upper_side(&self, k: usize, t: &[f32], d: &[f32]) -> Side {
        if self.cover[k] >= BLOCKED_COVER
            && let Some(n) = self.stored_index(k)
        {
            let (zt, up) = (self.top[k], self.upper[n]);
            return Side {
                floor: zt,
                top: zt + up,
                water: up,
                holder: Holder::Upper(n),
            };
        }
        let (c, wet) = (self.cover[k], self.wet(k, d));
        let h = if c > 0.0 {
            partial_surface(c, self.bottom[k], self.top[k], t[k], wet)
        } else {
            t[k] + wet
        };
        Side {
            floor: t[k],
            top: h,
            water: wet,
            holder: Holder::Cell,
        }
    }

    /// Whether stored cell `k` (index `n`) keeps its upper column apart (`film`).
    fn is_film(&self, n: usize, k: usize, t: &[f32]) -> bool {
        film(self.bottom[k] - t[k], self.surface[n], self.top[k])
    }

    /// One sub-step of the upper flow on the depths `d` after the depth update, with the rain
    /// of the sub-step landing on the upper columns; then, over a submerged body, the gap and
    /// the water on top are one column again. Moves water between cells only: the volume is
    /// unchanged.
    pub fn flow_upper(&mut self, t: &[f32], d: &mut [f32], step: &UpperStep) {
        if self.stored.is_empty() {
            return;
        }
        let (nx, ny) = (self.nx, self.ny);
        // Rain falls on the body's top, not into the gap under it.
        if step.rain > 0.0 {
            for n in 0..self.stored.len() {
                let k = self.stored[n] as usize;
                if self.is_film(n, k, t) {
                    self.upper[n] = (self.upper[n] + step.rain).min(self.wet(k, d));
                }
            }
        }
        let cap = step.dx * step.dx / step.dt;
        let mut faces = std::mem::take(&mut self.upper_faces);
        faces.clear();
        for n in 0..self.stored.len() {
            let k = self.stored[n] as usize;
            if !self.is_film(n, k, t) {
                continue;
            }
            let (i, j) = (k % nx, k / nx);
            let mut around = [None; 4];
            if i > 0 {
                around[0] = Some((k - 1, k, true));
            }
            if i + 1 < nx {
                around[1] = Some((k, k + 1, true));
            }
            if j > 0 {
                around[2] = Some((k - nx, k, false));
            }
            if j + 1 < ny {
                around[3] = Some((k, k + nx, false));
            }
            for (l, r, x) in around.into_iter().flatten() {
                let other = if l == k { r } else { l };
                // A face between two such cells is done once, by the lower index; toward a
                // stored cell of one column (`Column::joined`) the blocked face carries it.
                if self.cover[other] >= BLOCKED_COVER
                    && let Some(m) = self.stored_index(other)
                    && (!self.is_film(m, other, t) || other < k)
                {
                    continue;
                }
                let (a, b) = (self.upper_side(l, t, d), self.upper_side(r, t, d));
                let id = face_id(l, x);
                let q_old = self
                    .upper_q
                    .binary_search_by_key(&id, |e| e.0)
                    .map_or(0.0, |m| self.upper_q[m].1);
                let z0 = a.floor.max(b.floor);
                let (pa, pb) = (a.top.max(z0), b.top.max(z0));
                let section = pa.max(pb) - z0;
                let q = if section > 0.0 {
                    let n2 = step.friction.face_n2(l, r);
                    let drive = section * (pa - pb);
                    let limit = section * cap;
                    step.friction
                        .discharge(q_old, step.g_dt * drive, section, n2)
                        .clamp(-limit, limit)
                } else {
                    0.0
                };
                faces.push(UpperFace {
                    l: l as u32,
                    r: r as u32,
                    x,
                    q: if q.is_finite() { q } else { 0.0 },
                    holders: (a.holder, b.holder),
                    water: (a.water, b.water),
                });
            }
        }
        // Each side's outflow, then its share: it never gives more than it has (§3.4). A cell
        // has one holder in the upper flow (its upper column, or its water), so cells key them.
        let mut out = std::mem::take(&mut self.upper_out);
        out.clear();
        for f in &faces {
            let c = if f.q > 0.0 { f.l } else { f.r };
            out.push((c, f.q.abs()));
        }
        out.sort_unstable_by_key(|e| e.0);
        out.dedup_by(|b, a| {
            if a.0 == b.0 {
                a.1 += b.1;
                true
            } else {
                false
            }
        });
        let area = step.dx * step.dx;
        for f in &mut faces {
            let (c, w) = if f.q > 0.0 {
                (f.l, f.water.0)
            } else {
                (f.r, f.water.1)
            };
            if f.q == 0.0 {
                continue;
            }
            let total = out
                .binary_search_by_key(&c, |e| e.0)
                .map_or(0.0, |n| out[n].1);
            // As the GPU's upper pass does it.
            let vol = w * (area / step.dt);
            if total > vol {
                f.q *= vol / total;
            }
        }
        self.upper_q.clear();
        for f in &faces {
            self.upper_q.push((face_id(f.l as usize, f.x), f.q));
            let moved = f.q * (step.dt / area);
            let (l, r) = (f.l as usize, f.r as usize);
            d[l] = (d[l] - moved).max(0.0);
            d[r] = (d[r] + moved).max(0.0);
            if let Holder::Upper(n) = f.holders.0 {
                self.upper[n] -= moved;
            }
            if let Holder::Upper(n) = f.holders.1 {
                self.upper[n] += moved;
            }
        }
        self.upper_q.sort_unstable_by_key(|e| e.0);
        // Where the water around a raised body stands over its top (its effective surface is
        // at or over the top: a submerged body), the gap and the water over the body are one:
        // the gap is full first and the rest stands on top. Elsewhere the two stay apart.
        for n in 0..self.stored.len() {
            let k = self.stored[n] as usize;
            if !self.is_raised(k, t) {
                self.upper[n] = 0.0;
                continue;
            }
            let wet = self.wet(k, d);
            self.upper[n] = if self.surface[n] >= self.top[k] {
                (wet - (self.bottom[k] - t[k])).max(0.0)
            } else {
                self.upper[n].clamp(0.0, wet)
            };
        }
        self.upper_faces = faces;
        self.upper_out = out;
    }
}
