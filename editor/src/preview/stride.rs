//! How many water steps the bodies take at once while the preview fast-forwards.
//!
//! A coupled step (the bodies rasterised, the water under them read, rapier's step) costs
//! about a millisecond or two with a few hundred bodies, so a frame fits only a handful: at
//! 30× real time the water would fall far behind the clock. When the speed asks for more steps
//! than fit, the bodies step once per `steps` water steps instead
//! ([`spillway::body::world::BodyWorld::step_coarse`]): every water step still runs, and the
//! rigid bodies take rapier steps that long (at most [`LONGEST_BODY_STEP`]). When the frame
//! has time to spare the stride comes back down, and at speeds where every step fits it is 1:
//! the preview then couples exactly as the Bake and `spillway bake` do, which never stride.
//! The designer can turn it off (Water ▸ Coarser body steps at fast-forward).

use std::time::Duration;

use super::{MAX_BODY_STEPS_PER_FRAME, Preview};

/// Longest rigid-body step the preview takes at fast-forward, seconds: rapier's contacts stay
/// stable (four solver sub-steps of 25 ms at most) and a floating body moves a fraction of a
/// cell.
pub const LONGEST_BODY_STEP: f32 = 0.1;

/// Water steps per rigid-body step in the preview, following how many fit in a frame.
#[derive(Clone, Debug)]
pub struct BodyStride {
    /// Whether fast-forward may step the bodies more coarsely than the water.
    pub allowed: bool,
    /// Water steps per rigid-body step now (1: every water step coupled).
    pub steps: usize,
    /// Water steps that frames asked for and the step budget left undone, run by the next
    /// frames (at most one frame's worth): a frame cut short by a slow rapier step does not
    /// leave the water behind the clock for good.
    pub behind: usize,
}

impl Default for BodyStride {
    fn default() -> Self {
        Self {
            allowed: true,
            steps: 1,
            behind: 0,
        }
    }
}

impl BodyStride {
    /// The most water steps of `dt` seconds per body step: none past [`LONGEST_BODY_STEP`],
    /// and 1 when striding is not allowed.
    pub fn most(&self, dt: f32) -> usize {
        if !self.allowed || dt.is_nan() || dt <= 0.0 {
            return 1;
        }
        ((LONGEST_BODY_STEP / dt).floor() as usize).max(1)
    }

    /// Water steps the next body step takes, with `left` water steps still to run this frame.
    pub fn next(&self, left: usize) -> usize {
        self.steps.clamp(1, left.max(1))
    }

    /// After a frame that wanted `wanted` water steps of `dt` and ran `done` of them in
    /// `body_steps` coupled steps taking `spent`, within a frame's `budget`: a longer stride
    /// if the frame fell short (in proportion), a shorter one once the frame would also fit
    /// with it.
    pub fn adapt(
        &mut self,
        (wanted, done, body_steps): (usize, usize, usize),
        spent: Duration,
        budget: Duration,
        dt: f32,
    ) {
        let most = self.most(dt);
        if done < wanted && done > 0 {
            let grown = (self.steps * wanted).div_ceil(done);
            self.steps = grown.max(self.steps + 1).min(most);
        } else if self.steps > 1 && body_steps > 0 {
            // The frame with one water step fewer per body step, at this frame's cost per
            // body step (each would carry less water, so this errs on the long side).
            let shorter = wanted.div_ceil(self.steps - 1);
            let predicted = spent.mul_f64(shorter as f64 / body_steps as f64);
            if predicted < budget.mul_f64(0.8) {
                self.steps -= 1;
            }
        }
        self.steps = self.steps.clamp(1, most);
    }
}

impl Preview {
    /// Where the bodies' coupled steps have spent their time since they started moving with
    /// this run of the water (`None` while no bodies move).
    pub fn body_step_times(&self) -> Option<spillway::body::world::StepTimes> {
        self.bodies.as_ref().map(|b| b.step_times())
    }

    /// Runs `steps` water steps coupled with the bodies, and those earlier frames left undone
    /// ([`BodyStride::behind`]): at most [`MAX_BODY_STEPS_PER_FRAME`], and no more than fit in
    /// [`Self::step_budget`] after the first, the bodies stepping once per
    /// [`Self::body_stride`] water steps. Returns how many water steps ran.
    pub(super) fn step_bodies(&mut self, steps: usize, dt: f32) -> usize {
        let (Some(sim), Some(bodies)) = (self.sim.as_mut(), self.bodies.as_mut()) else {
            return 0;
        };
        let asked = steps + self.body_stride.behind;
        let run = asked.min(MAX_BODY_STEPS_PER_FRAME);
        let start = std::time::Instant::now();
        let mut failed = None;
        let (mut done, mut body_steps) = (0, 0);
        while done < run && failed.is_none() && (done == 0 || start.elapsed() < self.step_budget) {
            let n = self.body_stride.next(run - done);
            match bodies.step(sim, dt, n) {
                Ok(()) => (done, body_steps) = (done + n, body_steps + 1),
                Err(e) => failed = Some(e),
            }
        }
        let ran = (run, done, body_steps);
        (self.body_stride).adapt(ran, start.elapsed(), self.step_budget, dt);
        // What the budget left undone waits for the next frames, up to one frame's worth (a
        // machine that never keeps up asks at most twice a frame's steps, within the budget).
        self.body_stride.behind = (asked - done).min(steps);
        self.bodies_capped = done < steps;
        if let Some(e) = failed
            && self.pause_or_fail(e)
            && let Some(sim) = self.sim.as_mut()
        {
            sim.clear_halt();
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: Duration = Duration::from_millis(12);

    #[test]
    fn a_frame_that_falls_short_takes_more_water_steps_per_body_step() {
        let mut stride = BodyStride::default();
        // 30× at 20 ms steps: 25 water steps wanted, 6 coupled steps fit.
        stride.adapt((25, 6, 6), BUDGET, BUDGET, 0.02);
        assert_eq!(
            stride.steps, 5,
            "25 in 6 needs 5 a body step (the most at 20 ms)"
        );
        // Never past the longest body step.
        stride.adapt((100, 30, 6), BUDGET, BUDGET, 0.02);
        assert_eq!(stride.steps, 5);
        assert_eq!(stride.most(1.0 / 60.0), 6);
    }

    #[test]
    fn time_to_spare_brings_the_stride_back_to_every_step() {
        let mut stride = BodyStride {
            steps: 5,
            ..BodyStride::default()
        };
        // Back at 1×: one step a frame, quickly done.
        for _ in 0..10 {
            stride.adapt((1, 1, 1), Duration::from_millis(2), BUDGET, 0.02);
        }
        assert_eq!(stride.steps, 1);
        // A frame that only just fits keeps its stride.
        let mut stride = BodyStride {
            steps: 5,
            ..BodyStride::default()
        };
        stride.adapt((25, 25, 5), Duration::from_millis(10), BUDGET, 0.02);
        assert_eq!(stride.steps, 5);
    }

    #[test]
    fn not_allowed_means_every_step_coupled() {
        let mut stride = BodyStride {
            allowed: false,
            steps: 4,
            ..BodyStride::default()
        };
        stride.adapt((25, 6, 6), BUDGET, BUDGET, 0.02);
        assert_eq!(stride.steps, 1);
        assert_eq!(stride.next(25), 1);
    }
}
