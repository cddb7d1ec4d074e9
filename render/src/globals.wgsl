// The uniform block every pass of the renderer reads (`scene::Globals` in Rust), prepended to
// each pass's own file by its owner: the camera, the sun, the level's size, the height range,
// the brush, the overlays.

struct Globals {
    view_proj: mat4x4<f32>,
    eye: vec4<f32>,
    sun: vec4<f32>,
    // nx, ny, cell size, tile size in quads
    level: vec4<f32>,
    // lowest height, highest height, contour interval, grid spacing
    heights: vec4<f32>,
    // brush segment start x, y, radius, core radius (where the falloff begins)
    brush_a: vec4<f32>,
    // brush segment end x, y (equal to the start for a round brush), shown (0/1), unused
    brush_b: vec4<f32>,
    // contours, grid, water tint (each 0 or 1), depth of the tile skirts (metres)
    overlays: vec4<f32>,
    // roughness overlay (0 or 1), cell overlay (0 none, 1 ramp, 2 regions), ramp low, ramp high
    extra: vec4<f32>,
};

