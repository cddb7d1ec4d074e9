//! The `spillway` binary: a thin entry point over [`spillway_editor::cli`].

fn main() -> std::process::ExitCode {
    spillway_editor::cli::main()
}
