//! The command line runs the level's bodies as the editor does: the crate dam holds the river in
//! `spillway sim` on both backends and in `spillway bake` (which saves where the bodies came to
//! rest); `--no-bodies` lets it through; on a shallow-water level the dam holds as well. A body
//! that goes over an open edge of the map during a bake keeps its placement, and the bake says so.

use std::path::{Path, PathBuf};

use spillway::level::file;

use crate::{spillway, stderr};

/// A copy of `projects/crate_dam` (level, sidecar and the crate mesh beside it) in `dir`.
pub(crate) fn crate_dam(dir: &Path) -> PathBuf {
    let project = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/crate_dam");
    let level = file::load(&project.join("level.ron")).expect("the sample loads");
    for body in &level.bodies {
        let from = project.join(&body.gltf);
        let to = dir.join(&body.gltf);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::copy(&from, &to).unwrap();
    }
    let path = dir.join("dam.ron");
    file::save(&level, &path).unwrap();
    path
}

fn sim_json(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["sim", "dam.ron", "--seconds", "60", "--json"];
    args.extend_from_slice(extra);
    let out = spillway(dir, &args);
    assert!(out.status.success(), "{extra:?}: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_crate_dam_holds_the_river_in_spillway_sim_on_both_backends() {
    let dir = tempfile::tempdir().unwrap();
    crate_dam(dir.path());
    for backend in ["cpu", "gpu"] {
        let json = sim_json(dir.path(), &["--backend", backend]);
        let (inflow, outflow) = (
            json["inflow"].as_f64().unwrap(),
            json["outflow"].as_f64().unwrap(),
        );
        println!(
            "{backend}: {outflow:.1} m³ out of {inflow:.1} m³ in, bodies {}",
            json["bodies"]
        );
        assert_eq!(json["bodies"], 10);
        assert!((json["seconds"].as_f64().unwrap() - 60.0).abs() < 1e-3);
        assert!(
            outflow < 0.1 * inflow,
            "{backend}: the dam let {outflow} of {inflow} m³ out"
        );
    }
    let json = sim_json(dir.path(), &["--backend", "cpu", "--no-bodies"]);
    assert_eq!(json["bodies"], 0);
    assert!(
        json["outflow"].as_f64().unwrap() > json["inflow"].as_f64().unwrap() * 0.5,
        "without bodies the river runs through: {json}"
    );
}

#[test]
fn spillway_bake_keeps_the_dam_and_saves_where_the_bodies_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = crate_dam(dir.path());
    let authored = file::load(&path).unwrap();
    let out = spillway(
        dir.path(),
        &[
            "bake",
            "dam.ron",
            "-o",
            "baked.ron",
            "--max-seconds",
            "30",
            "--backend",
            "cpu",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("10 bodies coupled"), "{text}");
    let baked = file::load(&dir.path().join("baked.ron")).unwrap();
    assert_eq!(baked.bodies.len(), authored.bodies.len());
    // Every crate is still in the dam: near where it was placed, not washed away.
    for (a, b) in authored.bodies.iter().zip(&baked.bodies) {
        let moved = (0..3)
            .map(|k| (a.translation[k] - b.translation[k]).powi(2))
            .sum::<f32>()
            .sqrt();
        assert!(moved < 1.0, "{} moved {moved} m", a.name);
    }
    // The baked level goes on holding the river until the pool tops the crates (50 s in all;
    // the pool reaches their tops at about 50 s).
    let json = {
        let out = spillway(
            dir.path(),
            &[
                "sim",
                "baked.ron",
                "--seconds",
                "20",
                "--json",
                "--backend",
                "cpu",
            ],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let (inflow, outflow) = (
        json["inflow"].as_f64().unwrap(),
        json["outflow"].as_f64().unwrap(),
    );
    assert!(
        outflow < 0.1 * inflow,
        "{outflow} of {inflow} m³ out after the bake"
    );
}

#[test]
fn the_crate_dam_holds_on_a_shallow_water_level_too() {
    // The shallow-water solver blocks as the pipes solver does: `check` passes, and `sim` on
    // both backends keeps the river behind the crates.
    let dir = tempfile::tempdir().unwrap();
    let path = crate_dam(dir.path());
    let mut level = file::load(&path).unwrap();
    level.params.solver = spillway::SolverKind::Swe;
    level.flow = None;
    file::save(&level, &path).unwrap();
    let check = spillway(dir.path(), &["check", "dam.ron"]);
    assert!(check.status.success(), "{}", stderr(&check));
    // The shallow-water pool runs up the crates and tops them sooner than the pipes pool (about
    // 45 s in, against 50 s): the first 40 s are the time the water stands below their tops.
    for backend in ["cpu", "gpu"] {
        let args = [
            "sim",
            "dam.ron",
            "--seconds",
            "40",
            "--json",
            "--backend",
            backend,
        ];
        let out = spillway(dir.path(), &args);
        assert!(out.status.success(), "{backend}: {}", stderr(&out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let (inflow, outflow) = (
            json["inflow"].as_f64().unwrap(),
            json["outflow"].as_f64().unwrap(),
        );
        println!("shallow water, {backend}: {outflow:.1} m³ out of {inflow:.1} m³ in");
        assert_eq!(json["bodies"], 10);
        assert!(
            outflow < 0.1 * inflow,
            "{backend}: the dam let {outflow} of {inflow} m³ out"
        );
    }
}

#[test]
fn a_body_gone_over_an_open_edge_in_a_bake_keeps_its_placement() {
    use spillway::level::{Body, Boundary, BoundaryKind, Coupling, Edge};
    use spillway::{Grid, Level};
    let dir = tempfile::tempdir().unwrap();
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/crate.glb");
    std::fs::copy(&assets, dir.path().join("crate.glb")).unwrap();
    let n = 16;
    let mut level = Level::flat(n, n, 0.5, 0.0);
    level.water = Grid::filled(n, n, 0.3);
    level.boundaries.push(Boundary {
        edge: Edge::East,
        start: 0,
        end: n as u32,
        kind: BoundaryKind::Open,
    });
    let crate_at = |name: &str, x: f32| Body {
        name: name.into(),
        gltf: "crate.glb".into(),
        translation: [x, 4.0, 0.6],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
        density: 2000.0,
        dynamic: true,
        coupling: Coupling::Auto,
        collider: Default::default(),
    };
    // One crate on the ground, one placed mostly past the open east edge (the map ends at
    // x = 8 m; the ground half a cell further): it falls off.
    level.bodies = vec![crate_at("inland crate", 3.0), crate_at("edge crate", 8.4)];
    file::save(&level, &dir.path().join("edge.ron")).unwrap();
    let out = spillway(
        dir.path(),
        &[
            "bake",
            "edge.ron",
            "-o",
            "baked.ron",
            "--until-steady",
            "1e-12",
            "--max-seconds",
            "3",
            "--backend",
            "cpu",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    assert!(
        text.contains("edge crate went over an open edge of the map and keeps its placement"),
        "{text}"
    );
    assert!(!text.contains("inland crate went"), "{text}");
    let baked = file::load(&dir.path().join("baked.ron")).unwrap();
    assert_eq!(baked.bodies[1].translation, level.bodies[1].translation);
    assert_eq!(baked.bodies[1].rotation, level.bodies[1].rotation);
    // The inland crate settled onto the ground where it stood, saved where it came to rest.
    let inland = baked.bodies[0].translation;
    assert!(
        (inland[0] - 3.0).abs() < 0.2 && inland[2] > 0.3 && inland[2] < 0.6,
        "{inland:?}"
    );
}
