// Fused flow pass: the advection, flow and store passes of one sub-step in one dispatch, where
// the advection is momentum-conserving and the sub-step has no blockers or structures (pipes
// with momentum advection, the conservative shallow-water mode). Appended to momentum.wgsl and
// flow.wgsl, whose bindings and helpers (accelerate, limit, face_n2) it uses.
//
// Strips and threads are the flow pass's: TW threads, one column each, own TW - 4 columns (two
// halo columns a side) and TH rows, and march down them. Each row is loaded from memory once,
// coalesced, into three rotating slots of workgroup memory: terrain, depth, the discharge and
// velocity of the thread's left x-face (the last thread also its right one) and of the y-face
// above its cell. Advecting a face reads the rows above and below it, so everything runs one row
// behind the plain pass: at the iteration that loads row r it advects the faces of row r-1 from
// workgroup memory (momentum.wgsl's advect_u_of / advect_v_of, the advection pass's expressions),
// accelerates them, computes the limiting factors of row r-2, limits its faces and writes them
// with their velocities (the store pass's face_vel), and updates the depth and carry of row r-3.
// Three barriers a row: after the loads, after the advected x-faces (each thread's right face is
// its neighbour's left), after the factors. Memory traffic per cell: terrain 4 B, depth 8,
// discharges 16, velocities 16, carry 8: 52 B, plus the halo's 4 columns and 5 rows.

// Width of a row slot: one value per thread and the last thread's right x-face.
const FW: u32 = TW + 1u;

var<workgroup> fb: array<f32, 3u * FW>;
var<workgroup> fd: array<f32, 3u * FW>;
var<workgroup> fqx: array<f32, 3u * FW>;
var<workgroup> fu: array<f32, 3u * FW>;
var<workgroup> fqy: array<f32, 3u * FW>;
var<workgroup> fv: array<f32, 3u * FW>;
// The advected velocity of each thread's left x-face in the row being accelerated.
var<workgroup> fa: array<f32, TW>;
// Limiting factors of the row being limited.
var<workgroup> fk: array<f32, TW>;
// Each thread's largest face speed so far (a value carried in a register from row to row costs
// the pass occupancy).
var<workgroup> fspd: array<f32, TW>;
var<workgroup> fmax_speed: atomic<u32>;

// What a thread loads of row r (cells and the faces above and left of them, 0 outside the grid)
// and the carry of row r-3, the row whose depth it updates then.
struct Slice {
    b: f32,
    d: f32,
    qx: f32,
    u: f32,
    qy: f32,
    v: f32,
    // The last thread's right x-face.
    qxr: f32,
    ur: f32,
    cin: f32,
}

fn load_slice(at: Column, t: u32, r: i32) -> Slice {
    let nx = grid.nx;
    let inx = i32(nx);
    var l = Slice(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    if (r >= 0 && r < i32(grid.ny)) {
        let ru = u32(r);
        if (at.col_in) {
            l.b = terrain[ru * nx + at.c];
            l.d = depth[at.cur.d + ru * nx + at.c];
        }
        let fx = ru * (nx + 1u);
        if (at.ci >= 0 && at.ci <= inx) {
            l.qx = qx[at.cur.qx + fx + u32(at.ci)];
            l.u = vel[at.cur.v + fx + u32(at.ci)];
        }
        if (t == TW - 1u && at.ci + 1 >= 0 && at.ci + 1 <= inx) {
            l.qxr = qx[at.cur.qx + fx + u32(at.ci + 1)];
            l.ur = vel[at.cur.v + fx + u32(at.ci + 1)];
        }
    }
    if (r >= 0 && r <= i32(grid.ny) && at.col_in) {
        let fy = u32(r) * nx + at.c;
        l.qy = qy[at.cur.qy + fy];
        l.v = vel[at.cur.v + grid.half_qx + fy];
    }
    let r3 = r - 3;
    if (at.writes && r3 >= at.y0 && r3 < at.y1) {
        l.cin = carry[u32(r3) * nx + at.c];
    }
    return l;
}

@compute @workgroup_size(TW)
fn fused(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    // Spare sub-steps (not opened by the control pass) do nothing.
    if (t == 0u) {
        wrun = aux.ctl.running;
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
    let ci = i32(wid.x * W + t) - 2;
    let c = u32(max(ci, 0));
    let col_in = ci >= 0 && ci < inx;
    let writes = col_in && t >= 2u && t < TW - 2u;
    let y0 = i32(wid.y * TH);
    let y1 = min(y0 + i32(TH), iny);
    // Neighbours' columns in a slot (the first thread's left one is its own: never used).
    let tl = max(t, 1u) - 1u;
    let tr = t + 1u;
    if (t == 0u) {
        atomicStore(&wmax, 0u);
        atomicStore(&fmax_speed, 0u);
        atomicStore(&wbad, NONE);
    }
    fspd[t] = 0.0;

    // Rolling state: accelerated faces of row r-2 (x-faces, the y-face above it), the factor,
    // old depth and limited faces of row r-3.
    var axl2 = 0.0;
    var axr2 = 0.0;
    var ay2 = 0.0;
    var k3 = 1.0;
    var d3 = 0.0;
    var fl3 = 0.0;
    var fr3 = 0.0;
    var ft3 = 0.0;
    var vmax = 0.0;
    let at = Column(ci, c, col_in, writes, y0, y1, cur);
    var ahead = load_slice(at, t, y0 - 2);

    for (var s = 0u; s < TH + 5u; s = s + 1u) {
        let r = y0 - 2 + i32(s);
        // Slots of rows r (new), r-1 (advected and accelerated now), r-2 (limited now).
        let sn = (s % 3u) * FW;
        let sj = ((s + 2u) % 3u) * FW;
        let sp = ((s + 1u) % 3u) * FW;
        let row = ahead;
        if (s + 1u < TH + 5u) {
            ahead = load_slice(at, t, r + 1);
        }
        fb[sn + t] = row.b;
        fd[sn + t] = row.d;
        fqx[sn + t] = row.qx;
        fu[sn + t] = row.u;
        fqy[sn + t] = row.qy;
        fv[sn + t] = row.v;
        if (t == TW - 1u) {
            fqx[sn + TW] = row.qxr;
            fu[sn + TW] = row.ur;
        }
        workgroupBarrier();

        // Advect the faces of row j = r-1: the x-face left of this thread's cell and the y-face
        // above it.
        let j = r - 1;
        let ju = u32(max(j, 0));
        let j_in = j >= 0 && j < iny;
        let iu = u32(max(ci, 0));
        var au = 0.0;
        if (j_in && ci >= 0 && ci <= inx) {
            au = advect_u_of(iu, ju, fu[sj + t], fu[sj + tl], fu[sj + tr], fu[sp + t], fu[sn + t],
                fd[sj + tl], fd[sj + t], fqx[sj + tl], fqx[sj + t], fqx[sj + tr],
                fqy[sj + tl], fqy[sj + t], fqy[sn + tl], fqy[sn + t], sc.dt);
        }
        var av = 0.0;
        if (j_in && col_in) {
            av = advect_v_of(iu, ju, fv[sj + t], fv[sp + t], fv[sn + t], fv[sj + tl],
                fv[sj + min(tr, TW - 1u)], fd[sp + t], fd[sj + t], fqy[sp + t], fqy[sj + t],
                fqy[sn + t], fqx[sp + t], fqx[sj + t], fqx[sp + tr], fqx[sj + tr], sc.dt);
        }
        fa[t] = au;
        workgroupBarrier();

        // Accelerated faces of row j: x-faces c and c+1, and the y-face between rows j-1, j.
        var axl = 0.0;
        var axr = 0.0;
        if (j_in && col_in) {
            if (ci == 0) {
                axl = aux.faces[ju];
            } else if (t > 0u) {
                let l = ju * nx + c - 1u;
                axl = accelerate(au, fb[sj + tl], fb[sj + t], fd[sj + tl], fd[sj + t], face_n2(l, l + 1u), sc);
            }
            if (ci + 1 == inx) {
                axr = aux.faces[ny + ju];
            } else if (tr < TW) {
                let l = ju * nx + c;
                axr = accelerate(fa[tr], fb[sj + t], fb[sj + tr], fd[sj + t], fd[sj + tr], face_n2(l, l + 1u), sc);
            }
        }
        var ay = 0.0;
        if (col_in) {
            if (j == 0) {
                ay = aux.faces[2u * ny + c];
            } else if (j == iny) {
                ay = aux.faces[2u * ny + nx + c];
            } else if (j_in) {
                let r0 = ju * nx + c;
                ay = accelerate(av, fb[sp + t], fb[sj + t], fd[sp + t], fd[sj + t], face_n2(r0 - nx, r0), sc);
            }
        }

        // Outflow-limiting factor of cell (c, r-2); 1 outside the grid. Its old depth and its
        // left neighbour's are taken now: their slot is row r+1's at the next iteration.
        let d2 = fd[sp + t];
        let dl2 = fd[sp + tl];
        let r2 = r - 2;
        var k2 = 1.0;
        if (col_in && r2 >= 0 && r2 < iny) {
            let out = max(-axl2, 0.0) + max(axr2, 0.0) + max(-ay2, 0.0) + max(ay, 0.0);
            let vol = d2 * sc.vol_rate;
            k2 = select(1.0, vol / out, out > vol);
        }
        fk[t] = k2;
        workgroupBarrier();

        // Limited faces of row r-2 (x-faces c, c+1; the y-face above it), with their
        // velocities.
        let fl2 = limit(axl2, fk[tl], k2);
        let fr2 = limit(axr2, k2, fk[min(tr, TW - 1u)]);
        let ft2 = limit(ay2, k3, k2);
        if (writes) {
            if (r2 >= y0 && r2 < y1) {
                let fx = u32(r2) * (nx + 1u) + c;
                qx[nxt.qx + fx] = fl2;
                var u = border_vel(fl2, d2);
                if (ci > 0) {
                    u = face_vel(fl2, dl2, d2);
                }
                vel[nxt.v + fx] = u.x;
                fspd[t] = max(fspd[t], abs(u.x) * u.y);
                if (c + 1u == nx) {
                    qx[nxt.qx + fx + 1u] = fr2;
                    let ur = border_vel(fr2, d2);
                    vel[nxt.v + fx + 1u] = ur.x;
                    fspd[t] = max(fspd[t], abs(ur.x) * ur.y);
                }
            }
            // Face rows y0 .. y1-1 are the tops of this strip's rows; face ny closes the grid.
            if ((r2 >= y0 && r2 < y1) || (r2 == iny && y1 == iny)) {
                let fy = u32(r2) * nx + c;
                qy[nxt.qy + fy] = ft2;
                // The top border's cell is row 0 (d2), the bottom border's row ny-1 (d3).
                var v = face_vel(ft2, d3, d2);
                if (r2 == 0) {
                    v = border_vel(ft2, d2);
                } else if (r2 == iny) {
                    v = border_vel(ft2, d3);
                }
                vel[nxt.v + grid.half_qx + fy] = v.x;
                fspd[t] = max(fspd[t], abs(v.x) * v.y);
            }
        }

        // Depth and carry of row r-3: its bottom face is the one just limited.
        let r3 = r - 3;
        if (writes && r3 >= y0 && r3 < y1) {
            let cell = u32(r3) * nx + c;
            var cin = row.cin;
            if (RAIN) {
                cin = cin + sc.rain;
            }
            let tt = (fl3 - fr3 + ft3 - ft2) * sc.c + cin;
            let v = max(d3 + tt, 0.0);
            carry[cell] = tt - (v - d3);
            depth[nxt.d + cell] = v;
            vmax = max(vmax, v);
            if (is_bad(tt)) {
                atomicMin(&wbad, cell);
            }
        }

        d3 = d2;
        k3 = k2;
        fl3 = fl2;
        fr3 = fr2;
        ft3 = ft2;
        axl2 = axl;
        axr2 = axr;
        ay2 = ay;
    }

    atomicMax(&wmax, bitcast<u32>(vmax));
    atomicMax(&fmax_speed, bitcast<u32>(fspd[t]));
    workgroupBarrier();
    if (t == 0u) {
        atomicMax(&aux.ctl.max_depth, atomicLoad(&wmax));
        atomicMax(&aux.ctl.max_speed, atomicLoad(&fmax_speed));
        let bad = atomicLoad(&wbad);
        if (bad != NONE) {
            atomicMin(&aux.ctl.blowup_cell, bad);
        }
    }
}
