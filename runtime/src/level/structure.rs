//! Hydraulic structures: culverts, weirs and sluice gates. Each passes water by its engineering
//! law instead of the shallow-water momentum of the faces it sits on:
//!
//! - a **culvert** joins two points of the map by a pipe: its discharge follows the head
//!   difference between its ends (pipe flow with entry, exit and Manning friction losses), with
//!   the flow area of the water at its upstream end;
//! - a **weir** is a crest line at a crest level: water passes it by the broad-crested weir
//!   law, reduced when the tailwater drowns it (Villemonte);
//! - a **sluice gate** is a line with a sill and a gate whose opening may follow a schedule:
//!   free flow through the opening by energy conservation with a contracted jet, reduced once
//!   the tailwater drowns the jet's hydraulic jump;
//! - a **breach** is a cut through a dam along a centreline (upstream end first) that opens
//!   once started (at a time, by a game's trigger, or when the water tops the dam), deepening
//!   to its bottom and widening to its width, steadily or as fast as the water over it erodes.
//!
//! The solvers apply culverts, weirs and gates after each sub-step's flow pass and open
//! breaches before it (`sim::structures`, `sim::breach`), so volume is kept exactly and no
//! depth goes negative.

use serde::{Deserialize, Serialize};

use super::Schedule;
use super::ranges::{MAX_HEIGHT, PIPE_DIAMETER, STRUCTURE_LENGTH};
use super::validate::ValidationError;

/// Most structures a level may have.
pub const MAX_STRUCTURES: usize = 10_000;

/// The contraction coefficient of the jet under a sluice gate (a sharp-edged vertical gate).
pub const DEFAULT_CONTRACTION: f32 = 0.611;

/// The discharge coefficient of a broad-crested weir (1 is the ideal critical-flow weir).
pub const DEFAULT_WEIR_COEFFICIENT: f32 = 0.95;

/// Manning's `n` of a concrete pipe, s/m^(1/3).
pub const DEFAULT_PIPE_ROUGHNESS: f32 = 0.013;

/// A named hydraulic structure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Structure {
    /// Name shown in the editor and used by game triggers.
    pub name: String,
    /// What it is, and where.
    pub kind: StructureKind,
}

/// What a structure is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum StructureKind {
    /// A pipe under an embankment from `from` to `to` (world metres); water runs either way,
    /// from the higher surface to the lower.
    Culvert {
        /// One end, world (x, y), metres.
        from: [f32; 2],
        /// The other end, world (x, y), metres.
        to: [f32; 2],
        /// Inside diameter, metres.
        diameter: f32,
        /// Pipe length, metres (friction loss).
        length: f32,
        /// Manning's `n` of the pipe wall, s/m^(1/3).
        #[serde(default = "pipe_roughness")]
        roughness: f32,
    },
    /// A broad-crested weir along the line from `from` to `to`.
    Weir {
        /// One end of the crest line, world (x, y), metres.
        from: [f32; 2],
        /// The other end.
        to: [f32; 2],
        /// Crest height, metres (absolute).
        crest: f32,
        /// Discharge coefficient (1: the ideal weir, `Q = (2/3)^1.5·√g·L·H^1.5`).
        #[serde(default = "weir_coefficient")]
        coefficient: f32,
    },
    /// A sluice gate along the line from `from` to `to`.
    SluiceGate {
        /// One end of the gate line, world (x, y), metres.
        from: [f32; 2],
        /// The other end.
        to: [f32; 2],
        /// Sill height under the gate, metres (absolute).
        sill: f32,
        /// Opening above the sill, metres, over simulated time (0: shut).
        opening: Schedule,
        /// Contraction coefficient of the jet under the gate.
        #[serde(default = "contraction")]
        contraction: f32,
    },
    /// A breach through a dam: a trapezoidal cut along the centreline from `from` (upstream)
    /// to `to` (downstream), lowering the ground to at most the cut's surface.
    Breach {
        /// The upstream end of the centreline, world (x, y), metres.
        from: [f32; 2],
        /// The downstream end.
        to: [f32; 2],
        /// Height of the breach's bottom once fully open, metres (absolute).
        bottom: f32,
        /// Width of its bottom once fully open, metres.
        width: f32,
        /// Slope of its sides, horizontal metres per metre of height.
        #[serde(default = "side_slope")]
        side_slope: f32,
        /// What starts it.
        start: BreachStart,
        /// How fast it opens.
        growth: BreachGrowth,
        /// How far it had opened when the level was saved (a bake, a timeline keyframe), 0 to
        /// 1: `Some` once it has started, and it goes on from there. `None` in an authored level.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        opened: Option<f32>,
    },
}

/// What starts a breach.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum BreachStart {
    /// At a simulated time, seconds.
    At(f32),
    /// Only when a game triggers it by name (`Simulation::start_breach`).
    Trigger,
    /// When the water at the upstream end stands this many metres above the dam's crest (the
    /// highest ground along the centreline).
    Overtopping(f32),
}

/// How fast a breach opens, from its start to its full size (its depth and width grow
/// together).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum BreachGrowth {
    /// Evenly, to its full size in this many seconds.
    Steady(f32),
    /// As the water over it erodes: it deepens by this many metres per second under 1 m of
    /// water above its current bottom at the upstream end, as `H^1.5` (the weir flow over it)
    /// for other heads `H`.
    Erosion(f32),
}

fn side_slope() -> f32 {
    1.0
}

fn pipe_roughness() -> f32 {
    DEFAULT_PIPE_ROUGHNESS
}

fn weir_coefficient() -> f32 {
    DEFAULT_WEIR_COEFFICIENT
}

fn contraction() -> f32 {
    DEFAULT_CONTRACTION
}

impl StructureKind {
    /// The two points that place it (a culvert's ends, a weir's or gate's line).
    pub fn ends(&self) -> ([f32; 2], [f32; 2]) {
        match *self {
            Self::Culvert { from, to, .. }
            | Self::Weir { from, to, .. }
            | Self::SluiceGate { from, to, .. }
            | Self::Breach { from, to, .. } => (from, to),
        }
    }

    /// The kind's name, for the editor's lists.
    pub fn label(&self) -> &'static str {
        match self {
            Self::Culvert { .. } => "Culvert",
            Self::Weir { .. } => "Weir",
            Self::SluiceGate { .. } => "Sluice gate",
            Self::Breach { .. } => "Breach",
        }
    }
}

impl Structure {
    /// Checks the structure as a level of `nx × ny` cells of `cell_size` metres would: its
    /// ends on the map, its numbers in range, and a line that meets the water (what the
    /// editor asks of one before placing it).
    pub fn check_on(&self, nx: usize, ny: usize, cell_size: f32) -> Result<(), ValidationError> {
        check("structure", self, (nx, ny, cell_size))
    }
}

/// A weir or sluice gate whose line crosses no face between two cells (drawn along the map's
/// edge, or too short) or a culvert with both ends in one cell would move no water: the
/// level would load and the structure silently do nothing.
fn does_something(
    at: &str,
    kind: &StructureKind,
    grid: (usize, usize, f32),
) -> Result<(), ValidationError> {
    use crate::sim::structures::{cell_at, cuts_a_face};
    let (from, to) = kind.ends();
    let line = || format!("({}, {}) to ({}, {})", from[0], from[1], to[0], to[1]);
    match kind {
        StructureKind::Weir { .. } | StructureKind::SluiceGate { .. }
            if !cuts_a_face(from, to, grid) =>
        {
            Err(ValidationError::new(
                format!("{at}.kind"),
                format!(
                    "the line from {} crosses no face between two cells (it runs along the \
                     map's edge, or is too short), so it would hold back no water: draw it \
                     across the flow",
                    line()
                ),
            ))
        }
        StructureKind::Culvert { .. } if cell_at(from, grid) == cell_at(to, grid) => {
            Err(ValidationError::new(
                format!("{at}.kind.to"),
                format!(
                    "both ends of the culvert from {} lie in one cell, so it would move no \
                     water: put them at least a cell apart",
                    line()
                ),
            ))
        }
        _ => Ok(()),
    }
}

impl super::Level {
    /// Marks the breaches of `states` as a running simulation has them (how far each had
    /// opened), so a simulation built from this level goes on from there: what bakes and
    /// snapshots do.
    /// Breaches sharing a name take the states of that name in order (the second `levee`
    /// the second `levee`'s): one that had not started stays closed.
    pub fn set_breaches(&mut self, states: &[crate::sim::BreachState]) {
        let mut before: Vec<String> = Vec::new();
        for s in self.structures.iter_mut() {
            if let StructureKind::Breach { opened, .. } = &mut s.kind {
                let nth = before.iter().filter(|n| **n == s.name).count();
                *opened = (states.iter().filter(|b| b.name == s.name))
                    .nth(nth)
                    .filter(|b| b.started)
                    .map(|b| b.progress);
                before.push(s.name.clone());
            }
        }
    }
}

/// Checks structure `i` of a level whose map spans `extent` metres.
pub(crate) fn check(
    at: &str,
    s: &Structure,
    (nx, ny, dx): (usize, usize, f32),
) -> Result<(), ValidationError> {
    let extent = [nx as f32 * dx, ny as f32 * dx];
    let (from, to) = s.kind.ends();
    for (part, p) in [("from", from), ("to", to)] {
        let here = format!("{at}.kind.{part}");
        let inside = p.iter().all(|v| v.is_finite())
            && (0.0..=extent[0]).contains(&p[0])
            && (0.0..=extent[1]).contains(&p[1]);
        if !inside {
            return Err(ValidationError::new(
                here,
                format!(
                    "({}, {}) lies outside the map (0..{} × 0..{} m)",
                    p[0], p[1], extent[0], extent[1]
                ),
            ));
        }
    }
    if from == to {
        return Err(ValidationError::new(
            format!("{at}.kind.to"),
            "the two ends are the same point",
        ));
    }
    does_something(at, &s.kind, (nx, ny, dx))?;
    let number = |field: &str, v: f32, lo: f32, hi: f32| {
        super::ranges::within(&format!("{at}.kind.{field}"), v, &(lo..=hi), "")
    };
    match &s.kind {
        StructureKind::Culvert {
            diameter,
            length,
            roughness,
            ..
        } => {
            number(
                "diameter",
                *diameter,
                *PIPE_DIAMETER.start(),
                *PIPE_DIAMETER.end(),
            )?;
            number(
                "length",
                *length,
                *STRUCTURE_LENGTH.start(),
                *STRUCTURE_LENGTH.end(),
            )?;
            number("roughness", *roughness, 0.0, 1.0)?;
        }
        StructureKind::Weir {
            crest, coefficient, ..
        } => {
            number("crest", *crest, -MAX_HEIGHT, MAX_HEIGHT)?;
            number("coefficient", *coefficient, 0.01, 2.0)?;
        }
        StructureKind::SluiceGate {
            sill,
            opening,
            contraction,
            ..
        } => {
            number("sill", *sill, -MAX_HEIGHT, MAX_HEIGHT)?;
            number("contraction", *contraction, 0.01, 1.0)?;
            super::schedule::check_schedule(&format!("{at}.kind.opening"), opening)?;
        }
        StructureKind::Breach {
            bottom,
            width,
            side_slope,
            start,
            growth,
            opened,
            ..
        } => {
            number("bottom", *bottom, -MAX_HEIGHT, MAX_HEIGHT)?;
            number(
                "width",
                *width,
                *STRUCTURE_LENGTH.start(),
                *STRUCTURE_LENGTH.end(),
            )?;
            number("side_slope", *side_slope, 0.0, 100.0)?;
            match start {
                BreachStart::At(t) => number("start", *t, 0.0, 1.0e9)?,
                BreachStart::Overtopping(d) => number("start", *d, 0.0, 1.0e3)?,
                BreachStart::Trigger => {}
            }
            match growth {
                BreachGrowth::Steady(t) => number("growth", *t, 0.0, 1.0e9)?,
                BreachGrowth::Erosion(r) => number("growth", *r, 0.0, 1.0e3)?,
            }
            if let Some(p) = opened {
                number("opened", *p, 0.0, 1.0)?;
            }
        }
    }
    Ok(())
}
