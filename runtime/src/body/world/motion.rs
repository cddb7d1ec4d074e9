//! Saving and restoring how each body of a [`BodyWorld`] sits and moves, so a caller can put the
//! world back to an earlier moment (the editor's timeline keyframes).

use rapier3d::prelude::Vector;

use super::{BodyId, BodyWorld, rapier_pose};
use crate::body::Pose;

/// Where a body is and how fast it moves: what [`BodyWorld::set_state`] puts back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// Position and orientation (scale as placed).
    pub pose: Pose,
    /// Velocity of the centre of mass, m/s.
    pub linear: [f32; 3],
    /// Angular velocity, rad/s.
    pub angular: [f32; 3],
}

impl BodyWorld {
    /// How body `id` sits and moves now.
    pub fn state(&self, id: BodyId) -> Option<BodyState> {
        let pose = self.pose(id)?;
        let rb = self.physics.bodies.get(self.slot(id)?.handle)?;
        let (v, w) = (rb.linvel(), rb.angvel());
        Some(BodyState {
            pose,
            linear: [v.x, v.y, v.z],
            angular: [w.x, w.y, w.z],
        })
    }

    /// Puts body `id` where `state` says, moving as it says (its scale stays as placed).
    /// Returns whether the body exists.
    pub fn set_state(&mut self, id: BodyId, state: &BodyState) -> bool {
        let Some(handle) = self.slot(id).map(|s| s.handle) else {
            return false;
        };
        let Some(rb) = self.physics.bodies.get_mut(handle) else {
            return false;
        };
        let finite = |v: [f32; 3]| {
            let [x, y, z] = v.map(|c| if c.is_finite() { c } else { 0.0 });
            Vector::new(x, y, z)
        };
        rb.set_position(rapier_pose(&state.pose), true);
        rb.set_linvel(finite(state.linear), true);
        rb.set_angvel(finite(state.angular), true);
        true
    }
}
