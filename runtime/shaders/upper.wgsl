// Upper flow (Kellomäki 2014 §3.1, §3.4; sim::blocking::upper, owner runtime/src/gpu/blocking.rs):
// water standing on top of a raised body that sticks out of the water around it flows through
// the upper interfaces on its own, with its own discharges, so it stays on top and runs off the body's
// edges instead of joining the gap below. Runs after the blocked pass's `faces` and before its
// `surface`, over the same tiles and workgroups (tiles.wgsl):
//
// - `flow`: every face of a raised body's cell that sticks out of the water around it (its upper
//   water in the old half, the rain of the sub-step landing on it) joins that water to the other
//   side's water above the interface's floor: accelerated by the difference of the two heads with bed friction, at
//   most its section a step, each side's outflows scaled to the water it has. Writes each
//   output cell's depth change, its new upper water and the discharges of the faces it owns
//   (after it along x, below it along y) into the new halves.
// - `settle`: adds the depth changes; over a submerged body the gap and the water on top are
//   one again (the blocked faces carry the water over it).

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read> terrain: array<f32>;
@group(0) @binding(3) var<storage, read_write> depth: array<f32>;
@group(0) @binding(4) var<storage, read_write> blk: array<u32>;

// Per loaded cell: the bottom of the water that may pass (a blocker's top or the terrain), its
// top, what it may give in one step, its kind (see `flow`); the faces' discharges
// after and below it; its outflow-limiting factor.
var<workgroup> ufl: array<f32, 256>;
var<workgroup> utp: array<f32, 256>;
var<workgroup> uwa: array<f32, 256>;
var<workgroup> uop: array<u32, 256>;
var<workgroup> uqx: array<f32, 256>;
var<workgroup> uqy: array<f32, 256>;
var<workgroup> uk: array<f32, 256>;

// Discharge of the upper face owned by map cell (gi, gj) in half `half` (`y`: the face below
// it, else the one after it); none where its tile has no slot.
fn uq_at(gi: u32, gj: u32, y: u32, half: u32) -> f32 {
    let slot = blk[MAP0 + (gj / BO) * blk[H_TX] + gi / BO];
    if (slot == 0u) {
        return 0.0;
    }
    let o = (gj % BO) * BO + gi % BO;
    return fword(blk[H_SLOT0] + (slot - 1u) * SLOT_WORDS + S_UQ + half * 2u * OUT + 2u * o + y);
}

// Accelerated discharge of the upper face between workgroup cells l and r.
fn upper_face(l: u32, r: u32, q: f32, n2: f32, k: StepConsts) -> f32 {
    let z0 = max(ufl[l], ufl[r]);
    let pa = max(utp[l], z0);
    let pb = max(utp[r], z0);
    let section = max(pa, pb) - z0;
    if (section <= 0.0) {
        return 0.0;
    }
    let lim = section * k.vol_rate;
    let v = clamp(bed_q(q, k.g_dt * section * (pa - pb), section, n2, k), -lim, lim);
    return select(v, 0.0, is_bad(v));
}

// Whether the upper flow carries the face between cells of kinds `a` and `b` (see `flow`).
fn upper_pair(a: u32, b: u32) -> bool {
    return (a == 1u && b != 2u) || (b == 1u && a != 2u);
}

fn upper_limit(q: f32, k_left: f32, k_right: f32) -> f32 {
    return q * select(k_right, k_left, q > 0.0);
}

@compute @workgroup_size(256)
fn flow(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let at = locate(t, wid);
    if (!runs(t, at)) {
        return;
    }
    let sc = aux.consts[aux.ctl.n];
    let par = aux.ctl.parity;
    let nxt = (par ^ 1u) * grid.half_d;
    var floor = 0.0;
    var top = 0.0;
    var water = 0.0;
    // 1: an upper column kept apart; 2: any other stored cell (its water one column).
    var kind = 0u;
    var up = 0.0;
    if (at.inside) {
        let gi = u32(at.gi);
        let gj = u32(at.gj);
        let w = at.base + S_CELLS + 4u * t;
        let b = terrain[at.cell];
        let d = depth[nxt + at.cell];
        let c = fword(w);
        var wet = d;
        if (c > 0.0) {
            wet = max(d - latent_at(gi, gj), 0.0);
        }
        let zb = max(fword(w + 1u), b);
        let zt = max(fword(w + 2u), zb);
        if (c >= BLOCKED_COVER) {
            up = upper_at(gi, gj, par);
            let gap = zb - b;
            floor = zt;
            if (film(gap, surf_at(gi, gj, par), zt)) {
                kind = 1u;
                // Rain falls on the body's top, not into the gap under it.
                if (RAIN) {
                    up = min(up + sc.rain, wet);
                }
                top = zt + up;
                water = up;
            } else {
                // A submerged body or one resting on the terrain: its water is one column,
                // which the blocked faces carry (no upper face joins it).
                kind = 2u;
            }
        } else {
            floor = b;
            top = b + wet;
            if (c > 0.0) {
                top = partial_surface(c, zb, zt, b, wet);
            }
            water = wet;
        }
    }
    ufl[t] = floor;
    utp[t] = top;
    uwa[t] = water;
    uop[t] = kind;
    workgroupBarrier();

    // The faces this cell owns, where a side is an upper column and the other not a stored cell
    // of one column.
    let nx = grid.nx;
    var qx = 0.0;
    if (at.inside && at.lx + 1u < BT && at.gi + 1 < i32(nx) && upper_pair(kind, uop[t + 1u])) {
        let q = uq_at(u32(at.gi), u32(at.gj), 0u, par);
        qx = upper_face(t, t + 1u, q, face_n2(at.cell, at.cell + 1u), sc);
    }
    var qy = 0.0;
    if (at.inside && at.ly + 1u < BT && at.gj + 1 < i32(grid.ny) && upper_pair(kind, uop[t + BT])) {
        let q = uq_at(u32(at.gi), u32(at.gj), 1u, par);
        qy = upper_face(t, t + BT, q, face_n2(at.cell, at.cell + nx), sc);
    }
    uqx[t] = qx;
    uqy[t] = qy;
    workgroupBarrier();

    // Each cell gives at most the water it has (1 outside the map and on the tile's rim).
    let rim = at.lx == 0u || at.ly == 0u || at.lx + 1u == BT || at.ly + 1u == BT;
    var k = 1.0;
    if (at.inside && !rim) {
        let out = max(-uqx[t - 1u], 0.0) + max(qx, 0.0) + max(-uqy[t - BT], 0.0) + max(qy, 0.0);
        let vol = water * sc.vol_rate;
        k = select(1.0, vol / out, out > vol);
    }
    uk[t] = k;
    workgroupBarrier();
    if (!at.output) {
        return;
    }
    let fl = upper_limit(uqx[t - 1u], uk[t - 1u], k);
    let fr = upper_limit(qx, k, uk[t + 1u]);
    let ft = upper_limit(uqy[t - BT], uk[t - BT], k);
    let fb = upper_limit(qy, k, uk[t + BT]);
    let delta = (fl - fr + ft - fb) * sc.c;
    var next_up = 0.0;
    if (kind == 1u) {
        next_up = up + delta;
    }
    let half = (par ^ 1u);
    blk[at.base + S_UDELTA + at.o] = bitcast<u32>(delta);
    blk[at.base + S_UPPER + half * OUT + at.o] = bitcast<u32>(next_up);
    blk[at.base + S_UQ + half * 2u * OUT + 2u * at.o] = bitcast<u32>(fr);
    blk[at.base + S_UQ + half * 2u * OUT + 2u * at.o + 1u] = bitcast<u32>(fb);
}

@compute @workgroup_size(256)
fn settle(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let at = locate(t, wid);
    if (!runs(t, at)) {
        return;
    }
    if (!at.output) {
        return;
    }
    let par = aux.ctl.parity;
    let nxt = (par ^ 1u) * grid.half_d;
    let delta = fword(at.base + S_UDELTA + at.o);
    var d = depth[nxt + at.cell];
    if (delta != 0.0) {
        d = max(d + delta, 0.0);
        depth[nxt + at.cell] = d;
    }
    let w = at.base + S_CELLS + 4u * t;
    if (fword(w) < BLOCKED_COVER) {
        return;
    }
    // Over a submerged body the gap and the water on top are one: the gap full first, the rest
    // on top. Elsewhere the two stay apart; a body resting on the terrain keeps none apart.
    let uw = at.base + S_UPPER + (par ^ 1u) * OUT + at.o;
    let b = terrain[at.cell];
    let gap = max(fword(w + 1u), b) - b;
    let wet = max(d - fword(at.base + S_LATENT + at.o), 0.0);
    let zt = max(fword(w + 2u), b + gap);
    var up = clamp(fword(uw), 0.0, wet);
    if (gap <= 0.0) {
        up = 0.0;
    } else if (fword(at.base + S_SURF + par * OUT + at.o) >= zt) {
        up = max(wet - gap, 0.0);
    }
    blk[uw] = bitcast<u32>(up);
}
