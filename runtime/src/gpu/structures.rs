//! Culverts, weirs and sluice gates on the GPU: their table, appended to the patch table from
//! the CPU solver's rasterisation (`sim::structures`), and the owner of the structures pass
//! (`shaders/structures.wgsl`).

use crate::level::Level;
use crate::sim::structures::{Law, Structures};

use super::GpuError;
use super::forcing::{SCHEDULE, push_schedule};
use super::kernel::{Bind, Kernel};
use super::state::{Buffers, Config};

const SOURCE: &str = include_str!("../../shaders/structures.wgsl");

/// Appends the structures of `level` to the patch table `table` and returns their word offset
/// (0 when the level has none): face count, culvert count, 8 words per weir or gate face, 4 per
/// culvert, then the gates' opening schedules.
pub(crate) fn append(table: &mut Vec<u32>, level: &Level, time_base: f64) -> u32 {
    let s = Structures::new(level);
    if s.is_empty() {
        return 0;
    }
    if table.is_empty() {
        // Offset 0 means "none": start after one spare word.
        table.push(0);
    }
    let at = table.len();
    table.extend([s.faces.len() as u32, s.pipes.len() as u32]);
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
    for (word, schedule) in schedules {
        table[word] = push_schedule(table, &schedule, time_base);
    }
    at as u32
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
        let binds = [Bind::Uniform, rw, Bind::Read, rw, rw, rw, Bind::Read, rw];
        let source = format!("{SCHEDULE}{SOURCE}");
        let kernel = Kernel::new(device, "structures", &source, config, &binds, &["main"])?;
        let group = Self::bind(&kernel, device, bufs);
        Ok(Self { kernel, group })
    }

    fn bind(kernel: &Kernel, device: &wgpu::Device, b: &Buffers) -> wgpu::BindGroup {
        kernel.bind(
            device,
            "structures",
            &[
                &b.grid, &b.aux, &b.terrain, &b.depth, &b.qx, &b.qy, &b.patches, &b.ledger,
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
}
