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

/// Shaders `include_str!`-ed by the Rust files of `dir` under package `package` (a folder of
/// the workspace); panics on one outside the package (it would not publish).
fn shaders_inside(package: &str, dir: &str) -> usize {
    let root = format!("{}/../{package}", env!("CARGO_MANIFEST_DIR"));
    let sources: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
        .unwrap_or_else(|e| panic!("{package}/{dir}: {e}"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    let package_dir = std::fs::canonicalize(&root).expect("the package");
    let mut shaders = 0;
    for path in sources {
        let text = std::fs::read_to_string(&path).expect("readable");
        for (n, _) in text.match_indices("include_str!(\"") {
            let rel = &text[n + 14..];
            let rel = &rel[..rel.find('"').expect("closing quote")];
            let file = path.parent().expect("dir").join(rel);
            let canonical = std::fs::canonicalize(&file)
                .unwrap_or_else(|e| panic!("{}: {rel}: {e}", path.display()));
            assert!(
                canonical.starts_with(&package_dir),
                "{} includes {rel}, outside the {package} package",
                path.display()
            );
            shaders += 1;
        }
    }
    shaders
}

#[test]
fn the_runtime_and_renderer_shaders_are_inside_their_packages() {
    let solver = shaders_inside("runtime", "src/gpu");
    assert!(solver >= 12, "{solver} solver shaders included");
    let renderer = shaders_inside("render", "src");
    assert_eq!(
        renderer, 4,
        "terrain, bodies, water and the globals they share"
    );
}
