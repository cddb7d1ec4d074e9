// The maps of the run (sim::maps) take in one cell: included by the maps pass (the flow pass's
// variant that folds the maps in does the same with atomics: fold_atomic.wgsl). The includer
// declares `grid` and the four maps `max_depth`, `max_speed`, `arrival` and `hazard` (f32 per
// cell but the arrival, u32; read_write; sim::maps::MapKind order). The maps only grow, from 0,
// and each is written only where it changes. The arrival (the time plus one second) is stored as
// the complement of its f32 bits: 0 (a cleared map) is "not yet", and a later time is a smaller
// word, so fold_atomic.wgsl keeps the first arrival with atomicMax.

// sim::maps::ARRIVAL_DEPTH
const ARRIVAL: f32 = 0.01;

// Takes in cell c's depth d; whether the cell holds enough water to have a speed (then
// `fold_flow` takes in the rest). A dry cell reads nothing more.
fn fold_depth(c: u32, d: f32) -> bool {
    if (d <= 0.0) {
        return false;
    }
    if (d > max_depth[c]) {
        max_depth[c] = d;
    }
    // A film this thin has no speed, and has not arrived.
    return d > 1e-3;
}

// Takes in the speed (the mean discharge of the cell's faces over depth × dx, as
// Simulation::cell_velocity), the arrival and the hazard of cell c, of depth d, from its
// faces' discharges; `arrive` is the time plus one second (a cleared map, 0, is "not yet").
fn fold_flow(c: u32, d: f32, left: f32, right: f32, top: f32, bottom: f32, arrive: f32) {
    let u = 0.5 * (left + right) / (d * grid.dx);
    let v = 0.5 * (top + bottom) / (d * grid.dx);
    let speed = sqrt(u * u + v * v);
    if (speed > max_speed[c]) {
        max_speed[c] = speed;
    }
    if (d >= ARRIVAL && arrival[c] == 0u) {
        arrival[c] = ~bitcast<u32>(arrive);
    }
    let h = d * speed;
    if (h > hazard[c]) {
        hazard[c] = h;
    }
}

