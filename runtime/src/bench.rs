//! The benchmark scenes. Every bench and benchmark example of the workspace builds its level
//! with [`scene`], so each figure quoted in `README.md`, `docs/gpu.md` and `docs/editor.md`
//! comes from one definition of its scene, whether the bench runs on the CPU or the GPU.
//!
//! The scenes differ where the benches measure different things (a dam break for the solver's
//! throughput, a calm lake for floating bodies, dry relief for sculpting, every forcing for the
//! editor's live water); each keeps exactly the terrain, water and sources its published figures
//! were measured on. All are `n × n` cells of 1 m.
//!
//! | scene | used by |
//! | --- | --- |
//! | [`BenchScene::PipeArray`] | `spillway bench` (editor), `gpu::bench` and the `gpu_bench` example, the `load` bench (with a flow state added) |
//! | [`BenchScene::Lake`] | the `body_bench` example (bodies added on top) |
//! | [`BenchScene::Hills`] | the editor's `sculpt` bench |
//! | [`BenchScene::Valley`] | the editor's `preview` bench |

use crate::level::{BoundaryKind, CrossSection, Friction, Gate, Shape, Source, SourceKind};
use crate::{Grid, Level, SolverKind};

/// Time step of the peers' pipe scene ([`BenchScene::PipeArray`]), seconds.
pub const PIPE_ARRAY_DT: f32 = 0.025;

/// The peers' per-step flow factor at [`PIPE_ARRAY_DT`].
pub const PEER_FRICTION_FACTOR: f64 = 0.999;

/// The bundled bodies (`assets/NAME.glb`) the benchmarks drop, with their densities in kg/m³:
/// four that float and a boulder that sinks.
pub const BODY_KINDS: [(&str, f32); 5] = [
    ("crate", 400.0),
    ("log", 600.0),
    ("barrel", 300.0),
    ("boulder", 2600.0),
    ("plank", 500.0),
];

/// Numbers in [0, 1) from `seed` (a linear congruential generator): a benchmark's scatter of
/// bodies, the same on every run.
pub fn scatter_numbers(mut seed: u32) -> impl FnMut() -> f32 {
    move || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32
    }
}

/// Which benchmark scene [`scene`] builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchScene {
    /// The scene of the peers' `shared/bench/pipe_array.py` and `pipe_ref.cu`: terrain
    /// `b = 4·sin(6x)·cos(5y) + 3x` with `x = column / n`, `y = row / n`, water up to 8 m where
    /// `x < 0.5` (a dam break over hills), walls, the pipes solver with `dt` =
    /// [`PIPE_ARRAY_DT`], `cfl` = 1 and linear friction matching the peers'
    /// [`PEER_FRICTION_FACTOR`] per step. It never sub-steps.
    PipeArray {
        /// The pipe cross-section rule ([`CrossSection::Constant`] as the peers).
        section: CrossSection,
        /// Whether the pipes carry momentum with the flow (off as the peers).
        pipe_advection: bool,
    },
    /// A walled lake 1 m deep over a gently rolling bed
    /// (`0.2·(sin(0.05·column) + cos(0.07·row))`), default parameters: still water for
    /// floating bodies.
    Lake,
    /// Dry hills up to 65 m (`40·sin(9x)·cos(7y) + 25·sin²(23x + 5y)`), default parameters:
    /// relief for the sculpt tools and the terrain renderer.
    Hills,
    /// A valley sloping to the east with a winding channel: a reservoir (surface 17 m) behind
    /// a gate that opens at 5 s, a river source of `n/2` m³/s at the west edge and a lower
    /// lake (surface 6 m) downstream; `dt` = 0.02 s. Every part of the solver and the water
    /// shading has work.
    Valley,
}

impl BenchScene {
    /// The pipe scene as the peers run it: constant cross-section, no momentum advection.
    pub const PEERS: BenchScene = BenchScene::PipeArray {
        section: CrossSection::Constant,
        pipe_advection: false,
    };
}

/// Builds the benchmark scene `kind` at `n × n` cells of 1 m.
pub fn scene(n: usize, kind: BenchScene) -> Level {
    let mut level = match kind {
        BenchScene::PipeArray {
            section,
            pipe_advection,
        } => pipe_array(n, section, pipe_advection),
        BenchScene::Lake => lake(n),
        BenchScene::Hills => hills(n),
        BenchScene::Valley => valley(n),
    };
    let name = match kind {
        BenchScene::PipeArray { .. } => "pipe_array",
        BenchScene::Lake => "lake",
        BenchScene::Hills => "hills",
        BenchScene::Valley => "valley",
    };
    level.name = format!("{name} {n}×{n}");
    level
}

fn pipe_array(n: usize, section: CrossSection, pipe_advection: bool) -> Level {
    let nf = n as f32;
    let terrain = Grid::from_fn(n, n, |i, j| {
        let (x, y) = (i as f32 / nf, j as f32 / nf);
        4.0 * (6.0 * x).sin() * (5.0 * y).cos() + 3.0 * x
    });
    let water = Grid::from_fn(n, n, |i, j| {
        if (i as f32 / nf) < 0.5 {
            (8.0 - terrain.get(i, j)).max(0.0)
        } else {
            0.0
        }
    });
    let mut level = Level::flat(n, n, 1.0, 0.0);
    level.terrain = terrain;
    level.water = water;
    let p = &mut level.params;
    p.solver = SolverKind::Pipes;
    p.cross_section = section;
    p.pipe_advection = pipe_advection;
    p.gravity = 9.81;
    p.dt = PIPE_ARRAY_DT;
    // The linear law scales flows by (1 − f)^dt per step; match the peers' 0.999 per step.
    p.friction = Friction::Linear {
        per_second: (1.0 - PEER_FRICTION_FACTOR.powf(1.0 / PIPE_ARRAY_DT as f64)) as f32,
    };
    p.cfl = 1.0;
    p.default_boundary = BoundaryKind::Wall;
    level
}

fn lake(n: usize) -> Level {
    let mut level = Level::flat(n, n, 1.0, 0.0);
    level.terrain = Grid::from_fn(n, n, |x, y| {
        0.2 * ((x as f32 * 0.05).sin() + (y as f32 * 0.07).cos())
    });
    level.water = Grid::from_fn(n, n, |x, y| 1.0 - level.terrain.get(x, y));
    level
}

fn hills(n: usize) -> Level {
    let mut level = Level::flat(n, n, 1.0, 0.0);
    level.terrain = Grid::from_fn(n, n, |x, y| {
        let (fx, fy) = (x as f32 / n as f32, y as f32 / n as f32);
        40.0 * (fx * 9.0).sin() * (fy * 7.0).cos() + 25.0 * (fx * 23.0 + fy * 5.0).sin().powi(2)
    });
    level
}

fn valley(n: usize) -> Level {
    let mut level = Level::flat(n, n, 1.0, 0.0);
    let s = n as f32;
    level.terrain = Grid::from_fn(n, n, |x, y| {
        let (fx, fy) = (x as f32 / s, y as f32 / s);
        let channel = 60.0 * (fy - 0.5 - 0.1 * (fx * 6.0).sin()).powi(2);
        18.0 - 14.0 * fx + channel + 2.0 * (fx * 23.0).sin() * (fy * 19.0).cos()
    });
    level.water = Grid::from_fn(n, n, |x, y| {
        if (x as f32) < s * 0.3 {
            (17.0 - level.terrain.get(x, y)).max(0.0)
        } else {
            (6.0 - level.terrain.get(x, y)).max(0.0)
        }
    });
    level.sources.push(Source {
        name: "river".into(),
        shape: Shape::Circle {
            x: s * 0.05,
            y: s * 0.5,
            radius: s * 0.02,
        },
        kind: SourceKind::Rate { m3_per_s: s * 0.5 },
        enabled: true,
    });
    level.gates.push(Gate {
        name: "dam".into(),
        shape: Shape::Box {
            x0: s * 0.3,
            y0: 0.0,
            x1: s * 0.32,
            y1: s,
        },
        crest: 40.0,
        open_at: Some(5.0),
    });
    level.params.dt = 0.02;
    level
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scene_is_a_valid_level_of_its_size() {
        for kind in [
            BenchScene::PEERS,
            BenchScene::Lake,
            BenchScene::Hills,
            BenchScene::Valley,
        ] {
            let level = scene(64, kind);
            assert_eq!((level.nx(), level.ny()), (64, 64), "{kind:?}");
            level
                .validate(&crate::level::Limits::default())
                .unwrap_or_else(|e| panic!("{kind:?}: {e:?}"));
        }
    }

    #[test]
    fn the_pipe_scene_is_the_peers() {
        let level = scene(8, BenchScene::PEERS);
        assert_eq!(level.params.cross_section, CrossSection::Constant);
        assert!(!level.params.pipe_advection);
        // A full reservoir west of the middle, dry ground east of it.
        assert_eq!(level.water.get(0, 0), 8.0);
        assert_eq!(level.water.get(7, 3), 0.0);
    }
}
