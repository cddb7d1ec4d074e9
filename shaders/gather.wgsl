// Gather pass: the water at a list of cells, for the rigid-body coupling (buoyancy, drag and
// the floaters' displacement read the water only where bodies are). For each listed cell it
// writes six words: the effective surface, depth, and the discharges of its west, east, north
// and south faces, all from the current half of the ping-pong state. The effective surface is
// terrain + depth, except under a blocking body that stores water, where it is the surface
// the blocked pass keeps for the cell (kappa interpolation, Kellomäki 2014 §3.6; `blk` as laid
// out in common.wgsl, or a zeroed header when no blockers are set).

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read> terrain: array<f32>;
@group(0) @binding(3) var<storage, read> depth: array<f32>;
@group(0) @binding(4) var<storage, read> qx: array<f32>;
@group(0) @binding(5) var<storage, read> qy: array<f32>;
@group(0) @binding(6) var<storage, read> cells: array<u32>;
@group(0) @binding(7) var<storage, read_write> out: array<f32>;
@group(0) @binding(8) var<storage, read> blk: array<u32>;

// The effective surface of cell (i, j) over terrain `b` with depth `d`: the stored surface of a
// blocked cell whose surface has been started, the surface beside the body in a partly covered
// cell, else b + d.
fn effective(i: u32, j: u32, parity: u32, b: f32, d: f32) -> f32 {
    let plain = b + d;
    let tx = blk[H_TX];
    if (tx == 0u) {
        return plain;
    }
    let tile = (j / BO) * tx + i / BO;
    if (tile >= tx * blk[H_TY]) {
        return plain;
    }
    let slot = blk[MAP0 + tile];
    if (slot == 0u) {
        return plain;
    }
    let base = blk[H_SLOT0] + (slot - 1u) * SLOT_WORDS;
    let w = base + S_CELLS + 4u * ((j % BO + 2u) * BT + i % BO + 2u);
    let c = bitcast<f32>(blk[w]);
    if (c <= 0.0) {
        return plain;
    }
    if (c < BLOCKED_COVER) {
        let o = (j % BO) * BO + i % BO;
        // The slot holds the latent water before this sub-step's release (see blocking.wgsl).
        let lat = bitcast<f32>(blk[base + S_LATENT + o]) * (1.0 - bitcast<f32>(blk[H_ALPHA]));
        let wet = max(d - lat, 0.0);
        let zb = max(bitcast<f32>(blk[w + 1u]), b);
        return partial_surface(c, zb, max(bitcast<f32>(blk[w + 2u]), zb), b, wet);
    }
    if ((blk[w + 3u] & FLAG_INIT) != 0u) {
        return plain;
    }
    return bitcast<f32>(blk[base + S_SURF + parity * OUT + (j % BO) * BO + i % BO]);
}

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
    out[o] = effective(i, j, parity, terrain[c], d);
    out[o + 1u] = d;
    out[o + 2u] = qx[west];
    out[o + 3u] = qx[west + 1u];
    out[o + 4u] = qy[north];
    out[o + 5u] = qy[north + grid.nx];
}
