//! The preview's side of its [`Timeline`](super::timeline::Timeline): keyframes taken as the
//! water runs, moving to any moment of a branch (restore the keyframe before it, run on to
//! it), branches made at edits, and the events marked on the way (gates opening).

use spillway::Level;
use spillway::sim::maps::RunMaps;
use spillway::snapshot::Snapshot;

use super::bodies::BodyStates;
use super::timeline::Keyframe;
use super::{MAX_STEPS_PER_FRAME, Preview, PreviewError};

/// Where the water starts from at the next frame instead of the authored level.
pub(super) struct Start {
    /// The document's level with the water to start from as its initial state.
    pub level: Level,
    /// Each document body's motion then (`None`: as placed).
    pub bodies: BodyStates,
    /// Where the state comes from, for the authored water edits it holds.
    pub origin: super::ledger::Origin,
    /// The maps of the run to go on from (the CPU's water restarted after an edit) and the
    /// time they start from; `None`: they start again from the state.
    pub maps: Option<(RunMaps, f64)>,
}

impl Preview {
    /// Simulated time of the steps run so far (exact: the GPU solver's own clock).
    pub fn clock(&self) -> f64 {
        if let Some(cpu) = &self.cpu {
            return cpu.sim().time();
        }
        match &self.sim {
            Some(sim) => sim.clock(),
            None => self.time(),
        }
    }

    /// Moves the water to simulated `time` of the current branch and pauses there: the last
    /// keyframe at or before it is restored (unless the water is already between it and
    /// `time`) and the water runs on to `time` over the next frames.
    pub fn seek(&mut self, time: f64) {
        self.pause();
        self.seek_to = Some(time.max(0.0));
        self.halt = None;
    }

    /// The moment a seek is running the water on to, if one is.
    pub fn seeking(&self) -> Option<f64> {
        self.seek_to.or(self.target)
    }

    /// Switches to branch `index` at the moment the water is at now (or its end, if it ended
    /// before). Returns whether the branch exists.
    pub fn switch_branch(&mut self, index: usize) -> bool {
        let now = self.clock();
        let left = self.timeline.current;
        if index == left || index >= self.timeline.branches.len() {
            return false;
        }
        // A keyframe on its way (the forced one of a fork just made) joins its branch before
        // the water restarts, which would cancel it.
        self.receive_state(true);
        self.timeline.collect(true);
        self.timeline.switch(index);
        // The plots keep only the past both branches share: the branch left behind recorded
        // the rest.
        let shared = self.timeline.shared_until(left, index);
        self.history.retain(|s| s.time <= shared);
        self.gauge_log.forget_after(shared);
        let end = self.timeline.branch().end;
        self.seek(now.min(end));
        // Restore even if the water happens to lie between the keyframe and the moment: it is
        // another branch's water.
        self.restart();
        true
    }

    /// Begins the move to `time` asked for by [`Self::seek`].
    pub(super) fn go_to(&mut self, level: &Level, time: f64) {
        self.receive_state(true);
        self.timeline.collect(true);
        let Some(key) = self.timeline.branch().key_at(time).cloned() else {
            return;
        };
        let now = self.clock();
        let between = self.is_live() && now >= key.time() - 1e-9 && now <= time + 1e-9;
        if !between {
            match key.snapshot.restore(level) {
                Ok(mut restored) => {
                    at_rest_for(&mut restored, level.params.solver);
                    self.restart();
                    self.start = Some(Start {
                        level: restored,
                        bodies: self.wanted.relinked_states(&key.bodies),
                        origin: super::ledger::Origin::Keyframe(key.authored.clone()),
                        maps: None,
                    });
                    self.history.retain(|s| s.time <= key.time());
                    self.gauge_log.forget_after(key.time());
                    self.timeline.rewound();
                }
                Err(e) => {
                    self.error = Some(PreviewError::Restore(e));
                    return;
                }
            }
        }
        // Steps a frame left undone belong to the time before the seek.
        self.body_stride.behind = 0;
        self.target = Some(time);
    }

    /// Steps still to run this frame to reach the seek's moment (none once there).
    pub(super) fn steps_to_target(&mut self, dt: f64) -> usize {
        let Some(target) = self.target else {
            return 0;
        };
        // Counted from the clock, the steps still to go hold those a frame left undone: run
        // again on top of them, the water went past the moment.
        self.body_stride.behind = 0;
        let n = ((target - self.clock()) / dt).round();
        if n < 1.0 {
            self.target = None;
            return 0;
        }
        (n as usize).min(MAX_STEPS_PER_FRAME)
    }

    /// Puts the bodies back as the restored keyframe had them, once they are in the physics.
    /// With no bodies in the physics then (the document has none), the states are dropped: a
    /// body entering later enters at its placement.
    pub(super) fn restore_bodies(&mut self) {
        let states = self.restored_bodies.take();
        if let (Some(bodies), Some(states)) = (self.bodies.as_mut(), states) {
            bodies.set_states(&states);
        }
    }

    /// Takes a keyframe of the water and the bodies if one is due. On the GPU the state is
    /// asked for after the steps recorded so far and taken a frame or two later, without
    /// waiting; on the CPU it is copied at once. Either way it is compressed off the frame.
    pub(super) fn keyframe(&mut self, level: &Level) {
        self.receive_state(false);
        self.timeline.collect(false);
        let now = self.clock();
        if !self.timeline.due(now) {
            return;
        }
        let bodies = self.bodies.as_ref().map_or_else(Vec::new, |b| b.states());
        let authored = (self.uploaded.as_ref()).map(|u| self.ledger.held(&u.water));
        if let Some(cpu) = &self.cpu {
            let mut baked = cpu.sim().bake_into(level);
            // Only the ground the bed moves is the run's (as on the GPU): a restore keeps the
            // level's own elsewhere (a wall raised on rock later stayed gone from the water).
            if let Some(bed) = cpu.sim().moved_bed() {
                baked.terrain.data = bed;
            }
            self.timeline.begin(move || {
                Some(Keyframe {
                    snapshot: Snapshot::of(&baked),
                    bodies,
                    authored,
                })
            });
            return;
        }
        // The frame's steps go first, so the copy follows them.
        self.flush();
        let Some(sim) = self.sim.as_mut() else {
            return;
        };
        match sim.request_state() {
            Ok(true) => {
                self.timeline.requested();
                self.key_bodies = bodies;
                self.ledger.awaited = authored;
            }
            Ok(false) => {}
            Err(e) => self.fail(PreviewError::Gpu(e)),
        }
    }

    /// Takes the GPU's state copy for the awaited keyframe once it has arrived (`wait`: waits
    /// for it) and compresses it off the frame.
    pub(super) fn receive_state(&mut self, wait: bool) {
        if !self.timeline.awaiting() {
            return;
        }
        let Some(sim) = self.sim.as_mut() else {
            self.timeline.cancel();
            return;
        };
        match sim.poll_state(wait) {
            None => {
                if wait {
                    self.timeline.cancel();
                }
            }
            Some(Ok(copy)) => {
                let bodies = std::mem::take(&mut self.key_bodies);
                let authored = self.ledger.awaited.take();
                // Read out of the mapped copy and compressed off the frame.
                self.timeline.begin(move || {
                    Some(Keyframe {
                        snapshot: Snapshot::of_state(&copy.read().ok()?),
                        bodies,
                        authored,
                    })
                });
            }
            Some(Err(e)) => {
                self.timeline.cancel();
                self.fail(PreviewError::Gpu(e));
            }
        }
    }

    /// After a frame's steps: the branch's reach, gates that opened (events), and a keyframe
    /// if one is due.
    pub(super) fn after_steps(&mut self, level: &Level) {
        if !self.is_live() {
            return;
        }
        self.follow_ground(level);
        let now = self.clock();
        self.timeline.reached(now);
        for gate in self.gates() {
            if gate.open && !self.seen_open.contains(&gate.name) {
                self.seen_open.push(gate.name.clone());
                let label = format!("Gate {} opened", gate.name);
                if (self.timeline.branch().events.iter())
                    .any(|e| e.label == label && e.time <= now + 1e-6)
                {
                    // Opened earlier in this branch (the water was restored after it).
                    continue;
                }
                // A timed gate opened at its time; a triggered one just now.
                let at = (level.gates.iter())
                    .find(|g| g.name == gate.name)
                    .and_then(|g| g.open_at)
                    .map_or(now, |t| (t as f64).min(now))
                    // Opened before the run began (a level saved after): at its start.
                    .max(self.timeline.branch().start);
                self.timeline.mark(at, label);
            }
        }
        self.keyframe(level);
    }
}

/// A keyframe of the other solver (switched while the water ran) goes on with `solver`'s flows
/// at rest, its depths, clock and edges kept, as a switch while it runs does (a flow state of
/// the other solver is not taken: the run started again at 0 s, and a seek ran the water on
/// from the keyframe for the whole time to its moment).
pub(super) fn at_rest_for(level: &mut Level, solver: spillway::SolverKind) {
    let (nx, ny) = (level.nx(), level.ny());
    if let Some(f) = level.flow.as_mut()
        && f.solver != solver
    {
        *f = spillway::level::FlowState {
            solver,
            flow_x: vec![0.0; (nx + 1) * ny],
            flow_y: vec![0.0; nx * (ny + 1)],
            ghost: std::mem::take(&mut f.ghost),
            time: f.time,
            bed_floor: std::mem::take(&mut f.bed_floor),
            ..Default::default()
        };
    }
}
