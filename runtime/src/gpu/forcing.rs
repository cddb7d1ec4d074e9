//! Sources and sinks on the GPU: the same rasterisation as the CPU solver (`sim::forcing`), a
//! patch table uploaded once per edit, and the owner of the forcing pass
//! (`shaders/forcing.wgsl`).

use crate::level::Level;
use crate::sim::forcing::patches;

use super::GpuError;
use super::kernel::{Bind, Kernel, dispatch};
use super::state::{Buffers, Config, GridUniform, SLOT_FORCING};

const SOURCE: &str = include_str!("../../shaders/forcing.wgsl");
/// `scheduled()`, shared with the structures pass.
pub(crate) const SCHEDULE: &str = include_str!("../../shaders/schedule.wgsl");

/// Words of a patch header in the patch table.
const HEADER: usize = 8;

/// The patch table: the schedules, cells and parameters of what the passes evaluate each
/// sub-step.
pub(crate) struct PatchTable {
    /// The words.
    pub words: Vec<u32>,
    /// Number of sources and sinks (their headers come first).
    pub patches: u32,
    /// Word offset of the structures (0: none; see [`super::structures::append`]).
    pub structures: u32,
    /// The names of the breaches, in order (a game starts one by name).
    pub breaches: Vec<String>,
    /// Word offset of the schedule of each scheduled edge segment, in the boundaries' order.
    pub edges: Vec<u32>,
}

/// The patch table of the enabled sources (first) and sinks of `level`: the CPU solver's
/// patches (`sim::forcing::patches`, so both solvers rasterise and order them alike), then the
/// level's structures, then the schedules of the scheduled segments among `boundaries`. A
/// scheduled patch's header points (word 7) at its schedule ([`push_schedule`]).
pub(crate) fn patch_table(
    level: &Level,
    boundaries: &[crate::level::Boundary],
    time_base: f64,
) -> PatchTable {
    let patches = patches(level);
    let mut table = vec![0u32; patches.len() * HEADER];
    for (p, patch) in patches.iter().enumerate() {
        let (surface, cap) = patch.level.unwrap_or((0.0, 0.0));
        let h = &mut table[p * HEADER..(p + 1) * HEADER];
        h[0] = 0; // offset, set below
        h[1] = patch.cells.len() as u32;
        h[2] = patch.level.is_some() as u32;
        h[3] = patch.adds as u32;
        h[4] = patch.rate.to_bits();
        h[5] = surface.to_bits();
        h[6] = cap.to_bits();
    }
    for (p, patch) in patches.iter().enumerate() {
        table[p * HEADER] = table.len() as u32;
        table.extend_from_slice(&patch.cells);
        if let Some(s) = &patch.schedule {
            table[p * HEADER + 7] = push_schedule(&mut table, s, time_base);
        }
    }
    let structures = super::structures::append(&mut table, level, time_base);
    let edges = crate::sim::boundary::edge_schedules(boundaries, level.nx(), level.ny())
        .iter()
        .map(|s| push_schedule(&mut table, &s.schedule, time_base))
        .collect();
    PatchTable {
        words: table,
        patches: patches.len() as u32,
        structures,
        breaches: level
            .structures
            .iter()
            .filter(|s| matches!(s.kind, crate::level::StructureKind::Breach { .. }))
            .map(|s| s.name.clone())
            .collect(),
        edges,
    }
}

/// Appends schedule `s` to `table` and returns its word offset: point count, period (0: none),
/// the simulation's start time as two `f32`s (the GPU's clock counts from it; of a repeating
/// schedule, wrapped by its period here in `f64`), then the points.
pub(crate) fn push_schedule(
    table: &mut Vec<u32>,
    s: &crate::level::Schedule,
    time_base: f64,
) -> u32 {
    let at = table.len() as u32;
    let period = s.period.filter(|p| *p > 0.0);
    // The GPU wraps the time in `f32`: a level saved at 1e8 s sampled a 12 s tide only at
    // whole 8 s (the CPU wraps in `f64`). Wrapped here, only the run's own clock is large.
    let base = period.map_or(time_base, |p| time_base.rem_euclid(p as f64));
    let base_hi = base as f32;
    let base_lo = (base - base_hi as f64) as f32;
    table.push(s.points.len() as u32);
    table.push(period.unwrap_or(0.0).to_bits());
    table.extend([base_hi.to_bits(), base_lo.to_bits()]);
    table.extend(
        s.points
            .iter()
            .flat_map(|[t, v]| [t.to_bits(), v.to_bits()]),
    );
    at
}

/// The forcing pass (one workgroup).
pub(crate) struct ForcingPass {
    kernel: Kernel,
    group: wgpu::BindGroup,
}

impl ForcingPass {
    /// Compiles the pass for `config` and binds it to `bufs`.
    pub fn new(device: &wgpu::Device, config: &Config, bufs: &Buffers) -> Result<Self, GpuError> {
        let rw = Bind::ReadWrite;
        let binds = [Bind::Uniform, rw, Bind::Read, rw, rw, Bind::Read, rw];
        let source = format!("{SCHEDULE}{}{SOURCE}", super::quiet::shader(config, true));
        let kernel = Kernel::new(device, "forcing", &source, config, &binds, &["main"])?;
        let group = Self::bind(&kernel, device, bufs);
        Ok(Self { kernel, group })
    }

    fn bind(kernel: &Kernel, device: &wgpu::Device, b: &Buffers) -> wgpu::BindGroup {
        kernel.bind(
            device,
            "forcing",
            &[
                &b.grid, &b.aux, &b.terrain, &b.depth, &b.carry, &b.patches, &b.ledger,
            ],
        )
    }

    /// Rebinds after buffers were replaced.
    pub fn rebind(&mut self, device: &wgpu::Device, bufs: &Buffers) {
        self.group = Self::bind(&self.kernel, device, bufs);
    }

    /// Records the pass (runs only while a sub-step is open).
    pub fn encode(&self, pass: &mut wgpu::ComputePass<'_>, grid: &GridUniform) {
        dispatch(
            pass,
            &self.kernel.pipelines[0],
            &self.group,
            grid.groups[SLOT_FORCING],
        );
    }
}
