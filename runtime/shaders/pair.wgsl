// Pair pass: two sub-steps in one march over the state (temporal blocking), where the control
// pass opened a pair: two steps of one sub-step each (`begin_pair`, `begin_pair_split`, where one
// sub-step twice as long is stable), or the first two sub-steps of a step that takes two or more
// (`begin_pair_split`, `begin_split`), each kind run by its own build of this pass (`SUB` for a
// step's sub-steps, see `film_dt`). Pairs run where no sources, edges other than walls, structures, blockers, maps
// or sediment run between two sub-steps. The state is read and written once for two sub-steps:
// 36 bytes per cell instead of 72 for the plain pipes, 52 instead of 104 with momentum advection
// (ADV: the pipes with advection and the shallow-water mode, as the fused flow pass runs them).
//
// A workgroup of TW threads owns a strip of TW - 8 columns and PH rows. Stage A is the flow
// pass's march (flow.wgsl, MODE_PIPES) over every cell the workgroup loads, halo included: at the
// row r it loads it accelerates the faces of row r, limits those of row r-1 and updates the depth
// of row r-2. Stage B runs the same march three rows behind on stage A's results, kept in
// registers and workgroup memory: it accelerates the second step's faces of row r-3 (their old
// discharges are stage A's limited faces), limits those of row r-4 and updates row r-5. Only
// stage B's faces, depth and carry are written. Stage A's values are right two cells into the
// halo, which is all stage B reads.
//
// The map's border faces are walls (0): pairs run only where every edge is one.
//
// ADV: stage A advects each face as the fused flow pass does, from memory (momentum.wgsl), and
// turns each face it limits into its velocity. Stage B advects its faces from stage A's limited
// faces, velocities and depths, its own column's in registers (three rows of them: row r-3 is
// advected with the rows above and below) and its neighbours' through workgroup memory; it
// writes its faces' velocities to the other half of `vel`, with the largest face speed.
//
// The carry (compensated summation) is read and written in place, by the cell's own strip only:
// stage A leaves it out (a halo cell's carry may already be its own strip's new one) and keeps
// its own rounding error, which stage B adds with the carry read. So two faces computed by two
// strips agree and the water balance is kept as in two flow passes; the depth differs from them
// by the rounding of the carry added one step later (`tests/gpu/pairs.rs`).
//
// QUIET (ADV where dry strips may be left out, quiet.wgsl): as in the flow pass, a strip with no
// water in its region in either half returns at once, and one that wrote water stamps its blocks
// (a cell counts as wet where it holds water after either sub-step).

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read> terrain: array<f32>;
@group(0) @binding(3) var<storage, read_write> depth: array<f32>;
@group(0) @binding(4) var<storage, read_write> qx: array<f32>;
@group(0) @binding(5) var<storage, read_write> qy: array<f32>;
@group(0) @binding(6) var<storage, read_write> carry: array<f32>;
// Face velocities, two halves (momentum.wgsl; ADV only).
@group(0) @binding(7) var<storage, read_write> vel: array<f32>;

// Whether the faces carry momentum (advected velocities). AW (prepended: TW with ADV, else 1)
// sizes the workgroup rows only ADV uses.
const ADV: bool = MODE != MODE_PIPES;

// Workgroup rows. Each is written on one side of a barrier and read on the other before the
// next, so one slot does (two barriers a row). Every byte counts: six unused rows more (1.5 KiB
// in 64-thread strips) took the plain pipes' pair from 89.2 to 54.0 Gcell/s at 4096² on an
// H100, and a second slot for each row (as the flow pass has) made it 89.2 against 94.8.
// Stage A: terrain and depth of row r, factors and accelerated left faces of its rows.
var<workgroup> sb: array<f32, TW>;
var<workgroup> sd: array<f32, TW>;
var<workgroup> sk: array<f32, TW>;
var<workgroup> sa: array<f32, TW>;
// Stage B: terrain and first-step depth of row r-3, second-step factors and left faces.
var<workgroup> sb3: array<f32, TW>;
var<workgroup> sd3: array<f32, TW>;
var<workgroup> sk2: array<f32, TW>;
var<workgroup> sa2: array<f32, TW>;
// ADV, stage B's advection: stage A's results of row r-3 (x-face, its velocity, top y-face and
// its velocity) and the top y-face of row r-2, for the neighbours; written before the first
// barrier and read before the second.
var<workgroup> sfx: array<f32, AW>;
var<workgroup> swx: array<f32, AW>;
var<workgroup> sfy: array<f32, AW>;
var<workgroup> sfy1: array<f32, AW>;
var<workgroup> swy: array<f32, AW>;
// ADV: each thread's largest face speed (flow.wgsl's `sspd`).
var<workgroup> sspd: array<f32, AW>;
var<workgroup> wmax: atomic<u32>;
var<workgroup> wspd: atomic<u32>;
var<workgroup> wbad: atomic<u32>;
var<workgroup> wrun: u32;
var<workgroup> wconsts: StepConsts;
// QUIET: some cell the strip wrote held water between the two sub-steps.
var<workgroup> wwet: atomic<u32>;
// The sub-step's constants, as every thread holds them.
var<private> pc: StepConsts;

// Manning's n² of the face between cells l and r (flow.wgsl's face_n2).
fn face_n2(l: u32, r: u32) -> f32 {
    if (!ROUGH) {
        return 1.0;
    }
    let nf = 0.5 * (terrain[grid.cells + l] + terrain[grid.cells + r]);
    return nf * nf;
}

// Accelerated, unlimited discharge of an interior face from its old discharge `v` (pipes) or
// its advected velocity (ADV): flow.wgsl's accelerate, with common.wgsl's bed friction.
fn accelerate(v: f32, bl: f32, br: f32, dl: f32, dr: f32, n2: f32) -> f32 {
    let hl = bl + dl;
    let hr = br + dr;
    let hf = max(max(hl, hr) - max(bl, br), 0.0);
    if (MODE == MODE_SWE) {
        if (hf <= DRY) {
            return 0.0;
        }
        let u = bed(v, pc.g_dt * (hl - hr) / grid.dx, abs(v), hf, n2, pc);
        let h = select(dr, dl, u > 0.0);
        return u * h * grid.dx;
    }
    if (MODE == MODE_PIPES_ADV) {
        let wet = hf > 0.0;
        let q = v * select(0.0, select(dr, dl, v > 0.0), wet) * grid.dx;
        return bed_q(q, pc.g_dt * section(hl, hr, dl, dr, bl, br) * (hl - hr), hf, n2, pc);
    }
    let accel = pc.g_dt * section(hl, hr, dl, dr, bl, br) * (hl - hr);
    if (FRICTION == 0u) {
        return v * pc.fric + accel;
    }
    let hh = max(hf, DRY);
    let speed = abs(v) / (grid.dx * hh);
    var depth_term = 1.0 / hh;
    if (FRICTION == 1u) {
        depth_term = 1.0 / (hh * pow(hh, 1.0 / 3.0));
    }
    return (v + accel) / (1.0 + pc.fk * n2 * speed * depth_term);
}

fn limit(q: f32, k_up_left: f32, k_down_right: f32) -> f32 {
    return q * select(k_down_right, k_up_left, q > 0.0);
}

// Outflow-limiting factor of a cell holding `d` with accelerated outflows `out`.
fn factor(out: f32, d: f32) -> f32 {
    let vol = d * pc.vol_rate;
    return select(1.0, vol / out, out > vol);
}

// What a thread reads for row r: terrain, depth and the old discharges of its left x-face and
// top y-face.
struct Row {
    b: f32,
    d: f32,
    vl: f32,
    vy: f32,
}

fn load_row(ci: i32, r: i32, par: u32) -> Row {
    let nx = grid.nx;
    var l = Row(0.0, 0.0, 0.0, 0.0);
    let c = u32(max(ci, 0));
    if (r >= 0 && r < i32(grid.ny) && ci >= 0 && ci < i32(nx)) {
        let ru = u32(r);
        l.b = terrain[ru * nx + c];
        l.d = depth[par * grid.half_d + ru * nx + c];
        if (ADV) {
            // The advected velocities, as the fused flow pass advects them.
            let cur = halves_of(par);
            if (ci > 0) {
                l.vl = advect_u(c, ru, cur, pc.dt);
            }
            if (r > 0) {
                l.vy = advect_v(c, ru, cur, pc.dt);
            }
        } else {
            if (ci > 0) {
                l.vl = qx[par * grid.half_qx + ru * (nx + 1u) + c];
            }
            if (r > 0) {
                l.vy = qy[par * grid.half_qy + ru * nx + c];
            }
        }
    }
    return l;
}

// The length of the pair's sub-steps, which holds films to a cell each: a step's (`grid.dt`,
// the uniform: the step pairs' build reads no table for it, which measured faster), or, in
// the `SUB` build, the step's sub-steps' (`pc.dt`).
fn film_dt() -> f32 {
    if (SUB) {
        return pc.dt;
    }
    return grid.dt;
}

@compute @workgroup_size(TW)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    if (t == 0u) {
        // This build runs the control pass's pairs of its kind: two steps (1), or a step's
        // first two sub-steps (2, `SUB`).
        wrun = select(0u, aux.ctl.running, aux.ctl.pair == select(1u, 2u, SUB));
        // The sub-step's constants (both sub-steps of a pair have the same).
        wconsts = aux.consts[aux.ctl.n];
        if (QUIET && ADV) {
            quiet_clear();
            atomicStore(&wwet, 0u);
        }
    }
    if (workgroupUniformLoad(&wrun) == 0u) {
        return;
    }
    pc = wconsts;
    let nx = grid.nx;
    let ny = grid.ny;
    let inx = i32(nx);
    let iny = i32(ny);
    let par = aux.ctl.parity;
    let nxt = par ^ 1u;
    let ci = i32(wid.x * (TW - 8u) + t) - 4;
    let c = u32(max(ci, 0));
    let col_in = ci >= 0 && ci < inx;
    let writes = col_in && t >= 4u && t < TW - 4u;
    let y0 = i32(wid.y * PH);
    let y1 = min(y0 + i32(PH), iny);
    if (QUIET && ADV) {
        let x0 = i32(wid.x * (TW - 8u));
        if (quiet_leave_out(t, TW, x0, min(x0 + i32(TW - 8u), inx), y0, y1)) {
            return;
        }
    }
    if (t == 0u) {
        atomicStore(&wmax, 0u);
        if (ADV) {
            atomicStore(&wspd, 0u);
        }
        atomicStore(&wbad, NONE);
    }
    if (ADV) {
        sspd[t] = 0.0;
    }

    // Stage A's rolling rows, as flow.wgsl's.
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
    // rounding error of rows r-3, r-4, r-5; the first step's limited left x-face and top y-face of rows
    // r-2 (`fla`, `fta`) and r-3 (`flb`, `ftb`).
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
    // ADV: stage A's limited faces of row r-4 (left, right x-faces, top y-face) and right
    // x-faces of rows r-2, r-3; its face velocities of rows r-2, r-3, r-4 (x: `wxa`, `wxb`,
    // `wxc`; y: `wya`, `wyb`, `wyc`).
    var flc = 0.0;
    var ftc = 0.0;
    var fra = 0.0;
    var frb = 0.0;
    var frc = 0.0;
    var wxa = 0.0;
    var wxb = 0.0;
    var wxc = 0.0;
    var wya = 0.0;
    var wyb = 0.0;
    var wyc = 0.0;
    // ADV: the left neighbour's old depth of row r-1 and first-step depth of row r-4.
    var dl1 = 0.0;
    var el4 = 0.0;
    // Stage B's rolling rows: accelerated faces of row r-4, factor and limited faces of r-5.
    var bxl1 = 0.0;
    var bxr1 = 0.0;
    var by1 = 0.0;
    var kb2 = 1.0;
    var gl2 = 0.0;
    var gr2 = 0.0;
    var gt2 = 0.0;
    var vmax = 0.0;
    // QUIET: the most water a written cell held between the two sub-steps.
    var wet = 0.0;
    let rows = PH + 9u;
    var ahead = load_row(ci, y0 - 4, par);

    for (var s = 0u; s < rows; s = s + 1u) {
        let r = y0 - 4 + i32(s);
        let row_in = r >= 0 && r < iny;
        let ru = u32(max(r, 0));
        // This row's loads were issued an iteration ago; issue the next row's now.
        let row = ahead;
        if (s + 1u < rows) {
            ahead = load_row(ci, r + 1, par);
        }
        let b = row.b;
        let d = row.d;
        let r2 = r - 2;
        let row2_in = col_in && r2 >= 0 && r2 < iny;
        sb[t] = b;
        sd[t] = d;
        sb3[t] = b3;
        sd3[t] = e3;
        if (ADV) {
            sfx[t] = flb;
            swx[t] = wxb;
            sfy[t] = ftb;
            sfy1[t] = fta;
            swy[t] = wyb;
        }
        workgroupBarrier();
        // ADV: the left neighbour's old depth of row r (stage A) and first-step depth of row
        // r-3 (stage B); those of the rows above came with the last row.
        let tl = max(t, 1u) - 1u;
        var dl0 = 0.0;
        var el3 = 0.0;
        if (ADV) {
            dl0 = sd[tl];
            el3 = sd3[tl];
        }

        // Stage A: the faces of row r, the factor of row r-1.
        // The map's border faces are walls (pairs run only where every edge is one): 0.
        var axl = 0.0;
        var axr = 0.0;
        if (row_in && col_in && ci > 0 && t > 0u) {
            let l = ru * nx + c - 1u;
            axl = accelerate(row.vl, sb[t - 1u], b, sd[t - 1u], d, face_n2(l, l + 1u));
        }
        var ay = 0.0;
        if (row_in && col_in && r > 0) {
            let r0 = ru * nx + c;
            ay = accelerate(row.vy, b1, b, d1, d, face_n2(r0 - nx, r0));
        }
        var k1 = 1.0;
        if (col_in && r - 1 >= 0 && r - 1 < iny) {
            let out = max(-axl1, 0.0) + max(axr1, 0.0) + max(-ay1, 0.0) + max(ay, 0.0);
            k1 = factor(out, d1);
        }

        // Stage B: the second step's faces of row q = r-3, the factor of row r-4.
        let q = r - 3;
        let q_in = q >= 0 && q < iny;
        let qu = u32(max(q, 0));
        // The faces' old discharges (pipes) or advected velocities (ADV).
        var bvl = flb;
        var bvy = ftb;
        if (ADV) {
            let inv = grid.inv_dx;
            let tr = min(t + 1u, TW - 1u);
            // momentum.wgsl's advect_u of x-face (c, q).
            bvl = wxb;
            let hx = 0.5 * (el3 + e3);
            if (hx > DRY) {
                let ql = 0.5 * (sfx[tl] * inv + flb * inv);
                let qr = 0.5 * (flb * inv + frb * inv);
                let ul = select(wxb, swx[tl], ql > 0.0);
                let ur = select(swx[tr], wxb, qr > 0.0);
                let qt = 0.5 * (sfy[tl] * inv + ftb * inv);
                let qb = 0.5 * (sfy1[tl] * inv + fta * inv);
                let ut = select(wxb, wxc, qt > 0.0 && q > 0);
                let ub = select(wxb, wxa, qb <= 0.0 && q + 1 < iny);
                bvl = advected(wxb, vec4<f32>(ul, ur, ut, ub), vec4<f32>(ql, qr, qt, qb), hx, pc.dt);
            }
            // momentum.wgsl's advect_v of the y-face above row q.
            bvy = wyb;
            let hy = 0.5 * (e4 + e3);
            if (hy > DRY) {
                let qt = 0.5 * (ftc * inv + ftb * inv);
                let qb = 0.5 * (ftb * inv + fta * inv);
                let vt = select(wyb, wyc, qt > 0.0);
                let vb = select(wya, wyb, qb > 0.0);
                let ql = 0.5 * (flc * inv + flb * inv);
                let qr = 0.5 * (frc * inv + frb * inv);
                let vl = select(wyb, swy[tl], ql > 0.0 && ci > 0);
                let vr = select(wyb, swy[tr], qr <= 0.0 && ci + 1 < inx);
                bvy = advected(wyb, vec4<f32>(vt, vb, vl, vr), vec4<f32>(qt, qb, ql, qr), hy, pc.dt);
            }
        }
        var bxl = 0.0;
        var bxr = 0.0;
        if (q_in && col_in && ci > 0 && t > 0u) {
            let l = qu * nx + c - 1u;
            bxl = accelerate(bvl, sb3[t - 1u], b3, sd3[t - 1u], e3, face_n2(l, l + 1u));
        }
        var by = 0.0;
        if (q_in && col_in && q > 0) {
            let q0 = qu * nx + c;
            by = accelerate(bvy, b4, b3, e4, e3, face_n2(q0 - nx, q0));
        }
        var kb1 = 1.0;
        if (col_in && q - 1 >= 0 && q - 1 < iny) {
            let out = max(-bxl1, 0.0) + max(bxr1, 0.0) + max(-by1, 0.0) + max(by, 0.0);
            kb1 = factor(out, e4);
        }
        sk[t] = k1;
        sa[t] = axl;
        sk2[t] = kb1;
        sa2[t] = bxl;
        workgroupBarrier();

        // Stage A: limit row r-1, update row r-2 (every cell of it the workgroup loads).
        if (row_in && col_in && ci + 1 < inx && t + 1u < TW) {
            axr = sa[t + 1u];
        }
        let kl = sk[max(t, 1u) - 1u];
        let kr = sk[min(t + 1u, TW - 1u)];
        let fl1 = limit(axl1, kl, k1);
        let fr1 = limit(axr1, k1, kr);
        let ft1 = limit(ay1, k2, k1);
        // ADV: their velocities, from the old depths (the border faces are walls: 0). Films are
        // held to dx over the sub-step's length (`film_dt`).
        var wx1 = 0.0;
        var wy1 = 0.0;
        if (ADV) {
            if (ci > 0) {
                wx1 = face_vel(fl1, dl1, d1, film_dt()).x;
            }
            if (r - 1 > 0 && r - 1 < iny) {
                wy1 = face_vel(ft1, d2, d1, film_dt()).x;
            }
        }
        var e2 = 0.0;
        var cc = 0.0;
        if (row2_in) {
            var cin = 0.0;
            if (RAIN) {
                cin = pc.rain;
            }
            let tt = (fl2 - fr2 + ft2 - ft1) * pc.c + cin;
            e2 = max(d2 + tt, 0.0);
            // A bad value here reaches stage B's check through the rounding kept (`cc`).
            cc = tt - (e2 - d2);
        }

        // Stage B: limit row r-4 and write its faces; update and write row r-5.
        if (q_in && col_in && ci + 1 < inx && t + 1u < TW) {
            bxr = sa2[t + 1u];
        }
        let jl = sk2[max(t, 1u) - 1u];
        let jr = sk2[min(t + 1u, TW - 1u)];
        let gl1 = limit(bxl1, jl, kb1);
        let gr1 = limit(bxr1, kb1, jr);
        let gt1 = limit(by1, kb2, kb1);
        if (writes) {
            let r4 = r - 4;
            if (r4 >= y0 && r4 < y1) {
                let fx = u32(r4) * (nx + 1u) + c;
                qx[nxt * grid.half_qx + fx] = gl1;
                if (ADV) {
                    var u = border_vel(gl1, e4);
                    if (ci > 0) {
                        u = face_vel(gl1, el4, e4, film_dt());
                    }
                    vel[nxt * (grid.half_qx + grid.half_qy) + fx] = u.x;
                    sspd[t] = max(sspd[t], abs(u.x) * u.y);
                }
                if (c + 1u == nx) {
                    qx[nxt * grid.half_qx + fx + 1u] = gr1;
                    if (ADV) {
                        let u = border_vel(gr1, e4);
                        vel[nxt * (grid.half_qx + grid.half_qy) + fx + 1u] = u.x;
                        sspd[t] = max(sspd[t], abs(u.x) * u.y);
                    }
                }
            }
            // Face rows y0 .. y1-1 are the tops of this strip's rows; face ny closes the grid.
            if ((r4 >= y0 && r4 < y1) || (r4 == iny && y1 == iny)) {
                let fy = u32(r4) * nx + c;
                qy[nxt * grid.half_qy + fy] = gt1;
                if (ADV) {
                    // The top border's cell is row 0 (e4), the bottom border's row ny-1 (e5).
                    var v = face_vel(gt1, e5, e4, film_dt());
                    if (r4 == 0) {
                        v = border_vel(gt1, e4);
                    } else if (r4 == iny) {
                        v = border_vel(gt1, e5);
                    }
                    vel[nxt * (grid.half_qx + grid.half_qy) + grid.half_qx + fy] = v.x;
                    sspd[t] = max(sspd[t], abs(v.x) * v.y);
                }
            }
            let r5 = r - 5;
            if (r5 >= y0 && r5 < y1) {
                let cell = u32(r5) * nx + c;
                // The carry, and stage A's rounding of this cell's first step. Read here: loaded
                // with the row ahead it held a register across the march, and the pass ran at
                // 74.0 Gcell/s at 4096² on an H100 instead of 82.2.
                var cin = carry[cell] + c5;
                if (RAIN) {
                    cin = cin + pc.rain;
                }
                let tt = (gl2 - gr2 + gt2 - gt1) * pc.c + cin;
                let v = max(e5 + tt, 0.0);
                // A failed sub-step leaves no residue where it blew up (the CPU's carry too).
                carry[cell] = select(tt - (v - e5), 0.0, is_bad(tt));
                depth[nxt * grid.half_d + cell] = v;
                vmax = max(vmax, v);
                if (QUIET && ADV) {
                    wet = max(wet, e5);
                }
                if (is_bad(tt)) {
                    atomicMin(&wbad, cell);
                }
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
        if (ADV) {
            dl1 = dl0;
            el4 = el3;
            flc = flb;
            ftc = ftb;
            frc = frb;
            frb = fra;
            fra = fr1;
            wxc = wxb;
            wxb = wxa;
            wxa = wx1;
            wyc = wyb;
            wyb = wya;
            wya = wy1;
        }
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

    atomicMax(&wmax, bitcast<u32>(vmax));
    if (ADV) {
        atomicMax(&wspd, bitcast<u32>(sspd[t]));
    }
    if (QUIET && ADV && wet > 0.0) {
        atomicStore(&wwet, 1u);
    }
    workgroupBarrier();
    if (QUIET && ADV) {
        // The strip's columns again (not kept as live values across the march).
        let x0 = i32(wid.x * (TW - 8u));
        let water = atomicLoad(&wwet) != 0u || bitcast<f32>(atomicLoad(&wmax)) > 0.0;
        quiet_ran(t, TW, x0, min(x0 + i32(TW - 8u), inx), y0, y1, water);
    }
    if (t == 0u) {
        atomicMax(&aux.ctl.max_depth, atomicLoad(&wmax));
        if (ADV) {
            atomicMax(&aux.ctl.max_speed, atomicLoad(&wspd));
        }
        let bad = atomicLoad(&wbad);
        if (bad != NONE) {
            atomicMin(&aux.ctl.blowup_cell, bad);
        }
    }
}
