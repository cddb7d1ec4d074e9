//! The level document: terrain, initial water, sources, sinks, boundaries, parameters and placed
//! bodies. `Level` is what the editor edits, what `spillway bake` writes and what a game loads.
//! The on-disk form (RON plus a checksummed binary sidecar) lives in [`file`](mod@file).

pub(crate) mod codec;
pub mod file;
mod footprint;
mod gate;
mod gauge;
pub mod ranges;
pub mod schedule;
pub mod sediment;
pub mod structure;
mod trigger;
mod validate;

use serde::{Deserialize, Serialize};

use crate::grid::Grid;

pub use gate::Gate;
pub use gauge::{Gauge, GaugeKind};
pub use schedule::Schedule;
pub use sediment::{BedloadLaw, Sediment, Suspension};
pub use structure::{BreachGrowth, BreachStart, Structure, StructureKind};
pub use validate::{Limits, MIN_COVERAGE_CELLS, ValidationError};

/// The level file format version written by this crate.
pub const FORMAT_VERSION: u32 = 3;

/// A complete level: everything needed to start the simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct Level {
    /// Human-readable name shown in the editor.
    pub name: String,
    /// Edge length of one square cell, in metres.
    pub cell_size: f32,
    /// Terrain height of each cell, in metres.
    pub terrain: Grid,
    /// Water depth of each cell, in metres (initial state, or the baked state).
    pub water: Grid,
    /// Saved flow state (after a bake), so a game starts with rivers already flowing.
    pub flow: Option<FlowState>,
    /// Water sources.
    pub sources: Vec<Source>,
    /// Water sinks.
    pub sinks: Vec<Sink>,
    /// Boundary conditions along edge segments; edge cells not covered use `params.default_boundary`.
    pub boundaries: Vec<Boundary>,
    /// Simulation parameters.
    pub params: Params,
    /// Placed rigid bodies.
    pub bodies: Vec<Body>,
    /// Gates that hold water back until they open (dam breaks).
    pub gates: Vec<Gate>,
    /// Manning's roughness `n` per cell (s/m^(1/3)), used by [`Friction::Manning`] in place of
    /// its level-wide `n`; `None` uses the level-wide value everywhere.
    pub roughness: Option<Grid>,
    /// Where the designer watches the water: stage gauges and discharge lines.
    pub gauges: Vec<Gauge>,
    /// Culverts, weirs and sluice gates.
    pub structures: Vec<Structure>,
}

impl Level {
    /// A flat level of `nx × ny` cells at height `height`, dry, walled, with default parameters.
    pub fn flat(nx: usize, ny: usize, cell_size: f32, height: f32) -> Self {
        Self {
            name: "untitled".into(),
            cell_size,
            terrain: Grid::filled(nx, ny, height),
            water: Grid::filled(nx, ny, 0.0),
            flow: None,
            sources: Vec::new(),
            sinks: Vec::new(),
            boundaries: Vec::new(),
            params: Params::default(),
            bodies: Vec::new(),
            gates: Vec::new(),
            roughness: None,
            gauges: Vec::new(),
            structures: Vec::new(),
        }
    }

    /// Manning's `n` of cell `(x, y)`: the roughness grid's value, or the level-wide `n` of a
    /// Manning level (0 for the other friction laws, which have no `n`).
    pub fn manning_n(&self, x: usize, y: usize) -> f32 {
        match (&self.roughness, self.params.friction) {
            (Some(g), Friction::Manning { .. }) => g.get(x, y),
            (_, Friction::Manning { n }) => n,
            _ => 0.0,
        }
    }

    /// Number of cells along x.
    pub fn nx(&self) -> usize {
        self.terrain.nx
    }

    /// Number of cells along y.
    pub fn ny(&self) -> usize {
        self.terrain.ny
    }

    /// Total water volume of the initial state, in cubic metres.
    pub fn water_volume(&self) -> f64 {
        self.water.sum() * (self.cell_size as f64).powi(2)
    }

    /// A 64-bit FNV-1a hash of the water state: the grid size, the bit patterns of every depth
    /// and, if present, of the whole [`FlowState`] (flows, ghosts, time, remainder, second face
    /// field, speed, a moving bed's floor) and, where the bed moves, of the terrain. Two
    /// levels hash alike exactly when their water would continue alike, so
    /// `spillway sim --hash` hashes [`crate::Simulation::bake_into`] to compare runs bit for bit.
    pub fn state_hash(&self) -> u64 {
        let mut h = Fnv64::new();
        h.u64(self.nx() as u64);
        h.u64(self.ny() as u64);
        h.floats(&self.water.data);
        match &self.flow {
            None => h.u64(0),
            Some(f) => {
                h.u64(1 + f.solver as u64);
                h.u64(f.time.to_bits());
                for part in [&f.flow_x, &f.flow_y, &f.ghost, &f.carry, &f.aux_x, &f.aux_y] {
                    h.u64(part.len() as u64);
                    h.floats(part);
                }
                h.u64(f.max_speed.map_or(u64::MAX, |s| s.to_bits() as u64));
                if !f.bed_floor.is_empty() {
                    h.floats(&f.bed_floor);
                }
            }
        }
        if self.params.sediment.is_some() {
            h.floats(&self.terrain.data);
        }
        h.0
    }
}

/// 64-bit FNV-1a.
struct Fnv64(u64);

impl Fnv64 {
    fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }

    fn floats(&mut self, values: &[f32]) {
        for v in values {
            self.bytes(&v.to_bits().to_le_bytes());
        }
    }
}

/// Which solver integrates the water.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SolverKind {
    /// Virtual pipes on a staggered grid (thesis §4.5): fast and robust.
    #[default]
    Pipes,
    /// Full shallow-water equations (thesis §4.3), their velocities advected as
    /// [`Params::advection`] says: momentum-conserving by default, semi-Lagrangian on request.
    Swe,
}

/// How the pipes solver sets the cross-section of the pipe between two cells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CrossSection {
    /// Depth of the upwind cell (the one with the higher surface): waves travel at sqrt(g·h),
    /// but the asymmetry pumps water into shallow shore cells of a lake at rest.
    Upwind,
    /// Depth of water at the interface, `max(surface) - max(terrain)`: the upwind surface over
    /// the higher of the two terrain heights. Waves travel at sqrt(g·h), the same for either
    /// flow direction, so still water stays still over any terrain (well balanced).
    #[default]
    FaceDepth,
    /// Mean depth of the two cells.
    Mean,
    /// A fixed 1 m² pipe per metre of cell, as in the classic pipe method (wave speed ignores depth).
    Constant,
}

/// How the shallow-water solver advects its velocities.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Advection {
    /// Momentum-conserving upwind advection (Stelling and Duinmeijer): bores and wet-dry fronts
    /// move at the right speed.
    #[default]
    Conservative,
    /// Semi-Lagrangian back-tracing of the velocity field (thesis §4.3, Stam): unconditionally
    /// stable and smooth, but it slows thin fronts and bores.
    SemiLagrangian,
}

/// Simulation parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(default)]
pub struct Params {
    /// The solver used for this level.
    pub solver: SolverKind,
    /// Pipe cross-section rule for the pipes solver.
    pub cross_section: CrossSection,
    /// Velocity advection of the shallow-water solver.
    pub advection: Advection,
    /// Whether the pipes carry momentum with the flow (momentum-conserving advection of the
    /// pipe flows). Off gives the classic pipe method, whose dam-break fronts stall.
    pub pipe_advection: bool,
    /// Gravitational acceleration, m/s².
    pub gravity: f32,
    /// Requested time step in seconds; steps over the CFL limit are sub-stepped automatically.
    pub dt: f32,
    /// The bed friction law and its level-wide coefficient (Manning by default; a per-cell
    /// `n` comes from [`Level::roughness`]).
    pub friction: Friction,
    /// Courant number used to choose sub-steps (0 < cfl <= 1).
    pub cfl: f32,
    /// Rain over the whole level, in millimetres per hour.
    pub rain_mm_per_hour: f32,
    /// Boundary used for edge cells that no `Boundary` segment covers.
    pub default_boundary: BoundaryKind,
    /// How the water moves the bed (`None`: the bed stays as it is).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sediment: Option<Sediment>,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            solver: SolverKind::Pipes,
            cross_section: CrossSection::FaceDepth,
            advection: Advection::Conservative,
            pipe_advection: true,
            gravity: 9.81,
            dt: 0.02,
            friction: Friction::Manning {
                n: DEFAULT_MANNING_N,
            },
            cfl: 0.5,
            rain_mm_per_hour: 0.0,
            default_boundary: BoundaryKind::Wall,
            sediment: None,
        }
    }
}

/// Manning's `n` of a new level: a clean natural channel with some stones (s/m^(1/3)).
pub const DEFAULT_MANNING_N: f32 = 0.03;

/// How the bed slows the water, per face. Manning and Chézy are applied semi-implicitly,
/// `q ← (q + Δq) / (1 + g·dt·|u|·k(h))` with the face depth `h`, so they are stable for any
/// step; the linear law keeps `q·(1−f)^dt + Δq`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Friction {
    /// Manning's law, `k = n² / h^(4/3)`: deep water runs faster than thin films, and a river
    /// on slope `S` settles at `u = h^(2/3)·S^(1/2) / n`. Typical `n`: concrete 0.013, gravel
    /// bed 0.03, grass 0.035, brush 0.07, forest floodplain 0.1.
    Manning {
        /// Manning's roughness coefficient, s/m^(1/3) (0 ≤ n ≤ 1); overridden per cell by
        /// [`Level::roughness`].
        n: f32,
    },
    /// Chézy's law, `k = 1 / (C²·h)` (Dressler's dam break).
    Chezy {
        /// Chézy's coefficient, m^(1/2)/s (> 0).
        c: f32,
    },
    /// A fixed fraction of the flow lost per second, whatever the depth (the law of format
    /// versions 1 and 2, where it was the number `friction`).
    Linear {
        /// Fraction of the flow lost per second (0 ≤ f < 1).
        per_second: f32,
    },
}

impl Friction {
    /// No friction at all.
    pub const NONE: Friction = Friction::Linear { per_second: 0.0 };
}

impl std::fmt::Display for Friction {
    /// `Manning n = 0.03`, `Chézy C = 40`, `linear 0.02/s`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Friction::Manning { n } => write!(f, "Manning n = {n}"),
            Friction::Chezy { c } => write!(f, "Chézy C = {c}"),
            Friction::Linear { per_second } => write!(f, "linear {per_second}/s"),
        }
    }
}

impl Default for Friction {
    fn default() -> Self {
        Friction::Manning {
            n: DEFAULT_MANNING_N,
        }
    }
}

/// The area a source or sink covers, in world metres (x right, y down the rows).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Shape {
    /// The single cell containing the point.
    Point {
        /// World x, metres.
        x: f32,
        /// World y, metres.
        y: f32,
    },
    /// Cells whose centres lie within `radius` of the point (at least the cell containing it).
    Circle {
        /// Centre x, metres.
        x: f32,
        /// Centre y, metres.
        y: f32,
        /// Radius, metres.
        radius: f32,
    },
    /// Cells whose centres lie inside the axis-aligned box (at least the cell containing its centre).
    Box {
        /// Minimum x, metres.
        x0: f32,
        /// Minimum y, metres.
        y0: f32,
        /// Maximum x, metres.
        x1: f32,
        /// Maximum y, metres.
        y1: f32,
    },
}

impl Shape {
    /// Whether the shape reaches onto a map of `extent` metres (`[width, height]`): a point
    /// lies on it, a circle's or a box's extent overlaps it. A level's sources, sinks and
    /// gates must (one wholly off the map would act on the edge cell nearest its centre).
    pub fn reaches(&self, extent: [f32; 2]) -> bool {
        let (lo, hi) = self.bounds();
        (0..2).all(|k| hi[k] >= 0.0 && lo[k] <= extent[k])
    }

    /// The shape's smallest and largest world `[x, y]`, metres (a point's are its own).
    pub fn bounds(&self) -> ([f32; 2], [f32; 2]) {
        match *self {
            Shape::Point { x, y } => ([x, y], [x, y]),
            Shape::Circle { x, y, radius } => ([x - radius, y - radius], [x + radius, y + radius]),
            Shape::Box { x0, y0, x1, y1 } => ([x0, y0], [x1, y1]),
        }
    }
}

/// What a source does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SourceKind {
    /// Adds water at a fixed rate, spread evenly over the covered cells.
    Rate {
        /// Cubic metres per second.
        m3_per_s: f32,
    },
    /// Fills covered cells up to a surface level, adding at most `max_m3_per_s`.
    Level {
        /// Target water surface height, metres.
        surface: f32,
        /// Capacity: the largest inflow, cubic metres per second.
        max_m3_per_s: f32,
    },
    /// Adds water at a rate that follows simulated time (a flood hydrograph): the schedule's
    /// values are cubic metres per second.
    Hydrograph(Schedule),
}

/// A place where water enters the level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Name shown in the editor and used by game triggers.
    pub name: String,
    /// Covered area.
    pub shape: Shape,
    /// Rate or target level.
    pub kind: SourceKind,
    /// Whether the source is running.
    #[serde(default = "yes")]
    pub enabled: bool,
}

/// What a sink does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SinkKind {
    /// Removes water at up to a fixed rate, spread over the covered cells (never below dry).
    Rate {
        /// Cubic metres per second.
        m3_per_s: f32,
    },
    /// Drains covered cells down to a surface level, removing at most `max_m3_per_s`.
    Level {
        /// Surface height the sink drains down to, metres.
        surface: f32,
        /// Capacity: the largest outflow, cubic metres per second.
        max_m3_per_s: f32,
    },
    /// Removes water at up to a rate that follows simulated time (a pump's schedule): the
    /// schedule's values are cubic metres per second.
    Hydrograph(Schedule),
}

/// A place where water leaves the level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sink {
    /// Name shown in the editor.
    pub name: String,
    /// Covered area.
    pub shape: Shape,
    /// Rate or level.
    pub kind: SinkKind,
    /// Whether the sink is running.
    #[serde(default = "yes")]
    pub enabled: bool,
}

fn yes() -> bool {
    true
}

/// One of the four edges of the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Edge {
    /// x = 0 (left); segments run along y.
    West,
    /// x = max (right); segments run along y.
    East,
    /// y = 0 (first row); segments run along x.
    North,
    /// y = max (last row); segments run along x.
    South,
}

impl Edge {
    /// All four edges.
    pub const ALL: [Edge; 4] = [Edge::West, Edge::East, Edge::North, Edge::South];
}

/// The condition on an edge segment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum BoundaryKind {
    /// No flow through the edge.
    Wall,
    /// Waves and water leave freely (Müller's ghost-column radiation rule).
    Open,
    /// The water outside stands at a fixed surface height; water flows in or out to meet it.
    FixedLevel {
        /// Outside surface height, metres.
        surface: f32,
    },
    /// A fixed discharge into the level, spread along the segment.
    Inflow {
        /// Cubic metres per second through the whole segment.
        m3_per_s: f32,
    },
    /// A fixed level that follows simulated time (a tide, a river rising downstream): the
    /// schedule's values are outside surface heights, metres.
    Tide(Schedule),
    /// An inflow that follows simulated time (a flood hydrograph arriving from upstream): the
    /// schedule's values are cubic metres per second through the whole segment.
    Hydrograph(Schedule),
}

/// A boundary condition on cells `start..end` along one edge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Boundary {
    /// Which edge.
    pub edge: Edge,
    /// First cell along the edge (inclusive).
    pub start: u32,
    /// Last cell along the edge (exclusive).
    pub end: u32,
    /// The condition.
    pub kind: BoundaryKind,
}

/// How a rigid body interacts with the water.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Coupling {
    /// Chosen from the density: blockers if denser than water, else floaters.
    #[default]
    Auto,
    /// Floats: buoyancy and drag, pushes the surface down.
    Floater,
    /// Blocks water (two-layer blocking): water passes under and over it.
    Blocker,
}

/// The collision shape of a body in the physics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ColliderShape {
    /// A convex hull for a dynamic body, the triangle mesh itself for a static one.
    #[default]
    Auto,
    /// One convex hull around the whole mesh (fast; fills hollows and gaps).
    ConvexHull,
    /// The mesh cut into convex parts (V-HACD), computed once per mesh and kept with it: a
    /// dynamic body keeps its hollows (a trough, the gap under a cart).
    ConvexDecomposition,
}

impl ColliderShape {
    /// Whether this is [`ColliderShape::Auto`] (left out of saved files).
    pub fn is_auto(&self) -> bool {
        *self == Self::Auto
    }
}

/// A placed rigid body from a glTF file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// Name shown in the editor.
    pub name: String,
    /// glTF file, relative to the level file.
    pub gltf: String,
    /// Position, metres (x, y on the map, z up).
    pub translation: [f32; 3],
    /// Orientation quaternion (x, y, z, w).
    pub rotation: [f32; 4],
    /// Scale per axis.
    pub scale: [f32; 3],
    /// Density, kg/m³ (water is 1000).
    pub density: f32,
    /// Whether physics moves the body.
    pub dynamic: bool,
    /// Coupling mode.
    #[serde(default)]
    pub coupling: Coupling,
    /// Collision shape (written only when not `Auto`, so files without it stay as they were).
    #[serde(default, skip_serializing_if = "ColliderShape::is_auto")]
    pub collider: ColliderShape,
}

/// Saved solver state beyond depth, so a baked level continues exactly where it stopped: a
/// level baked after `n` steps and run `m` more steps by the CPU solver ends bit-identical to
/// one run `n + m` steps straight (format version 2; a version 1 file lacks `carry`, `aux_x`,
/// `aux_y` and `max_speed`, which are then rebuilt, so it continues closely but not bit for bit).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowState {
    /// The solver that wrote the state; another solver ignores it.
    pub solver: SolverKind,
    /// Face values on x-faces, `(nx + 1) × ny` (pipes: discharge m³/s; SWE: velocity m/s).
    pub flow_x: Vec<f32>,
    /// Face values on y-faces, `nx × (ny + 1)`.
    pub flow_y: Vec<f32>,
    /// Ghost-column surface heights of open edges, in the order West, East, North, South.
    pub ghost: Vec<f32>,
    /// Simulated time at which the state was saved, seconds.
    pub time: f64,
    /// Per-cell depth change the solver's compensated summation has not yet added to the
    /// depth, `nx × ny`, metres; empty means zero everywhere.
    pub carry: Vec<f32>,
    /// The solver's second face field on x-faces, `(nx + 1) × ny`: with pipes and
    /// `pipe_advection`, the face velocities the momentum is advected with (m/s); with SWE, the
    /// limited discharges of the last step (m³/s). Empty when the solver has none, or to
    /// rebuild it from `flow_x` and the depth.
    pub aux_x: Vec<f32>,
    /// The second face field on y-faces, `nx × (ny + 1)`; see [`FlowState::aux_x`].
    pub aux_y: Vec<f32>,
    /// Largest face speed of the last step (it sets the next step's CFL limit), m/s; `None`
    /// recomputes it from the saved faces.
    pub max_speed: Option<f32>,
    /// With a moving bed (`Params::sediment`): the lowest the ground of each cell may erode
    /// to, `nx × ny`, metres (the terrain the run started on, less the loose layer), so a
    /// baked level erodes no deeper than the run it continues. Empty: the terrain now less the
    /// layer.
    pub bed_floor: Vec<f32>,
}

impl FlowState {
    /// How many values its grids hold, all of them (4 bytes each).
    pub fn values(&self) -> usize {
        (self.flow_x.len() + self.flow_y.len() + self.ghost.len() + self.carry.len())
            + (self.aux_x.len() + self.aux_y.len() + self.bed_floor.len())
    }
}
