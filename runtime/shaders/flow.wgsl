// Flow pass: the fused accelerate-limit-depth step of both solvers (sim::kernel) in one dispatch.
//
// A workgroup of TW threads owns a strip of TW - 4 columns and TH rows and marches down it one
// row per iteration, one column per thread (the two columns on each side are a halo that is
// recomputed, not written). Like the CPU's band pass it keeps rolling rows: at the iteration that
// loads row r it accelerates the faces of row r and the y-faces above it, computes the outflow
// limiting factors of row r-1, limits the faces of row r-1 by their upwind cell's factor and
// writes them, and updates the depth and carry of row r-2. Neighbour values cross threads through
// two double-buffered rows of workgroup memory, two barriers per row. Every cell is read and
// written once: terrain, depth, the two face grids and carry, 36 bytes per cell, plus 4 halo
// columns per strip and 4 halo rows per TH rows.
//
// FUSED (conservative momentum advection, no blockers or structures this sub-step): the pass also
// does the advection and store passes' work. It advects the face velocities of each row as it
// loads it (momentum.wgsl, from the current halves), and turns each limited face into its
// velocity as it writes it, into the other half of `vel`, with the largest face speed. The
// advected velocities never go through memory, and the store pass's reads are saved.
//
// MAPS (a fused variant, where the maps of the run are kept and the device grants the four more
// storage bindings): at a step's last sub-step it also folds each cell's new depth and faces into
// the maps (fold.wgsl), so the maps pass does not run after the step.
//
// QUIET (fused variants where dry strips may be left out, quiet.wgsl): a strip with no water in
// its region in either half returns at once, and one that wrote water stamps its blocks.

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read> terrain: array<f32>;
@group(0) @binding(3) var<storage, read_write> depth: array<f32>;
@group(0) @binding(4) var<storage, read_write> qx: array<f32>;
@group(0) @binding(5) var<storage, read_write> qy: array<f32>;
@group(0) @binding(6) var<storage, read_write> carry: array<f32>;
// Advected face velocities (SWE, pipes with advection): x-faces then y-faces.
@group(0) @binding(7) var<storage, read> adv: array<f32>;
// Face velocities, two halves (momentum.wgsl; FUSED only).
@group(0) @binding(8) var<storage, read_write> vel: array<f32>;

// Output columns per strip.
const W: u32 = TW - 4u;

// Terrain and depth of the newest row, and limiting factors of the row above it; slot by row
// parity.
var<workgroup> sb: array<f32, 2u * TW>;
var<workgroup> sd: array<f32, 2u * TW>;
var<workgroup> sk: array<f32, 2u * TW>;
// Each thread's accelerated left x-face of the newest row: its left neighbour's right face.
var<workgroup> sa: array<f32, 2u * TW>;
// FUSED: each thread's largest face speed so far (kept here, not in a register the plain pass
// would carry from row to row: one such value cost it 11.6 % at 4096² on an H100).
var<workgroup> sspd: array<f32, TW>;
var<workgroup> wmax: atomic<u32>;
var<workgroup> wspd: atomic<u32>;
var<workgroup> wbad: atomic<u32>;
var<workgroup> wrun: u32;

// Manning's n² of the face between cells l and r: the mean n of the two, kept after the
// terrain in the terrain buffer (1 without a roughness grid).
fn face_n2(l: u32, r: u32) -> f32 {
    if (!ROUGH) {
        return 1.0;
    }
    let nf = 0.5 * (terrain[grid.cells + l] + terrain[grid.cells + r]);
    return nf * nf;
}

// Accelerated, unlimited discharge across an interior face with cells l (left/up), r, whose
// Manning n² is n2. `v` is the old discharge (pipes) or the advected face velocity (pipes with
// advection, SWE).
fn accelerate(v: f32, bl: f32, br: f32, dl: f32, dr: f32, n2: f32, k: StepConsts) -> f32 {
    let hl = bl + dl;
    let hr = br + dr;
    let hf = max(max(hl, hr) - max(bl, br), 0.0);
    if (MODE == MODE_SWE) {
        if (hf <= DRY) {
            return 0.0;
        }
        let u = bed(v, k.g_dt * (hl - hr) / grid.dx, abs(v), hf, n2, k);
        let h = select(dr, dl, u > 0.0);
        return u * h * grid.dx;
    }
    var q = v;
    if (MODE == MODE_PIPES_ADV) {
        // A face with no wet cross-section carries nothing: momentum never lifts water over a
        // wall or a closed gate.
        let wet = hf > 0.0;
        q = v * select(0.0, select(dr, dl, v > 0.0), wet) * grid.dx;
    }
    return bed_q(q, k.g_dt * section(hl, hr, dl, dr, bl, br) * (hl - hr), hf, n2, k);
}

// The old discharge or advected velocity of interior x-face f of row r.
fn x_input(r: u32, f: u32, at: Column) -> f32 {
    let fi = r * (grid.nx + 1u) + f;
    if (MODE == MODE_PIPES) {
        return qx[at.cur.qx + fi];
    }
    if (FUSED) {
        return advect_u(f, r, at.cur, at.dt);
    }
    return adv[fi];
}

fn y_input(r: u32, c: u32, at: Column) -> f32 {
    let fi = r * grid.nx + c;
    if (MODE == MODE_PIPES) {
        return qy[at.cur.qy + fi];
    }
    if (FUSED) {
        return advect_v(c, r, at.cur, at.dt);
    }
    return adv[grid.half_qx + fi];
}

// Where a thread works: its column and the strip's rows, and the current halves.
struct Column {
    ci: i32,
    c: u32,
    col_in: bool,
    writes: bool,
    y0: i32,
    y1: i32,
    // The current halves, and the sub-step's length.
    cur: StateHalves,
    dt: f32,
}

// What a thread reads for row r: terrain, depth and face inputs of row r, carry of row r-2.
struct RowLoad {
    b: f32,
    d: f32,
    vl: f32,
    vy: f32,
    cin: f32,
}

fn load_row(at: Column, r: i32) -> RowLoad {
    let nx = grid.nx;
    var l = RowLoad(0.0, 0.0, 0.0, 0.0, 0.0);
    if (r >= 0 && r < i32(grid.ny) && at.col_in) {
        let ru = u32(r);
        l.b = terrain[ru * nx + at.c];
        l.d = depth[at.cur.d + ru * nx + at.c];
        if (at.ci > 0) {
            l.vl = x_input(ru, at.c, at);
        }
        if (r > 0) {
            l.vy = y_input(ru, at.c, at);
        }
    }
    let r2 = r - 2;
    if (at.writes && r2 >= at.y0 && r2 < at.y1) {
        l.cin = carry[u32(r2) * nx + at.c];
    }
    return l;
}

fn limit(q: f32, k_up_left: f32, k_down_right: f32) -> f32 {
    return q * select(k_down_right, k_up_left, q > 0.0);
}

@compute @workgroup_size(TW)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    // Spare sub-steps (not opened by the control pass) do nothing.
    if (t == 0u) {
        // A pair (pair.wgsl) runs this sub-step instead.
        wrun = select(aux.ctl.running, 0u, aux.ctl.pair != 0u);
        if (QUIET && FUSED) {
            quiet_clear();
        }
    }
    if (workgroupUniformLoad(&wrun) == 0u) {
        return;
    }
    let nx = grid.nx;
    let ny = grid.ny;
    let inx = i32(nx);
    let iny = i32(ny);
    let sc = aux.consts[aux.ctl.n];
    let par = aux.ctl.parity;
    let cur = halves_of(par);
    let nxt = halves_of(par ^ 1u);
    // This thread's column, and the strip's first output row.
    let ci = i32(wid.x * W + t) - 2;
    let c = u32(max(ci, 0));
    let col_in = ci >= 0 && ci < inx;
    let writes = col_in && t >= 2u && t < TW - 2u;
    let y0 = i32(wid.y * TH);
    let y1 = min(y0 + i32(TH), iny);
    if (QUIET && FUSED) {
        let x0 = i32(wid.x * W);
        if (quiet_leave_out(t, TW, x0, min(x0 + i32(W), inx), y0, y1)) {
            return;
        }
    }
    if (t == 0u) {
        atomicStore(&wmax, 0u);
        if (FUSED) {
            atomicStore(&wspd, 0u);
        }
        atomicStore(&wbad, NONE);
    }

    // Rolling state: row r-1 (terrain, depth, its x-faces, the y-face above it), row r-2 (old
    // depth, factor, limited faces).
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
    var vmax = 0.0;
    if (FUSED) {
        sspd[t] = 0.0;
    }
    let at = Column(ci, c, col_in, writes, y0, y1, cur, sc.dt);
    // MAPS: whether this is the step's last sub-step, which folds the maps in.
    let fold_now = MAPS && aux.ctl.k + 1u == aux.ctl.count;
    var ahead = load_row(at, y0 - 2);

    for (var s = 0u; s < TH + 4u; s = s + 1u) {
        let r = y0 - 2 + i32(s);
        let slot = (s & 1u) * TW;
        let row_in = r >= 0 && r < iny;
        let ru = u32(max(r, 0));

        // This row's loads were issued an iteration ago; issue the next row's now, so their
        // latency hides behind this row's barriers and arithmetic.
        let row = ahead;
        if (s + 1u < TH + 4u) {
            ahead = load_row(at, r + 1);
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
        // FUSED: the left neighbour's old depth in row r-1, read from the other slot before
        // the next barrier (not carried from row to row, as `sspd`).
        var dl1 = 0.0;
        if (FUSED) {
            dl1 = sd[(TW - slot) + max(t, 1u) - 1u];
        }

        // Accelerated faces: x-faces c and c+1 of row r, and the y-face between rows r-1, r.
        var axl = 0.0;
        var axr = 0.0;
        if (row_in && col_in) {
            if (ci == 0) {
                axl = aux.faces[ru];
            } else if (t > 0u) {
                let l = ru * nx + c - 1u;
                axl = accelerate(vl, sb[slot + t - 1u], b, sd[slot + t - 1u], d, face_n2(l, l + 1u), sc);
            }
            // The right face is the right neighbour's left face (taken after the next
            // barrier), except at the map's east border.
            if (ci + 1 == inx) {
                axr = aux.faces[ny + ru];
            }
        }
        var ay = 0.0;
        if (col_in) {
            if (r == 0) {
                ay = aux.faces[2u * ny + c];
            } else if (r == iny) {
                ay = aux.faces[2u * ny + nx + c];
            } else if (row_in) {
                let r0 = ru * nx + c;
                ay = accelerate(vy, b1, b, d1, d, face_n2(r0 - nx, r0), sc);
            }
        }

        // Outflow-limiting factor of cell (c, r-1); 1 outside the grid.
        var k1 = 1.0;
        if (col_in && r - 1 >= 0 && r - 1 < iny) {
            let out = max(-axl1, 0.0) + max(axr1, 0.0) + max(-ay1, 0.0) + max(ay, 0.0);
            let vol = d1 * sc.vol_rate;
            k1 = select(1.0, vol / out, out > vol);
        }
        sk[slot + t] = k1;
        sa[slot + t] = axl;
        workgroupBarrier();
        // The right x-face of row r, accelerated once, by the thread to the right (the last
        // thread's is never used: its cell is halo, and so is its left neighbour's).
        if (row_in && col_in && ci + 1 < inx && t + 1u < TW) {
            axr = sa[slot + t + 1u];
        }

        // Limited faces of row r-1 (x-faces c, c+1; the y-face above it).
        let kl = sk[slot + max(t, 1u) - 1u];
        let kr = sk[slot + min(t + 1u, TW - 1u)];
        let fl1 = limit(axl1, kl, k1);
        let fr1 = limit(axr1, k1, kr);
        let ft1 = limit(ay1, k2, k1);
        let r1 = r - 1;
        if (writes) {
            if (r1 >= y0 && r1 < y1) {
                let fx = u32(r1) * (nx + 1u) + c;
                qx[nxt.qx + fx] = fl1;
                if (FUSED) {
                    var u = border_vel(fl1, d1);
                    if (ci > 0) {
                        u = face_vel(fl1, dl1, d1, sc.dt);
                    }
                    vel[nxt.v + fx] = u.x;
                    sspd[t] = max(sspd[t], abs(u.x) * u.y);
                }
                if (c + 1u == nx) {
                    qx[nxt.qx + fx + 1u] = fr1;
                    if (FUSED) {
                        let u = border_vel(fr1, d1);
                        vel[nxt.v + fx + 1u] = u.x;
                        sspd[t] = max(sspd[t], abs(u.x) * u.y);
                    }
                }
            }
            // Face rows y0 .. y1-1 are the tops of this strip's rows; face ny closes the grid.
            if ((r1 >= y0 && r1 < y1) || (r1 == iny && y1 == iny)) {
                let fy = u32(r1) * nx + c;
                qy[nxt.qy + fy] = ft1;
                if (FUSED) {
                    // The top border's cell is row 0 (d1), the bottom border's row ny-1 (d2).
                    var v = face_vel(ft1, d2, d1, sc.dt);
                    if (r1 == 0) {
                        v = border_vel(ft1, d1);
                    } else if (r1 == iny) {
                        v = border_vel(ft1, d2);
                    }
                    vel[nxt.v + grid.half_qx + fy] = v.x;
                    sspd[t] = max(sspd[t], abs(v.x) * v.y);
                }
            }
        }

        // Depth and carry of row r-2: its bottom face is the one just limited.
        if (row2_out) {
            let cell = u32(r2) * nx + c;
            var ci2 = cin;
            if (RAIN) {
                ci2 = ci2 + sc.rain;
            }
            let tt = (fl2 - fr2 + ft2 - ft1) * sc.c + ci2;
            let v = max(d2 + tt, 0.0);
            // A failed sub-step leaves no residue where it blew up (the CPU's carry too).
            carry[cell] = select(tt - (v - d2), 0.0, is_bad(tt));
            depth[nxt.d + cell] = v;
            vmax = max(vmax, v);
            if (is_bad(tt)) {
                atomicMin(&wbad, cell);
            } else if (fold_now) {
                // The step's last sub-step: the maps take in the cell as the step leaves it,
                // at the time the control pass will close the step at.
                if (fold_depth(cell, v)) {
                    let t = df_add(vec2<f32>(aux.ctl.time_hi, aux.ctl.time_lo), vec2<f32>(sc.dt, 0.0));
                    fold_flow(cell, v, fl2, fr2, ft2, ft1, t.x + t.y + 1.0);
                }
            }
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

    atomicMax(&wmax, bitcast<u32>(vmax));
    if (FUSED) {
        atomicMax(&wspd, bitcast<u32>(sspd[t]));
    }
    workgroupBarrier();
    if (QUIET && FUSED) {
        // The strip's columns again (not kept as live values across the march).
        let x0 = i32(wid.x * W);
        let water = bitcast<f32>(atomicLoad(&wmax)) > 0.0;
        quiet_ran(t, TW, x0, min(x0 + i32(W), inx), y0, y1, water);
    }
    if (t == 0u) {
        atomicMax(&aux.ctl.max_depth, atomicLoad(&wmax));
        if (FUSED) {
            atomicMax(&aux.ctl.max_speed, atomicLoad(&wspd));
        }
        let bad = atomicLoad(&wbad);
        if (bad != NONE) {
            atomicMin(&aux.ctl.blowup_cell, bad);
        }
    }
}
