// The water pass of the renderer (the editor's viewport and the game; thesis §4.7): the live
// water surface drawn straight from the GPU solver's storage buffers (no CPU copy), between the
// last two solver states for smooth motion. Per-pixel lighting from interpolated surface normals
// plus flow-advected detail normals (two phases), Schlick Fresnel against a sky gradient, sun
// glints, foam where the water is fast, supercritical, converging or steep (a pattern carried by
// the flow), and at High quality the ground below seen through the water: refracted by the
// surface's slope (never into a bank or body in front of the water: the frame's depth says
// which) and absorbed colour by colour along the path through the water (clear in the
// shallows, dark blue-green in the deep) with light scattered back from inside it. Soft
// shorelines fade over the first centimetres. The overlays: depth colour map, velocity
// streaks, flooded-area mask and the difference from the authored water.

struct Water {
    // elements in one depth half, overlay mode, quality (0 low, 1 medium, 2 high), whether
    // `below` holds the frame under the water (1) or is a placeholder (0)
    ints: vec4<u32>,
    // blend between the previous (0) and current (1) state, seconds of animation, colour-map
    // top depth (m), colour-map top speed (m/s)
    floats: vec4<f32>,
    // whether `wetted` holds the deepest water each cell has held (1) or is a placeholder (0)
    wet: vec4<u32>,
};

@group(0) @binding(0) var<uniform> g: Globals;
@group(0) @binding(1) var<storage, read> terrain: array<f32>;
@group(0) @binding(2) var<storage, read> depth: array<f32>;
@group(0) @binding(3) var<storage, read> qx: array<f32>;
@group(0) @binding(4) var<storage, read> qy: array<f32>;
@group(0) @binding(5) var<storage, read> view: array<u32, 4>;
@group(0) @binding(6) var<uniform> w: Water;
@group(0) @binding(7) var authored: texture_2d<f32>;
// The solver's blockers; `drawn_surface` (prepended, spillway::gpu::BLOCKERS_WGSL) reads it.
@group(0) @binding(8) var<storage, read> blk: array<u32>;
// The frame as drawn before the water (terrain and bodies; sRGB-encoded values), for refraction.
@group(0) @binding(9) var below: texture_2d<f32>;
// The deepest water each cell has held (the solver's maps of the run), for wet ground.
@group(0) @binding(10) var<storage, read> wetted: array<f32>;
// The depth of the frame before the water: where it is nearer than the water, the copied pixel
// shows something in front of the water (a bank, a body), which is not seen through it.
@group(0) @binding(11) var below_depth: texture_depth_2d;

const MODE_NONE: u32 = 0u;
const MODE_DEPTH: u32 = 1u;
const MODE_VELOCITY: u32 = 2u;
const MODE_FLOODED: u32 = 3u;
const MODE_DIFFERENCE: u32 = 4u;
const DRY: f32 = 0.002;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) depth: f32,
    @location(3) velocity: vec2<f32>,
    @location(4) authored: f32,
    // How fast the flow converges or spreads here (|∂u/∂x + ∂v/∂y|, 1/s).
    @location(5) churn: f32,
    // How steeply the depth changes here (a front, a bore): |∇depth|.
    @location(6) front: f32,
    // How wet the ground is where the water has been and gone (0..1).
    @location(7) wet: f32,
};

fn last_cell() -> vec2<i32> {
    return vec2<i32>(i32(g.level.x) - 1, i32(g.level.y) - 1);
}

fn index(c: vec2<i32>) -> u32 {
    let k = clamp(c, vec2<i32>(0, 0), last_cell());
    return u32(k.y) * u32(g.level.x) + u32(k.x);
}

// Depth between the previous and the current state, to the effective surface: where a body
// holds the water down, the surface the water would have without it (no dents at bodies).
fn water_depth(c: vec2<i32>) -> f32 {
    let i = index(c);
    let k = clamp(c, vec2<i32>(0, 0), last_cell());
    let b = terrain[i];
    let half = view[0];
    let cur = drawn_surface(u32(k.x), u32(k.y), half, b, depth[view[1] + i]);
    let prev = drawn_surface(u32(k.x), u32(k.y), half ^ 1u, b, depth[(w.ints.x - view[1]) + i]);
    return max(mix(prev, cur, w.floats.x) - b, 0.0);
}

// The grid position of tile vertex `vi` (skirt vertices collapse onto their edge vertex).
fn tile_vertex(vi: u32, side: u32) -> vec2<u32> {
    let grid = side * side;
    if vi < grid {
        return vec2<u32>(vi % side, vi / side);
    }
    let edge = (vi - grid) / side;
    let k = (vi - grid) % side;
    let q = side - 1u;
    if edge == 1u {
        return vec2<u32>(k, q);
    } else if edge == 2u {
        return vec2<u32>(0u, k);
    } else if edge == 3u {
        return vec2<u32>(q, k);
    }
    return vec2<u32>(k, 0u);
}

@vertex
// `tile`: its first cell, the cells between its grid's vertices, the cells between the
// vertices drawn (render/src/tiles.rs, `Tile`).
fn vs_main(@builtin(vertex_index) vi: u32, @location(0) tile: vec4<u32>) -> VertexOut {
    let side = u32(g.level.w) + 1u;
    let last = last_cell();
    let cell = min(vec2<i32>(tile.xy + tile_vertex(vi, side) * tile.z), last);
    let cs = g.level.z;
    let d = water_depth(cell);
    let b = terrain[index(cell)];
    let own = b + d;
    let cl = cell - vec2<i32>(1, 0);
    let cr = cell + vec2<i32>(1, 0);
    let cu = cell - vec2<i32>(0, 1);
    let cd = cell + vec2<i32>(0, 1);
    let dl = water_depth(cl);
    let dr = water_depth(cr);
    let du = water_depth(cu);
    let dd = water_depth(cd);
    // The water surface of each neighbour, or this vertex's own height where it is dry (so
    // normals do not tilt into shores).
    let l = select(terrain[index(cl)] + dl, own, dl <= DRY);
    let r = select(terrain[index(cr)] + dr, own, dr <= DRY);
    let u = select(terrain[index(cu)] + du, own, du <= DRY);
    let dn = select(terrain[index(cd)] + dd, own, dd <= DRY);
    // A dry vertex beside water carries the wet neighbours' surface on, below its ground, so
    // the ground cuts the shoreline along its own contour rather than along the cells; a dry
    // vertex away from water sinks a little below the ground.
    var z = own;
    // Ground the water has wetted and left: a dark film just over it (drawn only where dry).
    var wet = 0.0;
    if d <= DRY {
        let near = vec4<f32>(f32(dl > DRY), f32(dr > DRY), f32(du > DRY), f32(dd > DRY));
        let k = dot(near, vec4<f32>(1.0));
        let mean = dot(near, vec4<f32>(l, r, u, dn)) / max(k, 1.0);
        z = select(b - 0.05, mean, k > 0.0 && mean < b);
        if w.wet.x == 1u {
            wet = smoothstep(0.005, 0.05, wetted[index(cell)]);
            if wet > 0.0 && k == 0.0 {
                z = b + 0.02;
            }
        }
        if w.ints.y == MODE_DIFFERENCE {
            // The Change overlay shows water gone too (the fragment drops the cells that did
            // not change): under the ground, a drained lake showed nothing without a map of
            // the ground the run wetted (the CPU solver, a branch compared).
            z = b + 0.02;
        }
    }
    var out: VertexOut;
    out.world = vec3<f32>((f32(cell.x) + 0.5) * cs, (f32(cell.y) + 0.5) * cs, z);
    out.normal = normalize(vec3<f32>(-(r - l) / (2.0 * cs), -(dn - u) / (2.0 * cs), 1.0));
    out.depth = d;
    // Depth-averaged velocity from the current face discharges.
    let nx = u32(g.level.x);
    let x = u32(cell.x);
    let y = u32(cell.y);
    let fx = view[2] + y * (nx + 1u) + x;
    let fy = view[3] + y * nx + x;
    let section = max(d, 0.05) * cs;
    out.velocity = vec2<f32>(0.5 * (qx[fx] + qx[fx + 1u]), 0.5 * (qy[fy] + qy[fy + nx])) / section;
    // The divergence of the depth-averaged velocity from the neighbours' face speeds.
    let ul = qx[fx] / max(0.5 * (d + dl), 0.05);
    let ur = qx[fx + 1u] / max(0.5 * (d + dr), 0.05);
    let vu = qy[fy] / max(0.5 * (d + du), 0.05);
    let vd = qy[fy + nx] / max(0.5 * (d + dd), 0.05);
    out.churn = abs(ur - ul + vd - vu) / (cs * cs);
    out.front = length(vec2<f32>(dr - dl, dd - du)) / (2.0 * cs);
    out.wet = wet;
    out.authored = textureLoad(authored, cell, 0).x;
    out.clip = g.view_proj * vec4<f32>(out.world, 1.0);
    return out;
}

// Gradient of a small sum of travelling sines: cheap detail normals.
fn ripples(p: vec2<f32>) -> vec2<f32> {
    let d1 = vec2<f32>(0.80, 0.60);
    let d2 = vec2<f32>(-0.45, 0.89);
    let d3 = vec2<f32>(0.97, -0.24);
    let g1 = cos(dot(p, d1) * 2.1) * d1 * 2.1 * 0.035;
    let g2 = cos(dot(p, d2) * 3.7 + 1.3) * d2 * 3.7 * 0.022;
    let g3 = cos(dot(p, d3) * 6.3 + 0.7) * d3 * 6.3 * 0.012;
    return g1 + g2 + g3;
}

// Detail slope moved along the flow: two phases of the same pattern, each dragged by the
// velocity for a while and faded out while it resets, so the surface reads as moving.
fn flow_detail(p: vec2<f32>, vel: vec2<f32>, t: f32) -> vec2<f32> {
    let v = vel * min(1.0, 3.0 / max(length(vel), 1e-3));
    let a = fract(t * 0.25);
    let b = fract(t * 0.25 + 0.5);
    let ga = ripples(p - v * a * 4.0);
    let gb = ripples(p - v * b * 4.0 + vec2<f32>(3.1, 1.7));
    let wa = 1.0 - abs(2.0 * a - 1.0);
    return ga * wa + gb * (1.0 - wa);
}

fn hash2(p: vec2<f32>) -> f32 {
    return fract(sin(dot(p, vec2<f32>(127.1, 311.7))) * 43758.5453);
}

// Smooth value noise in 0..1.
fn value_noise(p: vec2<f32>) -> f32 {
    let i = floor(p);
    let f = fract(p);
    let u = f * f * (3.0 - 2.0 * f);
    let a = hash2(i);
    let b = hash2(i + vec2<f32>(1.0, 0.0));
    let c = hash2(i + vec2<f32>(0.0, 1.0));
    let d = hash2(i + vec2<f32>(1.0, 1.0));
    return mix(mix(a, b, u.x), mix(c, d, u.x), u.y);
}

// A blotchy pattern in 0..1 (two octaves of value noise), the texture of foam.
fn foam_pattern(p: vec2<f32>) -> f32 {
    return 0.6 * value_noise(p * 0.9) + 0.4 * value_noise(p * 2.3 + vec2<f32>(17.0, 5.0));
}

// The foam pattern carried by the flow in two phases, as the detail normals are.
fn flow_foam(p: vec2<f32>, vel: vec2<f32>, t: f32) -> f32 {
    let v = vel * min(1.0, 3.0 / max(length(vel), 1e-3));
    let a = fract(t * 0.5);
    let b = fract(t * 0.5 + 0.5);
    let fa = foam_pattern(p * 0.8 - v * a * 2.0);
    let fb = foam_pattern(p * 0.8 - v * b * 2.0 + vec2<f32>(5.3, 2.9));
    let wa = 1.0 - abs(2.0 * a - 1.0);
    return fa * wa + fb * (1.0 - wa);
}

// How much foam the water makes here: fast, supercritical (Froude above 1), converging or
// spreading, at a steep front (a bore, a breaking wave: `front`, the depth's gradient), or
// lapping a shore.
fn foam_amount(depth: f32, vel: vec2<f32>, churn: f32, front: f32) -> f32 {
    let speed = length(vel);
    let froude = speed / sqrt(9.81 * max(depth, 0.01));
    var f = smoothstep(2.5, 6.0, speed) * 0.7;
    f = max(f, smoothstep(1.5, 3.0, froude) * smoothstep(0.5, 1.5, speed) * 0.7);
    f = max(f, smoothstep(1.0, 4.0, churn) * 0.7);
    f = max(f, smoothstep(0.1, 0.4, front) * smoothstep(0.3, 1.0, speed));
    f = max(f, (1.0 - smoothstep(0.01, 0.06, depth)) * 0.25);
    return f;
}

// sRGB-encoded to linear light.
fn to_linear(c: vec3<f32>) -> vec3<f32> {
    let lo = c / 12.92;
    let hi = pow((c + 0.055) / 1.055, vec3<f32>(2.4));
    return select(hi, lo, c <= vec3<f32>(0.04045));
}

fn ramp(t: f32) -> vec3<f32> {
    // Dark blue → cyan → yellow → red.
    let c0 = vec3<f32>(0.05, 0.10, 0.45);
    let c1 = vec3<f32>(0.00, 0.65, 0.85);
    let c2 = vec3<f32>(0.95, 0.85, 0.15);
    let c3 = vec3<f32>(0.85, 0.15, 0.10);
    let s = clamp(t, 0.0, 1.0) * 3.0;
    if s < 1.0 {
        return mix(c0, c1, s);
    } else if s < 2.0 {
        return mix(c1, c2, s - 1.0);
    }
    return mix(c2, c3, s - 2.0);
}

fn srgb(c: vec3<f32>) -> vec3<f32> {
    let lo = c * 12.92;
    let hi = 1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(hi, lo, c < vec3<f32>(0.0031308));
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    let mode = w.ints.y;
    // The shoreline is where the ground cuts the surface; only pixels with no water at all
    // (far from any wet vertex) are dropped.
    if in.depth <= 1e-5 && mode != MODE_DIFFERENCE {
        // Dry now: ground the water has been over stays dark for the shaded water.
        if mode == MODE_NONE && in.wet > 0.02 {
            return vec4<f32>(0.0, 0.0, 0.0, 0.32 * in.wet);
        }
        discard;
    }
    let t = w.floats.y;
    let quality = w.ints.z;
    // Ripples fade where a pixel covers more ground than their wavelength (no aliasing).
    let footprint = length(fwidth(in.world.xy));
    let fade = 1.0 - smoothstep(0.08, 0.3, footprint);
    var detail = vec2<f32>(0.0);
    if quality >= 1u {
        detail = flow_detail(in.world.xy, in.velocity, t) * smoothstep(0.0, 0.3, in.depth) * fade;
    }
    let base = normalize(in.normal);
    let n = normalize(base + vec3<f32>(-detail, 0.0));
    let v = normalize(g.eye.xyz - in.world);
    let sun = normalize(g.sun.xyz);
    let cos_v = clamp(dot(n, v), 0.0, 1.0);
    let fresnel = 0.02 + 0.98 * pow(1.0 - cos_v, 5.0);
    let r = reflect(-v, n);
    // The sky: bright and hazy at the horizon, deep blue overhead.
    let sky = mix(vec3<f32>(0.62, 0.70, 0.78), vec3<f32>(0.10, 0.24, 0.52), pow(clamp(r.z, 0.0, 1.0), 0.6));
    // Sun glints: a sharp highlight and a soft sheen around it.
    let rs = max(dot(r, sun), 0.0);
    let spec = pow(rs, 400.0) * 6.0 + pow(rs, 40.0) * 0.12;
    let shore = smoothstep(DRY, 0.04, in.depth);
    var colour: vec3<f32>;
    var alpha: f32;
    let sun_light = 0.45 + 0.55 * max(sun.z, 0.0);
    if quality >= 2u && w.ints.w == 1u {
        // The ground below through the water: the path through it grows as the view flattens;
        // red goes first, then green, so shallows stay clear and the deep turns blue-green.
        let path = in.depth / max(v.z, 0.2);
        let trans = exp(-vec3<f32>(0.45, 0.12, 0.085) * path);
        let size = vec2<i32>(textureDimensions(below)) - vec2<i32>(1, 1);
        let dist = distance(g.eye.xyz, in.world);
        let bend = n.xy * min(in.depth, 2.0) * 600.0 / max(dist, 1.0);
        var px = clamp(vec2<i32>(in.clip.xy + bend), vec2<i32>(0, 0), size);
        if textureLoad(below_depth, px, 0) < in.clip.z {
            px = vec2<i32>(in.clip.xy);
        }
        let ground = to_linear(textureLoad(below, px, 0).rgb);
        // The wet ground under the water reads darker.
        let scatter = vec3<f32>(0.004, 0.030, 0.052) * sun_light;
        let body = ground * 0.8 * trans + scatter * (1.0 - trans);
        colour = mix(body, sky, fresnel) + vec3<f32>(spec);
        alpha = shore;
    } else {
        // Without the frame below: colour and opacity from the depth.
        let deep = 1.0 - exp(-in.depth / 2.0);
        let body = mix(vec3<f32>(0.06, 0.30, 0.40), vec3<f32>(0.01, 0.06, 0.20), deep);
        let lit = body * (0.35 + 0.65 * max(dot(n, sun), 0.0));
        colour = mix(lit, sky, fresnel) + vec3<f32>(spec);
        alpha = max(0.5 + 0.45 * deep, fresnel) * smoothstep(DRY, 0.08, in.depth);
    }
    if quality >= 1u {
        let amount = foam_amount(in.depth, in.velocity, in.churn, in.front);
        // The pattern gives way to its mean where a pixel covers more than its blotches.
        let sharp = 1.0 - smoothstep(0.3, 1.2, footprint);
        let pattern = mix(0.45, flow_foam(in.world.xy, in.velocity, t), sharp);
        let foam = clamp(amount * (0.2 + 1.3 * pattern) - 0.45, 0.0, 1.0);
        let white = vec3<f32>(0.85, 0.90, 0.92) * (0.55 + 0.45 * max(dot(base, sun), 0.0));
        colour = mix(colour, white, foam);
        alpha = max(alpha, foam * shore);
    }

    if mode == MODE_DEPTH {
        colour = ramp(in.depth / max(w.floats.z, 1e-3));
        alpha = 0.9;
    } else if mode == MODE_VELOCITY {
        let speed = length(in.velocity);
        let dir = in.velocity / max(speed, 1e-4);
        // Streaks across the flow direction, sliding downstream with the water.
        let along = dot(in.world.xy, dir);
        let across = dot(in.world.xy, vec2<f32>(-dir.y, dir.x));
        let streak = smoothstep(0.6, 1.0, fract(along * 0.25 - t * min(speed, 4.0) * 0.5))
            * smoothstep(0.2, 0.5, abs(fract(across * 0.5) - 0.5) * 2.0);
        colour = ramp(speed / max(w.floats.w, 1e-3)) * (0.6 + 0.4 * streak) + vec3<f32>(0.3 * streak);
        alpha = 0.9;
    } else if mode == MODE_FLOODED {
        colour = vec3<f32>(0.85, 0.10, 0.08);
        alpha = 0.75;
    } else if mode == MODE_DIFFERENCE {
        let diff = in.depth - in.authored;
        if abs(diff) < 0.01 {
            discard;
        }
        let m = clamp(abs(diff) / max(w.floats.z * 0.25, 1e-3), 0.0, 1.0);
        colour = select(vec3<f32>(0.1, 0.3, 0.95), vec3<f32>(0.95, 0.2, 0.1), diff > 0.0);
        alpha = 0.3 + 0.6 * m;
    }
    return vec4<f32>(srgb(colour) * alpha, alpha);
}
