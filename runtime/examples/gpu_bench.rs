//! The GPU pipes benchmark from the command line, for the device machine:
//! `gpu_bench [SIZE ...] [--steps N] [--physics peers|default|swe|valley]` prints one row per size
//! (the scene of `shared/bench/pipe_array.py`, the scene of `spillway bench`): with the peers'
//! constant pipe (`spillway::bench::BenchScene::PEERS`, the default), the runtime's default
//! physics (face-depth pipes with momentum advection) or the shallow-water mode, or the
//! editor preview bench's valley (`BenchScene::Valley`: a river, a gate, a lake); `--fusion`
//! picks when the flow pass also advects and stores (`spillway::gpu::Fusion`); `--dt` and
//! `--cfl` replace the scene's step (25 ms) and Courant number (1), for the simulated seconds
//! per wall second a longer, CFL-controlled step gives (`--headroom K` records K spare
//! sub-steps a step, 0 by default: the scene at 25 ms never sub-steps); `--maps` keeps the
//! maps of the run as the editor's preview does; `--pairing` picks when two sub-steps run as one
//! pass (`spillway::gpu::Pairing`; the `paired` column is the share of sub-steps that did, each
//! pair moving the state once for two); `--no-dry-skip` runs every strip, dry or not (the `dry`
//! column is the share of strips left out with no water around, `GpuSimulation::set_dry_skip`).

use spillway::bench::{BenchScene, scene};
use spillway::gpu::{BenchOptions, Fusion, Pairing};
use spillway::level::{CrossSection, SolverKind};

const USAGE: &str = "usage: gpu_bench [SIZE ...] [--steps N] [--physics peers|default|swe|valley] [--fusion auto|always|never] [--pairing auto|always|never] [--dt S] [--cfl C] [--headroom K] [--maps] [--no-dry-skip]";

fn main() {
    let mut sizes = Vec::new();
    let mut steps = None;
    let mut physics = "peers".to_string();
    let mut options = BenchOptions::default();
    let mut dt = None;
    let mut cfl = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--steps" {
            steps = args.next().and_then(|s| s.parse().ok());
        } else if a == "--physics" {
            physics = args.next().unwrap_or_default();
        } else if a == "--dt" || a == "--cfl" {
            let Some(v) = args.next().and_then(|s| s.parse::<f32>().ok()) else {
                eprintln!("{USAGE}");
                std::process::exit(2);
            };
            *if a == "--dt" { &mut dt } else { &mut cfl } = Some(v);
        } else if a == "--maps" {
            options.maps = true;
        } else if a == "--no-dry-skip" {
            options.no_dry_skip = true;
        } else if a == "--headroom" {
            let Some(k) = args.next().and_then(|s| s.parse().ok()) else {
                eprintln!("{USAGE}");
                std::process::exit(2);
            };
            options.headroom = k;
        } else if a == "--fusion" {
            options.fusion = match args.next().as_deref() {
                Some("auto") => Fusion::Auto,
                Some("always") => Fusion::Always,
                Some("never") => Fusion::Never,
                _ => {
                    eprintln!("{USAGE}");
                    std::process::exit(2);
                }
            };
        } else if a == "--pairing" {
            options.pairing = match args.next().as_deref() {
                Some("auto") => Pairing::Auto,
                Some("always") => Pairing::Always,
                Some("never") => Pairing::Never,
                _ => {
                    eprintln!("{USAGE}");
                    std::process::exit(2);
                }
            };
        } else if let Ok(n) = a.parse::<usize>() {
            sizes.push(n);
        } else {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    }
    let kind = match physics.as_str() {
        "peers" => BenchScene::PEERS,
        "default" | "swe" => BenchScene::PipeArray {
            section: CrossSection::FaceDepth,
            pipe_advection: true,
        },
        "valley" => BenchScene::Valley,
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    };
    if sizes.is_empty() {
        sizes = vec![1024, 2048, 4096, 8192];
    }
    match spillway::gpu::adapter_name() {
        Ok(name) => println!("adapter: {name}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
    println!("physics: {physics}, {options:?}");
    println!(
        "{:>6} {:>10} {:>10} {:>10} {:>8} {:>12} {:>9} {:>9} {:>7} {:>7}",
        "n",
        "ms/step",
        "Gcell/s",
        "GB/s@36B",
        "timing",
        "vol_rel_err",
        "sub/step",
        "sim_s/s",
        "paired",
        "dry"
    );
    for n in sizes {
        let s = steps.unwrap_or(if n >= 4096 { 200 } else { 1000 });
        let mut level = scene(n, kind);
        if physics == "swe" {
            level.params.solver = SolverKind::Swe;
        }
        level.params.dt = dt.unwrap_or(level.params.dt);
        level.params.cfl = cfl.unwrap_or(level.params.cfl);
        match spillway::gpu::bench_with(&level, s, options) {
            Ok(r) => println!(
                "{:>6} {:>10.4} {:>10.2} {:>10.1} {:>8} {:>12.2e} {:>9.3} {:>9.2} {:>7.3} {:>7.3}",
                r.n,
                r.ms_per_step,
                r.gcells_per_s,
                r.gbytes_per_s,
                if r.gpu_timed { "gpu" } else { "wall" },
                r.volume_rel_err,
                r.substeps_per_step,
                r.sim_seconds_per_step / (r.ms_per_step * 1e-3),
                r.paired_share,
                r.dry_share
            ),
            Err(e) => println!("{n:>6} failed: {e}"),
        }
    }
}
