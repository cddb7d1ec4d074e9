//! Editing tools: the [`Tool`] kinds, the [`Brush`] settings the painting tools share, the
//! per-tool dab kernels ([`sculpt`] for the terrain, [`water`] for the initial water) and the
//! [`Stroke`] that turns a press-drag-release into one undoable command; the basin fill
//! ([`fill`]), boundary painting ([`boundary`]), source and sink placement ([`placement`]),
//! gates ([`gate`]) and rigid bodies ([`body`]).
//! Nothing here knows about windows or GPUs.

pub mod body;
pub mod boundary;
pub mod drainage;
pub mod fill;
pub mod gate;
pub mod gauge;
pub mod leaks;
pub mod placement;
pub mod resize;
pub mod roughness;
pub mod sculpt;
pub mod spill;
pub mod stroke;
pub mod structure;
pub mod water;

pub use stroke::Stroke;
pub use water::WaterMode;

/// An editing tool: a terrain sculpting tool or a water authoring tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    /// Raises the terrain under the brush (lowers with shift).
    Raise,
    /// Averages each cell with its neighbours.
    Smooth,
    /// Pulls the terrain towards the height under the cursor where the stroke started.
    Flatten,
    /// Pulls the terrain towards a fixed height.
    SetHeight,
    /// Adds smooth random bumps (shift subtracts them).
    Noise,
    /// Pulls the terrain towards steps of a fixed height.
    Terrace,
    /// A straight slope from where the drag starts to where it ends.
    Ramp,
    /// Paints Manning's roughness `n` per cell.
    Roughness,
    /// Places, selects and moves water sources.
    Source,
    /// Places, selects and moves water sinks.
    Sink,
    /// Paints boundary conditions along the map edges.
    Boundary,
    /// Paints initial water: adds, removes or sets its level.
    Water,
    /// Floods the basin under a click up to a level.
    FillBasin,
    /// Adds gates that hold water back until they open (dam breaks).
    Gate,
    /// Places, selects, moves, rotates and scales rigid bodies.
    Body,
    /// Places stage gauges (a click) and discharge lines (a drag across a channel).
    Gauge,
    /// Places culverts, weirs and sluice gates (a drag).
    Structure,
}

impl Tool {
    /// The terrain sculpting tools, in tool-panel order (keys 1 to 7).
    pub const SCULPT: [Tool; 7] = [
        Tool::Raise,
        Tool::Smooth,
        Tool::Flatten,
        Tool::SetHeight,
        Tool::Noise,
        Tool::Terrace,
        Tool::Ramp,
    ];

    /// The water authoring tools, in tool-panel order.
    pub const WATER: [Tool; 9] = [
        Tool::Source,
        Tool::Sink,
        Tool::Boundary,
        Tool::Water,
        Tool::FillBasin,
        Tool::Gate,
        Tool::Structure,
        Tool::Gauge,
        Tool::Roughness,
    ];

    /// The body tools, in tool-panel order.
    pub const BODIES: [Tool; 1] = [Tool::Body];

    /// The name shown on buttons.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Raise => "Raise / Lower",
            Tool::Smooth => "Smooth",
            Tool::Flatten => "Flatten",
            Tool::SetHeight => "Set height",
            Tool::Noise => "Noise",
            Tool::Terrace => "Terrace",
            Tool::Ramp => "Ramp",
            Tool::Roughness => "Roughness",
            Tool::Source => "Source",
            Tool::Sink => "Sink",
            Tool::Boundary => "Boundary",
            Tool::Water => "Water brush",
            Tool::FillBasin => "Fill basin",
            Tool::Gate => "Gate",
            Tool::Body => "Body",
            Tool::Gauge => "Gauge",
            Tool::Structure => "Structure",
        }
    }

    /// One sentence on what the tool does and how to use it.
    pub fn help(self) -> &'static str {
        match self {
            Tool::Raise => "Drag to raise the terrain; hold Shift to lower it.",
            Tool::Smooth => "Drag to smooth bumps and sharp edges away.",
            Tool::Flatten => "Drag to flatten towards the height where the stroke started.",
            Tool::SetHeight => "Drag to pull the terrain towards the target height.",
            Tool::Noise => "Drag to add natural bumps; hold Shift to carve them.",
            Tool::Terrace => "Drag to cut the slope into flat steps of the step height.",
            Tool::Ramp => "Drag from the bottom to the top of a slope and release to build a ramp.",
            Tool::Roughness => {
                "Drag to paint the bed's roughness (Manning's n): rough ground slows the water, \
                 smooth ground lets it run."
            }
            Tool::Source => {
                "Click the terrain to place a water source; click one to select it, drag to move \
                 it, Delete removes it."
            }
            Tool::Sink => {
                "Click the terrain to place a sink that drains water; click one to select it, drag \
                 to move it, Delete removes it."
            }
            Tool::Boundary => {
                "Drag along a map edge to give the edge cells you pass the chosen boundary kind."
            }
            Tool::Water => {
                "Drag to paint initial water: add, remove, or pull the surface to a level (Shift \
                 swaps add and remove)."
            }
            Tool::FillBasin => {
                "Click in a basin to flood the connected ground below the fill level, in one step."
            }
            Tool::Gauge => {
                "Click to place a stage gauge (the water level there); drag across a channel for a \
                 discharge line (m³/s through it). Both are plotted while the water runs and \
                 saved in the level; Delete removes the selected one."
            }
            Tool::Gate => {
                "Drag a box across a valley to add a gate that holds the water back until it \
                 opens; click one to select it, Delete removes it."
            }
            Tool::Structure => {
                "Drag to place the chosen culvert (end to end), weir or sluice gate (bank to \
                 bank); click one to select it, Delete removes it."
            }
            Tool::Body => {
                "Click the terrain to drop the chosen body onto it; click a body to select it, drag \
                 the gizmo to move (W), rotate (E) or scale (R) it, Ctrl+D duplicates, Delete \
                 removes it."
            }
        }
    }

    /// The key that selects the tool, as shown in tooltips: digits for the sculpting tools,
    /// letters for the water tools.
    pub fn key(self) -> &'static str {
        match self {
            Tool::Raise => "1",
            Tool::Smooth => "2",
            Tool::Flatten => "3",
            Tool::SetHeight => "4",
            Tool::Noise => "5",
            Tool::Terrace => "6",
            Tool::Ramp => "7",
            Tool::Roughness => "N",
            Tool::Source => "I",
            Tool::Sink => "O",
            Tool::Boundary => "B",
            Tool::Water => "P",
            Tool::FillBasin => "L",
            Tool::Gauge => "U",
            Tool::Structure => "H",
            Tool::Gate => "G",
            Tool::Body => "K",
        }
    }

    /// Whether Shift reverses the tool.
    pub fn invertible(self) -> bool {
        matches!(self, Tool::Raise | Tool::Noise | Tool::Water)
    }

    /// Whether the tool paints with the brush in strokes (sculpting and the water brush).
    pub fn paints(self) -> bool {
        !matches!(
            self,
            Tool::Source
                | Tool::Sink
                | Tool::Boundary
                | Tool::FillBasin
                | Tool::Gate
                | Tool::Gauge
                | Tool::Structure
                | Tool::Body
        )
    }
}

/// The settings every brush shares, edited in the inspector.
#[derive(Clone, Debug, PartialEq)]
pub struct Brush {
    /// Radius in metres.
    pub radius: f32,
    /// Strength from 0 to 1.
    pub strength: f32,
    /// Fraction of the radius over which the effect fades out (0 = hard edge, 1 = soft).
    pub falloff: f32,
    /// Height the Set height tool pulls towards, metres.
    pub target_height: f32,
    /// Step height of the Terrace tool, metres.
    pub terrace_step: f32,
    /// Feature size of the Noise tool, metres.
    pub noise_scale: f32,
    /// What the water brush does.
    pub water_mode: WaterMode,
    /// Surface height the water brush pulls towards in [`WaterMode::SetLevel`], metres.
    pub water_level: f32,
    /// Manning's `n` the roughness brush paints, s/m^(1/3).
    pub roughness: f32,
}

impl Default for Brush {
    fn default() -> Self {
        Self {
            radius: 10.0,
            strength: 0.5,
            falloff: 0.5,
            target_height: 10.0,
            terrace_step: 2.0,
            noise_scale: 8.0,
            water_mode: WaterMode::Add,
            water_level: 5.0,
            roughness: roughness::PRESETS[2].n,
        }
    }
}

/// Smallest brush radius, metres.
pub const MIN_RADIUS: f32 = 0.5;
/// Largest brush radius, metres.
pub const MAX_RADIUS: f32 = 2000.0;
/// Factor one press of `]` grows the radius by (and `[` shrinks it by).
pub const RADIUS_STEP: f32 = 1.25;

impl Brush {
    /// Weight of the brush at `distance` metres from its centre, for an effective radius
    /// `radius`: 1 in the core, a smooth fade over the falloff band, 0 outside.
    pub fn weight(&self, distance: f32, radius: f32) -> f32 {
        if distance.is_nan() || distance >= radius {
            return 0.0;
        }
        let band = self.falloff.clamp(0.0, 1.0) * radius;
        let core = radius - band;
        if distance <= core || band <= 0.0 {
            return 1.0;
        }
        let t = 1.0 - (distance - core) / band;
        t * t * (3.0 - 2.0 * t)
    }

    /// Grows the radius by one step (`]`).
    pub fn grow(&mut self) {
        self.radius = (self.radius * RADIUS_STEP).clamp(MIN_RADIUS, MAX_RADIUS);
    }

    /// Shrinks the radius by one step (`[`).
    pub fn shrink(&mut self) {
        self.radius = (self.radius / RADIUS_STEP).clamp(MIN_RADIUS, MAX_RADIUS);
    }

    /// The radius a dab really uses on a grid of `cell_size` metre cells: never less than a
    /// cell, so a small brush always touches the cell under it.
    pub fn effective_radius(&self, cell_size: f32) -> f32 {
        self.radius.max(cell_size * 0.75)
    }

    /// Copies every setting into range, replacing non-finite values by defaults.
    pub fn sanitize(&mut self) {
        let d = Brush::default();
        const MAX_H: f32 = spillway::level::ranges::MAX_HEIGHT;
        let fix =
            |v: f32, d: f32, lo: f32, hi: f32| if v.is_finite() { v.clamp(lo, hi) } else { d };
        self.radius = fix(self.radius, d.radius, MIN_RADIUS, MAX_RADIUS);
        self.strength = fix(self.strength, d.strength, 0.0, 1.0);
        self.falloff = fix(self.falloff, d.falloff, 0.0, 1.0);
        self.target_height = fix(self.target_height, d.target_height, -MAX_H, MAX_H);
        self.terrace_step = fix(self.terrace_step, d.terrace_step, 0.01, 1.0e4);
        self.noise_scale = fix(self.noise_scale, d.noise_scale, 0.1, 1.0e4);
        self.water_level = fix(self.water_level, d.water_level, -MAX_H, MAX_H);
        let (lo, hi) = roughness::N_RANGE.into_inner();
        self.roughness = fix(self.roughness, d.roughness, lo, hi);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_is_one_in_the_core_and_zero_outside() {
        let b = Brush {
            falloff: 0.5,
            ..Brush::default()
        };
        assert_eq!(b.weight(0.0, 10.0), 1.0);
        assert_eq!(b.weight(5.0, 10.0), 1.0);
        assert!(b.weight(7.5, 10.0) > 0.0 && b.weight(7.5, 10.0) < 1.0);
        assert_eq!(b.weight(10.0, 10.0), 0.0);
        assert_eq!(b.weight(f32::NAN, 10.0), 0.0);
    }

    #[test]
    fn brackets_step_the_radius_within_limits() {
        let mut b = Brush::default();
        b.grow();
        assert!((b.radius - 12.5).abs() < 1e-4);
        b.shrink();
        assert!((b.radius - 10.0).abs() < 1e-4);
        for _ in 0..100 {
            b.shrink();
        }
        assert_eq!(b.radius, MIN_RADIUS);
    }
}
