// Structures pass: culverts, weirs and sluice gates (sim::structures), after the flow pass, one
// thread, face after face and then culvert after culvert in the CPU solver's order; and, at the
// start of each sub-step, the breaches (`breach`: Structures::open_breaches). A weir or
// gate face whose limited discharge is more than its law allows is cut back to the law and the
// water it would have passed goes back upstream; a culvert moves water between its end cells.
// The rounding of every depth change goes to ledger slot 0 (added) as double-f32. The runtime
// prepends schedule.wgsl (`scheduled`, for gate openings).

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read_write> terrain: array<f32>;
@group(0) @binding(3) var<storage, read_write> depth: array<f32>;
@group(0) @binding(4) var<storage, read_write> qx: array<f32>;
@group(0) @binding(5) var<storage, read_write> qy: array<f32>;
// The patch table; at word `grid.structures`: face, culvert and breach counts, the start time
// (two f32s) and 3 spare words, then 8 words per face (flags: 1 y-face, 2 gate; face index;
// low cell; high cell; width; crest or sill; weir coefficient or contraction; opening schedule
// offset), 4 per culvert (from cell, to cell, diameter, loss coefficient) and 12 per breach
// (upstream cell, crest, bottom, width, side slope, start kind (0 at, 1 trigger, 2 overtopping)
// and value, growth kind (0 steady, 1 erosion) and value, cell offset, cell count, spare); a
// breach's cells are 3 words each (cell, ground, distance from the centreline).
@group(0) @binding(6) var<storage, read> patches: array<u32>;
@group(0) @binding(7) var<storage, read_write> ledger: array<vec4<f32>>;
// Per breach: started (0 or 1), progress (f32 bits, 0 to 1).
@group(0) @binding(8) var<storage, read_write> breaches: array<u32>;

const HEADER: u32 = 8u;
const CUT: u32 = 12u;

var<private> created: vec2<f32>;

// Moves depth `d` from cell `a` to cell `b` of the new half (never below dry).
fn move_water(a: u32, b: u32, d: f32, nxt: u32) {
    let da = depth[nxt + a];
    let db = depth[nxt + b];
    let na = max(da - d, 0.0);
    let nb = db + d;
    depth[nxt + a] = na;
    depth[nxt + b] = nb;
    created = df_add(created, df_add(two_sum(na, -da), two_sum(nb, -db)));
}

// sim::structures::weir_discharge.
fn weir(width: f32, crest: f32, coef: f32, up: f32, down: f32) -> f32 {
    let h1 = up - crest;
    if (h1 <= 0.0) {
        return 0.0;
    }
    let free = coef * 0.544331 * sqrt(grid.gravity) * width * h1 * sqrt(h1);
    let h2 = down - crest;
    if (h2 <= 0.0) {
        return free;
    }
    let r = min(h2 / h1, 1.0);
    return free * pow(max(1.0 - r * sqrt(r), 0.0), 0.385);
}

// sim::structures::gate_discharge; a negative result: the gate is clear of the water.
fn gate(width: f32, sill: f32, opening: f32, cc: f32, up: f32, down: f32) -> f32 {
    let g = grid.gravity;
    let h1 = up - sill;
    if (h1 <= 0.0 || opening <= 0.0) {
        return 0.0;
    }
    if (opening >= h1) {
        return -1.0;
    }
    let y = cc * opening;
    let ratio = y / h1;
    let q = y * sqrt(2.0 * g * (h1 - y) / (1.0 - ratio * ratio));
    let speed = q / y;
    let conjugate = 0.5 * y * (sqrt(1.0 + 8.0 * speed * speed / (g * y)) - 1.0);
    let h2 = down - sill;
    if (h2 <= conjugate || h1 <= conjugate) {
        return q * width;
    }
    return q * width * sqrt(max(h1 - h2, 0.0) / (h1 - conjugate));
}

// sim::structures::pipe_area.
fn pipe_area(y0: f32, d: f32) -> f32 {
    let r = 0.5 * d;
    let y = clamp(y0, 0.0, d);
    let theta = 2.0 * acos(clamp((r - y) / r, -1.0, 1.0));
    return 0.5 * r * r * (theta - sin(theta));
}

@compute @workgroup_size(1)
fn main() {
    if (aux.ctl.running == 0u || grid.structures == 0u) {
        return;
    }
    let sc = aux.consts[aux.ctl.n];
    let dt = sc.dt;
    let per_depth = dt / (grid.dx * grid.dx);
    let par = aux.ctl.parity;
    let cur = par * grid.half_d;
    let nxt = (par ^ 1u) * grid.half_d;
    let nxt_qx = (par ^ 1u) * grid.half_qx;
    let nxt_qy = (par ^ 1u) * grid.half_qy;
    created = vec2<f32>(0.0);
    let at = grid.structures;
    let faces = patches[at];
    let pipes = patches[at + 1u];
    for (var i = 0u; i < faces; i = i + 1u) {
        let f = at + HEADER + 8u * i;
        let flags = patches[f];
        let is_y = (flags & 1u) != 0u;
        var fi = patches[f + 1u];
        if (is_y) {
            fi = nxt_qy + fi;
        } else {
            fi = nxt_qx + fi;
        }
        var q = 0.0;
        if (is_y) {
            q = qy[fi];
        } else {
            q = qx[fi];
        }
        var up = patches[f + 2u];
        var down = patches[f + 3u];
        if (q <= 0.0) {
            up = patches[f + 3u];
            down = patches[f + 2u];
        }
        let su = terrain[up] + depth[cur + up];
        let sd = terrain[down] + depth[cur + down];
        let width = bitcast<f32>(patches[f + 4u]);
        let level = bitcast<f32>(patches[f + 5u]);
        let coef = bitcast<f32>(patches[f + 6u]);
        var cap = 0.0;
        if ((flags & 2u) != 0u) {
            cap = gate(width, level, scheduled(patches[f + 7u], 0.5 * dt), coef, su, sd);
            // Clear of the water, a gate whose sill stands above the upstream ground is a weir
            // over its sill (sim::structures, Law::Gate).
            if (cap < 0.0 && level > terrain[up]) {
                cap = weir(width, level, 1.0, su, sd);
            }
        } else {
            cap = weir(width, level, coef, su, sd);
        }
        if (cap >= 0.0 && abs(q) > cap) {
            let qn = select(-cap, cap, q > 0.0);
            move_water(down, up, (abs(q) - cap) * per_depth, nxt);
            if (is_y) {
                qy[fi] = qn;
            } else {
                qx[fi] = qn;
            }
        }
    }
    for (var i = 0u; i < pipes; i = i + 1u) {
        let p = at + HEADER + 8u * faces + 4u * i;
        let a = patches[p];
        let b = patches[p + 1u];
        let sa = terrain[a] + depth[nxt + a];
        let sb = terrain[b] + depth[nxt + b];
        var up = a;
        var down = b;
        var head = sa - sb;
        if (sa < sb) {
            up = b;
            down = a;
            head = sb - sa;
        }
        let d_up = depth[nxt + up];
        var q = 0.0;
        if (head > 0.0 && d_up > 0.0) {
            let dia = bitcast<f32>(patches[p + 2u]);
            let loss = bitcast<f32>(patches[p + 3u]);
            // sim::structures::pipe_discharge: no faster than the inlet's water can go.
            let speed = sqrt(min(2.0 * grid.gravity * head / loss, 2.0 * grid.gravity * d_up));
            q = pipe_area(d_up, dia) * speed;
        }
        let d = min(min(q * per_depth, 0.5 * d_up), 0.25 * head);
        if (d > 0.0 && up != down) {
            move_water(up, down, d, nxt);
        }
    }
    // A sub-step that blew up is thrown away, its rounding with it (as on the CPU).
    if (atomicLoad(&aux.ctl.blowup_cell) == NONE) {
        let l = ledger[0];
        ledger[0] = vec4<f32>(df_add(l.xy, created), l.zw);
    }
}

// sim::structures::Cut::surface.
fn cut_surface(crest: f32, bottom: f32, width: f32, slope: f32, p: f32, distance: f32) -> f32 {
    let floor = crest - p * max(crest - bottom, 0.0);
    let beyond = distance - 0.5 * p * width;
    if (beyond <= 0.0) {
        return floor;
    }
    if (slope > 0.0) {
        return floor + beyond / slope;
    }
    return 3.0e38;
}

// Structures::open_breaches: starts, grows and cuts every breach, in order.
@compute @workgroup_size(1)
fn breach() {
    if (aux.ctl.running == 0u || grid.structures == 0u) {
        return;
    }
    let dt = aux.consts[aux.ctl.n].dt;
    let cur = aux.ctl.parity * grid.half_d;
    let at = grid.structures;
    let faces = patches[at];
    let pipes = patches[at + 1u];
    let cuts = patches[at + 2u];
    let base = vec2<f32>(bitcast<f32>(patches[at + 3u]), bitcast<f32>(patches[at + 4u]));
    let now = df_add(base, vec2<f32>(aux.ctl.time_hi, aux.ctl.time_lo));
    for (var k = 0u; k < cuts; k = k + 1u) {
        let b = at + HEADER + 8u * faces + 4u * pipes + CUT * k;
        let up = patches[b];
        let crest = bitcast<f32>(patches[b + 1u]);
        let bottom = bitcast<f32>(patches[b + 2u]);
        let width = bitcast<f32>(patches[b + 3u]);
        let slope = bitcast<f32>(patches[b + 4u]);
        let surface = terrain[up] + depth[cur + up];
        if (breaches[2u * k] == 0u) {
            let start = patches[b + 5u];
            let value = bitcast<f32>(patches[b + 6u]);
            var started = false;
            if (start == 0u) {
                // time >= t, in double-f32.
                let d = df_add(now, vec2<f32>(-value, 0.0));
                started = d.x + d.y >= 0.0;
            } else if (start == 2u) {
                started = surface >= crest + value;
            }
            if (started) {
                breaches[2u * k] = 1u;
            }
            continue;
        }
        var p = bitcast<f32>(breaches[2u * k + 1u]);
        if (p < 1.0) {
            let rate = bitcast<f32>(patches[b + 8u]);
            var step = 1.0;
            if (patches[b + 7u] == 0u) {
                if (rate > 0.0) {
                    step = dt / rate;
                }
            } else {
                let full = crest - bottom;
                let head = max(surface - (crest - p * full), 0.0);
                if (full > 0.0) {
                    step = rate * head * sqrt(head) * dt / full;
                }
            }
            p = min(p + step, 1.0);
            breaches[2u * k + 1u] = bitcast<u32>(p);
        }
        let off = patches[b + 9u];
        let n = patches[b + 10u];
        for (var i = 0u; i < n; i = i + 1u) {
            let c = patches[off + 3u * i];
            let ground = bitcast<f32>(patches[off + 3u * i + 1u]);
            let distance = bitcast<f32>(patches[off + 3u * i + 2u]);
            // Never above what is there: an overlapping breach's deeper cut stays cut.
            terrain[c] = min(terrain[c], min(ground, cut_surface(crest, bottom, width, slope, p, distance)));
        }
    }
}
