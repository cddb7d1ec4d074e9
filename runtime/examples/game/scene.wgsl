// The game example's scene: the terrain and the water drawn straight from the GPU solver's
// storage buffers (one vertex per cell centre, no CPU copy), and the rigid bodies as
// flat-shaded instanced meshes. Colours are written sRGB-encoded into a non-sRGB target.

struct Globals {
    view_proj: mat4x4<f32>,
    // eye position, haze distance
    eye: vec4<f32>,
    // direction to the sun, seconds of animation
    sun: vec4<f32>,
    // nx, ny, cell size, unused
    level: vec4<f32>,
    // lowest terrain, highest terrain, unused, unused
    heights: vec4<f32>,
};

@group(0) @binding(0) var<uniform> g: Globals;
@group(0) @binding(1) var<storage, read> terrain: array<f32>;
@group(0) @binding(2) var<storage, read> depth: array<f32>;
// The solver's view block: current half, then the offsets of the current depth, x-face and
// y-face halves.
@group(0) @binding(3) var<storage, read> view: array<u32, 4>;
// The solver's blockers; `effective_surface` (prepended, spillway::gpu::BLOCKERS_WGSL) reads it.
@group(0) @binding(4) var<storage, read> blk: array<u32>;

// Shallower than this, a cell is dry (m).
const DRY: f32 = 0.005;
const HAZE: vec3<f32> = vec3<f32>(0.55, 0.66, 0.80);

fn srgb(c: vec3<f32>) -> vec3<f32> {
    let lo = c * 12.92;
    let hi = 1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(hi, lo, c < vec3<f32>(0.0031308));
}

fn cell_of(i: u32) -> vec2<i32> {
    let nx = u32(g.level.x);
    return vec2<i32>(i32(i % nx), i32(i / nx));
}

fn index(c: vec2<i32>) -> u32 {
    let last = vec2<i32>(i32(g.level.x) - 1, i32(g.level.y) - 1);
    let k = clamp(c, vec2<i32>(0, 0), last);
    return u32(k.y) * u32(g.level.x) + u32(k.x);
}

// Depth to the effective surface: where a body holds the water down, the surface the water
// would have without it (no dents at bodies).
fn water(c: vec2<i32>) -> f32 {
    let last = vec2<i32>(i32(g.level.x) - 1, i32(g.level.y) - 1);
    let k = clamp(c, vec2<i32>(0, 0), last);
    let i = index(c);
    let b = terrain[i];
    return max(effective_surface(u32(k.x), u32(k.y), view[0], b, depth[view[1] + i]) - b, 0.0);
}

fn centre(c: vec2<i32>, z: f32) -> vec3<f32> {
    let cs = g.level.z;
    return vec3<f32>((f32(c.x) + 0.5) * cs, (f32(c.y) + 0.5) * cs, z);
}

// Normal of a height field `h` sampled at the four neighbours of a cell.
fn normal_of(l: f32, r: f32, u: f32, d: f32) -> vec3<f32> {
    let cs = g.level.z;
    return normalize(vec3<f32>(-(r - l) / (2.0 * cs), -(d - u) / (2.0 * cs), 1.0));
}

fn hazed(colour: vec3<f32>, world: vec3<f32>) -> vec3<f32> {
    let dist = distance(world, g.eye.xyz);
    let haze = 1.0 - exp(-dist / max(g.eye.w, 1.0));
    return mix(colour, HAZE, clamp(haze, 0.0, 0.35));
}

struct GroundOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
};

@vertex
fn terrain_vs(@builtin(vertex_index) vi: u32) -> GroundOut {
    let c = cell_of(vi);
    let h = terrain[vi];
    var out: GroundOut;
    out.world = centre(c, h);
    out.normal = normal_of(
        terrain[index(c - vec2<i32>(1, 0))],
        terrain[index(c + vec2<i32>(1, 0))],
        terrain[index(c - vec2<i32>(0, 1))],
        terrain[index(c + vec2<i32>(0, 1))],
    );
    out.clip = g.view_proj * vec4<f32>(out.world, 1.0);
    return out;
}

// Height ramp (linear colours): sand, grass, olive, brown earth, pale rock.
fn height_colour(t: f32) -> vec3<f32> {
    let sand = vec3<f32>(0.46, 0.38, 0.20);
    let grass = vec3<f32>(0.10, 0.24, 0.05);
    let olive = vec3<f32>(0.24, 0.25, 0.07);
    let earth = vec3<f32>(0.26, 0.16, 0.07);
    let pale = vec3<f32>(0.45, 0.43, 0.40);
    if t < 0.08 {
        return mix(sand, grass, smoothstep(0.0, 0.08, t));
    } else if t < 0.45 {
        return mix(grass, olive, smoothstep(0.08, 0.45, t));
    } else if t < 0.78 {
        return mix(olive, earth, smoothstep(0.45, 0.78, t));
    }
    return mix(earth, pale, smoothstep(0.78, 1.0, t));
}

@fragment
fn terrain_fs(in: GroundOut) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    let span = max(g.heights.y - g.heights.x, 1e-3);
    let t = clamp((in.world.z - g.heights.x) / span, 0.0, 1.0);
    // Steep slopes show bare rock.
    let albedo = mix(height_colour(t), vec3<f32>(0.18, 0.16, 0.14), smoothstep(0.3, 0.6, 1.0 - n.z));
    let diffuse = max(dot(n, normalize(g.sun.xyz)), 0.0);
    let sky = 0.5 + 0.5 * n.z;
    let lit = albedo * (vec3<f32>(1.0, 0.95, 0.85) * diffuse * 2.0 + vec3<f32>(0.45, 0.52, 0.65) * sky * 0.3);
    return vec4<f32>(srgb(clamp(hazed(lit, in.world), vec3<f32>(0.0), vec3<f32>(1.0))), 1.0);
}

struct WaterOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) depth: f32,
};

// The water surface at a cell, or `own` where it is dry (so shores do not tilt the normals).
fn surface(c: vec2<i32>, own: f32) -> f32 {
    let d = water(c);
    return select(own, terrain[index(c)] + d, d > DRY);
}

// The highest water surface among the eight neighbours of a cell (very low if all are dry).
fn wet_neighbour_surface(c: vec2<i32>) -> f32 {
    var s = -1e30;
    for (var dy = -1; dy <= 1; dy++) {
        for (var dx = -1; dx <= 1; dx++) {
            let n = c + vec2<i32>(dx, dy);
            let d = water(n);
            if d > DRY {
                s = max(s, terrain[index(n)] + d);
            }
        }
    }
    return s;
}

@vertex
fn water_vs(@builtin(vertex_index) vi: u32) -> WaterOut {
    let c = cell_of(vi);
    let b = terrain[vi];
    let d = water(c);
    var z = b + d;
    if d <= DRY {
        // A dry vertex continues its wet neighbours' surface flat into the bank (under the
        // ground), so the shore lies where that plane meets the terrain; with no wet
        // neighbour it sinks below the ground.
        let s = wet_neighbour_surface(c);
        z = select(b - 0.05, min(s, b), s > -1e29);
    }
    var out: WaterOut;
    out.world = centre(c, z);
    out.normal = normal_of(
        surface(c - vec2<i32>(1, 0), z),
        surface(c + vec2<i32>(1, 0), z),
        surface(c - vec2<i32>(0, 1), z),
        surface(c + vec2<i32>(0, 1), z),
    );
    // Height above the ground: zero or less at dry vertices, so the interpolated value
    // crosses zero at the shore.
    out.depth = z - b;
    out.clip = g.view_proj * vec4<f32>(out.world, 1.0);
    return out;
}

// Gradient of a few travelling sines: small ripples for the lighting.
fn ripples(p: vec2<f32>, t: f32) -> vec2<f32> {
    let d1 = vec2<f32>(0.80, 0.60);
    let d2 = vec2<f32>(-0.45, 0.89);
    let g1 = cos(dot(p, d1) * 1.7 + t * 1.3) * d1 * 0.025;
    let g2 = cos(dot(p, d2) * 3.1 - t * 1.9) * d2 * 0.015;
    return g1 + g2;
}

@fragment
fn water_fs(in: WaterOut) -> @location(0) vec4<f32> {
    if in.depth <= DRY {
        discard;
    }
    // Ripples fade where a pixel covers more ground than their wavelength (no moiré).
    let footprint = length(fwidth(in.world.xy));
    let fade = 1.0 - smoothstep(0.15, 0.6, footprint);
    let ripple = ripples(in.world.xy, g.sun.w) * smoothstep(0.0, 0.3, in.depth) * fade;
    let n = normalize(normalize(in.normal) + vec3<f32>(-ripple, 0.0));
    let v = normalize(g.eye.xyz - in.world);
    let sun = normalize(g.sun.xyz);
    let fresnel = 0.02 + 0.98 * pow(1.0 - clamp(dot(n, v), 0.0, 1.0), 5.0);
    let r = reflect(-v, n);
    let sky = mix(vec3<f32>(0.60, 0.70, 0.82), vec3<f32>(0.15, 0.30, 0.60), clamp(r.z, 0.0, 1.0));
    let spec = pow(max(dot(r, sun), 0.0), 120.0) * 3.0;
    // Shallow water is clear turquoise, deep water dark blue, and more opaque.
    let deep = 1.0 - exp(-in.depth / 1.5);
    let body = mix(vec3<f32>(0.05, 0.35, 0.45), vec3<f32>(0.01, 0.07, 0.25), deep);
    let lit = body * (0.4 + 0.6 * max(dot(n, sun), 0.0));
    let colour = hazed(mix(lit, sky, fresnel) + vec3<f32>(spec), in.world);
    let edge = smoothstep(DRY, 0.08, in.depth);
    let alpha = max(0.35 + 0.6 * deep, fresnel) * edge;
    return vec4<f32>(srgb(clamp(colour, vec3<f32>(0.0), vec3<f32>(1.0))) * alpha, alpha);
}

struct BodyIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) m0: vec4<f32>,
    @location(3) m1: vec4<f32>,
    @location(4) m2: vec4<f32>,
    @location(5) m3: vec4<f32>,
    @location(6) colour: vec4<f32>,
};

struct BodyOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) colour: vec3<f32>,
};

@vertex
fn body_vs(v: BodyIn) -> BodyOut {
    let model = mat4x4<f32>(v.m0, v.m1, v.m2, v.m3);
    let world = model * vec4<f32>(v.position, 1.0);
    // Rotation and scale; normals stay right for the uniform scales bodies are placed with.
    let linear = mat3x3<f32>(v.m0.xyz, v.m1.xyz, v.m2.xyz);
    var out: BodyOut;
    out.clip = g.view_proj * world;
    out.world = world.xyz;
    out.normal = linear * v.normal;
    out.colour = v.colour.rgb;
    return out;
}

@fragment
fn body_fs(in: BodyOut) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    let diffuse = abs(dot(n, normalize(g.sun.xyz)));
    let sky = 0.5 + 0.5 * n.z;
    let lit = in.colour * (vec3<f32>(1.0, 0.95, 0.85) * diffuse * 1.8 + vec3<f32>(0.45, 0.52, 0.65) * sky * 0.45);
    return vec4<f32>(srgb(clamp(hazed(lit, in.world), vec3<f32>(0.0), vec3<f32>(1.0))), 1.0);
}
