//! [`Sediment`]: how the water moves the bed (`Params::sediment`). The bed is loose material
//! the flow carries along the bottom (bedload, by a transport law of the water's speed) and
//! that slumps where it stands steeper than its angle of repose, and optionally grains lifted
//! into the water that settle downstream ([`Suspension`]); the terrain follows (the Exner
//! equation). `sim::erosion` applies it on the CPU solver.

use serde::{Deserialize, Serialize};

use super::Shape;
use super::validate::{ValidationError, check_shape};

/// How the water moves the bed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sediment {
    /// The bedload transport law.
    pub law: BedloadLaw,
    /// Porosity of the bed (0 ≤ p < 1): grains moving a volume `V` change the bed by
    /// `V / (1 − p)`.
    #[serde(default)]
    pub porosity: f32,
    /// Angle of repose, degrees: slopes steeper than this slump (thermal erosion); 90 never.
    #[serde(default = "no_slump")]
    pub talus_degrees: f32,
    /// How fast a slope steeper than the angle of repose slumps: the share of its excess height
    /// that moves down per second of bed change (per second of water, `speedup` times as much).
    #[serde(default)]
    pub slump_per_second: f32,
    /// Water entering across the map's edges brings no bed with it (clear water, which scours
    /// the bed below the edge); else it brings as much as it can carry (a river in balance).
    #[serde(default)]
    pub clear_inflow: bool,
    /// Thickness of the loose bed over the bedrock, metres: the water cuts no deeper than this
    /// below the terrain it started on.
    #[serde(default = "loose_layer")]
    pub layer: f32,
    /// Seconds of bed change per second of water (the morphological factor, Delft3D's
    /// MORFAC): 1 is real time; 100 ages the bed a hundred times faster than the water runs, so
    /// a few minutes of a river shape hours of its bed.
    #[serde(default = "real_time")]
    pub speedup: f32,
    /// Grains the flow lifts off the bed and carries in the water, to settle where it slows
    /// (`None`: the bed moves by bedload only).
    #[serde(default)]
    pub suspension: Option<Suspension>,
    /// Where the bed moves (`None`: everywhere): outside this shape the ground is bedrock the
    /// water runs over but cannot cut, so erosion can be confined to one valley; grains the
    /// water carries out of it settle there as anywhere (none is lifted there).
    #[serde(default)]
    pub region: Option<Shape>,
}

/// Suspended load: where the bed shear stress `τ` (from the water's speed, depth and the
/// level's roughness) passes its critical value, the flow picks grains up at
/// `pickup·(τ/τc − 1)`; they travel with the water and settle at their fall speed
/// (`settling × concentration`), most where the flow slows and deepens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suspension {
    /// Bed shear stress above which the flow lifts grains, Pa (silt 0.1, fine sand 0.2, firm
    /// clay 1).
    pub critical_shear: f32,
    /// Grains lifted per square metre of bed per second at twice the critical shear, m/s of
    /// grain volume (Partheniades' rate over the grain density; 1e-7 for firm clay to 1e-5 for
    /// loose fine sand). It grows with the excess shear, so a fast river lifts many times this.
    pub pickup: f32,
    /// How fast the grains fall through still water, m/s (fine sand 0.02, silt 0.002, clay
    /// 0.0002).
    pub settling: f32,
}

fn real_time() -> f32 {
    1.0
}

fn loose_layer() -> f32 {
    5.0
}

fn no_slump() -> f32 {
    90.0
}

/// A bedload transport law: the volume of grains a unit width of bed passes per second, m²/s,
/// from the water's speed `u` over it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum BedloadLaw {
    /// Grass (1981): `q_b = a·u³`; `a` in s²/m holds the grains' mobility (0.001 fine sand to
    /// 0.0001 coarse gravel; SWASHES uses 0.005).
    Grass {
        /// Mobility, s²/m.
        a: f32,
    },
    /// Meyer-Peter and Müller (1948): `q_b = 8·√(g(s−1)d³)·(θ − θc)^1.5` while the Shields
    /// number `θ = f·u² / (8g(s−1)d)` is above its critical value `θc`, with the grains'
    /// relative density `s`.
    MeyerPeterMuller {
        /// Grain diameter, metres.
        diameter: f32,
        /// Grain density, kg/m³ (quartz 2650).
        density: f32,
        /// Critical Shields number (0.047).
        critical_shields: f32,
        /// Darcy friction factor of the bed (0.02 to 0.25).
        friction_factor: f32,
    },
}

/// The grains' diameter and relative density less one (`s − 1`) as Meyer-Peter and Müller's law
/// uses them: kept away from zero, so the law stays finite for any valid level.
pub(crate) fn grains(diameter: f32, density: f32) -> (f32, f32) {
    (diameter.max(1e-6), (density / 1000.0 - 1.0).max(1e-3))
}

impl BedloadLaw {
    /// The bedload (m²/s, with the sign of `u`) for the speed `u` (m/s) under gravity `g`.
    pub fn transport(&self, u: f32, g: f32) -> f32 {
        let speed = u.abs();
        let q = match *self {
            BedloadLaw::Grass { a } => a * speed * speed * speed,
            BedloadLaw::MeyerPeterMuller {
                diameter,
                density,
                critical_shields,
                friction_factor,
            } => {
                let (d, s1) = grains(diameter, density);
                let theta = friction_factor * speed * speed / (8.0 * g * s1 * d);
                let excess = (theta - critical_shields).max(0.0);
                8.0 * (g * s1 * d * d * d).sqrt() * excess * excess.sqrt()
            }
        };
        q.copysign(u)
    }
}

/// Checks `params.sediment`.
pub(crate) fn check(s: &Sediment) -> Result<(), ValidationError> {
    let number = |field: &str, v: f32, lo: f32, hi: f32| {
        super::ranges::within(&format!("params.sediment.{field}"), v, &(lo..=hi), "")
    };
    number("porosity", s.porosity, 0.0, 0.9)?;
    number("talus_degrees", s.talus_degrees, 1.0, 90.0)?;
    number("slump_per_second", s.slump_per_second, 0.0, 100.0)?;
    number("layer", s.layer, 0.0, 1.0e4)?;
    number("speedup", s.speedup, 0.0, 1.0e4)?;
    if let Some(r) = &s.region {
        check_shape("params.sediment.region", r)?;
    }
    if let Some(u) = &s.suspension {
        number("suspension.critical_shear", u.critical_shear, 1e-4, 1.0e4)?;
        number("suspension.pickup", u.pickup, 0.0, 1.0)?;
        number("suspension.settling", u.settling, 0.0, 10.0)?;
    }
    match s.law {
        BedloadLaw::Grass { a } => number("law.a", a, 0.0, 1.0),
        BedloadLaw::MeyerPeterMuller {
            diameter,
            density,
            critical_shields,
            friction_factor,
        } => {
            number("law.diameter", diameter, 1e-6, 10.0)?;
            number("law.density", density, 1001.0, 20_000.0)?;
            number("law.critical_shields", critical_shields, 0.0, 1.0)?;
            number("law.friction_factor", friction_factor, 0.0, 10.0)
        }
    }
}
