// The blocker buffer and the effective surface (owner runtime/src/gpu/tiles.rs for the layout,
// runtime/src/sim/blocking/ for the physics). Prepended to the passes that read `blk`
// (blocking, gather) and to renderers that draw the water from the solver's buffers
// (`spillway::gpu::BLOCKERS_WGSL`); the including shader declares
// `blk: array<u32>` (a storage buffer). A buffer of zeros means no blockers.

// The layout of `blk`: a header, a map tile → slot + 1, then per slot: tile x, tile y, active, pad; the
// blocker columns of its 16 × 16 loaded cells (cover, bottom, top, flags); the effective surface
// of its 12 × 12 cells (two halves, by state parity); their saved carry; the columns the last
// sub-step applied to them (cover, bottom, top); their latent water (sim::blocking); their upper
// water (two halves); the upper flow's discharges through the x-face after each and the y-face
// below it (two halves, interleaved); the upper flow's depth change of the sub-step.
const BT: u32 = 16u;
const BO: u32 = 12u;
const OUT: u32 = 144u;
// Header words: kappa, tiles along x, tiles along y, first slot word, slot capacity, alpha.
const H_KAPPA: u32 = 0u;
const H_TX: u32 = 1u;
const H_TY: u32 = 2u;
const H_SLOT0: u32 = 3u;
const H_CAP: u32 = 4u;
const H_ALPHA: u32 = 5u;
const MAP0: u32 = 8u;
const S_CELLS: u32 = 4u;
const S_SURF: u32 = 1028u;
const S_CARRY: u32 = 1316u;
const S_APPLIED: u32 = 1460u;
const S_LATENT: u32 = 1892u;
const S_UPPER: u32 = 2036u;
const S_UQ: u32 = 2324u;
const S_UDELTA: u32 = 2900u;
const SLOT_WORDS: u32 = 3044u;
const BLOCKED_COVER: f32 = 0.99;
const FLAG_INIT: u32 = 1u;
// The cell's water already holds the body over it (gpu::tiles::FLAG_SETTLED).
const FLAG_SETTLED: u32 = 2u;

// Surface of the water in a partly covered cell (sim::blocking::partial_surface): volume `d`
// per area over terrain `b`, a body over the share `c` of the cell between `zb ≥ b` and `zt`.
fn partial_surface(c: f32, zb: f32, zt: f32, b: f32, d: f32) -> f32 {
    let gap = zb - b;
    if (d <= gap) {
        return b + d;
    }
    let rest = d - gap;
    let free = 1.0 - c;
    let band = free * (zt - zb);
    if (rest <= band) {
        return zb + rest / free;
    }
    return zt + (rest - band);
}

// Whether a stored cell's blocker, `gap` over the terrain with its top at `zt`, sticks out of the
// water around it (effective surface `s` below its top): water on top of it is then its upper
// column, apart from the gap's (sim::blocking::film).
fn film(gap: f32, s: f32, zt: f32) -> bool {
    return gap > 0.0 && s < zt;
}

// The first word of the slot of cell (i, j)'s tile, or NO_SLOT where the tile has none (or
// there are no blockers).
const NO_SLOT: u32 = 0xffffffffu;
fn slot_base(i: u32, j: u32) -> u32 {
    let tx = blk[H_TX];
    if (tx == 0u) {
        return NO_SLOT;
    }
    let tile = (j / BO) * tx + i / BO;
    if (tile >= tx * blk[H_TY]) {
        return NO_SLOT;
    }
    let slot = blk[MAP0 + tile];
    if (slot == 0u) {
        return NO_SLOT;
    }
    return blk[H_SLOT0] + (slot - 1u) * SLOT_WORDS;
}

// The effective surface of cell (i, j) over terrain `b` with depth `d`: the stored surface of a
// blocked cell whose surface has been started, the surface beside the body in a partly covered
// cell, else b + d.
fn effective_surface(i: u32, j: u32, parity: u32, b: f32, d: f32) -> f32 {
    let plain = b + d;
    let base = slot_base(i, j);
    if (base == NO_SLOT) {
        return plain;
    }
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
        if ((blk[w + 3u] & FLAG_SETTLED) != 0u) {
            let zb = max(bitcast<f32>(blk[w + 1u]), b);
            return partial_surface(min(c, 1.0), zb, max(bitcast<f32>(blk[w + 2u]), zb), b, d);
        }
        return plain;
    }
    return bitcast<f32>(blk[base + S_SURF + parity * OUT + (j % BO) * BO + i % BO]);
}

// The surface to draw over cell (i, j) (sim::blocking::Blocking::drawn): the top of the water
// standing on a raised body that sticks out of the water around it, where there is some; else
// the effective surface.
fn drawn_surface(i: u32, j: u32, parity: u32, b: f32, d: f32) -> f32 {
    let s = effective_surface(i, j, parity, b, d);
    let base = slot_base(i, j);
    if (base == NO_SLOT) {
        return s;
    }
    let w = base + S_CELLS + 4u * ((j % BO + 2u) * BT + i % BO + 2u);
    if (bitcast<f32>(blk[w]) < BLOCKED_COVER || (blk[w + 3u] & FLAG_INIT) != 0u) {
        return s;
    }
    let up = bitcast<f32>(blk[base + S_UPPER + parity * OUT + (j % BO) * BO + i % BO]);
    let zb = max(bitcast<f32>(blk[w + 1u]), b);
    let zt = max(bitcast<f32>(blk[w + 2u]), zb);
    if (up > 0.0 && film(zb - b, s, zt)) {
        return zt + up;
    }
    return s;
}
