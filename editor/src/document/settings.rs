//! The level's settings and its initial water state as undoable edits: [`EditSettings`] changes
//! the name and the simulation parameters (solver, friction, time step, CFL, gravity, rain, the
//! default edge); [`SetWaterState`] replaces the initial water and flow state (a bake, "Keep
//! this state").

use spillway::level::{Body, FlowState, Gate, Params, Structure};
use spillway::{Grid, Level};

use super::command::Change;
use super::edit::{Edit, Part};

/// The settings a designer edits in the Level settings panel.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The level's name.
    pub name: String,
    /// The simulation parameters.
    pub params: Params,
}

impl Settings {
    /// A copy of `level`'s settings.
    pub fn of(level: &Level) -> Self {
        Self {
            name: level.name.clone(),
            params: level.params.clone(),
        }
    }
}

impl Part for Settings {
    const CHANGE: Change = Change::Settings;

    fn of(level: &Level) -> Self {
        Settings::of(level)
    }

    fn write(&self, level: &mut Level) {
        level.name.clone_from(&self.name);
        level.params = self.params.clone();
    }

    fn bytes(&self) -> usize {
        self.name.len() + std::mem::size_of::<Settings>()
    }
}

/// An edit of the level's name or parameters.
pub type EditSettings = Edit<Settings>;

/// The initial water of a level: depths, the saved flow state, the gates (a baked gate that
/// had opened stays open), the bodies (where the water brought them to rest), the structures
/// (how far each breach had opened) and, where the bed moves, the terrain the water left.
#[derive(Clone, Debug, PartialEq)]
pub struct WaterState {
    /// Depth per cell, metres.
    pub water: Grid,
    /// The saved flow state, if any.
    pub flow: Option<FlowState>,
    /// The gates (their opening times).
    pub gates: Vec<Gate>,
    /// The bodies (their poses).
    pub bodies: Vec<Body>,
    /// The structures (a breach's `opened`).
    pub structures: Vec<Structure>,
    /// The terrain, for a level whose bed moves (`params.sediment`); `None` otherwise.
    pub terrain: Option<Grid>,
}

impl WaterState {
    /// A copy of `level`'s initial water.
    pub fn of(level: &Level) -> Self {
        Self {
            water: level.water.clone(),
            flow: level.flow.clone(),
            gates: level.gates.clone(),
            bodies: level.bodies.clone(),
            structures: level.structures.clone(),
            terrain: level
                .params
                .sediment
                .is_some()
                .then(|| level.terrain.clone()),
        }
    }
}

impl Part for WaterState {
    const CHANGE: Change = Change::WaterState;

    fn of(level: &Level) -> Self {
        WaterState::of(level)
    }

    fn write(&self, level: &mut Level) {
        level.water.clone_from(&self.water);
        level.flow.clone_from(&self.flow);
        level.gates.clone_from(&self.gates);
        level.bodies.clone_from(&self.bodies);
        level.structures.clone_from(&self.structures);
        if let Some(terrain) = &self.terrain {
            level.terrain.clone_from(terrain);
        }
    }

    fn bytes(&self) -> usize {
        let flow = self.flow.as_ref().map_or(0, FlowState::values);
        let terrain = self.terrain.as_ref().map_or(0, |t| t.data.len());
        (self.water.data.len() + flow + terrain) * 4
            + self.gates.len() * std::mem::size_of::<Gate>()
            + self.bodies.len() * std::mem::size_of::<Body>()
            + self.structures.len() * std::mem::size_of::<Structure>()
    }

    fn relink_bodies(&mut self, to: &dyn Fn(&str) -> String) {
        self.bodies.relink_bodies(to);
    }
}

/// Replaces the level's initial water and flow state: a finished bake, or the preview's
/// current frame kept as the start.
pub type SetWaterState = Edit<WaterState>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Command;
    use spillway::level::{Friction, SolverKind};

    #[test]
    fn settings_apply_and_revert_are_exact_inverses() {
        let mut level = Level::flat(8, 8, 1.0, 0.0);
        let before = Settings::of(&level);
        let mut after = before.clone();
        after.name = "river".into();
        after.params.solver = SolverKind::Swe;
        after.params.friction = Friction::Manning { n: 0.07 };
        let edit = EditSettings::new("Solver", before.clone(), after.clone());
        assert!(!edit.is_empty());
        assert_eq!(edit.apply(&mut level), Change::Settings);
        assert_eq!(Settings::of(&level), after);
        edit.revert(&mut level);
        assert_eq!(Settings::of(&level), before);
    }

    #[test]
    fn a_water_state_is_replaced_and_put_back() {
        let mut level = Level::flat(8, 8, 1.0, 0.0);
        let before = WaterState::of(&level);
        let mut after = before.clone();
        after.water = Grid::filled(8, 8, 0.5);
        after.flow = Some(FlowState {
            flow_x: vec![0.1; 9 * 8],
            flow_y: vec![0.0; 8 * 9],
            ..FlowState::default()
        });
        let edit = SetWaterState::new("Bake", before.clone(), after.clone());
        edit.apply(&mut level);
        assert_eq!(WaterState::of(&level), after);
        edit.revert(&mut level);
        assert_eq!(WaterState::of(&level), before);
        assert!(edit.bytes() >= (64 + 64 + 72 + 72) * 4);
    }
}
