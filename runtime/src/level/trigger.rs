//! Sources and sinks a game starts and stops by name, and sluice gates it lifts or lowers by
//! name, as it opens gates and starts breaches by name: the level's `enabled` flags and gate
//! openings, handed to a running simulation with `set_sources_sinks` (CPU and GPU).

use super::Level;

impl Level {
    /// Starts (`on`) or stops every source and sink called `name`. Returns whether any has
    /// that name. A running simulation follows after `set_sources_sinks(&level)`.
    ///
    /// ```
    /// use spillway::level::{Level, Shape, Source, SourceKind};
    /// use spillway::Simulation;
    ///
    /// let mut level = Level::flat(16, 16, 1.0, 0.0);
    /// level.sources.push(Source {
    ///     name: "flood".into(),
    ///     shape: Shape::Point { x: 8.0, y: 8.0 },
    ///     kind: SourceKind::Rate { m3_per_s: 2.0 },
    ///     enabled: false,
    /// });
    /// let mut sim = Simulation::new(&level)?;
    /// sim.advance(1.0)?;
    /// assert_eq!(sim.stats().inflow, 0.0);
    /// assert!(level.set_running("flood", true)); // the player pulls the lever
    /// sim.set_sources_sinks(&level)?;
    /// sim.advance(1.0)?;
    /// assert!((sim.stats().inflow - 2.0).abs() < 1e-4);
    /// assert_eq!(level.running("flood"), Some(true));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_running(&mut self, name: &str, on: bool) -> bool {
        let mut found = false;
        for s in self.sources.iter_mut().filter(|s| s.name == name) {
            s.enabled = on;
            found = true;
        }
        for s in self.sinks.iter_mut().filter(|s| s.name == name) {
            s.enabled = on;
            found = true;
        }
        found
    }

    /// Whether the source or sink called `name` runs (`None`: there is none).
    pub fn running(&self, name: &str) -> Option<bool> {
        let sources = self.sources.iter().map(|s| (&s.name, s.enabled));
        let sinks = self.sinks.iter().map(|s| (&s.name, s.enabled));
        sources
            .chain(sinks)
            .find(|(n, _)| *n == name)
            .map(|(_, on)| on)
    }

    /// Sets the opening of every sluice gate called `name` to `metres` above its sill from now
    /// on (a constant schedule). Returns whether any has that name. A running simulation
    /// follows after `set_sources_sinks(&level)`.
    ///
    /// ```
    /// use spillway::level::{Level, Schedule, Structure, StructureKind};
    ///
    /// let mut level = Level::flat(16, 16, 1.0, 0.0);
    /// level.structures.push(Structure {
    ///     name: "sluice".into(),
    ///     kind: StructureKind::SluiceGate {
    ///         from: [8.0, 0.0],
    ///         to: [8.0, 16.0],
    ///         sill: 0.0,
    ///         opening: Schedule::constant(0.0),
    ///         contraction: 0.611,
    ///     },
    /// });
    /// assert!(level.set_gate_opening("sluice", 0.5)); // the player turns the wheel
    /// assert!(!level.set_gate_opening("no such gate", 0.5));
    /// ```
    pub fn set_gate_opening(&mut self, name: &str, metres: f32) -> bool {
        let mut found = false;
        for s in self.structures.iter_mut().filter(|s| s.name == name) {
            if let super::StructureKind::SluiceGate { opening, .. } = &mut s.kind {
                *opening = super::Schedule::constant(metres.max(0.0));
                found = true;
            }
        }
        found
    }
}
