//! [`EditBodies`]: the command that changes the level's rigid bodies — placing, moving,
//! rotating, scaling, duplicating, deleting, editing one in the inspector, or adding a row or
//! stack. A level holds few bodies, so the command ([`Edit`]) keeps the whole list before and
//! after.

use spillway::Level;
use spillway::level::Body;

use super::command::Change;
use super::edit::{Edit, Part};

impl Part for Vec<Body> {
    const CHANGE: Change = Change::Bodies;

    fn of(level: &Level) -> Self {
        level.bodies.clone()
    }

    fn write(&self, level: &mut Level) {
        level.bodies.clone_from(self);
    }

    fn bytes(&self) -> usize {
        self.iter()
            .map(|b| std::mem::size_of::<Body>() + b.name.len() + b.gltf.len())
            .sum()
    }

    fn relink_bodies(&mut self, to: &dyn Fn(&str) -> String) {
        for body in self {
            body.gltf = to(&body.gltf);
        }
    }
}

/// An edit of the level's bodies.
pub type EditBodies = Edit<Vec<Body>>;

/// A dynamic, unrotated, unscaled body of 600 kg/m³ named `name`, its file `gltf`, at `at`:
/// the body the editor's unit tests place.
#[cfg(test)]
pub(crate) fn test_body(name: &str, gltf: &str, at: [f32; 3]) -> Body {
    Body {
        name: name.into(),
        gltf: gltf.into(),
        translation: at,
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
        density: 600.0,
        dynamic: true,
        coupling: spillway::level::Coupling::Auto,
        collider: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Command;

    #[test]
    fn apply_and_revert_are_exact_inverses() {
        let mut level = Level::flat(8, 8, 1.0, 0.0);
        let body = test_body("Crate 1", "bodies/crate.glb", [1.0, 2.0, 3.0]);
        let edit = EditBodies::new("Place body", vec![], vec![body.clone()]);
        assert!(!edit.is_empty());
        assert_eq!(edit.apply(&mut level), Change::Bodies);
        assert_eq!(level.bodies, vec![body]);
        edit.revert(&mut level);
        assert!(level.bodies.is_empty());
        assert!(edit.bytes() > 0);
    }
}
