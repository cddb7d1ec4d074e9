//! What the crates promise a build farm and a game: the headless command line
//! (`spillway-editor --no-default-features`) has no window toolkit in its dependency tree, and
//! the runtime's shaders live inside its package (so `cargo package -p spillway --features
//! gpu,rapier`, which `.ci/run` runs, finds them).

use std::process::Command;

/// `cargo tree` of `args` from the workspace root, one crate name per line.
fn tree(args: &[&str]) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(["tree", "--offline", "-e", "normal", "--prefix", "none"])
        .args(args)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn the_headless_command_line_links_no_window_toolkit() {
    let window = [
        "eframe",
        "egui",
        "egui-wgpu",
        "egui-winit",
        "winit",
        "rfd",
        "x11-dl",
    ];
    let headless = tree(&["-p", "spillway-editor", "--no-default-features"]);
    assert!(headless.iter().any(|c| c == "spillway"), "{headless:?}");
    assert!(headless.iter().any(|c| c == "wgpu"), "the GPU bake stays");
    let found: Vec<_> = headless
        .iter()
        .filter(|c| window.contains(&c.as_str()))
        .collect();
    assert!(
        found.is_empty(),
        "window crates in the headless tree: {found:?}"
    );
    // The default build is the editor, with its window.
    let editor = tree(&["-p", "spillway-editor"]);
    assert!(editor.iter().any(|c| c == "eframe"));
}

#[test]
fn the_runtime_shaders_are_inside_its_package() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../runtime");
    let sources: Vec<_> = std::fs::read_dir(format!("{root}/src/gpu"))
        .expect("runtime/src/gpu")
        .map(|e| e.expect("entry").path())
        .collect();
    let mut shaders = 0;
    for path in sources {
        let text = std::fs::read_to_string(&path).expect("readable");
        for (n, _) in text.match_indices("include_str!(\"") {
            let rel = &text[n + 14..];
            let rel = &rel[..rel.find('"').expect("closing quote")];
            let file = path.parent().expect("dir").join(rel);
            let canonical = std::fs::canonicalize(&file)
                .unwrap_or_else(|e| panic!("{}: {rel}: {e}", path.display()));
            let package = std::fs::canonicalize(root).expect("runtime");
            assert!(
                canonical.starts_with(&package),
                "{} includes {rel}, outside the runtime package",
                path.display()
            );
            shaders += 1;
        }
    }
    assert!(shaders >= 12, "{shaders} shaders included");
}
