//! Validation of a level's saved flow state: face discharges, edge ghosts and the clock, each
//! of the size and in the range a run of the solver leaves (the fastest speed only finite and
//! ≥ 0: the solvers hold it to what a step can follow, `sim::followable_speed`).

use super::{Check, ValidationError, Values, check_values};
use crate::level::FlowState;
use crate::level::ranges::{MAX_TIME, height};

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
        // The depth a step has not yet added: no more than a depth may be.
        check_values("flow.carry", &flow.carry, nx, ny, Values::Height)?;
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
