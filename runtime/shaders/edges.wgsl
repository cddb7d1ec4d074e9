// Edge pass (sim::boundary): accelerates the border faces before the flow pass (an open edge
// carries on the outward flow of the face behind it, an outfall; else its ghost column, with
// the edge cell's bed friction on a fixed-level edge and none on an open one), and after it
// relaxes the open edges' ghost surfaces (Müller's radiation rule) and books the volume that
// crossed the edges into one ledger slot per workgroup. Only encoded when some edge cell is not
// a wall.

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read> terrain: array<f32>;
@group(0) @binding(3) var<storage, read> depth: array<f32>;
@group(0) @binding(4) var<storage, read> qx: array<f32>;
@group(0) @binding(5) var<storage, read> qy: array<f32>;
@group(0) @binding(6) var<storage, read_write> cells: array<EdgeCell>;
@group(0) @binding(7) var<storage, read_write> ledger: array<vec4<f32>>;
// The patch table, for the schedules of tides and inflow hydrographs (schedule.wgsl, which the
// runtime prepends).
@group(0) @binding(8) var<storage, read> patches: array<u32>;

struct EdgeCell {
    // 0 wall, 1 open, 2 fixed level, 3 inflow; + SCHEDULED where the value follows a schedule
    kind: u32,
    // fixed surface height, or inflow per cell (m³/s); with SCHEDULED, the bits of the word
    // offset of its schedule in the patch table
    value: f32,
    ghost: f32,
    // 1: start the ghost at the current surface (set by the CPU when the condition changed)
    reset: u32,
}

var<workgroup> red: array<vec4<f32>, 256>;

// Sign that turns a discharge into the map into a +x / +y discharge on this edge.
fn inward(e: u32) -> f32 {
    return select(-1.0, 1.0, e == 0u || e == 2u);
}

fn border_q(e: u32, k: u32, qxh: u32, qyh: u32) -> f32 {
    let nx = grid.nx;
    if (e == 0u) {
        return qx[qxh + k * (nx + 1u)];
    } else if (e == 1u) {
        return qx[qxh + k * (nx + 1u) + nx];
    } else if (e == 2u) {
        return qy[qyh + k];
    }
    return qy[qyh + grid.ny * nx + k];
}

// The outfall discharge out of the map at open edge cell c of edge e (sim::boundary::outfall),
// or a negative number where there is none: only where the water behind leaves at a Froude
// number of at least min_froude (OPEN_FROUDE for open edges, 1 for fixed-level edges).
fn outfall(e: u32, k: u32, c: u32, dh: u32, qxh: u32, qyh: u32, min_froude: f32) -> f32 {
    let nx = grid.nx;
    let ny = grid.ny;
    var q = 0.0;
    var behind = 0u;
    if (e == 0u) {
        q = -qx[qxh + k * (nx + 1u) + 1u];
        behind = c + 1u;
    } else if (e == 1u) {
        q = qx[qxh + k * (nx + 1u) + nx - 1u];
        behind = c - 1u;
    } else if (e == 2u) {
        q = -qy[qyh + nx + k];
        behind = c + nx;
    } else {
        q = qy[qyh + (ny - 1u) * nx + k];
        behind = c - nx;
    }
    let d_behind = depth[dh + behind];
    if (!(q > 0.0 && d_behind > DRY)) {
        return -1.0;
    }
    let f2 = min_froude * min_froude;
    if (q * q < f2 * grid.gravity * d_behind * d_behind * d_behind * grid.dx * grid.dx) {
        return -1.0;
    }
    return q * min(depth[dh + c] / d_behind, MAX_OUTFALL_RATIO);
}

const MAX_OUTFALL_RATIO: f32 = 2.0;
const SCHEDULED: u32 = 0x100u;
const OPEN_FROUDE: f32 = 0.1;

@compute @workgroup_size(256)
fn accelerate(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = gid.x;
    if (p >= grid.perimeter || aux.ctl.running == 0u) {
        return;
    }
    let sc = aux.consts[aux.ctl.n];
    let par = aux.ctl.parity;
    let loc = edge_cell(grid, p);
    let e = loc.x;
    let c = loc.z;
    let s = inward(e);
    let cell = cells[p];
    let kind = cell.kind & 0xffu;
    var value = cell.value;
    if ((cell.kind & SCHEDULED) != 0u) {
        // At the sub-step's middle, as the sources' rates (forcing.wgsl).
        value = scheduled(bitcast<u32>(cell.value), 0.5 * sc.dt);
    }
    var face = 0.0;
    var out = -1.0;
    if (kind == 1u || kind == 2u) {
        out = outfall(
            e, loc.y, c, par * grid.half_d, par * grid.half_qx, par * grid.half_qy,
            select(OPEN_FROUDE, 1.0, kind == 2u)
        );
    }
    if (out >= 0.0) {
        face = -s * out;
    } else if (kind == 3u) {
        face = s * value;
    } else if (kind == 1u || kind == 2u) {
        let b = terrain[c];
        let d = depth[par * grid.half_d + c];
        let h_in = b + d;
        var h_out = max(cell.ghost, b);
        if (kind == 2u) {
            h_out = max(value, b);
        }
        var hl = h_in;
        var hr = h_out;
        var dl = d;
        var dr = h_out - b;
        if (s > 0.0) {
            hl = h_out;
            hr = h_in;
            dl = h_out - b;
            dr = d;
        }
        let a = section(hl, hr, dl, dr, b, b);
        let q = border_q(e, loc.y, par * grid.half_qx, par * grid.half_qy);
        var n2 = 1.0;
        if (ROUGH) {
            let n = terrain[grid.cells + c];
            n2 = n * n;
        }
        let accel = sc.g_dt * a * (hl - hr);
        if (kind == 1u) {
            // The face to the outside world has no bed (sim::boundary).
            face = q + accel;
        } else {
            face = bed_q(q, accel, max(hl, hr) - b, n2, sc);
        }
    }
    aux.faces[p] = face;
}

@compute @workgroup_size(256)
fn finish(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let p = gid.x;
    let ok = aux.ctl.running != 0u && atomicLoad(&aux.ctl.blowup_cell) == NONE;
    var into = vec2<f32>(0.0);
    var out = vec2<f32>(0.0);
    if (ok && p < grid.perimeter) {
        let sc = aux.consts[aux.ctl.n];
        // The new state is in the other half until the control pass flips the parity.
        let nxt = aux.ctl.parity ^ 1u;
        let loc = edge_cell(grid, p);
        let e = loc.x;
        let q = border_q(e, loc.y, nxt * grid.half_qx, nxt * grid.half_qy);
        let v = inward(e) * q * sc.dt;
        if (v > 0.0) {
            into = vec2<f32>(v, 0.0);
        } else {
            out = vec2<f32>(-v, 0.0);
        }
        if (cells[p].kind == 1u) {
            let c = loc.z;
            let b = terrain[c];
            let d = depth[nxt * grid.half_d + c];
            let u = b + d;
            let g = cells[p].ghost;
            let h = max(max(d, g - b), 0.0);
            let cw = sqrt(grid.gravity * h);
            cells[p].ghost = (cw * sc.dt * u + g * grid.dx) / (grid.dx + cw * sc.dt);
        }
    }
    red[lid] = vec4<f32>(into, out);
    for (var s = 128u; s > 0u; s = s >> 1u) {
        workgroupBarrier();
        if (lid < s) {
            let a = red[lid];
            let b = red[lid + s];
            red[lid] = vec4<f32>(df_add(a.xy, b.xy), df_add(a.zw, b.zw));
        }
    }
    workgroupBarrier();
    if (lid == 0u && ok) {
        let slot = 1u + wid.x;
        let a = ledger[slot];
        ledger[slot] = vec4<f32>(df_add(a.xy, red[0].xy), df_add(a.zw, red[0].zw));
    }
}

// Starts flagged ghosts at the current surface (after the edge conditions changed).
@compute @workgroup_size(256)
fn reset_ghosts(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = gid.x;
    if (p >= grid.perimeter || cells[p].reset == 0u) {
        return;
    }
    let c = edge_cell(grid, p).z;
    cells[p].ghost = terrain[c] + depth[aux.ctl.parity * grid.half_d + c];
    cells[p].reset = 0u;
}
