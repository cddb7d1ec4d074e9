// Face velocities: reading them, advecting them (momentum-conserving upwind, sim::advect, Stelling
// and Duinmeijer) and making them from limited discharges (sim::swe::Velocities::store). Shared
// by the advection pass, the store pass and the flow pass (whose fused variant, fused.wgsl,
// advects from workgroup memory), which each declare `grid`, `depth`, `qx`, `qy` and `vel`
// (read-only or not). `vel` holds two halves of `grid.half_qx +
// grid.half_qy` velocities, x-faces ((nx+1)·ny) then y-faces (nx·(ny+1)); the state's parity
// picks the current one, as for depth and discharges.

// Element offsets of the current halves of depth, discharges and velocities.
struct StateHalves {
    d: u32,
    qx: u32,
    qy: u32,
    v: u32,
}

// The halves of parity `p`.
fn halves_of(p: u32) -> StateHalves {
    return StateHalves(p * grid.half_d, p * grid.half_qx, p * grid.half_qy, p * (grid.half_qx + grid.half_qy));
}

fn u_at(i: u32, j: u32, vh: u32) -> f32 {
    return vel[vh + j * (grid.nx + 1u) + i];
}

fn v_at(i: u32, j: u32, vh: u32) -> f32 {
    return vel[vh + grid.half_qx + j * grid.nx + i];
}

// Velocity of x-face (i, j) advected over `dt` (the border faces keep theirs), from the values
// around it: its own velocity `uu`, those of the faces left, right, above and below it, the
// depths of its two cells, the discharges of the x-faces left of, at and right of it, and of the
// y-faces above (t) and below (b) its two cells. The advection pass loads them from memory
// (advect_u), the fused flow pass from workgroup memory; both compute the same expressions.
fn advect_u_of(i: u32, j: u32, uu: f32, u_l: f32, u_r: f32, u_t: f32, u_b: f32, h_l: f32, h_r: f32,
               q_l: f32, q_c: f32, q_r: f32, t_l: f32, t_r: f32, b_l: f32, b_r: f32, dt: f32) -> f32 {
    if (i == 0u || i >= grid.nx) {
        return uu;
    }
    let hbar = 0.5 * (h_l + h_r);
    if (hbar <= DRY) {
        return uu;
    }
    let inv = grid.inv_dx;
    let q0 = q_l * inv;
    let q1 = q_c * inv;
    let q2 = q_r * inv;
    let ql = 0.5 * (q0 + q1);
    let qr = 0.5 * (q1 + q2);
    let ul = select(uu, u_l, ql > 0.0);
    let ur = select(u_r, uu, qr > 0.0);
    let ax = qr * ur - ql * ul - uu * (qr - ql);
    let qt = 0.5 * (t_l * inv + t_r * inv);
    let qb = 0.5 * (b_l * inv + b_r * inv);
    var ut = uu;
    if (qt > 0.0 && j > 0u) {
        ut = u_t;
    }
    var ub = uu;
    if (qb <= 0.0 && j + 1u < grid.ny) {
        ub = u_b;
    }
    let ay = qb * ub - qt * ut - uu * (qb - qt);
    return uu - dt * inv * (ax + ay) / hbar;
}

// Velocity of y-face (i, j) advected over `dt` (the border faces keep theirs), from its own
// velocity `vv`, those of the faces above, below, left and right of it, the depths of its two
// cells, the discharges of the y-faces above, at and below it, and of the x-faces left (l) and
// right (r) of its two cells; as advect_u_of.
fn advect_v_of(i: u32, j: u32, vv: f32, v_t: f32, v_b: f32, v_l: f32, v_r: f32, h_t: f32, h_b: f32,
               q_t: f32, q_c: f32, q_b: f32, l_t: f32, l_b: f32, r_t: f32, r_b: f32, dt: f32) -> f32 {
    if (j == 0u || j >= grid.ny) {
        return vv;
    }
    let hbar = 0.5 * (h_t + h_b);
    if (hbar <= DRY) {
        return vv;
    }
    let inv = grid.inv_dx;
    let q0 = q_t * inv;
    let q1 = q_c * inv;
    let q2 = q_b * inv;
    let qt = 0.5 * (q0 + q1);
    let qb = 0.5 * (q1 + q2);
    let vt = select(vv, v_t, qt > 0.0);
    let vb = select(v_b, vv, qb > 0.0);
    let ay = qb * vb - qt * vt - vv * (qb - qt);
    let ql = 0.5 * (l_t * inv + l_b * inv);
    let qr = 0.5 * (r_t * inv + r_b * inv);
    var vl = vv;
    if (ql > 0.0 && i > 0u) {
        vl = v_l;
    }
    var vr = vv;
    if (qr <= 0.0 && i + 1u < grid.nx) {
        vr = v_r;
    }
    let ax = qr * vr - ql * vl - vv * (qr - ql);
    return vv - dt * inv * (ax + ay) / hbar;
}

// Velocity of x-face (i, j) advected over `dt`, its neighbours read from memory.
fn advect_u(i: u32, j: u32, h: StateHalves, dt: f32) -> f32 {
    let nx = grid.nx;
    let w = nx + 1u;
    let uu = u_at(i, j, h.v);
    if (i == 0u || i >= nx) {
        return uu;
    }
    let up = select(j, j - 1u, j > 0u);
    let down = select(j, j + 1u, j + 1u < grid.ny);
    return advect_u_of(i, j, uu, u_at(i - 1u, j, h.v), u_at(i + 1u, j, h.v), u_at(i, up, h.v),
        u_at(i, down, h.v), depth[h.d + j * nx + i - 1u], depth[h.d + j * nx + i],
        qx[h.qx + j * w + i - 1u], qx[h.qx + j * w + i], qx[h.qx + j * w + i + 1u],
        qy[h.qy + j * nx + i - 1u], qy[h.qy + j * nx + i], qy[h.qy + (j + 1u) * nx + i - 1u],
        qy[h.qy + (j + 1u) * nx + i], dt);
}

// Velocity of y-face (i, j) advected over `dt`, its neighbours read from memory.
fn advect_v(i: u32, j: u32, h: StateHalves, dt: f32) -> f32 {
    let nx = grid.nx;
    let w = nx + 1u;
    let vv = v_at(i, j, h.v);
    if (j == 0u || j >= grid.ny) {
        return vv;
    }
    let left = select(i, i - 1u, i > 0u);
    let right = select(i, i + 1u, i + 1u < nx);
    return advect_v_of(i, j, vv, v_at(i, j - 1u, h.v), v_at(i, j + 1u, h.v), v_at(left, j, h.v),
        v_at(right, j, h.v), depth[h.d + (j - 1u) * nx + i], depth[h.d + j * nx + i],
        qy[h.qy + (j - 1u) * nx + i], qy[h.qy + j * nx + i], qy[h.qy + (j + 1u) * nx + i],
        qx[h.qx + (j - 1u) * w + i], qx[h.qx + j * w + i], qx[h.qx + (j - 1u) * w + i + 1u],
        qx[h.qx + j * w + i + 1u], dt);
}

// A face's velocity from its limited discharge `q` and the depths on its two sides (x), and
// whether it counts toward the CFL speed (y: 1 or 0). A film's face is held to the step's stable
// speed, cfl·dx/dt.
fn face_vel(q: f32, dl: f32, dr: f32) -> vec2<f32> {
    let h = select(dr, dl, q > 0.0);
    if (h <= DRY) {
        return vec2<f32>(0.0, 0.0);
    }
    let u = q / (h * grid.dx);
    if (h < FILM) {
        let cap = grid.cfl * grid.dx / grid.dt;
        return vec2<f32>(clamp(u, -cap, cap), 0.0);
    }
    return vec2<f32>(u, 1.0);
}

// A border face's velocity from its discharge and its cell's depth.
fn border_vel(q: f32, d: f32) -> vec2<f32> {
    return select(vec2<f32>(0.0, 0.0), vec2<f32>(q / (d * grid.dx), 1.0), d > BORDER_FILM);
}
