//! Opens the editor window: `cargo run -p spillway-editor --example editor [LEVEL.ron]`
//! (the `spillway` binary does the same).

fn main() -> std::process::ExitCode {
    let project = std::env::args_os().nth(1).map(std::path::PathBuf::from);
    match spillway_editor::app::run(project) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spillway: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
