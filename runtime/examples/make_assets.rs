//! Writes the project's body assets, `assets/*.glb`, reproducibly (no randomness: the boulder's
//! bumps come from a fixed hash). Run from the repository root:
//!
//! ```text
//! cargo run -p spillway --example make_assets            # writes into assets/
//! cargo run -p spillway --example make_assets -- DIR     # writes into DIR
//! ```
//!
//! Every file is binary glTF 2.0 with positions and 16-bit indices only (viewers compute flat
//! normals), in metres, y up as glTF wants; Spillway turns y-up into its z-up on import. Each
//! body's origin is the centre of its bounding box.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{Value, json};

/// A mesh in Spillway's frame (z up).
struct Mesh {
    positions: Vec<[f32; 3]>,
    triangles: Vec<[u16; 3]>,
}

/// A box of size `s` centred on the origin.
fn cuboid(s: [f32; 3]) -> Mesh {
    let positions = (0..8)
        .map(|b| {
            let sign = |bit: u32| if b >> bit & 1 == 1 { 0.5 } else { -0.5 };
            [sign(0) * s[0], sign(1) * s[1], sign(2) * s[2]]
        })
        .collect();
    let triangles = vec![
        [0, 2, 3],
        [0, 3, 1],
        [4, 5, 7],
        [4, 7, 6],
        [0, 1, 5],
        [0, 5, 4],
        [2, 6, 7],
        [2, 7, 3],
        [0, 4, 6],
        [0, 6, 2],
        [1, 3, 7],
        [1, 7, 5],
    ];
    Mesh {
        positions,
        triangles,
    }
}

/// A solid of revolution about z: rings of `(z, radius)` from bottom to top, capped.
fn lathe(profile: &[(f32, f32)], segments: u16) -> Mesh {
    let mut positions = Vec::new();
    for &(z, r) in profile {
        for a in 0..segments {
            let t = std::f32::consts::TAU * a as f32 / segments as f32;
            positions.push([r * t.cos(), r * t.sin(), z]);
        }
    }
    let rings = profile.len() as u16;
    let at = |k: u16, a: u16| k * segments + a % segments;
    let mut triangles = Vec::new();
    for k in 0..rings - 1 {
        for a in 0..segments {
            triangles.push([at(k, a), at(k, a + 1), at(k + 1, a + 1)]);
            triangles.push([at(k, a), at(k + 1, a + 1), at(k + 1, a)]);
        }
    }
    let bottom = positions.len() as u16;
    positions.push([0.0, 0.0, profile[0].0]);
    let top = positions.len() as u16;
    positions.push([0.0, 0.0, profile[profile.len() - 1].0]);
    for a in 0..segments {
        triangles.push([bottom, at(0, a + 1), at(0, a)]);
        triangles.push([top, at(rings - 1, a), at(rings - 1, a + 1)]);
    }
    Mesh {
        positions,
        triangles,
    }
}

/// A cylinder of `length` along x.
fn log(length: f32, radius: f32, segments: u16) -> Mesh {
    let mut m = lathe(&[(-length / 2.0, radius), (length / 2.0, radius)], segments);
    // (x, y, z) → (z, x, y): a right-handed relabelling keeps the winding.
    for p in &mut m.positions {
        *p = [p[2], p[0], p[1]];
    }
    m
}

/// A barrel standing on z: bulging staves, `height` tall.
fn barrel(height: f32, radius: f32) -> Mesh {
    let profile: Vec<(f32, f32)> = (0..=6)
        .map(|k| {
            let t = k as f32 / 6.0 * 2.0 - 1.0;
            (t * height / 2.0, radius * (1.0 + 0.12 * (1.0 - t * t)))
        })
        .collect();
    lathe(&profile, 16)
}

/// A fixed pseudo-random value in 0..1 for an integer seed.
fn hash(mut x: u32) -> f32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    (x & 0xffff) as f32 / 65535.0
}

/// An irregular, mostly convex rock: a twice subdivided icosahedron with bumps, squashed.
fn boulder() -> Mesh {
    let g = (1.0 + 5f32.sqrt()) / 2.0;
    let mut pos: Vec<[f32; 3]> = [
        [-1.0, g, 0.0],
        [1.0, g, 0.0],
        [-1.0, -g, 0.0],
        [1.0, -g, 0.0],
        [0.0, -1.0, g],
        [0.0, 1.0, g],
        [0.0, -1.0, -g],
        [0.0, 1.0, -g],
        [g, 0.0, -1.0],
        [g, 0.0, 1.0],
        [-g, 0.0, -1.0],
        [-g, 0.0, 1.0],
    ]
    .iter()
    .map(|&p| normalise(p))
    .collect();
    let mut tris: Vec<[u16; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..2 {
        let mut mid: HashMap<(u16, u16), u16> = HashMap::new();
        let mut next = Vec::new();
        for t in &tris {
            let mut m = [0u16; 3];
            for e in 0..3 {
                let (a, b) = (t[e], t[(e + 1) % 3]);
                let key = (a.min(b), a.max(b));
                m[e] = *mid.entry(key).or_insert_with(|| {
                    let (p, q) = (pos[a as usize], pos[b as usize]);
                    pos.push(normalise([p[0] + q[0], p[1] + q[1], p[2] + q[2]]));
                    (pos.len() - 1) as u16
                });
            }
            next.extend([
                [t[0], m[0], m[2]],
                [t[1], m[1], m[0]],
                [t[2], m[2], m[1]],
                m,
            ]);
        }
        tris = next;
    }
    let squash = [0.75, 0.6, 0.45];
    for (k, p) in pos.iter_mut().enumerate() {
        let bump = 1.0 + 0.18 * (hash(k as u32 * 7 + 3) - 0.5);
        *p = [
            p[0] * bump * squash[0],
            p[1] * bump * squash[1],
            p[2] * bump * squash[2],
        ];
    }
    // Outward winding, whatever the table's convention.
    for t in &mut tris {
        let [a, b, c] = t.map(|i| pos[i as usize]);
        let n = cross(sub(b, a), sub(c, a));
        let centre = [a[0] + b[0] + c[0], a[1] + b[1] + c[1], a[2] + b[2] + c[2]];
        if n[0] * centre[0] + n[1] * centre[1] + n[2] * centre[2] < 0.0 {
            t.swap(1, 2);
        }
    }
    centred(Mesh {
        positions: pos,
        triangles: tris,
    })
}

fn normalise(p: [f32; 3]) -> [f32; 3] {
    let n = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    [p[0] / n, p[1] / n, p[2] / n]
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

/// Moves a mesh so its bounding box is centred on the origin.
fn centred(mut m: Mesh) -> Mesh {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in &m.positions {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    for p in &mut m.positions {
        for a in 0..3 {
            p[a] -= (lo[a] + hi[a]) / 2.0;
        }
    }
    m
}

/// Spillway's z-up frame to glTF's y-up frame.
fn to_gltf(p: [f32; 3]) -> [f32; 3] {
    [p[0], p[2], -p[1]]
}

/// Builds one binary glTF file.
#[derive(Default)]
struct Glb {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    meshes: Vec<Value>,
    nodes: Vec<Value>,
}

impl Glb {
    /// Adds a mesh; returns its index.
    fn mesh(&mut self, name: &str, m: &Mesh) -> usize {
        let pts: Vec<[f32; 3]> = m.positions.iter().map(|&p| to_gltf(p)).collect();
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        let start = self.bin.len();
        for p in &pts {
            for a in 0..3 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
                self.bin.extend_from_slice(&p[a].to_le_bytes());
            }
        }
        self.views.push(json!({"buffer": 0, "byteOffset": start, "byteLength": self.bin.len() - start, "target": 34962}));
        self.accessors.push(json!({"bufferView": self.views.len() - 1, "componentType": 5126, "count": pts.len(), "type": "VEC3", "min": lo, "max": hi}));
        let positions = self.accessors.len() - 1;
        let start = self.bin.len();
        for t in &m.triangles {
            for i in t {
                self.bin.extend_from_slice(&i.to_le_bytes());
            }
        }
        self.views.push(json!({"buffer": 0, "byteOffset": start, "byteLength": self.bin.len() - start, "target": 34963}));
        self.accessors.push(json!({"bufferView": self.views.len() - 1, "componentType": 5123, "count": m.triangles.len() * 3, "type": "SCALAR"}));
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.meshes.push(json!({"name": name, "primitives": [{"attributes": {"POSITION": positions}, "indices": self.accessors.len() - 1}]}));
        self.meshes.len() - 1
    }

    /// Adds a node; returns its index.
    fn node(&mut self, node: Value) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    fn bytes(&self, roots: &[usize]) -> Vec<u8> {
        let doc = json!({
            "asset": {"version": "2.0", "generator": "spillway make_assets"},
            "scene": 0,
            "scenes": [{"nodes": roots}],
            "nodes": self.nodes,
            "meshes": self.meshes,
            "accessors": self.accessors,
            "bufferViews": self.views,
            "buffers": [{"byteLength": self.bin.len()}],
        });
        let mut text = serde_json::to_vec(&doc).expect("JSON of plain values");
        while !text.len().is_multiple_of(4) {
            text.push(b' ');
        }
        let total = 12 + 8 + text.len() + 8 + self.bin.len();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&text);
        out.extend_from_slice(&(self.bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&self.bin);
        out
    }
}

/// A file holding one mesh on one node.
fn single(name: &str, m: &Mesh) -> Vec<u8> {
    let mut g = Glb::default();
    let mesh = g.mesh(name, m);
    let root = g.node(json!({"name": name, "mesh": mesh}));
    g.bytes(&[root])
}

/// A cart: a chassis box on four wheels, 0.55 m of clearance under the chassis. The wheels are
/// one shared mesh (an upright cylinder) placed by node transforms that lay it on its side.
fn cart() -> Vec<u8> {
    let (clearance, chassis_h, radius) = (0.55, 0.6, 0.35);
    let height = clearance + chassis_h;
    let mut g = Glb::default();
    let chassis = g.mesh("chassis", &cuboid([2.4, 1.4, chassis_h]));
    // Upright in glTF (along its y): built along z here.
    let wheel = g.mesh("wheel", &lathe(&[(-0.1, radius), (0.1, radius)], 16));
    let mut children = vec![g.node(json!({
        "name": "chassis", "mesh": chassis,
        "translation": to_gltf([0.0, 0.0, clearance + chassis_h / 2.0 - height / 2.0]),
    }))];
    // A quarter turn about glTF x lays the wheel's axle along Spillway's y.
    let s = std::f32::consts::FRAC_1_SQRT_2;
    for (name, x, y) in [
        ("wheel_fl", 0.8, 0.8),
        ("wheel_fr", 0.8, -0.8),
        ("wheel_rl", -0.8, 0.8),
        ("wheel_rr", -0.8, -0.8),
    ] {
        children.push(g.node(json!({
            "name": name, "mesh": wheel,
            "translation": to_gltf([x, y, radius - height / 2.0]),
            "rotation": [s, 0.0, 0.0, s],
        })));
    }
    let root = g.node(json!({"name": "cart", "children": children}));
    g.bytes(&[root])
}

fn main() {
    let dir: PathBuf = std::env::args_os()
        .nth(1)
        .map_or_else(|| "assets".into(), PathBuf::from);
    std::fs::create_dir_all(&dir).expect("the output folder can be made");
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("crate.glb", single("crate", &cuboid([1.0, 1.0, 1.0]))),
        ("log.glb", single("log", &log(3.0, 0.2, 16))),
        ("plank.glb", single("plank", &cuboid([2.0, 0.3, 0.05]))),
        ("barrel.glb", single("barrel", &barrel(0.9, 0.28))),
        ("boulder.glb", single("boulder", &boulder())),
        ("cart.glb", cart()),
    ];
    for (name, bytes) in files {
        let path = dir.join(name);
        std::fs::write(&path, &bytes).expect("the asset can be written");
        println!("{} ({} bytes)", path.display(), bytes.len());
    }
}
