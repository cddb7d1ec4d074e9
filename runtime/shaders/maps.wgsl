// Maps pass: folds the current (closed) state into the maps of the run, one invocation per
// cell: the deepest water, the fastest cell speed (mean discharge of the cell's faces over
// depth × dx, as Simulation::cell_velocity), the arrival time (first at ARRIVAL deep) and the
// largest depth × speed. Recorded after the control pass closed a step, so it sees the state a
// CPU step ends with. Four maps of `grid.cells` (sim::maps::MapKind order); the arrival map
// holds the time plus one second, so a cleared buffer (0) means "not yet".

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read> depth: array<f32>;
@group(0) @binding(3) var<storage, read> qx: array<f32>;
@group(0) @binding(4) var<storage, read> qy: array<f32>;
@group(0) @binding(5) var<storage, read_write> max_depth: array<f32>;
@group(0) @binding(6) var<storage, read_write> max_speed: array<f32>;
@group(0) @binding(7) var<storage, read_write> arrival: array<f32>;
@group(0) @binding(8) var<storage, read_write> hazard: array<f32>;

// sim::maps::ARRIVAL_DEPTH
const ARRIVAL: f32 = 0.01;

@compute @workgroup_size(256)
fn update(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let c = (wid.y * groups.x + wid.x) * 256u + lid;
    if (c >= grid.cells) {
        return;
    }
    let p = aux.ctl.parity;
    let nx = grid.nx;
    let i = c % nx;
    let j = c / nx;
    let d = depth[p * grid.half_d + c];
    // The maps only grow, from 0, and each is written only where it changes: a dry cell reads
    // its depth alone, and once the water has peaked a wet one reads the maps and writes
    // nothing.
    if (d <= 0.0) {
        return;
    }
    if (d > max_depth[c]) {
        max_depth[c] = d;
    }
    // A film this thin has no speed, and has not arrived.
    if (d <= 1e-3) {
        return;
    }
    let bx = p * grid.half_qx + j * (nx + 1u) + i;
    let by = p * grid.half_qy + j * nx + i;
    let u = 0.5 * (qx[bx] + qx[bx + 1u]) / (d * grid.dx);
    let v = 0.5 * (qy[by] + qy[by + nx]) / (d * grid.dx);
    let speed = sqrt(u * u + v * v);
    if (speed > max_speed[c]) {
        max_speed[c] = speed;
    }
    if (d >= ARRIVAL && arrival[c] == 0.0) {
        arrival[c] = aux.ctl.time_hi + aux.ctl.time_lo + 1.0;
    }
    let h = d * speed;
    if (h > hazard[c]) {
        hazard[c] = h;
    }
}
