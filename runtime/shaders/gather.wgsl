// Gather pass: the water at a list of cells, for the rigid-body coupling (buoyancy, drag and
// the floaters' displacement read the water only where bodies are). For each listed cell it
// writes six words: the effective surface, depth, and the discharges of its west, east, north
// and south faces, all from the current half of the ping-pong state. The effective surface is
// terrain + depth, except under a blocking body that stores water, where it is the surface
// the blocked pass keeps for the cell (kappa interpolation, Kellomäki 2014 §3.6; `blk` as laid
// out in blockers.wgsl, or a zeroed header when no blockers are set).

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read> terrain: array<f32>;
@group(0) @binding(3) var<storage, read> depth: array<f32>;
@group(0) @binding(4) var<storage, read> qx: array<f32>;
@group(0) @binding(5) var<storage, read> qy: array<f32>;
@group(0) @binding(6) var<storage, read> cells: array<u32>;
@group(0) @binding(7) var<storage, read_write> out: array<f32>;
@group(0) @binding(8) var<storage, read> blk: array<u32>;

@compute @workgroup_size(64)
fn gather(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let e = gid.y * groups.x * 64u + gid.x;
    if (e >= arrayLength(&cells)) {
        return;
    }
    let c = cells[e];
    let parity = aux.ctl.parity;
    let d = depth[parity * grid.half_d + c];
    let i = c % grid.nx;
    let j = c / grid.nx;
    let west = parity * grid.half_qx + j * (grid.nx + 1u) + i;
    let north = parity * grid.half_qy + c;
    let o = 6u * e;
    out[o] = effective_surface(i, j, parity, terrain[c], d);
    out[o + 1u] = d;
    out[o + 2u] = qx[west];
    out[o + 3u] = qx[west + 1u];
    out[o + 4u] = qy[north];
    out[o + 5u] = qy[north + grid.nx];
}
