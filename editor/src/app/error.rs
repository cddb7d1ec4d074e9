//! Why something the designer asked of the window failed: [`EditorError`], shown in an error
//! dialog or the status bar, and [`NewLevelError`], shown under the New level form.

use crate::project::body_files::BodyFileError;
use crate::project::heightmap_io::HeightmapIoError;
use crate::task::TaskError;
use spillway::body::import::ImportError;

/// Why opening the window, importing, saving or a background file task failed.
#[derive(Debug, thiserror::Error)]
pub enum EditorError {
    /// There is no display to open the window on.
    #[error(
        "the editor needs a display, but neither DISPLAY nor WAYLAND_DISPLAY is set (for a \
         virtual one: `Xvfb :99 & DISPLAY=:99 spillway`); the command-line tools (`spillway \
         check`, `bake`, ...) work without one"
    )]
    NoDisplay,
    /// The bundled sample project is not where it should be.
    #[error("the sample project {0} was not found; pass a level to open")]
    NoSampleProject(&'static str),
    /// The window toolkit failed.
    #[error("the editor window failed: {0}")]
    Window(#[from] eframe::Error),
    /// A heightmap could not be read or written.
    #[error(transparent)]
    Heightmap(#[from] HeightmapIoError),
    /// The bodies' files could not be copied beside the level.
    #[error(transparent)]
    BodyFiles(#[from] BodyFileError),
    /// A glTF body could not be imported.
    #[error(transparent)]
    Body(#[from] ImportError),
    /// A heightmap of another size would make an invalid level.
    #[error("the resized level is not valid: `{field}`: {reason}")]
    ResizedLevel {
        /// The field path that is wrong.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A background save, import or export failed.
    #[error(transparent)]
    Task(#[from] TaskError),
}

/// Why the New level form's values make no level.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NewLevelError {
    /// The size is outside the limits (the reason says which).
    #[error("{0}")]
    Size(String),
    /// The cell size is not a positive number.
    #[error("the cell size must be a positive number of metres")]
    CellSize,
    /// The initial height is not a number.
    #[error("the initial height must be a number")]
    Height,
}
