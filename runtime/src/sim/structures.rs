//! Culverts, weirs and sluice gates in a running simulation (`level::structure`), shared by the
//! CPU and GPU solvers.
//!
//! A weir or gate line is rasterised to the faces it cuts (a face belongs to it when the segment
//! between its two cell centres crosses the line); each face gets an equal share of the line's
//! length as its width. After each sub-step's flow pass, a face whose limited discharge is more
//! than its law allows is cut back to the law, and the water it would have passed goes back
//! upstream: flows only ever shrink, so no depth goes negative. A culvert then moves water from
//! its upstream end cell to the other, at most half of what that cell holds and a quarter of
//! the head between its ends per sub-step, so it never overshoots. The rounding of every depth
//! change is booked in the ledger, so volume balances exactly.

use crate::level::{Level, Schedule, StructureKind};

use super::breach::{Cut, cut};

/// Which law a structure face follows.
#[derive(Clone, Debug)]
pub(crate) enum Law {
    /// Broad-crested weir: crest height and discharge coefficient.
    Weir { crest: f32, coefficient: f32 },
    /// Sluice gate: sill height, opening over time, contraction coefficient.
    Gate {
        sill: f32,
        opening: Schedule,
        contraction: f32,
    },
}

/// One face of a weir or gate line.
#[derive(Clone, Debug)]
pub(crate) struct LawFace {
    /// Index of the structure in the level.
    pub structure: u32,
    /// Whether it is a y-face (between rows) rather than an x-face.
    pub y: bool,
    /// Index into the x- or y-face grid.
    pub face: u32,
    /// The cell on the low side (left or above) and the one on the high side.
    pub cells: [u32; 2],
    /// Share of the line's length, metres.
    pub width: f32,
    /// +1 where the face's positive direction crosses the line the way the structure's flow
    /// counts, -1 where it crosses back.
    pub sign: f32,
    /// The law, with its parameters.
    pub law: Law,
}

/// A culvert between two cells.
#[derive(Clone, Debug)]
pub(crate) struct Pipe {
    /// Index of the structure in the level.
    pub structure: u32,
    /// The cells of its `from` and `to` ends.
    pub ends: [u32; 2],
    /// Inside diameter, metres.
    pub diameter: f32,
    /// Loss coefficient: entry 0.5 + exit 1 + friction `2·g·n²·L / R^(4/3)`.
    pub loss: f32,
}

/// The structures of a level, rasterised.
#[derive(Clone, Debug, Default)]
pub(crate) struct Structures {
    /// The names of all structures, in the level's order (breaches are started by name).
    pub names: Vec<String>,
    pub faces: Vec<LawFace>,
    pub pipes: Vec<Pipe>,
    pub cuts: Vec<Cut>,
    /// For each structure, its index among the cuts if it is a breach.
    pub cut_of: Vec<Option<usize>>,
    /// Discharge of each structure in the last sub-step, m³/s: across a line, positive the way
    /// a discharge gauge drawn along it counts (eastward for a line drawn from north to south);
    /// through a culvert, from `from` to `to`.
    pub flows: Vec<f32>,
}

/// The faces cut by the segment `a`–`b` (world metres): `(is y-face, face index, cells)`.
pub(crate) fn line_faces(
    a: [f32; 2],
    b: [f32; 2],
    grid: (usize, usize, f32),
) -> Vec<(bool, u32, [u32; 2])> {
    let mut out = Vec::new();
    each_face(a, b, grid, |face| {
        out.push(face);
        true
    });
    out
}

/// Whether the segment `a`–`b` cuts any face between two cells (one along the map's edge, or
/// too short to reach across a line of cell centres, cuts none), found without listing them.
pub(crate) fn cuts_a_face(a: [f32; 2], b: [f32; 2], grid: (usize, usize, f32)) -> bool {
    let mut found = false;
    each_face(a, b, grid, |_| {
        found = true;
        false
    });
    found
}

/// Hands each face the segment `a`–`b` cuts to `visit`, row by row, until it returns `false`.
fn each_face(
    a: [f32; 2],
    b: [f32; 2],
    (nx, ny, dx): (usize, usize, f32),
    mut visit: impl FnMut((bool, u32, [u32; 2])) -> bool,
) {
    let d = [b[0] - a[0], b[1] - a[1]];
    let len2 = d[0] * d[0] + d[1] * d[1];
    let cross = |p: [f32; 2]| d[0] * (p[1] - a[1]) - d[1] * (p[0] - a[0]);
    let cuts = |p: [f32; 2], q: [f32; 2]| {
        let (sp, sq) = (cross(p), cross(q));
        if (sp >= 0.0) == (sq >= 0.0) || len2 <= 0.0 {
            return false;
        }
        let u = sp / (sp - sq);
        let x = [p[0] + u * (q[0] - p[0]), p[1] + u * (q[1] - p[1])];
        let t = ((x[0] - a[0]) * d[0] + (x[1] - a[1]) * d[1]) / len2;
        (0.0..=1.0).contains(&t)
    };
    let centre = |i: usize, j: usize| [(i as f32 + 0.5) * dx, (j as f32 + 0.5) * dx];
    let span = |lo: f32, hi: f32, n: usize| {
        let i0 = ((lo / dx).floor() - 1.0).max(0.0) as usize;
        let i1 = (((hi / dx).ceil() + 1.0).max(0.0) as usize).min(n);
        (i0.min(n), i1)
    };
    let (i0, i1) = span(a[0].min(b[0]), a[0].max(b[0]), nx);
    let (j0, j1) = span(a[1].min(b[1]), a[1].max(b[1]), ny);
    for j in j0..j1 {
        for i in i0..i1 {
            let c = (j * nx + i) as u32;
            if i + 1 < nx
                && cuts(centre(i, j), centre(i + 1, j))
                && !visit((false, (j * (nx + 1) + i + 1) as u32, [c, c + 1]))
            {
                return;
            }
            if j + 1 < ny
                && cuts(centre(i, j), centre(i, j + 1))
                && !visit((true, ((j + 1) * nx + i) as u32, [c, c + nx as u32]))
            {
                return;
            }
        }
    }
}

/// The cell holding world point `p`.
pub(crate) fn cell_at(p: [f32; 2], (nx, ny, dx): (usize, usize, f32)) -> u32 {
    let i = ((p[0] / dx).floor().max(0.0) as usize).min(nx - 1);
    let j = ((p[1] / dx).floor().max(0.0) as usize).min(ny - 1);
    (j * nx + i) as u32
}

impl Structures {
    /// The structures of `level`, rasterised on its grid.
    pub fn new(level: &Level) -> Self {
        let grid = (level.nx(), level.ny(), level.cell_size);
        let g = level.params.gravity;
        let mut out = Self {
            flows: vec![0.0; level.structures.len()],
            names: level.structures.iter().map(|s| s.name.clone()).collect(),
            ..Self::default()
        };
        // The ground the breaches cut, gates closed (taken once, with the first breach).
        let mut closed: Option<Vec<f32>> = None;
        for (s, st) in level.structures.iter().enumerate() {
            let structure = s as u32;
            let (from, to) = st.kind.ends();
            if !matches!(st.kind, StructureKind::Breach { .. }) {
                out.cut_of.push(None);
            }
            let law = match &st.kind {
                StructureKind::Breach {
                    bottom,
                    width,
                    side_slope,
                    start,
                    growth,
                    opened,
                    ..
                } => {
                    out.cut_of.push(Some(out.cuts.len()));
                    let ground = closed.get_or_insert_with(|| super::gates::authored_ground(level));
                    let mut c = cut(
                        level,
                        ground,
                        (from, to),
                        (*bottom, *width, *side_slope),
                        start,
                        growth,
                    );
                    c.started = opened.is_some();
                    c.progress = opened.unwrap_or(0.0).clamp(0.0, 1.0);
                    out.cuts.push(c);
                    continue;
                }
                StructureKind::Culvert {
                    diameter,
                    length,
                    roughness,
                    ..
                } => {
                    let r = diameter / 4.0;
                    let friction = 2.0 * g * roughness * roughness * length / r.powf(4.0 / 3.0);
                    out.pipes.push(Pipe {
                        structure,
                        ends: [cell_at(from, grid), cell_at(to, grid)],
                        diameter: *diameter,
                        loss: 1.5 + friction,
                    });
                    continue;
                }
                StructureKind::Weir {
                    crest, coefficient, ..
                } => Law::Weir {
                    crest: *crest,
                    coefficient: *coefficient,
                },
                StructureKind::SluiceGate {
                    sill,
                    opening,
                    contraction,
                    ..
                } => Law::Gate {
                    sill: *sill,
                    opening: opening.clone(),
                    contraction: *contraction,
                },
            };
            let faces = line_faces(from, to, grid);
            // The x-faces share the line's reach across y, the y-faces its reach across x: a
            // flow along x meets as much crest as the line spans across it, whatever its
            // angle (an even share of the length gave a diagonal weir 26% less than a
            // straight one across the same channel).
            let count = |y: bool| faces.iter().filter(|f| f.0 == y).count().max(1) as f32;
            let share = [
                (to[1] - from[1]).abs() / count(false),
                (to[0] - from[0]).abs() / count(true),
            ];
            let normal = [to[1] - from[1], from[0] - to[0]];
            for (y, face, cells) in faces {
                let along = if y { normal[1] } else { normal[0] };
                out.faces.push(LawFace {
                    structure,
                    y,
                    face,
                    cells,
                    width: share[usize::from(y)],
                    sign: if along >= 0.0 { 1.0 } else { -1.0 },
                    law: law.clone(),
                });
            }
        }
        out
    }

    /// Whether there are no faces or culverts to apply after the flow pass.
    pub fn is_empty(&self) -> bool {
        self.faces.is_empty() && self.pipes.is_empty()
    }
}

/// Broad-crested weir discharge, m³/s (≥ 0), from the upstream surface `up` to the downstream
/// surface `down` over `width` metres of crest: `C·(2/3)^1.5·√g·b·H^1.5` with the head `H`
/// over the crest, times Villemonte's `(1 − (H₂/H)^1.5)^0.385` once the tailwater `H₂` is
/// above the crest.
pub(crate) fn weir_discharge(
    g: f32,
    width: f32,
    crest: f32,
    coefficient: f32,
    up: f32,
    down: f32,
) -> f32 {
    let h1 = up - crest;
    if h1 <= 0.0 {
        return 0.0;
    }
    let free = coefficient * 0.544_331 * g.sqrt() * width * h1 * h1.sqrt();
    let h2 = down - crest;
    if h2 <= 0.0 {
        return free;
    }
    let r = (h2 / h1).min(1.0);
    free * (1.0 - r * r.sqrt()).max(0.0).powf(0.385)
}

/// Sluice gate discharge, m³/s (≥ 0), from the upstream surface `up` to the downstream
/// surface `down` through `width` metres of gate at `opening` above `sill`; `None` when the
/// gate is clear of the water (the faces flow freely).
///
/// Free flow keeps the energy from the upstream depth `h₁` to the contracted jet `y = Cc·a`
/// with continuity: `q = y·√(2g(h₁ − y) / (1 − (y/h₁)²))`. Once the tailwater is deeper than
/// the jet's conjugate depth the jump is drowned, and the discharge falls as the square root of
/// the remaining head, to zero when both sides stand level.
pub(crate) fn gate_discharge(
    g: f32,
    width: f32,
    (sill, opening, cc): (f32, f32, f32),
    up: f32,
    down: f32,
) -> Option<f32> {
    let h1 = up - sill;
    if h1 <= 0.0 || opening <= 0.0 {
        return Some(0.0);
    }
    if opening >= h1 {
        return None;
    }
    let y = cc * opening;
    let ratio = y / h1;
    let q = y * (2.0 * g * (h1 - y) / (1.0 - ratio * ratio)).sqrt();
    let speed = q / y;
    let conjugate = 0.5 * y * ((1.0 + 8.0 * speed * speed / (g * y)).sqrt() - 1.0);
    let h2 = down - sill;
    if h2 <= conjugate || h1 <= conjugate {
        return Some(q * width);
    }
    Some(q * width * ((h1 - h2).max(0.0) / (h1 - conjugate)).sqrt())
}

/// Flow area of a circular pipe of diameter `d` filled to depth `y`, m².
pub(crate) fn pipe_area(y: f32, d: f32) -> f32 {
    let r = 0.5 * d;
    let y = y.clamp(0.0, d);
    let theta = 2.0 * ((r - y) / r).clamp(-1.0, 1.0).acos();
    0.5 * r * r * (theta - theta.sin())
}

/// Culvert discharge, m³/s (≥ 0), for the head `head` between its ends and the depth `depth`
/// at its upstream end: `A(y)·√(2g·H / K)`, its speed no more than the inlet's water can give
/// (`√(2g·y)`: shallow water over a drop passed three times what its energy allows).
pub(crate) fn pipe_discharge(g: f32, pipe: &Pipe, head: f32, depth: f32) -> f32 {
    if head <= 0.0 || depth <= 0.0 {
        return 0.0;
    }
    let speed = (2.0 * g * head / pipe.loss).min(2.0 * g * depth).sqrt();
    pipe_area(depth, pipe.diameter) * speed
}

/// What a sub-step's structures see and change.
pub(crate) struct StepWater<'a> {
    pub terrain: &'a [f32],
    /// Depths at the start of the sub-step (the state the faces were accelerated from).
    pub old: &'a [f32],
    /// Depths after the flow pass, changed here.
    pub new: &'a mut [f32],
    /// Limited discharges of the flow pass, changed here.
    pub qx: &'a mut [f32],
    pub qy: &'a mut [f32],
}

impl Structures {
    /// Applies the structures to a sub-step of `dt` seconds from simulated `time`; returns the
    /// volume the rounding of the depth changes created (m³, booked as inflow).
    pub fn apply(&mut self, w: StepWater<'_>, (time, dt): (f64, f32), dx: f32, g: f32) -> f64 {
        if self.is_empty() {
            return 0.0;
        }
        self.flows.iter_mut().for_each(|f| *f = 0.0);
        let per_depth = dt / (dx * dx);
        let mut created = 0.0f64;
        let mut moved = |new: &mut [f32], from: usize, to: usize, d: f32| {
            let (a, b) = (new[from], new[to]);
            new[from] = (a - d).max(0.0);
            new[to] = b + d;
            created += (new[from] as f64 - a as f64) + (new[to] as f64 - b as f64);
        };
        for f in &self.faces {
            let q = if f.y {
                w.qy[f.face as usize]
            } else {
                w.qx[f.face as usize]
            };
            let [l, r] = f.cells.map(|c| c as usize);
            let (up, down) = if q > 0.0 { (l, r) } else { (r, l) };
            let surface = |c: usize| w.terrain[c] + w.old[c];
            let cap = match &f.law {
                Law::Weir { crest, coefficient } => Some(weir_discharge(
                    g,
                    f.width,
                    *crest,
                    *coefficient,
                    surface(up),
                    surface(down),
                )),
                Law::Gate {
                    sill,
                    opening,
                    contraction,
                } => gate_discharge(
                    g,
                    f.width,
                    // At the sub-step's middle, as the sources' rates.
                    (*sill, opening.at(time + 0.5 * dt as f64), *contraction),
                    surface(up),
                    surface(down),
                )
                // Clear of the water, a gate whose sill stands above the upstream ground is a
                // weir over its sill (the faces flowed freely through the sill: the discharge
                // jumped fourfold as the opening passed the water's depth).
                .or_else(|| {
                    let raised = *sill > w.terrain[up];
                    raised
                        .then(|| weir_discharge(g, f.width, *sill, 1.0, surface(up), surface(down)))
                }),
            };
            let mut q_new = q;
            if let Some(cap) = cap
                && q.abs() > cap
            {
                q_new = cap.copysign(q);
                moved(w.new, down, up, (q.abs() - cap) * per_depth);
                if f.y {
                    w.qy[f.face as usize] = q_new;
                } else {
                    w.qx[f.face as usize] = q_new;
                }
            }
            self.flows[f.structure as usize] += f.sign * q_new;
        }
        for p in &self.pipes {
            let [a, b] = p.ends.map(|c| c as usize);
            let (sa, sb) = (w.terrain[a] + w.new[a], w.terrain[b] + w.new[b]);
            let (up, down, head, sign) = if sa >= sb {
                (a, b, sa - sb, 1.0)
            } else {
                (b, a, sb - sa, -1.0)
            };
            let depth = w.new[up];
            let q = pipe_discharge(g, p, head, depth);
            let d = (q * per_depth).min(0.5 * depth).min(0.25 * head);
            if d > 0.0 && up != down {
                moved(w.new, up, down, d);
                self.flows[p.structure as usize] += sign * d / per_depth;
            }
        }
        created * (dx as f64) * (dx as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_across_a_channel_cuts_one_face_per_row() {
        let faces = line_faces([5.0, 0.0], [5.0, 4.0], (10, 4, 1.0));
        assert_eq!(faces.len(), 4);
        assert!(faces.iter().all(|f| !f.0 && f.2[1] == f.2[0] + 1));
        // A diagonal line cuts x- and y-faces, and every 4-connected path across it.
        let diag = line_faces([0.0, 0.0], [10.0, 10.0], (10, 10, 1.0));
        assert!(diag.iter().any(|f| f.0) && diag.iter().any(|f| !f.0));
    }

    #[test]
    fn a_lines_crest_is_what_it_spans_across_each_way_of_flow() {
        // A weir across a channel 10 m wide, straight and at 45°: the x-faces hold 10 m of
        // crest either way (the diagonal's even share of its length held 7.4 m).
        let mut level = Level::flat(50, 10, 1.0, 0.0);
        let weir = |from, to| crate::level::Structure {
            name: "weir".into(),
            kind: StructureKind::Weir {
                from,
                to,
                crest: 1.0,
                coefficient: 1.0,
            },
        };
        level.structures = vec![
            weir([25.0, 0.0], [25.0, 10.0]),
            weir([20.0, 0.0], [30.0, 10.0]),
        ];
        let s = Structures::new(&level);
        let crest = |structure: u32, y: bool| -> f32 {
            (s.faces.iter())
                .filter(|f| f.structure == structure && f.y == y)
                .map(|f| f.width)
                .sum()
        };
        assert!((crest(0, false) - 10.0).abs() < 1e-4, "{}", crest(0, false));
        assert_eq!(crest(0, true), 0.0);
        assert!((crest(1, false) - 10.0).abs() < 1e-4, "{}", crest(1, false));
        assert!((crest(1, true) - 10.0).abs() < 1e-4, "{}", crest(1, true));
    }

    #[test]
    fn the_gate_law_matches_swashes_free_flow() {
        // SWASHES 1 6 1 1: h₁ = 4.154041 mm upstream of a 1 mm gate passes 1.628652e-4 m²/s.
        let q = gate_discharge(9.81, 1.0, (0.0, 0.001, 0.611), 0.004_154_041, 0.0).unwrap();
        assert!((q / 1.628_652e-4 - 1.0).abs() < 1e-3, "{q}");
    }

    #[test]
    fn the_weir_law_is_the_critical_flow_over_a_crest() {
        // C = 1: q = √g·(2H/3)^1.5 per metre of crest.
        let q = weir_discharge(9.81, 2.0, 1.0, 1.0, 1.5, 0.0);
        let exact = 2.0 * 9.81f32.sqrt() * (2.0f32 / 3.0 * 0.5).powf(1.5);
        assert!((q / exact - 1.0).abs() < 1e-5);
        // Drowned to the same level, nothing passes.
        assert_eq!(weir_discharge(9.81, 2.0, 1.0, 1.0, 1.5, 1.5), 0.0);
        assert!((pipe_area(1.0, 1.0) - std::f32::consts::FRAC_PI_4).abs() < 1e-6);
    }
}
