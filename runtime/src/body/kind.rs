//! Kinds of bodies by their file's name: the default density of a new body (stone and loaded
//! metal sink and block water, wood floats) and the colour it is drawn in, alike in the
//! editor and a game.

use std::path::Path;

/// What a body's file name says of it: the default density of a new body
/// (stone and loaded metal sink and block water, wood floats) and the colour it is drawn in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyKind {
    /// Words of the file's stem that name the kind (lower case).
    pub words: &'static [&'static str],
    /// Density of a new body, kg/m³.
    pub density: f32,
    /// Linear albedo.
    pub colour: [f32; 3],
}

/// The kinds known, tried in order; [`WOOD`] for any other file.
pub const KINDS: [BodyKind; 4] = [
    BodyKind {
        words: &["boulder", "rock", "stone"],
        density: 2600.0,
        colour: [0.36, 0.35, 0.33],
    },
    BodyKind {
        words: &["cart", "truck"],
        density: 1500.0,
        colour: [0.55, 0.14, 0.10],
    },
    BodyKind {
        words: &["barrel"],
        density: 400.0,
        colour: [0.40, 0.22, 0.10],
    },
    BodyKind {
        words: &["crate"],
        density: 500.0,
        colour: [0.62, 0.43, 0.22],
    },
];

/// Any other body: wood.
pub const WOOD: BodyKind = BodyKind {
    words: &[],
    density: 650.0,
    colour: [0.62, 0.43, 0.22],
};

/// The kind of the body in file `gltf`, from its name.
pub fn kind_of(gltf: &str) -> BodyKind {
    let stem = stem(gltf).to_lowercase();
    KINDS
        .into_iter()
        .find(|k| k.words.iter().any(|w| stem.contains(w)))
        .unwrap_or(WOOD)
}

fn stem(gltf: &str) -> &str {
    Path::new(gltf)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("Body")
}
