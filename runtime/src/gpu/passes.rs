//! All passes of a GPU simulation, and the order a step records them in.

use super::GpuError;
use super::advect::AdvectPass;
use super::blocking::BlockingPass;
use super::control::ControlPass;
use super::edges::EdgePass;
use super::erosion::ErosionPass;
use super::flow::{FlowPass, Fusion};
use super::forcing::ForcingPass;
use super::maps::MapsPass;
use super::pair::{PairPass, Pairing};
use super::region::RegionPass;
use super::state::{Buffers, Config, GridUniform};
use super::stats::StatsPass;
use super::store::StorePass;
use super::structures::StructuresPass;

/// Which optional passes a step records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Sources or sinks exist.
    pub forcing: bool,
    /// Some edge cell is not a wall.
    pub edges: bool,
    /// Culverts, weirs, sluice gates or breaches exist.
    pub structures: bool,
    /// Breaches exist.
    pub breaches: bool,
    /// When the flow pass advects and stores too.
    pub fusion: Fusion,
    /// When two steps may run as one pair pass.
    pub pairing: Pairing,
    /// The last read-back state needs two sub-steps a step or more (`Pairing::Auto` then pairs
    /// a step's own first two).
    pub splits: bool,
}

impl Plan {
    /// Whether this plan leaves nothing to run between two steps but the flow pass (no
    /// sources, no edges but walls, no structures or breaches), so that they may run as a pair.
    pub fn pairable(&self) -> bool {
        !(self.forcing || self.edges || self.structures || self.breaches)
    }
}

/// The compiled passes.
pub(crate) struct Passes {
    pub config: Config,
    pub control: ControlPass,
    pub flow: FlowPass,
    /// Two steps of the plain pipes in one pass, where the level runs them.
    pub pair: Option<PairPass>,
    pub forcing: ForcingPass,
    pub edges: EdgePass,
    pub advect: Option<AdvectPass>,
    pub store: Option<StorePass>,
    pub structures: StructuresPass,
    pub stats: StatsPass,
    pub region: RegionPass,
}

impl Passes {
    /// Compiles every pass for `config` and an `nx × ny` grid, and binds it to `bufs`.
    pub fn new(
        device: &wgpu::Device,
        config: Config,
        bufs: &Buffers,
        grid: (usize, usize),
    ) -> Result<Self, GpuError> {
        let advects = config.advects();
        Ok(Self {
            control: ControlPass::new(device, &config, bufs)?,
            flow: FlowPass::new(device, &config, bufs)?,
            pair: PairPass::new(device, &config, bufs, grid)?,
            forcing: ForcingPass::new(device, &config, bufs)?,
            edges: EdgePass::new(device, &config, bufs)?,
            advect: if advects {
                Some(AdvectPass::new(device, &config, bufs)?)
            } else {
                None
            },
            store: if advects {
                Some(StorePass::new(device, &config, bufs)?)
            } else {
                None
            },
            structures: StructuresPass::new(device, &config, bufs)?,
            stats: StatsPass::new(device, &config, bufs)?,
            region: RegionPass::new(device, &config)?,
            config,
        })
    }

    /// Rebinds every pass after buffers were replaced.
    pub fn rebind(&mut self, device: &wgpu::Device, bufs: &Buffers) {
        self.flow.rebind(device, bufs);
        if let Some(p) = self.pair.as_mut() {
            p.rebind(device, bufs);
        }
        self.forcing.rebind(device, bufs);
        self.edges.rebind(device, bufs);
        if let Some(a) = self.advect.as_mut() {
            a.rebind(device, bufs);
        }
        if let Some(s) = self.store.as_mut() {
            s.rebind(device, bufs);
        }
        self.structures.rebind(device, bufs);
        self.stats.rebind(device, bufs);
    }

    /// Records one step of up to `grid.k_max` sub-steps; the control pass decides on the GPU
    /// how many of them run, so nothing here waits for the GPU.
    /// With `blocking` (blockers set), the blocked pass brackets the flow pass; the structures
    /// pass follows them. With `maps`,
    /// the maps of the run take in the state the last step ended with, once the control pass
    /// closed it, unless the fused flow pass folds them in at the step's last sub-step
    /// (`FlowPass::folds`: large grids without sediment). `unfolded` says whether the state the
    /// last step left is still to be folded in (the maps pass then runs first); it is set for the
    /// step recorded here. With `bed` (a level with sediment), the bed moves at each sub-step's
    /// end. With `pair` (the caller checked [`Self::pairs`]), the pair pass follows the step's
    /// begin: with `Some(true)` this step and the next may run as one pair (the control pass
    /// opens one where one sub-step twice as long is stable; the next step's begin only closes
    /// it), and with either the step's first two sub-steps may, where it takes two or more (where
    /// `grid.k_max` lets it and [`PairPass::pairs_substeps`]: otherwise neither that build of
    /// the pass nor the split's begin is recorded).
    pub fn encode_step(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        grid: &GridUniform,
        plan: Plan,
        (blocking, maps, bed): (
            Option<&BlockingPass>,
            Option<&MapsPass>,
            Option<&ErosionPass>,
        ),
        unfolded: &mut bool,
        pair: Option<bool>,
    ) {
        // Without blockers or structures, the fused flow pass advects and stores too.
        let fused = blocking.is_none() && !plan.structures && self.flow.fuses(grid, plan.fusion);
        let fold = maps.is_some() && fused && bed.is_none() && self.flow.folds();
        for k in 0..grid.k_max {
            if k == 0 {
                // A step's own sub-steps pair only where it may take two (spare sub-steps).
                let split =
                    |p: &PairPass| grid.k_max >= 2 && p.pairs_substeps(plan.pairing, plan.splits);
                match (self.pair.as_ref(), pair) {
                    (Some(p), Some(true)) => {
                        if split(p) {
                            self.control.begin_pair_split(pass);
                            p.encode_steps(pass);
                            p.encode_substeps(pass);
                        } else {
                            self.control.begin_pair(pass);
                            p.encode_steps(pass);
                        }
                    }
                    (Some(p), Some(false)) if split(p) => {
                        self.control.begin_split(pass);
                        p.encode_substeps(pass);
                    }
                    _ => self.control.begin_step(pass),
                }
                if let Some(m) = maps.filter(|_| *unfolded) {
                    m.encode(pass);
                }
            } else {
                self.control.next_substep(pass);
            }
            if plan.breaches {
                self.structures.encode_breaches(pass);
            }
            if plan.forcing {
                self.forcing.encode(pass, grid);
            }
            if plan.edges {
                self.edges.encode_accelerate(pass, grid);
            }
            if let Some(a) = self.advect.as_ref().filter(|_| !fused) {
                a.encode(pass, grid);
            }
            if let Some(b) = blocking {
                b.encode_before(pass);
            }
            self.flow.encode(pass, grid, fused, fold);
            if let Some(b) = blocking {
                b.encode_faces(pass);
            }
            if plan.structures {
                self.structures.encode(pass);
            }
            if let Some(s) = self.store.as_ref().filter(|_| !fused) {
                s.encode(pass, grid);
            }
            if plan.edges {
                self.edges.encode_finish(pass, grid);
            }
            // In the CPU's order: the upper flow and the surface see what the structures
            // moved and the edges let in or out.
            if let Some(b) = blocking {
                b.encode_upper_surface(pass);
            }
            if let Some(b) = bed {
                b.encode(pass);
            }
        }
        *unfolded = maps.is_some() && !fold;
    }

    /// Whether steps of `plan` on `grid` run in pairs, with neither blockers, maps nor
    /// sediment; with momentum advection, only where the flow pass fuses it (the pair advects
    /// as the fused pass does).
    pub fn pairs(
        &self,
        grid: &GridUniform,
        plan: Plan,
        (blocking, maps, bed): (bool, bool, bool),
    ) -> bool {
        plan.pairable()
            && !(blocking || maps || bed)
            && (!self.config.advects() || self.flow.fuses(grid, plan.fusion))
            && self.pair.as_ref().is_some_and(|p| p.pairs(plan.pairing))
    }
}
