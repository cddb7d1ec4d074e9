// Forcing pass: sources and sinks (sim::forcing::apply), one workgroup, patch after patch.
// Sources add into carry, sinks take from depth (never below dry); level-driven patches scale
// their wish by their capacity. The exact volumes changed go to ledger slot 0 as double-f32.
// Rain is added in the flow pass (carry + rain, the same order as the CPU). The runtime
// prepends schedule.wgsl (`scheduled`).

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read> terrain: array<f32>;
@group(0) @binding(3) var<storage, read_write> depth: array<f32>;
@group(0) @binding(4) var<storage, read_write> carry: array<f32>;
// Per patch 8 words: cell offset, count, level-driven, adds, rate, surface, capacity, schedule
// offset (0: none); then the cell lists and the schedules (point count, period or 0, the start
// time as two f32s, then time and value per point).
@group(0) @binding(5) var<storage, read> patches: array<u32>;
// Per slot: added (hi, lo), removed (hi, lo).
@group(0) @binding(6) var<storage, read_write> ledger: array<vec4<f32>>;

var<workgroup> red: array<vec4<f32>, 256>;
var<workgroup> wrun: u32;

fn want(cell: u32, cur: u32, level: bool, adds: bool, rate_cell: f32, surface: f32) -> f32 {
    if (!level) {
        return rate_cell;
    }
    let d = depth[cur + cell];
    // What earlier patches added this sub-step (in carry) counts: two level sources on a cell
    // filled it twice.
    let h = terrain[cell] + d + carry[cell];
    if (adds) {
        return max(surface - h, 0.0);
    }
    return min(max(h - surface, 0.0), d);
}

fn reduce(lid: u32) {
    for (var s = 128u; s > 0u; s = s >> 1u) {
        workgroupBarrier();
        if (lid < s) {
            let a = red[lid];
            let b = red[lid + s];
            let x = df_add(a.xy, b.xy);
            let y = df_add(a.zw, b.zw);
            red[lid] = vec4<f32>(x, y);
        }
    }
    workgroupBarrier();
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32) {
    if (lid == 0u) {
        wrun = aux.ctl.running;
    }
    if (workgroupUniformLoad(&wrun) == 0u) {
        return;
    }
    let sc = aux.consts[aux.ctl.n];
    let dt = sc.dt;
    let dx = grid.dx;
    let cur = aux.ctl.parity * grid.half_d;
    var added = vec2<f32>(0.0);
    var removed = vec2<f32>(0.0);
    for (var p = 0u; p < grid.patch_count; p = p + 1u) {
        let h = p * 8u;
        let off = patches[h];
        let n = patches[h + 1u];
        let level = patches[h + 2u] != 0u;
        let adds = patches[h + 3u] != 0u;
        var rate = bitcast<f32>(patches[h + 4u]);
        if (patches[h + 7u] != 0u) {
            // At the sub-step's middle: its average over the sub-step (exact on a straight
            // stretch of the schedule; at its start a rising hydrograph came short by half a
            // sub-step's rise).
            rate = scheduled(patches[h + 7u], 0.5 * dt);
        }
        let surface = bitcast<f32>(patches[h + 5u]);
        let cap = bitcast<f32>(patches[h + 6u]);
        let rate_cell = rate * dt / (f32(n) * dx * dx);
        var scale = 1.0;
        if (level) {
            var s = vec2<f32>(0.0);
            for (var i = lid; i < n; i = i + 256u) {
                s = df_add(s, vec2<f32>(want(patches[off + i], cur, level, adds, rate_cell, surface), 0.0));
            }
            red[lid] = vec4<f32>(s, 0.0, 0.0);
            reduce(lid);
            let total = (red[0].x + red[0].y) * dx * dx;
            workgroupBarrier();
            let capdt = cap * dt;
            if (total > capdt && total > 0.0) {
                scale = capdt / total;
            }
        }
        for (var i = lid; i < n; i = i + 256u) {
            let cell = patches[off + i];
            let w = want(cell, cur, level, adds, rate_cell, surface) * scale;
            if (adds) {
                let old = carry[cell];
                let now = old + w;
                carry[cell] = now;
                if (w > 0.0) {
                    quiet_stamp(cell);
                }
                added = df_add(added, two_sum(now, -old));
            } else {
                let old = depth[cur + cell];
                let now = max(old - w, 0.0);
                depth[cur + cell] = now;
                removed = df_add(removed, two_sum(old, -now));
            }
        }
        storageBarrier();
        workgroupBarrier();
    }
    red[lid] = vec4<f32>(added, removed);
    reduce(lid);
    if (lid == 0u) {
        let a = ledger[0];
        ledger[0] = vec4<f32>(df_add(a.xy, red[0].xy), df_add(a.zw, red[0].zw));
    }
}
