//! The Spillway level editor: the editor window ([`app`]) over the document model ([`document`]),
//! sculpting tools ([`tools`]) and project files ([`project`]), drawing its viewport with
//! [`spillway_render`]; the headless command line ([`cli`]) and the heightmap readers both share
//! ([`heightmap`]).
#![deny(missing_docs)]

#[cfg(feature = "gui")]
pub mod app;
pub mod bake;
pub mod cli;
pub mod coupled;
pub mod document;
pub mod erode;
pub mod heightmap;
pub mod preview;
pub mod project;
pub mod sizing;
pub mod task;
pub mod tools;

/// `n` and the noun, plural unless `n` is 1 ("1 sink", "3 bodies", "2 steps").
pub fn count(n: usize, noun: &str) -> String {
    match (n, noun.strip_suffix('y')) {
        (1, _) => format!("1 {noun}"),
        (_, Some(stem)) if !stem.ends_with(['a', 'e', 'o', 'u']) => format!("{n} {stem}ies"),
        _ => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_read_as_english() {
        assert_eq!(super::count(1, "body"), "1 body");
        assert_eq!(super::count(3, "body"), "3 bodies");
        assert_eq!(super::count(0, "source"), "0 sources");
        assert_eq!(super::count(1, "step"), "1 step");
        assert_eq!(super::count(2, "boundary segment"), "2 boundary segments");
        assert_eq!(super::count(2, "key"), "2 keys");
    }
}
