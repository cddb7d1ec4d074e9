//! [`Schedule`]: a quantity that follows simulated time (a flood hydrograph, a tide, a pump's
//! daily cycle), as sources and sinks of kind `Hydrograph` follow it. The CPU and the GPU solver
//! evaluate it alike, at the middle of every sub-step.

use serde::{Deserialize, Serialize};

use super::ranges::height;
use super::validate::{Check, ValidationError, finite, rate};

/// Points (simulated seconds, value) joined by straight lines; the value is held before the
/// first point and after the last. With `period`, time wraps around: the series repeats every
/// `period` seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Schedule {
    /// `[time s, value]` pairs, times rising.
    pub points: Vec<[f32; 2]>,
    /// Repeat every this many seconds (`None`: once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<f32>,
}

impl Schedule {
    /// Most points a schedule may have (checked when a level is validated).
    pub const MAX_POINTS: usize = 4096;

    /// A schedule holding `value` from time 0.
    pub fn constant(value: f32) -> Self {
        Self {
            points: vec![[0.0, value]],
            period: None,
        }
    }

    /// The value at simulated `time`, seconds (0 for a schedule without points).
    pub fn at(&self, time: f64) -> f32 {
        let t = match self.period {
            Some(p) if p > 0.0 => time.rem_euclid(p as f64) as f32,
            _ => time as f32,
        };
        value_at(&self.points, t)
    }

    /// Largest value of the schedule.
    pub fn max(&self) -> f32 {
        self.points.iter().map(|p| p[1]).fold(0.0, f32::max)
    }

    /// The integral of the value from time 0 to `time` (for a rate: the volume it has moved),
    /// in the units of value × seconds; exact for the straight lines between points.
    pub fn integral(&self, time: f64) -> f64 {
        match self.period {
            Some(p) if p > 0.0 => {
                let p = p as f64;
                let whole = (time / p).floor();
                whole * self.integral_once(p) + self.integral_once(time - whole * p)
            }
            _ => self.integral_once(time),
        }
    }

    fn integral_once(&self, time: f64) -> f64 {
        let pts = &self.points;
        let Some(first) = pts.first() else {
            return 0.0;
        };
        let mut sum = first[1] as f64 * (first[0] as f64).min(time).max(0.0);
        for w in pts.windows(2) {
            let (t0, v0, t1, v1) = (
                w[0][0] as f64,
                w[0][1] as f64,
                w[1][0] as f64,
                w[1][1] as f64,
            );
            if time <= t0 {
                return sum;
            }
            let end = time.min(t1);
            let at_end = if t1 > t0 {
                v0 + (v1 - v0) * (end - t0) / (t1 - t0)
            } else {
                v1
            };
            sum += 0.5 * (v0 + at_end) * (end - t0);
        }
        let last = pts[pts.len() - 1];
        sum + last[1] as f64 * (time - last[0] as f64).max(0.0)
    }
}

/// The straight-line value of `points` at `t` (f32 throughout, as the GPU evaluates it).
pub(crate) fn value_at(points: &[[f32; 2]], t: f32) -> f32 {
    let Some(first) = points.first() else {
        return 0.0;
    };
    if t <= first[0] {
        return first[1];
    }
    let k = points.partition_point(|p| p[0] <= t);
    if k == 0 {
        // A NaN time (or a NaN first point, in a schedule built by hand): the first value,
        // never an index before the first point.
        return first[1];
    }
    if k >= points.len() {
        return points[points.len() - 1][1];
    }
    let ([t0, v0], [t1, v1]) = (points[k - 1], points[k]);
    if t1 > t0 {
        v0 + (v1 - v0) * ((t - t0) / (t1 - t0))
    } else {
        v1
    }
}

/// Checks a schedule of rates or openings: 1 to `Schedule::MAX_POINTS` points, times finite,
/// ≥ 0 and rising, values finite and ≥ 0, a period finite and > 0.
pub(crate) fn check_schedule(at: &str, s: &Schedule) -> Check {
    check_points(at, s, rate)
}

/// Checks a schedule of surface heights (a tide): as [`check_schedule`], with values within
/// ±[`super::ranges::MAX_HEIGHT`].
pub(crate) fn check_levels(at: &str, s: &Schedule) -> Check {
    check_points(at, s, height)
}

fn check_points(at: &str, s: &Schedule, value: fn(&str, f32) -> Check) -> Check {
    let n = s.points.len();
    if n == 0 || n > Schedule::MAX_POINTS {
        return Err(ValidationError::new(
            format!("{at}.points"),
            format!("{n} points; a schedule has 1 to {}", Schedule::MAX_POINTS),
        ));
    }
    let mut last = f32::NEG_INFINITY;
    for (i, &[t, v]) in s.points.iter().enumerate() {
        let here = format!("{at}.points[{i}]");
        finite(&here, t)?;
        value(&here, v)?;
        if t < 0.0 || t <= last {
            return Err(ValidationError::new(
                &here,
                format!("time {t} s must be ≥ 0 and after the point before"),
            ));
        }
        last = t;
    }
    if let Some(p) = s.period
        && !(p.is_finite() && p > 0.0)
    {
        return Err(ValidationError::new(
            format!("{at}.period"),
            format!("{p} must be a finite number of seconds > 0"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flood() -> Schedule {
        Schedule {
            points: vec![[10.0, 2.0], [20.0, 12.0], [40.0, 2.0]],
            period: None,
        }
    }

    #[test]
    fn values_follow_the_lines_and_hold_at_the_ends() {
        let s = flood();
        assert_eq!(s.at(0.0), 2.0);
        assert_eq!(s.at(15.0), 7.0);
        assert_eq!(s.at(20.0), 12.0);
        assert_eq!(s.at(30.0), 7.0);
        assert_eq!(s.at(100.0), 2.0);
        let tide = Schedule {
            points: vec![[0.0, 0.0], [50.0, 1.0], [100.0, 0.0]],
            period: Some(100.0),
        };
        assert_eq!(tide.at(125.0), 0.5);
        assert_eq!(s.max(), 12.0);
    }

    #[test]
    fn a_nan_time_or_point_gives_the_first_value_and_no_panic() {
        // A game asking at a NaN time indexed before the first point.
        assert_eq!(flood().at(f64::NAN), 2.0);
        let by_hand = Schedule {
            points: vec![[f32::NAN, 1.0]],
            period: None,
        };
        assert_eq!(by_hand.at(5.0), 1.0);
    }

    #[test]
    fn the_integral_is_the_area_under_the_lines() {
        let s = flood();
        // 10 s at 2, then a triangle of 10 above 2 over 30 s, then 10 s at 2.
        assert!((s.integral(50.0) - (2.0 * 50.0 + 0.5 * 10.0 * 30.0)).abs() < 1e-9);
        assert!((s.integral(15.0) - (2.0 * 15.0 + 0.5 * 5.0 * 5.0)).abs() < 1e-9);
        let tide = Schedule {
            points: vec![[0.0, 0.0], [50.0, 1.0], [100.0, 0.0]],
            period: Some(100.0),
        };
        assert!((tide.integral(250.0) - (2.0 * 50.0 + 25.0)).abs() < 1e-9);
    }
}
