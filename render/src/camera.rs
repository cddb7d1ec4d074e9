//! `Camera`: an orbit camera around a target point, with pan, zoom, WASD fly, framing and the
//! view rays used for picking.

use crate::math::{Mat4, Vec3};

/// Vertical field of view, radians.
pub const FOV_Y: f32 = 0.9;
/// Radians of orbit per point of mouse movement.
const ORBIT_SPEED: f32 = 0.008;
/// Lowest and highest pitch above the horizon, radians.
const PITCH_RANGE: (f32, f32) = (-1.45, 1.55);
/// Pitch of the reset view, radians (about 49°).
const RESET_PITCH: f32 = 0.85;

/// A ray from the eye through a pixel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Where it starts (the eye).
    pub origin: Vec3,
    /// Unit direction.
    pub dir: Vec3,
}

impl Ray {
    /// The point `t` metres along the ray.
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }

    /// Where the ray meets the horizontal plane at `height`; `None` when it points away from
    /// it or runs along it.
    pub fn meet_height(&self, height: f32) -> Option<Vec3> {
        let t = (height - self.origin.z) / self.dir.z;
        let p = self.at(t);
        (t > 0.0 && p.x.is_finite() && p.y.is_finite()).then_some(p)
    }
}

/// The orbit camera: looks at `target` from `distance` metres away, at compass angle `yaw`
/// (0 looks north, towards row 0) and `pitch` above the horizon.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// The point orbited around and looked at, world metres.
    pub target: Vec3,
    /// Compass angle, radians.
    pub yaw: f32,
    /// Angle above the horizon, radians.
    pub pitch: f32,
    /// Distance from the eye to the target, metres.
    pub distance: f32,
}

impl Default for Camera {
    fn default() -> Self {
        Self {
            target: Vec3::default(),
            yaw: 0.0,
            pitch: RESET_PITCH,
            distance: 100.0,
        }
    }
}

/// The extent of a level: what framing aims at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Smallest corner, metres.
    pub min: Vec3,
    /// Largest corner, metres.
    pub max: Vec3,
}

impl Bounds {
    /// The centre point.
    pub fn centre(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// The length of the diagonal.
    pub fn diagonal(&self) -> f32 {
        (self.max - self.min).length()
    }
}

impl Camera {
    /// The eye position.
    pub fn eye(&self) -> Vec3 {
        let (sp, cp) = self.pitch.sin_cos();
        let (sy, cy) = self.yaw.sin_cos();
        self.target + Vec3::new(cp * sy, cp * cy, sp) * self.distance
    }

    /// The unit vectors right, up and forward (the direction looked along).
    pub fn basis(&self) -> (Vec3, Vec3, Vec3) {
        let forward = (self.target - self.eye()).normalized();
        let mut right = Vec3::new(0.0, 0.0, 1.0).cross(forward).normalized();
        if right.length() < 0.5 {
            right = Vec3::new(self.yaw.cos(), -self.yaw.sin(), 0.0);
        }
        let up = forward.cross(right).normalized();
        (right, up, forward)
    }

    /// The view-projection matrix for an image of `aspect` (width / height), drawing a scene
    /// of `bounds`.
    pub fn view_proj(&self, aspect: f32, bounds: &Bounds) -> Mat4 {
        let (right, up, forward) = self.basis();
        let eye = self.eye();
        let near = (self.distance * 0.002).clamp(0.01, 10.0);
        let far = (eye - bounds.centre()).length() + bounds.diagonal() * 2.0 + self.distance;
        Mat4::perspective(FOV_Y, aspect.max(1e-3), near, far)
            .mul(&Mat4::view(eye, right, up, forward))
    }

    /// The ray through point `(px, py)` of an image `width × height` (any unit, origin top left).
    pub fn ray(&self, px: f32, py: f32, width: f32, height: f32) -> Ray {
        let (right, up, forward) = self.basis();
        let t = (FOV_Y * 0.5).tan();
        let aspect = width / height.max(1e-3);
        let nx = 2.0 * px / width.max(1e-3) - 1.0;
        let ny = 1.0 - 2.0 * py / height.max(1e-3);
        let dir = (forward + right * (nx * t * aspect) + up * (ny * t)).normalized();
        Ray {
            origin: self.eye(),
            dir,
        }
    }

    /// Where world point `p` appears in an image `width × height` (any unit, origin top left)
    /// of a scene of `bounds`; `None` behind the eye.
    pub fn to_screen(&self, p: Vec3, width: f32, height: f32, bounds: &Bounds) -> Option<[f32; 2]> {
        let clip = self.view_proj(width / height.max(1e-3), bounds).project(p);
        if clip[3] <= 1e-6 || !clip.iter().all(|v| v.is_finite()) {
            return None;
        }
        let (nx, ny) = (clip[0] / clip[3], clip[1] / clip[3]);
        Some([(nx + 1.0) * 0.5 * width, (1.0 - ny) * 0.5 * height])
    }

    /// Orbits by a mouse movement of `(dx, dy)` points.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * ORBIT_SPEED;
        self.pitch = (self.pitch + dy * ORBIT_SPEED).clamp(PITCH_RANGE.0, PITCH_RANGE.1);
    }

    /// Turns the view by a mouse movement of `(dx, dy)` points, keeping the eye in place
    /// (mouse look while flying).
    pub fn look(&mut self, dx: f32, dy: f32) {
        let eye = self.eye();
        self.yaw -= dx * ORBIT_SPEED;
        self.pitch = (self.pitch + dy * ORBIT_SPEED).clamp(PITCH_RANGE.0, PITCH_RANGE.1);
        let (sp, cp) = self.pitch.sin_cos();
        let (sy, cy) = self.yaw.sin_cos();
        self.target = eye - Vec3::new(cp * sy, cp * cy, sp) * self.distance;
    }

    /// Pans by a mouse movement of `(dx, dy)` points in an image `height` points tall: the
    /// point under the cursor at the target's depth follows the cursor.
    pub fn pan(&mut self, dx: f32, dy: f32, height: f32) {
        let (right, up, _) = self.basis();
        let metres_per_point = 2.0 * self.distance * (FOV_Y * 0.5).tan() / height.max(1.0);
        self.target = self.target - right * (dx * metres_per_point) + up * (dy * metres_per_point);
    }

    /// Zooms by `scroll` points of wheel movement (positive: closer).
    pub fn zoom(&mut self, scroll: f32, bounds: &Bounds) {
        let max = (bounds.diagonal() * 4.0).max(10.0);
        self.distance = (self.distance * (-scroll * 0.002).exp()).clamp(0.5, max);
    }

    /// Flies the camera by `(forward, right, up)` steps of input held for `dt` seconds, at
    /// 0.8 × its distance per second (so as fast near as far, in the view) but at least 2 m/s;
    /// `fast` triples the speed.
    pub fn fly(&mut self, forward: f32, right: f32, up: f32, dt: f32, fast: bool) {
        let (r, _, f) = self.basis();
        // (A floor of 2 % of the level's diagonal flew 116 m/s at 20 m from the ground of a
        // 4096 m level: a tap of W overshot the spot being sculpted.)
        let speed = (self.distance * 0.8).max(2.0) * if fast { 3.0 } else { 1.0 };
        let step = (f * forward + r * right + Vec3::new(0.0, 0.0, 1.0) * up) * (speed * dt);
        self.target = self.target + step;
    }

    /// Keeps the orientation and moves to the nearest distance from which all of `bounds`
    /// fits an image of `aspect` (width / height), with a small margin.
    pub fn frame(&mut self, bounds: &Bounds, aspect: f32) {
        self.target = bounds.centre();
        let radius = (bounds.diagonal() * 0.5).max(0.5);
        // Far enough for the bounding sphere always fits; search down to the tightest fit.
        let (mut lo, mut hi) = (
            radius * 0.05,
            radius / (FOV_Y * 0.5).sin() * aspect.recip().max(1.0) * 1.3,
        );
        let corners = [
            [bounds.min.x, bounds.min.y],
            [bounds.max.x, bounds.min.y],
            [bounds.min.x, bounds.max.y],
            [bounds.max.x, bounds.max.y],
        ];
        let fits = |camera: &Camera| {
            let m = camera.view_proj(aspect, bounds);
            corners.iter().all(|[x, y]| {
                [bounds.min.z, bounds.max.z].iter().all(|z| {
                    let c = m.project(Vec3::new(*x, *y, *z));
                    c[3] > 0.0 && (c[0] / c[3]).abs() <= 0.92 && (c[1] / c[3]).abs() <= 0.92
                })
            })
        };
        for _ in 0..32 {
            let mid = 0.5 * (lo + hi);
            self.distance = mid;
            if fits(self) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        self.distance = hi.max(1.0);
    }

    /// Looks at `bounds` from the south at the default angle, framing it in an image of
    /// `aspect` (width / height).
    pub fn reset(&mut self, bounds: &Bounds, aspect: f32) {
        self.yaw = 0.0;
        self.pitch = RESET_PITCH;
        self.frame(bounds, aspect);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flying_close_to_the_ground_is_slow_on_any_level() {
        // 20 m from the ground: 16 m/s, a quarter metre a frame at 60 Hz, however large the
        // level (a floor of 2 % of a 4096 m level's diagonal flew 116 m/s).
        let mut cam = Camera {
            target: Vec3::new(2000.0, 2000.0, 0.0),
            yaw: 0.0,
            pitch: 0.5,
            distance: 20.0,
        };
        let before = cam.target;
        cam.fly(1.0, 0.0, 0.0, 1.0 / 60.0, false);
        let moved = (cam.target - before).length();
        assert!((moved - 16.0 / 60.0).abs() < 1e-3, "{moved} m");
    }

    #[test]
    fn the_centre_ray_hits_the_target() {
        let cam = Camera {
            target: Vec3::new(10.0, 20.0, 5.0),
            yaw: 0.3,
            pitch: 0.6,
            distance: 50.0,
        };
        let ray = cam.ray(50.0, 40.0, 100.0, 80.0);
        let p = ray.at(50.0);
        assert!((p - cam.target).length() < 1e-3, "{p:?}");
        // The projection agrees: the target lands in the middle of the image.
        let b = Bounds {
            min: Vec3::default(),
            max: Vec3::new(100.0, 100.0, 10.0),
        };
        let clip = cam.view_proj(1.25, &b).project(cam.target);
        assert!((clip[0] / clip[3]).abs() < 1e-4 && (clip[1] / clip[3]).abs() < 1e-4);
        assert!(clip[2] / clip[3] > 0.0 && clip[2] / clip[3] < 1.0);
    }

    #[test]
    fn east_is_on_the_right_looking_north() {
        let cam = Camera::default();
        let (right, _, _) = cam.basis();
        assert!(right.x > 0.99);
        let b = Bounds {
            min: Vec3::default(),
            max: Vec3::new(100.0, 100.0, 10.0),
        };
        let m = cam.view_proj(1.0, &b);
        let east = m.project(cam.target + Vec3::new(1.0, 0.0, 0.0));
        assert!(east[0] / east[3] > 0.0);
        let north = m.project(cam.target + Vec3::new(0.0, -1.0, 0.0));
        assert!(north[1] / north[3] > 0.0, "north is up the screen");
    }

    #[test]
    fn to_screen_inverts_the_ray() {
        let cam = Camera {
            target: Vec3::new(10.0, 20.0, 5.0),
            yaw: 0.4,
            pitch: 0.7,
            distance: 60.0,
        };
        let b = Bounds {
            min: Vec3::default(),
            max: Vec3::new(100.0, 100.0, 10.0),
        };
        let ray = cam.ray(30.0, 70.0, 160.0, 90.0);
        let [x, y] = cam
            .to_screen(ray.at(40.0), 160.0, 90.0, &b)
            .expect("in front");
        assert!(
            (x - 30.0).abs() < 1e-2 && (y - 70.0).abs() < 1e-2,
            "{x}, {y}"
        );
        assert!(
            cam.to_screen(cam.eye() + ray.dir * -5.0, 160.0, 90.0, &b)
                .is_none()
        );
    }
}
