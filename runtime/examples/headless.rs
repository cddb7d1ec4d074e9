//! What a game does with a Spillway level, without a window: load the level the editor
//! exported (baked levels start with their rivers flowing), step the water every frame, and
//! query it where the game needs it: the water at the player, the flooded area, and a gate a
//! trigger opens.
//!
//! ```text
//! cargo run -p spillway --example headless [LEVEL.ron] [PLAYER_X PLAYER_Y]
//! ```
//!
//! Without arguments it loads `projects/dam_break_valley/level.ron`, which has no gate of its
//! own: the example closes the valley with one called `dam` (what the editor's gate tool
//! saves into a level), lets the reservoir rest, opens the gate and watches the flood arrive.

use std::error::Error;
use std::path::PathBuf;

use spillway::Simulation;
use spillway::level::{Gate, Shape, file};

/// Deeper than this, a cell counts as flooded (1 cm).
const FLOODED: f32 = 0.01;

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../projects/dam_break_valley/level.ron")
    });
    let mut level = file::load(&path)?; // validated: every error names the file and the place
    let (w, h) = (
        level.nx() as f32 * level.cell_size,
        level.ny() as f32 * level.cell_size,
    );
    let player = match (args.next(), args.next()) {
        (Some(x), Some(y)) => (x.parse::<f32>()?, y.parse::<f32>()?),
        _ => (0.75 * w, 0.5 * h),
    };
    if level.gates.is_empty() {
        level.gates.push(Gate {
            name: "dam".into(),
            shape: Shape::Box {
                x0: 0.3 * w,
                y0: 0.0,
                x1: 0.3 * w + 2.0 * level.cell_size,
                y1: h,
            },
            crest: 1000.0,
            open_at: None,
        });
    }
    let baked = match &level.flow {
        Some(f) => format!("baked at t = {:.1} s: continuing with its flows", f.time),
        None => "not baked: the water starts still".into(),
    };
    println!(
        "{}: {} × {} cells of {} m ({baked})",
        path.display(),
        level.nx(),
        level.ny(),
        level.cell_size
    );

    let mut sim = Simulation::new(&level)?;
    let frame = 1.0 / 60.0; // a game steps by its frame time; the solver sub-steps as needed
    let report = |sim: &Simulation, label: &str| {
        let (x, y) = player;
        let (vx, vy) = sim.velocity_at(x, y);
        println!(
            "{label:>24} t = {:6.1} s | player ({x:.0}, {y:.0}): depth {:.3} m, surface {:.3} m, \
             velocity ({vx:+.2}, {vy:+.2}) m/s | flooded {:.0} m² | volume {:.0} m³",
            sim.stats().time,
            sim.depth_at(x, y),
            sim.surface_at(x, y),
            sim.flooded_area(FLOODED),
            sim.volume(),
        );
    };
    report(&sim, "loaded");
    for _ in 0..600 {
        sim.step(frame)?;
    }
    report(&sim, "10 s later");

    let gate = level.gates[0].name.clone();
    println!("trigger: open gate `{gate}`: {}", sim.open_gate(&gate));
    for second in 1..=30 {
        for _ in 0..60 {
            sim.step(frame)?;
        }
        if second % 10 == 0 {
            report(&sim, &format!("{second} s after opening"));
        }
    }
    let open: Vec<String> = sim
        .gates()
        .iter()
        .map(|g| format!("{} {}", g.name, if g.open { "open" } else { "closed" }))
        .collect();
    println!(
        "gates: {}; balance error {:.1e}",
        open.join(", "),
        sim.stats().balance_error
    );
    Ok(())
}
