//! `TerrainTextures`: the level's heights, water depths and Manning's roughness on the GPU, one
//! `R32Float` texel per cell. Edits upload only their dirty rectangle.

use spillway::rect::copy_out;
use spillway::{CellRect, Grid, Level};

/// What changed in a level since the renderer last drew it: the cells to upload again.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Dirty {
    /// Anything may have changed, the size included: upload everything.
    pub whole: bool,
    /// Terrain cells that may differ.
    pub terrain: Option<CellRect>,
    /// Water cells that may differ.
    pub water: Option<CellRect>,
    /// Roughness cells that may differ (or the roughness grid was added or removed).
    pub roughness: Option<CellRect>,
    /// The level's parameters may differ (the level-wide roughness among them).
    pub parameters: bool,
    /// The terrain's height range (which sets the terrain's colours and the camera's bounds)
    /// is to be found again over the whole grid, as after a finished edit or an undo that may
    /// have lowered a peak. Otherwise an edit only widens it (cheap while a brush moves).
    pub rescan_range: bool,
}

impl Dirty {
    /// Everything changed.
    pub fn everything() -> Self {
        Self {
            whole: true,
            ..Self::default()
        }
    }

    /// Nothing changed.
    pub fn nothing() -> Self {
        Self::default()
    }

    /// The terrain cells of `rect` changed.
    pub fn terrain(rect: CellRect) -> Self {
        Self {
            terrain: Some(rect),
            ..Self::default()
        }
    }
}

/// The height and water textures of one level size.
pub struct TerrainTextures {
    heights: wgpu::Texture,
    water: wgpu::Texture,
    /// Manning's `n` per cell (the level-wide `n` where the level has no roughness grid).
    roughness: wgpu::Texture,
    /// A value per cell for the cell overlay, and whether it was set since the size changed.
    cells: wgpu::Texture,
    cells_set: bool,
    /// Depths the water's Change overlay compares with instead of the authored water.
    reference: Option<wgpu::Texture>,
    nx: usize,
    ny: usize,
    /// Lowest and highest terrain height uploaded (grows with edits; exact after a full upload
    /// or a [`Dirty::rescan_range`]).
    range: (f32, f32),
    /// Cells uploaded since creation (for the benchmark and tests).
    uploaded_cells: u64,
}

fn grid_texture(device: &wgpu::Device, label: &str, nx: usize, ny: usize) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: nx as u32,
            height: ny as u32,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::R32Float,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    })
}

/// Uploads the cells of `rect` of `grid` into `texture`.
fn upload(queue: &wgpu::Queue, texture: &wgpu::Texture, grid: &Grid, rect: &CellRect) {
    if rect.is_empty() {
        return;
    }
    let whole_rows = rect.x0 == 0 && rect.x1 == grid.nx;
    let owned;
    let bytes: &[u8] = if whole_rows {
        bytemuck::cast_slice(&grid.data[rect.y0 * grid.nx..rect.y1 * grid.nx])
    } else {
        owned = copy_out(&grid.data, grid.nx, rect);
        bytemuck::cast_slice(&owned)
    };
    queue.write_texture(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d {
                x: rect.x0 as u32,
                y: rect.y0 as u32,
                z: 0,
            },
            aspect: wgpu::TextureAspect::All,
        },
        bytes,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(rect.width() as u32 * 4),
            rows_per_image: Some(rect.height() as u32),
        },
        wgpu::Extent3d {
            width: rect.width() as u32,
            height: rect.height() as u32,
            depth_or_array_layers: 1,
        },
    );
}

/// Lowest and highest value of `grid` inside `rect` (`None` if all are non-finite).
pub fn value_range(grid: &Grid, rect: &CellRect) -> Option<(f32, f32)> {
    let mut lo = f32::INFINITY;
    let mut hi = f32::NEG_INFINITY;
    for y in rect.y0..rect.y1 {
        for &v in &grid.data[y * grid.nx + rect.x0..y * grid.nx + rect.x1] {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
}

impl TerrainTextures {
    /// Textures for `level`, fully uploaded.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, level: &Level) -> Self {
        let (nx, ny) = (level.nx(), level.ny());
        let mut t = Self {
            heights: grid_texture(device, "terrain heights", nx, ny),
            water: grid_texture(device, "water depths", nx, ny),
            roughness: grid_texture(device, "manning roughness", nx, ny),
            cells: grid_texture(device, "cell overlay", nx, ny),
            cells_set: false,
            reference: None,
            nx,
            ny,
            range: (0.0, 1.0),
            uploaded_cells: 0,
        };
        t.upload_all(queue, level);
        t
    }

    /// Whether these textures fit `level`'s size.
    pub fn fits(&self, level: &Level) -> bool {
        self.nx == level.nx() && self.ny == level.ny()
    }

    fn upload_all(&mut self, queue: &wgpu::Queue, level: &Level) {
        let all = CellRect::whole(self.nx, self.ny);
        upload(queue, &self.heights, &level.terrain, &all);
        upload(queue, &self.water, &level.water, &all);
        self.upload_roughness(queue, level, &all);
        self.range = value_range(&level.terrain, &all).unwrap_or((0.0, 1.0));
        self.uploaded_cells += 2 * all.area() as u64;
    }

    /// Uploads the roughness of `rect` (the whole level where it has no grid: every cell then
    /// has the level-wide `n`).
    fn upload_roughness(&mut self, queue: &wgpu::Queue, level: &Level, rect: &CellRect) {
        match &level.roughness {
            Some(grid) => upload(queue, &self.roughness, grid, rect),
            None => {
                let n = level.manning_n(0, 0);
                let filled = Grid::filled(self.nx, self.ny, n);
                upload(
                    queue,
                    &self.roughness,
                    &filled,
                    &CellRect::whole(self.nx, self.ny),
                );
            }
        }
    }

    /// Uploads what `changes` says changed (everything if `changes.whole`).
    pub fn sync(&mut self, queue: &wgpu::Queue, level: &Level, changes: &Dirty) {
        if changes.whole {
            self.upload_all(queue, level);
            return;
        }
        let all = CellRect::whole(self.nx, self.ny);
        if let Some(rect) = changes.terrain.map(|r| r.intersect(&all)) {
            upload(queue, &self.heights, &level.terrain, &rect);
            if changes.rescan_range {
                self.range = value_range(&level.terrain, &all).unwrap_or((0.0, 1.0));
            } else if let Some((lo, hi)) = value_range(&level.terrain, &rect) {
                self.range = (self.range.0.min(lo), self.range.1.max(hi));
            }
            self.uploaded_cells += rect.area() as u64;
        }
        if let Some(rect) = changes.water.map(|r| r.intersect(&all)) {
            upload(queue, &self.water, &level.water, &rect);
            self.uploaded_cells += rect.area() as u64;
        }
        // New parameters may change the level-wide n; a stroke may have added or removed the
        // grid: then all of it, else only the painted cells.
        let rough = match changes.roughness {
            Some(rect) if !changes.parameters && level.roughness.is_some() => {
                Some(rect.intersect(&all))
            }
            Some(_) => Some(all),
            None => changes.parameters.then_some(all),
        };
        if let Some(rect) = rough {
            self.upload_roughness(queue, level, &rect);
        }
    }

    /// Size in cells.
    pub fn size(&self) -> (usize, usize) {
        (self.nx, self.ny)
    }

    /// Lowest and highest terrain height, metres.
    pub fn range(&self) -> (f32, f32) {
        self.range
    }

    /// Cells uploaded since creation.
    pub fn uploaded_cells(&self) -> u64 {
        self.uploaded_cells
    }

    /// Views of the height, water, roughness and cell overlay textures.
    pub fn views(&self) -> [wgpu::TextureView; 4] {
        [&self.heights, &self.water, &self.roughness, &self.cells]
            .map(|t| t.create_view(&wgpu::TextureViewDescriptor::default()))
    }

    /// Uploads the cell overlay's values (`grid` of this size; another size is ignored and
    /// returns false).
    pub fn set_cells(&mut self, queue: &wgpu::Queue, grid: &Grid) -> bool {
        if (grid.nx, grid.ny) != (self.nx, self.ny) || grid.data.len() != self.nx * self.ny {
            return false;
        }
        upload(queue, &self.cells, grid, &CellRect::whole(self.nx, self.ny));
        self.cells_set = true;
        true
    }

    /// Sets the depths the water's Change overlay compares with (`None`: the authored water;
    /// a grid of another size is ignored and returns false).
    pub fn set_reference(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        depth: Option<&Grid>,
    ) -> bool {
        let Some(grid) = depth else {
            self.reference = None;
            return true;
        };
        if (grid.nx, grid.ny) != (self.nx, self.ny) || grid.data.len() != self.nx * self.ny {
            return false;
        }
        let texture = self
            .reference
            .take()
            .unwrap_or_else(|| grid_texture(device, "reference depth", self.nx, self.ny));
        upload(queue, &texture, grid, &CellRect::whole(self.nx, self.ny));
        self.reference = Some(texture);
        true
    }

    /// The depths the Change overlay compares with: the reference if set, else the authored
    /// water.
    pub fn reference(&self) -> &wgpu::Texture {
        self.reference.as_ref().unwrap_or(&self.water)
    }

    /// Whether the cell overlay's values were set for this size.
    pub fn has_cells(&self) -> bool {
        self.cells_set
    }
}
