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

// Bilinear sample of the velocity array at `base` (w × h lattice) at (x, y), clamped
// (grid::bilinear).
fn bilinear(base: u32, w: u32, h: u32, xin: f32, yin: f32) -> f32 {
    let x = clamp(xin, 0.0, f32(w - 1u));
    let y = clamp(yin, 0.0, f32(h - 1u));
    let x0 = min(u32(floor(x)), w - 2u);
    let y0 = min(u32(floor(y)), h - 2u);
    let x1 = min(x0 + 1u, w - 1u);
    let y1 = min(y0 + 1u, h - 1u);
    let tx = x - f32(x0);
    let ty = y - f32(y0);
    let a = vel[base + y0 * w + x0] * (1.0 - tx) + vel[base + y0 * w + x1] * tx;
    let b = vel[base + y1 * w + x0] * (1.0 - tx) + vel[base + y1 * w + x1] * tx;
    return a * (1.0 - ty) + b * ty;
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
        adv[j * (nx + 1u) + i] = bilinear(vh, nx + 1u, ny, f32(i) - uu * s, f32(j) - vv * s);
    }
    if (i < nx && j <= ny) {
        let ja = min(max(j, 1u) - 1u, ny - 1u);
        let jb = min(j, ny - 1u);
        let vv = v_at(i, j, vh);
        let uu = 0.25 * (u_at(i, ja, vh) + u_at(i + 1u, ja, vh) + u_at(i, jb, vh) + u_at(i + 1u, jb, vh));
        adv[grid.half_qx + j * nx + i] = bilinear(vh + grid.half_qx, nx, ny + 1u, f32(i) - uu * s, f32(j) - vv * s);
    }
}
