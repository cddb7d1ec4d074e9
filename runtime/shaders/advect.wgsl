// Advection pass: advects the face velocities of the shallow-water solver (and of the pipes with
// momentum advection) into `adv`, either momentum-conserving upwind (sim::advect, Stelling and
// Duinmeijer) or semi-Lagrangian (sim::swe). One invocation per (i, j) of the (nx+1)×(ny+1)
// lattice handles x-face (i, j) and y-face (i, j) where they exist.

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read> depth: array<f32>;
@group(0) @binding(3) var<storage, read> qx: array<f32>;
@group(0) @binding(4) var<storage, read> qy: array<f32>;
// Face velocities: x-faces ((nx+1)·ny), then y-faces (nx·(ny+1)).
@group(0) @binding(5) var<storage, read> vel: array<f32>;
@group(0) @binding(6) var<storage, read_write> adv: array<f32>;

fn u_at(i: u32, j: u32) -> f32 {
    return vel[j * (grid.nx + 1u) + i];
}

fn v_at(i: u32, j: u32) -> f32 {
    return vel[grid.half_qx + j * grid.nx + i];
}

// Momentum-conserving upwind advection over the sub-step's dt.
@compute @workgroup_size(16, 16)
fn conservative(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (aux.ctl.running == 0u) {
        return;
    }
    let nx = grid.nx;
    let ny = grid.ny;
    let i = gid.x;
    let j = gid.y;
    let w = nx + 1u;
    let sc = aux.consts[aux.ctl.n];
    let inv = grid.inv_dx;
    let dh = aux.ctl.parity * grid.half_d;
    let xh = aux.ctl.parity * grid.half_qx;
    let yh = aux.ctl.parity * grid.half_qy;
    if (i <= nx && j < ny) {
        let uu = u_at(i, j);
        var r = uu;
        if (i > 0u && i < nx) {
            let hbar = 0.5 * (depth[dh + j * nx + i - 1u] + depth[dh + j * nx + i]);
            if (hbar > DRY) {
                let q0 = qx[xh + j * w + i - 1u] * inv;
                let q1 = qx[xh + j * w + i] * inv;
                let q2 = qx[xh + j * w + i + 1u] * inv;
                let ql = 0.5 * (q0 + q1);
                let qr = 0.5 * (q1 + q2);
                let ul = select(uu, u_at(i - 1u, j), ql > 0.0);
                let ur = select(u_at(i + 1u, j), uu, qr > 0.0);
                let ax = qr * ur - ql * ul - uu * (qr - ql);
                let qt = 0.5 * (qy[yh + j * nx + i - 1u] * inv + qy[yh + j * nx + i] * inv);
                let qb = 0.5 * (qy[yh + (j + 1u) * nx + i - 1u] * inv + qy[yh + (j + 1u) * nx + i] * inv);
                var ut = uu;
                if (qt > 0.0 && j > 0u) {
                    ut = u_at(i, j - 1u);
                }
                var ub = uu;
                if (qb <= 0.0 && j + 1u < ny) {
                    ub = u_at(i, j + 1u);
                }
                let ay = qb * ub - qt * ut - uu * (qb - qt);
                r = uu - sc.dt * inv * (ax + ay) / hbar;
            }
        }
        adv[j * w + i] = r;
    }
    if (i < nx && j <= ny) {
        let vv = v_at(i, j);
        var r = vv;
        if (j > 0u && j < ny) {
            let hbar = 0.5 * (depth[dh + (j - 1u) * nx + i] + depth[dh + j * nx + i]);
            if (hbar > DRY) {
                let q0 = qy[yh + (j - 1u) * nx + i] * inv;
                let q1 = qy[yh + j * nx + i] * inv;
                let q2 = qy[yh + (j + 1u) * nx + i] * inv;
                let qt = 0.5 * (q0 + q1);
                let qb = 0.5 * (q1 + q2);
                let vt = select(vv, v_at(i, j - 1u), qt > 0.0);
                let vb = select(v_at(i, j + 1u), vv, qb > 0.0);
                let ay = qb * vb - qt * vt - vv * (qb - qt);
                let ql = 0.5 * (qx[xh + (j - 1u) * w + i] * inv + qx[xh + j * w + i] * inv);
                let qr = 0.5 * (qx[xh + (j - 1u) * w + i + 1u] * inv + qx[xh + j * w + i + 1u] * inv);
                var vl = vv;
                if (ql > 0.0 && i > 0u) {
                    vl = v_at(i - 1u, j);
                }
                var vr = vv;
                if (qr <= 0.0 && i + 1u < nx) {
                    vr = v_at(i + 1u, j);
                }
                let ax = qr * vr - ql * vl - vv * (qr - ql);
                r = vv - sc.dt * inv * (ax + ay) / hbar;
            }
        }
        adv[grid.half_qx + j * nx + i] = r;
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
    if (i <= nx && j < ny) {
        let uu = u_at(i, j);
        let il = min(max(i, 1u) - 1u, nx - 1u);
        let ir = min(i, nx - 1u);
        let vv = 0.25 * (v_at(il, j) + v_at(ir, j) + v_at(il, j + 1u) + v_at(ir, j + 1u));
        adv[j * (nx + 1u) + i] = bilinear(0u, nx + 1u, ny, f32(i) - uu * s, f32(j) - vv * s);
    }
    if (i < nx && j <= ny) {
        let ja = min(max(j, 1u) - 1u, ny - 1u);
        let jb = min(j, ny - 1u);
        let vv = v_at(i, j);
        let uu = 0.25 * (u_at(i, ja) + u_at(i + 1u, ja) + u_at(i, jb) + u_at(i + 1u, jb));
        adv[grid.half_qx + j * nx + i] = bilinear(grid.half_qx, nx, ny + 1u, f32(i) - uu * s, f32(j) - vv * s);
    }
}
