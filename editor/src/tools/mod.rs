//! Sculpting tools: the [`Tool`] kinds, the [`Brush`] settings they share, the per-tool dab
//! kernels ([`sculpt`]) and the [`Stroke`] that turns a press-drag-release into one undoable
//! command. Nothing here knows about windows or GPUs.

pub mod sculpt;
pub mod stroke;

pub use stroke::Stroke;

/// A terrain sculpting tool.
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
}

impl Tool {
    /// Every tool, in tool-panel order.
    pub const ALL: [Tool; 7] = [
        Tool::Raise,
        Tool::Smooth,
        Tool::Flatten,
        Tool::SetHeight,
        Tool::Noise,
        Tool::Terrace,
        Tool::Ramp,
    ];

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
        }
    }

    /// The digit key that selects the tool (1 for the first).
    pub fn digit(self) -> usize {
        Tool::ALL.iter().position(|t| *t == self).unwrap_or(0) + 1
    }

    /// Whether Shift reverses the tool.
    pub fn invertible(self) -> bool {
        matches!(self, Tool::Raise | Tool::Noise)
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
        let fix =
            |v: f32, d: f32, lo: f32, hi: f32| if v.is_finite() { v.clamp(lo, hi) } else { d };
        self.radius = fix(self.radius, d.radius, MIN_RADIUS, MAX_RADIUS);
        self.strength = fix(self.strength, d.strength, 0.0, 1.0);
        self.falloff = fix(self.falloff, d.falloff, 0.0, 1.0);
        self.target_height = fix(self.target_height, d.target_height, -1.0e6, 1.0e6);
        self.terrace_step = fix(self.terrace_step, d.terrace_step, 0.01, 1.0e4);
        self.noise_scale = fix(self.noise_scale, d.noise_scale, 0.1, 1.0e4);
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
