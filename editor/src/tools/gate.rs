//! Gates for dam breaks: dragging a box with the Gate tool adds a gate whose crest stands above
//! the highest ground in it, so it holds the water back until it opens (at a time, by the
//! preview's button, or by a game's trigger). Hit testing picks a gate to select.

use spillway::Level;
use spillway::level::{Gate, Shape};

use super::placement::contains;

/// Height of a new gate's crest above the highest ground it covers, metres.
pub const CREST_ABOVE_GROUND: f32 = 2.0;

/// The box a gate dragged from `a` to `b` covers: snapped outwards to whole cells of the map
/// (so the gate covers what the box touches) and kept on it (a box along the east or south
/// edge snapped to a cell past it, wholly off the map). What the drag's outline shows.
pub fn gate_box(level: &Level, a: [f32; 2], b: [f32; 2]) -> Shape {
    let cs = level.cell_size;
    let (w, h) = (level.nx() as f32 * cs, level.ny() as f32 * cs);
    let x0 = ((a[0].min(b[0]) / cs).floor() * cs).max(0.0).min(w - cs);
    let y0 = ((a[1].min(b[1]) / cs).floor() * cs).max(0.0).min(h - cs);
    let x1 = ((a[0].max(b[0]) / cs).ceil() * cs).min(w).max(x0 + cs);
    let y1 = ((a[1].max(b[1]) / cs).ceil() * cs).min(h).max(y0 + cs);
    Shape::Box { x0, y0, x1, y1 }
}

/// A new gate over the box from `(x0, y0)` to `(x1, y1)` (at least one cell wide), named
/// "Gate N" after the gates of `level`.
pub fn new_gate(level: &Level, x0: f32, y0: f32, x1: f32, y1: f32) -> Gate {
    let Shape::Box {
        x0: lo_x,
        y0: lo_y,
        x1: hi_x,
        y1: hi_y,
    } = gate_box(level, [x0, y0], [x1, y1])
    else {
        unreachable!("a gate's box is a box")
    };
    let (cs, nx, ny) = (level.cell_size, level.nx(), level.ny());
    let cell = |v: f32, n: usize| ((v / cs).max(0.0) as usize).min(n);
    let mut top = f32::NEG_INFINITY;
    for y in cell(lo_y, ny)..cell(hi_y, ny) {
        for x in cell(lo_x, nx)..cell(hi_x, nx) {
            top = top.max(level.terrain.get(x, y) + level.water.get(x, y));
        }
    }
    if !top.is_finite() {
        top = 0.0;
    }
    let taken: Vec<&str> = level.gates.iter().map(|g| g.name.as_str()).collect();
    let name = (1..)
        .map(|n| format!("Gate {n}"))
        .find(|n| !taken.contains(&n.as_str()))
        .unwrap_or_else(|| "Gate".into());
    Gate {
        name,
        shape: Shape::Box {
            x0: lo_x,
            y0: lo_y,
            x1: hi_x,
            y1: hi_y,
        },
        crest: ((top + CREST_ABOVE_GROUND) * 2.0).ceil() * 0.5,
        open_at: None,
    }
}

/// The last gate whose area contains world point `(x, y)` (within a cell).
pub fn hit_gate(level: &Level, x: f32, y: f32) -> Option<usize> {
    (0..level.gates.len())
        .rev()
        .find(|&i| contains(&level.gates[i].shape, x, y, level.cell_size))
}

/// "Gate 1 · crest 12.5 m · opens at 30 s".
pub fn gate_label(g: &Gate) -> String {
    match g.open_at {
        Some(t) => format!("{} · crest {:.1} m · opens at {t:.0} s", g.name, g.crest),
        None => format!("{} · crest {:.1} m", g.name, g.crest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spillway::Grid;

    #[test]
    fn a_new_gate_snaps_to_cells_and_stands_above_the_ground() {
        let mut level = Level::flat(20, 10, 2.0, 0.0);
        level.terrain = Grid::from_fn(20, 10, |x, _| x as f32 * 0.5);
        level.gates.push(new_gate(&level, 0.0, 0.0, 1.0, 1.0));
        let g = new_gate(&level, 10.5, 3.0, 13.0, 7.9);
        assert_eq!(g.name, "Gate 2");
        assert_eq!(
            g.shape,
            Shape::Box {
                x0: 10.0,
                y0: 2.0,
                x1: 14.0,
                y1: 8.0
            }
        );
        // Highest ground in the box: cell x = 6 at 3 m; crest 2 m above, on a half metre.
        assert_eq!(g.crest, 5.0);
        assert_eq!(hit_gate(&level, 12.0, 5.0), None);
        level.gates.push(g);
        assert_eq!(hit_gate(&level, 12.0, 5.0), Some(1));
        assert!(gate_label(&level.gates[1]).contains("crest 5.0 m"));
    }

    #[test]
    fn a_box_along_the_far_edges_makes_a_gate_on_the_map() {
        // Dragged along the last column and row: it snapped to the cell past the edge.
        let level = Level::flat(20, 10, 2.0, 1.0);
        let g = new_gate(&level, 40.0, 20.0, 40.0, 20.0);
        assert_eq!(
            g.shape,
            Shape::Box {
                x0: 38.0,
                y0: 18.0,
                x1: 40.0,
                y1: 20.0
            }
        );
        assert_eq!(g.crest, 3.0, "above the ground it stands on");
        let mut level = level;
        level.gates.push(g);
        assert!(level.validate(&spillway::level::Limits::default()).is_ok());
    }

    #[test]
    fn the_drags_outline_is_the_box_the_gate_takes() {
        // The outline followed the raw drag past the east edge; the gate placed stopped there.
        let level = Level::flat(20, 10, 2.0, 1.0);
        let (a, b) = ([30.5, 3.0], [55.0, 7.9]);
        let outline = gate_box(&level, a, b);
        assert_eq!(
            outline,
            Shape::Box {
                x0: 30.0,
                y0: 2.0,
                x1: 40.0,
                y1: 8.0
            }
        );
        assert_eq!(new_gate(&level, a[0], a[1], b[0], b[1]).shape, outline);
    }
}
