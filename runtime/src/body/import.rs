//! glTF import of body meshes (feature `bodies`): `.glb` and `.gltf` files, buffers in the GLB's
//! binary chunk, in `data:` URIs or in files beside the glTF.
//!
//! The default scene (else the first; else every root node) is walked with each node's
//! transform applied; triangle, strip and fan primitives become one [`TriMesh`], turned from
//! glTF's y-up into Spillway's z-up (`(x, y, z) → (x, −z, y)`). Points and lines are skipped.
//! Every size is checked against [`ImportLimits`] before anything is allocated for it, external
//! buffers must lie inside the given root folder (no `..` out of it, no absolute paths, no
//! links leading out), and every problem is an [`ImportError`] naming the file.

use std::path::{Path, PathBuf};

#[path = "import_files.rs"]
mod files;

pub use files::percent_decode;
use files::{inside, read_limited, uri_bytes};

use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::Mode;
use thiserror::Error;

use super::TriMesh;

/// Size limits of an imported body.
///
/// `max_file_bytes` bounds the glTF file and, separately, all its buffers together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImportLimits {
    /// Largest glTF or buffer file, bytes.
    pub max_file_bytes: u64,
    /// Most vertices over all primitives.
    pub max_vertices: usize,
    /// Most triangles over all primitives.
    pub max_triangles: usize,
}

impl Default for ImportLimits {
    fn default() -> Self {
        Self {
            max_file_bytes: 64 << 20,
            max_vertices: 1 << 20,
            max_triangles: 2 << 20,
        }
    }
}

/// What is wrong with a glTF file.
#[derive(Debug, Error)]
pub enum ImportProblem {
    /// The file could not be read.
    #[error("cannot read it: {0}")]
    Io(#[from] std::io::Error),
    /// Not valid glTF (or GLB), or an accessor or view points outside its data.
    #[error("broken glTF: {0}")]
    Broken(String),
    /// Valid, but without a single triangle.
    #[error("it holds no triangles")]
    Empty,
    /// Larger than a limit.
    #[error("too large: {what} is {size}, the limit is {limit}")]
    Oversized {
        /// What is too large.
        what: &'static str,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A buffer the meshes need is not there.
    #[error("missing buffer {index}: {why}")]
    MissingBuffer {
        /// Buffer index.
        index: usize,
        /// What is missing.
        why: String,
    },
    /// An external URI or the file itself would leave the allowed folder.
    #[error("{0} points outside the level's folder")]
    OutsideFolder(String),
    /// A feature this importer does not read (e.g. sparse or non-float positions).
    #[error("unsupported: {0}")]
    Unsupported(String),
}

/// A glTF file that could not be imported: the file and what is wrong.
#[derive(Debug, Error)]
#[error("{}: {problem}", file.display())]
pub struct ImportError {
    /// The glTF file.
    pub file: PathBuf,
    /// What is wrong.
    pub problem: ImportProblem,
}

/// Imports the mesh of `relative` (a level body's `gltf` path), resolved against `root` (the
/// level's folder); the file and its external buffers must lie inside `root`.
pub fn import_body(
    root: &Path,
    relative: &str,
    limits: &ImportLimits,
) -> Result<TriMesh, ImportError> {
    let path = body_file(root, relative)?;
    import(&path, root, limits)
}

/// The file a level body's `gltf` path (`relative`) names in `root`, the level's folder;
/// refused when it leaves the folder by name (`..` past it) or through links, as
/// [`import_body`] refuses it.
pub fn body_file(root: &Path, relative: &str) -> Result<PathBuf, ImportError> {
    inside(root, Path::new(relative)).map_err(|problem| ImportError {
        file: root.join(relative),
        problem,
    })
}

/// Imports the mesh of the glTF file at `file`; external buffers must lie inside `root`.
pub fn import(file: &Path, root: &Path, limits: &ImportLimits) -> Result<TriMesh, ImportError> {
    read(file, root, limits).map_err(|problem| ImportError {
        file: file.to_path_buf(),
        problem,
    })
}

/// Imports the mesh of a glTF held in memory (a game's asset pack, bytes built into the
/// program): a `.glb`, or a `.gltf` whose buffers are `data:` URIs. Nothing is read from the
/// file system, so a buffer in a file beside the glTF is refused as missing; errors call the
/// file `name`. The same limits and checks as [`import`].
pub fn import_bytes(
    name: &Path,
    bytes: &[u8],
    limits: &ImportLimits,
) -> Result<TriMesh, ImportError> {
    let size = bytes.len() as u64;
    let checked = if size > limits.max_file_bytes {
        Err(ImportProblem::Oversized {
            what: "the file",
            size,
            limit: limits.max_file_bytes,
        })
    } else {
        mesh_of(bytes, None, limits)
    };
    checked.map_err(|problem| ImportError {
        file: name.to_path_buf(),
        problem,
    })
}

fn read(file: &Path, root: &Path, limits: &ImportLimits) -> Result<TriMesh, ImportProblem> {
    let bytes = read_limited(file, limits.max_file_bytes)?;
    let folder = file.parent().unwrap_or(Path::new(""));
    mesh_of(&bytes, Some((folder, root)), limits)
}

/// The mesh of glTF `bytes`; external buffers are read from `beside` (the file's folder and
/// the root it must stay in), or refused where there is none.
fn mesh_of(
    bytes: &[u8],
    beside: Option<(&Path, &Path)>,
    limits: &ImportLimits,
) -> Result<TriMesh, ImportProblem> {
    let gltf = parse(bytes)?;
    // Sizes first: vertices and triangles the primitives declare (each mesh's triangles are
    // counted again below for every node that places it).
    let (mut vertices, mut triangles) = (0usize, 0usize);
    let mut mesh_triangles = Vec::with_capacity(gltf.meshes().len());
    for mesh in gltf.meshes() {
        let mut of_mesh = 0usize;
        for p in mesh.primitives() {
            if let Some(a) = p.get(&gltf::Semantic::Positions) {
                vertices = vertices.saturating_add(a.count());
                let n = p.indices().map_or(a.count(), |i| i.count());
                let t = match p.mode() {
                    Mode::Triangles => n / 3,
                    _ => n.saturating_sub(2),
                };
                of_mesh = of_mesh.saturating_add(t);
            }
        }
        triangles = triangles.saturating_add(of_mesh);
        mesh_triangles.push(of_mesh);
    }
    // glTF's nodes form trees: a node that is the child of two nodes would be placed once
    // per path to it, twice as often at each level of a chain of them.
    let mut parent = vec![None::<usize>; gltf.nodes().len()];
    for n in gltf.nodes() {
        for c in n.children() {
            if let Some(first) = parent[c.index()].replace(n.index()) {
                let (c, n) = (c.index(), n.index());
                let twice = if first == n {
                    format!("node {c} is listed twice among node {n}'s children")
                } else {
                    format!("node {c} is a child of both node {first} and node {n}")
                };
                return Err(ImportProblem::Broken(format!(
                    "{twice} (glTF nodes form a tree)"
                )));
            }
        }
    }
    for (what, size, limit) in [
        ("the number of vertices", vertices, limits.max_vertices),
        ("the triangle count", triangles, limits.max_triangles),
    ] {
        if size > limit {
            return Err(ImportProblem::Oversized {
                what,
                size: size as u64,
                limit: limit as u64,
            });
        }
    }
    let mut buffers = Vec::new();
    let mut total = 0u64;
    for b in gltf.buffers() {
        let data = match b.source() {
            gltf::buffer::Source::Bin => {
                gltf.blob
                    .clone()
                    .ok_or_else(|| ImportProblem::MissingBuffer {
                        index: b.index(),
                        why: "the GLB has no binary chunk".into(),
                    })?
            }
            gltf::buffer::Source::Uri(uri) => match beside {
                Some((folder, root)) => uri_bytes(uri, folder, root, limits, b.index())?,
                None if uri.starts_with("data:") => {
                    uri_bytes(uri, Path::new(""), Path::new(""), limits, b.index())?
                }
                None => {
                    return Err(ImportProblem::MissingBuffer {
                        index: b.index(),
                        why: format!(
                            "`{uri}` is a file beside the glTF; one imported from bytes holds \
                             its buffers (a .glb, or data: URIs)"
                        ),
                    });
                }
            },
        };
        total = total.saturating_add(data.len() as u64);
        if total > limits.max_file_bytes {
            return Err(ImportProblem::Oversized {
                what: "the buffers together",
                size: total,
                limit: limits.max_file_bytes,
            });
        }
        if data.len() < b.length() {
            return Err(ImportProblem::MissingBuffer {
                index: b.index(),
                why: format!(
                    "it holds {} bytes, the file declares {}",
                    data.len(),
                    b.length()
                ),
            });
        }
        buffers.push(data);
    }
    let mut mesh = TriMesh::default();
    let scene = gltf.default_scene().or_else(|| gltf.scenes().next());
    let roots: Vec<gltf::Node> = match scene {
        // Counted before they are gathered: a root listed a million times in a small file
        // took gigabytes before the visits were counted.
        Some(s) if s.nodes().len() > MAX_NODE_VISITS => {
            return Err(ImportProblem::Broken(format!(
                "scene {} lists more than {MAX_NODE_VISITS} root nodes",
                s.index()
            )));
        }
        Some(s) => s.nodes().collect(),
        None => {
            let mut child = vec![false; gltf.nodes().len()];
            for c in gltf.nodes().flat_map(|n| n.children()) {
                child[c.index()] = true;
            }
            gltf.nodes().filter(|n| !child[n.index()]).collect()
        }
    };
    let mut stack: Vec<(gltf::Node, [[f32; 4]; 4], usize)> =
        roots.into_iter().map(|n| (n, IDENTITY, 0)).collect();
    let (mut visits, mut placed) = (0usize, 0usize);
    while let Some((node, parent, depth)) = stack.pop() {
        visits += 1;
        if depth > MAX_NODE_DEPTH || visits > MAX_NODE_VISITS {
            return Err(ImportProblem::Broken(format!(
                "the node tree is deeper than {MAX_NODE_DEPTH} or has more than {MAX_NODE_VISITS} node instances"
            )));
        }
        let m = mul(&parent, &node.transform().matrix());
        if !m.iter().flatten().all(|v| v.is_finite()) {
            return Err(ImportProblem::Broken(format!(
                "node {}: its transform (with its parents') is not finite",
                node.index()
            )));
        }
        if let Some(me) = node.mesh() {
            placed = placed.saturating_add(mesh_triangles[me.index()]);
            if placed > limits.max_triangles {
                return Err(ImportProblem::Oversized {
                    what: "the triangle count of every placed mesh",
                    size: placed as u64,
                    limit: limits.max_triangles as u64,
                });
            }
            for p in me.primitives() {
                add_primitive(&mut mesh, &p, &m, &buffers, limits)?;
            }
        }
        stack.extend(node.children().map(|c| (c, m, depth + 1)));
    }
    if mesh.triangles.is_empty() {
        return Err(ImportProblem::Empty);
    }
    Ok(mesh)
}

/// Parses and validates glTF or GLB bytes. gltf-json's validation indexes a primitive's
/// `POSITION` accessor without a range check, so attribute indices are checked first; a panic
/// inside the parser would still only mark the file as broken.
fn parse(bytes: &[u8]) -> Result<gltf::Gltf, ImportProblem> {
    use gltf::json::validation::Validate;
    let broken = |e: String| ImportProblem::Broken(e);
    files::check_json_size(bytes)?;
    let parsed = std::panic::catch_unwind(|| gltf::Gltf::from_slice_without_validation(bytes))
        .map_err(|_| broken("the glTF parser failed on it".into()))?
        .map_err(|e| broken(e.to_string()))?;
    let json = parsed.document.as_json();
    for (m, mesh) in json.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            if let Some(a) = primitive
                .attributes
                .values()
                .find(|a| a.value() >= json.accessors.len())
            {
                return Err(broken(format!(
                    "meshes[{m}].primitives[{p}] names accessor {} of {}",
                    a.value(),
                    json.accessors.len()
                )));
            }
        }
    }
    let mut errors = Vec::new();
    let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        json.validate(json, gltf::json::Path::new, &mut |path, error| {
            errors.push(format!("{}: {error}", path()))
        })
    }));
    if checked.is_err() {
        return Err(broken("the glTF validator failed on it".into()));
    }
    if !errors.is_empty() {
        let shown = errors.len().min(3);
        let more = errors.len() - shown;
        let mut text = errors[..shown].join("; ");
        if more > 0 {
            text.push_str(&format!(" (and {more} more)"));
        }
        return Err(broken(text));
    }
    Ok(parsed)
}

/// Deepest node nesting walked.
const MAX_NODE_DEPTH: usize = 64;
/// Most node instances walked (a node reached through several parents counts each time).
const MAX_NODE_VISITS: usize = 100_000;

const IDENTITY: [[f32; 4]; 4] = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

/// Product of column-major 4×4 matrices.
fn mul(a: &[[f32; 4]; 4], b: &[[f32; 4]; 4]) -> [[f32; 4]; 4] {
    let mut m = [[0.0; 4]; 4];
    for c in 0..4 {
        for r in 0..4 {
            m[c][r] = (0..4).map(|k| a[k][r] * b[c][k]).sum();
        }
    }
    m
}

/// The raw bytes of `count` elements of `size` bytes of an accessor, with its stride, checked
/// to lie inside its buffer.
fn elements<'a>(
    a: &gltf::Accessor,
    buffers: &'a [Vec<u8>],
    size: usize,
) -> Result<(&'a [u8], usize), ImportProblem> {
    if a.sparse().is_some() {
        return Err(ImportProblem::Unsupported(format!(
            "accessor {}: sparse data",
            a.index()
        )));
    }
    let Some(view) = a.view() else {
        return Err(ImportProblem::Unsupported(format!(
            "accessor {}: no buffer view",
            a.index()
        )));
    };
    let broken = |why: &str| ImportProblem::Broken(format!("accessor {}: {why}", a.index()));
    let data = buffers
        .get(view.buffer().index())
        .ok_or_else(|| broken("its buffer is missing"))?;
    let end = view
        .offset()
        .checked_add(view.length())
        .ok_or_else(|| broken("view overflows"))?;
    let bytes = data
        .get(view.offset()..end)
        .ok_or_else(|| broken("its view lies outside the buffer"))?;
    let stride = view.stride().unwrap_or(size).max(size);
    let count = a.count();
    if count == 0 {
        return Ok((&[], stride));
    }
    let need = (count - 1)
        .checked_mul(stride)
        .and_then(|n| n.checked_add(size))
        .and_then(|n| n.checked_add(a.offset()))
        .ok_or_else(|| broken("size overflows"))?;
    let slice = bytes
        .get(a.offset()..need)
        .ok_or_else(|| broken("it runs past its view"))?;
    Ok((slice, stride))
}

fn add_primitive(
    mesh: &mut TriMesh,
    p: &gltf::Primitive,
    m: &[[f32; 4]; 4],
    buffers: &[Vec<u8>],
    limits: &ImportLimits,
) -> Result<(), ImportProblem> {
    let Some(pos) = p.get(&gltf::Semantic::Positions) else {
        return Ok(());
    };
    if !matches!(
        p.mode(),
        Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
    ) {
        return Ok(());
    }
    if pos.data_type() != DataType::F32 || pos.dimensions() != Dimensions::Vec3 {
        return Err(ImportProblem::Unsupported(format!(
            "accessor {}: positions that are not 3 floats",
            pos.index()
        )));
    }
    let base = mesh.positions.len();
    // A mesh placed by several nodes counts once per placement.
    if base.saturating_add(pos.count()) > limits.max_vertices {
        return Err(ImportProblem::Oversized {
            what: "the number of vertices of all placed meshes",
            size: base.saturating_add(pos.count()) as u64,
            limit: limits.max_vertices as u64,
        });
    }
    let (raw, stride) = elements(&pos, buffers, 12)?;
    for v in 0..pos.count() {
        let f = |k: usize| {
            let o = v * stride + 4 * k;
            f32::from_le_bytes([raw[o], raw[o + 1], raw[o + 2], raw[o + 3]])
        };
        let (x, y, z) = (f(0), f(1), f(2));
        if !(x.is_finite() && y.is_finite() && z.is_finite()) {
            return Err(ImportProblem::Broken(format!(
                "accessor {}: a position is not finite",
                pos.index()
            )));
        }
        let w = |r: usize| m[0][r] * x + m[1][r] * y + m[2][r] * z + m[3][r];
        let placed = [w(0), -w(2), w(1)];
        if !placed.iter().all(|v| v.is_finite()) {
            return Err(ImportProblem::Broken(format!(
                "accessor {}: a position placed by its node's transform is out of range",
                pos.index()
            )));
        }
        mesh.positions.push(placed);
    }
    let indices: Vec<u32> = match p.indices() {
        None => (0..pos.count() as u32).collect(),
        Some(ix) => {
            let size = match ix.data_type() {
                DataType::U8 => 1,
                DataType::U16 => 2,
                DataType::U32 => 4,
                _ => {
                    return Err(ImportProblem::Broken(format!(
                        "accessor {}: indices of a signed or float type",
                        ix.index()
                    )));
                }
            };
            let (raw, stride) = elements(&ix, buffers, size)?;
            (0..ix.count())
                .map(|k| {
                    let o = k * stride;
                    match size {
                        1 => raw[o] as u32,
                        2 => u16::from_le_bytes([raw[o], raw[o + 1]]) as u32,
                        _ => u32::from_le_bytes([raw[o], raw[o + 1], raw[o + 2], raw[o + 3]]),
                    }
                })
                .collect()
        }
    };
    if let Some(&bad) = indices.iter().find(|&&i| i as usize >= pos.count()) {
        let of = p
            .indices()
            .map_or(String::new(), |ix| format!("accessor {}: ", ix.index()));
        return Err(ImportProblem::Broken(format!(
            "{of}index {bad} is past the {} vertices of accessor {}",
            pos.count(),
            pos.index()
        )));
    }
    let at = |i: usize| base as u32 + indices[i];
    let flip = determinant(m) < 0.0;
    let mut push = |a: u32, b: u32, c: u32| {
        if mesh.triangles.len() < limits.max_triangles {
            mesh.triangles
                .push(if flip { [a, c, b] } else { [a, b, c] });
        }
    };
    let n = indices.len();
    match p.mode() {
        Mode::Triangles => (0..n / 3).for_each(|t| push(at(3 * t), at(3 * t + 1), at(3 * t + 2))),
        Mode::TriangleStrip => (2..n).for_each(|k| {
            if k % 2 == 0 {
                push(at(k - 2), at(k - 1), at(k))
            } else {
                push(at(k - 1), at(k - 2), at(k))
            }
        }),
        _ => (2..n).for_each(|k| push(at(0), at(k - 1), at(k))),
    }
    Ok(())
}

fn determinant(m: &[[f32; 4]; 4]) -> f32 {
    m[0][0] * (m[1][1] * m[2][2] - m[2][1] * m[1][2])
        - m[1][0] * (m[0][1] * m[2][2] - m[2][1] * m[0][2])
        + m[2][0] * (m[0][1] * m[1][2] - m[1][1] * m[0][2])
}
