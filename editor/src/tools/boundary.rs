//! Boundary painting: an [`EdgeStroke`] gives the edge cells a drag passes along one map edge a
//! [`BoundaryKind`], splitting and merging the level's [`Boundary`] segments so each edge stays
//! covered by non-overlapping, maximal runs. Cells no segment covers keep the level's default.

use spillway::Level;
use spillway::level::{Boundary, BoundaryKind, Edge};

use crate::document::{Change, Document, EditFeatures, Features, Part};

/// Least distance from an edge, in cells, at which a drag still starts painting it.
pub const REACH_CELLS: f32 = 4.0;
/// Share of the level's shorter side within which a drag starts painting the nearest edge.
pub const REACH_SHARE: f32 = 0.04;

/// A short name of a boundary kind, for labels and the legend.
pub fn kind_name(kind: &BoundaryKind) -> &'static str {
    match kind {
        BoundaryKind::Wall => "Wall",
        BoundaryKind::Open => "Open",
        BoundaryKind::FixedLevel { .. } => "Fixed level",
        BoundaryKind::Inflow { .. } => "Inflow",
        BoundaryKind::Tide(_) => "Tide",
        BoundaryKind::Hydrograph(_) => "Inflow hydrograph",
    }
}

/// A short name of an edge.
pub fn edge_name(edge: Edge) -> &'static str {
    match edge {
        Edge::West => "west",
        Edge::East => "east",
        Edge::North => "north",
        Edge::South => "south",
    }
}

/// Number of cells along `edge` of `level`.
pub fn edge_length(level: &Level, edge: Edge) -> usize {
    match edge {
        Edge::West | Edge::East => level.ny(),
        Edge::North | Edge::South => level.nx(),
    }
}

/// How far from an edge, in metres, a drag may start to paint it.
pub fn reach(level: &Level) -> f32 {
    let short = level.nx().min(level.ny()) as f32 * level.cell_size;
    (REACH_CELLS * level.cell_size).max(short * REACH_SHARE)
}

/// The edge nearest world point `(x, y)` and the distance to it, metres.
pub fn nearest_edge(level: &Level, x: f32, y: f32) -> (Edge, f32) {
    let w = level.nx() as f32 * level.cell_size;
    let h = level.ny() as f32 * level.cell_size;
    [
        (Edge::West, x),
        (Edge::East, w - x),
        (Edge::North, y),
        (Edge::South, h - y),
    ]
    .into_iter()
    .fold((Edge::West, f32::INFINITY), |best, (e, d)| {
        if d.abs() < best.1 { (e, d.abs()) } else { best }
    })
}

/// The cell along `edge` beside world point `(x, y)`, clamped to the edge.
pub fn edge_cell(level: &Level, edge: Edge, x: f32, y: f32) -> u32 {
    let along = match edge {
        Edge::West | Edge::East => y,
        Edge::North | Edge::South => x,
    };
    let last = edge_length(level, edge).saturating_sub(1);
    let cell = (along / level.cell_size).floor();
    if cell.is_nan() {
        return 0;
    }
    cell.clamp(0.0, last as f32) as u32
}

/// The kind each cell of `edge` (`len` cells) has from `boundaries`: `None` where the level's
/// default applies. Later segments win where segments overlap. Borrowed, not copied: drawn
/// every frame, a hydrograph's thousands of points were copied into every cell of its edge.
pub fn edge_cells(boundaries: &[Boundary], edge: Edge, len: usize) -> Vec<Option<&BoundaryKind>> {
    let mut cells = vec![None; len];
    for b in boundaries.iter().filter(|b| b.edge == edge) {
        let end = (b.end as usize).min(len);
        for cell in cells.iter_mut().take(end).skip(b.start as usize) {
            *cell = Some(&b.kind);
        }
    }
    cells
}

/// Whether two cells of [`edge_cells`] have one kind: the same segment's (compared by
/// address, at once) or equal ones.
pub fn same_kind(a: Option<&BoundaryKind>, b: Option<&BoundaryKind>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => std::ptr::eq(a, b) || a == b,
        (None, None) => true,
        _ => false,
    }
}

/// Gives cells `start..end` of `edge` (`len` cells long) the boundary `kind`. The edge's
/// segments are rebuilt as maximal runs of equal kinds; other edges' segments stay as they
/// are, and segments are ordered by edge, then by start. A discharge (an inflow or a
/// hydrograph) is a segment's whole: a segment cut by the paint keeps, in each piece left, its
/// share of the discharge by cells, and pieces of different segments (or the painted stretch)
/// stay apart even where their kinds are equal.
pub fn paint(
    boundaries: &mut Vec<Boundary>,
    edge: Edge,
    len: usize,
    start: u32,
    end: u32,
    kind: &BoundaryKind,
) {
    // Each cell's segment (`PAINTED`: the painted stretch): an index, not a copy of its kind
    // (a tide of 4096 points along an 8192-cell edge was copied into every cell, and twice
    // more for every comparison, at each frame of a drag: gigabytes).
    const PAINTED: usize = usize::MAX;
    let mut origin: Vec<Option<usize>> = vec![None; len];
    let mut lengths = Vec::new();
    for (k, b) in boundaries
        .iter()
        .enumerate()
        .filter(|(_, b)| b.edge == edge)
    {
        let stop = (b.end as usize).min(len);
        for cell in origin.iter_mut().take(stop).skip(b.start as usize) {
            *cell = Some(k);
        }
        lengths.push((k, stop.saturating_sub(b.start as usize)));
    }
    let end = (end as usize).min(len);
    for cell in origin.iter_mut().take(end).skip(start as usize) {
        *cell = Some(PAINTED);
    }
    let kind_of = |o: usize| {
        if o == PAINTED {
            kind
        } else {
            &boundaries[o].kind
        }
    };
    // Whether two cells are one run: from the same segment, or of equal kinds; only a
    // discharge keeps its pieces apart by origin.
    let joins = |a: Option<usize>, b: Option<usize>| match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a == b || (!discharge(kind_of(a)) && kind_of(a) == kind_of(b)),
        _ => false,
    };
    let mut runs = Vec::new();
    let mut run_start = 0;
    for i in 1..=len {
        // Against the cell before (equality is transitive): kinds are compared only where
        // segments meet.
        if i == len || !joins(origin[i], origin[i - 1]) {
            if let Some(from) = origin[run_start] {
                let whole = (lengths.iter().find(|(k, _)| *k == from)).map_or(0, |(_, n)| *n);
                let share = (i - run_start) as f32 / whole.max(1) as f32;
                runs.push(Boundary {
                    edge,
                    start: run_start as u32,
                    end: i as u32,
                    kind: if from != PAINTED && share < 1.0 {
                        scaled(kind_of(from), share)
                    } else {
                        kind_of(from).clone()
                    },
                });
            }
            run_start = i;
        }
    }
    boundaries.retain(|b| b.edge != edge);
    boundaries.extend(runs);
    let order = |e: Edge| Edge::ALL.iter().position(|x| *x == e).unwrap_or(0);
    boundaries.sort_by_key(|b| (order(b.edge), b.start));
}

/// Whether `kind` sets a discharge through its whole segment.
fn discharge(kind: &BoundaryKind) -> bool {
    matches!(
        kind,
        BoundaryKind::Inflow { .. } | BoundaryKind::Hydrograph(_)
    )
}

/// `kind` with its discharge times `share` (other kinds as they are).
fn scaled(kind: &BoundaryKind, share: f32) -> BoundaryKind {
    match kind {
        BoundaryKind::Inflow { m3_per_s } => BoundaryKind::Inflow {
            m3_per_s: m3_per_s * share,
        },
        BoundaryKind::Hydrograph(s) => {
            let mut s = s.clone();
            s.points.iter_mut().for_each(|p| p[1] *= share);
            BoundaryKind::Hydrograph(s)
        }
        other => other.clone(),
    }
}

/// One drag of the Boundary tool: locked to the edge nearest where it started, it paints every
/// edge cell between successive cursor positions, live, and on release becomes one command.
#[derive(Debug)]
pub struct EdgeStroke {
    edge: Edge,
    kind: BoundaryKind,
    last: u32,
    /// The cells painted so far, `lo..=hi` (a drag paints between successive positions, so
    /// they are one stretch).
    covered: (u32, u32),
    before: Features,
}

impl EdgeStroke {
    /// Starts painting `kind` at world point `(x, y)`, if it lies within [`reach`] of an edge.
    pub fn begin(document: &mut Document, mut kind: BoundaryKind, x: f32, y: f32) -> Option<Self> {
        // A time typed out of order in the tool's schedule, its field still focused: painted
        // as it was, the level would not save.
        if let Some(s) = crate::document::features::boundary_schedule(&mut kind) {
            crate::document::features::in_time_order(s);
        }
        let level = document.level();
        let (edge, distance) = nearest_edge(level, x, y);
        if distance > reach(level) {
            return None;
        }
        let cell = edge_cell(level, edge, x, y);
        let mut stroke = Self {
            edge,
            kind,
            last: cell,
            covered: (cell, cell),
            before: Features::of(level),
        };
        stroke.paint_cells(document, cell, cell);
        Some(stroke)
    }

    /// The edge being painted.
    pub fn edge(&self) -> Edge {
        self.edge
    }

    /// Moves the cursor to world point `(x, y)`: paints the edge cells from the last position
    /// to the one beside this point.
    pub fn drag_to(&mut self, document: &mut Document, x: f32, y: f32) {
        if !(x.is_finite() && y.is_finite()) {
            return;
        }
        let cell = edge_cell(document.level(), self.edge, x, y);
        if cell != self.last {
            self.paint_cells(document, self.last.min(cell), self.last.max(cell));
            self.last = cell;
        }
    }

    /// Paints cells `a..=b` too: the whole stretch covered so far is painted afresh over the
    /// boundaries as they were before the drag, as one stretch (one discharge).
    fn paint_cells(&mut self, document: &mut Document, a: u32, b: u32) {
        self.covered = (self.covered.0.min(a), self.covered.1.max(b));
        let len = edge_length(document.level(), self.edge);
        let level = document.stroke_level();
        level.boundaries.clone_from(&self.before.boundaries);
        let (lo, hi) = self.covered;
        paint(
            &mut level.boundaries,
            self.edge,
            len,
            lo,
            hi + 1,
            &self.kind,
        );
        document.note_change(&Change::Features);
    }

    /// Ends the drag: records what it painted as one undoable command. Returns whether
    /// anything changed.
    pub fn finish(self, document: &mut Document) -> bool {
        let after = Features::of(document.level());
        let label = format!("Paint {} boundary", kind_name(&self.kind).to_lowercase());
        let edit = EditFeatures::new(label, self.before, after);
        if edit.is_empty() {
            document.end_live_edit();
            false
        } else {
            document.push_applied(Box::new(edit));
            true
        }
    }

    /// Abandons the drag, putting the boundaries back as they were.
    pub fn cancel(self, document: &mut Document) {
        self.before.write(document.stroke_level());
        document.note_change(&Change::Features);
        document.end_live_edit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(edge: Edge, start: u32, end: u32, kind: BoundaryKind) -> Boundary {
        Boundary {
            edge,
            start,
            end,
            kind,
        }
    }

    #[test]
    fn an_edges_cells_borrow_their_segments_kinds() {
        let hydrograph = BoundaryKind::Hydrograph(spillway::level::Schedule {
            points: (0..4096).map(|k| [k as f32, 1.0]).collect(),
            period: None,
        });
        let b = vec![
            seg(Edge::West, 0, 4, hydrograph.clone()),
            seg(Edge::West, 4, 8, hydrograph),
            seg(Edge::West, 8, 10, BoundaryKind::Open),
        ];
        let cells = edge_cells(&b, Edge::West, 12);
        assert!(std::ptr::eq(cells[0].unwrap(), &b[0].kind));
        assert!(same_kind(cells[0], cells[3]) && same_kind(cells[0], cells[5]));
        assert!(!same_kind(cells[7], cells[8]) && !same_kind(cells[9], cells[10]));
        assert!(same_kind(cells[10], cells[11]));
    }

    #[test]
    fn a_discharge_cut_by_paint_keeps_its_share_and_painted_ones_stay_apart() {
        // Wall over the middle of a 10 m³/s inflow 10 cells long: 4 + 4 cells of it are left,
        // 4 m³/s each (it gave 10 each: 20 in all).
        let inflow = |q: f32| BoundaryKind::Inflow { m3_per_s: q };
        let mut b = vec![seg(Edge::West, 0, 10, inflow(10.0))];
        paint(&mut b, Edge::West, 40, 4, 6, &BoundaryKind::Wall);
        assert_eq!(
            b,
            vec![
                seg(Edge::West, 0, 4, inflow(4.0)),
                seg(Edge::West, 4, 6, BoundaryKind::Wall),
                seg(Edge::West, 6, 10, inflow(4.0)),
            ]
        );
        // A second stretch of 10 m³/s beside the first is 10 m³/s of its own (merged, both
        // gave 10 together).
        let mut b = vec![seg(Edge::West, 0, 10, inflow(10.0))];
        paint(&mut b, Edge::West, 40, 10, 20, &inflow(10.0));
        assert_eq!(
            b,
            vec![
                seg(Edge::West, 0, 10, inflow(10.0)),
                seg(Edge::West, 10, 20, inflow(10.0))
            ]
        );
    }

    #[test]
    fn a_wall_painted_into_a_long_tide_cuts_it_in_two_pieces_of_the_same_tide() {
        // Each cell held a copy of the tide (4096 points), and each comparison two more.
        let tide = BoundaryKind::Tide(spillway::level::Schedule {
            points: (0..4096).map(|k| [k as f32, (k % 7) as f32]).collect(),
            period: None,
        });
        let mut b = vec![seg(Edge::North, 0, 8192, tide.clone())];
        paint(&mut b, Edge::North, 8192, 10, 12, &BoundaryKind::Wall);
        assert_eq!(
            b,
            vec![
                seg(Edge::North, 0, 10, tide.clone()),
                seg(Edge::North, 10, 12, BoundaryKind::Wall),
                seg(Edge::North, 12, 8192, tide.clone()),
            ]
        );
        // Painted back, the pieces join again.
        paint(&mut b, Edge::North, 8192, 10, 12, &tide);
        assert_eq!(b, vec![seg(Edge::North, 0, 8192, tide)]);
    }

    #[test]
    fn painting_splits_and_merges_segments() {
        let mut b = vec![seg(Edge::East, 0, 5, BoundaryKind::Open)];
        paint(&mut b, Edge::South, 100, 10, 40, &BoundaryKind::Wall);
        paint(&mut b, Edge::South, 100, 20, 25, &BoundaryKind::Open);
        assert_eq!(
            b,
            vec![
                seg(Edge::East, 0, 5, BoundaryKind::Open),
                seg(Edge::South, 10, 20, BoundaryKind::Wall),
                seg(Edge::South, 20, 25, BoundaryKind::Open),
                seg(Edge::South, 25, 40, BoundaryKind::Wall),
            ]
        );
        paint(&mut b, Edge::South, 100, 15, 30, &BoundaryKind::Wall);
        assert_eq!(b[1], seg(Edge::South, 10, 40, BoundaryKind::Wall));
        assert_eq!(b.len(), 2);
        paint(&mut b, Edge::South, 100, 90, 200, &BoundaryKind::Open);
        assert_eq!(b[2], seg(Edge::South, 90, 100, BoundaryKind::Open));
    }

    #[test]
    fn a_drag_paints_along_the_edge_where_it_started() {
        let mut doc = Document::new(Level::flat(50, 40, 2.0, 0.0), None);
        assert!(EdgeStroke::begin(&mut doc, BoundaryKind::Open, 50.0, 40.0).is_none());
        let mut s = EdgeStroke::begin(&mut doc, BoundaryKind::Open, 21.0, 78.5).expect("near");
        assert_eq!(s.edge(), Edge::South);
        s.drag_to(&mut doc, 41.0, 60.0);
        s.drag_to(&mut doc, 31.0, 79.0);
        assert!(s.finish(&mut doc));
        assert_eq!(
            doc.level().boundaries,
            vec![seg(Edge::South, 10, 21, BoundaryKind::Open)]
        );
        assert_eq!(doc.history().undo_label(), Some("Paint open boundary"));
        assert!(doc.undo());
        assert!(doc.level().boundaries.is_empty());
    }
}
