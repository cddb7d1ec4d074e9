//! The document's edits and bodies reaching the running preview: changed cells, parameters,
//! sources, sinks and boundaries go to the GPU solver in place (the CPU fallback restarts
//! instead), and the bodies are handed over for the physics.

use std::sync::Arc;

use spillway::Level;
use spillway::body::{Pose, TriMesh};
use spillway::level::Body;

use super::{Preview, PreviewBodies, PreviewError, WantedBodies};
use crate::document::{CellRect, Changes};

impl Preview {
    /// Hands the document's edits to the running solver; they take effect at the next step.
    /// A new document or a new size resets the preview.
    pub fn sync(&mut self, level: &Level, changes: &Changes) {
        if !changes.is_empty() {
            // The figures are read again for the edited water, even paused.
            self.stats_due = true;
        }
        if std::mem::take(&mut self.water_is_authored) && only_water(changes) {
            // The authored water became the running water ("Bake this frame", "Keep this
            // state"): nothing to hand over, and no edit of the run (its keyframes stay); the
            // next edit counts from it.
            if let Some(old) = self.uploaded.as_mut() {
                if changes.state {
                    old.water.clone_from(&level.water);
                    old.gates.clone_from(&level.gates);
                    old.structures.clone_from(&level.structures);
                } else if let Some(r) = changes.water {
                    self.ledger.change(&mut old.water, &level.water, &r);
                }
                // The running water is the authored water now: it owes none of it, nor does
                // a keyframe from before.
                self.ledger.epoch += 1;
                self.ledger.start(&level.water, None);
            }
            return;
        }
        if self.cpu.is_some() {
            self.sync_cpu(level, changes);
            return;
        }
        let Some(sim) = self.sim.as_mut() else {
            return;
        };
        let Some(old) = self.uploaded.as_mut() else {
            return;
        };
        if changes.whole || changes.state || old.nx() != level.nx() || old.ny() != level.ny() {
            self.reset();
            return;
        }
        let mut failed = None;
        let mut edited = false;
        if let Some(r) = changes.terrain.filter(|r| !r.is_empty()) {
            edited = true;
            let values = spillway::rect::copy_out(&level.terrain.data, level.nx(), &r);
            failed = (sim.update_terrain_region(r.x0, r.y0, r.width(), r.height(), &values)).err();
        }
        if let Some(r) = changes.water {
            // The running water takes the authored water's change, cell by cell: a dab adds
            // to the river as it runs, an undo takes the dab back out, and cells the edit
            // left alone keep their running water.
            let area = level.cell_size * level.cell_size;
            let change = self.ledger.change(&mut old.water, &level.water, &r);
            edited |= !change.is_empty();
            for part in change.chunks(CHANGES_PER_UPLOAD) {
                let taken: Vec<(usize, f32)> = part.iter().map(|&(c, d)| (c, -d * area)).collect();
                failed = sim.displace(&taken).err().or(failed);
            }
        }
        let params_changed = old.params != level.params;
        edited |= params_changed
            || changes.roughness.is_some()
            || differ_but_names(&old.sources, &level.sources, |s| &mut s.name)
            || differ_but_names(&old.sinks, &level.sinks, |s| &mut s.name)
            || old.structures != level.structures
            || old.boundaries != level.boundaries;
        if params_changed {
            failed = sim.set_params(&level.params).err().or(failed);
        }
        if changes.roughness.is_some() || (params_changed && level.roughness.is_some()) {
            failed = sim.set_roughness(level).err().or(failed);
        }
        let forcing = old.sources != level.sources
            || old.sinks != level.sinks
            || old.structures != level.structures;
        let edges = old.boundaries != level.boundaries;
        // A time being typed may stand out of order for a few frames (the inspector sorts it
        // as the field is left, or the edit is recorded): the GPU refuses such a schedule, and
        // the run was thrown away. The features wait, unchanged, until they are valid again.
        let valid = !(forcing || edges)
            || (level.check_forcing().is_ok() && level.check_boundaries().is_ok());
        if forcing && valid {
            failed = sim.set_sources_sinks(level).err().or(failed);
        }
        if edges && valid {
            failed = sim.set_boundaries(level).err().or(failed);
        }
        old.params = level.params.clone();
        if valid {
            old.sources = level.sources.clone();
            old.sinks = level.sinks.clone();
            old.structures = level.structures.clone();
            old.boundaries = level.boundaries.clone();
        }
        // `old.gates` stay the gates the run started with: undone back to them, no hint.
        self.gates_changed = old.gates != level.gates;
        if let Some(e) = failed {
            self.fail(e);
        } else if edited {
            self.timeline.edited(sim.clock());
        }
    }

    /// On the CPU solver an edit restarts the water from its state now in the edited level
    /// (the CPU solver takes no edits while it runs; the running water takes the authored
    /// water's change, as on the GPU); time keeps running if it ran.
    fn sync_cpu(&mut self, level: &Level, changes: &Changes) {
        let old = self.uploaded.as_ref();
        let edited = changes.whole
            || changes.state
            || changes.terrain.is_some_and(|r| !r.is_empty())
            || changes.water.is_some_and(|r| !r.is_empty())
            || changes.roughness.is_some()
            || old.is_none_or(|o| {
                o.params != level.params
                    || differ_but_names(&o.sources, &level.sources, |s| &mut s.name)
                    || differ_but_names(&o.sinks, &level.sinks, |s| &mut s.name)
                    || o.boundaries != level.boundaries
                    || o.structures != level.structures
                    || o.gates != level.gates
            });
        if !edited {
            return;
        }
        let Some(cpu) = self.cpu.as_ref() else {
            return;
        };
        if changes.whole
            || changes.state
            || level.nx() != cpu.sim().nx()
            || level.ny() != cpu.sim().ny()
        {
            let playing = self.playing;
            self.reset();
            self.playing = playing;
            return;
        }
        let mut now = match old.and_then(|o| under_old_names(o, level)) {
            // Renamed gates and breaches keep their state: carried over under the old names.
            Some(as_run) => {
                let mut now = cpu.sim().bake_into(&as_run);
                for (gate, named) in now.gates.iter_mut().zip(&level.gates) {
                    gate.name.clone_from(&named.name);
                }
                for (structure, named) in now.structures.iter_mut().zip(&level.structures) {
                    structure.name.clone_from(&named.name);
                }
                now
            }
            None => cpu.sim().bake_into(level),
        };
        if let Some(r) = changes.terrain {
            restart_ghosts(&mut now, &r);
        }
        if let (Some(r), Some(old)) = (changes.water, self.uploaded.as_mut()) {
            // As on the GPU: the running water takes the authored water's change.
            for (c, d) in self.ledger.change(&mut old.water, &level.water, &r) {
                now.water.data[c] = (now.water.data[c] + d).max(0.0);
            }
        }
        let bodies = self.bodies.as_ref().map_or_else(Vec::new, |b| b.states());
        let time = cpu.sim().time();
        // A solver switched: its flows at rest, the clock, edges and bed kept (the other
        // solver's state was dropped whole, and the clock went back to 0 s).
        super::rewind::at_rest_for(&mut now, level.params.solver);
        // The same water goes on: its maps with it (on the GPU they run on in place).
        let maps = cpu.maps().cloned().map(|m| (m, self.maps_since));
        self.restart();
        self.start = Some(super::rewind::Start {
            level: now,
            bodies,
            origin: super::ledger::Origin::Running,
            maps,
        });
        self.timeline.edited(time);
    }

    /// The document's authored water is about to become the running water itself ("Bake this
    /// frame"): the next sync does not hand it over as an edit.
    pub fn water_becomes_authored(&mut self) {
        self.water_is_authored = true;
    }

    /// Hands over the document's bodies; `mesh` gives a body's mesh (`None`: its file does not
    /// load). Cheap when nothing changed. While the water runs, a deleted body leaves the
    /// physics at once and a new or edited one enters at its placement.
    pub fn sync_bodies(
        &mut self,
        bodies: &[Body],
        mut mesh: impl FnMut(&Body) -> Option<Arc<TriMesh>>,
    ) {
        if self.wanted.bodies == bodies {
            return;
        }
        let mut wanted = WantedBodies {
            bodies: bodies.to_vec(),
            meshes: std::mem::take(&mut self.wanted.meshes),
            relinked: std::mem::take(&mut self.wanted.relinked),
            kept: std::mem::take(&mut self.wanted.kept),
        };
        for body in bodies {
            if !wanted.meshes.contains_key(&body.gltf)
                && let Some(m) = mesh(body)
            {
                wanted.meshes.insert(body.gltf.clone(), m);
            }
        }
        // Bodies kept where the water moved them ("Keep this state") are no edit of the run:
        // they go on moving from there, and the keyframes from before know them.
        if self.water_is_authored {
            wanted.note_kept(&self.wanted.bodies);
            if let Some(b) = self.bodies.as_mut() {
                b.adopt(bodies);
            }
        }
        self.wanted = wanted;
        if self.is_live() && !self.water_is_authored {
            self.timeline.edited(self.clock());
        }
    }

    /// The ground the water runs over (the solver's: a moving bed's, closed gates raised);
    /// `None` while no water runs.
    pub fn read_terrain(&self) -> Option<Vec<f32>> {
        if let Some(cpu) = &self.cpu {
            return Some(cpu.sim().terrain().to_vec());
        }
        self.sim.as_ref()?.read_terrain().ok()
    }

    /// Where each of the document's bodies is in the running physics (one pose per body, in
    /// document order), while it runs.
    pub fn body_poses(&self) -> Option<Vec<Pose>> {
        self.bodies.as_ref().map(PreviewBodies::poses)
    }

    /// Where the bodies are now, to keep as the level's state, and the names of those that
    /// went over an open edge of the map (they keep their placement): see
    /// [`PreviewBodies::kept_poses`]. `None` without running bodies.
    pub fn kept_body_poses(&self) -> Option<(Vec<Pose>, Vec<String>)> {
        self.bodies.as_ref().map(PreviewBodies::kept_poses)
    }

    /// The document's bodies' glTF paths were rewritten through `to` (a save copied their
    /// files into the level's new folder): the running bodies and what was handed over take
    /// the new paths, and the keyframes' bodies take them when restored, so no body counts as
    /// edited (each went back to its placement, and a branch was forked).
    pub fn relink_bodies(&mut self, to: &dyn Fn(&str) -> String) {
        let relink = |body: &mut Body| body.gltf = to(&body.gltf);
        let wanted = &mut self.wanted;
        wanted.bodies.iter_mut().for_each(relink);
        let meshes = std::mem::take(&mut wanted.meshes).into_iter();
        wanted.meshes = meshes.map(|(path, mesh)| (to(&path), mesh)).collect();
        self.settled_bodies.iter_mut().for_each(relink);
        let states = self
            .restored_bodies
            .iter_mut()
            .chain([&mut self.key_bodies]);
        states.flatten().for_each(|(body, _)| relink(body));
        if let Some(bodies) = self.bodies.as_mut() {
            bodies.relink(to);
        }
        for path in wanted.relinked.values_mut() {
            *path = to(path);
        }
        let kept = wanted.kept.iter_mut();
        kept.flat_map(|(a, b)| [a, b]).for_each(relink);
        let keys = self.timeline.branches.iter().flat_map(|b| &b.keys);
        for (body, _) in keys.flat_map(|k| &k.bodies) {
            let new = to(&body.gltf);
            if new != body.gltf && !wanted.relinked.contains_key(&body.gltf) {
                wanted.relinked.insert(body.gltf.clone(), new);
            }
        }
    }

    /// Opens the gate called `name` in the running water; it releases its water at the next
    /// step. Returns whether a closed gate of that name existed.
    pub fn open_gate(&mut self, name: &str) -> bool {
        if self.gates().iter().any(|g| g.name == name && !g.open) {
            self.timeline.edited(self.clock());
        }
        if let Some(cpu) = self.cpu.as_mut() {
            return cpu.open_gate(name);
        }
        let Some(sim) = self.sim.as_mut() else {
            return false;
        };
        match sim.open_gate(name) {
            Ok(opened) => opened,
            Err(e) => {
                self.fail(PreviewError::Gpu(e));
                false
            }
        }
    }

    /// Knocks the document's body `index`: an impulse (N·s) at a world point. Returns whether
    /// the body moves in the running physics.
    /// A knock is an edit of the run: after going back, it starts a branch.
    pub fn push_body(&mut self, index: usize, impulse: [f32; 3], at: [f32; 3]) -> bool {
        let pushed = (self.bodies.as_mut()).is_some_and(|b| b.push(index, impulse, at));
        if pushed {
            self.timeline.edited(self.clock());
        }
        pushed
    }

    /// Mass of the document's body `index` in the running physics, kg (0 if none).
    pub fn body_mass(&self, index: usize) -> f32 {
        self.bodies.as_ref().map_or(0.0, |b| b.mass(index))
    }
}

/// Changed cells handed to the GPU solver at once: 8 bytes each, so a fill of a whole large
/// map goes over in parts of 8 MiB.
const CHANGES_PER_UPLOAD: usize = 1 << 20;

/// The edges' ghosts of `level`'s saved flow state inside `rect` start again at their surface,
/// as the GPU solver's do after a terrain edit: one standing at the old ground drew water in
/// from outside where the ground was lowered under an open edge.
fn restart_ghosts(level: &mut Level, rect: &CellRect) {
    let (nx, ny) = (level.nx(), level.ny());
    let Some(flow) = level.flow.as_mut() else {
        return;
    };
    if flow.ghost.len() != 2 * (nx + ny) {
        return;
    }
    // West, east, north, south, as the solvers lay them out.
    let cells = (0..ny).map(|k| (0, k)).chain((0..ny).map(|k| (nx - 1, k)));
    let cells = cells
        .chain((0..nx).map(|k| (k, 0)))
        .chain((0..nx).map(|k| (k, ny - 1)));
    for (ghost, (i, j)) in flow.ghost.iter_mut().zip(cells) {
        if rect.contains(i, j) {
            let c = j * nx + i;
            *ghost = level.terrain.data[c] + level.water.data[c];
        }
    }
}

/// Whether `changes` touch the authored water (its cells or its whole state) and nothing else.
fn only_water(changes: &Changes) -> bool {
    !changes.whole
        && changes.terrain.is_none_or(|r| r.is_empty())
        && changes.roughness.is_none()
        && !changes.features
}

/// `level` with its gates and structures renamed since `old` under their old names, so that
/// what the run carries over by name (a gate open, a breach partly open) reaches them; `None`
/// when none was renamed. A rename changes a name in place: as many as before, and the old
/// name gone from the list.
fn under_old_names(old: &Level, level: &Level) -> Option<Level> {
    let gates = renamed(&old.gates, &level.gates, |g| &g.name);
    let structures = renamed(&old.structures, &level.structures, |s| &s.name);
    if gates.is_empty() && structures.is_empty() {
        return None;
    }
    let mut as_run = level.clone();
    for i in gates {
        as_run.gates[i].name.clone_from(&old.gates[i].name);
    }
    for i in structures {
        as_run.structures[i]
            .name
            .clone_from(&old.structures[i].name);
    }
    Some(as_run)
}

/// Where `new` holds, in place of an item of `old`, one of another name while the old name
/// is gone.
fn renamed<T>(old: &[T], new: &[T], name: fn(&T) -> &String) -> Vec<usize> {
    if old.len() != new.len() {
        return Vec::new();
    }
    (0..new.len())
        .filter(|&i| {
            name(&old[i]) != name(&new[i]) && !new.iter().any(|n| name(n) == name(&old[i]))
        })
        .collect()
}

/// Whether two lists of sources or sinks differ in more than the `name`s of their items: a
/// rename is no edit of the running water (it forked a branch, and restarted the CPU's water).
fn differ_but_names<T: Clone + PartialEq>(
    a: &[T],
    b: &[T],
    name: impl Fn(&mut T) -> &mut String,
) -> bool {
    let unnamed = |x: &T| {
        let mut x = x.clone();
        name(&mut x).clear();
        x
    };
    a != b && (a.len() != b.len() || a.iter().zip(b).any(|(x, y)| unnamed(x) != unnamed(y)))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use spillway::body::TriMesh;

    use super::super::Preview;

    fn triangle(size: f32) -> Arc<TriMesh> {
        Arc::new(TriMesh::new(
            vec![[0.0; 3], [size, 0.0, 0.0], [0.0, size, 0.0]],
            vec![[0, 1, 2]],
        ))
    }

    #[test]
    fn another_document_gets_its_own_body_meshes() {
        // The same `rock.glb` in another folder is another file: the physics kept the first
        // document's mesh for it.
        let body = crate::document::bodies::test_body("rock", "rock.glb", [1.0; 3]);
        let (first, second) = (triangle(1.0), triangle(2.0));
        let mut preview = Preview::new();
        preview.sync_bodies(std::slice::from_ref(&body), |_| Some(first.clone()));
        preview.reset();
        preview.sync_bodies(std::slice::from_ref(&body), |_| Some(second.clone()));
        let held = preview.wanted.meshes.get("rock.glb").expect("a mesh");
        assert!(Arc::ptr_eq(held, &second));
    }

    #[test]
    fn the_clock_shown_keeps_the_moment_gone_back_to_until_the_figures_come() {
        // A restore dropped the figures until the GPU read them back, a frame or two later:
        // the Water panel said 0 s (through a whole drag of the timeline bar).
        let mut level = spillway::Level::flat(4, 4, 1.0, 0.0);
        level.flow = Some(spillway::level::FlowState {
            time: 12.5,
            ..Default::default()
        });
        let mut preview = Preview::new();
        preview.start = Some(crate::preview::rewind::Start {
            level,
            bodies: Vec::new(),
            origin: crate::preview::ledger::Origin::Keyframe(None),
            maps: None,
        });
        assert_eq!(preview.time(), 12.5);
    }

    #[test]
    fn a_terrain_edit_restarts_the_ghosts_of_the_edges_it_reaches() {
        let mut level = spillway::Level::flat(6, 4, 1.0, 0.0);
        level.water = spillway::Grid::filled(6, 4, 0.25);
        level.flow = Some(spillway::level::FlowState {
            ghost: vec![2.0; 2 * (6 + 4)],
            ..Default::default()
        });
        // The west edge's lower half and the south edge's west end.
        super::restart_ghosts(&mut level, &super::CellRect::new(0, 2, 2, 4));
        let ghost = &level.flow.as_ref().unwrap().ghost;
        assert_eq!(&ghost[..4], &[2.0, 2.0, 0.25, 0.25], "west");
        assert_eq!(&ghost[4..8], &[2.0; 4], "east");
        assert_eq!(&ghost[8..14], &[2.0; 6], "north");
        assert_eq!(&ghost[14..], &[0.25, 0.25, 2.0, 2.0, 2.0, 2.0], "south");
    }
}
