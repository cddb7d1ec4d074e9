//! Gates: named regions that hold water back until they open, for dam breaks. While closed, the
//! terrain of a gate's cells is raised to its crest; opening restores the terrain, which
//! releases the water. A gate opens at a set simulated time, when the editor's preview button
//! is pressed, or when a game calls `Simulation::open_gate` with its name (a trigger).

use serde::{Deserialize, Serialize};

use super::Shape;

/// A gate that holds water back until it opens.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gate {
    /// Name shown in the editor and used by game triggers.
    pub name: String,
    /// The cells the gate closes.
    pub shape: Shape,
    /// Height of the gate's top while it is closed, metres (absolute): the terrain of its
    /// cells is raised to this height.
    pub crest: f32,
    /// Simulated time at which the gate opens by itself, seconds (`None`: only when
    /// triggered).
    #[serde(default)]
    pub open_at: Option<f32>,
}
