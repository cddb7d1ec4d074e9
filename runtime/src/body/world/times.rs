//! Where a world's coupled steps spend their time.

/// Time spent in each phase of [`BodyWorld::step`](super::BodyWorld::step), summed over steps (seconds). On the GPU,
/// `read` includes any wait for the water and `advance` only records the step. `forces` and
/// then `physics` run on other threads at the same time as `block`, `displace` and `advance`,
/// so a step's wall time is the sum of every phase but `forces` and `physics`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepTimes {
    /// Coupled steps counted.
    pub steps: u64,
    /// Rasterising the bodies into columns.
    pub rasterise: f64,
    /// Handing the blockers to the solver, while another thread sets the forces and then
    /// pushes the floaters' water aside (until both are done).
    pub block: f64,
    /// Reading the water under the bodies.
    pub read: f64,
    /// Taking the water the last step read ahead (while the bodies are rasterised: part of
    /// `rasterise`, not of `read`).
    pub take: f64,
    /// Buoyancy, drag and damping (beside `block`, before rapier's step).
    pub forces: f64,
    /// Handing the floaters' displacement of the water to the solver (the push itself runs
    /// beside `block`).
    pub displace: f64,
    /// The water's step and the read-back request for the next step.
    pub advance: f64,
    /// The rigid-body step (rapier), on the world's pool alongside `block`, `displace` and
    /// `advance`, from the forces' end.
    pub physics: f64,
    /// Waiting for rapier after the water's side of the step was done.
    pub waited: f64,
    /// From asking for rapier's thread to its start.
    pub started: f64,
    /// Steps that read some of the water at once (the read-ahead had not foreseen where a
    /// body went, or was off), waiting for the GPU.
    pub read_now: u64,
    /// Rapier's own timers of its steps, summed (seconds; zero unless the feature
    /// `rapier-profile` is on): its whole step, then its stages: user changes, update,
    /// collision detection (of which broad phase and narrow phase), islands, constraints
    /// collection, solver, CCD.
    pub rapier_stages: [f64; 10],
}
