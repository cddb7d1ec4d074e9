//! Rigid bodies and the water (issue 6, Kellomäki 2014): body geometry, its rasterisation to
//! blocker columns, and the forces the water puts on it.
//!
//! - [`TriMesh`] and [`Pose`]: a body's triangles in its own frame (metres, z up) and where the
//!   level places it ([`crate::level::Body`]).
//! - [`import`] (feature `bodies`): `.glb` / `.gltf` files to a [`TriMesh`], with size limits.
//! - [`raster`]: a posed mesh rasterised from above and below into a [`raster::Coverage`] (per
//!   cell: bottom, top, covered fraction), and into the solver's
//!   [`Blockers`](crate::sim::blocking::Blockers).
//! - [`forces`]: buoyancy, drag and damping from a coverage and the water state,
//!   engine-neutral (no physics engine needed).
//! - [`solver`]: what the coupling needs of a water solver ([`solver::WaterSolver`]), for the
//!   CPU and the GPU solver alike.
//! - [`world`] (feature `rapier`): a rapier3d world of the level's bodies, stepped with the
//!   water both ways. [`world::import_meshes`] loads every body's file from the level's folder
//!   (a shipped level carries its body files in `bodies/` beside `level.ron`), naming the body
//!   whose file is missing or broken.

pub mod forces;
#[cfg(feature = "bodies")]
pub mod import;
pub mod kind;
pub mod raster;
pub mod solver;
#[cfg(feature = "rapier")]
pub mod world;

use std::sync::{Arc, OnceLock};

use crate::level::{Body, Coupling};

/// Density of water, kg/m³: `Coupling::Auto` bodies denser than this block water.
pub const WATER_DENSITY: f32 = 1000.0;

/// Whether `body` blocks water (two-layer blocking) rather than floating (Kellomäki §4.2): as its
/// coupling says, and for `Coupling::Auto` when it is denser than water.
pub fn blocks_water(body: &Body) -> bool {
    match body.coupling {
        Coupling::Blocker => true,
        Coupling::Floater => false,
        Coupling::Auto => body.density > WATER_DENSITY,
    }
}

/// A triangle mesh in a body's own frame: metres, x and y horizontal, z up.
#[derive(Clone, Debug, Default)]
pub struct TriMesh {
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Triangles as three indices into `positions`, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
    /// The mesh cut into convex parts (each a cloud of points), made the first time a body
    /// asks for [`crate::level::ColliderShape::ConvexDecomposition`] and kept with the mesh, so
    /// every body sharing it reuses one decomposition.
    parts: OnceLock<Arc<Vec<Vec<[f32; 3]>>>>,
    /// Whether it is solid ([`Self::is_solid`]), found on first use.
    solid: OnceLock<bool>,
}

impl PartialEq for TriMesh {
    fn eq(&self, other: &Self) -> bool {
        self.positions == other.positions && self.triangles == other.triangles
    }
}

impl TriMesh {
    /// A mesh of `positions` and `triangles` (indices into `positions`).
    pub fn new(positions: Vec<[f32; 3]>, triangles: Vec<[u32; 3]>) -> Self {
        Self {
            positions,
            triangles,
            parts: OnceLock::new(),
            solid: OnceLock::new(),
        }
    }

    /// The convex parts of the mesh, made by `decompose` the first time and kept with the mesh
    /// after (every later call returns the same parts).
    pub fn convex_parts(
        &self,
        decompose: impl FnOnce(&TriMesh) -> Vec<Vec<[f32; 3]>>,
    ) -> Arc<Vec<Vec<[f32; 3]>>> {
        self.parts.get_or_init(|| Arc::new(decompose(self))).clone()
    }

    /// Whether the mesh is closed and consistently wound, so that [`Self::volume`] is what it
    /// holds: every edge (its ends taken by position, so that seams of split vertices count as
    /// joined) is run once each way, by two triangles. Found once and kept with the mesh.
    pub fn is_solid(&self) -> bool {
        *self.solid.get_or_init(|| {
            let mut at = std::collections::HashMap::new();
            let id: Vec<u32> = (self.positions.iter())
                .map(|p| {
                    let n = at.len() as u32;
                    *at.entry(p.map(f32::to_bits)).or_insert(n)
                })
                .collect();
            let mut edges = std::collections::HashMap::new();
            for t in &self.triangles {
                let Some(v) = t
                    .iter()
                    .map(|&i| id.get(i as usize).copied())
                    .collect::<Option<Vec<u32>>>()
                else {
                    return false;
                };
                for k in 0..3 {
                    *edges.entry((v[k], v[(k + 1) % 3])).or_insert(0u32) += 1;
                }
            }
            !edges.is_empty()
                && (edges.iter()).all(|(&(a, b), &n)| n == 1 && edges.get(&(b, a)) == Some(&1))
        })
    }

    /// Whether the convex parts were made already.
    pub fn has_convex_parts(&self) -> bool {
        self.parts.get().is_some()
    }

    /// Axis-aligned bounds `(min, max)`, or `None` for a mesh without vertices.
    pub fn bounds(&self) -> Option<([f32; 3], [f32; 3])> {
        let first = *self.positions.first()?;
        Some(self.positions.iter().fold((first, first), |(lo, hi), p| {
            (
                [lo[0].min(p[0]), lo[1].min(p[1]), lo[2].min(p[2])],
                [hi[0].max(p[0]), hi[1].max(p[1]), hi[2].max(p[2])],
            )
        }))
    }

    /// Enclosed volume (m³) of a closed mesh, by the divergence theorem; the absolute value, so
    /// a mesh wound clockwise gives the same.
    pub fn volume(&self) -> f64 {
        self.signed_volume_and_centroid().0.abs()
    }

    /// Centroid of the enclosed volume, or the mean vertex for a mesh enclosing none.
    pub fn centroid(&self) -> [f32; 3] {
        let (v, c) = self.signed_volume_and_centroid();
        if v.abs() > 1e-12 {
            return c.map(|x| (x / v) as f32);
        }
        let n = self.positions.len().max(1) as f64;
        let mut s = [0.0f64; 3];
        for p in &self.positions {
            for a in 0..3 {
                s[a] += p[a] as f64;
            }
        }
        s.map(|x| (x / n) as f32)
    }

    /// Signed volume and the first moment (volume × centroid) of the tetrahedra from the origin.
    fn signed_volume_and_centroid(&self) -> (f64, [f64; 3]) {
        let mut vol = 0.0f64;
        let mut moment = [0.0f64; 3];
        for t in &self.triangles {
            let [a, b, c] = t.map(|i| {
                self.positions
                    .get(i as usize)
                    .map_or([0.0; 3], |p| p.map(f64::from))
            });
            let v = (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                + a[2] * (b[0] * c[1] - b[1] * c[0]))
                / 6.0;
            vol += v;
            for k in 0..3 {
                moment[k] += v * (a[k] + b[k] + c[k]) / 4.0;
            }
        }
        (vol, moment)
    }

    /// The mesh with every vertex mapped by `pose` (its world placement).
    pub fn posed(&self, pose: &Pose) -> TriMesh {
        let mut positions = Vec::with_capacity(self.positions.len());
        pose.apply_all(&self.positions, &mut positions);
        TriMesh::new(positions, self.triangles.clone())
    }
}

/// Where a body stands in the world: `world = translation + rotation · (scale ⊙ local)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Position, metres (x, y on the map, z up).
    pub translation: [f32; 3],
    /// Orientation quaternion (x, y, z, w); normalised when applied.
    pub rotation: [f32; 4],
    /// Scale per axis.
    pub scale: [f32; 3],
}

impl Default for Pose {
    fn default() -> Self {
        Self {
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        }
    }
}

impl Pose {
    /// A pose at `translation`, unrotated, unscaled.
    pub fn at(translation: [f32; 3]) -> Self {
        Self {
            translation,
            ..Self::default()
        }
    }

    /// The placement of a level body.
    pub fn of(body: &Body) -> Self {
        Self {
            translation: body.translation,
            rotation: body.rotation,
            scale: body.scale,
        }
    }

    /// Rotates `v` by the (normalised) rotation; a zero quaternion leaves `v` as it is.
    pub fn rotate(&self, v: [f32; 3]) -> [f32; 3] {
        match self.unit_rotation() {
            Some(q) => rotate_by(q, v),
            None => v,
        }
    }

    /// The rotation normalised, `None` for a zero or non-finite quaternion (no rotation).
    fn unit_rotation(&self) -> Option<[f32; 4]> {
        let [x, y, z, w] = self.rotation;
        let n = (x * x + y * y + z * z + w * w).sqrt();
        (n > 0.0 && n.is_finite()).then(|| [x / n, y / n, z / n, w / n])
    }

    /// Maps every point of `points` (the body's frame) to the world into `out`, as
    /// [`Pose::apply`] does one by one (the same values, bit for bit), normalising the
    /// rotation once.
    pub fn apply_all(&self, points: &[[f32; 3]], out: &mut Vec<[f32; 3]>) {
        let unit = self.unit_rotation();
        out.clear();
        out.extend(points.iter().map(|p| self.place(unit, *p)));
    }

    fn place(&self, unit: Option<[f32; 4]>, p: [f32; 3]) -> [f32; 3] {
        let s = [
            p[0] * self.scale[0],
            p[1] * self.scale[1],
            p[2] * self.scale[2],
        ];
        let r = match unit {
            Some(q) => rotate_by(q, s),
            None => s,
        };
        [
            r[0] + self.translation[0],
            r[1] + self.translation[1],
            r[2] + self.translation[2],
        ]
    }

    /// Maps a point of the body's frame to the world.
    pub fn apply(&self, p: [f32; 3]) -> [f32; 3] {
        self.place(self.unit_rotation(), p)
    }
}

/// `v` rotated by the unit quaternion `q`: v' = v + 2w (q × v) + 2 q × (q × v).
fn rotate_by(q: [f32; 4], v: [f32; 3]) -> [f32; 3] {
    let [qx, qy, qz, qw] = q;
    let t = [
        2.0 * (qy * v[2] - qz * v[1]),
        2.0 * (qz * v[0] - qx * v[2]),
        2.0 * (qx * v[1] - qy * v[0]),
    ];
    [
        v[0] + qw * t[0] + (qy * t[2] - qz * t[1]),
        v[1] + qw * t[1] + (qz * t[0] - qx * t[2]),
        v[2] + qw * t[2] + (qx * t[1] - qy * t[0]),
    ]
}
