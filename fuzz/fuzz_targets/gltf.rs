//! The glTF importer: the input is a `.gltf` (JSON) or `.glb` file, by its first bytes,
//! imported from a folder of its own with small limits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spillway::body::import::{ImportLimits, import};

fuzz_target!(|data: &[u8]| {
    let dir = spillway_fuzz::scratch();
    let name = if data.starts_with(b"glTF") {
        "body.glb"
    } else {
        "body.gltf"
    };
    let path = dir.join(name);
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let limits = ImportLimits {
        max_file_bytes: 1 << 20,
        max_vertices: 1 << 16,
        max_triangles: 1 << 16,
    };
    let _ = import(&path, dir, &limits);
});
