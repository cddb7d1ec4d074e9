// Face velocities: reading them, advecting them (momentum-conserving upwind, sim::advect, Stelling
// and Duinmeijer) and making them from limited discharges (sim::swe::Velocities::store). Shared
// by the advection pass, the store pass, the fused flow pass and the pair pass, which each
// declare `grid`, `aux`, `depth`, `qx`, `qy` and `vel` (read-only or not). `vel` holds two
// halves of `grid.half_qx + grid.half_qy` velocities, x-faces ((nx+1)·ny) then y-faces
// (nx·(ny+1)); the state's parity picks the current one, as for depth and discharges.

// LATE_SUM (declared by the including pass) sums each advection's terms only once every
// neighbour is loaded (`advected`), as the pair pass's stage B does from registers; the other
// passes sum the first term before loading the rest. Same values; the compiler schedules each
// pass best its own way (one H100, the default physics at 4096²: the fused flow pass 32.11
// Gcell/s summing early against 30.06 late; the pair pass 37.96 late against 34.78 early).

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

// Velocity of x-face (i, j) advected over `dt` (the border faces keep theirs).
fn advect_u(i: u32, j: u32, h: StateHalves, dt: f32) -> f32 {
    let nx = grid.nx;
    let ny = grid.ny;
    let w = nx + 1u;
    let inv = grid.inv_dx;
    let uu = u_at(i, j, h.v);
    if (i == 0u || i >= nx) {
        return uu;
    }
    let hbar = 0.5 * (depth[h.d + j * nx + i - 1u] + depth[h.d + j * nx + i]);
    if (hbar <= DRY) {
        return uu;
    }
    let q0 = qx[h.qx + j * w + i - 1u] * inv;
    let q1 = qx[h.qx + j * w + i] * inv;
    let q2 = qx[h.qx + j * w + i + 1u] * inv;
    let ql = 0.5 * (q0 + q1);
    let qr = 0.5 * (q1 + q2);
    let ul = select(uu, u_at(i - 1u, j, h.v), ql > 0.0);
    let ur = select(u_at(i + 1u, j, h.v), uu, qr > 0.0);
    let ax = qr * ur - ql * ul - uu * (qr - ql);
    let qt = 0.5 * (qy[h.qy + j * nx + i - 1u] * inv + qy[h.qy + j * nx + i] * inv);
    let qb = 0.5 * (qy[h.qy + (j + 1u) * nx + i - 1u] * inv + qy[h.qy + (j + 1u) * nx + i] * inv);
    var ut = uu;
    if (qt > 0.0 && j > 0u) {
        ut = u_at(i, j - 1u, h.v);
    }
    var ub = uu;
    if (qb <= 0.0 && j + 1u < ny) {
        ub = u_at(i, j + 1u, h.v);
    }
    if (LATE_SUM) {
        return advected(uu, vec4<f32>(ul, ur, ut, ub), vec4<f32>(ql, qr, qt, qb), hbar, dt);
    }
    let ay = qb * ub - qt * ut - uu * (qb - qt);
    return uu - dt * inv * (ax + ay) / hbar;
}

// A face velocity `w` advected over `dt` from its upwind neighbours `up` along the face's
// normal (behind, ahead) and across it (before, after), the mean discharges per metre `q` at
// the same four places and the mean depth `hbar` of its two cells (advect_u, advect_v; the pair
// pass gives them from registers).
fn advected(w: f32, up: vec4<f32>, q: vec4<f32>, hbar: f32, dt: f32) -> f32 {
    let a_along = q.y * up.y - q.x * up.x - w * (q.y - q.x);
    let a_across = q.w * up.w - q.z * up.z - w * (q.w - q.z);
    return w - dt * grid.inv_dx * (a_along + a_across) / hbar;
}

// Velocity of y-face (i, j) advected over `dt` (the border faces keep theirs).
fn advect_v(i: u32, j: u32, h: StateHalves, dt: f32) -> f32 {
    let nx = grid.nx;
    let ny = grid.ny;
    let w = nx + 1u;
    let inv = grid.inv_dx;
    let vv = v_at(i, j, h.v);
    if (j == 0u || j >= ny) {
        return vv;
    }
    let hbar = 0.5 * (depth[h.d + (j - 1u) * nx + i] + depth[h.d + j * nx + i]);
    if (hbar <= DRY) {
        return vv;
    }
    let q0 = qy[h.qy + (j - 1u) * nx + i] * inv;
    let q1 = qy[h.qy + j * nx + i] * inv;
    let q2 = qy[h.qy + (j + 1u) * nx + i] * inv;
    let qt = 0.5 * (q0 + q1);
    let qb = 0.5 * (q1 + q2);
    let vt = select(vv, v_at(i, j - 1u, h.v), qt > 0.0);
    let vb = select(v_at(i, j + 1u, h.v), vv, qb > 0.0);
    let ay = qb * vb - qt * vt - vv * (qb - qt);
    let ql = 0.5 * (qx[h.qx + (j - 1u) * w + i] * inv + qx[h.qx + j * w + i] * inv);
    let qr = 0.5 * (qx[h.qx + (j - 1u) * w + i + 1u] * inv + qx[h.qx + j * w + i + 1u] * inv);
    var vl = vv;
    if (ql > 0.0 && i > 0u) {
        vl = v_at(i - 1u, j, h.v);
    }
    var vr = vv;
    if (qr <= 0.0 && i + 1u < nx) {
        vr = v_at(i + 1u, j, h.v);
    }
    if (LATE_SUM) {
        return advected(vv, vec4<f32>(vt, vb, vl, vr), vec4<f32>(qt, qb, ql, qr), hbar, dt);
    }
    let ax = qr * vr - ql * vl - vv * (qr - ql);
    return vv - dt * inv * (ax + ay) / hbar;
}

// A face's velocity from its limited discharge `q` and the depths on its two sides (x), and
// whether it counts toward the CFL speed (y: 1 or 0). A film's face is held to one cell a
// sub-step of `dt` seconds, dx / dt (sim::Simulation's film cap).
fn face_vel(q: f32, dl: f32, dr: f32, dt: f32) -> vec2<f32> {
    let h = select(dr, dl, q > 0.0);
    if (h <= DRY) {
        return vec2<f32>(0.0, 0.0);
    }
    let u = q / (h * grid.dx);
    if (h < FILM) {
        let cap = grid.dx / dt;
        return vec2<f32>(clamp(u, -cap, cap), 0.0);
    }
    return vec2<f32>(u, 1.0);
}

// A border face's velocity from its discharge and its cell's depth.
fn border_vel(q: f32, d: f32) -> vec2<f32> {
    return select(vec2<f32>(0.0, 0.0), vec2<f32>(q / (d * grid.dx), 1.0), d > BORDER_FILM);
}
