//! The moving water a SWASHES case starts from (Thacker's bowls): a saved flow state made from
//! cell velocities.

use spillway::Level;
use spillway::level::{FlowState, SolverKind};

/// A saved flow state with cell velocities `u(i, j)`, `v(i, j)`: each face takes the mean of
/// its wet neighbours' velocity, and discharges carry it over the upwind depth.
pub(super) fn flow_state(
    l: &Level,
    u: &dyn Fn(usize, usize) -> f64,
    v: &dyn Fn(usize, usize) -> f64,
) -> FlowState {
    let (nx, ny, dx) = (l.nx(), l.ny(), l.cell_size);
    let d = |i: usize, j: usize| l.water.get(i, j);
    let face = |a: Option<(f64, f32)>, b: Option<(f64, f32)>| {
        let wet: Vec<(f64, f32)> = [a, b]
            .into_iter()
            .flatten()
            .filter(|c| c.1 > 1e-6)
            .collect();
        if wet.is_empty() {
            return (0.0, 0.0);
        }
        let vel = wet.iter().map(|c| c.0).sum::<f64>() / wet.len() as f64;
        let (da, db) = (a.map_or(0.0, |c| c.1), b.map_or(0.0, |c| c.1));
        let up = if vel > 0.0 { da } else { db };
        (vel as f32, vel as f32 * up * dx)
    };
    let mut vel_x = vec![0.0; (nx + 1) * ny];
    let mut q_x = vel_x.clone();
    for j in 0..ny {
        for f in 0..=nx {
            let a = (f > 0).then(|| (u(f - 1, j), d(f - 1, j)));
            let b = (f < nx).then(|| (u(f, j), d(f, j)));
            (vel_x[j * (nx + 1) + f], q_x[j * (nx + 1) + f]) = face(a, b);
        }
    }
    let mut vel_y = vec![0.0; nx * (ny + 1)];
    let mut q_y = vel_y.clone();
    for f in 0..=ny {
        for i in 0..nx {
            let a = (f > 0).then(|| (v(i, f - 1), d(i, f - 1)));
            let b = (f < ny).then(|| (v(i, f), d(i, f)));
            (vel_y[f * nx + i], q_y[f * nx + i]) = face(a, b);
        }
    }
    let (flow_x, flow_y, aux_x, aux_y) = match l.params.solver {
        SolverKind::Pipes => (q_x, q_y, vel_x, vel_y),
        SolverKind::Swe => (vel_x, vel_y, q_x, q_y),
    };
    FlowState {
        solver: l.params.solver,
        flow_x,
        flow_y,
        ghost: Vec::new(),
        time: 0.0,
        carry: Vec::new(),
        aux_x,
        aux_y,
        max_speed: None,
        bed_floor: Vec::new(),
    }
}
