// Advection pass: advects the face velocities of the shallow-water solver (and of the pipes with
// momentum advection) into `adv`, either momentum-conserving upwind (sim::advect, Stelling and
// Duinmeijer) or semi-Lagrangian (sim::swe). One invocation per (i, j) of the (nx+1)×(ny+1)
// lattice handles x-face (i, j) and y-face (i, j) where they exist.

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read> depth: array<f32>;
@group(0) @binding(3) var<storage, read> qx: array<f32>;
@group(0) @binding(4) var<storage, read> qy: array<f32>;
// Face velocities, two halves (momentum.wgsl).
@group(0) @binding(5) var<storage, read> vel: array<f32>;
@group(0) @binding(6) var<storage, read_write> adv: array<f32>;

// Momentum-conserving upwind advection over the sub-step's dt (momentum.wgsl).
@compute @workgroup_size(16, 16)
fn conservative(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (aux.ctl.running == 0u) {
        return;
    }
    let nx = grid.nx;
    let ny = grid.ny;
    let i = gid.x;
    let j = gid.y;
    let dt = aux.consts[aux.ctl.n].dt;
    let h = halves_of(aux.ctl.parity);
    if (i <= nx && j < ny) {
        adv[j * (nx + 1u) + i] = advect_u(i, j, h, dt);
    }
    if (i < nx && j <= ny) {
        adv[grid.half_qx + j * nx + i] = advect_v(i, j, h, dt);
    }
}

// The two samples either side of `i + o` along an axis of `n` samples and the weight of the
// second, clamped to the axis (grid.rs `tap`): the move is split into whole samples and a
// fraction before it meets the index, so a slow current far out on a large map is not
// rounded to the spacing of f32 there.
struct Tap {
    k0: u32,
    k1: u32,
    t: f32,
}

fn tap(i: u32, o_in: f32, n: u32) -> Tap {
    let o = clamp(o_in, -f32(n), f32(n));
    let whole = floor(o);
    let k = i32(i) + i32(whole);
    if (k < 0) {
        return Tap(0u, 0u, 0.0);
    }
    if (k >= i32(n) - 1) {
        return Tap(n - 1u, n - 1u, 0.0);
    }
    return Tap(u32(k), u32(k) + 1u, o - whole);
}

// Bilinear sample of the velocity array at `base` (w × h lattice) at lattice point (i, j)
// moved by (ox, oy), clamped (grid::bilinear_from).
fn bilinear(base: u32, w: u32, h: u32, i: u32, j: u32, ox: f32, oy: f32) -> f32 {
    let x = tap(i, ox, w);
    let y = tap(j, oy, h);
    let a = vel[base + y.k0 * w + x.k0] * (1.0 - x.t) + vel[base + y.k0 * w + x.k1] * x.t;
    let b = vel[base + y.k1 * w + x.k0] * (1.0 - x.t) + vel[base + y.k1 * w + x.k1] * x.t;
    return a * (1.0 - y.t) + b * y.t;
}

// Semi-Lagrangian back-tracing of both velocity components.
@compute @workgroup_size(16, 16)
fn semi_lagrangian(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (aux.ctl.running == 0u) {
        return;
    }
    let nx = grid.nx;
    let ny = grid.ny;
    let i = gid.x;
    let j = gid.y;
    let s = aux.consts[aux.ctl.n].s;
    let vh = halves_of(aux.ctl.parity).v;
    if (i <= nx && j < ny) {
        let uu = u_at(i, j, vh);
        let il = min(max(i, 1u) - 1u, nx - 1u);
        let ir = min(i, nx - 1u);
        let vv = 0.25 * (v_at(il, j, vh) + v_at(ir, j, vh) + v_at(il, j + 1u, vh) + v_at(ir, j + 1u, vh));
        adv[j * (nx + 1u) + i] = bilinear(vh, nx + 1u, ny, i, j, -(uu * s), -(vv * s));
    }
    if (i < nx && j <= ny) {
        let ja = min(max(j, 1u) - 1u, ny - 1u);
        let jb = min(j, ny - 1u);
        let vv = v_at(i, j, vh);
        let uu = 0.25 * (u_at(i, ja, vh) + u_at(i + 1u, ja, vh) + u_at(i, jb, vh) + u_at(i + 1u, jb, vh));
        adv[grid.half_qx + j * nx + i] = bilinear(vh + grid.half_qx, nx, ny + 1u, i, j, -(uu * s), -(vv * s));
    }
}
