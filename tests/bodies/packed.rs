//! A game that keeps its levels in an asset pack: the level, its sidecar and its bodies' glTF
//! files all from bytes in memory give the same bodies as the level's folder.

use std::path::Path;

use spillway::Simulation;
use spillway::body::world::{BodyWorld, import_meshes, import_meshes_from_bytes};
use spillway::level::Limits;
use spillway::level::file::{LevelBytes, load, load_bytes};

#[test]
fn a_level_and_its_bodies_from_a_pack_give_the_bodies_of_its_folder() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/crate_dam");
    let from_disk = load(&folder.join("level.ron")).unwrap();
    // The pack: every file of the project folder by its path inside the folder.
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for dir in [folder.clone(), folder.join("bodies")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                let name = path.strip_prefix(&folder).unwrap().to_str().unwrap();
                files.push((name.to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    let named: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let ron = &named.iter().find(|(n, _)| *n == "level.ron").unwrap().1;
    let level = load_bytes(
        &LevelBytes {
            name: Path::new("crate_dam/level.ron"),
            ron,
            sidecars: &named,
        },
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(level, from_disk);
    assert!(!level.bodies.is_empty());

    let meshes = import_meshes_from_bytes(&level, &named).unwrap();
    let on_disk = import_meshes(&from_disk, &folder).unwrap();
    assert_eq!(meshes.len(), level.bodies.len());
    for (a, b) in meshes.iter().zip(&on_disk) {
        assert_eq!(**a, **b);
    }
    let sim = Simulation::new(&level).unwrap();
    let packed = BodyWorld::from_meshes(&level, &sim, meshes);
    let folder_world = BodyWorld::from_level(&from_disk, &sim, &folder).unwrap();
    assert_eq!(packed.ids(), folder_world.ids());
    for id in packed.ids() {
        assert_eq!(packed.pose(id), folder_world.pose(id));
    }

    // A body whose file the pack lacks is named with its index, name and path.
    let e = import_meshes_from_bytes(&level, &named[..0]).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.starts_with("bodies[0]") && msg.contains(&level.bodies[0].gltf),
        "{msg}"
    );
    assert!(msg.contains("not among the files given"), "{msg}");
}
