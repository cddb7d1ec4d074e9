// The bodies pass of the renderer (the editor's viewport and the game): rigid body meshes, one
// draw per mesh with one instance per placed body (its world matrix, normal matrix and colour),
// lit by the same sun as the terrain and depth-tested against it; the water is drawn after, over
// them. Alpha below one draws a ghost (the placement preview); a tint's w marks the selected
// body.

@group(0) @binding(0) var<uniform> g: Globals;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) m0: vec4<f32>,
    @location(3) m1: vec4<f32>,
    @location(4) m2: vec4<f32>,
    @location(5) m3: vec4<f32>,
    @location(6) n0: vec4<f32>,
    @location(7) n1: vec4<f32>,
    @location(8) n2: vec4<f32>,
    // rgb albedo, a opacity
    @location(9) colour: vec4<f32>,
    // x: selected (0/1)
    @location(10) flags: vec4<f32>,
};

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) colour: vec4<f32>,
    @location(3) flags: vec4<f32>,
};

@vertex
fn vs_main(v: VertexIn) -> VertexOut {
    let model = mat4x4<f32>(v.m0, v.m1, v.m2, v.m3);
    let world = model * vec4<f32>(v.position, 1.0);
    let normal_m = mat3x3<f32>(v.n0.xyz, v.n1.xyz, v.n2.xyz);
    var out: VertexOut;
    out.clip = g.view_proj * world;
    out.world = world.xyz;
    out.normal = normal_m * v.normal;
    out.colour = v.colour;
    out.flags = v.flags;
    return out;
}

fn srgb(c: vec3<f32>) -> vec3<f32> {
    let lo = c * 12.92;
    let hi = 1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(hi, lo, c < vec3<f32>(0.0031308));
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    let sun = normalize(g.sun.xyz);
    let diffuse = max(dot(n, sun), 0.0);
    let sky = 0.5 + 0.5 * n.z;
    var colour = in.colour.rgb * (vec3<f32>(1.0, 0.95, 0.85) * diffuse * 1.8 + vec3<f32>(0.45, 0.52, 0.65) * sky * 0.45);
    if in.flags.x > 0.5 {
        // Selected: warm highlight and a rim that brightens edges seen at a grazing angle.
        let view = normalize(g.eye.xyz - in.world);
        let rim = pow(1.0 - abs(dot(n, view)), 2.0);
        colour = mix(colour, vec3<f32>(1.0, 0.75, 0.25), 0.25 + 0.6 * rim);
    }
    let dist = distance(in.world, g.eye.xyz);
    let haze = 1.0 - exp(-dist / max(g.eye.w, 1.0));
    colour = mix(colour, vec3<f32>(0.30, 0.36, 0.45), clamp(haze, 0.0, 0.2));
    return vec4<f32>(srgb(clamp(colour, vec3<f32>(0.0), vec3<f32>(1.0))), in.colour.a);
}
