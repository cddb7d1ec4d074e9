//! The Structure tool, free of windows: a drag places the chosen culvert (from one end to the
//! other), weir or sluice gate (along its line across a channel), with defaults read from the
//! terrain under it; names are unique ("Weir 2"); a click near one picks it.

use spillway::Level;
use spillway::level::structure::{
    DEFAULT_CONTRACTION, DEFAULT_PIPE_ROUGHNESS, DEFAULT_WEIR_COEFFICIENT,
};
use spillway::level::{BreachGrowth, BreachStart, Schedule, Structure, StructureKind};

/// How near (cells) a click must be to pick a structure.
const PICK_CELLS: f32 = 2.0;
/// Height of a new weir's crest above the lowest ground under its line, metres.
const WEIR_HEIGHT: f32 = 1.0;
/// A new sluice gate's opening, metres.
const GATE_OPENING: f32 = 0.5;
/// A new culvert's diameter, metres.
const PIPE_DIAMETER: f32 = 1.0;

/// Which structure the tool places.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StructureChoice {
    /// A pipe from one point to another.
    Culvert,
    /// A broad-crested weir along a line.
    #[default]
    Weir,
    /// A sluice gate along a line.
    SluiceGate,
    /// A breach through a dam along its centreline.
    Breach,
}

impl StructureChoice {
    /// All choices, in the inspector's order.
    pub const ALL: [StructureChoice; 4] =
        [Self::Weir, Self::SluiceGate, Self::Culvert, Self::Breach];

    /// The name shown on buttons and in new structures' names.
    pub fn name(self) -> &'static str {
        match self {
            Self::Culvert => "Culvert",
            Self::Weir => "Weir",
            Self::SluiceGate => "Sluice gate",
            Self::Breach => "Breach",
        }
    }

    /// What it does and how it is placed.
    pub fn help(self) -> &'static str {
        match self {
            Self::Culvert => {
                "A pipe under an embankment: drag from one end to the other. Water runs from \
                 the higher surface to the lower, by the head between its ends."
            }
            Self::Weir => {
                "A crest across a channel: drag its line from bank to bank. Water above the \
                 crest pours over it by the weir law; below it, none passes."
            }
            Self::SluiceGate => {
                "A gate across a channel: drag its line from bank to bank. Water passes under \
                 its opening, which can follow a schedule."
            }
            Self::Breach => {
                "A cut through a dam that opens once started: drag its centreline from the \
                 reservoir side across the dam. It deepens to the lower end's ground and widens \
                 as it opens."
            }
        }
    }
}

/// How far the water must top a new breach's dam to start it, metres.
const BREACH_OVERTOPPING: f32 = 0.1;
/// How long a new breach takes to open fully, seconds.
const BREACH_SECONDS: f32 = 120.0;

/// The ground of `level` at world point `p`.
fn ground_at(level: &Level, p: [f32; 2]) -> f32 {
    let cs = level.cell_size;
    let i = ((p[0] / cs) as usize).min(level.nx() - 1);
    let j = ((p[1] / cs) as usize).min(level.ny() - 1);
    level.terrain.get(i, j)
}

/// The lowest ground along the segment `a`–`b` (world metres) of `level`.
fn lowest_ground(level: &Level, a: [f32; 2], b: [f32; 2]) -> f32 {
    let cs = level.cell_size;
    let n = (((b[0] - a[0]).hypot(b[1] - a[1]) / cs).ceil() as usize).clamp(1, 10_000);
    (0..=n)
        .map(|k| {
            let t = k as f32 / n as f32;
            let (x, y) = (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]));
            let i = ((x / cs) as usize).min(level.nx() - 1);
            let j = ((y / cs) as usize).min(level.ny() - 1);
            level.terrain.get(i, j)
        })
        .fold(f32::INFINITY, f32::min)
}

/// The structure of kind `choice` a drag from `a` to `b` (world metres) makes in `level`,
/// clamped into the map; `None` for a drag too short to place one (under a cell).
pub fn new_structure(
    level: &Level,
    choice: StructureChoice,
    a: [f32; 2],
    b: [f32; 2],
) -> Option<Structure> {
    let cs = level.cell_size;
    let extent = [level.nx() as f32 * cs, level.ny() as f32 * cs];
    let clamp = |p: [f32; 2]| [p[0].clamp(0.0, extent[0]), p[1].clamp(0.0, extent[1])];
    let (a, b) = (clamp(a), clamp(b));
    let length = (b[0] - a[0]).hypot(b[1] - a[1]);
    if length < cs {
        return None;
    }
    let kind = match choice {
        StructureChoice::Culvert => StructureKind::Culvert {
            from: a,
            to: b,
            diameter: PIPE_DIAMETER,
            // A level more than 100 km across may hold a longer line than a pipe may be.
            length: length.min(*spillway::level::ranges::STRUCTURE_LENGTH.end()),
            roughness: DEFAULT_PIPE_ROUGHNESS,
        },
        StructureChoice::Weir => StructureKind::Weir {
            from: a,
            to: b,
            crest: lowest_ground(level, a, b) + WEIR_HEIGHT,
            coefficient: DEFAULT_WEIR_COEFFICIENT,
        },
        StructureChoice::Breach => StructureKind::Breach {
            from: a,
            to: b,
            bottom: ground_at(level, a).min(ground_at(level, b)),
            width: (8.0 * cs).max(4.0),
            side_slope: 1.0,
            start: BreachStart::Overtopping(BREACH_OVERTOPPING),
            growth: BreachGrowth::Steady(BREACH_SECONDS),
            opened: None,
        },
        StructureChoice::SluiceGate => StructureKind::SluiceGate {
            from: a,
            to: b,
            sill: lowest_ground(level, a, b),
            opening: Schedule::constant(GATE_OPENING),
            contraction: DEFAULT_CONTRACTION,
        },
    };
    let base = choice.name();
    let name = (1..)
        .map(|n| format!("{base} {n}"))
        .find(|n| level.structures.iter().all(|s| &s.name != n))
        .unwrap_or_else(|| base.into());
    Some(Structure { name, kind })
}

/// The structure of `level` nearest to world point `(x, y)`, if one is within reach.
pub fn hit_structure(level: &Level, x: f32, y: f32) -> Option<usize> {
    let reach = PICK_CELLS * level.cell_size;
    let distance = |s: &Structure| {
        let (from, to) = s.kind.ends();
        let d = [to[0] - from[0], to[1] - from[1]];
        let len2 = (d[0] * d[0] + d[1] * d[1]).max(1e-9);
        let t = (((x - from[0]) * d[0] + (y - from[1]) * d[1]) / len2).clamp(0.0, 1.0);
        (x - from[0] - t * d[0]).hypot(y - from[1] - t * d[1])
    };
    level
        .structures
        .iter()
        .enumerate()
        .map(|(i, s)| (i, distance(s)))
        .filter(|(_, d)| *d <= reach)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drag_places_a_structure_with_defaults_from_the_ground() {
        let mut level = Level::flat(20, 20, 2.0, 3.0);
        level.terrain.set(5, 5, 1.0);
        let weir = new_structure(&level, StructureChoice::Weir, [11.0, 0.0], [11.0, 60.0]).unwrap();
        assert_eq!(weir.name, "Weir 1");
        match weir.kind {
            StructureKind::Weir { crest, to, .. } => {
                assert_eq!(crest, 1.0 + WEIR_HEIGHT);
                assert_eq!(to, [11.0, 40.0]);
            }
            _ => panic!("not a weir"),
        }
        level.structures.push(weir);
        assert!(new_structure(&level, StructureChoice::Culvert, [3.0, 3.0], [3.5, 3.0]).is_none());
        let pipe = new_structure(&level, StructureChoice::Culvert, [3.0, 3.0], [9.0, 11.0]);
        assert_eq!(pipe.unwrap().name, "Culvert 1");
        assert_eq!(hit_structure(&level, 12.0, 20.0), Some(0));
        assert_eq!(hit_structure(&level, 30.0, 20.0), None);
    }
}
