//! Two-layer blocking (Kellomäki 2014, §3): rigid bodies rasterised to a blocker column per
//! cell, water flowing below and above them.
//!
//! A game (or the editor) describes where bodies are with [`Blockers`]: per cell, the bottom and
//! top height of the body column and the fraction of the cell it covers (see
//! [`crate::body::raster`]). `Simulation::set_blockers` hands them to the solver, pipes or shallow
//! water, which from then on recomputes every interior face touching a covered cell with the
//! blocked rule below; all other faces keep the solver's plain expression, and with no blockers the
//! solver runs exactly its original code.
//!
//! **Storage.** The solver keeps one water depth per cell (a volume per area). A fully covered
//! cell (`cover ≥ BLOCKED_COVER`) stores it in the gap between terrain and blocker bottom first;
//! water beyond a full gap is its *excess* `e`. A partly covered cell keeps its water beside the
//! body: the body takes its share `cover` of the cell's section between its bottom and top (the
//! mean column of its covered part), so the water stands higher by what the body displaces
//! (fractional displacement).
//!
//! **Two water columns** (§3.1). Under a body raised off the terrain that sticks out of the
//! water around it (its effective surface `s` below the blocker's top: `film`), the cell's water
//! is two columns: the gap's, below the body, and the *upper* column standing on the body's top
//! (rain on a table, a wave over a cart), both counted in the cell's depth. The upper column
//! flows through the upper interfaces on its own (the `upper` module): it runs off the body's edges
//! instead of joining the gap, and rain on the body lands on it. Renderers draw its top
//! (`Simulation::drawn_surface`). Over a submerged raised body (`s` at or over its top) the two
//! are one column, as over a body resting on the terrain: the gap full first, the rest on top.
//!
//! **Displacement** (§3.3). When a body's columns change, the water it now takes in a cell (its
//! volume below the water's surface, new column less old) is held out of the flow as *latent*
//! water, still counted in the cell's depth, and a share `alpha` of it rejoins the flow each
//! sub-step: a body dropped into a lake raises no hump over itself, and the displaced water
//! spreads as waves around it. Where a body leaves, the space it freed fills from around. No
//! water is ever removed, so volume is conserved exactly (the paper removes it and adds it back
//! to the neighbours at the rate `alpha`).
//!
//! **Pressure** (§3.6). Each stored cell carries an effective surface `s`, interpolated each
//! sub-step from the neighbours with `kappa` (`s := max(κ·s + (1−κ)/4·Σ s_neighbour, h)`, `h` the
//! top of the cell's water, its upper column left out); it is what buoyancy uses
//! (`Simulation::effective_surface`) and what rendering draws except over an upper column;
//! where water stands over a submerged body, `s` is simply that water's top. A full gap is pressurised to `s`. Where `s` is below the
//! blocker's top (the body sticks out of the water), the excess is more pressure in the gap
//! (head `s + excess`); where `s` is above it (a submerged body), or where there is no gap (a body
//! resting on the terrain), the excess is water standing on top of the blocker.
//!
//! **Faces** (§3.4, §3.5). The face between two cells has a blocked band `[bottom, top]` (the union
//! of the two sides' columns) over a width fraction `w = min(1, cover_l + cover_r)`. In the
//! blocked width, water flows through a *lower* interface (from the higher terrain up to the
//! lower water's top, clipped at the band's bottom), driven by the lower pressure heads, and an
//! *upper* interface above the band, driven by the surfaces on top (the upper flow's where a
//! side keeps an upper column, with its own stored discharge). The open width `1 − w` is a
//! plain face-depth pipe. Each face then carries at most its open section per step
//! (`|Q|·dt ≤ A·dx²`), so a face that becomes blocked stops at once.
//!
//! Inflow reduction under blockers (§3.5) is not done: the excess pressure above does its work.
//!
//! Both solvers block: the shallow-water faces touching a covered cell take the same rule, their
//! old discharge the advected face velocity times the upwind depth.
//!
//! Limits: the map's border faces keep their edge condition and ignore
//! blockers; one blocker column per cell (bodies stacked in a cell merge into one column).

mod blockers;
mod faces;
mod upper;

pub use blockers::{BlockerError, Blockers};

pub(crate) use faces::{BlockedPipes, BlockedSwe};
pub(crate) use upper::UpperStep;

/// Cover from which a cell stores its water below and above the blocker (the blocker covers the
/// whole cell, up to the rounding of its samples).
pub const BLOCKED_COVER: f32 = 0.99;

/// Default share of displaced water released per sub-step (the paper uses 0.01 to 0.1).
pub const ALPHA: f32 = 0.05;

/// Whether a stored cell's blocker, `gap` over the terrain with its top at `zt`, sticks out of
/// the water around it (its effective surface `s` below the top): the water on top of it, if
/// any, is then its upper column, apart from the gap's. Over a submerged body (or one resting
/// on the terrain) the cell's water is one column: the gap full first, the rest on top.
#[inline]
pub(crate) fn film(gap: f32, s: f32, zt: f32) -> bool {
    gap > 0.0 && s < zt
}

/// Surface of the water in a partly covered cell (fractional displacement): the cell holds the
/// volume `d` per area over terrain `b`, and a body covering the fraction `c < 1` of it between
/// heights `zb ≥ b` and `zt ≥ zb` takes that share of the cell's section, so the water it
/// displaces stands higher beside it. Below the body the cell fills as usual.
#[inline]
pub(crate) fn partial_surface(c: f32, zb: f32, zt: f32, b: f32, d: f32) -> f32 {
    let gap = zb - b;
    if d <= gap {
        return b + d;
    }
    let rest = d - gap;
    let free = 1.0 - c;
    let band = free * (zt - zb);
    if rest <= band {
        zb + rest / free
    } else {
        zt + (rest - band)
    }
}

/// The solver's copy of the blockers: columns clamped to the terrain, covered cells per row and
/// the effective surface.
pub(crate) struct Blocking {
    nx: usize,
    ny: usize,
    kappa: f32,
    alpha: f32,
    cover: Vec<f32>,
    /// Water a body has just displaced, per cell (metres of depth, part of the cell's depth):
    /// held out of the flow and released at `alpha` per sub-step (§3.3).
    latent: Vec<f32>,
    /// Blocker bottom, never below the terrain.
    bottom: Vec<f32>,
    /// Blocker top, never below `bottom`.
    top: Vec<f32>,
    /// Covered columns of each row, sorted.
    rows: Vec<Vec<u32>>,
    /// Cells that store water below and above a blocker (`cover ≥ BLOCKED_COVER`), sorted.
    stored: Vec<u32>,
    /// Effective surface of the `stored` cells (elsewhere it is terrain + depth).
    surface: Vec<f32>,
    /// Water standing on top of the blocker of each `stored` cell raised off the terrain
    /// (metres of depth, part of the cell's depth): the paper's upper water column (§3.1). It
    /// flows through the upper interfaces on its own (`Blocking::flow_upper`); a body resting on
    /// the terrain keeps none (its water is all on top).
    upper: Vec<f32>,
    /// Discharge (m³/s, positive toward +x or +y) through the upper interfaces the upper flow
    /// used in the last sub-step, by face (`upper::face_id`), sorted; every other face is at rest.
    upper_q: Vec<(u64, f32)>,
    /// Scratch for the upper flow.
    upper_faces: Vec<upper::UpperFace>,
    /// Scratch for the upper flow: outflow per source.
    upper_out: Vec<(u32, f32)>,
    /// Scratch for the surface update.
    next: Vec<f32>,
}

/// The water of one cell as the blocked faces see it.
#[derive(Clone, Copy)]
struct Column {
    /// Pressure head of the lower water column.
    p_low: f32,
    /// Top of the lower water column.
    t_low: f32,
    /// Surface of the water above the blocker (its top when there is none).
    up: f32,
    /// Whether water stands above the blocker (free cells: always).
    has_up: bool,
    /// A stored cell raised off the terrain that sticks out of the water around it (`film`):
    /// water above its blocker is its upper column, which flows through the upper interfaces on
    /// its own (`Blocking::flow_upper`) except toward a `joined` cell.
    raised: bool,
    /// Any other stored cell (a submerged raised body, a body resting on the terrain): its
    /// water is one column, the excess beyond the gap on top.
    joined: bool,
}

impl Blocking {
    /// No blockers on an `nx × ny` grid.
    pub fn new(nx: usize, ny: usize) -> Self {
        Self {
            nx,
            ny,
            kappa: 0.5,
            alpha: ALPHA,
            cover: vec![0.0; nx * ny],
            latent: vec![0.0; nx * ny],
            bottom: vec![0.0; nx * ny],
            top: vec![0.0; nx * ny],
            rows: vec![Vec::new(); ny],
            stored: Vec::new(),
            surface: Vec::new(),
            upper: Vec::new(),
            upper_q: Vec::new(),
            upper_faces: Vec::new(),
            upper_out: Vec::new(),
            next: Vec::new(),
        }
    }

    /// Replaces the columns by those of `b` (same grid size) for a solver on `terrain` and
    /// `depth`, keeping the effective surface of cells that stay stored; a newly stored cell
    /// starts from its surface without the body. Touches only the cells covered before and now.
    ///
    /// The water a body now takes in a cell (its volume below the water's surface, new column
    /// less old) is held out of the flow as latent water and released at `alpha` per sub-step,
    /// so a body dropped into a lake raises no hump over itself (§3.3); where a body leaves, the
    /// space it freed fills from around.
    pub fn fill(&mut self, b: &Blockers, terrain: &[f32], depth: &[f32]) {
        let nx = self.nx;
        // The old columns' share of each cell's water, at its surface before the change.
        let mut before: Vec<(u32, f32, f32)> = Vec::new();
        for (j, row) in self.rows.iter().enumerate() {
            for &i in row.iter() {
                let k = j * nx + i as usize;
                let h = self.effective(k, terrain, depth);
                before.push((k as u32, h, self.taken(k, h)));
            }
        }
        for &(k, _, _) in &before {
            self.cover[k as usize] = 0.0;
        }
        for row in &mut self.rows {
            row.clear();
        }
        before.sort_unstable_by_key(|e| e.0);
        let old_stored = std::mem::take(&mut self.stored);
        let old_surface = std::mem::take(&mut self.surface);
        let old_upper = std::mem::take(&mut self.upper);
        self.kappa = b.kappa;
        self.alpha = b.alpha;
        let mut cells = b.cells.clone();
        cells.sort_unstable();
        cells.dedup();
        for &k in &cells {
            let k = k as usize;
            self.cover[k] = b.cover[k];
            self.bottom[k] = b.bottom[k].max(terrain[k]);
            self.top[k] = b.top[k].max(self.bottom[k]);
            self.rows[k / nx].push((k % nx) as u32);
            if self.cover[k] >= BLOCKED_COVER {
                self.stored.push(k as u32);
            }
        }
        for &(k, _, _) in &before {
            let k = k as usize;
            if self.cover[k] == 0.0 {
                self.latent[k] = 0.0;
            }
        }
        let mut settled = b.settled.clone();
        settled.sort_unstable();
        let settles = |k: usize| settled.binary_search(&(k as u32)).is_ok();
        for &k in &cells {
            let k = k as usize;
            let (h, old) = match before.binary_search_by_key(&(k as u32), |e| e.0) {
                Ok(n) => (before[n].1, before[n].2),
                Err(_) if settles(k) => {
                    // The water holds the body already: it takes as much as it had.
                    let h = self.settled_surface(k, terrain, depth);
                    (h, self.taken(k, h))
                }
                Err(_) => (terrain[k] + depth[k], 0.0),
            };
            let latent = self.latent[k] + self.taken(k, h) - old;
            self.latent[k] = latent.clamp(0.0, depth[k]);
        }
        self.surface = self
            .stored
            .iter()
            .map(|&k| match old_stored.binary_search(&k) {
                Ok(n) => old_surface[n],
                Err(_) if settles(k as usize) => self.settled_surface(k as usize, terrain, depth),
                Err(_) => terrain[k as usize] + depth[k as usize],
            })
            .collect();
        // Water on top of a raised body that stays stays on top (it moves with the body); a cell
        // the body leaves, or where it comes to rest on the terrain, keeps it as plain water.
        self.upper = self
            .stored
            .iter()
            .map(|&k| match old_stored.binary_search(&k) {
                Ok(n) if self.is_raised(k as usize, terrain) => {
                    old_upper[n].min(self.wet(k as usize, depth))
                }
                // A raised body the water already holds: what stands over it is on top.
                Err(_) if settles(k as usize) && self.is_raised(k as usize, terrain) => {
                    let k = k as usize;
                    (self.wet(k, depth) - (self.bottom[k] - terrain[k])).max(0.0)
                }
                _ => 0.0,
            })
            .collect();
        self.next.resize(self.surface.len(), 0.0);
    }

    /// The surface of cell `k`'s water with the body over it standing in it (its water holds
    /// the body already: under it up to its bottom, then around and over it).
    fn settled_surface(&self, k: usize, terrain: &[f32], depth: &[f32]) -> f32 {
        let (b, d) = (terrain[k], self.wet(k, depth));
        partial_surface(self.cover[k].min(1.0), self.bottom[k], self.top[k], b, d)
    }

    /// Depth of water a body in cell `k` takes below the water's surface `h` (metres).
    fn taken(&self, k: usize, h: f32) -> f32 {
        let c = self.cover[k];
        if c <= 0.0 {
            return 0.0;
        }
        c.min(1.0) * (h.min(self.top[k]) - self.bottom[k]).max(0.0)
    }

    /// The water of cell `k` that takes part in the flow: its depth less the latent water.
    #[inline]
    fn wet(&self, k: usize, depth: &[f32]) -> f32 {
        (depth[k] - self.latent[k]).max(0.0)
    }

    /// Index of cell `k` in `stored`.
    #[inline]
    fn stored_index(&self, k: usize) -> Option<usize> {
        self.stored.binary_search(&(k as u32)).ok()
    }

    fn stored_surface(&self, k: usize) -> Option<f32> {
        self.stored_index(k).map(|n| self.surface[n])
    }

    /// Effective surface of cell `k`: the interpolated surface where a blocker stores water,
    /// the surface of the water around the body in a partly covered cell, else terrain + depth.
    pub fn effective(&self, k: usize, terrain: &[f32], depth: &[f32]) -> f32 {
        let c = self.cover[k];
        if c >= BLOCKED_COVER {
            self.stored_surface(k)
                .unwrap_or(terrain[k] + self.wet(k, depth))
        } else if c > 0.0 {
            partial_surface(
                c,
                self.bottom[k],
                self.top[k],
                terrain[k],
                self.wet(k, depth),
            )
        } else {
            terrain[k] + depth[k]
        }
    }

    /// The water of cell `k` as the faces see it.
    #[inline]
    fn side(&self, k: usize, t: &[f32], d: &[f32]) -> Column {
        let wet = self.wet(k, d);
        if self.cover[k] >= BLOCKED_COVER {
            let (s, up) = match self.stored_index(k) {
                Some(n) => (self.surface[n], self.upper[n]),
                None => (t[k] + wet, 0.0),
            };
            return self.column(k, t[k], wet, up, s);
        }
        self.column(k, t[k], wet, 0.0, t[k] + wet)
    }

    /// The cell's water as the faces see it: `d` its water taking part in the flow, `up` the
    /// part of it in the upper column, `s` its effective surface.
    #[inline]
    fn column(&self, k: usize, b: f32, d: f32, up: f32, s: f32) -> Column {
        let c = self.cover[k];
        if c < BLOCKED_COVER {
            let h = if c > 0.0 {
                partial_surface(c, self.bottom[k], self.top[k], b, d)
            } else {
                b + d
            };
            return Column {
                p_low: h,
                t_low: h,
                up: h,
                has_up: true,
                raised: false,
                joined: false,
            };
        }
        let (zb, zt) = (self.bottom[k], self.top[k]);
        let gap = zb - b;
        if film(gap, s, zt) {
            // Water on top is the upper column's; the gap holds the rest.
            let lower = d - up;
            if lower <= gap {
                return Column {
                    p_low: b + lower,
                    t_low: b + lower,
                    up: zt,
                    has_up: false,
                    raised: true,
                    joined: false,
                };
            }
            return Column {
                p_low: s.max(zb) + (lower - gap).max(0.0),
                t_low: zb,
                up: zt,
                has_up: false,
                raised: true,
                joined: false,
            };
        }
        if d <= gap {
            Column {
                p_low: b + d,
                t_low: b + d,
                up: zt,
                has_up: false,
                raised: false,
                joined: true,
            }
        } else {
            // A full gap under a submerged body (the effective surface at or over its top), or
            // a body resting on the terrain: the excess is water standing on top of the blocker.
            let e = d - gap;
            Column {
                p_low: s.max(zb),
                t_low: zb,
                up: zt + e,
                has_up: e > 0.0,
                raised: false,
                joined: true,
            }
        }
    }

    /// Top of the water of a stored cell that bounds its effective surface from below (the
    /// paper's `h(A)`), `d` the cell's water in the flow, `up` the part of it on top of a raised
    /// body, `s` its effective surface. Under a raised body that sticks out of the water around
    /// it (`film`), the water on top is left out: the surface there is the pressure of the water
    /// around, and the water on top is drawn as itself (`Blocking::drawn`). Over a submerged
    /// body, or one resting on the terrain, the water over it is the surface.
    #[inline]
    fn water_top(&self, k: usize, b: f32, d: f32, up: f32, s: f32) -> f32 {
        let (zb, zt) = (self.bottom[k], self.top[k]);
        let gap = zb - b;
        if film(gap, s, zt) {
            let lower = d - up;
            if lower > gap { zb } else { b + lower }
        } else if d <= gap {
            b + d
        } else {
            zt + (d - gap)
        }
    }

    /// Whether cell `k`'s blocker is raised off the terrain (it has a gap below it).
    #[inline]
    fn is_raised(&self, k: usize, terrain: &[f32]) -> bool {
        self.bottom[k] > terrain[k]
    }

    /// The surface to draw over cell `k`: the top of the water standing on a raised body that
    /// sticks out of the water around it, where there is some; else the effective surface.
    pub fn drawn(&self, k: usize, terrain: &[f32], depth: &[f32]) -> f32 {
        if self.cover[k] >= BLOCKED_COVER
            && let Some(n) = self.stored_index(k)
            && self.upper[n] > 0.0
            && film(self.bottom[k] - terrain[k], self.surface[n], self.top[k])
        {
            return self.top[k] + self.upper[n];
        }
        self.effective(k, terrain, depth)
    }

    /// Updates the effective surface of stored cells from the new depths (§3.6, eq. 3), and
    /// releases a share `alpha` of the latent water.
    pub fn update_surface(&mut self, terrain: &[f32], depth: &[f32]) {
        let (nx, ny, kappa) = (self.nx, self.ny, self.kappa);
        for (n, &k) in self.stored.iter().enumerate() {
            let k = k as usize;
            let (i, j) = (k % nx, k / nx);
            let own = self.surface[n];
            let neighbour = |c: Option<usize>| match c {
                Some(c) => self.effective(c, terrain, depth),
                None => own,
            };
            let sum = neighbour(i.checked_sub(1).map(|i| j * nx + i))
                + neighbour((i + 1 < nx).then_some(k + 1))
                + neighbour(j.checked_sub(1).map(|j| j * nx + i))
                + neighbour((j + 1 < ny).then_some(k + nx));
            let blur = kappa * own + (1.0 - kappa) * 0.25 * sum;
            let top = self.water_top(k, terrain[k], self.wet(k, depth), self.upper[n], own);
            // Water standing over the body is the surface itself; only where the body holds
            // the surface down is it interpolated.
            self.next[n] = if top > self.top[k] {
                top
            } else {
                blur.max(top)
            };
        }
        std::mem::swap(&mut self.surface, &mut self.next);
        let keep = 1.0 - self.alpha;
        for (j, row) in self.rows.iter().enumerate() {
            for &i in row {
                let k = j * nx + i as usize;
                self.latent[k] = (self.latent[k] * keep).min(depth[k]);
            }
        }
    }
}
