// Blocked pass: two-layer blocking of both solvers (Kellomäki 2014 §3, sim::blocking), run
// only while blockers are set. The plain flow pass runs untouched; around the bodies this pass
// redoes its work with the blocked face rule:
//
// - `save` (before the flow pass): keeps the carry of the cells it will redo (the flow pass
//   overwrites carry in place), releases a share alpha of the latent water and holds out the
//   water a body takes since the last sub-step (§3.3), and starts the effective surface of
//   newly stored cells.
// - `faces` (after the flow pass): recomputes every face touching a cell next to a covered one
//   (blocked rule where a side is covered, plain pipes elsewhere), the outflow limits of those
//   cells, the limited faces and the depth and carry of every cell they touch; faces farther
//   away keep the flow pass's values, which are the same as the blocked solver's there.
// - `surface` (after `faces`): the effective surface of stored cells (kappa blur, §3.6).
//
// Work is split in tiles of 12 × 12 cells around the covered ones (a 2-cell halo around the
// bodies' cells always lies inside the tiles); one 16 × 16 workgroup per tile loads the tile and
// a 2-cell halo. The `blk` buffer holds a header, a map tile → slot + 1, then per slot: the tile,
// the blocker columns of its 16 × 16 cells (cover, bottom, top, flags), the effective surface of
// its 12 × 12 cells (two halves, by state parity) and their saved carry.

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read> terrain: array<f32>;
@group(0) @binding(3) var<storage, read_write> depth: array<f32>;
@group(0) @binding(4) var<storage, read_write> qx: array<f32>;
@group(0) @binding(5) var<storage, read_write> qy: array<f32>;
@group(0) @binding(6) var<storage, read_write> carry: array<f32>;
@group(0) @binding(7) var<storage, read_write> blk: array<u32>;
@group(0) @binding(8) var<storage, read> adv: array<f32>;

// The tile layout of `blk` (BT, BO, OUT, H_*, S_*, ...) is in blockers.wgsl.
// Stands for infinity in the band of a face (WGSL has no infinity literal).
const BIG: f32 = 3.0e38;

var<workgroup> wb: array<f32, 256>;
var<workgroup> wd: array<f32, 256>;
// Depth less latent water: the water that takes part in the flow.
var<workgroup> ww: array<f32, 256>;
var<workgroup> ws: array<f32, 256>;
// Upper water of stored cells.
var<workgroup> wup: array<f32, 256>;
var<workgroup> wc: array<f32, 256>;
var<workgroup> wzb: array<f32, 256>;
var<workgroup> wzt: array<f32, 256>;
var<workgroup> wax: array<f32, 256>;
var<workgroup> way: array<f32, 256>;
var<workgroup> wk: array<f32, 256>;
var<workgroup> wm: array<u32, 256>;

// Depth of water a body over the share `c` of a cell between `zb` and `zt` takes below the
// surface `h` (sim::blocking::Blocking::taken).
fn taken(c: f32, zb: f32, zt: f32, h: f32) -> f32 {
    if (c <= 0.0) {
        return 0.0;
    }
    return min(c, 1.0) * max(min(h, zt) - zb, 0.0);
}

@compute @workgroup_size(256)
fn save(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let at = locate(t, wid);
    if (!runs(t, at)) {
        return;
    }
    if (!at.output) {
        return;
    }
    blk[at.base + S_CARRY + at.o] = bitcast<u32>(carry[at.cell]);
    let par = aux.ctl.parity;
    let w = at.base + S_CELLS + 4u * t;
    let b = terrain[at.cell];
    let d = depth[par * grid.half_d + at.cell];
    // Latent water: the share alpha of the last sub-step rejoins the flow; then the water the
    // body takes since the columns last applied is held out (sim::blocking::Blocking::fill).
    let ap = at.base + S_APPLIED + 3u * at.o;
    let lw = at.base + S_LATENT + at.o;
    let c0 = fword(ap);
    let zb0 = fword(ap + 1u);
    let zt0 = fword(ap + 2u);
    var lat = min(fword(lw) * (1.0 - fword(H_ALPHA)), d);
    let c1 = fword(w);
    let zb1 = max(fword(w + 1u), b);
    let zt1 = max(fword(w + 2u), zb1);
    // The water holds the body already (a bake loaded, a moment restored): it takes as much
    // as it had (sim::blocking::Blocking::fill).
    // Only where no column applied before, as the CPU's (a body moved by a state set over
    // cells it covered adjusts their water as any move does).
    let settled = (blk[w + 3u] & FLAG_SETTLED) != 0u && c0 <= 0.0;
    if (c1 != c0 || zb1 != zb0 || zt1 != zt0) {
        var h = b + d;
        if (c0 >= BLOCKED_COVER) {
            h = fword(at.base + S_SURF + par * OUT + at.o);
        } else if (c0 > 0.0) {
            h = partial_surface(c0, zb0, zt0, b, max(d - lat, 0.0));
        }
        if (!settled) {
            lat = clamp(lat + taken(c1, zb1, zt1, h) - taken(c0, zb0, zt0, h), 0.0, d);
        }
        blk[ap] = bitcast<u32>(c1);
        blk[ap + 1u] = bitcast<u32>(zb1);
        blk[ap + 2u] = bitcast<u32>(zt1);
    }
    if (c1 <= 0.0) {
        lat = 0.0;
    }
    blk[lw] = bitcast<u32>(lat);
    if (c1 >= BLOCKED_COVER) {
        // Water on top of a raised body never exceeds the cell's water in the flow; a body
        // resting on the terrain keeps none apart (sim::blocking::Blocking::fill).
        let uw = at.base + S_UPPER + par * OUT + at.o;
        var up = min(fword(uw), max(d - lat, 0.0));
        if (settled && (blk[w + 3u] & FLAG_INIT) != 0u) {
            // What stands over a raised body the water already holds is on top of it.
            up = max(d - lat - (zb1 - b), 0.0);
        }
        if (zb1 <= b) {
            up = 0.0;
        }
        blk[uw] = bitcast<u32>(up);
    }
    if ((blk[w + 3u] & FLAG_INIT) != 0u) {
        // A newly stored cell starts from its surface without the body (with it, where the
        // water holds it already).
        var s = b + d;
        if (settled) {
            s = partial_surface(min(c1, 1.0), zb1, zt1, b, max(d - lat, 0.0));
        }
        blk[at.base + S_SURF + par * OUT + at.o] = bitcast<u32>(s);
    }
    blk[w + 3u] = blk[w + 3u] & ~(FLAG_INIT | FLAG_SETTLED);
}

// The water of one cell as the blocked faces see it (sim::blocking::Column).
// `d` is the water in the flow, `up` the part of it in the upper column; `raised`: a raised body
// sticking out of the water around it, whose water on top flows in upper.wgsl (except toward a
// `joined` cell: any other stored cell, whose water is one column).
struct Col {
    p_low: f32,
    t_low: f32,
    up: f32,
    has_up: bool,
    raised: bool,
    joined: bool,
}

fn column(c: f32, zb: f32, zt: f32, b: f32, d: f32, up: f32, s: f32) -> Col {
    if (c < BLOCKED_COVER) {
        var h = b + d;
        if (c > 0.0) {
            h = partial_surface(c, zb, zt, b, d);
        }
        return Col(h, h, h, true, false, false);
    }
    let gap = zb - b;
    if (film(gap, s, zt)) {
        // Water on top is the upper column's (upper.wgsl); the gap holds the rest.
        let lower = d - up;
        if (lower <= gap) {
            return Col(b + lower, b + lower, zt, false, true, false);
        }
        return Col(max(s, zb) + max(lower - gap, 0.0), zb, zt, false, true, false);
    }
    if (d <= gap) {
        return Col(b + d, b + d, zt, false, false, true);
    }
    let e = d - gap;
    return Col(max(s, zb), zb, zt + e, e > 0.0, false, true);
}

fn col_top(c: Col) -> f32 {
    return select(c.t_low, max(c.t_low, c.up), c.has_up);
}

// Old discharge of an interior face from its input (pipes: the discharge; pipes with
// advection and shallow water: the advected velocity times the upwind depth, zero across a
// dry face).
fn face_q(v: f32, bl: f32, br: f32, dl: f32, dr: f32) -> f32 {
    if (MODE != MODE_PIPES) {
        let wet = max(max(bl + dl, br + dr) - max(bl, br), 0.0) > 0.0;
        return v * select(0.0, select(dr, dl, v > 0.0), wet) * grid.dx;
    }
    return v;
}

// Accelerated discharge of the interior face between workgroup cells l and r, old input v,
// Manning n² n2.
fn accelerate(v: f32, l: u32, r: u32, n2: f32, k: StepConsts) -> f32 {
    let bl = wb[l];
    let br = wb[r];
    let dl = wd[l];
    let dr = wd[r];
    let q = face_q(v, bl, br, dl, dr);
    let cl = wc[l];
    let cr = wc[r];
    if (cl <= 0.0 && cr <= 0.0) {
        let hl = bl + dl;
        let hr = br + dr;
        let hf = max(max(hl, hr) - max(bl, br), 0.0);
        if (MODE == MODE_SWE) {
            // The shallow-water face, as the flow pass has it (v: the advected velocity).
            if (hf <= DRY) {
                return 0.0;
            }
            let u = bed(v, k.g_dt * (hl - hr) / grid.dx, abs(v), hf, n2, k);
            return u * select(dr, dl, u > 0.0) * grid.dx;
        }
        return bed_q(q, k.g_dt * section(hl, hr, dl, dr, bl, br) * (hl - hr), hf, n2, k);
    }
    // The blocked rule (sim::blocking::Blocking::face).
    let a = column(cl, wzb[l], wzt[l], bl, ww[l], wup[l], ws[l]);
    let b = column(cr, wzb[r], wzt[r], br, ww[r], wup[r], ws[r]);
    let zb = min(select(BIG, wzb[l], cl > 0.0), select(BIG, wzb[r], cr > 0.0));
    let zt = max(select(-BIG, wzt[l], cl > 0.0), select(-BIG, wzt[r], cr > 0.0));
    let w = min(cl + cr, 1.0);
    let z0 = max(bl, br);
    let a_low = max(min(max(a.t_low, b.t_low), zb) - z0, 0.0);
    // Over a raised body sticking out of the water, the upper interface is upper.wgsl's (toward
    // a stored cell of one column it stays this face's).
    var a_up = max(max(a.up, b.up) - max(zt, z0), 0.0);
    if ((a.raised && !b.joined) || (b.raised && !a.joined)) {
        a_up = 0.0;
    }
    let a_open = max(max(col_top(a), col_top(b)) - z0, 0.0);
    let drive = w * (a_low * (a.p_low - b.p_low) + a_up * (a.up - b.up))
        + (1.0 - w) * a_open * (a.p_low - b.p_low);
    let sect = w * (a_low + a_up) + (1.0 - w) * a_open;
    let lim = sect * k.vol_rate;
    return clamp(bed_q(q, k.g_dt * drive, sect, n2, k), -lim, lim);
}

fn limit(q: f32, k_up_left: f32, k_down_right: f32) -> f32 {
    return q * select(k_down_right, k_up_left, q > 0.0);
}

// Loads the tile's cells (old state) into workgroup memory.
fn load(t: u32, at: At, par: u32) {
    var b = 0.0;
    var d = 0.0;
    var c = 0.0;
    var zb = 0.0;
    var zt = 0.0;
    var s = 0.0;
    var wet = 0.0;
    var up = 0.0;
    if (at.inside) {
        let w = at.base + S_CELLS + 4u * t;
        b = terrain[at.cell];
        d = depth[par * grid.half_d + at.cell];
        c = fword(w);
        zb = max(fword(w + 1u), b);
        zt = max(fword(w + 2u), zb);
        s = b + d;
        wet = d;
        if (c > 0.0) {
            wet = max(d - latent_at(u32(at.gi), u32(at.gj)), 0.0);
        }
        if (c >= BLOCKED_COVER) {
            s = surf_at(u32(at.gi), u32(at.gj), par);
            up = upper_at(u32(at.gi), u32(at.gj), par);
        } else if (c > 0.0) {
            s = partial_surface(c, zb, zt, b, wet);
        }
    }
    wb[t] = b;
    wd[t] = d;
    ww[t] = wet;
    wc[t] = c;
    wzb[t] = zb;
    wzt[t] = zt;
    ws[t] = s;
    wup[t] = up;
}

@compute @workgroup_size(256)
fn faces(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let at = locate(t, wid);
    if (!runs(t, at)) {
        return;
    }
    let nx = grid.nx;
    let ny = grid.ny;
    let inx = i32(nx);
    let iny = i32(ny);
    let sc = aux.consts[aux.ctl.n];
    let par = aux.ctl.parity;
    let cur_qx = par * grid.half_qx;
    let cur_qy = par * grid.half_qy;
    let nxt_d = (par ^ 1u) * grid.half_d;
    let nxt_qx = (par ^ 1u) * grid.half_qx;
    let nxt_qy = (par ^ 1u) * grid.half_qy;
    load(t, at, par);
    workgroupBarrier();

    // Accelerated faces: the x-face right of this cell and the y-face below it.
    let gi = at.gi;
    let gj = at.gj;
    var ax = 0.0;
    if (at.lx + 1u < BT && gj >= 0 && gj < iny && gi >= -1 && gi < inx) {
        let row = u32(gj);
        if (gi == -1) {
            ax = aux.faces[row];
        } else if (gi + 1 == inx) {
            ax = aux.faces[ny + row];
        } else {
            let f = row * (nx + 1u) + u32(gi) + 1u;
            var v = qx[cur_qx + f];
            if (MODE != MODE_PIPES) {
                v = adv[f];
            }
            let l = row * nx + u32(gi);
            ax = accelerate(v, t, t + 1u, face_n2(l, l + 1u), sc);
        }
    }
    var ay = 0.0;
    if (at.ly + 1u < BT && gi >= 0 && gi < inx && gj >= -1 && gj < iny) {
        let col = u32(gi);
        if (gj == -1) {
            ay = aux.faces[2u * ny + col];
        } else if (gj + 1 == iny) {
            ay = aux.faces[2u * ny + nx + col];
        } else {
            let f = (u32(gj) + 1u) * nx + col;
            var v = qy[cur_qy + f];
            if (MODE != MODE_PIPES) {
                v = adv[grid.half_qx + f];
            }
            let l = u32(gj) * nx + col;
            ay = accelerate(v, t, t + BT, face_n2(l, l + nx), sc);
        }
    }
    wax[t] = ax;
    way[t] = ay;
    workgroupBarrier();

    // Outflow-limiting factor (1 outside the map and on the tile's rim), and whether the cell
    // is next to a covered one (its factor may differ from the flow pass's).
    let rim = at.lx == 0u || at.ly == 0u || at.lx + 1u == BT || at.ly + 1u == BT;
    var k = 1.0;
    var near = 0u;
    if (at.inside && !rim) {
        let out = max(-wax[t - 1u], 0.0) + max(ax, 0.0) + max(-way[t - BT], 0.0) + max(ay, 0.0);
        let vol = wd[t] * sc.vol_rate;
        k = select(1.0, vol / out, out > vol);
        let cov = wc[t] > 0.0 || wc[t - 1u] > 0.0 || wc[t + 1u] > 0.0 || wc[t - BT] > 0.0
            || wc[t + BT] > 0.0;
        near = select(0u, 1u, cov);
    }
    wk[t] = k;
    wm[t] = near;
    workgroupBarrier();
    if (!at.output) {
        return;
    }

    // Limited faces: recomputed where a side is next to a covered cell, else the flow pass's.
    let me = wm[t] != 0u;
    let fxl = u32(gj) * (nx + 1u) + u32(gi);
    let fyt = u32(gj) * nx + u32(gi);
    let fyb = fyt + nx;
    let rl = me || wm[t - 1u] != 0u;
    let rr = me || wm[t + 1u] != 0u;
    let rt = me || wm[t - BT] != 0u;
    let rb = me || wm[t + BT] != 0u;
    var fl = qx[nxt_qx + fxl];
    var fr = qx[nxt_qx + fxl + 1u];
    var ft = qy[nxt_qy + fyt];
    var fb = qy[nxt_qy + fyb];
    if (rl) {
        fl = limit(wax[t - 1u], wk[t - 1u], wk[t]);
        qx[nxt_qx + fxl] = fl;
    }
    if (rr) {
        fr = limit(wax[t], wk[t], wk[t + 1u]);
        qx[nxt_qx + fxl + 1u] = fr;
    }
    if (rt) {
        ft = limit(way[t - BT], wk[t - BT], wk[t]);
        qy[nxt_qy + fyt] = ft;
    }
    if (rb) {
        fb = limit(way[t], wk[t], wk[t + BT]);
        qy[nxt_qy + fyb] = fb;
    }
    if (!(rl || rr || rt || rb)) {
        return;
    }
    // Depth and carry, from the carry saved before the flow pass.
    var cin = fword(at.base + S_CARRY + at.o);
    if (RAIN) {
        cin = cin + sc.rain;
    }
    let d = wd[t];
    let tt = (fl - fr + ft - fb) * sc.c + cin;
    let v = max(d + tt, 0.0);
    // A failed sub-step leaves no residue where it blew up (the CPU's carry too).
    carry[at.cell] = select(tt - (v - d), 0.0, is_bad(tt));
    depth[nxt_d + at.cell] = v;
    atomicMax(&aux.ctl.max_depth, bitcast<u32>(v));
    if (is_bad(tt)) {
        atomicMin(&aux.ctl.blowup_cell, at.cell);
    }
}

// Top of the water of a stored cell that bounds its effective surface from below
// (sim::blocking::Blocking::water_top).
fn water_top(zb: f32, zt: f32, b: f32, d: f32, up: f32, s: f32) -> f32 {
    let gap = zb - b;
    if (film(gap, s, zt)) {
        let lower = d - up;
        if (lower > gap) {
            return zb;
        }
        return b + lower;
    }
    if (d <= gap) {
        return b + d;
    }
    return zt + (d - gap);
}

// Effective surface of map cell (i, j) after the sub-step (sim::blocking::Blocking::effective):
// the stored surface (old half) of a stored cell, the surface beside the body in a partly
// covered one, else terrain + new depth. `w` is the word of its column in this tile.
fn effective_after(i: u32, j: u32, w: u32, par: u32) -> f32 {
    let c = fword(w);
    if (c >= BLOCKED_COVER) {
        return surf_at(i, j, par);
    }
    let cell = j * grid.nx + i;
    let b = terrain[cell];
    let d = depth[(par ^ 1u) * grid.half_d + cell];
    if (c > 0.0) {
        let zb = max(fword(w + 1u), b);
        return partial_surface(c, zb, max(fword(w + 2u), zb), b, max(d - latent_at(i, j), 0.0));
    }
    return b + d;
}

@compute @workgroup_size(256)
fn surface(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let at = locate(t, wid);
    if (!runs(t, at)) {
        return;
    }
    if (!at.output) {
        return;
    }
    let w = at.base + S_CELLS + 4u * t;
    let c = fword(w);
    if (c < BLOCKED_COVER) {
        return;
    }
    let par = aux.ctl.parity;
    let i = u32(at.gi);
    let j = u32(at.gj);
    let own = fword(at.base + S_SURF + par * OUT + at.o);
    let cw = at.base + S_CELLS;
    var sl = own;
    var sr = own;
    var su = own;
    var sd = own;
    if (i > 0u) {
        sl = effective_after(i - 1u, j, cw + 4u * (t - 1u), par);
    }
    if (i + 1u < grid.nx) {
        sr = effective_after(i + 1u, j, cw + 4u * (t + 1u), par);
    }
    if (j > 0u) {
        su = effective_after(i, j - 1u, cw + 4u * (t - BT), par);
    }
    if (j + 1u < grid.ny) {
        sd = effective_after(i, j + 1u, cw + 4u * (t + BT), par);
    }
    let kappa = fword(H_KAPPA);
    let blur = kappa * own + (1.0 - kappa) * 0.25 * (sl + sr + su + sd);
    let b = terrain[at.cell];
    let d = depth[(par ^ 1u) * grid.half_d + at.cell];
    let wet = max(d - fword(at.base + S_LATENT + at.o), 0.0);
    let zb = max(fword(w + 1u), b);
    let zt = max(fword(w + 2u), zb);
    // Water standing over the body is the surface itself; only where the body holds the
    // surface down is it interpolated.
    let up = fword(at.base + S_UPPER + (par ^ 1u) * OUT + at.o);
    let top = water_top(zb, zt, b, wet, up, own);
    var next = max(blur, top);
    if (top > zt) {
        next = top;
    }
    blk[at.base + S_SURF + (par ^ 1u) * OUT + at.o] = bitcast<u32>(next);
}
