//! Rigid bodies in the app: the body library and the chosen body, the selection, the gizmo and
//! its drag, the inspector edit being made, and the commands they become (place, move, rotate,
//! scale, duplicate, delete, row and stack: each one [`EditBodies`] step). Also builds the
//! renderer's per-frame body list ([`Bodies::render_input`]), the one place where placements
//! become [`BodyInstance`]s.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use egui::Pos2;
use spillway::body::Pose;
use spillway::body::import::ImportError;
use spillway::level::Body;

use super::gizmo::{Gizmo, GizmoDrag, GizmoMode, Handle};
use super::water_overlay::View;
use crate::document::{Change, Document, EditBodies};
use crate::preview::Preview;
use crate::tools::body::library::{Stamp, bundled_bodies, resolve, stamp};
use crate::tools::body::{
    Arrangement, BodyMesh, MeshCache, arrange, duplicate, hit_body, new_body, world_bounds,
};
use spillway_render::BodyInstance;
use spillway_render::Ray;
use spillway_render::math::Vec3;

/// Opacity of the placement preview.
const GHOST_ALPHA: f32 = 0.45;
/// Most copies the Row and Stack helpers make at once.
pub const MAX_COPIES: usize = 200;

/// What a viewport frame's pointer did, as far as the Body tool cares.
pub(crate) struct BodyPointer {
    /// The primary button went down over the viewport (not during a camera drag).
    pub pressed: bool,
    /// The primary button is held.
    pub down: bool,
    /// The pointer on screen, over the viewport.
    pub pos: Option<Pos2>,
    /// The view ray through the pointer.
    pub ray: Option<Ray>,
    /// The terrain point under the pointer.
    pub hover: Option<Vec3>,
    /// Where the running water's physics has the bodies, in the document's order (a live
    /// preview: they are drawn there).
    pub poses: Option<Vec<Pose>>,
}

/// The body state between frames.
pub(crate) struct Bodies {
    /// Parsed meshes, once per file.
    pub cache: MeshCache,
    /// The bodies to pick from: the bundled library, then imported files.
    pub library: Vec<PathBuf>,
    /// The body a click of the Body tool drops.
    pub chosen: Option<PathBuf>,
    /// The selected body.
    pub selected: Option<usize>,
    /// What the gizmo does.
    pub mode: GizmoMode,
    /// The gizmo drag in progress.
    pub drag: Option<GizmoDrag>,
    /// The gizmo as laid out this frame.
    pub gizmo: Option<Gizmo>,
    /// The gizmo handle under the cursor.
    pub hover_handle: Option<Handle>,
    /// The placement preview under the cursor.
    pub ghost: Option<Body>,
    /// An inspector edit in progress: its label and the bodies before it.
    pub pending: Option<(String, Vec<Body>)>,
    /// How many bodies the Row and Stack helpers make (the selected one included).
    pub count: usize,
    /// Files that failed to load, with why, the file's stamp then and when it was last looked
    /// at: retried once the file changes (put back beside the level, fixed), looked at once
    /// per `RECHECK`, not every frame.
    failed: HashMap<PathBuf, (Stamp, Arc<ImportError>, std::time::Instant)>,
}

/// Speed a Shift+click knock gives a body, m/s (the impulse is its mass times this): enough to
/// shove a crate out of a dam.
pub const KNOCK_SPEED: f32 = 6.0;

impl Default for Bodies {
    fn default() -> Self {
        let library = bundled_bodies();
        let chosen = library
            .iter()
            .find(|p| p.file_stem().is_some_and(|s| s == "crate"))
            .or(library.first())
            .cloned();
        Self {
            cache: MeshCache::new(),
            library,
            chosen,
            selected: None,
            mode: GizmoMode::Move,
            drag: None,
            gizmo: None,
            hover_handle: None,
            ghost: None,
            pending: None,
            count: 5,
            failed: HashMap::new(),
        }
    }
}

/// The folder a document's body paths are relative to.
pub(crate) fn level_dir(document: &Document) -> Option<PathBuf> {
    document
        .path()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
}

impl Bodies {
    /// Whether a gizmo drag is in progress.
    pub fn busy(&self) -> bool {
        self.drag.is_some()
    }

    /// A new document is open: forget what belonged to the old one.
    pub fn document_replaced(&mut self) {
        self.selected = None;
        self.drag = None;
        self.gizmo = None;
        self.ghost = None;
        self.pending = None;
        self.failed.clear();
    }

    /// The mesh of `body` of `document`, parsed on first use; `Err` says why it cannot load.
    pub fn mesh_of(
        &mut self,
        document: &Document,
        body: &Body,
    ) -> Result<Arc<BodyMesh>, Arc<ImportError>> {
        let path = resolve(level_dir(document).as_deref(), &body.gltf).map_err(Arc::new)?;
        self.mesh_at(&path)
    }

    fn mesh_at(&mut self, path: &Path) -> Result<Arc<BodyMesh>, Arc<ImportError>> {
        if let Some((was, why, at)) = self.failed.get_mut(path) {
            // Looked at again once per interval, as the cache looks at a loaded file.
            if at.elapsed() < crate::tools::body::library::RECHECK {
                return Err(why.clone());
            }
            *at = std::time::Instant::now();
            if *was == stamp(path) {
                return Err(why.clone());
            }
            self.failed.remove(path);
        }
        self.cache.load(path).map_err(|e| {
            let why = Arc::new(e);
            let entry = (stamp(path), why.clone(), std::time::Instant::now());
            self.failed.insert(path.to_path_buf(), entry);
            why
        })
    }

    /// Why some of `document`'s bodies cannot load their glTF file (how many, and the first
    /// with its file and problem); `None` when every one loads. Such bodies are not drawn and
    /// do not move with the water, so a designer is told as the level opens.
    pub fn unloadable(&mut self, document: &Document) -> Option<String> {
        let bodies = &document.level().bodies;
        let mut first = None;
        let mut count = 0;
        for (i, body) in bodies.iter().enumerate() {
            if let Err(why) = self.mesh_of(document, body) {
                count += 1;
                first.get_or_insert_with(|| format!("bodies[{i}] ({}): {why}", body.name));
            }
        }
        Some(format!(
            "{count} of the level's {} bodies cannot load their glTF file: they are not drawn \
             and do not move with the water until the file is back beside the level.\n\nThe \
             first: {}",
            bodies.len(),
            first?
        ))
    }

    /// The ground the water meets in `document`'s level with its blocking bodies as walls
    /// (`tools::spill::walls`), for filling to the spill level and finding leaks. Bodies whose
    /// file does not load are left out.
    pub fn walls(&mut self, document: &Document) -> Vec<f32> {
        let level = document.level();
        let meshes: Vec<(Pose, Arc<crate::tools::body::BodyMesh>)> = (level.bodies.iter())
            .filter(|b| spillway::body::blocks_water(b))
            .filter_map(|b| Some((Pose::of(b), self.mesh_of(document, b).ok()?)))
            .collect();
        let bodies: Vec<(Pose, &spillway::body::TriMesh)> =
            meshes.iter().map(|(p, m)| (*p, &m.mesh)).collect();
        crate::tools::spill::walls(level, &bodies)
    }

    /// Imports the glTF file at `path` (parsing it once) and makes it the chosen body; the
    /// level does not change until the body is placed. `Err` names the file and the problem.
    pub fn import(&mut self, path: &Path) -> Result<String, super::EditorError> {
        self.failed.remove(path);
        let mesh = self.cache.load_checked(path)?;
        if encloses_nothing(&mesh.mesh, mesh.volume) {
            // A flat or open mesh (a single quad, a box without its floor) has no inside:
            // nothing for the water to lift or to be held back by, and no mass to set.
            return Err(spillway::body::import::ImportError {
                file: path.to_path_buf(),
                problem: spillway::body::import::ImportProblem::Unsupported(
                    "the mesh encloses no volume (a flat or open mesh): it would neither float \
                     nor hold back water; close it in the modelling tool"
                        .into(),
                ),
            }
            .into());
        }
        if !self.library.iter().any(|p| p == path) {
            self.library.push(path.to_path_buf());
        }
        self.chosen = Some(path.to_path_buf());
        Ok(format!(
            "Imported {} ({} triangles): click the terrain with the Body tool to place it",
            path.display(),
            mesh.mesh.triangles.len()
        ))
    }

    /// The `gltf` path a body of file `path` gets in `document`: relative to the level's folder
    /// where it lies inside it, else absolute until saving copies it into the project.
    fn gltf_for(document: &Document, path: &Path) -> String {
        if let Some(dir) = level_dir(document)
            && let Some(rel) = crate::project::body_files::inside(path, &dir)
        {
            return rel;
        }
        std::fs::canonicalize(path)
            .unwrap_or_else(|_| path.to_path_buf())
            .to_string_lossy()
            .into_owned()
    }

    /// Handles one frame of viewport input of the Body tool. Returns a notice for the status
    /// bar.
    pub fn viewport_input(
        &mut self,
        document: &mut Document,
        pointer: &BodyPointer,
        view: &View,
        eye: Vec3,
    ) -> Option<String> {
        if self
            .selected
            .is_some_and(|i| i >= document.level().bodies.len())
        {
            self.selected = None;
        }
        self.layout_gizmo(document, view, eye);
        let mut notice = None;
        self.hover_handle = match (&self.gizmo, pointer.pos) {
            (Some(g), Some(p)) if self.drag.is_none() => g.hit(p),
            _ => self.drag.as_ref().map(|d| d.handle),
        };
        if self.drag.is_none() && pointer.pressed {
            self.commit_pending(document);
            notice = self.press(document, pointer);
        }
        if let Some(drag) = self.drag.clone()
            && let Some(p) = pointer.pos
        {
            let mut body = drag.body_at(p);
            let i = drag.index;
            if drag.scales()
                && let Ok(mesh) = self.mesh_of(document, &body)
            {
                // Scaling keeps the body's lowest point where it was (on the ground).
                let below = world_bounds(&drag.before, &mesh.mesh).0[2];
                body.translation[2] += below - world_bounds(&body, &mesh.mesh).0[2];
            }
            if document.level().bodies.get(i) != Some(&body) {
                document.stroke_level().bodies[i] = body;
                document.note_change(&Change::Bodies);
            }
        }
        if !pointer.down
            && let Some(drag) = self.drag.take()
        {
            let after = document.level().bodies.clone();
            let mut before = after.clone();
            before[drag.index] = drag.before.clone();
            let edit = EditBodies::new(drag.label(), before, after);
            if edit.is_empty() {
                document.end_live_edit();
            } else {
                document.push_applied(Box::new(edit));
            }
        }
        self.layout_gizmo(document, view, eye);
        self.ghost = None;
        if self.drag.is_none()
            && self.hover_handle.is_none()
            && let (Some(h), Some(path)) = (pointer.hover, self.chosen.clone())
            && let Ok(mesh) = self.mesh_at(&path)
        {
            let gltf = Self::gltf_for(document, &path);
            self.ghost = Some(new_body(document.level(), &gltf, &mesh.mesh, h.x, h.y));
        }
        notice
    }

    fn layout_gizmo(&mut self, document: &Document, view: &View, eye: Vec3) {
        self.gizmo = self
            .selected
            .and_then(|i| document.level().bodies.get(i))
            .and_then(|b| Gizmo::layout(view, eye, b, self.mode));
    }

    fn press(&mut self, document: &mut Document, pointer: &BodyPointer) -> Option<String> {
        if let (Some(g), Some(p), Some(i)) = (&self.gizmo, pointer.pos, self.selected)
            && let Some(handle) = g.hit(p)
        {
            let body = document.level().bodies[i].clone();
            self.drag = Some(GizmoDrag::begin(i, &body, g.clone(), handle, p));
            return None;
        }
        // A body as drawn (where the running water carried it) or at its placement: a click on
        // a crate that had drifted placed a new one.
        let drawn = pointer.poses.as_ref().map(|p| posed(document, p));
        if let Some(ray) = pointer.ray
            && let Some((i, _)) = (drawn.as_ref())
                .and_then(|moved| self.hit_posed(document, moved, &ray))
                .or_else(|| self.hit(document, &ray))
        {
            self.selected = Some(i);
            return Some(format!("Selected {}", document.level().bodies[i].name));
        }
        let hover = pointer.hover?;
        self.place(document, hover.x, hover.y)
    }

    /// The nearest body (at its placement) the ray hits: its index and the distance along the
    /// ray.
    pub fn hit(&mut self, document: &Document, ray: &Ray) -> Option<(usize, f32)> {
        self.hit_posed(document, &document.level().bodies, ray)
    }

    /// The nearest of `bodies` (the document's, in its order, possibly moved) the ray hits.
    fn hit_posed(
        &mut self,
        document: &Document,
        bodies: &[Body],
        ray: &Ray,
    ) -> Option<(usize, f32)> {
        let meshes: Vec<Option<Arc<BodyMesh>>> = bodies
            .iter()
            .map(|b| self.mesh_of(document, b).ok())
            .collect();
        let mut k = 0;
        hit_body(bodies, ray, |_| {
            let m = meshes[k].as_ref().map(|m| &m.mesh);
            k += 1;
            m
        })
    }

    /// Knocks the body the ray hits where the running physics has it (Shift+click during the
    /// preview): an impulse of its mass times [`KNOCK_SPEED`] along the ray's horizontal
    /// direction, at the point hit. The document does not change. `None` when no body is hit.
    pub fn knock(
        &mut self,
        document: &Document,
        ray: &Ray,
        preview: &mut Preview,
    ) -> Option<String> {
        let moved = posed(document, &preview.body_poses()?);
        let Some((i, t)) = self.hit_posed(document, &moved, ray) else {
            // Said, and no body placed where the Shift+click missed.
            return Some("Shift+click a body to knock it".into());
        };
        let at = ray.at(t);
        let horizontal = (ray.dir.x.powi(2) + ray.dir.y.powi(2)).sqrt().max(1e-6);
        let speed = KNOCK_SPEED * preview.body_mass(i);
        let impulse = [
            ray.dir.x / horizontal * speed,
            ray.dir.y / horizontal * speed,
            0.0,
        ];
        let name = &moved[i].name;
        Some(if preview.push_body(i, impulse, [at.x, at.y, at.z]) {
            format!("Knocked {name}")
        } else {
            format!("{name} does not move (static)")
        })
    }

    /// Drops the chosen body on the ground at world `(x, y)` as one command and selects it.
    pub fn place(&mut self, document: &mut Document, x: f32, y: f32) -> Option<String> {
        let Some(path) = self.chosen.clone() else {
            return Some("Choose a body in the inspector (or import one) first".into());
        };
        let mesh = match self.mesh_at(&path) {
            Ok(m) => m,
            Err(why) => return Some(why.to_string()),
        };
        let gltf = Self::gltf_for(document, &path);
        let body = new_body(document.level(), &gltf, &mesh.mesh, x, y);
        let notice = format!("Placed {}", body.name);
        let before = document.level().bodies.clone();
        let mut after = before.clone();
        after.push(body);
        self.selected = Some(after.len() - 1);
        document.execute(Box::new(EditBodies::new("Place body", before, after)));
        Some(notice)
    }

    /// Deletes the selected body as one command. Returns its name if it did.
    pub fn delete(&mut self, document: &mut Document) -> Option<String> {
        if self.busy() {
            return None;
        }
        self.commit_pending(document);
        let i = self.selected.take()?;
        let before = document.level().bodies.clone();
        let mut after = before.clone();
        if i >= after.len() {
            return None;
        }
        let gone = after.remove(i);
        document.execute(Box::new(EditBodies::new("Delete body", before, after)));
        Some(gone.name)
    }

    /// Adds a copy of the selected body beside it as one command and selects the copy.
    pub fn duplicate(&mut self, document: &mut Document) -> Option<String> {
        if self.busy() {
            return None;
        }
        self.commit_pending(document);
        let i = self.selected?;
        let body = document.level().bodies.get(i)?.clone();
        let mesh = self.mesh_of(document, &body).ok()?;
        let copy = duplicate(document.level(), i, &mesh.mesh)?;
        let notice = format!("Duplicated {} as {}", body.name, copy.name);
        let before = document.level().bodies.clone();
        let mut after = before.clone();
        after.push(copy);
        self.selected = Some(after.len() - 1);
        document.execute(Box::new(EditBodies::new("Duplicate body", before, after)));
        Some(notice)
    }

    /// Makes the selected body one of `self.count` in a row or stack, as one command.
    pub fn arrange(&mut self, document: &mut Document, how: Arrangement) -> Option<String> {
        if self.busy() {
            return None;
        }
        self.commit_pending(document);
        let i = self.selected?;
        let body = document.level().bodies.get(i)?.clone();
        let mesh = self.mesh_of(document, &body).ok()?;
        let count = self.count.clamp(2, MAX_COPIES);
        let copies = arrange(document.level(), i, &mesh.mesh, count, how);
        let before = document.level().bodies.clone();
        let mut after = before.clone();
        after.extend(copies);
        let label = match how {
            Arrangement::Stack => "Stack bodies",
            _ => "Row of bodies",
        };
        document.execute(Box::new(EditBodies::new(label, before, after)));
        Some(format!("{label}: {count} × {}", body.name))
    }

    /// Abandons the gizmo drag in progress (its change is undone). Returns whether there was one.
    pub fn cancel(&mut self, document: &mut Document) -> bool {
        let Some(drag) = self.drag.take() else {
            return false;
        };
        if document.level().bodies.get(drag.index).is_some() {
            document.stroke_level().bodies[drag.index] = drag.before;
            document.note_change(&Change::Bodies);
        }
        document.end_live_edit();
        true
    }

    /// Writes an inspector change of the bodies live, remembering the bodies before the first
    /// change so that the whole edit becomes one command.
    pub fn edit_live(&mut self, document: &mut Document, label: &str, edited: Vec<Body>) {
        if document.level().bodies == edited {
            return;
        }
        if self.pending.is_none() {
            self.pending = Some((label.to_owned(), document.level().bodies.clone()));
        }
        document.stroke_level().bodies = edited;
        document.note_change(&Change::Bodies);
    }

    /// Puts the bodies back as they were before the inspector edit in progress (Escape during
    /// a field's drag). Returns whether there was one.
    pub fn revert_pending(&mut self, document: &mut Document) -> bool {
        let Some((_, before)) = self.pending.take() else {
            return false;
        };
        document.stroke_level().bodies = before;
        document.note_change(&Change::Bodies);
        document.end_live_edit();
        true
    }

    /// Records the inspector edit in progress as one command.
    pub fn commit_pending(&mut self, document: &mut Document) {
        let Some((label, before)) = self.pending.take() else {
            return;
        };
        let edit = EditBodies::new(label, before, document.level().bodies.clone());
        if edit.is_empty() {
            document.end_live_edit();
        } else {
            document.push_applied(Box::new(edit));
        }
    }

    /// The bodies the renderer draws this frame, with the meshes they use: every body of the
    /// level at its placement — or, where `simulated` gives one pose per body (a running
    /// physics preview), at that pose — the selected one highlighted, and the placement
    /// preview as a ghost when `ghost` is on. Bodies whose file does not load are left out.
    pub fn render_input(
        &mut self,
        document: &Document,
        simulated: Option<&[Pose]>,
        ghost: bool,
    ) -> (Vec<BodyInstance>, Vec<Arc<BodyMesh>>) {
        let bodies = document.level().bodies.clone();
        let simulated = simulated.filter(|p| p.len() == bodies.len());
        let mut out = Vec::with_capacity(bodies.len() + 1);
        let mut meshes: Vec<Arc<BodyMesh>> = Vec::new();
        let mut add = |mesh: Arc<BodyMesh>, inst: BodyInstance| {
            if !meshes.iter().any(|m| m.id == mesh.id) {
                meshes.push(mesh);
            }
            out.push(inst);
        };
        for (i, body) in bodies.iter().enumerate() {
            let Ok(mesh) = self.mesh_of(document, body) else {
                continue;
            };
            let [r, g, b] = crate::tools::body::kind_of(&body.gltf).colour;
            let pose = simulated.map_or_else(|| Pose::of(body), |p| p[i]);
            let inst = BodyInstance {
                mesh: spillway_render::MeshId(mesh.id.0),
                pose,
                colour: [r, g, b, 1.0],
                selected: self.selected == Some(i),
            };
            add(mesh, inst);
        }
        if ghost
            && let Some(body) = self.ghost.clone()
            && let Some(path) = self.chosen.clone()
            && let Ok(mesh) = self.mesh_at(&path)
        {
            let inst = BodyInstance {
                mesh: spillway_render::MeshId(mesh.id.0),
                pose: Pose::of(&body),
                colour: [0.55, 0.85, 0.55, GHOST_ALPHA],
                selected: false,
            };
            add(mesh, inst);
        }
        (out, meshes)
    }
}

/// Whether `mesh`, of enclosed `volume` m³, encloses (next to) nothing: less than a millionth
/// of the cube of its longest side (a flat box has no volume either).
fn encloses_nothing(mesh: &spillway::body::TriMesh, volume: f64) -> bool {
    let longest = mesh.bounds().map_or(0.0, |(lo, hi)| {
        (0..3).map(|a| f64::from(hi[a] - lo[a])).fold(0.0, f64::max)
    });
    volume <= 1e-6 * longest.powi(3)
}

/// The document's bodies moved to `poses` (a running preview's, in the document's order).
fn posed(document: &Document, poses: &[Pose]) -> Vec<Body> {
    let mut moved = document.level().bodies.clone();
    for (body, pose) in moved.iter_mut().zip(poses) {
        body.translation = pose.translation;
        body.rotation = pose.rotation;
    }
    moved
}
