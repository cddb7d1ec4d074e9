//! Rigid bodies in the editor, free of windows and GPUs: a new body dropped onto the terrain
//! ([`new_body`], resting on the ground), its mass from density and volume, rotations as
//! angles about the axes, duplicates, rows and stacks of copies ([`Arrangement`]), and the ray
//! test that picks a body ([`hit_body`]). The parsed meshes live in [`library::MeshCache`].

pub mod library;

use std::path::Path;

use spillway::body::{Pose, TriMesh};
use spillway::level::{Body, Coupling};
use spillway::{Grid, Level};

pub use library::{BodyMesh, MeshCache, MeshId};

use spillway_render::Ray;
use spillway_render::pick::height_at;

pub use spillway::body::kind::{BodyKind, KINDS, WOOD, kind_of};

/// Density of a new body, kg/m³, from its file's name ([`kind_of`]).
pub fn default_density(gltf: &str) -> f32 {
    kind_of(gltf).density
}

fn stem(gltf: &str) -> &str {
    Path::new(gltf)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("Body")
}

/// A name like "Crate 3" for a body of file `gltf`, not taken by any body of `bodies`.
pub fn unique_name(bodies: &[Body], base: &str) -> String {
    let base = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == ' ');
    let base = if base.is_empty() { "Body" } else { base };
    (1..)
        .map(|n| format!("{base} {n}"))
        .find(|n| bodies.iter().all(|b| &b.name != n))
        .unwrap_or_else(|| base.into())
}

/// The display name of a body file: its stem, capitalised ("crate.glb" → "Crate").
pub fn display_name(gltf: &str) -> String {
    let stem = stem(gltf).replace(['_', '-'], " ");
    let mut chars = stem.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => "Body".into(),
    }
}

/// A new dynamic body of `mesh` (file `gltf`) at world `(x, y)`, unrotated, resting on the
/// ground of `level` (see [`rest_on_ground`]), named after its file.
pub fn new_body(level: &Level, gltf: &str, mesh: &TriMesh, x: f32, y: f32) -> Body {
    let mut body = Body {
        name: unique_name(&level.bodies, &display_name(gltf)),
        gltf: gltf.into(),
        translation: [x, y, 0.0],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
        density: default_density(gltf),
        dynamic: true,
        coupling: Coupling::Auto,
        collider: Default::default(),
    };
    rest_on_ground(&mut body, mesh, &level.terrain, level.cell_size);
    body
}

/// Sets the body's height so it rests on the terrain: no vertex below the ground under it,
/// and the one nearest the ground touching it (on flat ground, its lowest point at the terrain
/// height).
pub fn rest_on_ground(body: &mut Body, mesh: &TriMesh, terrain: &Grid, cell_size: f32) {
    let mut pose = Pose::of(body);
    pose.translation[2] = 0.0;
    let lift = mesh
        .positions
        .iter()
        .map(|&p| {
            let w = pose.apply(p);
            height_at(terrain, cell_size, w[0], w[1]) - w[2]
        })
        .fold(f32::NEG_INFINITY, f32::max);
    if lift.is_finite() {
        body.translation[2] = lift;
    }
}

/// World axis-aligned bounds `(min, max)` of `mesh` placed by `body`.
pub fn world_bounds(body: &Body, mesh: &TriMesh) -> ([f32; 3], [f32; 3]) {
    let pose = Pose::of(body);
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for &p in &mesh.positions {
        let w = pose.apply(p);
        for a in 0..3 {
            lo[a] = lo[a].min(w[a]);
            hi[a] = hi[a].max(w[a]);
        }
    }
    if !lo[0].is_finite() {
        return (body.translation, body.translation);
    }
    (lo, hi)
}

/// Volume of the body (m³): the mesh's volume times its scale.
pub fn volume(body: &Body, mesh: &BodyMesh) -> f64 {
    let [sx, sy, sz] = body.scale.map(f64::from);
    mesh.volume * (sx * sy * sz).abs()
}

/// Mass of the body, kg: density × mesh volume × scale.
pub fn mass(body: &Body, mesh: &BodyMesh) -> f64 {
    f64::from(body.density) * volume(body, mesh)
}

/// Densities the inspector offers, kg/m³: from a balloon's to above osmium's.
pub const DENSITY_RANGE: std::ops::RangeInclusive<f32> = 1.0..=50_000.0;

/// The density that gives the body `mass` kg, within [`DENSITY_RANGE`] (unchanged for a body
/// without volume).
pub fn density_for_mass(body: &Body, mesh: &BodyMesh, mass: f64) -> f32 {
    let v = volume(body, mesh);
    if v > 1e-12 && mass > 0.0 && mass.is_finite() {
        ((mass / v) as f32).clamp(*DENSITY_RANGE.start(), *DENSITY_RANGE.end())
    } else {
        body.density
    }
}

/// The quaternion product `a · b` (x, y, z, w).
pub fn quat_mul(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// The rotation by `angle` radians about unit `axis`.
pub fn quat_axis(axis: [f32; 3], angle: f32) -> [f32; 4] {
    let (s, c) = (angle * 0.5).sin_cos();
    [axis[0] * s, axis[1] * s, axis[2] * s, c]
}

/// The rotation turning by `angles[0]` about x, then `angles[1]` about y, then `angles[2]`
/// about z (radians): `q = qz · qy · qx`.
pub fn quat_from_angles(angles: [f32; 3]) -> [f32; 4] {
    let qx = quat_axis([1.0, 0.0, 0.0], angles[0]);
    let qy = quat_axis([0.0, 1.0, 0.0], angles[1]);
    let qz = quat_axis([0.0, 0.0, 1.0], angles[2]);
    normalised(quat_mul(qz, quat_mul(qy, qx)))
}

/// The angles about x, y and z (radians) of `q`, as [`quat_from_angles`] takes them.
pub fn angles_of(q: [f32; 4]) -> [f32; 3] {
    let [x, y, z, w] = normalised(q);
    let roll = (2.0 * (w * x + y * z)).atan2(1.0 - 2.0 * (x * x + y * y));
    let pitch = (2.0 * (w * y - z * x)).clamp(-1.0, 1.0).asin();
    let yaw = (2.0 * (w * z + x * y)).atan2(1.0 - 2.0 * (y * y + z * z));
    [roll, pitch, yaw]
}

/// `q` scaled to length 1 (the identity for a zero quaternion).
pub fn normalised(q: [f32; 4]) -> [f32; 4] {
    let n = q.iter().map(|v| v * v).sum::<f32>().sqrt();
    if n > 0.0 && n.is_finite() {
        q.map(|v| v / n)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// How the Row and Stack helpers lay copies of a body out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrangement {
    /// Side by side along x, each resting on the ground.
    RowX,
    /// Side by side along y, each resting on the ground.
    RowY,
    /// One on top of the other.
    Stack,
}

impl Arrangement {
    /// The name on the inspector's button.
    pub fn name(self) -> &'static str {
        match self {
            Arrangement::RowX => "Row along x",
            Arrangement::RowY => "Row along y",
            Arrangement::Stack => "Stack up",
        }
    }
}

/// `count − 1` copies of `bodies[index]` (`mesh`) that make, with it, `count` bodies side by
/// side (spaced by the body's size, touching) or stacked, each named afresh.
pub fn arrange(
    level: &Level,
    index: usize,
    mesh: &TriMesh,
    count: usize,
    how: Arrangement,
) -> Vec<Body> {
    let Some(first) = level.bodies.get(index) else {
        return Vec::new();
    };
    let (lo, hi) = world_bounds(first, mesh);
    let mut taken = level.bodies.clone();
    let mut out = Vec::new();
    for k in 1..count {
        let mut body = first.clone();
        let step = k as f32;
        match how {
            Arrangement::RowX => body.translation[0] += step * (hi[0] - lo[0]),
            Arrangement::RowY => body.translation[1] += step * (hi[1] - lo[1]),
            Arrangement::Stack => body.translation[2] += step * (hi[2] - lo[2]),
        }
        if how != Arrangement::Stack {
            rest_on_ground(&mut body, mesh, &level.terrain, level.cell_size);
        }
        body.name = unique_name(&taken, &first.name);
        taken.push(body.clone());
        out.push(body);
    }
    out
}

/// A copy of `bodies[index]` beside it (one body's width further along x), resting on the
/// ground, with a new name.
pub fn duplicate(level: &Level, index: usize, mesh: &TriMesh) -> Option<Body> {
    arrange(level, index, mesh, 2, Arrangement::RowX).pop()
}

/// Distance along `ray` to the nearest triangle of `mesh` placed by `body`, if it hits.
pub fn ray_hit(ray: &Ray, body: &Body, mesh: &TriMesh) -> Option<f32> {
    let (lo, hi) = world_bounds(body, mesh);
    ray_box(ray, lo, hi)?;
    let pose = Pose::of(body);
    let world: Vec<[f32; 3]> = mesh.positions.iter().map(|&p| pose.apply(p)).collect();
    let o = ray.origin.to_array();
    let d = ray.dir.to_array();
    mesh.triangles
        .iter()
        .filter_map(|t| {
            let [a, b, c] = t.map(|i| world.get(i as usize).copied().unwrap_or_default());
            ray_triangle(o, d, a, b, c)
        })
        .fold(None, |best: Option<f32>, t| {
            Some(best.map_or(t, |b| b.min(t)))
        })
}

/// The nearest of `bodies` under `ray`: its index and distance. `mesh_of` gives each body's
/// mesh (`None`: not loaded, never hit).
pub fn hit_body<'a>(
    bodies: &[Body],
    ray: &Ray,
    mut mesh_of: impl FnMut(&Body) -> Option<&'a TriMesh>,
) -> Option<(usize, f32)> {
    bodies
        .iter()
        .enumerate()
        .filter_map(|(i, b)| Some((i, ray_hit(ray, b, mesh_of(b)?)?)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
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

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Möller–Trumbore: distance along the ray to the triangle, either side.
fn ray_triangle(o: [f32; 3], d: [f32; 3], a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> Option<f32> {
    let (e1, e2) = (sub(b, a), sub(c, a));
    let p = cross(d, e2);
    let det = dot(e1, p);
    if det.abs() < 1e-12 {
        return None;
    }
    let inv = 1.0 / det;
    let s = sub(o, a);
    let u = dot(s, p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = cross(s, e1);
    let v = dot(d, q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = dot(e2, q) * inv;
    (t > 0.0).then_some(t)
}

/// Slab test: the entry distance of the ray into the box, if it meets it.
fn ray_box(ray: &Ray, lo: [f32; 3], hi: [f32; 3]) -> Option<f32> {
    let o = ray.origin.to_array();
    let d = ray.dir.to_array();
    let (mut t0, mut t1) = (0.0f32, f32::INFINITY);
    for a in 0..3 {
        if d[a].abs() < 1e-12 {
            if o[a] < lo[a] || o[a] > hi[a] {
                return None;
            }
            continue;
        }
        let (mut near, mut far) = ((lo[a] - o[a]) / d[a], (hi[a] - o[a]) / d[a]);
        if near > far {
            std::mem::swap(&mut near, &mut far);
        }
        t0 = t0.max(near);
        t1 = t1.min(far);
        if t0 > t1 {
            return None;
        }
    }
    Some(t0)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use spillway_render::math::Vec3;

    #[test]
    fn the_file_name_chooses_density_and_colour_from_one_table() {
        let boulder = kind_of("bodies/Big_Boulder.glb");
        assert!(boulder.density > 1000.0, "a boulder sinks");
        assert_eq!(boulder.colour, KINDS[0].colour);
        assert!(kind_of("crate.glb").density < 1000.0, "a crate floats");
        assert_eq!(kind_of("stone wall.gltf"), KINDS[0]);
        assert_eq!(kind_of("raft.glb"), WOOD);
        assert_eq!(default_density("cart.glb"), KINDS[1].density);
    }

    /// A unit cube centred on the origin.
    pub(crate) fn cube() -> TriMesh {
        let mut positions = Vec::new();
        for i in 0..8 {
            positions.push([
                if i & 1 == 0 { -0.5 } else { 0.5 },
                if i & 2 == 0 { -0.5 } else { 0.5 },
                if i & 4 == 0 { -0.5 } else { 0.5 },
            ]);
        }
        let quads = [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ];
        let triangles = quads
            .iter()
            .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
            .collect();
        TriMesh::new(positions, triangles)
    }

    #[test]
    fn a_new_body_rests_on_the_ground() {
        let mut level = Level::flat(20, 20, 1.0, 3.0);
        let body = new_body(&level, "assets/crate.glb", &cube(), 10.0, 10.0);
        assert_eq!(body.name, "Crate 1");
        assert!((body.translation[2] - 3.5).abs() < 1e-5);
        level.bodies.push(body);
        assert_eq!(
            new_body(&level, "crate.glb", &cube(), 5.0, 5.0).name,
            "Crate 2"
        );
    }

    #[test]
    fn a_mass_sets_a_density_the_density_field_offers() {
        let level = Level::flat(20, 20, 1.0, 0.0);
        let body = new_body(&level, "crate.glb", &cube(), 5.0, 5.0);
        let mesh = BodyMesh {
            id: MeshId(0),
            path: "crate.glb".into(),
            mesh: cube(),
            volume: 1.0,
        };
        assert_eq!(density_for_mass(&body, &mesh, 700.0), 700.0);
        assert_eq!(
            density_for_mass(&body, &mesh, 0.001),
            *DENSITY_RANGE.start()
        );
        assert_eq!(density_for_mass(&body, &mesh, 1.0e9), *DENSITY_RANGE.end());
    }

    #[test]
    fn angles_round_trip_through_quaternions() {
        let a = [0.3, -0.4, 1.2];
        let b = angles_of(quat_from_angles(a));
        for k in 0..3 {
            assert!((a[k] - b[k]).abs() < 1e-5, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn rows_are_spaced_by_the_body_size_and_stacks_by_its_height() {
        let mut level = Level::flat(20, 20, 1.0, 0.0);
        level
            .bodies
            .push(new_body(&level, "crate.glb", &cube(), 5.0, 5.0));
        let row = arrange(&level, 0, &cube(), 4, Arrangement::RowY);
        assert_eq!(row.len(), 3);
        assert!((row[2].translation[1] - 8.0).abs() < 1e-5);
        assert_eq!(row[2].name, "Crate 4");
        let stack = arrange(&level, 0, &cube(), 3, Arrangement::Stack);
        assert!((stack[1].translation[2] - 2.5).abs() < 1e-5);
    }

    #[test]
    fn a_ray_hits_the_nearest_body() {
        let mut level = Level::flat(20, 20, 1.0, 0.0);
        level
            .bodies
            .push(new_body(&level, "crate.glb", &cube(), 5.0, 5.0));
        level
            .bodies
            .push(new_body(&level, "crate.glb", &cube(), 5.0, 7.0));
        let mesh = cube();
        let ray = Ray {
            origin: Vec3::new(5.0, 5.0, 10.0),
            dir: Vec3::new(0.0, 0.0, -1.0),
        };
        let (i, t) = hit_body(&level.bodies, &ray, |_| Some(&mesh)).expect("a hit");
        assert_eq!(i, 0);
        assert!((t - 9.0).abs() < 1e-4);
        let miss = Ray {
            origin: Vec3::new(15.0, 5.0, 10.0),
            dir: Vec3::new(0.0, 0.0, -1.0),
        };
        assert!(hit_body(&level.bodies, &miss, |_| Some(&mesh)).is_none());
    }
}
