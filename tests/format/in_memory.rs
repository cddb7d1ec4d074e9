//! A level loads from bytes in memory (a game's asset pack) exactly as from its folder, and bad
//! bytes are refused with the same messages, naming the level as the game named it.

use std::fs;
use std::path::Path;

use spillway::level::Limits;
use spillway::level::file::{LevelBytes, load, load_bytes};

use crate::{files_in, rich_level, saved};

/// The files of a saved level's folder: the level file's bytes and the sidecars by name.
fn pack(dir: &Path) -> (Vec<u8>, Vec<(String, Vec<u8>)>) {
    let ron = fs::read(dir.join("level.ron")).expect("read level");
    let sidecars = files_in(dir)
        .into_iter()
        .filter(|n| n.ends_with(".grids"))
        .map(|n| (n.clone(), fs::read(dir.join(&n)).expect("read sidecar")))
        .collect();
    (ron, sidecars)
}

fn from_pack(ron: &[u8], sidecars: &[(String, Vec<u8>)]) -> Result<spillway::Level, String> {
    let named: Vec<(&str, &[u8])> = sidecars
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let bytes = LevelBytes {
        name: Path::new("pack/levels/river.ron"),
        ron,
        sidecars: &named,
    };
    load_bytes(&bytes, &Limits::default()).map_err(|e| e.to_string())
}

#[test]
fn a_level_in_memory_loads_as_it_does_from_its_folder() {
    let level = rich_level(37, 23);
    let (dir, path) = saved(&level);
    let (ron, sidecars) = pack(dir.path());
    assert_eq!(sidecars.len(), 1, "one sidecar beside the level");
    // The folder is gone: nothing is read from disk.
    let from_disk = load(&path).expect("load from the folder");
    drop(dir);
    let from_memory = from_pack(&ron, &sidecars).expect("load from memory");
    assert_eq!(from_memory, from_disk);
    assert_eq!(from_memory.state_hash(), from_disk.state_hash());
}

#[test]
fn a_sidecar_left_out_of_the_pack_is_named_as_missing() {
    let (dir, _path) = saved(&rich_level(8, 8));
    let (ron, sidecars) = pack(dir.path());
    let name = sidecars[0].0.clone();
    let err = from_pack(&ron, &[]).expect_err("no sidecar");
    assert!(err.contains("pack/levels/river.ron"), "{err}");
    assert!(err.contains("missing") && err.contains(&name), "{err}");
    assert!(err.contains("terrain"), "names the first grid: {err}");
}

#[test]
fn damaged_bytes_in_memory_are_refused_by_place() {
    let (dir, _path) = saved(&rich_level(8, 8));
    let (ron, mut sidecars) = pack(dir.path());
    // One byte of the last grid flipped: its checksum names it.
    let last = sidecars[0].1.len() - 1;
    sidecars[0].1[last] ^= 0x40;
    let err = from_pack(&ron, &sidecars).expect_err("damaged sidecar");
    assert!(err.contains("pack/levels/river.ron"), "{err}");
    assert!(err.contains("checksum") || err.contains("CRC"), "{err}");
    // The sidecar cut short: named as truncated, not a panic or a huge allocation.
    let (_, mut short) = pack(dir.path());
    short[0].1.truncate(20);
    let err = from_pack(&ron, &short).expect_err("truncated sidecar");
    assert!(err.contains("pack/levels/river.ron"), "{err}");
    // Not UTF-8, and a misspelt key: line and column, as from a file.
    let err = from_pack(&[0xff, 0xfe, 0x28], &sidecars).expect_err("not text");
    assert!(err.contains("UTF-8") && err.contains(":1:1"), "{err}");
    let text = String::from_utf8(ron)
        .expect("text")
        .replacen("gravity", "gravty", 1);
    let err = from_pack(text.as_bytes(), &sidecars).expect_err("misspelt key");
    assert!(err.contains("gravty"), "{err}");
}
