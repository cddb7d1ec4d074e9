// Declarations shared by every pass of the Spillway GPU solver. The runtime prepends a few
// constants before this file (MODE, SECTION, RAIN, SPEED, EXTEND, FRICTION, ROUGH, TW, TH), so
// each pipeline is
// specialised for one configuration and dead branches disappear.
//
// Every state grid that a step rewrites (depth, x- and y-face discharges, face velocities) holds
// two halves; the control pass keeps the half that holds the current state in `Control.parity`,
// so the number of sub-steps can be decided on the GPU without the CPU ever waiting.

// Static geometry and parameters (uniform).
struct Grid {
    nx: u32,
    ny: u32,
    cells: u32,
    perimeter: u32,
    // Element offsets of the second half of depth, x-face and y-face buffers.
    half_d: u32,
    half_qx: u32,
    half_qy: u32,
    // Sub-steps encoded per step (the most the GPU may take).
    k_max: u32,
    dx: f32,
    gravity: f32,
    cfl: f32,
    // Requested step length, seconds.
    dt: f32,
    patch_count: u32,
    edge_groups: u32,
    max_substeps: u32,
    inv_dx: f32,
    // Workgroup counts of the heavy passes (flow, forcing, edges, advect, store); used by the
    // CPU when it records them.
    groups: array<vec4<u32>, 8>,
    // Always 0; `opaque` xors with it so the compiler cannot simplify error-free sums.
    zero: u32,
    // Word offset of the structures in the patch table (0: none).
    structures: u32,
    // Stamp blocks along x (quiet.wgsl), and whether strips with no water around are left out.
    quiet_cols: u32,
    quiet_on: u32,
}

// Written by the control pass, read by all; 64 words.
struct Control {
    n: u32,
    k: u32,
    running: u32,
    parity: u32,
    halted: u32,
    steps: u32,
    substeps: u32,
    clamped: u32,
    needed: u32,
    blowup_cell: atomic<u32>,
    max_depth: atomic<u32>,
    max_speed: atomic<u32>,
    time_hi: f32,
    time_lo: f32,
    rain_hi: f32,
    rain_lo: f32,
    runaway_speed: f32,
    // Sub-steps the step under way runs (n, or k_max when the step needed more: then each is
    // as short as n asks and the step simulates less than dt).
    count: u32,
    // The open sub-step is a pair (pair.wgsl): two steps of one sub-step each (1), or the
    // step's first two sub-steps (2), in one pass; 0 otherwise.
    pair: u32,
    // The step about to begin already ran, as the second of a pair.
    skip: u32,
    // Sub-steps run in pairs so far.
    paired: u32,
    // Flow or pair dispatches run (quiet.wgsl's tick), strips they left out, and strips they
    // dispatched.
    tick: u32,
    quiet: atomic<u32>,
    strips: u32,
    // The max depth and speed of the last sub-step kept: a failed one's are put back to them,
    // so the next plan reads the water kept (as the CPU does).
    good_depth: atomic<u32>,
    good_speed: atomic<u32>,
    pad: array<u32, 38>,
}

// Constants of a sub-step of length dt / n, computed on the CPU exactly as the CPU solver does.
struct StepConsts {
    dt: f32,
    // (1 - friction)^dt
    fric: f32,
    // gravity * dt
    g_dt: f32,
    // dt / dx²
    c: f32,
    // dx² / dt
    vol_rate: f32,
    // rain depth per sub-step, metres
    rain: f32,
    // dt / dx
    s: f32,
    // Bed friction: g·dt·n² (Manning), g·dt (Manning with a roughness grid: times the face's
    // n²), g·dt/C² (Chézy); 0 for the linear law.
    fk: f32,
}

struct Aux {
    ctl: Control,
    consts: array<StepConsts, 1001>,
    // Accelerated border-face discharges of the sub-step under way: West, East, North, South.
    faces: array<f32>,
}

const NONE: u32 = 0xffffffffu;
const DRY: f32 = 1e-6;
const BORDER_FILM: f32 = 0.01;
// Depth under which a face is a film (sim::friction::FILM): its speed is capped and does not
// set the CFL step.
const FILM: f32 = 0.005;
const MODE_PIPES: u32 = 0u;
const MODE_PIPES_ADV: u32 = 1u;
const MODE_SWE: u32 = 2u;

fn is_bad(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) == 0x7f800000u;
}

// `x`, hidden from the shader compiler's algebra ((a + b) - a is not b in floating point).
fn opaque(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ grid.zero);
}

// Error-free sum: (s, e) with s + e == a + b exactly.
fn two_sum(a: f32, b: f32) -> vec2<f32> {
    let s = opaque(a + b);
    let bb = opaque(s - a);
    let e = (a - (s - bb)) + (b - bb);
    return vec2<f32>(s, e);
}

// Double-f32 accumulator x (hi, lo) plus a double-f32 y.
fn df_add(x: vec2<f32>, y: vec2<f32>) -> vec2<f32> {
    let s = two_sum(x.x, y.x);
    let lo = s.y + (x.y + y.y);
    let hi = opaque(s.x + lo);
    return vec2<f32>(hi, lo - (hi - s.x));
}

// Pipe cross-section per metre of face width (sim::pipes::section).
fn section(hl: f32, hr: f32, dl: f32, dr: f32, bl: f32, br: f32) -> f32 {
    if (SECTION == 0u) {
        return select(dr, dl, hl > hr);
    } else if (SECTION == 1u) {
        return max(max(hl, hr) - max(bl, br), 0.0);
    } else if (SECTION == 2u) {
        return 0.5 * (dl + dr);
    }
    return 1.0;
}

// Bed friction (sim::friction::BedFriction): the new face value from the old one `old` (a
// discharge or a velocity) moving at `speed` m/s, its increment `accel`, water `h` deep at the
// face and the face's Manning n² `n2` (1 without a roughness grid).
fn bed(old: f32, accel: f32, speed: f32, h: f32, n2: f32, k: StepConsts) -> f32 {
    if (FRICTION == 0u) {
        return old * k.fric + accel;
    }
    let hh = max(h, DRY);
    var depth_term = 1.0 / hh;
    if (FRICTION == 1u) {
        depth_term = 1.0 / (hh * pow(hh, 1.0 / 3.0));
    }
    return (old + accel) / (1.0 + k.fk * n2 * speed * depth_term);
}

// `bed` for a discharge q (m³/s) through a face of width dx.
fn bed_q(q: f32, accel: f32, h: f32, n2: f32, k: StepConsts) -> f32 {
    return bed(q, accel, abs(q) / (grid.dx * max(h, DRY)), h, n2, k);
}

// Perimeter element p → (edge, k, cell), edges in the order West, East, North, South.
fn edge_cell(grid: Grid, p: u32) -> vec3<u32> {
    let nx = grid.nx;
    let ny = grid.ny;
    if (p < ny) {
        return vec3<u32>(0u, p, p * nx);
    } else if (p < 2u * ny) {
        let k = p - ny;
        return vec3<u32>(1u, k, k * nx + nx - 1u);
    } else if (p < 2u * ny + nx) {
        let k = p - 2u * ny;
        return vec3<u32>(2u, k, k);
    }
    let k = p - 2u * ny - nx;
    return vec3<u32>(3u, k, (ny - 1u) * nx + k);
}
