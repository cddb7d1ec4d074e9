//! The fly camera: an eye with a yaw and a pitch, moved by the keys held and turned by mouse
//! drags, and its view-projection matrix in the level's frame (metres, x along the columns, y
//! down the rows, z up). That frame is left-handed, so the camera's right is `up × forward`:
//! the map then looks as it does in the editor's top view, not mirrored.

/// A column-major 4 × 4 matrix, as WGSL's `mat4x4<f32>` reads it.
pub type Mat4 = [[f32; 4]; 4];

/// Vertical field of view, radians.
const FOV_Y: f32 = 1.0;
/// Turn per pixel of mouse drag, radians.
const TURN_PER_PIXEL: f32 = 0.004;
/// Steepest look up or down, radians (short of straight, where yaw is undefined).
const MAX_PITCH: f32 = 1.5;

/// `a × b`.
pub fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a · b`.
pub fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `v` scaled to unit length (or unchanged if it has none).
pub fn normalized(v: [f32; 3]) -> [f32; 3] {
    let n = dot(v, v).sqrt();
    if n > 0.0 { v.map(|c| c / n) } else { v }
}

/// `a + s·b`.
pub fn add_scaled(a: [f32; 3], b: [f32; 3], s: f32) -> [f32; 3] {
    [a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]]
}

/// The product `a · b` of column-major matrices.
pub fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut out = [[0.0; 4]; 4];
    for (c, col) in out.iter_mut().enumerate() {
        for (r, v) in col.iter_mut().enumerate() {
            *v = (0..4).map(|k| a[k][r] * b[c][k]).sum();
        }
    }
    out
}

/// Which movement keys are held.
#[derive(Clone, Copy, Debug, Default)]
pub struct Held {
    /// W.
    pub forward: bool,
    /// S.
    pub back: bool,
    /// A.
    pub left: bool,
    /// D.
    pub right: bool,
    /// Q.
    pub down: bool,
    /// E.
    pub up: bool,
    /// Shift: move faster.
    pub fast: bool,
}

/// The player's eye.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Position, metres.
    pub eye: [f32; 3],
    /// Heading, radians from +x towards +y.
    pub yaw: f32,
    /// Elevation of the view, radians (negative: looking down).
    pub pitch: f32,
    /// Flying speed, m/s.
    pub speed: f32,
}

impl Camera {
    /// A camera just beyond the south edge (the last rows) of a `width × height` m map, above
    /// its highest ground `top`, looking at the map's centre at height `mid`.
    pub fn overlooking(width: f32, height: f32, top: f32, mid: f32) -> Self {
        let extent = width.max(height);
        let eye = [0.5 * width, height + 0.05 * extent, top + 0.22 * extent];
        let target = [0.5 * width, 0.5 * height, mid];
        let d = [target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]];
        Self {
            eye,
            yaw: d[1].atan2(d[0]),
            pitch: (d[2] / dot(d, d).sqrt()).asin(),
            speed: (extent / 6.0).max(5.0),
        }
    }

    /// Unit view direction.
    pub fn forward(&self) -> [f32; 3] {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        [cy * cp, sy * cp, sp]
    }

    /// Unit horizontal direction to the right of the view.
    pub fn right(&self) -> [f32; 3] {
        let (sy, cy) = self.yaw.sin_cos();
        [-sy, cy, 0.0]
    }

    /// Turns by a mouse drag of `(dx, dy)` pixels (right turns right, down looks down).
    pub fn turn(&mut self, dx: f32, dy: f32) {
        self.yaw += dx * TURN_PER_PIXEL;
        self.pitch = (self.pitch - dy * TURN_PER_PIXEL).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Flies for `seconds` with the keys `held`: WASD along the view, Q/E down and up.
    pub fn fly(&mut self, held: &Held, seconds: f32) {
        let axis = |plus: bool, minus: bool| plus as i32 as f32 - minus as i32 as f32;
        let step = self.speed * seconds * if held.fast { 3.0 } else { 1.0 };
        let f = self.forward();
        let r = self.right();
        self.eye = add_scaled(self.eye, f, step * axis(held.forward, held.back));
        self.eye = add_scaled(self.eye, r, step * axis(held.right, held.left));
        self.eye[2] += step * axis(held.up, held.down);
    }

    /// The view-projection matrix for an image of `aspect` (width / height), seeing as far as
    /// `far` metres, onto wgpu's clip space (depth 0 near, 1 far).
    pub fn view_proj(&self, aspect: f32, far: f32) -> Mat4 {
        let f = self.forward();
        let r = normalized(cross([0.0, 0.0, 1.0], f));
        let r = if dot(r, r) > 0.0 { r } else { self.right() };
        let u = cross(f, r);
        let e = self.eye;
        let view = [
            [r[0], u[0], -f[0], 0.0],
            [r[1], u[1], -f[1], 0.0],
            [r[2], u[2], -f[2], 0.0],
            [-dot(r, e), -dot(u, e), dot(f, e), 1.0],
        ];
        let near = 0.1;
        let s = 1.0 / (FOV_Y * 0.5).tan();
        let a = far / (near - far);
        let proj = [
            [s / aspect.max(1e-3), 0.0, 0.0, 0.0],
            [0.0, s, 0.0, 0.0],
            [0.0, 0.0, a, -1.0],
            [0.0, 0.0, a * near, 0.0],
        ];
        mul(&proj, &view)
    }
}
