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

/// Depth (m) under which a face is a film: its speed is capped at the step's stable speed and
/// does not set the CFL sub-step of the whole map.
pub(crate) const FILM: f32 = 0.005;

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
    #[inline(always)]
    pub fn cell_n2(&self, c: usize) -> f32 {
        self.n.map_or(1.0, |n| n[c] * n[c])
    }

    /// `1 + g·dt·|u|·k(h)` for speed `speed`, face depth `h` and face `n²` `n2`.
    #[inline(always)]
    fn divisor(&self, speed: f32, h: f32, n2: f32) -> f32 {
        let h = h.max(DRY);
        let depth_term = match self.law {
            Law::Manning => 1.0 / (h * h.cbrt()),
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
    #[inline(always)]
    pub fn velocity(&self, u: f32, accel: f32, h: f32, n2: f32) -> f32 {
        match self.law {
            Law::Linear => u * self.lin + accel,
            _ => (u + accel) / self.divisor(u.abs(), h, n2),
        }
    }
}
