// Tiles of the blocked passes (owner runtime/src/gpu/tiles.rs for the layout): where a thread
// of a 16 × 16 workgroup works, and the per-cell words of a tile's slot that the blocked passes
// read across tiles. Prepended, after blockers.wgsl, to the passes that work in tiles
// (blocking.wgsl, upper.wgsl); the including shader declares `grid`, `aux`, `terrain` and `blk`.

var<workgroup> wrun: u32;

// Where a thread works: its slot, its cell and whether it is inside the map.
struct At {
    base: u32,
    lx: u32,
    ly: u32,
    gi: i32,
    gj: i32,
    inside: bool,
    cell: u32,
    // This cell's index in the tile's output (valid for output cells).
    o: u32,
    output: bool,
}

// The thread's place, or base = NONE for an unused slot (the whole workgroup returns).
fn locate(t: u32, wid: vec3<u32>) -> At {
    var at: At;
    let s = wid.x + wid.y * 65535u;
    at.base = NONE;
    if (s >= blk[H_CAP]) {
        return at;
    }
    let base = blk[H_SLOT0] + s * SLOT_WORDS;
    if (blk[base + 2u] == 0u) {
        return at;
    }
    at.base = base;
    at.lx = t % BT;
    at.ly = t / BT;
    at.gi = i32(blk[base] * BO + at.lx) - 2;
    at.gj = i32(blk[base + 1u] * BO + at.ly) - 2;
    at.inside = at.gi >= 0 && at.gi < i32(grid.nx) && at.gj >= 0 && at.gj < i32(grid.ny);
    at.cell = u32(max(at.gj, 0)) * grid.nx + u32(max(at.gi, 0));
    at.output = at.inside && at.lx >= 2u && at.lx < 14u && at.ly >= 2u && at.ly < 14u;
    at.o = (at.ly - 2u) * BO + (at.lx - 2u);
    if (!at.output) {
        at.o = 0u;
    }
    return at;
}

fn fword(i: u32) -> f32 {
    return bitcast<f32>(blk[i]);
}

// Effective surface (half `half`) of stored cell (gi, gj); its tile always has a slot.
fn surf_at(gi: u32, gj: u32, half: u32) -> f32 {
    let slot = blk[MAP0 + (gj / BO) * blk[H_TX] + gi / BO] - 1u;
    let o = (gj % BO) * BO + gi % BO;
    return fword(blk[H_SLOT0] + slot * SLOT_WORDS + S_SURF + half * OUT + o);
}

// Latent water (sim::blocking) of map cell (gi, gj): none where its tile has no slot.
fn latent_at(gi: u32, gj: u32) -> f32 {
    let slot = blk[MAP0 + (gj / BO) * blk[H_TX] + gi / BO];
    if (slot == 0u) {
        return 0.0;
    }
    return fword(blk[H_SLOT0] + (slot - 1u) * SLOT_WORDS + S_LATENT + (gj % BO) * BO + gi % BO);
}

// Whether the workgroup has work (sub-step open, slot in use).
fn runs(t: u32, at: At) -> bool {
    if (t == 0u) {
        wrun = select(0u, aux.ctl.running, at.base != NONE);
    }
    return workgroupUniformLoad(&wrun) != 0u;
}

// Upper water (sim::blocking, the upper columns) of stored map cell (gi, gj) in half `half`;
// its tile always has a slot.
fn upper_at(gi: u32, gj: u32, half: u32) -> f32 {
    let slot = blk[MAP0 + (gj / BO) * blk[H_TX] + gi / BO] - 1u;
    let o = (gj % BO) * BO + gi % BO;
    return fword(blk[H_SLOT0] + slot * SLOT_WORDS + S_UPPER + half * OUT + o);
}

// Manning's n² of the face between map cells l and r (flow.wgsl's face_n2).
fn face_n2(l: u32, r: u32) -> f32 {
    if (!ROUGH) {
        return 1.0;
    }
    let nf = 0.5 * (terrain[grid.cells + l] + terrain[grid.cells + r]);
    return nf * nf;
}
