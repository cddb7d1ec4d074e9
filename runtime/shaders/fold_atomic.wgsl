// The maps of the run (sim::maps) take in one cell, as fold.wgsl does, for the flow pass's
// variant that folds each cell in as it writes a step's last depth. The same values, written
// without reading: the includer declares the four maps `max_depth`, `max_speed`, `arrival` and
// `hazard` as array<atomic<u32>> over the f32 bits the maps pass and the CPU read, and `grid`.
// The largest of non-negative floats is the largest of their bits, so atomicMax keeps each
// map's maximum, and of the arrival's complemented bits its first time. A thread waits on none
// of these (their results are not used), so the strip's march goes on at once: the plain loads
// and compares of fold.wgsl stalled it where the strips fill the GPU once.

// sim::maps::ARRIVAL_DEPTH
const ARRIVAL: f32 = 0.01;

// Takes in cell c's depth d; whether the cell holds enough water to have a speed (then
// `fold_flow` takes in the rest). A dry cell takes in nothing.
fn fold_depth(c: u32, d: f32) -> bool {
    if (d <= 0.0) {
        return false;
    }
    atomicMax(&max_depth[c], bitcast<u32>(d));
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
    // Not a NaN (its bits would beat every number): fold.wgsl's `speed > max` skips it too.
    if (speed > 0.0) {
        atomicMax(&max_speed[c], bitcast<u32>(speed));
    }
    // The arrival is stored as the complement of its bits (see fold.wgsl): the largest word is
    // the earliest time, and any time beats a cleared 0, so atomicMax keeps the first arrival
    // without waiting for a result (a compare-exchange returns one, and stalled the march).
    if (d >= ARRIVAL) {
        atomicMax(&arrival[c], ~bitcast<u32>(arrive));
    }
    let h = d * speed;
    if (h > 0.0) {
        atomicMax(&hazard[c], bitcast<u32>(h));
    }
}
