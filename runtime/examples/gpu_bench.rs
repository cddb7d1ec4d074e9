//! The GPU pipes benchmark from the command line, for the device machine:
//! `gpu_bench [SIZE ...] [--steps N]` prints one row per size (the scene of
//! `shared/bench/pipe_array.py`: `spillway::bench::BenchScene::PEERS`, the scene of
//! `spillway bench`).

fn main() {
    let mut sizes = Vec::new();
    let mut steps = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--steps" {
            steps = args.next().and_then(|s| s.parse().ok());
        } else if let Ok(n) = a.parse::<usize>() {
            sizes.push(n);
        } else {
            eprintln!("usage: gpu_bench [SIZE ...] [--steps N]");
            std::process::exit(2);
        }
    }
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
    println!(
        "{:>6} {:>10} {:>10} {:>10} {:>8} {:>12}",
        "n", "ms/step", "Gcell/s", "GB/s@36B", "timing", "vol_rel_err"
    );
    for n in sizes {
        let s = steps.unwrap_or(if n >= 4096 { 200 } else { 1000 });
        match spillway::gpu::bench(n, s) {
            Ok(r) => println!(
                "{:>6} {:>10.4} {:>10.2} {:>10.1} {:>8} {:>12.2e}",
                r.n,
                r.ms_per_step,
                r.gcells_per_s,
                r.gbytes_per_s,
                if r.gpu_timed { "gpu" } else { "wall" },
                r.volume_rel_err
            ),
            Err(e) => println!("{n:>6} failed: {e}"),
        }
    }
}
