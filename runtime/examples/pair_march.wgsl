// Experiment (issue 21): the peers' constant-pipe step marched one step per pass (`single`, the
// flow pass of shaders/flow.wgsl stripped to the peers' physics: constant cross-section, linear
// friction, walls at the border) or two steps per pass (`pair`: temporal blocking).
//
// `single`: a workgroup of TW threads owns TW - 4 columns and TH rows and marches down them as
// flow.wgsl does: at the row r it loads, it accelerates the faces of row r, limits those of row
// r-1 and updates depth and carry of row r-2.
//
// `pair`: a workgroup of TW threads owns TW - 8 columns and TH rows. Stage A is `single`'s march
// over every cell the workgroup loads (halo included), giving the first step's depth, carry and
// limited faces; stage B runs the same march three rows behind on those values, held in
// registers and workgroup memory: at the row r loaded it accelerates the second step's faces of
// row r-3, limits those of row r-4 and updates row r-5. Only stage B's results are written: the
// state is read and written once for two steps. The first step's values are valid two cells
// into the halo, the second's on the strip itself.
//
// Both read the state from the halves `par` and write the other halves (carry too, so that no
// workgroup overwrites what another's halo still reads).

struct Params {
    nx: u32,
    ny: u32,
    par: u32,
    pad0: u32,
    fric: f32,
    g_dt: f32,
    c: f32,
    vol_rate: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> terrain: array<f32>;
@group(0) @binding(2) var<storage, read_write> depth: array<f32>;
@group(0) @binding(3) var<storage, read_write> qx: array<f32>;
@group(0) @binding(4) var<storage, read_write> qy: array<f32>;
@group(0) @binding(5) var<storage, read_write> carry: array<f32>;

var<workgroup> sb: array<f32, 2u * TW>;
var<workgroup> sd: array<f32, 2u * TW>;
var<workgroup> sk: array<f32, 2u * TW>;
var<workgroup> sa: array<f32, 2u * TW>;
// Stage B: terrain and first-step depth of row r-3, second-step factors and left faces.
var<workgroup> sb3: array<f32, 2u * TW>;
var<workgroup> sd3: array<f32, 2u * TW>;
var<workgroup> sk2: array<f32, 2u * TW>;
var<workgroup> sa2: array<f32, 2u * TW>;

fn accel(q: f32, bl: f32, br: f32, dl: f32, dr: f32) -> f32 {
    return q * p.fric + p.g_dt * (1.0 * ((bl + dl) - (br + dr)));
}

fn limit(q: f32, k_up_left: f32, k_down_right: f32) -> f32 {
    return q * select(k_down_right, k_up_left, q > 0.0);
}

fn factor(out: f32, d: f32) -> f32 {
    let vol = d * p.vol_rate;
    return select(1.0, vol / out, out > vol);
}

struct Halves {
    cd: u32,
    nd: u32,
    cqx: u32,
    nqx: u32,
    cqy: u32,
    nqy: u32,
}

fn halves() -> Halves {
    let n = p.nx * p.ny;
    let hx = (p.nx + 1u) * p.ny;
    let hy = p.nx * (p.ny + 1u);
    let q = p.par ^ 1u;
    return Halves(p.par * n, q * n, p.par * hx, q * hx, p.par * hy, q * hy);
}

// What a thread loads for row r: terrain, depth and the old discharges of its left x-face and
// top y-face, and the carry of row r-2 (where `carry2`).
struct Row {
    b: f32,
    d: f32,
    vl: f32,
    vy: f32,
    cin: f32,
}

fn load(h: Halves, ci: i32, r: i32, carry2: bool) -> Row {
    let nx = p.nx;
    var l = Row(0.0, 0.0, 0.0, 0.0, 0.0);
    let c = u32(max(ci, 0));
    if (r >= 0 && r < i32(p.ny) && ci >= 0 && ci < i32(nx)) {
        let ru = u32(r);
        l.b = terrain[ru * nx + c];
        l.d = depth[h.cd + ru * nx + c];
        if (ci > 0) {
            l.vl = qx[h.cqx + ru * (nx + 1u) + c];
        }
        if (r > 0) {
            l.vy = qy[h.cqy + ru * nx + c];
        }
    }
    if (carry2) {
        l.cin = carry[h.cd + u32(r - 2) * nx + c];
    }
    return l;
}

@compute @workgroup_size(TW)
fn single(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let nx = p.nx;
    let inx = i32(nx);
    let iny = i32(p.ny);
    let h = halves();
    let ci = i32(wid.x * (TW - 4u) + t) - 2;
    let c = u32(max(ci, 0));
    let col_in = ci >= 0 && ci < inx;
    let writes = col_in && t >= 2u && t < TW - 2u;
    let y0 = i32(wid.y * TH);
    let y1 = min(y0 + i32(TH), iny);

    var b1 = 0.0;
    var d1 = 0.0;
    var axl1 = 0.0;
    var axr1 = 0.0;
    var ay1 = 0.0;
    var d2 = 0.0;
    var k2 = 1.0;
    var fl2 = 0.0;
    var fr2 = 0.0;
    var ft2 = 0.0;
    var ahead = load(h, ci, y0 - 2, false);
    for (var s = 0u; s < TH + 4u; s = s + 1u) {
        let r = y0 - 2 + i32(s);
        let slot = (s & 1u) * TW;
        let row_in = r >= 0 && r < iny;
        // This row's loads were issued an iteration ago; issue the next row's now.
        let row = ahead;
        if (s + 1u < TH + 4u) {
            let rn = r + 1 - 2;
            ahead = load(h, ci, r + 1, writes && rn >= y0 && rn < y1);
        }
        let b = row.b;
        let d = row.d;
        let vl = row.vl;
        let vy = row.vy;
        let cin = row.cin;
        let r2 = r - 2;
        let row2_out = writes && r2 >= y0 && r2 < y1;
        sb[slot + t] = b;
        sd[slot + t] = d;
        workgroupBarrier();
        var axl = 0.0;
        var axr = 0.0;
        if (row_in && col_in && ci > 0 && t > 0u) {
            axl = accel(vl, sb[slot + t - 1u], b, sd[slot + t - 1u], d);
        }
        var ay = 0.0;
        if (row_in && col_in && r > 0) {
            ay = accel(vy, b1, b, d1, d);
        }
        var k1 = 1.0;
        if (col_in && r - 1 >= 0 && r - 1 < iny) {
            let out = max(-axl1, 0.0) + max(axr1, 0.0) + max(-ay1, 0.0) + max(ay, 0.0);
            k1 = factor(out, d1);
        }
        sk[slot + t] = k1;
        sa[slot + t] = axl;
        workgroupBarrier();
        if (row_in && col_in && ci + 1 < inx && t + 1u < TW) {
            axr = sa[slot + t + 1u];
        }
        let kl = sk[slot + max(t, 1u) - 1u];
        let kr = sk[slot + min(t + 1u, TW - 1u)];
        let fl1 = limit(axl1, kl, k1);
        let fr1 = limit(axr1, k1, kr);
        let ft1 = limit(ay1, k2, k1);
        let r1 = r - 1;
        if (writes) {
            if (r1 >= y0 && r1 < y1) {
                let fx = u32(r1) * (nx + 1u) + c;
                qx[h.nqx + fx] = fl1;
                if (c + 1u == nx) {
                    qx[h.nqx + fx + 1u] = fr1;
                }
            }
            if ((r1 >= y0 && r1 < y1) || (r1 == iny && y1 == iny)) {
                qy[h.nqy + u32(r1) * nx + c] = ft1;
            }
        }
        if (row2_out) {
            let cell = u32(r2) * nx + c;
            let tt = (fl2 - fr2 + ft2 - ft1) * p.c + cin;
            let v = max(d2 + tt, 0.0);
            carry[h.nd + cell] = tt - (v - d2);
            depth[h.nd + cell] = v;
        }
        d2 = d1;
        k2 = k1;
        fl2 = fl1;
        fr2 = fr1;
        ft2 = ft1;
        b1 = b;
        d1 = d;
        axl1 = axl;
        axr1 = axr;
        ay1 = ay;
    }
}

@compute @workgroup_size(TW)
fn pair(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let nx = p.nx;
    let inx = i32(nx);
    let iny = i32(p.ny);
    let h = halves();
    let ci = i32(wid.x * (TW - 8u) + t) - 4;
    let c = u32(max(ci, 0));
    let col_in = ci >= 0 && ci < inx;
    let writes = col_in && t >= 4u && t < TW - 4u;
    let y0 = i32(wid.y * TH);
    let y1 = min(y0 + i32(TH), iny);

    // Stage A (the first step), as `single`.
    var b1 = 0.0;
    var d1 = 0.0;
    var axl1 = 0.0;
    var axr1 = 0.0;
    var ay1 = 0.0;
    var d2 = 0.0;
    var k2 = 1.0;
    var fl2 = 0.0;
    var fr2 = 0.0;
    var ft2 = 0.0;
    // What stage B takes from stage A: terrain of rows r-2, r-3, r-4; first-step depth and
    // carry of rows r-3, r-4, r-5; the first step's left x-face and top y-face of rows r-2 and
    // r-3 (limited).
    var b2 = 0.0;
    var b3 = 0.0;
    var b4 = 0.0;
    var e3 = 0.0;
    var e4 = 0.0;
    var e5 = 0.0;
    var c3 = 0.0;
    var c4 = 0.0;
    var c5 = 0.0;
    var fla = 0.0;
    var flb = 0.0;
    var fta = 0.0;
    var ftb = 0.0;
    // Stage B (the second step): accelerated faces of row r-4, factor of row r-5, limited
    // faces of row r-5.
    var bxl1 = 0.0;
    var bxr1 = 0.0;
    var by1 = 0.0;
    var kb2 = 1.0;
    var gl2 = 0.0;
    var gr2 = 0.0;
    var gt2 = 0.0;
    var ahead = load(h, ci, y0 - 4, false);
    for (var s = 0u; s < TH + 9u; s = s + 1u) {
        let r = y0 - 4 + i32(s);
        let slot = (s & 1u) * TW;
        let row_in = r >= 0 && r < iny;
        let row = ahead;
        if (s + 1u < TH + 9u) {
            let rn = r + 1 - 2;
            ahead = load(h, ci, r + 1, col_in && rn >= 0 && rn < iny);
        }
        let b = row.b;
        let d = row.d;
        let vl = row.vl;
        let vy = row.vy;
        let cin = row.cin;
        let r2 = r - 2;
        let row2_in = col_in && r2 >= 0 && r2 < iny;
        sb[slot + t] = b;
        sd[slot + t] = d;
        sb3[slot + t] = b3;
        sd3[slot + t] = e3;
        workgroupBarrier();

        // Stage A: accelerate row r, factor of row r-1.
        var axl = 0.0;
        var axr = 0.0;
        if (row_in && col_in && ci > 0 && t > 0u) {
            axl = accel(vl, sb[slot + t - 1u], b, sd[slot + t - 1u], d);
        }
        var ay = 0.0;
        if (row_in && col_in && r > 0) {
            ay = accel(vy, b1, b, d1, d);
        }
        var k1 = 1.0;
        if (col_in && r - 1 >= 0 && r - 1 < iny) {
            let out = max(-axl1, 0.0) + max(axr1, 0.0) + max(-ay1, 0.0) + max(ay, 0.0);
            k1 = factor(out, d1);
        }
        // Stage B: accelerate row q = r-3 from the first step's state, factor of row r-4.
        let q = r - 3;
        let q_in = q >= 0 && q < iny;
        var bxl = 0.0;
        var bxr = 0.0;
        if (q_in && col_in && ci > 0 && t > 0u) {
            bxl = accel(flb, sb3[slot + t - 1u], b3, sd3[slot + t - 1u], e3);
        }
        var by = 0.0;
        if (q_in && col_in && q > 0) {
            by = accel(ftb, b4, b3, e4, e3);
        }
        var kb1 = 1.0;
        if (col_in && q - 1 >= 0 && q - 1 < iny) {
            let out = max(-bxl1, 0.0) + max(bxr1, 0.0) + max(-by1, 0.0) + max(by, 0.0);
            kb1 = factor(out, e4);
        }
        sk[slot + t] = k1;
        sa[slot + t] = axl;
        sk2[slot + t] = kb1;
        sa2[slot + t] = bxl;
        workgroupBarrier();

        // Stage A: limit row r-1, update row r-2 (every cell loaded).
        if (row_in && col_in && ci + 1 < inx && t + 1u < TW) {
            axr = sa[slot + t + 1u];
        }
        let kl = sk[slot + max(t, 1u) - 1u];
        let kr = sk[slot + min(t + 1u, TW - 1u)];
        let fl1 = limit(axl1, kl, k1);
        let fr1 = limit(axr1, k1, kr);
        let ft1 = limit(ay1, k2, k1);
        var e2 = 0.0;
        var cc = 0.0;
        if (row2_in) {
            let tt = (fl2 - fr2 + ft2 - ft1) * p.c + cin;
            e2 = max(d2 + tt, 0.0);
            cc = tt - (e2 - d2);
        }

        // Stage B: limit row r-4, update row r-5, and write them.
        if (q_in && col_in && ci + 1 < inx && t + 1u < TW) {
            bxr = sa2[slot + t + 1u];
        }
        let jl = sk2[slot + max(t, 1u) - 1u];
        let jr = sk2[slot + min(t + 1u, TW - 1u)];
        let gl1 = limit(bxl1, jl, kb1);
        let gr1 = limit(bxr1, kb1, jr);
        let gt1 = limit(by1, kb2, kb1);
        let r4 = r - 4;
        if (writes) {
            if (r4 >= y0 && r4 < y1) {
                let fx = u32(r4) * (nx + 1u) + c;
                qx[h.nqx + fx] = gl1;
                if (c + 1u == nx) {
                    qx[h.nqx + fx + 1u] = gr1;
                }
            }
            if ((r4 >= y0 && r4 < y1) || (r4 == iny && y1 == iny)) {
                qy[h.nqy + u32(r4) * nx + c] = gt1;
            }
            let r5 = r - 5;
            if (r5 >= y0 && r5 < y1) {
                let cell = u32(r5) * nx + c;
                let tt = (gl2 - gr2 + gt2 - gt1) * p.c + c5;
                let v = max(e5 + tt, 0.0);
                carry[h.nd + cell] = tt - (v - e5);
                depth[h.nd + cell] = v;
            }
        }

        // Roll stage B's rows.
        bxl1 = bxl;
        bxr1 = bxr;
        by1 = by;
        kb2 = kb1;
        gl2 = gl1;
        gr2 = gr1;
        gt2 = gt1;
        // Roll what stage B takes from stage A.
        e5 = e4;
        e4 = e3;
        e3 = e2;
        c5 = c4;
        c4 = c3;
        c3 = cc;
        b4 = b3;
        b3 = b2;
        b2 = b1;
        flb = fla;
        fla = fl1;
        ftb = fta;
        fta = ft1;
        // Roll stage A's rows.
        d2 = d1;
        k2 = k1;
        fl2 = fl1;
        fr2 = fr1;
        ft2 = ft1;
        b1 = b;
        d1 = d;
        axl1 = axl;
        axr1 = axr;
        ay1 = ay;
    }
}
