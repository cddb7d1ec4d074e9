//! Edge conditions on the GPU: the per-edge-cell table built exactly as `sim::boundary::Edges`
//! builds its conditions, and the owner of the edge pass (`shaders/edges.wgsl`).

use bytemuck::{Pod, Zeroable};

use crate::level::{BoundaryKind, Edge, Level};

use super::GpuError;
use super::kernel::{Bind, Kernel, dispatch};
use super::state::{Buffers, Config, GridUniform, SLOT_EDGES};

const SOURCE: &str = include_str!("../../shaders/edges.wgsl");

/// Threads per workgroup of the edge pass (one per perimeter cell).
pub(crate) const EDGE_GROUP: u32 = 256;

/// `struct EdgeCell` of edges.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct EdgeCell {
    /// 0 wall, 1 open, 2 fixed level, 3 inflow.
    pub kind: u32,
    /// Fixed surface, or inflow per cell (m³/s).
    pub value: f32,
    /// Ghost surface of an open edge.
    pub ghost: f32,
    /// Whether the ghost restarts at the current surface.
    pub reset: u32,
}

/// Flag on `EdgeCell::kind`: the value is the word offset of a schedule in the patch table.
pub(crate) const SCHEDULED: u32 = 0x100;

/// The kind and value of a segment's cells; `schedule` is the offset of its schedule in the
/// patch table for a scheduled segment.
fn condition(kind: &BoundaryKind, cells_in_segment: usize, schedule: u32) -> (u32, f32) {
    match kind {
        BoundaryKind::Wall => (0, 0.0),
        BoundaryKind::Open => (1, 0.0),
        BoundaryKind::FixedLevel { surface } => (2, *surface),
        BoundaryKind::Inflow { m3_per_s } => (3, *m3_per_s / cells_in_segment as f32),
        BoundaryKind::Tide(_) => (2 | SCHEDULED, f32::from_bits(schedule)),
        BoundaryKind::Hydrograph(_) => (3 | SCHEDULED, f32::from_bits(schedule)),
    }
}

fn edge_index(e: Edge) -> usize {
    match e {
        Edge::West => 0,
        Edge::East => 1,
        Edge::North => 2,
        Edge::South => 3,
    }
}

/// The conditions of every perimeter cell (West, East, North, South) of `level`, with `default`
/// for cells no segment covers; ghosts are left at zero. `schedules` holds the patch table
/// offsets of the scheduled segments' schedules, in order ([`super::forcing::PatchTable`]).
pub(crate) fn conditions(
    level: &Level,
    default: &BoundaryKind,
    schedules: &[u32],
) -> Vec<EdgeCell> {
    let (nx, ny) = (level.nx(), level.ny());
    let lens = [ny, ny, nx, nx];
    let (dk, dv) = condition(default, 1, 0);
    let mut scheduled = schedules.iter();
    let mut cells: [Vec<EdgeCell>; 4] = lens.map(|n| {
        vec![
            EdgeCell {
                kind: dk,
                value: dv,
                ..Default::default()
            };
            n
        ]
    });
    for b in &level.boundaries {
        let e = edge_index(b.edge);
        let end = (b.end as usize).min(lens[e]);
        let start = (b.start as usize).min(end);
        let at = match b.kind {
            BoundaryKind::Tide(_) | BoundaryKind::Hydrograph(_) => {
                scheduled.next().copied().unwrap_or(0)
            }
            _ => 0,
        };
        let (kind, value) = condition(&b.kind, end - start, at);
        for cell in &mut cells[e][start..end] {
            cell.kind = kind;
            cell.value = value;
        }
    }
    cells.into_iter().flatten().collect()
}

/// The grid cell of perimeter element `p`.
pub(crate) fn perimeter_cell(p: usize, nx: usize, ny: usize) -> usize {
    if p < ny {
        p * nx
    } else if p < 2 * ny {
        (p - ny) * nx + nx - 1
    } else if p < 2 * ny + nx {
        p - 2 * ny
    } else {
        (ny - 1) * nx + p - 2 * ny - nx
    }
}

/// The edge pass.
pub(crate) struct EdgePass {
    kernel: Kernel,
    group: wgpu::BindGroup,
}

impl EdgePass {
    /// Compiles the pass for `config` and binds it to `bufs`.
    pub fn new(device: &wgpu::Device, config: &Config, bufs: &Buffers) -> Result<Self, GpuError> {
        let (r, rw) = (Bind::Read, Bind::ReadWrite);
        let binds = [Bind::Uniform, rw, r, r, r, r, rw, rw, r];
        let source = format!("{}{SOURCE}", super::forcing::SCHEDULE);
        let kernel = Kernel::new(
            device,
            "edges",
            &source,
            config,
            &binds,
            &["accelerate", "finish", "reset_ghosts"],
        )?;
        let group = Self::bind(&kernel, device, bufs);
        Ok(Self { kernel, group })
    }

    fn bind(kernel: &Kernel, device: &wgpu::Device, b: &Buffers) -> wgpu::BindGroup {
        kernel.bind(
            device,
            "edges",
            &[
                &b.grid, &b.aux, &b.terrain, &b.depth, &b.qx, &b.qy, &b.edges, &b.ledger,
                &b.patches,
            ],
        )
    }

    /// Rebinds after buffers were replaced.
    pub fn rebind(&mut self, device: &wgpu::Device, bufs: &Buffers) {
        self.group = Self::bind(&self.kernel, device, bufs);
    }

    /// Records the border-face acceleration (before the flow pass).
    pub fn encode_accelerate(&self, pass: &mut wgpu::ComputePass<'_>, grid: &GridUniform) {
        dispatch(
            pass,
            &self.kernel.pipelines[0],
            &self.group,
            grid.groups[SLOT_EDGES],
        );
    }

    /// Records the ghost relaxation and edge ledger (after the flow pass).
    pub fn encode_finish(&self, pass: &mut wgpu::ComputePass<'_>, grid: &GridUniform) {
        dispatch(
            pass,
            &self.kernel.pipelines[1],
            &self.group,
            grid.groups[SLOT_EDGES],
        );
    }

    /// Records the restart of flagged ghosts at the current surface (`groups` workgroups).
    pub fn encode_reset_ghosts(&self, pass: &mut wgpu::ComputePass<'_>, groups: u32) {
        pass.set_pipeline(&self.kernel.pipelines[2]);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups(groups, 1, 1);
    }
}
