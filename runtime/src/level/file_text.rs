//! The level file as text: read within its size limit, checked to be UTF-8, and RON errors
//! turned into messages that name the line, the column and the level's own words.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::{MAX_RON_BYTES, invalid};
use crate::error::LevelError;
use crate::level::ValidationError;

/// Opens `path` for reading if it is a plain file (or a link to one): the open of a named pipe
/// waits for a writer, a device never ends (`/dev/stdin`, `/dev/zero`), and a folder reads as
/// nothing. Used for every file a level or an import reads.
pub fn open_plain(path: &Path) -> std::io::Result<File> {
    if !std::fs::metadata(path)?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a plain file (a pipe, a device or a folder)",
        ));
    }
    File::open(path)
}

/// Reads the level file's text, refusing files over [`MAX_RON_BYTES`].
pub(super) fn read_text(path: &Path) -> Result<String, LevelError> {
    let io_err = |source| LevelError::Io {
        path: path.to_path_buf(),
        action: "read the level file",
        source,
    };
    let file = open_plain(path).map_err(io_err)?;
    let len = file.metadata().map_err(io_err)?.len();
    if len > MAX_RON_BYTES {
        return Err(too_long(path, len));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(MAX_RON_BYTES)
        .read_to_end(&mut bytes)
        .map_err(io_err)?;
    text_of(path, bytes)
}

/// The error for a level file of `len` bytes, over [`MAX_RON_BYTES`].
pub(super) fn too_long(path: &Path, len: u64) -> LevelError {
    invalid(
        path,
        ValidationError::new(
            "(file)",
            format!("the level file is {len} bytes, more than the {MAX_RON_BYTES}-byte limit"),
        ),
    )
}

/// The level file's bytes as text, or where they stop being UTF-8.
pub(super) fn text_of(path: &Path, bytes: Vec<u8>) -> Result<String, LevelError> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let before = &bytes[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        LevelError::Ron {
            path: path.to_path_buf(),
            line,
            column: at - line_start + 1,
            message: format!(
                "not UTF-8 text (byte 0x{:02x} at byte offset {at}); a level file is RON text",
                bytes[at]
            ),
        }
    })
}

/// Converts a RON error to a [`LevelError::Ron`] at its position, quoting the offending line.
pub(super) fn ron_error(path: &Path, text: &str, e: ron::error::SpannedError) -> LevelError {
    let line = e.span.start.line;
    let mut message = match &e.code {
        ron::Error::ExceededRecursionLimit => {
            "nested too deeply (more brackets inside each other than any level has)".to_string()
        }
        code => code.to_string().replace(['\n', '\r'], " "),
    };
    // The parser names this module's private structs; a designer knows them as the level.
    for (internal, shown) in [
        ("struct `VersionProbe`", "the level"),
        ("`VersionProbe`", "the level"),
        ("`LevelFileV1`", "the level (format version 1)"),
        ("`LevelFileV2`", "the level (format version 2)"),
        ("`ParamsV2`", "`params`"),
        ("`LevelFile`", "the level"),
        ("`FlowFileV1`", "`flow` (format version 1)"),
        ("`FlowFile`", "`flow`"),
        ("`GridRef`", "the grid reference"),
    ] {
        message = message.replace(internal, shown);
    }
    let excerpt = text
        .lines()
        .nth(line.saturating_sub(1))
        .unwrap_or("")
        .trim();
    if !excerpt.is_empty() {
        let short: String = excerpt.chars().take(80).collect();
        let more = if short.len() < excerpt.len() {
            "…"
        } else {
            ""
        };
        message = format!("{message} (in `{short}{more}`)");
    }
    LevelError::Ron {
        path: path.to_path_buf(),
        line,
        column: e.span.start.col,
        message,
    }
}
