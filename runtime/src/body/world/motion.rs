//! Saving and restoring how each body of a [`BodyWorld`] sits and moves, so a caller can put the
//! world back to an earlier moment (the editor's timeline keyframes), and setting aside the
//! bodies that fall over the map's edge.

use rapier3d::prelude::Vector;

use super::{BodyId, BodyWorld, rapier_pose};
use crate::body::Pose;

/// How far below the lowest ground a body's origin (the point its mesh is placed by, the
/// bounding-box centre of an imported mesh) must fall for it to count as gone over the map's
/// edge (the terrain collider ends at the map's border; nothing else is down there), m.
pub const FALL_BELOW: f32 = 2.0;

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

    /// Puts body `id` where `state` says, moving as it says (its scale stays as placed; a
    /// velocity that is not finite is taken as rest), with the water taken to hold it there
    /// already (the next step moves none for the jump: a moment restored with its water).
    /// Returns whether it was put there: `false` for a body not in the world or a pose that
    /// is not finite.
    pub fn set_state(&mut self, id: BodyId, state: &BodyState) -> bool {
        let pose = state.pose.translation.iter().chain(&state.pose.rotation);
        if !pose.into_iter().all(|v| v.is_finite()) {
            return false;
        }
        if !self.put_back(id, state) {
            return false;
        }
        // A body set aside after falling off the map comes back where the state puts it.
        if let Some(handle) = self.slot(id).map(|s| s.handle)
            && let Some(rb) = self.physics.bodies.get_mut(handle)
        {
            rb.set_enabled(true);
        }
        if let Some(Some(slot)) = self.slots.get_mut(id.0) {
            slot.left = false;
            slot.rebase = true;
        }
        true
    }

    /// Puts body `id` where `state` says, moving as it says, leaving it set aside if it was
    /// (a failed step's rollback). Returns whether the body exists.
    pub(super) fn put_back(&mut self, id: BodyId, state: &BodyState) -> bool {
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

    /// Whether body `id` is asleep: at rest (rapier's sleep, half a second below 5 cm/s at its
    /// farthest point), so rapier leaves it and its contacts out of its steps until the water's
    /// forces on it change ([`super::WAKE_SHARE`]), a contact starts or ends, its state is set
    /// or the ground under it is made again. `None` for an id not in the world.
    pub fn asleep(&self, id: BodyId) -> Option<bool> {
        let rb = self.physics.bodies.get(self.slot(id)?.handle)?;
        Some(rb.is_dynamic() && rb.is_sleeping())
    }

    /// Whether body `id` went over the map's edge and fell [`FALL_BELOW`] below the lowest
    /// ground: it is then set aside (disabled in rapier, out of the coupling) where it fell,
    /// instead of falling for ever. [`Self::set_state`] brings it back.
    pub fn has_left(&self, id: BodyId) -> Option<bool> {
        Some(self.slot(id)?.left)
    }

    /// Where body `id` is now, to save as the level's state (a bake, the editor's "Keep this
    /// state"): its pose, or `None` for a body that went over the map's edge
    /// ([`Self::has_left`]), which keeps its placement instead of the pose under the map where
    /// it fell. `None` also for an unknown body.
    pub fn kept_pose(&self, id: BodyId) -> Option<Pose> {
        if self.has_left(id)? {
            return None;
        }
        self.pose(id)
    }

    /// Writes where the level's bodies are now into `level` (the one the world was built from
    /// with [`Self::from_level`]): each body's [`Self::kept_pose`], so a bake or a save game
    /// ([`crate::Simulation::bake_into`], then [`crate::level::file::save`]) loads them where
    /// they were, settled in the water saved around them (a save game put every body back at
    /// its placement, in water shaped around where it had been). A body removed, or gone over
    /// the map's edge, keeps its placement. Bodies added since with [`Self::add`] are the
    /// game's to save, and velocities are not kept: a body loaded again starts at rest.
    pub fn keep_poses(&self, level: &mut crate::Level) {
        for (i, body) in level.bodies.iter_mut().enumerate() {
            if let Some(pose) = self.kept_pose(BodyId(i)) {
                body.translation = pose.translation;
                body.rotation = pose.rotation;
            }
        }
    }

    /// Sets aside the dynamic bodies that fell [`FALL_BELOW`] under the lowest ground.
    pub(super) fn set_aside_fallen(&mut self) {
        let below = self.floor - FALL_BELOW;
        for slot in self.slots.iter_mut().flatten() {
            if slot.left || !slot.dynamic {
                continue;
            }
            let Some(rb) = self.physics.bodies.get_mut(slot.handle) else {
                continue;
            };
            if rb.translation().z < below {
                rb.set_linvel(Vector::ZERO, false);
                rb.set_angvel(Vector::ZERO, false);
                rb.set_enabled(false);
                slot.left = true;
            }
        }
    }
}
