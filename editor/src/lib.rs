//! The Spillway level editor: the editor window ([`app`]) over the document model ([`document`]),
//! sculpting tools ([`tools`]) and project files ([`project`]), drawing its viewport with
//! [`spillway_render`]; the headless command line ([`cli`]) and the heightmap readers both share
//! ([`heightmap`]).
#![deny(missing_docs)]

#[cfg(feature = "gui")]
pub mod app;
pub mod bake;
pub mod cli;
pub mod document;
pub mod erode;
pub mod heightmap;
pub mod preview;
pub mod project;
pub mod sizing;
pub mod task;
pub mod tools;
