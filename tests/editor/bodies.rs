//! Rigid bodies with real input: importing a glTF file (menu and drag and drop) makes it the
//! body the Body tool drops — the level changes only when it is placed; a click drops it
//! resting on the terrain; the gizmo moves and scales it (one undo step per drag); Delete,
//! Ctrl+D and the Row helper; a broken file; and save then open keeping the bodies.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use egui::{Event, Key, Modifiers, PointerButton, Pos2};
use egui_kittest::kittest::Queryable;
use spillway::body::{Pose, TriMesh};
use spillway::level::Body;
use spillway_editor::app::{Action, Dialog, GizmoMode, Handle};
use spillway_editor::tools::Tool;

use crate::support::{Editor, bumpy_level, editor_with, line};

/// A bundled body file.
fn asset(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../assets")
        .join(name)
}

fn crate_mesh() -> TriMesh {
    let path = asset("crate.glb");
    spillway::body::import::import(&path, path.parent().expect("dir"), &Default::default())
        .expect("the bundled crate imports")
}

fn bodies(ed: &Editor) -> Vec<Body> {
    ed.harness.state().document().level().bodies.clone()
}

/// Presses the left button at `path[0]`, moves along `path` and releases, without needing
/// terrain under the points (gizmo handles may stand in the sky).
fn raw_drag(ed: &mut Editor, path: &[Pos2]) {
    let h = &mut ed.harness;
    h.event(Event::PointerMoved(path[0]));
    h.step();
    h.event(Event::PointerButton {
        pos: path[0],
        button: PointerButton::Primary,
        pressed: true,
        modifiers: Modifiers::NONE,
    });
    h.step();
    for p in &path[1..] {
        h.event(Event::PointerMoved(*p));
        h.step();
    }
    h.event(Event::PointerButton {
        pos: *path.last().expect("a path"),
        button: PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    h.step();
    h.run_steps(2);
}

/// An editor on the bumpy level with the Body tool and one crate dropped in the middle.
fn with_one_crate() -> Editor {
    let mut ed = editor_with(&bumpy_level());
    ed.key(Modifiers::NONE, Key::K);
    assert_eq!(ed.harness.state().tool(), Tool::Body);
    ed.click_at(ed.at(0.5, 0.55));
    assert_eq!(bodies(&ed).len(), 1);
    ed
}

/// Drags gizmo handle `handle` by `fraction` of its arm's screen length, outwards.
pub(crate) fn drag_handle(ed: &mut Editor, handle: Handle, fraction: f32) {
    let state = ed.harness.state();
    let grab = state.gizmo_handle(handle).expect("the gizmo is shown");
    let centre = state
        .gizmo_handle(Handle::Centre)
        .expect("the gizmo is shown");
    let to = grab + (grab - centre) * fraction;
    raw_drag(ed, &line(grab, to, 8));
}

#[test]
fn importing_a_body_changes_nothing_until_a_click_drops_it_on_the_terrain() {
    let mut ed = editor_with(&bumpy_level());
    let file = asset("barrel.glb");
    ed.dialogs.push(&file);
    ed.harness.state_mut().perform(Action::ImportBody);
    ed.frames(2);
    let state = ed.harness.state();
    assert_eq!(state.tool(), Tool::Body, "importing picks the Body tool");
    assert_eq!(state.chosen_body(), Some(file.as_path()));
    assert!(
        state.document().level().bodies.is_empty(),
        "nothing placed yet"
    );
    assert!(!state.document().is_modified());

    let at = ed.click_at(ed.at(0.5, 0.5));
    let placed = bodies(&ed);
    assert_eq!(placed.len(), 1);
    let body = &placed[0];
    assert_eq!(body.name, "Barrel 1");
    assert!((body.translation[0] - at[0]).abs() < 1e-3);
    assert!((body.translation[1] - at[1]).abs() < 1e-3);
    let doc = ed.harness.state().document();
    assert_eq!(doc.history().undo_label(), Some("Place body"));
    assert_eq!(ed.harness.state().selected_body(), Some(0));

    // Resting on the ground: no vertex below the terrain under it, the lowest touching it.
    let path = file.clone();
    let mesh =
        spillway::body::import::import(&path, path.parent().expect("dir"), &Default::default())
            .expect("barrel");
    let level = doc.level();
    let gap = mesh
        .positions
        .iter()
        .map(|&p| {
            let w = Pose::of(body).apply(p);
            w[2] - level
                .terrain
                .sample(w[0] / level.cell_size, w[1] / level.cell_size)
        })
        .fold(f32::INFINITY, f32::min);
    assert!(gap.abs() < 1e-3, "lowest vertex {gap} m above the ground");

    ed.click_at(ed.at(0.3, 0.6));
    assert_eq!(bodies(&ed).len(), 2);
    assert_eq!(
        ed.harness.state().body_files_parsed(),
        1,
        "one parse per file"
    );
}

#[test]
fn dragging_the_gizmo_x_arrow_moves_the_body_along_x_in_one_step() {
    let mut ed = with_one_crate();
    let before = bodies(&ed)[0].clone();
    let steps = ed.harness.state().document().history().undo_len();
    drag_handle(&mut ed, Handle::Axis(0), 0.6);
    let after = bodies(&ed)[0].clone();
    assert!(
        after.translation[0] > before.translation[0] + 0.3,
        "{:?} → {:?}",
        before.translation,
        after.translation
    );
    assert_eq!(after.translation[1], before.translation[1]);
    assert_eq!(after.translation[2], before.translation[2]);
    let doc = ed.harness.state().document();
    assert_eq!(doc.history().undo_len(), steps + 1);
    assert_eq!(doc.history().undo_label(), Some("Move body"));
    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(bodies(&ed)[0], before);
}

#[test]
fn r_then_a_drag_scales_the_body() {
    let mut ed = with_one_crate();
    ed.key(Modifiers::NONE, Key::R);
    assert_eq!(ed.harness.state().gizmo_mode(), GizmoMode::Scale);
    let before_z = bodies(&ed)[0].translation[2];
    ed.frames(1);
    drag_handle(&mut ed, Handle::Axis(0), 0.5);
    let body = bodies(&ed)[0].clone();
    assert!(body.scale[0] > 1.2, "{:?}", body.scale);
    assert_eq!((body.scale[1], body.scale[2]), (1.0, 1.0));
    assert_eq!(
        body.translation[2], before_z,
        "a scale along x keeps the bottom on the ground"
    );
    assert_eq!(
        ed.harness.state().document().history().undo_label(),
        Some("Scale body")
    );
    ed.key(Modifiers::NONE, Key::E);
    assert_eq!(ed.harness.state().gizmo_mode(), GizmoMode::Rotate);
    ed.frames(1);
    drag_handle(&mut ed, Handle::Axis(2), 0.3);
    let turned = bodies(&ed)[0].clone();
    assert_ne!(turned.rotation, body.rotation, "the ring turns it");
    assert_eq!(turned.translation, body.translation);
}

#[test]
fn ctrl_d_duplicates_delete_removes_and_undo_brings_it_back() {
    let mut ed = with_one_crate();
    ed.key(Modifiers::COMMAND, Key::D);
    let two = bodies(&ed);
    assert_eq!(two.len(), 2);
    assert_eq!(two[1].name, "Crate 2");
    assert!(
        (two[1].translation[0] - two[0].translation[0] - 1.0).abs() < 0.05,
        "one crate over"
    );
    assert_eq!(ed.harness.state().selected_body(), Some(1));

    ed.key(Modifiers::NONE, Key::Delete);
    assert_eq!(bodies(&ed), two[..1].to_vec());
    assert_eq!(
        ed.harness.state().document().history().undo_label(),
        Some("Delete body")
    );
    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(bodies(&ed), two);
}

#[test]
fn clicking_a_body_selects_it_instead_of_dropping_another() {
    let mut ed = with_one_crate();
    let p = ed
        .harness
        .state()
        .gizmo_handle(Handle::Centre)
        .expect("gizmo");
    ed.key(Modifiers::NONE, Key::Escape);
    assert_eq!(ed.harness.state().selected_body(), None);
    raw_drag(&mut ed, &[p]);
    assert_eq!(bodies(&ed).len(), 1);
    assert_eq!(ed.harness.state().selected_body(), Some(0));
}

#[test]
fn f_frames_the_selected_body_and_the_level_without_one() {
    let mut ed = with_one_crate();
    ed.key(Modifiers::NONE, Key::F);
    let body = bodies(&ed)[0].translation;
    let close = *ed.harness.state().camera();
    let off = close.target - spillway_render::math::Vec3::new(body[0], body[1], body[2]);
    assert!(
        off.dot(off).sqrt() < 1.0,
        "{:?} against {body:?}",
        close.target
    );
    let framed = format!("Framed {}", bodies(&ed)[0].name);
    assert!(
        ed.harness.query_by_label_contains(&framed).is_some(),
        "{framed}"
    );
    // Nothing selected: the whole level, from the same side.
    ed.key(Modifiers::NONE, Key::Escape);
    ed.key(Modifiers::NONE, Key::F);
    let whole = *ed.harness.state().camera();
    assert_eq!(
        (whole.target.x, whole.target.y),
        (48.0, 40.0),
        "the level's centre"
    );
    assert_eq!((whole.yaw, whole.pitch), (close.yaw, close.pitch));
    assert!(
        close.distance < whole.distance / 4.0,
        "close up: {} m against the level's {} m",
        close.distance,
        whole.distance
    );
}

#[test]
fn the_row_helper_makes_n_bodies_in_one_step() {
    let mut ed = with_one_crate();
    *ed.harness.state_mut().body_count_mut() = 6;
    let steps = ed.harness.state().document().history().undo_len();
    ed.click("Row along y");
    let row = bodies(&ed);
    assert_eq!(row.len(), 6);
    for w in row.windows(2) {
        assert!((w[1].translation[1] - w[0].translation[1] - 1.0).abs() < 0.05);
    }
    let doc = ed.harness.state().document();
    assert_eq!(doc.history().undo_len(), steps + 1, "one step");
    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(bodies(&ed).len(), 1);
}

#[derive(Debug)]
struct Dropped(PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

#[test]
fn a_broken_gltf_shows_an_error_and_keeps_the_document() {
    let mut ed = with_one_crate();
    let level = ed.harness.state().document().level().clone();
    let chosen = ed.harness.state().chosen_body().map(Path::to_path_buf);
    let broken = ed.dir.path().join("broken.glb");
    std::fs::write(&broken, b"glTF this is not").expect("write");
    ed.harness
        .input_mut()
        .dropped_files
        .push(Arc::new(Dropped(broken.clone())));
    ed.frames(3);
    let Some(Dialog::Error { title, message }) = ed.harness.state().dialog().cloned() else {
        panic!("an error dialog, got {:?}", ed.harness.state().dialog());
    };
    assert!(title.contains("import the body"), "{title}");
    assert!(message.contains("broken.glb"), "names the file: {message}");
    assert_eq!(ed.harness.state().document().level(), &level);
    assert_eq!(
        ed.harness.state().chosen_body().map(Path::to_path_buf),
        chosen
    );

    // An empty glTF: valid JSON, no triangles.
    let empty = ed.dir.path().join("empty.gltf");
    std::fs::write(&empty, br#"{"asset":{"version":"2.0"}}"#).expect("write");
    ed.harness
        .state_mut()
        .perform(Action::ImportBodyPath(empty));
    let Some(Dialog::Error { message, .. }) = ed.harness.state().dialog().cloned() else {
        panic!("an error dialog");
    };
    assert!(
        message.contains("empty.gltf") && message.contains("no triangles"),
        "{message}"
    );
    assert_eq!(ed.harness.state().document().level(), &level);

    // A raft of one quad: two triangles enclosing nothing, which would neither float nor
    // hold water back (it imported as "2 triangles" with a mass of 0 kg).
    let quad: Vec<u8> = [
        [0.0f32, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0],
    ]
    .iter()
    .flatten()
    .flat_map(|v| v.to_le_bytes())
    .chain([0u8, 1, 2, 0, 2, 3])
    .collect();
    let raft = ed.dir.path().join("raft.gltf");
    let b64 = base64_of(&quad);
    let doc = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"uri":"data:application/octet-stream;base64,{b64}","byteLength":54}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":48}},{{"buffer":0,"byteOffset":48,"byteLength":6}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":4,"type":"VEC3","min":[0,0,0],"max":[1,0,1]}},
        {{"bufferView":1,"componentType":5121,"count":6,"type":"SCALAR"}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1}}]}}],
        "nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}],"scene":0}}"#
    );
    std::fs::write(&raft, doc).expect("write");
    ed.harness.state_mut().perform(Action::ImportBodyPath(raft));
    let Some(Dialog::Error { message, .. }) = ed.harness.state().dialog().cloned() else {
        panic!("an error dialog, got {:?}", ed.harness.state().dialog());
    };
    assert!(
        message.contains("raft.gltf") && message.contains("encloses no volume"),
        "{message}"
    );
    assert_eq!(ed.harness.state().document().level(), &level);
}

/// Standard base64 of `data`, padded.
fn base64_of(data: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in data.chunks(3) {
        let n = u32::from(c[0]) << 16
            | u32::from(*c.get(1).unwrap_or(&0)) << 8
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            s.push(if k <= c.len() {
                A[(n >> (18 - 6 * k) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    s
}

#[test]
fn save_then_open_keeps_the_bodies_with_their_files_beside_the_level() {
    let mut ed = with_one_crate();
    ed.key(Modifiers::COMMAND, Key::D);
    ed.key(Modifiers::COMMAND, Key::S);
    let saved = bodies(&ed);
    assert_eq!(saved.len(), 2);
    assert!(
        saved.iter().all(|b| b.gltf == "bodies/crate.glb"),
        "{saved:?}"
    );
    assert!(
        ed.dir.path().join("bodies/crate.glb").is_file(),
        "copied beside the level"
    );
    assert!(!ed.harness.state().document().is_modified());

    let path = ed.dir.path().join("level.ron");
    let reloaded = spillway::level::file::load(&path).expect("loads");
    assert_eq!(reloaded.bodies, saved);
    // The game's loader finds the file inside the level's folder.
    let mesh =
        spillway::body::import::import_body(ed.dir.path(), &saved[0].gltf, &Default::default())
            .expect("the game can load it");
    assert_eq!(mesh, crate_mesh());

    ed.harness.state_mut().perform(Action::OpenPath(path));
    ed.frames(2);
    assert_eq!(bodies(&ed), saved);
}

#[test]
fn the_inspector_sets_a_convex_decomposition_as_one_undoable_step() {
    let mut ed = with_one_crate();
    let steps = ed.harness.state().document().history().undo_len();
    ed.harness.get_by_value("Auto (convex hull)").click();
    ed.harness.run_steps(3);
    ed.click("Convex decomposition");
    assert_eq!(
        bodies(&ed)[0].collider,
        spillway::level::ColliderShape::ConvexDecomposition
    );
    assert_eq!(
        ed.harness.state().document().history().undo_len(),
        steps + 1,
        "one step"
    );
    ed.key(Modifiers::COMMAND, Key::Z);
    assert_eq!(
        bodies(&ed)[0].collider,
        spillway::level::ColliderShape::Auto
    );
}

#[test]
fn a_failed_save_leaves_the_bodies_paths_as_they_were() {
    // The save copied the library body beside the level and rewrote its path first, as an
    // undo step: when the save then failed (or was cancelled), the path pointed at a folder
    // the level was not in.
    let mut ed = with_one_crate();
    let before = bodies(&ed);
    let path = ed.dir.path().join("level.ron");
    std::fs::remove_file(&path).expect("remove the level file");
    std::fs::create_dir(&path).expect("a folder where the level goes");
    ed.key(Modifiers::COMMAND, Key::S);
    assert!(
        ed.harness.state().dialog().is_some(),
        "the failure is shown"
    );
    assert_eq!(bodies(&ed), before, "the paths as they were");
    assert_ne!(
        ed.harness.state().document().history().undo_label(),
        Some("Copy body files into the project")
    );
    ed.click("OK");
    std::fs::remove_dir(&path).expect("the folder goes");
    ed.key(Modifiers::COMMAND, Key::S);
    assert!(bodies(&ed).iter().all(|b| b.gltf == "bodies/crate.glb"));
    assert!(!ed.harness.state().document().is_modified());
}
