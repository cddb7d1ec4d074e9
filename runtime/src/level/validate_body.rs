//! Validation of a level's placed bodies: a glTF path that stays inside the level's folder,
//! a finite placement, a rotation that is a rotation, positive scale and density.

use std::path::{Component, Path};

use super::{Check, finite, positive};
use crate::level::{Body, ValidationError};

pub(super) fn check_body(at: &str, body: &Body) -> Check {
    check_gltf_path(&format!("{at}.gltf"), &body.gltf)?;
    for (i, &v) in body.translation.iter().enumerate() {
        finite(&format!("{at}.translation[{i}]"), v)?;
    }
    for (i, &v) in body.rotation.iter().enumerate() {
        finite(&format!("{at}.rotation[{i}]"), v)?;
    }
    let norm2: f32 = body.rotation.iter().map(|v| v * v).sum();
    if !(norm2 > 0.0 && norm2.is_finite()) {
        return Err(ValidationError::new(
            format!("{at}.rotation"),
            "quaternion has zero (or unrepresentable) length",
        ));
    }
    for (i, &v) in body.scale.iter().enumerate() {
        positive(&format!("{at}.scale[{i}]"), v)?;
    }
    positive(&format!("{at}.density"), body.density)
}

fn check_gltf_path(field: &str, gltf: &str) -> Check {
    let err = |reason: &str| Err(ValidationError::new(field, reason));
    if gltf.trim().is_empty() {
        return err("glTF path is empty");
    }
    if gltf.contains('\0') {
        return err("glTF path contains a NUL character");
    }
    let bytes = gltf.as_bytes();
    let windows_absolute = gltf.starts_with('\\')
        || (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':');
    let path = Path::new(gltf);
    if windows_absolute
        || path.is_absolute()
        || path
            .components()
            .any(|c| matches!(c, Component::RootDir | Component::Prefix(_)))
    {
        return err("glTF path must be relative to the level file");
    }
    Ok(())
}
