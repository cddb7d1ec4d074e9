//! The grayscale PNG heightmap reader, straight from bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = spillway_fuzz::heightmap::png::decode(std::io::Cursor::new(data), 100.0);
});
