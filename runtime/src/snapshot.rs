//! [`Snapshot`]: the whole water state of a running simulation at one moment, compressed in
//! memory, and put back as a level's initial state. The editor's timeline keeps one every few
//! simulated seconds to scrub and branch; a game can keep one in memory to rewind to. (A
//! snapshot is not written to disk: a save game on disk is the baked level itself, saved with
//! `level::file::save` and loaded with its checks.)
//!
//! A snapshot is made from a level baked by either solver (`Simulation::bake_into`,
//! `GpuSimulation::bake_into`): its depths, its [`FlowState`] (faces, the second face field,
//! ghosts, time and, from the CPU solver, the remainder, and of a moving bed its floor and its
//! ground, read from the GPU without a wait by [`Snapshot::of_state`] too) and, gate by gate,
//! which had opened and when each was timed to. Every grid is
//! stored as the level files store theirs (byte-shuffled, LZ4): lossless, so a simulation
//! started from [`Snapshot::restore`] continues as one started from the baked level would.

use thiserror::Error;

use crate::level::{FlowState, Level, SolverKind};
use crate::sim::GateState;

/// Why a snapshot does not fit a level.
#[derive(Debug, Error, PartialEq)]
pub enum SnapshotError {
    /// The level's grid is not the size the snapshot was taken on.
    #[error("the snapshot was taken on a {0}×{1} grid, the level is {2}×{3}")]
    Size(usize, usize, usize, usize),
    /// A stored grid no longer decodes (memory damaged).
    #[error("the snapshot's {0} grid does not decode: {1}")]
    Damaged(&'static str, String),
}

/// One grid, compressed; `cells` values.
#[derive(Clone, Debug)]
struct Packed {
    bytes: Vec<u8>,
    cells: usize,
}

impl Packed {
    fn of(values: &[f32]) -> Self {
        Self {
            bytes: if values.is_empty() {
                Vec::new()
            } else {
                crate::level::codec::encode(values)
            },
            cells: values.len(),
        }
    }

    fn unpack(&self, what: &'static str) -> Result<Vec<f32>, SnapshotError> {
        if self.cells == 0 {
            return Ok(Vec::new());
        }
        crate::level::codec::decode(&self.bytes, self.cells)
            .map_err(|e| SnapshotError::Damaged(what, e))
    }
}

/// A water state in the open, as a solver hands it out without a whole level around it
/// (`GpuSimulation::poll_state`): what a [`Snapshot`] compresses.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WaterState {
    /// Columns of the grid.
    pub nx: usize,
    /// Rows of the grid.
    pub ny: usize,
    /// Depth per cell, metres.
    pub depth: Vec<f32>,
    /// The flow state (faces, ghosts, time).
    pub flow: FlowState,
    /// Every gate of the level, in its order: whether it had opened, and its time.
    pub gates: Vec<GateState>,
    /// The breaches and how far each had opened.
    pub breaches: Vec<crate::sim::BreachState>,
    /// A moving bed's ground (with the grains in the water settled where they are) on the
    /// cells whose bed moves, `NaN` on the others (gates); `None` when the bed stands still.
    pub terrain: Option<Vec<f32>>,
}

/// The compressed water state of a level at one moment.
#[derive(Clone, Debug)]
pub struct Snapshot {
    time: f64,
    nx: usize,
    ny: usize,
    solver: SolverKind,
    has_flow: bool,
    /// Depth, faces x and y, remainder, second faces x and y, the bed's floor and (of a
    /// level whose bed moves) the terrain.
    grids: [Packed; 8],
    ghost: Vec<f32>,
    max_speed: Option<f32>,
    gates: Vec<GateState>,
    breaches: Vec<crate::sim::BreachState>,
}

const NAMES: [&str; 8] = [
    "depth",
    "flow x",
    "flow y",
    "carry",
    "aux x",
    "aux y",
    "bed floor",
    "terrain",
];

impl Snapshot {
    /// The state `baked` carries: its water, its flow state (none: water at rest at time 0)
    /// and its gates (those opening at time 0 open, as bakes mark the gates that had opened).
    pub fn of(baked: &Level) -> Self {
        let gates = (baked.gates.iter())
            .map(|g| GateState {
                name: g.name.clone(),
                open: g.open_at == Some(0.0),
                open_at: g.open_at,
            })
            .collect();
        let size = (baked.nx(), baked.ny());
        // A moving bed is part of the state: the water goes back onto the ground it had.
        let terrain = baked
            .params
            .sediment
            .is_some()
            .then_some(&baked.terrain.data[..]);
        let water = (&baked.water.data[..], terrain);
        let mut s = Self::build(size, water, baked.flow.as_ref(), gates);
        s.breaches = crate::sim::structures::Structures::new(baked).breach_states();
        s
    }

    /// The snapshot of `state`.
    pub fn of_state(state: &WaterState) -> Self {
        let size = (state.nx, state.ny);
        let water = (&state.depth[..], state.terrain.as_deref());
        let mut s = Self::build(size, water, Some(&state.flow), state.gates.clone());
        s.breaches = state.breaches.clone();
        s
    }

    fn build(
        (nx, ny): (usize, usize),
        (depth, terrain): (&[f32], Option<&[f32]>),
        flow: Option<&FlowState>,
        gates: Vec<GateState>,
    ) -> Self {
        let none = FlowState::default();
        let f = flow.unwrap_or(&none);
        let grids = [
            depth,
            &f.flow_x,
            &f.flow_y,
            &f.carry,
            &f.aux_x,
            &f.aux_y,
            &f.bed_floor,
            terrain.unwrap_or(&[]),
        ]
        .map(Packed::of);
        Self {
            time: f.time,
            nx,
            ny,
            solver: f.solver,
            has_flow: flow.is_some(),
            grids,
            ghost: f.ghost.clone(),
            max_speed: f.max_speed,
            gates,
            breaches: Vec::new(),
        }
    }

    /// Simulated time of the snapshot, seconds.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Every gate of the level then, in its order, and whether it had opened.
    pub fn gates(&self) -> &[GateState] {
        &self.gates
    }

    /// Bytes the snapshot holds in memory (the compressed grids and the rest).
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.grids.iter().map(|g| g.bytes.len()).sum::<usize>()
            + 4 * self.ghost.len()
            + (self.gates.iter())
                .map(|g| g.name.len() + std::mem::size_of::<GateState>())
                .sum::<usize>()
            + self
                .breaches
                .iter()
                .map(|b| b.name.len() + 32)
                .sum::<usize>()
    }

    /// Bytes the same state takes as raw `f32` grids.
    pub fn raw_bytes(&self) -> usize {
        4 * (self.grids.iter().map(|g| g.cells).sum::<usize>() + self.ghost.len())
    }

    /// The depth grid, metres per cell.
    pub fn depth(&self) -> Result<Vec<f32>, SnapshotError> {
        self.grids[0].unpack(NAMES[0])
    }

    /// `level` (terrain, sources, bodies… as they are now) with the snapshot's water as its
    /// initial state: a simulation built from it starts at the snapshot's time with its water,
    /// flows and open gates (gate by gate where `level` has the same gates by name in the same
    /// order, by name where it has not); a gate closed then that `level` marks open from the start (a later bake of
    /// it) gets back the time it had then, or stays closed until a trigger. Of a level whose bed moves (`Params::sediment`), it also puts back
    /// the ground as the water had left it (from [`Snapshot::of`], or [`Snapshot::of_state`]
    /// on the cells whose bed moves) and how deep it may still erode.
    pub fn restore(&self, level: &Level) -> Result<Level, SnapshotError> {
        if (level.nx(), level.ny()) != (self.nx, self.ny) {
            return Err(SnapshotError::Size(
                self.nx,
                self.ny,
                level.nx(),
                level.ny(),
            ));
        }
        let mut grids = Vec::with_capacity(NAMES.len());
        for (g, name) in self.grids.iter().zip(NAMES) {
            grids.push(g.unpack(name)?);
        }
        let mut out = level.clone();
        let terrain = grids.pop().unwrap_or_default();
        if terrain.len() == out.terrain.data.len() {
            // NaN: a cell whose bed does not move keeps the level's ground.
            for (z, t) in out.terrain.data.iter_mut().zip(terrain) {
                if !t.is_nan() {
                    *z = t;
                }
            }
        }
        let mut grids = grids.into_iter();
        out.water.data = grids.next().unwrap_or_default();
        let mut next = || grids.next().unwrap_or_default();
        out.flow = self.has_flow.then(|| FlowState {
            solver: self.solver,
            flow_x: next(),
            flow_y: next(),
            carry: next(),
            aux_x: next(),
            aux_y: next(),
            ghost: self.ghost.clone(),
            time: self.time,
            max_speed: self.max_speed,
            bed_floor: next(),
        });
        // By place where the gates are the same ones (a gate deleted and another added would
        // take its state), by name where they are not.
        let by_index = out.gates.len() == self.gates.len()
            && (out.gates.iter().zip(&self.gates)).all(|(a, b)| a.name == b.name);
        for (i, gate) in out.gates.iter_mut().enumerate() {
            // A gate timed later that shares an opened one's name stays closed.
            let then = match by_index {
                true => self.gates.get(i),
                false => (self.gates.iter().filter(|g| g.name == gate.name)).max_by_key(|g| g.open),
            };
            if then.is_some_and(|g| g.open) {
                gate.open_at = Some(0.0);
            } else if gate.open_at == Some(0.0) && self.time > 0.0 {
                // Closed at the snapshot's time, though `level` has it open from the start (a
                // later bake marks the gates that had opened so; one authored to open at 0 s
                // opens at the first step, before any later snapshot): it opens at the time
                // it had then, or stays closed until a trigger. A gate `level` times later
                // opens at its time, as the solver decides.
                gate.open_at = then.and_then(|g| g.open_at).filter(|&t| t != 0.0);
            }
        }
        out.set_breaches(&self.breaches);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Simulation;
    use crate::level::{Shape, Source, SourceKind};

    fn river() -> Level {
        let mut level = Level::flat(48, 32, 1.0, 0.0);
        for y in 0..32 {
            for x in 0..48 {
                level.terrain.data[y * 48 + x] = 0.02 * (48 - x) as f32 + 0.1 * (y % 5) as f32;
            }
        }
        level.sources.push(Source {
            name: "spring".into(),
            shape: Shape::Circle {
                x: 4.0,
                y: 16.0,
                radius: 2.0,
            },
            kind: SourceKind::Rate { m3_per_s: 3.0 },
            enabled: true,
        });
        level
    }

    #[test]
    fn a_restored_snapshot_continues_bit_for_bit_and_is_smaller() {
        let level = river();
        let mut sim = Simulation::new(&level).unwrap();
        sim.advance(5.0).unwrap();
        let snap = Snapshot::of(&sim.bake_into(&level));
        assert!(snap.bytes() < snap.raw_bytes(), "{} bytes", snap.bytes());
        assert_eq!(snap.depth().unwrap(), sim.depth());
        for _ in 0..40 {
            sim.step(0.05).unwrap();
        }
        let mut again = Simulation::new(&snap.restore(&level).unwrap()).unwrap();
        assert_eq!(again.stats().time, snap.time());
        for _ in 0..40 {
            again.step(0.05).unwrap();
        }
        assert_eq!(again.depth(), sim.depth());
        let discharges = |s: &Simulation| (s.discharges().0.to_vec(), s.discharges().1.to_vec());
        assert_eq!(discharges(&again), discharges(&sim));
    }

    #[test]
    fn a_snapshot_refuses_a_level_of_another_size() {
        let level = river();
        let snap = Snapshot::of(&level);
        assert_eq!(snap.time(), 0.0);
        let other = Level::flat(10, 10, 1.0, 0.0);
        assert_eq!(
            snap.restore(&other).unwrap_err(),
            SnapshotError::Size(48, 32, 10, 10)
        );
    }

    #[test]
    fn a_gate_closed_at_the_snapshot_stays_closed_on_a_later_bake() {
        // Taken with the gate closed, put back onto a bake made after it opened (which marks
        // it open from the start): the gate opened at the first step.
        let mut level = river();
        level.gates.push(crate::level::Gate {
            name: "dam".into(),
            shape: Shape::Box {
                x0: 20.0,
                y0: 0.0,
                x1: 22.0,
                y1: 32.0,
            },
            crest: 5.0,
            open_at: None,
        });
        let mut sim = Simulation::new(&level).unwrap();
        sim.advance(1.0).unwrap();
        let early = Snapshot::of(&sim.bake_into(&level));
        assert!(sim.open_gate("dam"));
        sim.advance(1.0).unwrap();
        let later = sim.bake_into(&level);
        assert_eq!(later.gates[0].open_at, Some(0.0));
        let back = Simulation::new(&early.restore(&later).unwrap()).unwrap();
        assert!(back.gates().iter().all(|g| !g.open), "{:?}", back.gates());
        // A gate timed to open later opens at its time, as before.
        level.gates[0].open_at = Some(1.5);
        let again = early.restore(&level).unwrap();
        assert_eq!(again.gates[0].open_at, Some(1.5));
    }

    fn gate(name: &str, open_at: Option<f32>, y0: f32) -> crate::level::Gate {
        crate::level::Gate {
            name: name.into(),
            shape: Shape::Box {
                x0: 20.0,
                y0,
                x1: 22.0,
                y1: y0 + 16.0,
            },
            crest: 5.0,
            open_at,
        }
    }

    #[test]
    fn a_timed_gate_closed_at_the_snapshot_opens_at_its_time_on_a_later_bake() {
        // The later bake marks it open from the start: put back, it lost its time (closed
        // for good), where the run it was taken from opened it at 1.5 s.
        let mut level = river();
        level.gates.push(gate("dam", Some(1.5), 0.0));
        let mut sim = Simulation::new(&level).unwrap();
        sim.advance(1.0).unwrap();
        let early = Snapshot::of(&sim.bake_into(&level));
        sim.advance(1.0).unwrap();
        let later = sim.bake_into(&level);
        assert_eq!(later.gates[0].open_at, Some(0.0));
        let back = early.restore(&later).unwrap();
        assert_eq!(back.gates[0].open_at, Some(1.5));
        let mut back = Simulation::new(&back).unwrap();
        assert!(!back.gates()[0].open);
        back.advance(1.0).unwrap();
        assert!(back.gates()[0].open, "{:?}", back.gates());
    }

    #[test]
    fn a_gate_in_the_place_of_a_deleted_one_does_not_take_its_state() {
        // Put back by place, "b" took the deleted "a"'s opening, and "c" its time.
        let mut level = river();
        level.gates.push(gate("a", Some(1.0), 0.0));
        level.gates.push(gate("b", None, 16.0));
        let mut sim = Simulation::new(&level).unwrap();
        sim.advance(2.0).unwrap();
        let snap = Snapshot::of(&sim.bake_into(&level));
        level.gates.remove(0);
        level.gates.push(gate("c", Some(30.0), 0.0));
        let back = snap.restore(&level).unwrap();
        let times: Vec<_> = back.gates.iter().map(|g| g.open_at).collect();
        assert_eq!(times, [None, Some(30.0)]);
    }

    #[test]
    fn a_gate_timed_later_that_shares_an_opened_ones_name_stays_closed() {
        // Gates were put back by name: the second "dam" opened at 2 s, not at its 3 s.
        let mut level = river();
        level.gates.push(gate("dam", Some(1.0), 0.0));
        level.gates.push(gate("dam", Some(3.0), 16.0));
        let mut sim = Simulation::new(&level).unwrap();
        sim.advance(2.0).unwrap();
        let snap = Snapshot::of(&sim.bake_into(&level));
        let opened = |s: &Simulation| s.gates().iter().map(|g| g.open).collect::<Vec<_>>();
        assert_eq!(opened(&sim), [true, false]);
        for onto in [&level, &sim.bake_into(&level)] {
            let mut back = Simulation::new(&snap.restore(onto).unwrap()).unwrap();
            assert_eq!(opened(&back), [true, false]);
            back.advance(1.5).unwrap();
            assert_eq!(opened(&back), [true, true]);
        }
    }
}
