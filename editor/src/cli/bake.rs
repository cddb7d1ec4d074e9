//! `spillway bake`: run a level until its water settles (or a time limit), then save it with the
//! settled depths and flow state so a game starts with rivers already flowing. The settling
//! loop is [`crate::bake::settle`], the same as the editor's Bake.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::ops::ControlFlow;

use spillway::body::world::import_meshes;
use spillway::gpu::GpuSimulation;
use spillway::level::{Level, file};

use super::options::{Backend, parse_max_seconds, parse_positive, simulation};
use super::{CliError, CliResult, create_parent, level_folder, say};
pub use crate::bake::{BakeError, BakeOutcome, Coupled, Settling, settle};
use crate::project::body_files::{BODIES_DIR, relink};

/// Arguments of `spillway bake`.
#[derive(Clone, Debug, Args)]
pub struct BakeArgs {
    /// The level file to bake (.ron), or a project folder: its `level.ron`, else its one `.ron` file.
    #[arg(value_name = "LEVEL.ron")]
    pub level: PathBuf,
    /// The baked level file to write (.ron; may be the input).
    #[arg(short = 'o', long = "output", value_name = "OUT.ron")]
    pub output: PathBuf,
    /// Steady when the largest depth change rate over a simulated second is below TOL (m/s).
    #[arg(long, value_name = "TOL", default_value_t = 1e-3, value_parser = parse_positive)]
    pub until_steady: f32,
    /// Stop after this many simulated seconds even if not steady.
    #[arg(long, value_name = "S", default_value_t = 600.0, value_parser = parse_max_seconds)]
    pub max_seconds: f32,
    /// Where the simulation runs (auto: the GPU where a hardware GPU exists).
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: Backend,
    /// Leave the level's bodies out (they neither block nor float, and keep their places).
    #[arg(long)]
    pub no_bodies: bool,
    /// Also write the maps of the bake's run (max depth, max speed, arrival time, hazard) into
    /// this folder, as .npy and 16-bit PNG files with maps.txt.
    #[arg(long, value_name = "DIR")]
    pub maps: Option<PathBuf>,
    /// Print one JSON object instead of a human summary (for build pipelines).
    #[arg(long)]
    pub json: bool,
    /// Exit with code 3 when the water has not settled by `--max-seconds` (the baked level is
    /// still written): a build pipeline stops on a level that does not settle.
    #[arg(long)]
    pub require_steady: bool,
    /// Worker threads (default: one per core): a shared build machine keeps the rest. The
    /// bodies' physics takes as many, 2 at least and 8 at most.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
}

/// What `spillway bake --json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct BakeReport {
    /// The level baked, as given (a path that is not UTF-8 with its odd bytes replaced).
    #[serde(serialize_with = "super::output::lossy_path")]
    pub input: PathBuf,
    /// The baked level written, as given (the same).
    #[serde(serialize_with = "super::output::lossy_path")]
    pub output: PathBuf,
    /// Simulated seconds.
    pub seconds: f64,
    /// Whether the largest depth change rate fell below `tolerance` before `max_seconds`.
    pub steady: bool,
    /// The largest depth change rate over the last simulated second, m/s.
    pub rate: f32,
    /// `--until-steady`, m/s.
    pub tolerance: f32,
    /// `--max-seconds`.
    pub max_seconds: f32,
    /// Bodies coupled with the water (0 with `--no-bodies` or none in the level).
    pub bodies: usize,
    /// Bodies that went over an open edge of the map (they keep their placement).
    pub left_map: Vec<String>,
    /// Distinct body files copied into the output's `bodies/` (0 when baked beside the input).
    pub body_files_copied: usize,
    /// Files of the run's maps written (with `--maps`).
    pub map_files: Option<usize>,
    /// Wall-clock seconds of the whole bake.
    pub wall_seconds: f64,
}

/// Runs `spillway bake`.
pub fn run(args: &BakeArgs) -> CliResult {
    let started = Instant::now();
    super::init_threads(args.threads.map(usize::from))?;
    let path = &args.level;
    let level = file::load(path).map_err(|e| CliError::failure(e.to_string()))?;
    let max_seconds = args.max_seconds as f64;
    super::options::steps_for(max_seconds, level.params.dt)
        .map_err(|e| CliError::invalid(format!("{}: --max-seconds {e}", path.display())))?;
    let moving = body_file_move(&level, path, &args.output);
    // Before the run, so a body file the game could not load costs no simulated time; with
    // --no-bodies too, whose bodies stay in the level (beside the input, a level whose body
    // file was missing baked, and neither a check nor the game could load what it wrote).
    let home = level_folder(path);
    let from = (moving.as_ref().map(|(from, _)| from.as_path()))
        .or(args.no_bodies.then_some(home.as_path()));
    if let Some(from) = from {
        import_meshes(&level, from)
            .map_err(|e| CliError::failure(format!("{}: {e}", path.display())))?;
    }

    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new(max_seconds.ceil() as u64);
        let style = ProgressStyle::with_template(
            "baking {bar:40} {pos}/{len} s simulated, change {msg} ({elapsed})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar
    });
    let progress = |seconds: f64, rate: f32| {
        if let Some(bar) = &bar {
            bar.set_position(seconds.floor() as u64);
            bar.set_message(format!("{rate:.2e} m/s"));
        }
        ControlFlow::Continue(())
    };
    let failed = |e: BakeError| {
        CliError::failure(format!(
            "{}: the bake failed: {e}{}",
            path.display(),
            fix_bodies_hint(&e)
        ))
    };
    let root = level_folder(path);
    let with_bodies = !args.no_bodies;
    let want_maps = args.maps.is_some();
    let (outcome, baked, bodies, maps) = if args.backend.resolve() == Backend::Gpu {
        let mut sim = GpuSimulation::headless(&level).map_err(|e| failed(e.into()))?;
        if want_maps {
            sim.record_maps().map_err(|e| failed(e.into()))?;
        }
        let mut sim = Coupled::new(sim, &level, &root, with_bodies).map_err(failed)?;
        let mut outcome =
            settle(&mut sim, args.until_steady, max_seconds, progress).map_err(failed)?;
        outcome.left_map = sim.left_map(&level);
        let maps = sim.sim.read_maps().map_err(|e| failed(e.into()))?;
        (
            outcome,
            sim.baked(&level).map_err(failed)?,
            sim.bodies(),
            maps,
        )
    } else {
        let mut sim = simulation(&level, path)?;
        if want_maps {
            sim.record_maps();
        }
        let mut sim = Coupled::new(sim, &level, &root, with_bodies).map_err(failed)?;
        let mut outcome =
            settle(&mut sim, args.until_steady, max_seconds, progress).map_err(failed)?;
        outcome.left_map = sim.left_map(&level);
        let maps = sim.sim.maps().cloned();
        (
            outcome,
            sim.baked(&level).map_err(failed)?,
            sim.bodies(),
            maps,
        )
    };
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    create_parent(&args.output)?;
    let (baked, copied) = match &moving {
        Some((from, to)) => bring_body_files(baked, (from, to), &args.output)?,
        None => (baked, 0),
    };
    // The maps before the level: one that cannot be written fails the bake with no level
    // replaced (written after it, the failure hid the bake's verdict over a new level).
    let map_files = match (&args.maps, &maps) {
        (Some(dir), Some(maps)) => Some(
            crate::project::maps_io::export_maps(dir, maps)
                .map_err(|e| CliError::failure(e.to_string()))?
                .len(),
        ),
        _ => None,
    };
    let rewritten = rewrite_notes(path, &args.output);
    file::save(&baked, &args.output).map_err(|e| CliError::failure(e.to_string()))?;
    for note in rewritten {
        super::note(&note);
    }
    let report = BakeReport {
        input: path.clone(),
        output: args.output.clone(),
        seconds: outcome.seconds,
        steady: outcome.steady,
        rate: outcome.rate,
        tolerance: args.until_steady,
        max_seconds: args.max_seconds,
        bodies,
        left_map: outcome.left_map,
        body_files_copied: copied,
        map_files,
        wall_seconds: started.elapsed().as_secs_f64(),
    };
    if args.json {
        let text = serde_json::to_string(&report)
            .map_err(|e| CliError::failure(format!("cannot write the report as JSON: {e}")))?;
        say(&text)?;
    } else {
        if let (Some(dir), Some(n)) = (&args.maps, map_files) {
            say(&format!("maps of the run: {n} files in {}", dir.display()))?;
        }
        say(&summary(&report))?;
    }
    if args.require_steady && !report.steady {
        return Err(CliError::not_steady(format!(
            "{}: not steady after {} s: the depth still changes by {:.3e} m/s, above \
             --until-steady {} (the baked level was written)",
            path.display(),
            args.max_seconds,
            report.rate,
            args.until_steady
        )));
    }
    Ok(())
}

/// What a bake over its own input loses of the file as the designer wrote it: its comments
/// (the saved file is written anew) and its older format version (it is saved migrated). One
/// note each, for stderr; none when the output is another file.
fn rewrite_notes(input: &Path, output: &Path) -> Vec<String> {
    let same = match (input.canonicalize(), output.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    let Some(text) = same.then(|| std::fs::read_to_string(input).ok()).flatten() else {
        return Vec::new();
    };
    let mut notes = Vec::new();
    let shown = input.display();
    if has_comment(&text) {
        notes.push(format!(
            "note: {shown}: the comments in the level file are not kept (the baked level is \
             written anew; bake to another file with -o to keep the original)"
        ));
    }
    if let Some(v) = format_version(&text).filter(|&v| v < spillway::level::FORMAT_VERSION) {
        notes.push(format!(
            "note: {shown}: written in format version {} (it was version {v}; older Spillway \
             versions will not open it)",
            spillway::level::FORMAT_VERSION
        ));
    }
    notes
}

/// Whether RON `text` holds a `//` or `/*` comment outside its strings.
fn has_comment(text: &str) -> bool {
    let mut in_string = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (in_string, c) {
            (true, '\\') => {
                chars.next();
            }
            (_, '"') => in_string = !in_string,
            (false, '/') if matches!(chars.peek(), Some('/' | '*')) => return true,
            _ => {}
        }
    }
    false
}

/// The `format_version: N` a level file's text declares, if it reads as one.
fn format_version(text: &str) -> Option<u32> {
    let at = text.find("format_version")? + "format_version".len();
    let rest = text[at..].trim_start().strip_prefix(':')?.trim_start();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The human summary of a bake: `baked IN → OUT: 30.0 s simulated, final change rate …`.
fn summary(r: &BakeReport) -> String {
    let verdict = if r.steady {
        format!("steady (below {} m/s)", r.tolerance)
    } else {
        format!(
            "not steady after the {} s limit (tolerance {} m/s)",
            r.max_seconds, r.tolerance
        )
    };
    let mut bodies = match r.bodies {
        0 => String::new(),
        n => format!(
            ", {} coupled (saved where they came to rest)",
            crate::count(n, "body")
        ),
    } + &left_map_note(&r.left_map);
    if r.body_files_copied > 0 {
        let files = match r.body_files_copied {
            1 => "its body file".to_string(),
            n => format!("its {n} body files"),
        };
        let dir = level_folder(&r.output).join(BODIES_DIR);
        bodies += &format!("; {files} copied into {}", dir.display());
    }
    format!(
        "baked {} → {}: {:.1} s simulated, final change rate {:.3e} m/s, {verdict}{bodies}",
        r.input.display(),
        r.output.display(),
        r.seconds,
        r.rate
    )
}

/// The folders a bake moves body files between, `(input's, output's)`: `None` when the
/// level has no bodies or the output lies beside the input.
fn body_file_move(level: &Level, input: &Path, output: &Path) -> Option<(PathBuf, PathBuf)> {
    let (from, to) = (level_folder(input), level_folder(output));
    let same = from
        .canonicalize()
        .ok()
        .is_some_and(|a| to.canonicalize().ok() == Some(a));
    (!level.bodies.is_empty() && !same).then_some((from, to))
}

/// `baked` with its bodies' glTF files copied from `from` into `to` (a level loads its body
/// files only from inside its own folder) and their paths relative to `to`, and how many were
/// copied. The files were checked to load from `from` before the bake ran ([`import_meshes`]:
/// never from outside it); the copies are loaded again from `to`, so a level written with
/// body files it cannot load is refused by name.
fn bring_body_files(
    mut baked: Level,
    (from, to): (&Path, &Path),
    output: &Path,
) -> Result<(Level, usize), CliError> {
    let fail = |e: &dyn std::fmt::Display| CliError::failure(format!("{}: {e}", output.display()));
    let (bodies, copied) = relink(&baked.bodies, Some(from), to).map_err(|e| fail(&e))?;
    baked.bodies = bodies;
    import_meshes(&baked, to).map_err(|e| fail(&e))?;
    Ok((baked, copied))
}

/// What the bake did with the bodies that went over an open edge of the map (empty when none
/// did): `; 2 bodies went over an open edge of the map (log 1, log 2) and keep their placement`,
/// naming at most [`NAMED`] of them.
pub(crate) fn left_map_note(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => format!("; {one} went over an open edge of the map and keeps its placement"),
        many => {
            let mut list = many[..many.len().min(NAMED)].join(", ");
            if many.len() > NAMED {
                list += &format!(" and {} more", many.len() - NAMED);
            }
            format!(
                "; {} bodies went over an open edge of the map ({list}) and keep their placement",
                many.len()
            )
        }
    }
}

/// Most bodies a bake's note names.
const NAMED: usize = 5;

/// What to do about a body whose file does not load: a bake keeps the level's bodies (with
/// `--no-bodies` too), so the file must load, as `spillway check` and the game ask.
fn fix_bodies_hint(e: &BakeError) -> &'static str {
    match e {
        BakeError::Bodies(spillway::body::world::WorldError::Import { .. }) => {
            " (mend or put back the body's file, or remove the body: `spillway check` and the \
             game refuse the level too)"
        }
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_names_a_few_bodies_gone_over_the_edge_and_counts_the_rest() {
        let names = |n: usize| (1..=n).map(|k| format!("log {k}")).collect::<Vec<_>>();
        assert_eq!(left_map_note(&[]), "");
        assert_eq!(
            left_map_note(&names(2)),
            "; 2 bodies went over an open edge of the map (log 1, log 2) and keep their placement"
        );
        assert_eq!(
            left_map_note(&names(7)),
            "; 7 bodies went over an open edge of the map (log 1, log 2, log 3, log 4, log 5 and 2 \
             more) and keep their placement"
        );
    }

    #[test]
    fn comments_are_found_outside_strings_only() {
        assert!(has_comment("(\n    // the river's mouth\n    name: \"x\")"));
        assert!(has_comment("(name: \"x\", /* later */ cell_size: 1.0)"));
        assert!(!has_comment("(name: \"http://a/*b*/\", cell_size: 1.0)"));
        assert!(!has_comment("(name: \"a \\\" // b\", cell_size: 1.0)"));
        assert_eq!(format_version("(\n    format_version: 2,\n"), Some(2));
        assert_eq!(format_version("(format_version:3)"), Some(3));
        assert_eq!(format_version("(name: \"x\")"), None);
    }
}
