// The terrain pass of the renderer (the editor's viewport and the game): a heightfield mesh drawn
// tile by tile from a height texture, lit by a sun and an ambient term, coloured by height and
// slope, with optional contour lines, a grid, a water-depth tint and the brush outline, which
// follows the terrain.

@group(0) @binding(0) var<uniform> g: Globals;
@group(0) @binding(1) var heights: texture_2d<f32>;
@group(0) @binding(2) var water: texture_2d<f32>;
@group(0) @binding(3) var roughness: texture_2d<f32>;
@group(0) @binding(4) var cells: texture_2d<f32>;

// The cell overlay's value at world point `p` (nearest cell).
fn cell_value(p: vec2<f32>) -> f32 {
    let last = vec2<i32>(i32(g.level.x) - 1, i32(g.level.y) - 1);
    let c = vec2<i32>(floor(p / g.level.z));
    return textureLoad(cells, clamp(c, vec2<i32>(0, 0), last), 0).x;
}

// A colour of its own for region id `id`.
fn region_colour(id: f32) -> vec3<f32> {
    let h = fract(sin(id * 12.9898 + 4.1414) * 43758.5453);
    let k = fract(vec3<f32>(h, h + 0.333, h + 0.667)) * 6.2831853;
    return vec3<f32>(0.5) + 0.45 * cos(k);
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) depth: f32,
    @location(3) manning: f32,
};

fn height(c: vec2<i32>) -> f32 {
    let last = vec2<i32>(i32(g.level.x) - 1, i32(g.level.y) - 1);
    return textureLoad(heights, clamp(c, vec2<i32>(0, 0), last), 0).x;
}

// The tile-local grid position of vertex `vi`, and whether it is a skirt vertex (hanging below
// an edge vertex: 0 top, 1 bottom, 2 left, 3 right edge, each `side` vertices long).
fn tile_vertex(vi: u32, side: u32) -> vec3<u32> {
    let grid = side * side;
    if vi < grid {
        return vec3<u32>(vi % side, vi / side, 0u);
    }
    let edge = (vi - grid) / side;
    let k = (vi - grid) % side;
    let q = side - 1u;
    var local = vec2<u32>(k, 0u);
    if edge == 1u {
        local = vec2<u32>(k, q);
    } else if edge == 2u {
        local = vec2<u32>(0u, k);
    } else if edge == 3u {
        local = vec2<u32>(q, k);
    }
    return vec3<u32>(local, 1u);
}

@vertex
// `tile`: its first cell, the cells between its grid's vertices, the cells between the
// vertices drawn (tiles.rs, `Tile`).
fn vs_main(@builtin(vertex_index) vi: u32, @location(0) tile: vec4<u32>) -> VertexOut {
    let side = u32(g.level.w) + 1u;
    let tv = tile_vertex(vi, side);
    let local = tv.xy;
    let last = vec2<u32>(u32(g.level.x) - 1u, u32(g.level.y) - 1u);
    let cell = vec2<i32>(min(tile.xy + local * tile.z, last));
    let step = i32(tile.w);
    let cs = g.level.z;
    let h = height(cell);
    // Central differences over the vertices drawn (one-sided at the edges) for the normal.
    let l = max(cell.x - step, 0);
    let r = min(cell.x + step, i32(last.x));
    let u = max(cell.y - step, 0);
    let d = min(cell.y + step, i32(last.y));
    let dhdx = (height(vec2<i32>(r, cell.y)) - height(vec2<i32>(l, cell.y))) / (f32(max(r - l, 1)) * cs);
    let dhdy = (height(vec2<i32>(cell.x, d)) - height(vec2<i32>(cell.x, u))) / (f32(max(d - u, 1)) * cs);
    var out: VertexOut;
    out.world = vec3<f32>((f32(cell.x) + 0.5) * cs, (f32(cell.y) + 0.5) * cs, h - f32(tv.z) * g.overlays.w);
    out.normal = normalize(vec3<f32>(-dhdx, -dhdy, 1.0));
    out.depth = textureLoad(water, cell, 0).x;
    out.manning = textureLoad(roughness, cell, 0).x;
    out.clip = g.view_proj * vec4<f32>(out.world, 1.0);
    return out;
}

// Height ramp (linear colours): sand, grass, olive, brown earth, pale rock.
fn height_colour(t: f32) -> vec3<f32> {
    let sand = vec3<f32>(0.46, 0.38, 0.20);
    let grass = vec3<f32>(0.10, 0.22, 0.04);
    let olive = vec3<f32>(0.22, 0.24, 0.06);
    let earth = vec3<f32>(0.25, 0.15, 0.06);
    let pale = vec3<f32>(0.42, 0.40, 0.36);
    if t < 0.08 {
        return mix(sand, grass, smoothstep(0.0, 0.08, t));
    } else if t < 0.45 {
        return mix(grass, olive, smoothstep(0.08, 0.45, t));
    } else if t < 0.78 {
        return mix(olive, earth, smoothstep(0.45, 0.78, t));
    }
    return mix(earth, pale, smoothstep(0.78, 1.0, t));
}

// Manning's n as a colour, on a log scale from 0.01 (smooth concrete: pale blue-grey) through
// 0.03 (gravel: sand), 0.035 to 0.07 (grass to brush: greens) to 0.15 (forest: deep green).
fn roughness_colour(n: f32) -> vec3<f32> {
    let t = clamp(log(max(n, 1e-4) / 0.01) / log(15.0), 0.0, 1.0);
    let concrete = vec3<f32>(0.55, 0.60, 0.70);
    let gravel = vec3<f32>(0.75, 0.55, 0.25);
    let grass = vec3<f32>(0.45, 0.75, 0.15);
    let brush = vec3<f32>(0.10, 0.45, 0.08);
    let forest = vec3<f32>(0.02, 0.16, 0.04);
    // log(0.03/0.01)/log(15) = 0.41, 0.035 → 0.46, 0.07 → 0.72, 0.1 → 0.85
    if t < 0.41 {
        return mix(concrete, gravel, smoothstep(0.0, 0.41, t));
    } else if t < 0.46 {
        return mix(gravel, grass, smoothstep(0.41, 0.46, t));
    } else if t < 0.72 {
        return mix(grass, brush, smoothstep(0.46, 0.72, t));
    }
    return mix(brush, forest, smoothstep(0.72, 0.85, t));
}

// 1 on a line of a periodic pattern with period 1 in `v`, fading over about `width` pixels.
// Where `v` does not change across the pixel (level ground exactly at a contour's height)
// there is no line: the whole flat was drawn as one, nearly black.
fn line(v: f32, width: f32) -> f32 {
    let f = fwidth(v);
    if f < 1e-6 {
        return 0.0;
    }
    let dist = abs(fract(v - 0.5) - 0.5) / f;
    return 1.0 - smoothstep(width * 0.5, width * 0.5 + 1.0, dist);
}

fn srgb(c: vec3<f32>) -> vec3<f32> {
    let lo = c * 12.92;
    let hi = 1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(hi, lo, c < vec3<f32>(0.0031308));
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    let span = max(g.heights.y - g.heights.x, 1e-3);
    let t = clamp((in.world.z - g.heights.x) / span, 0.0, 1.0);
    var albedo = height_colour(t);
    let slope = 1.0 - n.z;
    albedo = mix(albedo, vec3<f32>(0.16, 0.14, 0.12), smoothstep(0.3, 0.6, slope));

    let sun = normalize(g.sun.xyz);
    let diffuse = max(dot(n, sun), 0.0);
    let sky = 0.5 + 0.5 * n.z;
    var colour = albedo * (vec3<f32>(1.0, 0.95, 0.85) * diffuse * 2.0 + vec3<f32>(0.45, 0.52, 0.65) * sky * 0.25);

    if g.extra.x > 0.5 {
        // The ground's colour replaced by its roughness, keeping the light so relief reads.
        let lit = diffuse * 0.6 + sky * 0.4;
        colour = mix(colour, roughness_colour(in.manning) * (0.35 + 0.75 * lit), 0.85);
    }
    if g.extra.y > 0.5 && g.extra.y < 1.5 {
        // A ramp: streams or depths, transparent at `lo`, deep blue at `hi`; the largest value
        // within a pixel around, so streams a cell wide stay visible from afar (1.0), or each
        // pixel its own cell's (1.25: a run's map, as exported).
        let fw = max(fwidth(in.world.xy), vec2<f32>(1e-4));
        var v = cell_value(in.world.xy);
        if g.extra.y < 1.1 {
            v = max(v, max(cell_value(in.world.xy + vec2<f32>(fw.x, 0.0)), cell_value(in.world.xy - vec2<f32>(fw.x, 0.0))));
            v = max(v, max(cell_value(in.world.xy + vec2<f32>(0.0, fw.y)), cell_value(in.world.xy - vec2<f32>(0.0, fw.y))));
        }
        let t = clamp((v - g.extra.z) / max(g.extra.w - g.extra.z, 1e-6), 0.0, 1.0);
        let stream = mix(vec3<f32>(0.20, 0.55, 0.95), vec3<f32>(0.02, 0.10, 0.55), t);
        colour = mix(colour, stream, select(0.0, 0.35 + 0.6 * t, t > 0.0));
    } else if g.extra.y > 1.5 {
        // Regions: a tint of each id's colour, and a dark line where the id changes.
        let here = cell_value(in.world.xy);
        let fw = max(fwidth(in.world.xy), vec2<f32>(1e-4));
        let edge = cell_value(in.world.xy + vec2<f32>(fw.x, 0.0)) != here
            || cell_value(in.world.xy + vec2<f32>(0.0, fw.y)) != here;
        colour = mix(colour, region_colour(here) * (0.4 + 0.6 * diffuse), 0.45);
        colour = select(colour, vec3<f32>(0.02, 0.02, 0.02), edge);
    }
    if g.overlays.z > 0.5 && in.depth > 0.0 {
        // Fades in over the first decimetres, so the shore follows the depth smoothly.
        let wet = smoothstep(0.0, 0.2, in.depth);
        let deep = 1.0 - exp(-in.depth / 1.5);
        colour = mix(colour, vec3<f32>(0.02, 0.09, 0.25), wet * (0.45 + 0.5 * deep));
    }
    if g.overlays.x > 0.5 && g.heights.z > 0.0 {
        let v = in.world.z / g.heights.z;
        let minor = line(v, 1.0);
        let major = line(v / 5.0, 1.6);
        colour = mix(colour, vec3<f32>(0.01, 0.01, 0.01), max(minor * 0.4, major * 0.7));
    }
    if g.overlays.y > 0.5 && g.heights.w > 0.0 {
        let gx = line(in.world.x / g.heights.w, 1.0);
        let gy = line(in.world.y / g.heights.w, 1.0);
        colour = mix(colour, vec3<f32>(0.8, 0.8, 0.8), max(gx, gy) * 0.3);
    }
    if g.brush_b.z > 0.5 {
        // Distance to the brush segment (a point for round brushes): the outline follows
        // the terrain because it is drawn on it.
        let a = g.brush_a.xy;
        let ab = g.brush_b.xy - a;
        let len2 = dot(ab, ab);
        var s = 0.0;
        if len2 > 0.0 {
            s = clamp(dot(in.world.xy - a, ab) / len2, 0.0, 1.0);
        }
        let d = distance(in.world.xy, a + ab * s);
        let radius = g.brush_a.z;
        let core = g.brush_a.w;
        let fw = max(fwidth(d), 1e-6);
        let ring = 1.0 - smoothstep(1.0, 2.0, abs(d - radius) / fw);
        let inner = (1.0 - smoothstep(0.5, 1.5, abs(d - core) / fw)) * step(core, radius - fw * 2.0);
        let inside = 1.0 - smoothstep(core, radius, d);
        colour = mix(colour, vec3<f32>(1.0, 0.78, 0.25), inside * 0.12 * step(d, radius));
        colour = mix(colour, vec3<f32>(1.0, 0.85, 0.35), max(ring, inner * 0.5));
    }
    // Distance haze, so far terrain reads as far.
    let dist = distance(in.world, g.eye.xyz);
    let haze = 1.0 - exp(-dist / max(g.eye.w, 1.0));
    colour = mix(colour, vec3<f32>(0.30, 0.36, 0.45), clamp(haze, 0.0, 0.2));
    return vec4<f32>(srgb(clamp(colour, vec3<f32>(0.0), vec3<f32>(1.0))), 1.0);
}
