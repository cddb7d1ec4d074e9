//! The little 3D math the viewport needs: `Vec3` and a column-major `Mat4`.

use std::ops::{Add, Mul, Neg, Sub};

/// A 3D vector (x east, y south along the rows, z up; metres).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec3 {
    /// x component.
    pub x: f32,
    /// y component.
    pub y: f32,
    /// z component.
    pub z: f32,
}

impl Vec3 {
    /// The vector `(x, y, z)`.
    pub const fn new(x: f32, y: f32, z: f32) -> Self {
        Self { x, y, z }
    }

    /// Dot product.
    pub fn dot(self, o: Vec3) -> f32 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    /// Cross product.
    pub fn cross(self, o: Vec3) -> Vec3 {
        Vec3::new(
            self.y * o.z - self.z * o.y,
            self.z * o.x - self.x * o.z,
            self.x * o.y - self.y * o.x,
        )
    }

    /// Length.
    pub fn length(self) -> f32 {
        self.dot(self).sqrt()
    }

    /// The vector scaled to length 1 (zero stays zero).
    pub fn normalized(self) -> Vec3 {
        let l = self.length();
        if l > 0.0 { self * (1.0 / l) } else { self }
    }

    /// As an array.
    pub fn to_array(self) -> [f32; 3] {
        [self.x, self.y, self.z]
    }
}

impl Add for Vec3 {
    type Output = Vec3;
    fn add(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}

impl Sub for Vec3 {
    type Output = Vec3;
    fn sub(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}

impl Mul<f32> for Vec3 {
    type Output = Vec3;
    fn mul(self, s: f32) -> Vec3 {
        Vec3::new(self.x * s, self.y * s, self.z * s)
    }
}

impl Neg for Vec3 {
    type Output = Vec3;
    fn neg(self) -> Vec3 {
        Vec3::new(-self.x, -self.y, -self.z)
    }
}

/// A 4 × 4 matrix stored column by column, as WGSL's `mat4x4<f32>` expects.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mat4 {
    /// The four columns.
    pub cols: [[f32; 4]; 4],
}

impl Mat4 {
    /// The product `self × o`.
    pub fn mul(&self, o: &Mat4) -> Mat4 {
        let mut cols = [[0.0; 4]; 4];
        for (c, col) in cols.iter_mut().enumerate() {
            for (r, v) in col.iter_mut().enumerate() {
                *v = (0..4).map(|k| self.cols[k][r] * o.cols[c][k]).sum();
            }
        }
        Mat4 { cols }
    }

    /// Transforms the point `p` (w = 1) and returns clip coordinates.
    pub fn project(&self, p: Vec3) -> [f32; 4] {
        let v = [p.x, p.y, p.z, 1.0];
        let mut out = [0.0; 4];
        for (r, o) in out.iter_mut().enumerate() {
            *o = (0..4).map(|k| self.cols[k][r] * v[k]).sum();
        }
        out
    }

    /// A view matrix from an eye position and an orthonormal camera basis (right, up, and
    /// forward, the direction looked along).
    pub fn view(eye: Vec3, right: Vec3, up: Vec3, forward: Vec3) -> Mat4 {
        let back = -forward;
        Mat4 {
            cols: [
                [right.x, up.x, back.x, 0.0],
                [right.y, up.y, back.y, 0.0],
                [right.z, up.z, back.z, 0.0],
                [-right.dot(eye), -up.dot(eye), -back.dot(eye), 1.0],
            ],
        }
    }

    /// A perspective projection onto wgpu's clip space (depth 0 at `near`, 1 at `far`).
    pub fn perspective(fov_y: f32, aspect: f32, near: f32, far: f32) -> Mat4 {
        let f = 1.0 / (fov_y * 0.5).tan();
        let a = far / (near - far);
        Mat4 {
            cols: [
                [f / aspect, 0.0, 0.0, 0.0],
                [0.0, f, 0.0, 0.0],
                [0.0, 0.0, a, -1.0],
                [0.0, 0.0, a * near, 0.0],
            ],
        }
    }
}
