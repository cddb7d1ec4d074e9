// Control pass: one invocation between the sub-steps. It closes the sub-step that just ran
// (flip the state half, count it, advance time and the rain ledger, or halt on a blow-up), plans
// the number of sub-steps at the start of a step from the last max depth and speed (CFL, as
// Simulation::step), and opens the next sub-step if the step needs it: the heavy passes of the
// spare sub-steps a step does not need see `running == 0` and return at once. A step that needs
// more sub-steps than were encoded (k_max) never runs longer ones: it runs k_max stable ones and
// falls behind, and says so in `clamped`. Where the pair pass may run two steps at once,
// `begin_pair` plans the first and opens both as one pair when one sub-step twice as long is
// stable; the second's begin then only closes the pair. Where the plan takes two sub-steps or
// more, `begin_pair_split` and `begin_split` open the step's first two as one pair (`pair == 2`):
// the same sub-steps, run by the pair pass; the next `next_substep` closes both.

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read_write> view: array<u32, 4>;

fn close_substep() {
    if (aux.ctl.running == 0u) {
        return;
    }
    aux.ctl.running = 0u;
    if (atomicLoad(&aux.ctl.blowup_cell) != NONE) {
        aux.ctl.halted = 1u;
        aux.ctl.pair = 0u;
        // The water kept is the one before the failed sub-step: so are the figures the next
        // plan reads (a failed one's infinite depth planned a runaway for good).
        atomicStore(&aux.ctl.max_depth, atomicLoad(&aux.ctl.good_depth));
        atomicStore(&aux.ctl.max_speed, atomicLoad(&aux.ctl.good_speed));
        return;
    }
    aux.ctl.parity = aux.ctl.parity ^ 1u;
    atomicStore(&aux.ctl.good_depth, atomicLoad(&aux.ctl.max_depth));
    atomicStore(&aux.ctl.good_speed, atomicLoad(&aux.ctl.max_speed));
    if (QUIET) {
        // Dry strips may be left out (quiet.wgsl): count the dispatch, and the strips of the
        // pass that ran (the flow pass's, or the pair pass's in slot 5).
        aux.ctl.tick = aux.ctl.tick + 1u;
        let g = grid.groups[select(0u, 5u, aux.ctl.pair != 0u)];
        aux.ctl.strips = aux.ctl.strips + g.x * g.y;
    }
    let c = aux.consts[aux.ctl.n];
    // A pair ran two sub-steps: of two steps (1), or of this step (2).
    var ran = 1u;
    if (aux.ctl.pair != 0u) {
        ran = 2u;
    }
    for (var i = 0u; i < ran; i = i + 1u) {
        aux.ctl.substeps = aux.ctl.substeps + 1u;
        let t = df_add(vec2<f32>(aux.ctl.time_hi, aux.ctl.time_lo), vec2<f32>(c.dt, 0.0));
        aux.ctl.time_hi = t.x;
        aux.ctl.time_lo = t.y;
        if (RAIN) {
            let r = df_add(vec2<f32>(aux.ctl.rain_hi, aux.ctl.rain_lo), vec2<f32>(f32(grid.cells) * c.rain, 0.0));
            aux.ctl.rain_hi = r.x;
            aux.ctl.rain_lo = r.y;
        }
    }
    aux.ctl.k = aux.ctl.k + 1u;
    if (aux.ctl.pair == 2u) {
        aux.ctl.k = aux.ctl.k + 1u;
        aux.ctl.paired = aux.ctl.paired + 2u;
        aux.ctl.pair = 0u;
    }
    if (aux.ctl.k == aux.ctl.count) {
        aux.ctl.steps = aux.ctl.steps + 1u;
    }
    if (aux.ctl.pair == 1u) {
        // The second step is done too: its begin_step plans and opens nothing.
        aux.ctl.steps = aux.ctl.steps + 1u;
        aux.ctl.paired = aux.ctl.paired + 2u;
        aux.ctl.skip = 1u;
        aux.ctl.pair = 0u;
    }
}

// The longest stable sub-step on water `md` m deep at its deepest running `ms` m/s at its
// fastest (sim::stable_substep): `cfl` of a cell crossed by the fastest wave and current, and
// no more than 1/√2 of a cell crossed by a gravity wave alone (their limit in two dimensions).
// Only for a positive `sqrt(g·md) + ms`.
fn stable_substep(md: f32, ms: f32) -> f32 {
    let wave = sqrt(grid.gravity * md);
    var stable = grid.cfl * grid.dx / (wave + ms);
    if (wave > 0.0) {
        stable = min(stable, 0.70710678 * grid.dx / wave);
    }
    return stable;
}

fn plan() {
    let md = bitcast<f32>(atomicLoad(&aux.ctl.max_depth));
    let ms = bitcast<f32>(atomicLoad(&aux.ctl.max_speed));
    let speed = sqrt(grid.gravity * md) + ms;
    var needed = 1.0;
    if (speed > 0.0) {
        needed = max(ceil(grid.dt / stable_substep(md, ms)), 1.0);
    }
    if (!(needed >= 1.0)) {
        needed = 1.0;
    }
    if (needed > f32(grid.max_substeps)) {
        aux.ctl.halted = 2u;
        aux.ctl.runaway_speed = speed;
        return;
    }
    let n = u32(needed);
    aux.ctl.needed = n;
    // Sub-steps of dt / n each (stable); only k_max of them were encoded, so a step that needs
    // more runs k_max and simulates less than dt (counted, and caught up by the host).
    var count = n;
    if (n > grid.k_max) {
        aux.ctl.clamped = aux.ctl.clamped + 1u;
        count = grid.k_max;
    }
    aux.ctl.n = n;
    aux.ctl.count = count;
    aux.ctl.k = 0u;
}

fn open_substep() {
    let on = aux.ctl.halted == 0u && aux.ctl.k < aux.ctl.count;
    if (on) {
        aux.ctl.running = 1u;
        atomicStore(&aux.ctl.blowup_cell, NONE);
        atomicStore(&aux.ctl.max_depth, 0u);
        if (SPEED) {
            atomicStore(&aux.ctl.max_speed, 0u);
        }
    }
}

fn publish() {
    let p = aux.ctl.parity;
    view[0] = p;
    view[1] = p * grid.half_d;
    view[2] = p * grid.half_qx;
    view[3] = p * grid.half_qy;
}

// Closes the last sub-step before a step; true where the step already ran, as the second of a
// pair (then it only publishes).
fn close_before_step() -> bool {
    close_substep();
    if (aux.ctl.skip == 1u) {
        aux.ctl.skip = 0u;
        publish();
        return true;
    }
    return false;
}

@compute @workgroup_size(1)
fn begin_step() {
    if (close_before_step()) {
        return;
    }
    if (aux.ctl.halted == 0u) {
        plan();
    }
    open_substep();
    publish();
}

// Whether a step of one sub-step may run together with the next as a pair (pair.wgsl): one
// sub-step twice as long would be stable, so the next step, which would be planned from this
// one's water, needs one sub-step unless the wave speed doubles within a step.
fn pairable() -> bool {
    if (aux.ctl.halted != 0u || aux.ctl.n != 1u || aux.ctl.count != 1u) {
        return false;
    }
    let md = bitcast<f32>(atomicLoad(&aux.ctl.max_depth));
    let ms = bitcast<f32>(atomicLoad(&aux.ctl.max_speed));
    let speed = sqrt(grid.gravity * md) + ms;
    if (!(speed > 0.0)) {
        return speed == 0.0;
    }
    return ceil(2.0 * grid.dt / stable_substep(md, ms)) <= 1.0;
}

// begin_step where the pair pass follows: it plans the step and, with `steps` (the first of
// two steps recorded together) where `pairable`, opens both steps as one pair, or else, with
// `split` where the step takes two sub-steps or more, its first two (the flow pass then stands
// aside).
fn open_pair(steps: bool, split: bool) {
    if (close_before_step()) {
        return;
    }
    if (aux.ctl.halted == 0u) {
        plan();
    }
    let two_steps = steps && pairable();
    open_substep();
    if (aux.ctl.running == 1u) {
        if (two_steps) {
            aux.ctl.pair = 1u;
        } else if (split && aux.ctl.count >= 2u) {
            aux.ctl.pair = 2u;
        }
    }
    publish();
}

// The first of two steps recorded together, where only steps pair.
@compute @workgroup_size(1)
fn begin_pair() {
    open_pair(true, false);
}

// The first of two steps recorded together, where a step's own sub-steps pair too.
@compute @workgroup_size(1)
fn begin_pair_split() {
    open_pair(true, true);
}

// Any other step the pair pass follows: only its own sub-steps pair.
@compute @workgroup_size(1)
fn begin_split() {
    open_pair(false, true);
}

@compute @workgroup_size(1)
fn next_substep() {
    close_substep();
    open_substep();
    publish();
}

@compute @workgroup_size(1)
fn finish() {
    close_substep();
    publish();
}
