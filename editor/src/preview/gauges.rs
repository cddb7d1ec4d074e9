//! The level's gauges while the water runs: each reading appended to a series over simulated
//! time, for the preview panel's plot. Readings are taken at most every
//! [`GAUGE_INTERVAL`] of wall time (on the GPU, a read-back of only the values the gauges
//! need), and the series start again when the water restarts or the gauges change.

use std::time::{Duration, Instant};

use spillway::level::{Gauge, GaugeKind};

use super::Preview;
use crate::tools::gauge::unit;

/// The least wall time between two readings.
pub const GAUGE_INTERVAL: Duration = Duration::from_millis(50);
/// The most points a series keeps; beyond it, every other old point is dropped.
const MAX_POINTS: usize = 20_000;

/// One gauge's readings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GaugeSeries {
    /// The gauge's name.
    pub name: String,
    /// The unit of its values (`m` for a stage gauge's surface, `m³/s` for a line).
    pub unit: &'static str,
    /// Simulated seconds and the value then.
    pub points: Vec<[f64; 2]>,
}

/// The gauges' series and what they were recorded for.
#[derive(Default)]
pub(crate) struct GaugeLog {
    series: Vec<GaugeSeries>,
    kinds: Vec<GaugeKind>,
    read: Option<Instant>,
    /// The water changed since the last reading while paused (a Step, a seek, going back):
    /// it is read at the next frame, however soon after the last reading.
    owed: bool,
}

impl GaugeLog {
    /// Drops the readings after `time` (the water went back to it), and owes a reading of
    /// the water there.
    pub fn forget_after(&mut self, time: f64) {
        for series in &mut self.series {
            series.points.retain(|p| p[0] <= time);
        }
        self.owed = true;
    }
}

impl Preview {
    /// Reads `gauges` when the water runs and a reading is due, and appends the readings.
    pub fn record_gauges(&mut self, gauges: &[Gauge]) {
        if !self.is_live() || gauges.is_empty() {
            self.gauge_log = GaugeLog::default();
            return;
        }
        let kinds: Vec<GaugeKind> = gauges.iter().map(|g| g.kind).collect();
        let log = &mut self.gauge_log;
        if log.kinds != kinds || log.series.iter().zip(gauges).any(|(s, g)| s.name != g.name) {
            *log = GaugeLog {
                series: gauges
                    .iter()
                    .map(|g| GaugeSeries {
                        name: g.name.clone(),
                        unit: unit(&g.kind),
                        points: Vec::new(),
                    })
                    .collect(),
                kinds,
                read: None,
                owed: false,
            };
        }
        // While it plays, a reading every interval; paused, one of each water it is left on
        // (two Steps within the interval plotted the first's water, at its time, for good).
        log.owed |= self.last_steps > 0;
        let due = log
            .read
            .is_none_or(|at| at.elapsed() >= self.gauge_interval);
        let fresh = log.series.first().is_none_or(|s| s.points.is_empty());
        if !(due && (self.playing || fresh) || !self.playing && log.owed) {
            return;
        }
        log.owed = false;
        let reading = match (&self.cpu, &self.sim) {
            (Some(cpu), _) => Some(cpu.gauges(&log.kinds)),
            // Stamped with the water's own time (behind the clock after clamped steps).
            (None, Some(sim)) => sim.read_gauges_timed(&log.kinds).ok(),
            _ => None,
        };
        log.read = Some(Instant::now());
        let Some((time, readings)) = reading else {
            return;
        };
        for (series, r) in log.series.iter_mut().zip(readings) {
            if series.points.last().is_some_and(|p| p[0] >= time) {
                continue;
            }
            series.points.push([time, f64::from(r.value())]);
            if series.points.len() > MAX_POINTS {
                let kept: Vec<[f64; 2]> = series.points.iter().step_by(2).copied().collect();
                series.points = kept;
            }
        }
    }

    /// The gauges' series since the water started.
    pub fn gauge_series(&self) -> &[GaugeSeries] {
        &self.gauge_log.series
    }
}
