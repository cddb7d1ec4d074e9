//! Incremental edits of a running `GpuSimulation`: terrain and water rectangles, parameters,
//! sources and sinks, and edge conditions. Each takes effect at the next step, without a reset
//! and without a full-grid upload.

use wgpu::util::DeviceExt;

use crate::level::{Level, Params, SolverKind};

use super::GpuError;
use super::edges::{EDGE_GROUP, EdgeCell, SCHEDULED, conditions};
use super::forcing::patch_table;
use super::kernel::captured;
use super::passes::Passes;
use super::region::Target;
use super::sim::{GpuSimulation, TABLE_OFFSET};
use super::state::{CONTROL_BYTES, Config, STATE, TABLE_BYTES, init, step_table, zeroed};

/// Byte offset of `Control.max_speed` in the `aux` buffer.
const MAX_SPEED_OFFSET: u64 = 44;

impl GpuSimulation {
    pub(crate) fn upload_rect(
        &mut self,
        target: Target,
        x0: usize,
        y0: usize,
        w: usize,
        h: usize,
        data: &[f32],
    ) -> Result<(), GpuError> {
        if w == 0 || h == 0 {
            return Ok(());
        }
        self.stir();
        self.check_rect(x0, y0, w, h, data.len())?;
        let device = &self.ctx.device;
        let rect = [x0 as u32, y0 as u32, w as u32, h as u32];
        self.ctx
            .queue
            .write_buffer(&self.bufs.rect, 0, bytemuck::cast_slice(&rect));
        let src = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("region upload"),
            contents: bytemuck::cast_slice(data),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        self.passes.region.encode(
            device,
            &mut encoder,
            &self.bufs,
            &src,
            target,
            (w as u32, h as u32),
        );
        self.ctx.queue.submit([encoder.finish()]);
        self.check_device()
    }

    /// Whether a `w × h` rectangle at cell `(x0, y0)` fits the grid and `values` fill it.
    fn check_rect(
        &self,
        x0: usize,
        y0: usize,
        w: usize,
        h: usize,
        values: usize,
    ) -> Result<(), GpuError> {
        let fits = x0.checked_add(w).is_some_and(|x1| x1 <= self.nx)
            && y0.checked_add(h).is_some_and(|y1| y1 <= self.ny);
        if !fits {
            return Err(GpuError::BadInput(format!(
                "region {w}×{h} at ({x0}, {y0}) does not fit the {}×{} grid",
                self.nx, self.ny
            )));
        }
        if Some(values) != w.checked_mul(h) {
            return Err(GpuError::BadInput(format!(
                "region {w}×{h} needs {} values, got {values}",
                w.saturating_mul(h)
            )));
        }
        Ok(())
    }

    /// Replaces the terrain of the `w × h` rectangle at cell `(x0, y0)` with `data` (row-major).
    /// A rectangle that does not fit, or values that do not fill it, are refused and nothing
    /// changes (the gates' ground either).
    pub fn update_terrain_region(
        &mut self,
        x0: usize,
        y0: usize,
        w: usize,
        h: usize,
        data: &[f32],
    ) -> Result<(), GpuError> {
        self.drop_requested_cells();
        if w == 0 || h == 0 {
            return Ok(());
        }
        self.check_rect(x0, y0, w, h, data.len())?;
        if self.gates.0.is_empty() {
            self.upload_rect(Target::Terrain, x0, y0, w, h, data)?;
        } else {
            let mut data = data.to_vec();
            self.gate_terrain(x0, y0, w, &mut data);
            self.upload_rect(Target::Terrain, x0, y0, w, h, &data)?;
        }
        self.restart_ghosts_in(x0, y0, w, h)
    }

    /// Open edge cells in the `w × h` rectangle at `(x0, y0)` start their ghost again at their
    /// surface: one standing at the old ground (2 m over ground lowered to 0) drew water in
    /// from outside, 520 m³ into a dry map.
    fn restart_ghosts_in(
        &mut self,
        x0: usize,
        y0: usize,
        w: usize,
        h: usize,
    ) -> Result<(), GpuError> {
        let (nx, ny) = (self.nx, self.ny);
        let mut any = false;
        for (p, cell) in self.edge_cells.iter().enumerate() {
            let k = super::edges::perimeter_cell(p, nx, ny);
            let (i, j) = (k % nx, k / nx);
            if cell.kind != 1 || !(x0..x0 + w).contains(&i) || !(y0..y0 + h).contains(&j) {
                continue;
            }
            let restart = EdgeCell { reset: 1, ..*cell };
            (self.ctx.queue).write_buffer(
                &self.bufs.edges,
                16 * p as u64,
                bytemuck::bytes_of(&restart),
            );
            any = true;
        }
        if any {
            let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                let groups = (self.edge_cells.len() as u32).div_ceil(EDGE_GROUP);
                self.passes.edges.encode_reset_ghosts(&mut pass, groups);
            }
            self.ctx.queue.submit([encoder.finish()]);
        }
        self.check_device()
    }

    /// Replaces the water depth of the `w × h` rectangle at cell `(x0, y0)` with `data`
    /// (negative depths count as dry); flows are kept. Water painted in counts as inflow, water
    /// painted out as outflow, so the balance error stays meaningful.
    pub fn update_water_region(
        &mut self,
        x0: usize,
        y0: usize,
        w: usize,
        h: usize,
        data: &[f32],
    ) -> Result<(), GpuError> {
        self.drop_requested_cells();
        self.upload_rect(Target::Water, x0, y0, w, h, data)
    }

    /// Compiles every pass for `config` (and the fused flow pass's fold of the maps, where they
    /// are kept), and tells the control pass the pair pass's strips.
    pub(crate) fn rebuild_passes(&mut self, config: Config) -> Result<(), GpuError> {
        let device = self.ctx.device.clone();
        self.passes = Passes::new(&device, config, &self.bufs, (self.nx, self.ny))?;
        self.share_pair_groups();
        self.fold_maps()
    }

    /// Changes the parameters. Changing the solver (or the pipes' momentum advection) keeps the
    /// depth and starts the new solver's flows at rest (a new `Simulation` of the baked level
    /// would do the same); anything else keeps the flows. Parameters a level file could not
    /// hold ([`Params::validate`]) are refused and nothing changes.
    pub fn set_params(&mut self, params: &Params) -> Result<(), GpuError> {
        // A NaN gravity or a zero time step would reach the shaders' constants.
        params
            .validate()
            .map_err(|e| GpuError::BadInput(e.to_string()))?;
        self.stir();
        let old = std::mem::replace(&mut self.params, params.clone());
        let config = Config {
            dry: self.passes.config.dry,
            ..Config::new(params, self.rough, self.ctx.tile)
        };
        let solver_changed = old.solver != params.solver;
        let advection_changed = Config::new(&old, self.rough, self.ctx.tile).advects()
            != config.advects()
            || solver_changed;
        let device = self.ctx.device.clone();
        if advection_changed {
            let len = if config.advects() {
                (self.nx + 1) * self.ny + self.nx * (self.ny + 1)
            } else {
                4
            };
            let (vel, adv) = captured(&device, "allocating velocities", || {
                (
                    zeroed(&device, "velocity", 8 * len as u64, STATE),
                    zeroed(&device, "advected velocity", 4 * len as u64, STATE),
                )
            })?;
            self.bufs.vel = vel;
            self.bufs.adv = adv;
            self.ctx.queue.write_buffer(
                &self.bufs.aux,
                MAX_SPEED_OFFSET,
                bytemuck::bytes_of(&0f32),
            );
        }
        if solver_changed {
            let mut encoder = device.create_command_encoder(&Default::default());
            encoder.clear_buffer(&self.bufs.qx, 0, None);
            encoder.clear_buffer(&self.bufs.qy, 0, None);
            self.ctx.queue.submit([encoder.finish()]);
        }
        if config != self.passes.config {
            self.rebuild_passes(config)?;
        } else if advection_changed {
            self.passes.rebind(&device, &self.bufs);
        }
        if advection_changed && params.solver == SolverKind::Pipes && params.pipe_advection {
            let mut encoder = device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                if let Some(s) = &self.passes.store {
                    s.encode_initial(&mut pass, self.nx, self.ny);
                }
            }
            self.ctx.queue.submit([encoder.finish()]);
        }
        let table = step_table(params, self.dx, self.table_dt, self.rough);
        self.ctx
            .queue
            .write_buffer(&self.bufs.aux, TABLE_OFFSET, bytemuck::cast_slice(&table));
        self.grid.gravity = params.gravity;
        self.grid.cfl = params.cfl;
        self.ctx
            .queue
            .write_buffer(&self.bufs.grid, 0, bytemuck::bytes_of(&self.grid));
        if old.default_boundary != params.default_boundary {
            self.apply_conditions()?;
        }
        if old.sediment != params.sediment || old.friction != params.friction {
            self.rebuild_bed()?;
        }
        self.keep_state_copy_ready();
        self.check_device()
    }

    /// Takes Manning's `n` per cell of `level` (its roughness grid, or none: the level-wide `n`),
    /// keeping the water as it is. Only a Manning level uses the grid.
    pub fn set_roughness(&mut self, level: &Level) -> Result<(), GpuError> {
        self.stir();
        self.check_size(level)?;
        let cells = self.nx * self.ny;
        let grid = crate::sim::roughness_of(level);
        if let Some(n) = &grid {
            self.ctx.queue.write_buffer(
                &self.bufs.terrain,
                4 * cells as u64,
                bytemuck::cast_slice(n),
            );
        }
        self.rough = grid.is_some();
        let config = Config {
            dry: self.passes.config.dry,
            ..Config::new(&self.params, self.rough, self.ctx.tile)
        };
        if config != self.passes.config {
            self.rebuild_passes(config)?;
            self.rebuild_bed()?;
        }
        let table = step_table(&self.params, self.dx, self.table_dt, self.rough);
        self.ctx
            .queue
            .write_buffer(&self.bufs.aux, TABLE_OFFSET, bytemuck::cast_slice(&table));
        self.check_device()
    }

    /// Re-rasterises the enabled sources and sinks and the structures of `level` (same size as
    /// the simulation).
    pub fn set_sources_sinks(&mut self, level: &Level) -> Result<(), GpuError> {
        self.stir();
        self.check_size(level)?;
        // As the CPU: a NaN rate is refused before it reaches the table.
        (level.check_forcing()).map_err(|e| GpuError::Level(crate::sim::SimError::Invalid(e)))?;
        if self.upload_table(level)? {
            // The edges' schedules moved in the table (sources and structures come first): a
            // tide or hydrograph edge read a source's words as its schedule.
            self.apply_conditions()?;
        }
        self.check_device()
    }

    /// Starts every breach called `name` (a game's trigger; breaches sharing one start
    /// together): from the next step each opens as its growth says. Returns whether a breach
    /// of that name that had not started existed, as the CPU solver's `start_breach` does (a
    /// second call, or a call after the water started it, returns `false`); to know, it waits
    /// for the steps recorded so far (a read of each breach's flag, 4 bytes).
    pub fn start_breach(&mut self, name: &str) -> Result<bool, GpuError> {
        let named: Vec<usize> = (self.breach_names.iter().enumerate())
            .filter(|(_, n)| *n == name)
            .map(|(k, _)| k)
            .collect();
        let mut started = false;
        for k in named {
            self.check_device()?;
            let flag = super::readback::read_f32(
                &self.ctx.device,
                &self.ctx.queue,
                &self.bufs.breaches,
                2 * k as u64,
                1,
            )?;
            if flag[0].to_bits() != 0 {
                continue;
            }
            self.stir();
            self.ctx
                .queue
                .write_buffer(&self.bufs.breaches, 8 * k as u64, &1u32.to_le_bytes());
            self.check_device()?;
            started = true;
        }
        Ok(started)
    }

    /// Every breach of the level and how far it has opened. Waits for the GPU.
    pub fn breaches(&self) -> Result<Vec<crate::sim::BreachState>, GpuError> {
        self.check_device()?;
        let n = self.breach_names.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        let words = super::readback::read_f32(
            &self.ctx.device,
            &self.ctx.queue,
            &self.bufs.breaches,
            0,
            2 * n,
        )?;
        Ok(self
            .breach_names
            .iter()
            .zip(words.chunks(2))
            .map(|(name, w)| crate::sim::BreachState {
                name: name.clone(),
                started: w[0].to_bits() != 0,
                progress: w[1],
            })
            .collect())
    }

    /// Moves each breach's state (started, how far open) to its slot among the breaches of
    /// `level`, named `names` in their order: matched by name, or else, where only names
    /// changed (as many breaches as before), by place; a new breach starts as `level` says.
    /// The state words are kept per slot, so without this a deleted breach's state passed to
    /// the next one (which then opened at once).
    fn match_breaches(&mut self, level: &Level, names: &[String]) -> Result<(), GpuError> {
        let old = self.breaches()?;
        let mut words = super::structures::breach_words(level);
        let new: Vec<&str> = names.iter().map(String::as_str).collect();
        for (k, from) in crate::sim::breach::continued(&old, &new)
            .into_iter()
            .enumerate()
        {
            if let Some(o) = from.map(|i| &old[i]) {
                words[2 * k] = u32::from(o.started);
                words[2 * k + 1] = o.progress.to_bits();
            }
        }
        (self.ctx.queue).write_buffer(&self.bufs.breaches, 0, bytemuck::cast_slice(&words));
        Ok(())
    }

    /// Builds and uploads the patch table of `level` with the stored edge segments' schedules.
    /// Returns whether the schedules moved in it (the edge cells must learn where).
    fn upload_table(&mut self, level: &Level) -> Result<bool, GpuError> {
        let table = patch_table(level, &self.boundaries, self.time_base);
        let bytes: &[u8] = bytemuck::cast_slice(&table.words);
        if bytes.len() as u64 <= self.bufs.patches.size() {
            self.ctx.queue.write_buffer(&self.bufs.patches, 0, bytes);
        } else {
            let device = self.ctx.device.clone();
            self.bufs.patches = captured(&device, "uploading sources and sinks", || {
                init(&device, "patches", bytes, STATE)
            })?;
            self.passes.rebind(&device, &self.bufs);
        }
        self.grid.patch_count = table.patches;
        self.grid.structures = table.structures;
        self.ctx
            .queue
            .write_buffer(&self.bufs.grid, 0, bytemuck::bytes_of(&self.grid));
        self.plan.forcing = table.patches > 0;
        self.plan.structures = table.structures > 0;
        self.plan.breaches = !table.breaches.is_empty();
        if table.breaches != self.breach_names {
            self.match_breaches(level, &table.breaches)?;
        }
        self.breach_names = table.breaches;
        let breach_cells = super::erosion::breach_cells(level);
        if breach_cells != self.breach_cells {
            // A moving bed leaves the breaches' ground alone: it learns where they are now
            // (and keeps its floor and the grains in the water).
            self.breach_cells = breach_cells;
            if let (Some(bed), Some(sediment)) = (&mut self.bed, &self.params.sediment) {
                let gate_cells = self.gates.0.iter().flat_map(|g| g.cells.iter().copied());
                let fixed: Vec<u32> = gate_cells
                    .chain(self.breach_cells.iter().copied())
                    .collect();
                bed.set_fixed(
                    &self.ctx.queue,
                    sediment,
                    (self.nx, self.ny, self.dx),
                    &fixed,
                );
            }
        }
        let moved = table.edges != self.edge_schedules;
        self.edge_schedules = table.edges;
        self.keep_state_copy_ready();
        Ok(moved)
    }

    /// Takes the edge segments of `level` (same size as the simulation). Cells whose condition
    /// changed start their ghost at the current surface; the others keep theirs. Refused, by
    /// field and nothing taken, where a segment, source, sink or structure of `level` is one no
    /// level may have ([`Level::check_boundaries`], [`Level::check_forcing`]).
    pub fn set_boundaries(&mut self, level: &Level) -> Result<(), GpuError> {
        self.stir();
        self.check_size(level)?;
        // As a loaded level: a NaN inflow or overlapping stretches (the GPU let the later one
        // win, the CPU refills scheduled ones every sub-step) are refused, and so are sources
        // no level may have (the table is built again from `level`).
        (level
            .check_boundaries()
            .and_then(|()| level.check_forcing()))
        .map_err(|e| GpuError::Level(crate::sim::SimError::Invalid(e)))?;
        self.boundaries = level.boundaries.clone();
        self.upload_table(level)?;
        self.apply_conditions()
    }

    pub(crate) fn check_size(&self, level: &Level) -> Result<(), GpuError> {
        if level.nx() != self.nx || level.ny() != self.ny {
            return Err(GpuError::BadInput(format!(
                "the level is {}×{}, the simulation {}×{}",
                level.nx(),
                level.ny(),
                self.nx,
                self.ny
            )));
        }
        Ok(())
    }

    /// Uploads the edge conditions implied by the stored segments and default boundary.
    fn apply_conditions(&mut self) -> Result<(), GpuError> {
        let shape = Level {
            boundaries: self.boundaries.clone(),
            ..Level::flat(self.nx, self.ny, self.dx, 0.0)
        };
        let new = conditions(&shape, &self.params.default_boundary, &self.edge_schedules);
        let changed =
            |a: &EdgeCell, b: &EdgeCell| a.kind != b.kind || a.value.to_bits() != b.value.to_bits();
        let mut p = 0;
        while p < new.len() {
            if !changed(&new[p], &self.edge_cells[p]) {
                p += 1;
                continue;
            }
            let start = p;
            while p < new.len() && changed(&new[p], &self.edge_cells[p]) {
                p += 1;
            }
            // A schedule that only moved in the table is no new condition: no ghost restart
            // (a tide or hydrograph edge reads no ghost).
            let run: Vec<EdgeCell> = (new[start..p].iter().zip(&self.edge_cells[start..p]))
                .map(|(c, was)| EdgeCell {
                    reset: u32::from(c.kind != was.kind || c.kind & SCHEDULED == 0),
                    ..*c
                })
                .collect();
            self.ctx.queue.write_buffer(
                &self.bufs.edges,
                16 * start as u64,
                bytemuck::cast_slice(&run),
            );
        }
        let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            self.passes
                .edges
                .encode_reset_ghosts(&mut pass, (new.len() as u32).div_ceil(EDGE_GROUP));
        }
        let walls = new.iter().all(|c| c.kind == 0);
        if walls {
            // Border faces of walls carry nothing; no edge pass will overwrite stale ones.
            encoder.clear_buffer(
                &self.bufs.aux,
                CONTROL_BYTES + TABLE_BYTES,
                Some(4 * new.len() as u64),
            );
        }
        self.ctx.queue.submit([encoder.finish()]);
        self.plan.edges = !walls;
        self.edge_cells = new;
        self.check_device()
    }
}
