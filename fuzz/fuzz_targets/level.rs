//! The level loader: RON text and a grid sidecar (see `write_level`), loaded with limits small
//! enough that every input runs fast; a level that loads is also saved and loaded again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spillway::level::{Limits, file};

fuzz_target!(|data: &[u8]| {
    let dir = spillway_fuzz::scratch();
    let path = spillway_fuzz::write_level(dir, data);
    let limits = Limits {
        max_cells: 1 << 16,
        max_side: 1 << 12,
        ..Limits::default()
    };
    if let Ok(level) = file::load_with_limits(&path, &limits) {
        let again = dir.join("again.ron");
        file::save(&level, &again).expect("a loaded level saves");
        let back = file::load_with_limits(&again, &limits).expect("a saved level loads");
        assert_eq!(back.state_hash(), level.state_hash());
        if let Ok(mut sim) = spillway::Simulation::new(&level) {
            let _ = sim.step(level.params.dt);
        }
    }
});
