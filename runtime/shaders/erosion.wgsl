// Erosion pass (sim::erosion on the CPU; owner gpu/erosion.rs): the bed the water moves, at the
// end of every sub-step, on the state the flow pass just wrote (the half the control pass has
// not flipped to yet). Five entries, each one invocation per face or cell, in this order:
//   faces    the bedload (its transport law at the face's speed, the way the water goes) and
//            slumping past the angle of repose through every face, border faces by their edge;
//   supply   the share of its outgoing faces each cell's loose bed above its bedrock can feed;
//   exner    the terrain change by Exner from the faces scaled by their donor's supply;
//   conc     the suspended load's concentration in the water each cell held this sub-step;
//   suspend  the grains carried through the faces (upwind), picked up where the bed shear passes
//            the critical one and settled at the fall speed; the terrain follows.
// Both the terrain and the load keep the change f32 could not hold yet (compensated).

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read_write> terrain: array<f32>;
@group(0) @binding(3) var<storage, read> depth: array<f32>;
@group(0) @binding(4) var<storage, read> qx: array<f32>;
@group(0) @binding(5) var<storage, read> qy: array<f32>;
@group(0) @binding(6) var<storage, read> edge_cells: array<BedEdge>;
// The bed state: bedrock, carry, supply, erodible mask, load, load carry, concentration, faces.
@group(0) @binding(7) var<storage, read_write> grains: array<f32>;
@group(0) @binding(8) var<uniform> law: BedLaw;

// The layout of edges.wgsl's EdgeCell; only the kind is read (0: wall).
struct BedEdge {
    kind: u32,
    value: f32,
    ghost: f32,
    reset: u32,
}

// gpu::erosion::BedLaw.
struct BedLaw {
    // 0 Grass, 1 Meyer-Peter & Müller
    kind: u32,
    grass_a: f32,
    diameter: f32,
    // relative density − 1
    s1: f32,
    critical_shields: f32,
    friction_factor: f32,
    // speedup / (1 − porosity)
    swell: f32,
    talus_rise: f32,
    slump: f32,
    clear_inflow: u32,
    suspension: u32,
    critical_shear: f32,
    pickup: f32,
    settling: f32,
    // 0 Manning's n (value), 1 n per cell after the terrain, 2 Chézy's C (value)
    rough: u32,
    rough_value: f32,
    // Element offsets of the bed buffer's arrays.
    floor: u32,
    carry: u32,
    supply: u32,
    mask: u32,
    load: u32,
    load_carry: u32,
    conc: u32,
    fx: u32,
    fy: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// Water shallower than this moves no bed (sim::erosion::DRY).
const BED_DRY: f32 = 1e-3;
const RHO: f32 = 1000.0;
const EDGE_KIND: u32 = 0xffu;

fn index(wid: vec3<u32>, groups: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * groups.x + wid.x) * 256u + lid;
}

fn sub_dt() -> f32 {
    return aux.consts[aux.ctl.n].dt;
}

// The bedload (m²/s, with the sign of q) through a face with discharge q whose upwind water is
// h deep (sim::erosion::load, level::BedloadLaw::transport).
fn bedload(q: f32, h: f32) -> f32 {
    if (h <= BED_DRY || q == 0.0) {
        return 0.0;
    }
    let u = q / (h * grid.dx);
    let speed = abs(u);
    var b = 0.0;
    if (law.kind == 0u) {
        b = law.grass_a * speed * speed * speed;
    } else {
        let g = grid.gravity;
        let d = law.diameter;
        let theta = law.friction_factor * speed * speed / (8.0 * g * law.s1 * d);
        let excess = max(theta - law.critical_shields, 0.0);
        b = 8.0 * sqrt(g * law.s1 * d * d * d) * excess * sqrt(excess);
    }
    return select(b, -b, u < 0.0);
}

// Bed height per second (before the swell) slumping from a to b.
fn slump(za: f32, zb: f32, dt: f32) -> f32 {
    let excess = abs(za - zb) - law.talus_rise;
    if (excess <= 0.0) {
        return 0.0;
    }
    // A fifth at most: sim::erosion::MAX_SLUMP.
    return min(law.slump * dt, 0.2) * excess * sign(za - zb) / dt * (1.0 / law.swell);
}

// The mask: 1 erodible, 2 where grains only settle (outside a region), 0 neither (gates,
// breaches): sim::erosion::Bed::mask.
// Not in a sub-step, or the sub-step blew up: the bed keeps what it was (the failed flows
// gave infinite loads, NaN in the terrain for good, which the rollback of the water left).
fn halted() -> bool {
    return aux.ctl.running == 0u || atomicLoad(&aux.ctl.blowup_cell) != NONE;
}

fn erodible(c: u32) -> bool {
    return abs(grains[law.mask + c] - 1.0) < 0.5;
}

fn settles(c: u32) -> bool {
    return grains[law.mask + c] > 0.5;
}

fn perimeter(e: u32, k: u32) -> u32 {
    if (e == 0u) {
        return k;
    } else if (e == 1u) {
        return grid.ny + k;
    } else if (e == 2u) {
        return 2u * grid.ny + k;
    }
    return 2u * grid.ny + grid.nx + k;
}

fn is_wall(e: u32, k: u32) -> bool {
    return (edge_cells[perimeter(e, k)].kind & EDGE_KIND) == 0u;
}

// Water into the map through a border face of edge e carrying discharge q.
fn inflow(e: u32, q: f32) -> f32 {
    return select(-q, q, e == 0u || e == 2u);
}

// The bedload through the border face of edge e at cell c.
fn border_load(e: u32, k: u32, c: u32, q: f32, d: u32) -> f32 {
    if (is_wall(e, k) || !erodible(c) || (law.clear_inflow != 0u && inflow(e, q) > 0.0)) {
        return 0.0;
    }
    return bedload(q, depth[d + c]) / grid.dx;
}

@compute @workgroup_size(256)
fn faces(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    if (halted()) {
        return;
    }
    let nx = grid.nx;
    let ny = grid.ny;
    let x_faces = (nx + 1u) * ny;
    let idx = index(wid, groups, lid);
    if (idx >= x_faces + nx * (ny + 1u)) {
        return;
    }
    let nxt = aux.ctl.parity ^ 1u;
    let d = nxt * grid.half_d;
    let dt = sub_dt();
    if (idx < x_faces) {
        let j = idx / (nx + 1u);
        let f = idx % (nx + 1u);
        let q = qx[nxt * grid.half_qx + idx];
        var v = 0.0;
        if (f == 0u) {
            v = border_load(0u, j, j * nx, q, d);
        } else if (f == nx) {
            v = border_load(1u, j, j * nx + nx - 1u, q, d);
        } else {
            let a = j * nx + f - 1u;
            let b = a + 1u;
            let up = select(depth[d + b], depth[d + a], q > 0.0);
            v = bedload(q, up) / grid.dx + slump(terrain[a], terrain[b], dt);
            if (!(erodible(a) && erodible(b))) {
                v = 0.0;
            }
        }
        grains[law.fx + idx] = v;
        return;
    }
    let k = idx - x_faces;
    let j = k / nx;
    let i = k % nx;
    let q = qy[nxt * grid.half_qy + k];
    var v = 0.0;
    if (j == 0u) {
        v = border_load(2u, i, i, q, d);
    } else if (j == ny) {
        v = border_load(3u, i, (ny - 1u) * nx + i, q, d);
    } else {
        let a = (j - 1u) * nx + i;
        let b = j * nx + i;
        let up = select(depth[d + b], depth[d + a], q > 0.0);
        v = bedload(q, up) / grid.dx + slump(terrain[a], terrain[b], dt);
        if (!(erodible(a) && erodible(b))) {
            v = 0.0;
        }
    }
    grains[law.fy + k] = v;
}

@compute @workgroup_size(256)
fn supply(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let c = index(wid, groups, lid);
    if (halted() || c >= grid.cells) {
        return;
    }
    let nx = grid.nx;
    let i = c % nx;
    let j = c / nx;
    let w = law.fx + j * (nx + 1u) + i;
    let n = law.fy + c;
    let out = max(-grains[w], 0.0) + max(grains[w + 1u], 0.0) + max(-grains[n], 0.0) + max(grains[n + nx], 0.0);
    let per = law.swell * sub_dt();
    let room = max(terrain[c] - grains[law.floor + c], 0.0);
    var s = 1.0;
    if (out * per > room) {
        s = room / (out * per);
    }
    grains[law.supply + c] = s;
}

// Face value v between cells `lo` (left/up; has_lo false at the map's edge) and `hi`, scaled by
// the supply of the cell it comes from.
fn scaled(v: f32, lo: u32, has_lo: bool, hi: u32, has_hi: bool) -> f32 {
    if (v > 0.0) {
        return select(v, v * grains[law.supply + lo], has_lo);
    }
    return select(v, v * grains[law.supply + hi], has_hi);
}

// Changes cell c's bed by `change` metres, keeping what f32 cannot hold for the next change.
fn shift(c: u32, change: f32) {
    let total = change + grains[law.carry + c];
    let old = terrain[c];
    let new_z = opaque(old + total);
    grains[law.carry + c] = total - (new_z - old);
    terrain[c] = new_z;
}

@compute @workgroup_size(256)
fn exner(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let c = index(wid, groups, lid);
    if (halted() || c >= grid.cells || !erodible(c)) {
        return;
    }
    let nx = grid.nx;
    let ny = grid.ny;
    let i = c % nx;
    let j = c / nx;
    let w = law.fx + j * (nx + 1u) + i;
    let n = law.fy + c;
    let fw = scaled(grains[w], c - 1u, i > 0u, c, true);
    let fe = scaled(grains[w + 1u], c, true, c + 1u, i + 1u < nx);
    let fn_ = scaled(grains[n], c - nx, j > 0u, c, true);
    let fs = scaled(grains[n + nx], c, true, c + nx, j + 1u < ny);
    let div = fe - fw + fs - fn_;
    shift(c, -(law.swell * sub_dt()) * div);
}

@compute @workgroup_size(256)
fn conc(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let c = index(wid, groups, lid);
    if (halted() || c >= grid.cells) {
        return;
    }
    let nx = grid.nx;
    let nxt = aux.ctl.parity ^ 1u;
    let i = c % nx;
    let j = c / nx;
    let w = nxt * grid.half_qx + j * (nx + 1u) + i;
    let n = nxt * grid.half_qy + c;
    let out = max(-qx[w], 0.0) + max(qx[w + 1u], 0.0) + max(-qy[n], 0.0) + max(qy[n + nx], 0.0);
    let dt = sub_dt();
    let area = grid.dx * grid.dx;
    let through = depth[nxt * grid.half_d + c] * area + out * dt;
    var k = 0.0;
    if (through > 1e-9) {
        k = grains[law.load + c] * area / through;
    }
    grains[law.conc + c] = k;
}

// Grains (m³) carried into cell c by the face with discharge q between `lo` and `hi`.
fn carried(q: f32, lo: u32, hi: u32, dt: f32) -> f32 {
    return q * select(grains[law.conc + hi], grains[law.conc + lo], q > 0.0) * dt;
}

// Grains (m³) into border cell c of edge e through its border face with discharge q.
fn border_grains(e: u32, k: u32, c: u32, q: f32, dt: f32) -> f32 {
    let into = inflow(e, q);
    if (is_wall(e, k) || (law.clear_inflow != 0u && into > 0.0)) {
        return 0.0;
    }
    return into * grains[law.conc + c] * dt;
}

// The bed shear stress (Pa) under water h deep moving at speed² u2 in cell c.
fn shear(c: u32, u2: f32, h: f32) -> f32 {
    var k = 0.0;
    if (law.rough == 0u) {
        k = law.rough_value * law.rough_value / pow(h, 1.0 / 3.0);
    } else if (law.rough == 1u) {
        let n = terrain[grid.cells + c];
        k = n * n / pow(h, 1.0 / 3.0);
    } else {
        k = 1.0 / max(law.rough_value * law.rough_value, 1e-6);
    }
    return RHO * grid.gravity * k * u2;
}

@compute @workgroup_size(256)
fn suspend(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let c = index(wid, groups, lid);
    if (halted() || c >= grid.cells) {
        return;
    }
    let nx = grid.nx;
    let ny = grid.ny;
    let nxt = aux.ctl.parity ^ 1u;
    let i = c % nx;
    let j = c / nx;
    let w = nxt * grid.half_qx + j * (nx + 1u) + i;
    let n = nxt * grid.half_qy + c;
    let dt = sub_dt();
    var moved = 0.0;
    if (i == 0u) {
        moved += border_grains(0u, j, c, qx[w], dt);
    } else {
        moved += carried(qx[w], c - 1u, c, dt);
    }
    if (i + 1u == nx) {
        moved += border_grains(1u, j, c, qx[w + 1u], dt);
    } else {
        moved -= carried(qx[w + 1u], c, c + 1u, dt);
    }
    if (j == 0u) {
        moved += border_grains(2u, i, c, qy[n], dt);
    } else {
        moved += carried(qy[n], c - nx, c, dt);
    }
    if (j + 1u == ny) {
        moved += border_grains(3u, i, c, qy[n + nx], dt);
    } else {
        moved -= carried(qy[n + nx], c, c + nx, dt);
    }
    let area = grid.dx * grid.dx;
    let load = grains[law.load + c];
    let advected = load + moved / area;
    let h = depth[nxt * grid.half_d + c];
    var lifted = 0.0;
    var settled = 0.0;
    if (settles(c)) {
        if (h <= BED_DRY) {
            settled = max(advected, 0.0);
        } else {
            let u = 0.5 * (qx[w] + qx[w + 1u]) / (h * grid.dx);
            let v = 0.5 * (qy[n] + qy[n + nx]) / (h * grid.dx);
            let excess = max(shear(c, u * u + v * v, h) / law.critical_shear - 1.0, 0.0);
            let room = max(terrain[c] - grains[law.floor + c], 0.0) / law.swell;
            // Outside a region none is lifted.
            lifted = select(0.0, min(law.pickup * excess * dt, room), erodible(c));
            let kept = (advected + lifted) / (1.0 + law.settling * dt / h);
            settled = advected + lifted - kept;
        }
    }
    let change = moved / area + (lifted - settled) + grains[law.load_carry + c];
    let new_load = opaque(load + change);
    grains[law.load_carry + c] = change - (new_load - load);
    grains[law.load + c] = new_load;
    if (lifted != settled) {
        shift(c, law.swell * (settled - lifted));
    }
}
