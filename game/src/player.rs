//! The player's eye: the renderer's [`Camera`], the editor's own, so the game opens on the view
//! the designer first sees, flown with the keys held and turned by mouse drags.

use spillway_render::{Bounds, Camera};

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

/// The camera and the keys that move it.
#[derive(Clone, Copy, Debug)]
pub struct Player {
    /// Where the player looks from and to.
    pub camera: Camera,
    /// The movement keys held.
    pub held: Held,
}

impl Player {
    /// A player looking at `bounds` from the south, framed in an image of `aspect` (width /
    /// height): the editor's opening view.
    pub fn overlooking(bounds: &Bounds, aspect: f32) -> Self {
        let mut camera = Camera::default();
        camera.reset(bounds, aspect);
        Self {
            camera,
            held: Held::default(),
        }
    }

    /// Flies for `seconds` with the keys held: WASD along the view, Q/E down and up.
    pub fn fly(&mut self, seconds: f32) {
        let axis = |plus: bool, minus: bool| plus as i32 as f32 - minus as i32 as f32;
        let h = self.held;
        self.camera.fly(
            axis(h.forward, h.back),
            axis(h.right, h.left),
            axis(h.up, h.down),
            seconds,
            h.fast,
        );
    }

    /// Moves the eye towards what it looks at by `scroll` points of wheel movement (positive:
    /// closer) or away from it: flying goes slower close up and faster far out, as the
    /// editor's camera does.
    pub fn zoom(&mut self, scroll: f32, bounds: &Bounds) {
        self.camera.zoom(scroll, bounds);
    }

    /// Turns by a mouse drag of `(dx, dy)` pixels (right turns right, down looks down).
    pub fn turn(&mut self, dx: f32, dy: f32) {
        self.camera.look(dx, dy);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spillway_render::math::Vec3;

    #[test]
    fn the_wheel_brings_the_eye_closer_and_flying_slower() {
        let bounds = Bounds {
            min: Vec3::new(0.0, 0.0, 0.0),
            max: Vec3::new(1000.0, 1000.0, 50.0),
        };
        let flown = |zoom: f32| {
            let mut player = Player::overlooking(&bounds, 1.5);
            let eye = player.camera.eye();
            player.zoom(zoom, &bounds);
            let closer = (player.camera.eye() - player.camera.target).length();
            let start = player.camera.eye();
            player.held.forward = true;
            player.fly(1.0);
            (closer, (player.camera.eye() - start).length(), eye)
        };
        let (far, far_speed, _) = flown(0.0);
        let (near, near_speed, _) = flown(1000.0);
        assert!(near < far * 0.2, "{near} m from the target, was {far}");
        assert!(
            near_speed < far_speed * 0.5,
            "{near_speed} m/s, was {far_speed}"
        );
    }
}
