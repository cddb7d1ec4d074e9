//! `spillway check`: load a level (loading validates it) and summarise it, or report the first
//! problem with exit code 2 (also a body file that is missing, broken or outside the level's
//! folder).

use std::path::PathBuf;

use clap::Args;
use spillway::body::world::import_meshes;
use spillway::level::file;

use super::{CliError, CliResult, level_folder, say};
use crate::count;

/// Arguments of `spillway check`.
#[derive(Clone, Debug, Args)]
pub struct CheckArgs {
    /// The level file to check (.ron), or a project folder: its `level.ron`, else its one `.ron` file.
    #[arg(value_name = "LEVEL.ron")]
    pub level: PathBuf,
}

/// Runs `spillway check`.
pub fn run(args: &CheckArgs) -> CliResult {
    let level = file::load(&args.level).map_err(|e| CliError::invalid(e.to_string()))?;
    // The body files load as a game's would: from inside the level's folder.
    import_meshes(&level, &level_folder(&args.level))
        .map_err(|e| CliError::invalid(format!("{}: {e}", args.level.display())))?;
    let p = &level.params;
    let baked = match &level.flow {
        Some(f) => format!("baked at t = {:.1} s", f.time),
        None => "not baked".to_string(),
    };
    say(&format!(
        "ok: {}, {}×{} cells of {} m, {:?} solver (dt {} s), friction {}{}, {}, {}, {}, {}{}, water {:.3} m³, {baked}",
        level.name,
        level.nx(),
        level.ny(),
        level.cell_size,
        p.solver,
        p.dt,
        p.friction,
        if level.roughness.is_some() {
            " (roughness grid)"
        } else {
            ""
        },
        count(level.sources.len(), "source"),
        count(level.sinks.len(), "sink"),
        count(level.boundaries.len(), "boundary segment"),
        count(level.bodies.len(), "body"),
        // Structures only where there are some, so older levels read as before.
        match level.structures.len() {
            0 => String::new(),
            n => format!(", {}", count(n, "structure")),
        },
        level.water_volume(),
    ))
}
