// Structures pass: culverts, weirs and sluice gates (sim::structures), after the flow pass, one
// thread, face after face and then culvert after culvert in the CPU solver's order. A weir or
// gate face whose limited discharge is more than its law allows is cut back to the law and the
// water it would have passed goes back upstream; a culvert moves water between its end cells.
// The rounding of every depth change goes to ledger slot 0 (added) as double-f32. The runtime
// prepends schedule.wgsl (`scheduled`, for gate openings).

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> aux: Aux;
@group(0) @binding(2) var<storage, read> terrain: array<f32>;
@group(0) @binding(3) var<storage, read_write> depth: array<f32>;
@group(0) @binding(4) var<storage, read_write> qx: array<f32>;
@group(0) @binding(5) var<storage, read_write> qy: array<f32>;
// The patch table; at word `grid.structures`: face count, culvert count, then 8 words per face
// (flags: 1 y-face, 2 gate; face index; low cell; high cell; width; crest or sill; weir
// coefficient or contraction; opening schedule offset) and 4 per culvert (from cell, to cell,
// diameter, loss coefficient).
@group(0) @binding(6) var<storage, read> patches: array<u32>;
@group(0) @binding(7) var<storage, read_write> ledger: array<vec4<f32>>;

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
        let f = at + 2u + 8u * i;
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
            cap = gate(width, level, scheduled(patches[f + 7u]), coef, su, sd);
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
        let p = at + 2u + 8u * faces + 4u * i;
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
            q = pipe_area(d_up, dia) * sqrt(2.0 * grid.gravity * head / loss);
        }
        let d = min(min(q * per_depth, 0.5 * d_up), 0.25 * head);
        if (d > 0.0 && up != down) {
            move_water(up, down, d, nxt);
        }
    }
    let l = ledger[0];
    ledger[0] = vec4<f32>(df_add(l.xy, created), l.zw);
}
