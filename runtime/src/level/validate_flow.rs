//! Validation of a level's saved flow state: face discharges, edge ghosts, the clock and the
//! fastest speed, each of the size and in the range a run of the solver leaves.

use super::{Check, ValidationError, Values, check_values};
use crate::level::ranges::{MAX_TIME, height, number};
use crate::level::{FlowState, Params};

pub(super) fn check_flow(flow: &FlowState, nx: usize, ny: usize) -> Check {
    check_values("flow.flow_x", &flow.flow_x, nx + 1, ny, Values::Finite)?;
    check_values("flow.flow_y", &flow.flow_y, nx, ny + 1, Values::Finite)?;
    let edge_cells = 2 * (nx + ny);
    if !flow.ghost.is_empty() && flow.ghost.len() != edge_cells {
        return Err(ValidationError::new(
            "flow.ghost",
            format!(
                "{} values; the edges have {edge_cells} cells (one surface each, or none)",
                flow.ghost.len()
            ),
        ));
    }
    for (i, &v) in flow.ghost.iter().enumerate() {
        height(&format!("flow.ghost[{i}]"), v)?;
    }
    if !(flow.time.is_finite() && (0.0..=MAX_TIME).contains(&flow.time)) {
        return Err(ValidationError::new(
            "flow.time",
            format!("{} s is outside 0 to {MAX_TIME:e} s", flow.time),
        ));
    }
    if !flow.carry.is_empty() {
        check_values("flow.carry", &flow.carry, nx, ny, Values::Finite)?;
    }
    if !flow.bed_floor.is_empty() {
        check_values("flow.bed_floor", &flow.bed_floor, nx, ny, Values::Height)?;
    }
    match (flow.aux_x.is_empty(), flow.aux_y.is_empty()) {
        (true, true) => {}
        (false, false) => {
            check_values("flow.aux_x", &flow.aux_x, nx + 1, ny, Values::Finite)?;
            check_values("flow.aux_y", &flow.aux_y, nx, ny + 1, Values::Finite)?;
        }
        _ => {
            return Err(ValidationError::new(
                "flow.aux_x",
                "aux_x and aux_y must both be present or both absent",
            ));
        }
    }
    if let Some(s) = flow.max_speed
        && !(s.is_finite() && s >= 0.0)
    {
        return Err(ValidationError::new(
            "flow.max_speed",
            format!("{s} must be a finite number ≥ 0"),
        ));
    }
    Ok(())
}

/// The saved flow's fastest speed must let a step of the level's own `dt` run: a speed that
/// needs more CFL sub-steps than the solver takes is no state the water left (it made every
/// step a runaway, and only a step sets it again).
pub(super) fn check_flow_speed(flow: &FlowState, p: &Params, cell_size: f32) -> Check {
    let Some(s) = flow.max_speed else {
        return Ok(());
    };
    let most = crate::sim::MAX_SUBSTEPS as f32 * p.cfl * cell_size / p.dt;
    if s.is_finite() && (0.0..=most).contains(&s) {
        return Ok(());
    }
    Err(ValidationError::new(
        "flow.max_speed",
        format!(
            "{} m/s is outside 0 to {} m/s, the fastest a step of {} s can follow on {} m cells",
            number(s),
            number(most),
            p.dt,
            cell_size
        ),
    ))
}
