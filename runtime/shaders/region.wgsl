// Region pass: incremental uploads of a rectangle of terrain or water from a staging buffer,
// or of a list of per-cell water changes (floating bodies displacing water, `water_cells`:
// pairs of cell index bits and depth change, count in `rect.x`), so an edit takes effect at
// the next step without a reset. Water is written to both halves
// (whichever holds the current state), its carry cleared, the CFL's max depth raised, and the
// water painted in or out booked in ledger slot 0 (one workgroup, so the sum has one owner).

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read_write> terrain: array<f32>;
@group(0) @binding(3) var<storage, read_write> depth: array<f32>;
@group(0) @binding(4) var<storage, read_write> carry: array<f32>;
@group(0) @binding(5) var<storage, read> src: array<f32>;
@group(0) @binding(6) var<uniform> rect: vec4<u32>;
@group(0) @binding(7) var<storage, read_write> ledger: array<vec4<f32>>;

var<workgroup> red: array<vec4<f32>, 256>;

fn target_cell(gid: vec3<u32>) -> u32 {
    if (gid.x >= rect.z || gid.y >= rect.w) {
        return NONE;
    }
    return (rect.y + gid.y) * grid.nx + rect.x + gid.x;
}

@compute @workgroup_size(16, 16)
fn terrain_rect(@builtin(global_invocation_id) gid: vec3<u32>) {
    let c = target_cell(gid);
    if (c != NONE) {
        terrain[c] = src[gid.y * rect.z + gid.x];
    }
}

@compute @workgroup_size(256)
fn water_rect(@builtin(local_invocation_index) lid: u32) {
    let cur = aux.ctl.parity * grid.half_d;
    var added = vec2<f32>(0.0);
    var removed = vec2<f32>(0.0);
    var top = 0.0;
    let n = rect.z * rect.w;
    for (var e = lid; e < n; e = e + 256u) {
        let c = (rect.y + e / rect.z) * grid.nx + rect.x + e % rect.z;
        let d = max(src[e], 0.0);
        let old = depth[cur + c];
        if (d > old) {
            added = df_add(added, two_sum(d, -old));
        } else {
            removed = df_add(removed, two_sum(old, -d));
        }
        depth[c] = d;
        depth[grid.half_d + c] = d;
        carry[c] = 0.0;
        top = max(top, d);
    }
    red[lid] = vec4<f32>(added, removed);
    for (var s = 128u; s > 0u; s = s >> 1u) {
        workgroupBarrier();
        if (lid < s) {
            let a = red[lid];
            let b = red[lid + s];
            red[lid] = vec4<f32>(df_add(a.xy, b.xy), df_add(a.zw, b.zw));
        }
    }
    workgroupBarrier();
    atomicMax(&aux.ctl.max_depth, bitcast<u32>(top));
    // Water painted or given back deeper than any before: a sub-step that fails after it
    // plans from this depth too (the CPU's `displace` raises its kept max depth).
    atomicMax(&aux.ctl.good_depth, bitcast<u32>(top));
    if (lid == 0u) {
        let a = ledger[0];
        ledger[0] = vec4<f32>(df_add(a.xy, red[0].xy), df_add(a.zw, red[0].zw));
    }
}

@compute @workgroup_size(256)
fn water_cells(@builtin(local_invocation_index) lid: u32) {
    let cur = aux.ctl.parity * grid.half_d;
    var added = vec2<f32>(0.0);
    var removed = vec2<f32>(0.0);
    var top = 0.0;
    for (var e = lid; e < rect.x; e = e + 256u) {
        let c = bitcast<u32>(src[2u * e]);
        let old = depth[cur + c];
        let d = max(old + src[2u * e + 1u], 0.0);
        if (d > 1.0e6 && d > old) {
            // Deeper than any level holds (`ranges::MAX_HEIGHT`): skipped, as on the CPU.
            continue;
        }
        if (d > old) {
            added = df_add(added, two_sum(d, -old));
        } else {
            removed = df_add(removed, two_sum(old, -d));
        }
        depth[c] = d;
        depth[grid.half_d + c] = d;
        // The carry stays, as on the CPU: a change by an amount keeps the rounding still
        // owed (rain too small to show yet waits in it).
        top = max(top, d);
    }
    red[lid] = vec4<f32>(added, removed);
    for (var s = 128u; s > 0u; s = s >> 1u) {
        workgroupBarrier();
        if (lid < s) {
            let a = red[lid];
            let b = red[lid + s];
            red[lid] = vec4<f32>(df_add(a.xy, b.xy), df_add(a.zw, b.zw));
        }
    }
    workgroupBarrier();
    atomicMax(&aux.ctl.max_depth, bitcast<u32>(top));
    // Water painted or given back deeper than any before: a sub-step that fails after it
    // plans from this depth too (the CPU's `displace` raises its kept max depth).
    atomicMax(&aux.ctl.good_depth, bitcast<u32>(top));
    if (lid == 0u) {
        // Only the net: water moved from cell to cell (a floater pushing it aside, every
        // coupled step) is neither inflow nor outflow, as on the CPU (both grew by the gross
        // volumes pushed).
        let net = df_add(red[0].xy, -red[0].zw);
        let a = ledger[0];
        if (net.x >= 0.0) {
            ledger[0] = vec4<f32>(df_add(a.xy, net), a.zw);
        } else {
            ledger[0] = vec4<f32>(a.xy, df_add(a.zw, -net));
        }
    }
}
