//! Erode: the level's water run over a bed of a chosen material for a while, on the GPU or the
//! CPU solver (`spillway::sim::erosion`), giving the terrain it leaves, which the editor
//! applies as one undo step, and the terrain so far while it runs. No UI here.

use spillway::level::{BedloadLaw, Sediment, Suspension};
use std::time::{Duration, Instant};

use spillway::gpu::{GpuError, GpuSimulation};
use spillway::{Grid, Level, Simulation};
use thiserror::Error;

/// A bed material with sensible parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Material {
    /// Fine sand (0.5 mm): moves in a gentle current, rests at 33°.
    #[default]
    Sand,
    /// Gravel (1 cm): moves in a strong current, rests at 38°.
    Gravel,
    /// Clay: cohesive, little carried, stands steep (45°).
    Clay,
    /// Rock (20 cm boulders): barely moves, stands at 60°.
    Rock,
}

impl Material {
    /// Every material, in the menu's order.
    pub const ALL: [Material; 4] = [Self::Sand, Self::Gravel, Self::Clay, Self::Rock];

    /// The name in the menu.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sand => "Sand",
            Self::Gravel => "Gravel",
            Self::Clay => "Clay",
            Self::Rock => "Rock",
        }
    }

    /// What the material does, for a tooltip.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Sand => {
                "Fine sand (0.5 mm): rolls in a gentle current and is lifted into the water where \
                 it runs fast, settling where it slows; rests at 33°"
            }
            Self::Gravel => "Gravel (1 cm): rolls along the bed in a strong current; rests at 38°",
            Self::Clay => {
                "Clay: cohesive, little rolls, fine grains carried far before they settle; \
                 stands steep (45°)"
            }
            Self::Rock => "Rock (20 cm boulders): barely moves, stands at 60°",
        }
    }

    /// The bed of this material.
    pub fn sediment(self) -> Sediment {
        let mpm = |diameter: f32| BedloadLaw::MeyerPeterMuller {
            diameter,
            density: 2650.0,
            critical_shields: 0.047,
            friction_factor: 0.03,
        };
        let lifted = |critical_shear, pickup, settling| {
            Some(Suspension {
                critical_shear,
                pickup,
                settling,
            })
        };
        let (law, talus, slump, suspension) = match self {
            Self::Sand => (mpm(0.0005), 33.0, 0.5, lifted(1.0, 2e-7, 0.02)),
            Self::Gravel => (mpm(0.01), 38.0, 0.3, None),
            Self::Clay => (
                BedloadLaw::Grass { a: 0.0002 },
                45.0,
                0.1,
                lifted(1.0, 1e-7, 0.0005),
            ),
            Self::Rock => (mpm(0.2), 60.0, 0.05, None),
        };
        Sediment {
            law,
            porosity: 0.4,
            talus_degrees: talus,
            slump_per_second: slump,
            clear_inflow: true,
            layer: 5.0,
            speedup: 1.0,
            suspension,
            region: None,
        }
    }
}

/// Why an erosion run ended without a terrain.
#[derive(Debug, Error)]
pub enum ErodeError {
    /// The level cannot run on the CPU solver.
    #[error("the level cannot run: {0}")]
    Level(#[from] spillway::sim::SimError),
    /// A step of the CPU solver failed.
    #[error("the water blew up: {0}")]
    Step(#[from] spillway::sim::StepError),
    /// The GPU solver failed.
    #[error("the GPU solver failed: {0}")]
    Gpu(#[from] GpuError),
    /// The designer pressed Cancel.
    #[error("cancelled")]
    Cancelled,
}

/// How often a run hands the terrain so far to `report`, for the viewport to show.
const PREVIEW_EVERY: Duration = Duration::from_millis(250);

/// Steps per GPU submission between looks at the clock and the Cancel button.
const GPU_CHUNK: usize = 64;

/// An erosion run made ready: the level with its bed, and the solver it runs on.
pub struct Erosion {
    /// The level with the bed of the chosen material.
    run: Level,
    /// The GPU solver, when the GPU took the level (else the run is on the CPU).
    gpu: Option<GpuSimulation>,
    /// Where it runs, for the designer ("GPU", "CPU", or "CPU (the GPU refused the level:
    /// why)").
    pub backend: String,
}

impl Erosion {
    /// Readies the water of `level` (from its initial state) over a bed of `sediment`: on the
    /// GPU `gpu` when given and the level fits it, else on the CPU solver ([`Self::backend`]
    /// says which, and why the GPU refused).
    pub fn new(
        level: &Level,
        sediment: Sediment,
        gpu: Option<(wgpu::Device, wgpu::Queue)>,
    ) -> Self {
        let mut run = level.clone();
        run.params.sediment = Some(sediment);
        let gpu = gpu.map(|(device, queue)| GpuSimulation::new(&run, &device, &queue));
        let backend = crate::bake::backend(gpu.as_ref());
        Self {
            run,
            gpu: gpu.and_then(Result::ok),
            backend,
        }
    }

    /// Runs the water for `seconds` and returns the terrain it leaves, with the grains still in
    /// the water settled where they are. `report` gets the share done and, a few times a
    /// second, the terrain so far (the solver's, closed gates raised); it returns false to stop
    /// (then the result is `Err(ErodeError::Cancelled)`).
    pub fn run(
        self,
        seconds: f64,
        report: &mut dyn FnMut(f32, Option<Vec<f32>>) -> bool,
    ) -> Result<Grid, ErodeError> {
        let run = self.run;
        let dt = run.params.dt;
        let steps = (seconds / dt as f64).ceil().max(1.0) as usize;
        let mut shown = Instant::now();
        let mut due = move || {
            let now = shown.elapsed() >= PREVIEW_EVERY;
            if now {
                shown = Instant::now();
            }
            now
        };
        let baked = if let Some(mut sim) = self.gpu {
            let mut done = 0;
            while done < steps {
                let k = GPU_CHUNK.min(steps - done);
                sim.step_n(k, dt)?;
                done += k;
                // Steps that needed more sub-steps than were recorded ran short: their lost
                // time runs again chunk by chunk (all of it at the end ran past the bar's
                // 100 %, with no Cancel), as the bake does each simulated second.
                sim.catch_up(dt)?;
                let terrain = if due() {
                    Some(sim.read_terrain()?)
                } else {
                    None
                };
                if !report(done as f32 / steps as f32, terrain) {
                    return Err(ErodeError::Cancelled);
                }
            }
            sim.bake_into(&run)?
        } else {
            let mut sim = Simulation::new(&run)?;
            for k in 0..steps {
                sim.step(dt)?;
                if k % 16 == 0 {
                    let terrain = due().then(|| sim.terrain().to_vec());
                    if !report(k as f32 / steps as f32, terrain) {
                        return Err(ErodeError::Cancelled);
                    }
                }
            }
            sim.bake_into(&run)
        };
        report(1.0, None);
        Ok(baked.terrain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_down_a_sand_slope_moves_the_bed_and_keeps_its_volume() {
        let mut level = Level::flat(40, 4, 1.0, 0.0);
        level.terrain = Grid::from_fn(40, 4, |i, _| 0.05 * (40 - i) as f32);
        level.water = Grid::from_fn(40, 4, |i, _| if i < 10 { 1.0 } else { 0.0 });
        let before: f64 = level.terrain.data.iter().map(|&z| z as f64).sum();
        let erosion = Erosion::new(&level, Material::Sand.sediment(), None);
        assert_eq!(erosion.backend, "CPU");
        let after = erosion.run(10.0, &mut |_, _| true).unwrap();
        let moved = (after.data.iter().zip(&level.terrain.data))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        let sum: f64 = after.data.iter().map(|&z| z as f64).sum();
        assert!(moved > 1e-3, "the bed did not move: {moved}");
        assert!(((sum - before) / before).abs() < 1e-6);
        let stopped =
            Erosion::new(&level, Material::Sand.sediment(), None).run(10.0, &mut |_, _| false);
        assert!(matches!(stopped, Err(ErodeError::Cancelled)));
    }

    #[test]
    fn each_material_says_what_it_is_in_one_line() {
        for m in Material::ALL {
            assert!(
                !m.describe().contains("  "),
                "{}: {:?}",
                m.name(),
                m.describe()
            );
        }
    }
}
