//! The headless `spillway` command line: import heightmaps, run, bake, check and benchmark
//! levels without a window. Each subcommand lives in its own module with its clap arguments
//! and a `run` function; [`main`] parses the command line and turns errors into exit codes.
//!
//! Exit codes: 0 success, 1 failure, 2 bad usage or (for `check`) an invalid level, 3 a bake
//! written but not steady under `--require-steady` (so a pipeline tells a level that does not
//! settle from a disk or a driver failing). Every error is one line on stderr that names the
//! file involved.

pub mod bake;
pub mod bench;
pub mod check;
pub mod import;
mod options;
mod output;
pub mod sim;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

pub use options::{Backend, BoundaryArg, SolverArg, SolverOverrides};

/// `spillway`: the Spillway level editor and its headless tools.
#[derive(Debug, Parser)]
#[command(name = "spillway", version, about, long_about = None)]
pub struct Cli {
    /// What to do; without one, the editor opens.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the editor window (optionally on a level).
    Edit(EditArgs),
    /// Make a level from a terrain heightmap (.npy, grayscale PNG or RAW r16) and optional
    /// water depths.
    Import(import::ImportArgs),
    /// Run a level for some simulated seconds and report volumes and timing.
    Sim(sim::SimArgs),
    /// Run a level until the water settles and save it with its flow state.
    Bake(bake::BakeArgs),
    /// Load and validate a level file.
    Check(check::CheckArgs),
    /// Time the solver on the peers' benchmark scene: a dam break over hills, walls, n × n
    /// cells (the scene of the peers' `pipe_array.py`, outside this repository).
    Bench(bench::BenchArgs),
}

/// Arguments of `spillway edit`.
#[derive(Debug, Args)]
pub struct EditArgs {
    /// Level or project to open.
    pub path: Option<PathBuf>,
}

/// A failed command: the one-line message for stderr and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    /// Exit code: 1 for failures, 2 for invalid input, 3 for a bake that did not settle.
    pub code: u8,
    /// What went wrong, naming the file involved.
    pub message: String,
}

impl CliError {
    /// A failure (exit code 1).
    pub fn failure(message: impl Into<String>) -> Self {
        Self {
            code: 1,
            message: message.into(),
        }
    }

    /// An invalid input: a level that does not check, or bad usage (exit code 2).
    pub fn invalid(message: impl Into<String>) -> Self {
        Self {
            code: 2,
            message: message.into(),
        }
    }

    /// A bake that was written but did not settle, under `--require-steady` (exit code 3).
    pub fn not_steady(message: impl Into<String>) -> Self {
        Self {
            code: 3,
            message: message.into(),
        }
    }
}

/// Result of a subcommand.
pub type CliResult = Result<(), CliError>;

/// Parses the process's command line, runs it and returns the exit code. Bad usage is reported
/// by clap with exit code 2.
pub fn main() -> ExitCode {
    quiet_device_select();
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}

/// Keeps Mesa's Vulkan device-select layer out where there is no desktop session (a build
/// server, CI, a shell over ssh: no `XDG_RUNTIME_DIR`): it looks for a Wayland display to rank
/// the GPUs by and, finding none, prints "error: XDG_RUNTIME_DIR is invalid or not set in the
/// environment." twice for every command that looks for an adapter, though nothing failed. The
/// solver ranks the adapters itself (`spillway::gpu`). `NODEVICE_SELECT` set by the user wins.
fn quiet_device_select() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none()
        && std::env::var_os("NODEVICE_SELECT").is_none()
    {
        // SAFETY: first thing in `main`, before any other thread is started.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> CliResult {
    match cli.command {
        None => edit(&EditArgs { path: None }),
        Some(Command::Edit(args)) => edit(&args),
        Some(Command::Import(mut args)) => {
            args.output = output::level_output(&args.output);
            let mut inputs = vec![args.terrain.as_path()];
            inputs.extend(args.water.as_deref());
            // A refused or failed import leaves no folder behind.
            output::or_unmade(&[&level_folder(&args.output)], || {
                output::check_output(&args.output, "-o", &inputs, "ron")?;
                import::run(&args)
            })
        }
        Some(Command::Sim(mut args)) => {
            args.level = level_file(&args.level, CliError::failure)?;
            let Some(out) = &args.dump_depth else {
                return sim::run(&args);
            };
            output::or_unmade(&[&level_folder(out)], || {
                output::check_output(out, "--dump-depth", &[&args.level], "npy")?;
                sim::run(&args)
            })
        }
        Some(Command::Bake(mut args)) => {
            args.level = level_file(&args.level, CliError::failure)?;
            // `-o` naming the input's own folder where it holds another level means the input:
            // that other level (its `level.ron` beside `hard.ron`) was replaced, its grids
            // deleted. A folder with no level gets a new `level.ron`, as before.
            let home = (args.level.parent()).map(|p| {
                output::resolved(if p.as_os_str().is_empty() {
                    ".".as_ref()
                } else {
                    p
                })
            });
            let given = std::mem::take(&mut args.output);
            args.output = output::level_output(&given);
            let other = args.output.is_file()
                && output::resolved(&args.output) != output::resolved(&args.level);
            if given.is_dir() && other && home == Some(output::resolved(&given)) {
                args.output = args.level.clone();
            }
            // Baking over the input is allowed (the bake reads it first, and the save is
            // atomic); only the folder is checked.
            let folder = level_folder(&args.output);
            let mut folders = vec![folder.as_path()];
            folders.extend(args.maps.as_deref());
            output::or_unmade(&folders, || {
                // The level file first: a --maps naming it is refused for what it is.
                output::check_output(&args.output, "-o", &[], "ron")?;
                match args.maps.as_deref() {
                    // As paths, not text (`./out/level.ron` ran the bake, then failed).
                    Some(maps) if output::resolved(maps) == output::resolved(&args.output) => {
                        return Err(CliError::invalid(format!(
                            "{}: --maps names the level file -o writes; give a folder",
                            maps.display()
                        )));
                    }
                    Some(maps) => output::check_folder(maps, "--maps")?,
                    None => {}
                }
                bake::run(&args)
            })
        }
        Some(Command::Check(mut args)) => {
            args.level = level_file(&args.level, CliError::invalid)?;
            check::run(&args)
        }
        Some(Command::Bench(args)) => bench::run(&args),
    }
}

/// The level file a command's `LEVEL.ron` argument names: the file, or a project folder's
/// `level.ron` ([`crate::project::level_file`]); a folder without one fails with `error`.
fn level_file(path: &Path, error: fn(String) -> CliError) -> Result<PathBuf, CliError> {
    crate::project::level_file(path).map_err(error)
}

/// `spillway edit`: opens the editor window on the level (or on the bundled sample).
#[cfg(feature = "gui")]
fn edit(args: &EditArgs) -> CliResult {
    crate::app::run(args.path.clone()).map_err(|e| CliError::failure(e.to_string()))
}

/// `spillway edit` in a headless build: says how to get the window.
#[cfg(not(feature = "gui"))]
fn edit(_args: &EditArgs) -> CliResult {
    Err(CliError::failure(
        "this spillway is the headless command line (built without the `gui` feature): \
         build it with default features for the editor window"
            .to_string(),
    ))
}

/// Prints `text` and a newline on stdout; a closed pipe is not an error, other write errors are.
pub fn say(text: &str) -> CliResult {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::failure(format!("cannot write to stdout: {e}"))),
    }
}

/// Prints `text` and a newline on stderr, ignoring failures (it is only a progress note).
pub fn note(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// Creates the folder that will hold the output file `path`, if it does not exist yet.
pub fn create_parent(path: &std::path::Path) -> CliResult {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir).map_err(|e| {
            CliError::failure(format!("{}: cannot create the folder: {e}", dir.display()))
        }),
        _ => Ok(()),
    }
}

/// "1 thread" or "N threads".
pub fn threads_label(n: usize) -> String {
    if n == 1 {
        "1 thread".into()
    } else {
        format!("{n} threads")
    }
}

/// Builds rayon's global pool with `threads` threads (at most one a core), if given.
pub fn init_threads(threads: Option<usize>) -> CliResult {
    if let Some(mut n) = threads {
        // More threads than cores only costs their start (65535 did not start in 20 s).
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        if n > cores {
            note(&format!(
                "note: --threads {n} is more than the {cores} cores here: using {cores}"
            ));
            n = cores;
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| CliError::failure(format!("cannot start {n} worker threads: {e}")))?;
    }
    Ok(())
}

/// The folder of the level file `path` (its bodies' glTF paths are relative to it).
pub(crate) fn level_folder(path: &std::path::Path) -> std::path::PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    }
}
