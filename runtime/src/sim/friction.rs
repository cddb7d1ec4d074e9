//! Bed friction per face ([`Friction`]): Manning (the default), Chézy or a linear loss.
//!
//! Manning and Chézy are applied semi-implicitly with the speed before the step,
//! `q ← (q + Δq) / (1 + g·dt·|u|·k(h))`, `k = n²/h^(4/3)` (Manning) or `1/(C²·h)` (Chézy), with
//! `h` the depth of water at the face: the divisor is at least 1, so friction never makes a step
//! unstable, and a steady river settles where gravity and friction balance, at Manning's normal
//! depth. The linear law keeps the formula of format versions 1 and 2, `q·(1 − f)^dt + Δq`.
//! The GPU passes (`flow.wgsl`, `edges.wgsl`, `blocking.wgsl`) apply the same formulas.

use crate::level::{Friction, Params};

use super::swe::DRY;

/// Depth (m) under which a face is a film: its speed is capped at one cell a sub-step and does
/// not set the CFL sub-step of the whole map.
pub(crate) const FILM: f32 = 0.005;

/// Cube root of a depth `x` (at least [`DRY`], at most 1e30), without branches or calls, so the
/// loops over faces vectorise (a call to the library's `cbrtf` per face kept them scalar and cost
/// the Manning step four times the linear one): an estimate from the float's bits, then three
/// Newton steps, each squaring the relative error (within 2 ulp of `f32::cbrt`, see the test).
#[inline(always)]
pub(crate) fn cbrt(x: f32) -> f32 {
    let x = x.clamp(DRY, 1e30);
    // Dividing the exponent (and the mantissa bits, roughly) by three.
    let mut y = f32::from_bits(x.to_bits() / 3 + 709_921_077);
    for _ in 0..3 {
        y = (2.0 * y + x / (y * y)) * (1.0 / 3.0);
    }
    y
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Law {
    Linear,
    Manning,
    Chezy,
}

/// The bed friction of one sub-step.
#[derive(Clone, Copy)]
pub(crate) struct BedFriction<'a> {
    law: Law,
    /// Linear law: the factor `(1 − f)^dt` on the old flow.
    lin: f32,
    /// `g·dt·n²` (Manning, level-wide `n`), `g·dt` (Manning with a roughness grid) or
    /// `g·dt/C²` (Chézy).
    k: f32,
    /// Manning's `n` per cell, when the level has a roughness grid.
    n: Option<&'a [f32]>,
    dx: f32,
}

impl<'a> BedFriction<'a> {
    /// The friction of a sub-step of `dt` seconds for `params`, with Manning's `n` per cell from
    /// `roughness` (used by the Manning law only).
    pub fn new(params: &Params, roughness: Option<&'a [f32]>, dt: f32, dx: f32) -> Self {
        let g_dt = params.gravity * dt;
        let (law, lin, k, n) = match params.friction {
            Friction::Linear { per_second } => {
                (Law::Linear, (1.0 - per_second).powf(dt), 0.0, None)
            }
            Friction::Manning { n } => match roughness {
                Some(grid) => (Law::Manning, 1.0, g_dt, Some(grid)),
                None => (Law::Manning, 1.0, g_dt * n * n, None),
            },
            Friction::Chezy { c } => (Law::Chezy, 1.0, g_dt / (c * c), None),
        };
        Self { law, lin, k, n, dx }
    }

    /// Whether this is the linear law (whose faces keep the old, vectorised formulas).
    pub fn is_linear(&self) -> bool {
        self.law == Law::Linear
    }

    /// The linear law's factor on the old flow (1 for the other laws).
    pub fn linear_factor(&self) -> f32 {
        self.lin
    }

    /// The `n²` of the face between cells `l` and `r` (mean `n` of the two), 1 without a grid.
    #[inline(always)]
    pub fn face_n2(&self, l: usize, r: usize) -> f32 {
        match self.n {
            Some(n) => {
                let nf = 0.5 * (n[l] + n[r]);
                nf * nf
            }
            None => 1.0,
        }
    }

    /// The `n²` of cell `c` (border faces), 1 without a grid.
    /// Manning's n of the `len` cells from `l0` and from `r0`, where a roughness grid gives it.
    #[inline(always)]
    pub fn n_rows(&self, l0: usize, r0: usize, len: usize) -> Option<(&'a [f32], &'a [f32])> {
        self.n.map(|n| (&n[l0..l0 + len], &n[r0..r0 + len]))
    }

    #[inline(always)]
    pub fn cell_n2(&self, c: usize) -> f32 {
        self.n.map_or(1.0, |n| n[c] * n[c])
    }

    /// `1 + g·dt·|u|·k(h)` for speed `speed`, face depth `h` and face `n²` `n2`.
    #[inline(always)]
    fn divisor(&self, speed: f32, h: f32, n2: f32) -> f32 {
        let h = h.max(DRY);
        let depth_term = match self.law {
            Law::Manning => 1.0 / (h * cbrt(h)),
            _ => 1.0 / h,
        };
        1.0 + self.k * n2 * speed * depth_term
    }

    /// The new discharge (m³/s) of a face whose old discharge is `q`, accelerated by `accel`,
    /// with water `h` deep at the face and `n²` `n2`.
    #[inline(always)]
    pub fn discharge(&self, q: f32, accel: f32, h: f32, n2: f32) -> f32 {
        match self.law {
            Law::Linear => q * self.lin + accel,
            _ => {
                let speed = q.abs() / (self.dx * h.max(DRY));
                (q + accel) / self.divisor(speed, h, n2)
            }
        }
    }

    /// The new velocity (m/s) of a face whose old velocity is `u`, accelerated by `accel`.
    /// [`Self::discharge`] under Manning's law (`MANNING`) or Chézy's, the law chosen at
    /// compile time (the same expressions).
    #[inline(always)]
    pub fn law_discharge<const MANNING: bool>(&self, q: f32, accel: f32, h: f32, n2: f32) -> f32 {
        let speed = q.abs() / (self.dx * h.max(DRY));
        let hh = h.max(DRY);
        let depth_term = if MANNING {
            1.0 / (hh * cbrt(hh))
        } else {
            1.0 / hh
        };
        (q + accel) / (1.0 + self.k * n2 * speed * depth_term)
    }

    /// [`Self::velocity`] under the law `LAW` (0 linear, 1 Manning, 2 Chézy; see
    /// [`Self::law`]), chosen at compile time (the same expressions).
    #[inline(always)]
    pub fn law_velocity<const LAW: u8>(&self, u: f32, accel: f32, h: f32, n2: f32) -> f32 {
        if LAW == 0 {
            return u * self.lin + accel;
        }
        let hh = h.max(DRY);
        let depth_term = if LAW == 1 {
            1.0 / (hh * cbrt(hh))
        } else {
            1.0 / hh
        };
        (u + accel) / (1.0 + self.k * n2 * u.abs() * depth_term)
    }

    /// The law as [`Self::law_velocity`] numbers it: 0 linear, 1 Manning, 2 Chézy.
    pub fn law(&self) -> u8 {
        match self.law {
            Law::Linear => 0,
            Law::Manning => 1,
            Law::Chezy => 2,
        }
    }

    /// Whether the law is Manning's.
    pub fn is_manning(&self) -> bool {
        self.law == Law::Manning
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::Params;

    fn law(friction: Friction) -> Params {
        Params {
            friction,
            ..Params::default()
        }
    }

    #[test]
    fn the_cube_root_is_within_two_ulp_of_the_library_one() {
        let mut x = DRY;
        let mut worst = 0.0f64;
        while x < 1e6 {
            let (ours, lib) = (cbrt(x) as f64, x.cbrt() as f64);
            let ulp = (x.cbrt().next_up() - x.cbrt()) as f64;
            worst = worst.max((ours - lib).abs() / ulp);
            x *= 1.000_37;
        }
        assert!(worst <= 2.0, "off by {worst} ulp");
    }

    #[test]
    fn a_uniform_river_at_manning_normal_flow_is_steady() {
        // Pipes on 2 m cells: the face passes q = u·h·dx, gravity pushes g·dt·h·(S·dx).
        let (n, s, h, dx, dt) = (0.035f32, 0.005f32, 0.6558f32, 2.0f32, 0.02f32);
        let p = law(Friction::Manning { n });
        let f = BedFriction::new(&p, None, dt, dx);
        let u = h.powf(2.0 / 3.0) * s.sqrt() / n;
        let q = u * h * dx;
        let accel = p.gravity * dt * h * (s * dx);
        let next = f.discharge(q, accel, h, 1.0);
        assert!((next / q - 1.0).abs() < 1e-5, "{next} vs {q}");
        // The SWE form (velocities) balances the same way.
        let v = f.law_velocity::<1>(u, p.gravity * dt * s, h, 1.0);
        assert!((v / u - 1.0).abs() < 1e-5, "{v} vs {u}");
    }

    #[test]
    fn friction_only_slows_and_never_makes_nan() {
        for friction in [
            Friction::Manning { n: 0.1 },
            Friction::Chezy { c: 10.0 },
            Friction::Linear { per_second: 0.5 },
        ] {
            let p = law(friction);
            let f = BedFriction::new(&p, None, 0.05, 1.0);
            for (q, accel, h) in [(3.0, 1.0, 0.2), (-2.0, 0.5, 1e-3), (5.0, 0.0, 0.0)] {
                let next = f.discharge(q, accel, h, 1.0);
                assert!(next.is_finite(), "{friction:?}: {q} {accel} {h} → {next}");
                assert!(
                    next.abs() <= (q + accel).abs() + 1e-6,
                    "{friction:?}: {next}"
                );
            }
        }
    }

    #[test]
    fn the_linear_law_keeps_the_formula_of_format_2() {
        let p = law(Friction::Linear { per_second: 0.02 });
        let f = BedFriction::new(&p, None, 0.02, 1.0);
        let fric = (1.0f32 - 0.02).powf(0.02);
        assert_eq!(f.discharge(1.5, 0.25, 0.3, 1.0), 1.5 * fric + 0.25);
    }

    #[test]
    fn a_roughness_grid_sets_each_face_from_its_two_cells() {
        let p = law(Friction::Manning { n: 0.5 });
        let grid = [0.02f32, 0.04, 0.1];
        let f = BedFriction::new(&p, Some(&grid), 0.02, 1.0);
        assert!((f.face_n2(0, 1) - 0.03f32 * 0.03).abs() < 1e-9);
        assert!((f.cell_n2(2) - 0.01).abs() < 1e-9);
        // The grid's n, not the level-wide 0.5: a smoother face slows the flow less.
        let smooth = f.discharge(1.0, 0.0, 0.5, f.face_n2(0, 1));
        let rough = f.discharge(1.0, 0.0, 0.5, f.face_n2(1, 2));
        assert!(smooth > rough && smooth < 1.0);
    }
}
