// Store pass (sim::swe::Velocities::store): the face velocities implied by the limited
// discharges and the depths they were computed from, extended one face past wet fronts for
// semi-Lagrangian advection (EXTEND), and the largest face speed for the CFL limit. A film's
// face (upwind depth under FILM) is held to one cell a sub-step and left out of the largest
// speed (sim::swe::Velocities::store).

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read> depth: array<f32>;
@group(0) @binding(3) var<storage, read> qx: array<f32>;
@group(0) @binding(4) var<storage, read> qy: array<f32>;
@group(0) @binding(5) var<storage, read_write> vel: array<f32>;

var<workgroup> wmax: atomic<u32>;
var<workgroup> wrun: u32;

// Velocity of x-face (i, j) from the limited discharge, and whether it counts.
fn src_u(i: u32, j: u32, h: StateHalves, dt: f32) -> vec2<f32> {
    let nx = grid.nx;
    let q = qx[h.qx + j * (nx + 1u) + i];
    if (i == 0u || i == nx) {
        return border_vel(q, depth[h.d + j * nx + min(i, nx - 1u)]);
    }
    return face_vel(q, depth[h.d + j * nx + i - 1u], depth[h.d + j * nx + i], dt);
}

fn src_v(i: u32, j: u32, h: StateHalves, dt: f32) -> vec2<f32> {
    let nx = grid.nx;
    let ny = grid.ny;
    let q = qy[h.qy + j * nx + i];
    if (j == 0u || j == ny) {
        return border_vel(q, depth[h.d + min(j, ny - 1u) * nx + i]);
    }
    return face_vel(q, depth[h.d + (j - 1u) * nx + i], depth[h.d + j * nx + i], dt);
}

// A still face takes the velocity of the face behind it when that one flows toward it.
fn extend(here: f32, behind: f32, ahead: f32) -> f32 {
    if (here != 0.0 || !EXTEND) {
        return here;
    } else if (behind > 0.0) {
        return behind;
    } else if (ahead < 0.0) {
        return ahead;
    }
    return 0.0;
}

// Writes the velocities into the half at element offset `out`, films held to one cell in `dt`.
fn store(i: u32, j: u32, lid: u32, h: StateHalves, out: u32, dt: f32) {
    let nx = grid.nx;
    let ny = grid.ny;
    if (lid == 0u) {
        atomicStore(&wmax, 0u);
    }
    workgroupBarrier();
    var m = 0.0;
    if (i <= nx && j < ny) {
        let here = src_u(i, j, h, dt);
        var u = here.x;
        if (EXTEND && i > 0u && i < nx && here.x == 0.0) {
            u = extend(here.x, src_u(i - 1u, j, h, dt).x, src_u(i + 1u, j, h, dt).x);
        }
        vel[out + j * (nx + 1u) + i] = u;
        m = abs(here.x) * here.y;
    }
    if (i < nx && j <= ny) {
        let here = src_v(i, j, h, dt);
        var v = here.x;
        if (EXTEND && j > 0u && j < ny && here.x == 0.0) {
            v = extend(here.x, src_v(i, j - 1u, h, dt).x, src_v(i, j + 1u, h, dt).x);
        }
        vel[out + grid.half_qx + j * nx + i] = v;
        m = max(m, abs(here.x) * here.y);
    }
    atomicMax(&wmax, bitcast<u32>(m));
    workgroupBarrier();
    if (lid == 0u) {
        atomicMax(&aux.ctl.max_speed, atomicLoad(&wmax));
    }
}

// After the flow pass: the new discharges (other half) with the depths of the current half,
// into the other half of the velocities.
@compute @workgroup_size(16, 16)
fn after_step(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (lid == 0u) {
        wrun = aux.ctl.running;
    }
    if (workgroupUniformLoad(&wrun) == 0u) {
        return;
    }
    let p = aux.ctl.parity;
    let n = halves_of(p ^ 1u);
    // The sub-step's length, which holds a film's speed (face_vel).
    let dt = grid.dt / f32(max(aux.ctl.n, 1u));
    store(gid.x, gid.y, lid, StateHalves(p * grid.half_d, n.qx, n.qy, n.v), n.v, dt);
}

// At start-up: the velocities of the current discharges (films not held, as on the CPU).
@compute @workgroup_size(16, 16)
fn initial(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let h = halves_of(aux.ctl.parity);
    store(gid.x, gid.y, lid, h, h.v, 1e-30);
}
