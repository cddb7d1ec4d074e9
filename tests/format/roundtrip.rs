//! Save → load gives back the same level bit for bit; saves are atomic and files compact.

use std::fs;

use spillway::Level;
use spillway::level::file::{load, save};

use crate::{files_in, rich_level, saved};

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn assert_bit_exact(a: &Level, b: &Level) {
    assert_eq!(a, b);
    assert_eq!(bits(&a.terrain.data), bits(&b.terrain.data));
    assert_eq!(bits(&a.water.data), bits(&b.water.data));
    let (fa, fb) = (
        a.flow.as_ref().expect("flow"),
        b.flow.as_ref().expect("flow"),
    );
    assert_eq!(bits(&fa.flow_x), bits(&fb.flow_x));
    assert_eq!(bits(&fa.flow_y), bits(&fb.flow_y));
    assert_eq!(bits(&fa.ghost), bits(&fb.ghost));
    assert_eq!(fa.time.to_bits(), fb.time.to_bits());
    assert_eq!(a.cell_size.to_bits(), b.cell_size.to_bits());
    assert_eq!(a.params.dt.to_bits(), b.params.dt.to_bits());
}

#[test]
fn round_trip_is_bit_exact_with_flow_and_every_object_kind() {
    let level = rich_level(37, 23);
    let (_dir, path) = saved(&level);
    let back = load(&path).expect("load");
    assert_bit_exact(&level, &back);
}

#[test]
fn round_trip_without_flow_state() {
    let mut level = Level::flat(4, 3, 2.0, 1.5);
    level.flow = None;
    let (_dir, path) = saved(&level);
    assert_eq!(load(&path).expect("load"), level);
    let text = fs::read_to_string(&path).expect("read");
    assert!(text.contains("flow: None"), "{text}");
}

#[test]
fn level_file_is_readable_ron_with_a_version() {
    let (_dir, path) = saved(&rich_level(8, 8));
    let text = fs::read_to_string(&path).expect("read");
    assert!(text.starts_with("(\n    format_version: 3,\n"), "{text}");
    for needle in [
        "name: \"river",
        "params: (",
        "sources: [",
        "encoding: F32Le",
        "ghost: [",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    assert!(text.lines().count() > 50, "not pretty-printed:\n{text}");
}

#[test]
fn resave_keeps_one_sidecar_and_removes_stale_ones() {
    let mut level = rich_level(16, 16);
    let (dir, path) = saved(&level);
    let first = files_in(dir.path());
    assert_eq!(first.len(), 2, "{first:?}");

    // Saving the same content again reuses the same sidecar name: no diff in the level file.
    let text = fs::read_to_string(&path).expect("read");
    save(&level, &path).expect("save again");
    assert_eq!(files_in(dir.path()), first);
    assert_eq!(fs::read_to_string(&path).expect("read"), text);

    // Changed grids get a new sidecar; the old one is removed after the level file is replaced.
    level.water.set(3, 3, 9.0);
    save(&level, &path).expect("save changed");
    let second = files_in(dir.path());
    assert_eq!(second.len(), 2, "{second:?}");
    assert_ne!(second, first);
    assert_eq!(load(&path).expect("load"), level);
}

#[test]
fn interrupted_save_leaves_the_previous_level_loadable() {
    let old = rich_level(16, 12);
    let (dir, path) = saved(&old);

    // Simulate a save that died after writing its sidecar and a temporary level file but before
    // renaming the level file into place: the new sidecar (another name) and temp files lie around.
    let mut new = old.clone();
    new.terrain.set(1, 1, 42.0);
    let (other_dir, other_path) = saved(&new);
    for name in files_in(other_dir.path()) {
        if name.ends_with(".grids") {
            fs::copy(other_dir.path().join(&name), dir.path().join(&name)).expect("copy");
        }
    }
    fs::copy(&other_path, dir.path().join(".level.ron.4242.1.0.tmp")).expect("copy");
    fs::write(
        dir.path().join(".level.grids.4242.1.1.tmp"),
        b"SPWGRID1 half writ",
    )
    .expect("w");
    assert_eq!(load(&path).expect("old level still loads"), old);

    // The next save succeeds, and loading gives the newly saved level.
    save(&new, &path).expect("save after crash");
    assert_eq!(load(&path).expect("load"), new);
    let grids: Vec<_> = files_in(dir.path())
        .into_iter()
        .filter(|n| n.ends_with(".grids"))
        .collect();
    assert_eq!(grids.len(), 1, "stale sidecars left: {grids:?}");
}

#[test]
fn failed_save_does_not_touch_the_previous_level() {
    let old = rich_level(8, 8);
    let (dir, path) = saved(&old);
    let before = files_in(dir.path());
    let mut bad = old.clone();
    bad.water.set(2, 5, -1.0);
    let err = save(&bad, &path).expect_err("negative depth must not be saved");
    assert!(err.to_string().contains("water(x=2, y=5)"), "{err}");
    assert_eq!(files_in(dir.path()), before);
    assert_eq!(load(&path).expect("load"), old);
}

#[test]
fn a_save_that_cannot_put_its_level_file_in_place_leaves_no_sidecar() {
    // The level file's name is taken by a folder: the rename fails after the sidecar was
    // written (a bake into an unwritable file ran, then left a stray `.grids` beside it).
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("level.ron");
    fs::create_dir_all(path.join("inside")).expect("a folder in the way");
    let before = files_in(dir.path());
    save(&rich_level(8, 8), &path).expect_err("a folder is in the way");
    assert_eq!(files_in(dir.path()), before, "no sidecar left behind");
}

#[test]
fn files_are_at_most_one_and_a_half_times_the_raw_grids() {
    let (nx, ny) = (512, 512);
    let level = rich_level(nx, ny);
    let (dir, _path) = saved(&level);
    // Terrain, water and carry per cell; flows and the second face field per face.
    let raw = 4 * (3 * nx * ny + 2 * ((nx + 1) * ny + nx * (ny + 1)));
    let total: u64 = fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").metadata().expect("meta").len())
        .sum();
    assert!(
        total as f64 <= 1.5 * raw as f64,
        "files total {total} bytes for {raw} raw grid bytes"
    );
}

#[test]
fn levels_sharing_a_folder_keep_their_own_sidecars() {
    let a = rich_level(6, 6);
    let mut b = a.clone();
    b.terrain.set(0, 0, 3.0);
    let (dir, path) = saved(&a);
    let backup = dir.path().join("level.bak");
    let other = dir.path().join("level2.ron");
    save(&b, &backup).expect("save backup");
    save(&b, &other).expect("save other");
    save(&a, &path).expect("save again");
    assert_eq!(load(&path).expect("load"), a);
    assert_eq!(load(&backup).expect("load backup"), b);
    assert_eq!(load(&other).expect("load other"), b);
    assert_eq!(files_in(dir.path()).len(), 6, "{:?}", files_in(dir.path()));
}

#[test]
fn a_copy_of_a_level_file_keeps_the_grids_it_names() {
    // A copy of `level.ron` (a backup, a duplicate) names the grids it was saved with; the
    // next save of `level.ron` removed them by their name's pattern, and the copy no longer
    // loaded. Same for a level saved as `level` beside `level.ron` (one stem).
    let a = rich_level(6, 6);
    let (dir, path) = saved(&a);
    let backup = dir.path().join("backup.ron");
    fs::copy(&path, &backup).expect("copy");
    let mut b = a.clone();
    b.terrain.set(0, 0, 3.0);
    save(&b, &path).expect("save changed");
    assert_eq!(load(&backup).expect("the copy loads"), a);
    assert_eq!(load(&path).expect("load"), b);
    let bare = dir.path().join("level");
    save(&a, &bare).expect("save as level");
    let mut c = b.clone();
    c.terrain.set(1, 0, 4.0);
    save(&c, &path).expect("save level.ron again");
    assert_eq!(load(&bare).expect("level loads"), a);
    assert_eq!(load(&backup).expect("the copy still loads"), a);
    // Grids named by no level file go.
    fs::remove_file(&backup).expect("remove the copy");
    fs::remove_file(&bare).expect("remove level");
    save(&b, &path).expect("save once more");
    assert_eq!(files_in(dir.path()).len(), 2, "{:?}", files_in(dir.path()));
}

#[test]
fn a_level_named_with_a_colon_or_backslash_loads_again_and_resaves() {
    // Linux and macOS allow both in a file name; the sidecar named after it was refused on
    // load as a path, and the resave had removed the one before.
    let a = rich_level(6, 6);
    let dir = tempfile::tempdir().expect("temp dir");
    for name in ["Act 1: The Dam.ron", "back\\slash.ron"] {
        let path = dir.path().join(name);
        save(&a, &path).expect("save");
        assert_eq!(load(&path).expect("load"), a, "{name}");
        let mut b = a.clone();
        b.terrain.set(1, 1, 4.0);
        save(&b, &path).expect("save again");
        assert_eq!(load(&path).expect("load again"), b, "{name}");
    }
    assert_eq!(files_in(dir.path()).len(), 4, "{:?}", files_in(dir.path()));
    // Names that an escape would make alike keep their own sidecars (`a:b` made `a_b`'s
    // sidecar name, and its save removed `a_b`'s).
    let mut c = a.clone();
    c.terrain.set(2, 2, 5.0);
    for (name, level) in [("a_b.ron", &a), ("a:b.ron", &c), ("a%3Ab.ron", &a)] {
        save(level, &dir.path().join(name)).expect("save");
    }
    for (name, level) in [("a_b.ron", &a), ("a:b.ron", &c), ("a%3Ab.ron", &a)] {
        assert_eq!(&load(&dir.path().join(name)).expect(name), level, "{name}");
    }
}

#[test]
fn a_level_named_near_the_file_systems_limit_saves_loads_and_resaves() {
    // 240 bytes: its sidecar's checksum name fits in 255, but the temporary copies' names
    // (the name, the process, the time, the counter) did not, and no save of it could land.
    // The cut of the temporary name falls inside an `é`.
    let stem = format!("{}{}{}", "a".repeat(175), "é".repeat(8), "a".repeat(45));
    let name = format!("{stem}.ron");
    assert_eq!(name.len(), 240);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(&name);
    let mut level = rich_level(6, 6);
    save(&level, &path).expect("a long name saves");
    assert_eq!(load(&path).expect("load"), level);
    level.terrain.set(1, 1, 4.0);
    save(&level, &path).expect("save again");
    assert_eq!(load(&path).expect("load again"), level);
    assert_eq!(files_in(dir.path()).len(), 2, "{:?}", files_in(dir.path()));
}

#[test]
fn roughness_grid_and_friction_law_round_trip() {
    use spillway::level::Friction;
    let mut level = rich_level(9, 7);
    level.params.friction = Friction::Manning { n: 0.045 };
    level.roughness = Some(spillway::Grid::from_fn(9, 7, |x, y| {
        0.013 + 0.01 * x as f32 + 0.001 * y as f32
    }));
    let (_dir, path) = saved(&level);
    let back = load(&path).expect("load");
    assert_bit_exact(&level, &back);
    let (a, b) = (level.roughness.unwrap(), back.roughness.unwrap());
    assert_eq!(bits(&a.data), bits(&b.data));
    let text = fs::read_to_string(&path).expect("read");
    assert!(text.contains("friction: Manning("), "{text}");
    assert!(text.contains("roughness: Some("), "{text}");
}

#[test]
fn a_save_cancelled_halfway_leaves_the_files_on_disk_as_they_were() {
    let old = rich_level(300, 200);
    let (dir, path) = saved(&old);
    let before = files_in(dir.path());
    let mut new = old.clone();
    new.terrain.data.iter_mut().for_each(|h| *h += 1.0);
    let mut shares = Vec::new();
    let result = spillway::level::file::save_with_progress(&new, &path, &mut |share| {
        shares.push(share);
        share < 0.5
    });
    let err = result.expect_err("the save stopped");
    assert!(err.to_string().contains("cancelled"), "{err}");
    assert!(
        shares.windows(2).all(|w| w[0] <= w[1]),
        "progress only grows"
    );
    assert_eq!(files_in(dir.path()), before, "no file added or removed");
    assert_bit_exact(&old, &load(&path).expect("the old level still loads"));
    // Run to the end, the same call saves the new level.
    let mut last = 0.0;
    spillway::level::file::save_with_progress(&new, &path, &mut |share| {
        last = share;
        true
    })
    .expect("save");
    assert_eq!(last, 1.0);
    assert_eq!(load(&path).expect("load").terrain, new.terrain);
}

#[test]
fn compressed_grids_load_bit_exact_and_are_smaller_for_every_sample() {
    use spillway::level::file::{GridStorage, load, save_with};
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../projects");
    let mut dirs: Vec<_> = std::fs::read_dir(root)
        .expect("projects")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("level.ron").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 5);
    for dir in dirs {
        let level = load(&dir.join("level.ron")).expect("a sample loads");
        let size = |storage| {
            let out = tempfile::tempdir().expect("dir");
            let path = out.path().join("level.ron");
            save_with(&level, &path, storage, &mut |_| true).expect("save");
            let back = load(&path).expect("load");
            assert!(
                back == level,
                "{}: {storage:?} changed the level",
                dir.display()
            );
            let bits = |l: &spillway::Level| {
                (l.terrain.data.iter().chain(&l.water.data))
                    .map(|v| v.to_bits())
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&back), bits(&level), "bit for bit");
            std::fs::read_dir(out.path())
                .expect("list")
                .map(|e| e.expect("entry").metadata().expect("meta").len())
                .sum::<u64>()
        };
        let (compressed, raw) = (size(GridStorage::Compressed), size(GridStorage::Raw));
        let ratio = compressed as f64 / raw as f64;
        println!(
            "{}: {compressed} bytes compressed, {raw} raw: {ratio:.3}",
            dir.display()
        );
        assert!(ratio < 0.9, "{}: {ratio}", dir.display());
    }
}
