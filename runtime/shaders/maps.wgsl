// Maps pass: folds the current (closed) state into the maps of the run, one invocation per
// cell: the deepest water, the fastest cell speed (mean discharge of the cell's faces over
// depth × dx, as Simulation::cell_velocity), the arrival time (first at ARRIVAL deep) and the
// largest depth × speed (fold.wgsl). Recorded after the control pass closed a step, so it sees
// the state a CPU step ends with; where the flow pass folds the maps in itself (its fused
// variant with maps, at a step's last sub-step), only after steps it did not fold. Four maps of
// `grid.cells` (sim::maps::MapKind order); the arrival map holds the time plus one second as the
// complement of its bits, so a cleared buffer (0) means "not yet" (fold.wgsl).

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read> depth: array<f32>;
@group(0) @binding(3) var<storage, read> qx: array<f32>;
@group(0) @binding(4) var<storage, read> qy: array<f32>;
@group(0) @binding(5) var<storage, read_write> max_depth: array<f32>;
@group(0) @binding(6) var<storage, read_write> max_speed: array<f32>;
@group(0) @binding(7) var<storage, read_write> arrival: array<u32>;
@group(0) @binding(8) var<storage, read_write> hazard: array<f32>;

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
    // Once the water has peaked a wet cell reads the maps and writes nothing.
    if (!fold_depth(c, d)) {
        return;
    }
    let bx = p * grid.half_qx + j * (nx + 1u) + i;
    let by = p * grid.half_qy + j * nx + i;
    let arrive = aux.ctl.time_hi + aux.ctl.time_lo + 1.0;
    fold_flow(c, d, qx[bx], qx[bx + 1u], qy[by], qy[by + nx], arrive);
}
