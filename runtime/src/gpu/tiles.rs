//! CPU bookkeeping of the blocked pass (`shaders/blocking.wgsl`): which 12 × 12 tiles around the
//! covered cells have a slot in the `blk` buffer, what each slot holds, and the few words an
//! update of the blockers has to upload.
//!
//! A tile gets a slot while some covered cell lies within 2 cells of it, and keeps the same slot
//! as long as it does, so the effective surface of cells that stay stored stays where it is on
//! the GPU. An update uploads only what changed: map entries and headers of tiles that come or
//! go, and the 4 KiB column block of each tile whose columns (or halo) changed.

use crate::sim::blocking::{BLOCKED_COVER, Blockers};

/// Output cells along a tile's side.
pub(crate) const BO: usize = 12;
/// Loaded cells along a tile's side (output and a 2-cell halo).
pub(crate) const BT: usize = 16;
/// Output cells of a tile.
pub(crate) const OUT: usize = BO * BO;
/// Header words: kappa, tiles along x and y, first slot word, slot capacity, alpha, 2 spare.
const HEADER_WORDS: usize = 8;
/// Header word of alpha.
pub(crate) const H_ALPHA: usize = 5;
/// Word of the column block in a slot (after tile x, tile y, active, pad).
const S_CELLS: usize = 4;
/// Word of the two surface halves in a slot.
pub(crate) const S_SURF: usize = S_CELLS + 4 * BT * BT;
/// Word of the columns the last sub-step applied (cover, bottom, top per output cell).
const S_APPLIED: usize = S_SURF + 3 * OUT;
/// Word of the output cells' latent water.
pub(crate) const S_LATENT: usize = S_APPLIED + 3 * OUT;
/// Word of the output cells' upper water, two halves by state parity.
const S_UPPER: usize = S_LATENT + OUT;
/// Word of the upper flow's discharges, two halves: per output cell its x-face after it and its
/// y-face below it.
const S_UQ: usize = S_UPPER + 2 * OUT;
/// Word of the upper flow's depth change per output cell.
const S_UDELTA: usize = S_UQ + 4 * OUT;
/// Words per slot: header, columns, two surface halves, saved carries, applied columns, latent
/// water, upper water, upper discharges and the upper flow's depth changes.
pub(crate) const SLOT_WORDS: usize = S_UDELTA + OUT;
/// Words of a tile's column block (cover, bottom, top and flags per loaded cell).
const BLOCK: usize = 4 * BT * BT;
/// Column flag: the cell's effective surface starts from terrain + depth at the next sub-step.
pub(crate) const FLAG_INIT: u32 = 1;
/// Column flag: the cell's water already holds the body over it (`Blockers::settle`): it takes
/// none of it, and its surface starts over the body.
pub(crate) const FLAG_SETTLED: u32 = 2;

/// Words to write into the `blk` buffer.
pub(crate) struct Write {
    /// First word.
    pub word: usize,
    /// The words.
    pub data: Vec<u32>,
}

/// A tile's slot: the tile and the column block last uploaded.
struct Slot {
    tile: usize,
    cells: Vec<u32>,
}

/// The tiles of the blocked pass and their slots.
pub(crate) struct Tiles {
    nx: usize,
    ny: usize,
    tiles_x: usize,
    map: Vec<u32>,
    slots: Vec<Option<Slot>>,
    free: Vec<usize>,
    kappa: Option<u32>,
    alpha: Option<u32>,
    /// Stored cells (cover ≥ `BLOCKED_COVER`) of the last update, sorted.
    stored: Vec<u32>,
    /// Cells flagged to start their surface in the last update, sorted.
    pending: Vec<u32>,
    /// Whether a sub-step was recorded since the last update (the flags were consumed).
    stepped: bool,
    /// The needed tiles' column blocks being made (kept to spare an allocation per update).
    blocks: Vec<u32>,
}

impl Tiles {
    /// No tiles on an `nx × ny` grid.
    pub fn new(nx: usize, ny: usize) -> Self {
        let tiles_x = nx.div_ceil(BO);
        Self {
            nx,
            ny,
            tiles_x,
            map: vec![0; tiles_x * ny.div_ceil(BO)],
            slots: Vec::new(),
            free: Vec::new(),
            kappa: None,
            alpha: None,
            stored: Vec::new(),
            pending: Vec::new(),
            stepped: true,
            blocks: Vec::new(),
        }
    }

    /// First word of slot 0.
    fn slot0(&self) -> usize {
        (HEADER_WORDS + self.map.len()).next_multiple_of(4)
    }

    /// First word of slot `s`.
    fn base(&self, s: usize) -> usize {
        self.slot0() + s * SLOT_WORDS
    }

    /// Slots the buffer has room for.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Makes room for `capacity` slots (the buffer was grown to hold them).
    pub fn reserve(&mut self, capacity: usize) {
        while self.slots.len() < capacity {
            self.free.push(self.slots.len());
            self.slots.push(None);
        }
    }

    /// Words of a buffer holding `capacity` slots.
    pub fn words(&self, capacity: usize) -> usize {
        self.slot0() + capacity * SLOT_WORDS
    }

    /// The header for a buffer of `capacity` slots.
    pub fn header(&self, capacity: usize) -> Write {
        let tiles_y = self.map.len() / self.tiles_x.max(1);
        let data = vec![
            self.kappa.unwrap_or(0),
            self.tiles_x as u32,
            tiles_y as u32,
            self.slot0() as u32,
            capacity as u32,
            self.alpha.unwrap_or(0),
            0,
            0,
        ];
        Write { word: 0, data }
    }

    /// Marks the flags of the last update as consumed (a sub-step was recorded after it).
    pub fn stepped(&mut self) {
        self.stepped = true;
    }

    /// Takes the columns of `b` (same grid size); returns the words to upload. The capacity may
    /// grow: compare [`Self::capacity`] before and after (a larger buffer needs the old words
    /// copied in first, then the header of [`Self::header`] and these writes).
    pub fn update(&mut self, b: &Blockers) -> Vec<Write> {
        let (nx, ny) = (self.nx, self.ny);
        let mut cells = b.covered().to_vec();
        cells.sort_unstable();
        cells.dedup();
        let column = |k: u32| {
            let k = k as usize;
            b.column(k % nx, k / nx)
        };
        let stored: Vec<u32> = cells
            .iter()
            .copied()
            .filter(|&k| column(k).is_some_and(|c| c.2 >= BLOCKED_COVER))
            .collect();
        let init: Vec<u32> = stored
            .iter()
            .copied()
            .filter(|k| {
                self.stored.binary_search(k).is_err()
                    || (!self.stepped && self.pending.binary_search(k).is_ok())
            })
            .collect();
        // Tiles within 2 cells of a covered cell.
        let mut needed = Vec::new();
        for &k in &cells {
            let (i, j) = (k as usize % nx, k as usize / nx);
            let (x0, x1) = (i.saturating_sub(2) / BO, (i + 2).min(nx - 1) / BO);
            let (y0, y1) = (j.saturating_sub(2) / BO, (j + 2).min(ny - 1) / BO);
            for ty in y0..=y1 {
                for tx in x0..=x1 {
                    needed.push(ty * self.tiles_x + tx);
                }
            }
        }
        needed.sort_unstable();
        needed.dedup();
        let mut writes = Vec::new();
        // Tiles that go free their slots.
        for s in 0..self.slots.len() {
            if let Some(slot) = &self.slots[s]
                && needed.binary_search(&slot.tile).is_err()
            {
                self.map[slot.tile] = 0;
                writes.push(Write {
                    word: HEADER_WORDS + slot.tile,
                    data: vec![0],
                });
                writes.push(Write {
                    word: self.base(s) + 2,
                    data: vec![0],
                });
                self.slots[s] = None;
                self.free.push(s);
            }
        }
        self.free.sort_unstable_by(|a, b| b.cmp(a));
        let mut blocks = std::mem::take(&mut self.blocks);
        let mut settled = b.settled().to_vec();
        settled.sort_unstable();
        self.fill_blocks(&cells, &needed, b, (&init, &settled), &mut blocks);
        for (n, &tile) in needed.iter().enumerate() {
            let s = match self.map[tile] {
                0 => {
                    let s = self.free.pop().unwrap_or_else(|| {
                        self.slots.push(None);
                        self.slots.len() - 1
                    });
                    self.map[tile] = s as u32 + 1;
                    writes.push(Write {
                        word: HEADER_WORDS + tile,
                        data: vec![s as u32 + 1],
                    });
                    let (tx, ty) = (tile % self.tiles_x, tile / self.tiles_x);
                    writes.push(Write {
                        word: self.base(s),
                        data: vec![tx as u32, ty as u32, 1, 0],
                    });
                    // A new slot's cells were uncovered: nothing applied, no latent water, no
                    // upper water or flow.
                    writes.push(Write {
                        word: self.base(s) + S_APPLIED,
                        data: vec![0; SLOT_WORDS - S_APPLIED],
                    });
                    s
                }
                m => m as usize - 1,
            };
            let block = &blocks[n * BLOCK..(n + 1) * BLOCK];
            let word = self.base(s) + S_CELLS;
            match &mut self.slots[s] {
                Some(old) if old.tile == tile => {
                    if old.cells != block {
                        old.cells.copy_from_slice(block);
                        writes.push(Write {
                            word,
                            data: block.to_vec(),
                        });
                    }
                }
                slot => {
                    writes.push(Write {
                        word,
                        data: block.to_vec(),
                    });
                    *slot = Some(Slot {
                        tile,
                        cells: block.to_vec(),
                    });
                }
            }
        }
        self.blocks = blocks;
        let kappa = b.kappa.to_bits();
        if self.kappa != Some(kappa) {
            self.kappa = Some(kappa);
            writes.push(Write {
                word: 0,
                data: vec![kappa],
            });
        }
        let alpha = b.alpha.to_bits();
        if self.alpha != Some(alpha) {
            self.alpha = Some(alpha);
            writes.push(Write {
                word: H_ALPHA,
                data: vec![alpha],
            });
        }
        self.stored = stored;
        self.pending = init;
        self.stepped = false;
        writes
    }

    /// The column blocks of the `needed` tiles, one after another ([`BLOCK`] words each): per
    /// loaded cell cover, bottom, top (as given; the shader clamps them to the terrain) and
    /// flags, zero where nothing covers it. Filled from the covered `cells` (sorted), each
    /// written into the blocks of the up to four tiles that load it, rather than by looking at
    /// every loaded cell of every tile.
    fn fill_blocks(
        &self,
        cells: &[u32],
        needed: &[usize],
        b: &Blockers,
        (init, settled): (&[u32], &[u32]),
        out: &mut Vec<u32>,
    ) {
        out.clear();
        out.resize(needed.len() * BLOCK, 0);
        let tiles_y = self.map.len() / self.tiles_x.max(1);
        // The tiles that load cell `c` along an axis of `tiles` tiles: tile t loads the cells
        // t·BO − 2 ..= t·BO + BO + 1.
        let loading = |c: usize, tiles: usize| {
            (c.saturating_sub(BO + 1).div_ceil(BO)..=(c + 2) / BO).filter(move |&t| t < tiles)
        };
        for &k in cells {
            let (i, j) = (k as usize % self.nx, k as usize / self.nx);
            let Some((bottom, top, cover)) = b.column(i, j) else {
                continue;
            };
            let column = [cover.to_bits(), bottom.to_bits(), top.to_bits()];
            for ty in loading(j, tiles_y) {
                let ly = j + 2 - ty * BO;
                for tx in loading(i, self.tiles_x) {
                    let lx = i + 2 - tx * BO;
                    let Ok(n) = needed.binary_search(&(ty * self.tiles_x + tx)) else {
                        continue;
                    };
                    let output = (2..2 + BO).contains(&lx) && (2..2 + BO).contains(&ly);
                    let flag = |cells: &[u32], flag: u32| {
                        if output && cells.binary_search(&k).is_ok() {
                            flag
                        } else {
                            0
                        }
                    };
                    let flags = flag(init, FLAG_INIT) | flag(settled, FLAG_SETTLED);
                    let w = n * BLOCK + 4 * (ly * BT + lx);
                    out[w..w + 3].copy_from_slice(&column);
                    out[w + 3] = flags;
                }
            }
        }
    }

    /// Every output cell of a slot inside the map: the cell, the word of its column (cover,
    /// bottom, top, flags) and the word of its latent water.
    pub fn cell_words(&self) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        for (s, slot) in self.slots.iter().enumerate() {
            let Some(slot) = slot else { continue };
            let (tx, ty) = (slot.tile % self.tiles_x, slot.tile / self.tiles_x);
            for oy in 0..BO {
                for ox in 0..BO {
                    let (i, j) = (tx * BO + ox, ty * BO + oy);
                    if i >= self.nx || j >= self.ny {
                        continue;
                    }
                    let column = self.base(s) + S_CELLS + 4 * ((oy + 2) * BT + ox + 2);
                    let latent = self.base(s) + S_LATENT + oy * BO + ox;
                    out.push((j * self.nx + i, column, latent));
                }
            }
        }
        out
    }

    /// The stored cells and, for each, the first word of its tile's slot and its place in the
    /// tile's output (column, row).
    fn stored_places(&self) -> impl Iterator<Item = (usize, usize, usize, usize)> + '_ {
        self.stored.iter().map(|&k| {
            let (i, j) = (k as usize % self.nx, k as usize / self.nx);
            let tile = (j / BO) * self.tiles_x + i / BO;
            let s = self.map[tile] as usize - 1;
            (k as usize, self.base(s), i % BO, j % BO)
        })
    }

    /// The stored cells and, for each, the word of its column (cover, bottom, top, flags) and
    /// of its effective surface in half `half`.
    pub fn surface_words(&self, half: usize) -> Vec<(usize, usize, usize)> {
        self.stored_places()
            .map(|(k, base, ox, oy)| {
                let column = base + S_CELLS + 4 * ((oy + 2) * BT + ox + 2);
                (k, column, base + S_SURF + half * OUT + oy * BO + ox)
            })
            .collect()
    }

    /// The stored cells and, for each, the word of its column (cover, bottom, top, flags) and
    /// of its upper water in half `half`.
    pub fn upper_words(&self, half: usize) -> Vec<(usize, usize, usize)> {
        self.stored_places()
            .map(|(k, base, ox, oy)| {
                let column = base + S_CELLS + 4 * ((oy + 2) * BT + ox + 2);
                (k, column, base + S_UPPER + half * OUT + oy * BO + ox)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The column block of `tile` found by looking at every cell it loads: what
    /// [`Tiles::fill_blocks`] must give.
    fn scanned(t: &Tiles, tile: usize, b: &Blockers, init: &[u32]) -> Vec<u32> {
        let (tx, ty) = (tile % t.tiles_x, tile / t.tiles_x);
        let mut out = vec![0; BLOCK];
        for ly in 0..BT {
            for lx in 0..BT {
                let gi = (tx * BO + lx) as isize - 2;
                let gj = (ty * BO + ly) as isize - 2;
                if gi < 0 || gj < 0 || gi as usize >= t.nx || gj as usize >= t.ny {
                    continue;
                }
                let (i, j) = (gi as usize, gj as usize);
                let Some((bottom, top, cover)) = b.column(i, j) else {
                    continue;
                };
                let output = (2..2 + BO).contains(&lx) && (2..2 + BO).contains(&ly);
                let k = (j * t.nx + i) as u32;
                let init = output && init.binary_search(&k).is_ok();
                let w = 4 * (ly * BT + lx);
                out[w..w + 4].copy_from_slice(&[
                    cover.to_bits(),
                    bottom.to_bits(),
                    top.to_bits(),
                    if init { FLAG_INIT } else { 0 },
                ]);
            }
        }
        out
    }

    #[test]
    fn every_slot_holds_the_columns_of_the_cells_its_tile_loads() {
        // Bodies moving over a 50 × 38 map (tiles cut by its edges), some at its corners and
        // edges, partly and fully covered cells, the halos of neighbouring tiles overlapping.
        let (nx, ny) = (50, 38);
        let mut tiles = Tiles::new(nx, ny);
        let mut next = crate::bench::scatter_numbers(7);
        // A whole number below `n`.
        let mut below = move |n: usize| ((next() * n as f32) as usize).min(n - 1);
        for step in 0..40 {
            let mut b = Blockers::new(nx, ny);
            for body in 0..6 {
                let (ci, cj) = (below(nx), below(ny));
                let (ci, cj) = if body == 0 { (step % nx, 0) } else { (ci, cj) };
                for dj in 0..3 {
                    for di in 0..4 {
                        let cover = [0.3, 1.0, 0.995][below(3)];
                        let bottom = below(100) as f32 / 50.0;
                        b.add_column(ci + di, cj + dj, bottom, bottom + 1.5, cover);
                    }
                }
            }
            if step % 3 == 0 {
                tiles.stepped();
            }
            let capacity = tiles.capacity();
            tiles.update(&b);
            if tiles.capacity() > capacity {
                tiles.reserve(tiles.capacity());
            }
            let init = tiles.pending.clone();
            let mut held = 0;
            for (tile, &m) in tiles.map.iter().enumerate() {
                if m == 0 {
                    continue;
                }
                held += 1;
                let slot = tiles.slots[m as usize - 1].as_ref().expect("a mapped slot");
                assert_eq!(slot.tile, tile);
                assert!(
                    slot.cells == scanned(&tiles, tile, &b, &init),
                    "step {step}, tile {tile}"
                );
            }
            assert!(held > 0);
        }
    }
}
