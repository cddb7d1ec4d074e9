//! The `.npy` heightmap reader, straight from bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = spillway_fuzz::heightmap::npy::parse(data);
});
