//! Culverts, weirs and sluice gates on the GPU: their table, appended to the patch table from
//! the CPU solver's rasterisation (`sim::structures`), and the owner of the structures pass
//! (`shaders/structures.wgsl`).

use crate::level::{BreachGrowth, BreachStart, Level};
use crate::sim::structures::{Law, Structures};

use super::GpuError;
use super::forcing::{SCHEDULE, push_schedule};
use super::kernel::{Bind, Kernel};
use super::state::{Buffers, Config};

const SOURCE: &str = include_str!("../../shaders/structures.wgsl");

/// Words of a breach's record.
const CUT: usize = 12;

/// Appends the structures of `level` to the patch table `table` and returns their word offset
/// (0 when the level has none): an 8-word header (face, culvert and breach counts, the start
/// time as two `f32`s), 8 words per weir or gate face, 4 per culvert, 12 per breach, then the
/// gates' opening schedules and the breaches' cells (cell, ground, distance from the
/// centreline).
pub(crate) fn append(table: &mut Vec<u32>, level: &Level, time_base: f64) -> u32 {
    let s = Structures::new(level);
    if s.is_empty() && s.cuts.is_empty() {
        return 0;
    }
    if table.is_empty() {
        // Offset 0 means "none": start after one spare word.
        table.push(0);
    }
    let at = table.len();
    let base_hi = time_base as f32;
    let base_lo = (time_base - base_hi as f64) as f32;
    table.extend([
        s.faces.len() as u32,
        s.pipes.len() as u32,
        s.cuts.len() as u32,
        base_hi.to_bits(),
        base_lo.to_bits(),
        0,
        0,
        0,
    ]);
    let mut schedules = Vec::new();
    for f in &s.faces {
        let (gate, level, coef) = match &f.law {
            Law::Weir { crest, coefficient } => (false, *crest, *coefficient),
            Law::Gate {
                sill,
                opening,
                contraction,
            } => {
                schedules.push((table.len() + 7, opening.clone()));
                (true, *sill, *contraction)
            }
        };
        table.extend([
            f.y as u32 | (gate as u32) << 1,
            f.face,
            f.cells[0],
            f.cells[1],
            f.width.to_bits(),
            level.to_bits(),
            coef.to_bits(),
            0,
        ]);
    }
    for p in &s.pipes {
        table.extend([p.ends[0], p.ends[1], p.diameter.to_bits(), p.loss.to_bits()]);
    }
    let cuts_at = table.len();
    for c in &s.cuts {
        let (start, start_value) = match c.start {
            BreachStart::At(t) => (0, t),
            BreachStart::Trigger => (1, 0.0),
            BreachStart::Overtopping(d) => (2, d),
        };
        let (growth, growth_value) = match c.growth {
            BreachGrowth::Steady(t) => (0, t),
            BreachGrowth::Erosion(r) => (1, r),
        };
        table.extend([
            c.upstream,
            c.crest.to_bits(),
            c.bottom.to_bits(),
            c.width.to_bits(),
            c.side_slope.to_bits(),
            start,
            start_value.to_bits(),
            growth,
            growth_value.to_bits(),
            0, // cell offset, set below
            c.cells.len() as u32,
            0,
        ]);
    }
    for (word, schedule) in schedules {
        table[word] = push_schedule(table, &schedule, time_base);
    }
    for (k, c) in s.cuts.iter().enumerate() {
        table[cuts_at + k * CUT + 9] = table.len() as u32;
        for &(cell, ground, distance) in &c.cells {
            table.extend([cell, ground.to_bits(), distance.to_bits()]);
        }
    }
    at as u32
}

/// The breaches' state words of `level`: per breach, whether it has started and how far it has
/// opened (`f32` bits), room for as many as a level may have.
pub(crate) fn breach_words(level: &Level) -> Vec<u32> {
    let mut words = vec![0u32; 2 * crate::level::structure::MAX_STRUCTURES];
    let cuts = crate::sim::structures::Structures::new(level).cuts;
    for (k, c) in cuts.iter().enumerate() {
        words[2 * k] = c.started as u32;
        words[2 * k + 1] = c.progress.to_bits();
    }
    words
}

/// The structures pass (one thread: structures are few, and their order is the CPU's).
pub(crate) struct StructuresPass {
    kernel: Kernel,
    group: wgpu::BindGroup,
}

impl StructuresPass {
    /// Compiles the pass for `config` and binds it to `bufs`.
    pub fn new(device: &wgpu::Device, config: &Config, bufs: &Buffers) -> Result<Self, GpuError> {
        let rw = Bind::ReadWrite;
        let binds = [Bind::Uniform, rw, rw, rw, rw, rw, Bind::Read, rw, rw];
        let source = format!("{SCHEDULE}{SOURCE}");
        let kernel = Kernel::new(
            device,
            "structures",
            &source,
            config,
            &binds,
            &["main", "breach"],
        )?;
        let group = Self::bind(&kernel, device, bufs);
        Ok(Self { kernel, group })
    }

    fn bind(kernel: &Kernel, device: &wgpu::Device, b: &Buffers) -> wgpu::BindGroup {
        kernel.bind(
            device,
            "structures",
            &[
                &b.grid,
                &b.aux,
                &b.terrain,
                &b.depth,
                &b.qx,
                &b.qy,
                &b.patches,
                &b.ledger,
                &b.breaches,
            ],
        )
    }

    /// Rebinds after buffers were replaced.
    pub fn rebind(&mut self, device: &wgpu::Device, bufs: &Buffers) {
        self.group = Self::bind(&self.kernel, device, bufs);
    }

    /// Records the pass (runs only while a sub-step is open).
    pub fn encode(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(&self.kernel.pipelines[0]);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }

    /// Records the breaches' opening, at the start of a sub-step.
    pub fn encode_breaches(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(&self.kernel.pipelines[1]);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
}
