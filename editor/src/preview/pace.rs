//! Keeps the live preview responsive on a GPU the level outgrows (an 8192² level on a laptop):
//! when frames take longer than a 30 Hz frame, the preview runs fewer solver steps per frame,
//! so the water falls behind the clock instead of the viewport freezing, and the panel says so;
//! when frames are quick again, the steps grow back to what the speed asks.

use super::MAX_STEPS_PER_FRAME;

/// Frame time above which the steps per frame shrink, seconds.
const SLOW: f32 = 1.0 / 30.0;

/// Frame time below which they may grow again, seconds.
const QUICK: f32 = 1.0 / 50.0;

/// The most solver steps a frame may run, following how long frames take.
#[derive(Clone, Debug)]
pub struct Pace {
    cap: f64,
    held: bool,
}

impl Default for Pace {
    fn default() -> Self {
        Self {
            cap: MAX_STEPS_PER_FRAME as f64,
            held: false,
        }
    }
}

impl Pace {
    /// The steps to run this frame: `wanted` is what the speed asks, `real_dt` how long the
    /// last frame took (seconds) and `last` how many steps it ran. A slow frame that ran
    /// several steps cuts the next frames to three quarters of them; each quick frame lets a
    /// quarter more run. At least one step runs while any is wanted.
    pub fn steps(&mut self, wanted: usize, real_dt: f32, last: usize) -> usize {
        if real_dt > SLOW && last > 1 {
            self.cap = self.cap.min(last as f64 * 0.75).max(1.0);
        } else if real_dt < QUICK {
            self.cap = (self.cap * 1.25).min(MAX_STEPS_PER_FRAME as f64);
        }
        let run = wanted.min(self.cap as usize).max(wanted.min(1));
        self.held = run < wanted;
        run
    }

    /// The most steps a frame may run now.
    pub fn cap(&self) -> usize {
        self.cap as usize
    }

    /// Whether the last frame ran fewer steps than the speed asked (frames were slow).
    pub fn held(&self) -> bool {
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_frames_run_fewer_steps_and_quick_ones_let_them_grow_back() {
        let mut pace = Pace::default();
        // 100 steps a frame at 80 ms each: cut until the frames would be quick.
        let mut last = pace.steps(100, 1.0 / 60.0, 0);
        assert_eq!(last, 100);
        for _ in 0..5 {
            last = pace.steps(100, 0.080 * last as f32 / 100.0 + 0.001, last);
        }
        assert!(last < 40, "{last}");
        assert!(pace.held());
        // Quick frames: back to what the speed asks.
        for _ in 0..30 {
            last = pace.steps(100, 1.0 / 120.0, last);
        }
        assert_eq!(last, 100);
        assert!(!pace.held());
    }

    #[test]
    fn a_wanted_step_always_runs_and_no_more_than_wanted() {
        let mut pace = Pace::default();
        for _ in 0..50 {
            assert_eq!(pace.steps(1, 0.5, 1), 1);
        }
        assert_eq!(pace.steps(0, 0.5, 3), 0);
        assert!(pace.steps(10, 0.5, 10) <= 10);
    }
}
