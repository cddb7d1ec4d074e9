//! Erode: the level's water run over a bed of a chosen material for a while, on the CPU solver
//! (`spillway::sim::erosion`), giving the terrain it leaves, which the editor applies as one
//! undo step. No UI here.

use spillway::level::{BedloadLaw, Sediment, Suspension};
use spillway::{Grid, Level, Simulation};

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
            Self::Sand => (mpm(0.0005), 33.0, 0.5, lifted(0.2, 1e-5, 0.02)),
            Self::Gravel => (mpm(0.01), 38.0, 0.3, None),
            Self::Clay => (
                BedloadLaw::Grass { a: 0.0002 },
                45.0,
                0.1,
                lifted(1.0, 1e-6, 0.0002),
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

/// Runs the water of `level` (from its initial state) for `seconds` over a bed of `sediment`
/// on the CPU solver and returns the terrain it leaves. `report` gets the share done and
/// returns false to stop (then the result is `Err("cancelled")`).
pub fn erode(
    level: &Level,
    sediment: Sediment,
    seconds: f64,
    report: &mut dyn FnMut(f32) -> bool,
) -> Result<Grid, String> {
    let mut run = level.clone();
    run.params.sediment = Some(sediment);
    let mut sim = Simulation::new(&run).map_err(|e| e.to_string())?;
    let dt = run.params.dt;
    let steps = (seconds / dt as f64).ceil().max(1.0) as u64;
    for k in 0..steps {
        sim.step(dt).map_err(|e| e.to_string())?;
        if k % 16 == 0 && !report(k as f32 / steps as f32) {
            return Err("cancelled".into());
        }
    }
    report(1.0);
    Ok(Grid {
        nx: run.nx(),
        ny: run.ny(),
        data: sim.terrain().to_vec(),
    })
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
        let after = erode(&level, Material::Sand.sediment(), 10.0, &mut |_| true).unwrap();
        let moved = (after.data.iter().zip(&level.terrain.data))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        let sum: f64 = after.data.iter().map(|&z| z as f64).sum();
        assert!(moved > 1e-3, "the bed did not move: {moved}");
        assert!(((sum - before) / before).abs() < 1e-6);
        assert!(erode(&level, Material::Sand.sediment(), 10.0, &mut |_| false).is_err());
    }
}
