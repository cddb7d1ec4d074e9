// Stats pass: per-workgroup partial sums of the current depth (double-f32) and counts of wet
// cells, read back with the control block and the ledger; the CPU adds the partials in f64.

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read> depth: array<f32>;
@group(0) @binding(3) var<storage, read_write> partials: array<Partial>;

// Per workgroup: volume (hi, lo) in depth-metres and the number of cells deeper than 1 mm.
struct Partial {
    volume: vec2<f32>,
    wet: u32,
    pad: u32,
}

// Cells summed by one workgroup.
const CHUNK: u32 = 16384u;

var<workgroup> red: array<vec2<f32>, 256>;
var<workgroup> wet: atomic<u32>;

@compute @workgroup_size(256)
fn volume(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    if (lid == 0u) {
        atomicStore(&wet, 0u);
    }
    let base = aux.ctl.parity * grid.half_d;
    let start = wid.x * CHUNK;
    let end = min(start + CHUNK, grid.cells);
    var s = vec2<f32>(0.0);
    var w = 0u;
    for (var c = start + lid; c < end; c = c + 256u) {
        let d = depth[base + c];
        s = df_add(s, vec2<f32>(d, 0.0));
        w = w + select(0u, 1u, d > 1e-3);
    }
    red[lid] = s;
    workgroupBarrier();
    atomicAdd(&wet, w);
    for (var k = 128u; k > 0u; k = k >> 1u) {
        if (lid < k) {
            red[lid] = df_add(red[lid], red[lid + k]);
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        partials[wid.x] = Partial(red[0], atomicLoad(&wet), 0u);
    }
}
