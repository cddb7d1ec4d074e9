//! [`EditBodies`]: the command that changes the level's rigid bodies — placing, moving,
//! rotating, scaling, duplicating, deleting, editing one in the inspector, or adding a row or
//! stack. A level holds few bodies, so the command keeps the whole list before and after.

use spillway::Level;
use spillway::level::Body;

use super::command::{Change, Command};

/// An edit of the level's bodies.
#[derive(Clone, Debug, PartialEq)]
pub struct EditBodies {
    label: String,
    before: Vec<Body>,
    after: Vec<Body>,
}

impl EditBodies {
    /// A command turning the bodies `before` into `after`.
    pub fn new(label: impl Into<String>, before: Vec<Body>, after: Vec<Body>) -> Self {
        Self {
            label: label.into(),
            before,
            after,
        }
    }

    /// Whether the edit changes nothing.
    pub fn is_empty(&self) -> bool {
        self.before == self.after
    }
}

fn bytes(bodies: &[Body]) -> usize {
    bodies
        .iter()
        .map(|b| std::mem::size_of::<Body>() + b.name.len() + b.gltf.len())
        .sum()
}

impl Command for EditBodies {
    fn label(&self) -> &str {
        &self.label
    }

    fn apply(&self, level: &mut Level) -> Change {
        level.bodies.clone_from(&self.after);
        Change::Bodies
    }

    fn revert(&self, level: &mut Level) -> Change {
        level.bodies.clone_from(&self.before);
        Change::Bodies
    }

    fn bytes(&self) -> usize {
        bytes(&self.before) + bytes(&self.after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spillway::level::Coupling;

    #[test]
    fn apply_and_revert_are_exact_inverses() {
        let mut level = Level::flat(8, 8, 1.0, 0.0);
        let body = Body {
            name: "Crate 1".into(),
            gltf: "bodies/crate.glb".into(),
            translation: [1.0, 2.0, 3.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            density: 600.0,
            dynamic: true,
            coupling: Coupling::Auto,
            collider: Default::default(),
        };
        let edit = EditBodies::new("Place body", vec![], vec![body.clone()]);
        assert!(!edit.is_empty());
        assert_eq!(edit.apply(&mut level), Change::Bodies);
        assert_eq!(level.bodies, vec![body]);
        edit.revert(&mut level);
        assert!(level.bodies.is_empty());
        assert!(edit.bytes() > 0);
    }
}
