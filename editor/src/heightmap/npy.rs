//! A small, strict reader and writer of NumPy `.npy` files holding 2-D float arrays.
//!
//! Accepted: format versions 1.0, 2.0 and 3.0, dtype `<f4` or `<f8` (little-endian),
//! `fortran_order: False`, a 2-D shape `(rows, cols)` with row index = y. The header is checked
//! before any grid memory is allocated, the data must be exactly `rows × cols` values, and
//! every value must be finite (the first bad one is reported with its row and column).
//! Written files are version 1.0, `<f4`, C order.

use std::path::Path;

use spillway::Grid;
use spillway::level::ranges::MAX_HEIGHT;
use thiserror::Error;

use super::HeightmapError;

/// The magic bytes every `.npy` file starts with.
pub const MAGIC: &[u8] = b"\x93NUMPY";

/// Largest header (the Python dict) this reader accepts; NumPy writes well under 1 KiB.
const MAX_HEADER: usize = 64 * 1024;

/// Element type of an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    /// Little-endian 32-bit float (`<f4`).
    F32,
    /// Little-endian 64-bit float (`<f8`).
    F64,
}

impl std::fmt::Display for Dtype {
    /// The NumPy `descr` string: `<f4` or `<f8`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Dtype::F32 => "<f4",
            Dtype::F64 => "<f8",
        })
    }
}

impl Dtype {
    fn size(self) -> usize {
        match self {
            Dtype::F32 => 4,
            Dtype::F64 => 8,
        }
    }
}

/// Why bytes are not an acceptable `.npy` heightmap: each variant says where (byte, row and
/// column, header key) and what is wrong.
#[derive(Debug, Error)]
pub enum NpyError {
    /// The file does not start with [`MAGIC`].
    #[error("not a NumPy .npy file (bad magic bytes)")]
    BadMagic,
    /// The file ends inside the part before the header, or inside the header length field.
    #[error("truncated: the file ends inside the .npy {0}")]
    TruncatedPreamble(&'static str),
    /// A format version other than 1.0, 2.0 or 3.0.
    #[error(".npy format version {major}.{minor} is not supported")]
    Version {
        /// Major version byte.
        major: u8,
        /// Minor version byte.
        minor: u8,
    },
    /// The header length field asks for more than this reader accepts.
    #[error("header length {0} bytes is larger than the {MAX_HEADER}-byte limit")]
    HeaderTooLong(usize),
    /// The file ends before the header does.
    #[error("truncated: the header needs {needed} bytes but the file has only {available}")]
    TruncatedHeader {
        /// Header bytes the length field announces.
        needed: usize,
        /// Bytes the file has after the preamble.
        available: usize,
    },
    /// The header is not UTF-8 text.
    #[error("the .npy header is not text ({0})")]
    HeaderNotText(#[source] std::str::Utf8Error),
    /// The header is not a Python dict literal this reader understands.
    #[error("malformed .npy header: {0}")]
    Malformed(#[from] HeaderSyntaxError),
    /// A key the format requires is missing from the header.
    #[error("the .npy header has no '{0}'")]
    MissingKey(&'static str),
    /// `descr` names a big-endian float.
    #[error("dtype '{0}' is big-endian; save the array as little-endian float32 or float64")]
    BigEndian(String),
    /// `descr` names a type other than a float32 or float64.
    #[error("dtype '{0}' is not supported; use float32 ('<f4') or float64 ('<f8')")]
    UnsupportedDtype(String),
    /// `descr`, `fortran_order` or `shape` holds a value of the wrong kind.
    #[error("'{key}' must be {wanted}, found {found:?}")]
    WrongValue {
        /// The header key.
        key: &'static str,
        /// What the key must hold.
        wanted: &'static str,
        /// What it holds.
        found: HeaderValue,
    },
    /// The array is stored column-major.
    #[error(
        "the array is in Fortran (column-major) order; save it in C order (np.ascontiguousarray)"
    )]
    FortranOrder,
    /// The shape is not 2-D.
    #[error("the array has {} dimensions {:?}; a heightmap needs 2 (rows, cols)", .0.len(), .0)]
    Dimensions(Vec<usize>),
    /// `rows × cols` values of the dtype do not fit in memory's address range.
    #[error("shape ({rows}, {cols}) is too large")]
    ShapeTooLarge {
        /// Rows of the shape.
        rows: usize,
        /// Columns of the shape.
        cols: usize,
    },
    /// More cells than a level may hold (`Limits::default().max_cells`), or fewer than 2 × 2.
    #[error(
        "shape ({rows}, {cols}): a heightmap needs 2 to {limit} cells a side and at most {cells} cells"
    )]
    ShapeOutsideLimits {
        /// Rows of the shape.
        rows: usize,
        /// Columns of the shape.
        cols: usize,
        /// Most cells a side.
        limit: usize,
        /// Most cells.
        cells: usize,
    },
    /// A value farther from 0 than any height or depth of a level may be.
    #[error("value {value} at row {row}, column {col} is beyond ±{MAX_HEIGHT} m")]
    TooHigh {
        /// The value.
        value: f32,
        /// Its row.
        row: usize,
        /// Its column.
        col: usize,
    },
    /// The data after the header is not exactly `rows × cols` values.
    #[error("shape ({rows}, {cols}) of {dtype} needs {needed} data bytes but the file has {found}")]
    DataLength {
        /// Rows of the shape.
        rows: usize,
        /// Columns of the shape.
        cols: usize,
        /// The element type.
        dtype: Dtype,
        /// Data bytes the shape needs.
        needed: usize,
        /// Data bytes in the file.
        found: usize,
    },
    /// A finite float64 value too large for a 32-bit float.
    #[error("value {value} at row {row}, column {col} does not fit in a 32-bit float")]
    OutOfRange {
        /// The value.
        value: f64,
        /// Its row.
        row: usize,
        /// Its column.
        col: usize,
    },
    /// A NaN or infinite value (the first one).
    #[error("value {value} at row {row}, column {col} is not a finite number")]
    NotFinite {
        /// The value.
        value: f32,
        /// Its row.
        row: usize,
        /// Its column.
        col: usize,
    },
}

/// Where and why the header's dict literal does not parse; byte offsets count from the start
/// of the header text.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum HeaderSyntaxError {
    /// A required character is missing.
    #[error("expected '{expected}' at byte {at}")]
    Expected {
        /// The character wanted.
        expected: char,
        /// Byte offset.
        at: usize,
    },
    /// A key or value that should be a quoted string is not.
    #[error("expected a quoted string at byte {0}")]
    ExpectedString(usize),
    /// A quoted string has no closing quote.
    #[error("unterminated string from byte {0}")]
    UnterminatedString(usize),
    /// A shape dimension is not a number.
    #[error("expected a number at byte {0}")]
    ExpectedNumber(usize),
    /// A shape dimension overflows `usize`.
    #[error("a shape dimension is too large at byte {0}")]
    NumberTooLarge(usize),
    /// Text follows the closing brace.
    #[error("unexpected text after the dict at byte {0}")]
    TrailingText(usize),
}

/// One value of the header dict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderValue {
    /// A quoted string.
    Str(String),
    /// `True` or `False`.
    Bool(bool),
    /// A tuple of non-negative integers.
    Tuple(Vec<usize>),
}

/// A parsed `.npy` array: its element type and the values as `f32` in a grid of
/// `nx = cols`, `ny = rows`.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    /// Element type stored in the file.
    pub dtype: Dtype,
    /// The values, row `y` of the array being row `y` of the grid.
    pub grid: Grid,
}

/// Reads the `.npy` file at `path` as a 2-D float grid. Its preamble and header are read and
/// checked first (the shape against a level's limits, the file's length against the shape),
/// so a file too large is refused unread.
pub fn read(path: &Path) -> Result<Array, HeightmapError> {
    read_with(path, true)
}

/// [`read`] without holding the values to the heights a level may have: values a scale will
/// take to metres (a DEM in millimetres: 1.5e6 mm is 1500 m), checked once scaled.
pub fn read_unscaled(path: &Path) -> Result<Array, HeightmapError> {
    read_with(path, false)
}

fn read_with(path: &Path, heights: bool) -> Result<Array, HeightmapError> {
    use std::io::Read;
    let io = |source| HeightmapError::Io {
        path: path.to_path_buf(),
        action: "read the .npy file",
        source,
    };
    let format = |problem: NpyError| HeightmapError::format(path, problem.to_string());
    let file = spillway::level::file::open_plain(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut head = Vec::new();
    (file.take(12 + MAX_HEADER as u64))
        .read_to_end(&mut head)
        .map_err(io)?;
    let (dtype, rows, cols, data_start) = parse_head(&head).map_err(format)?;
    let found = usize::try_from(len)
        .unwrap_or(usize::MAX)
        .saturating_sub(data_start);
    if found != rows * cols * dtype.size() {
        let needed = rows * cols * dtype.size();
        return Err(format(NpyError::DataLength {
            rows,
            cols,
            dtype,
            needed,
            found,
        }));
    }
    let bytes = std::fs::read(path).map_err(io)?;
    parse_with(&bytes, heights).map_err(format)
}

/// The preamble and header of a `.npy` file: element type, rows, columns and where the data
/// starts; the shape is checked against a level's limits.
fn parse_head(bytes: &[u8]) -> Result<(Dtype, usize, usize, usize), NpyError> {
    if !bytes.starts_with(MAGIC) {
        return Err(NpyError::BadMagic);
    }
    let (major, minor) = match bytes.get(6..8) {
        Some(v) => (v[0], v[1]),
        None => return Err(NpyError::TruncatedPreamble("preamble")),
    };
    let (len_bytes, header_start) = match major {
        1 => (2, 10),
        2 | 3 => (4, 12),
        _ => return Err(NpyError::Version { major, minor }),
    };
    let len_field = bytes
        .get(8..8 + len_bytes)
        .ok_or(NpyError::TruncatedPreamble("header length"))?;
    let header_len = len_field
        .iter()
        .rev()
        .fold(0usize, |acc, &b| (acc << 8) | b as usize);
    if header_len > MAX_HEADER {
        return Err(NpyError::HeaderTooLong(header_len));
    }
    let data_start = header_start + header_len;
    let header = bytes
        .get(header_start..data_start)
        .ok_or_else(|| NpyError::TruncatedHeader {
            needed: header_len,
            available: bytes.len().saturating_sub(header_start),
        })?;
    let header = std::str::from_utf8(header).map_err(NpyError::HeaderNotText)?;
    let (dtype, rows, cols) = parse_header(header)?;
    let limits = spillway::level::Limits::default();
    let side = limits.max_side;
    if rows < 2 || cols < 2 || rows > side || cols > side || rows * cols > limits.max_cells {
        return Err(NpyError::ShapeOutsideLimits {
            rows,
            cols,
            limit: side,
            cells: limits.max_cells,
        });
    }
    Ok((dtype, rows, cols, data_start))
}

/// Parses the bytes of a `.npy` file; the error says what is wrong and where.
pub fn parse(bytes: &[u8]) -> Result<Array, NpyError> {
    parse_with(bytes, true)
}

/// [`parse`], the values held to the heights a level may have where `heights`.
fn parse_with(bytes: &[u8], heights: bool) -> Result<Array, NpyError> {
    let (dtype, rows, cols, data_start) = parse_head(bytes)?;
    let data = &bytes[data_start..];
    let needed = rows
        .checked_mul(cols)
        .and_then(|n| n.checked_mul(dtype.size()))
        .ok_or(NpyError::ShapeTooLarge { rows, cols })?;
    if data.len() != needed {
        return Err(NpyError::DataLength {
            rows,
            cols,
            dtype,
            needed,
            found: data.len(),
        });
    }
    let values: Vec<f32> = match dtype {
        Dtype::F32 => data
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        Dtype::F64 => {
            let mut out = Vec::with_capacity(rows * cols);
            for (i, c) in data.chunks_exact(8).enumerate() {
                let v = f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
                if v.is_finite() && !(v as f32).is_finite() {
                    return Err(NpyError::OutOfRange {
                        value: v,
                        row: i / cols,
                        col: i % cols,
                    });
                }
                out.push(v as f32);
            }
            out
        }
    };
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(NpyError::NotFinite {
            value: values[i],
            row: i / cols,
            col: i % cols,
        });
    }
    let too_high = values.iter().position(|v| heights && v.abs() > MAX_HEIGHT);
    if let Some(i) = too_high {
        return Err(NpyError::TooHigh {
            value: values[i],
            row: i / cols,
            col: i % cols,
        });
    }
    Ok(Array {
        dtype,
        grid: Grid {
            nx: cols,
            ny: rows,
            data: values,
        },
    })
}

/// Checks the header dict and returns dtype, rows and columns.
fn parse_header(header: &str) -> Result<(Dtype, usize, usize), NpyError> {
    let entries = parse_dict(header)?;
    let get = |key: &'static str| {
        entries
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
            .ok_or(NpyError::MissingKey(key))
    };
    let wrong = |key, wanted, found: &HeaderValue| NpyError::WrongValue {
        key,
        wanted,
        found: found.clone(),
    };
    let dtype = match get("descr")? {
        HeaderValue::Str(s) if s == "<f4" => Dtype::F32,
        HeaderValue::Str(s) if s == "<f8" => Dtype::F64,
        HeaderValue::Str(s) if s == ">f4" || s == ">f8" => {
            return Err(NpyError::BigEndian(s.clone()));
        }
        HeaderValue::Str(s) => return Err(NpyError::UnsupportedDtype(s.clone())),
        other => return Err(wrong("descr", "a dtype string", other)),
    };
    match get("fortran_order")? {
        HeaderValue::Bool(false) => {}
        HeaderValue::Bool(true) => return Err(NpyError::FortranOrder),
        other => return Err(wrong("fortran_order", "True or False", other)),
    }
    match get("shape")? {
        HeaderValue::Tuple(dims) if dims.len() == 2 => Ok((dtype, dims[0], dims[1])),
        HeaderValue::Tuple(dims) => Err(NpyError::Dimensions(dims.clone())),
        other => Err(wrong("shape", "a tuple", other)),
    }
}

/// Parses the Python dict literal of a `.npy` header: string keys; string, bool or
/// integer-tuple values.
fn parse_dict(s: &str) -> Result<Vec<(String, HeaderValue)>, HeaderSyntaxError> {
    let mut p = Parser {
        s: s.as_bytes(),
        i: 0,
    };
    p.expect(b'{')?;
    let mut out = Vec::new();
    loop {
        p.ws();
        if p.eat(b'}') {
            break;
        }
        let key = p.string()?;
        p.ws();
        p.expect(b':')?;
        p.ws();
        let value = p.value()?;
        out.push((key, value));
        p.ws();
        if p.eat(b'}') {
            break;
        }
        p.expect(b',')?;
    }
    p.ws();
    if p.i != p.s.len() {
        return Err(HeaderSyntaxError::TrailingText(p.i));
    }
    Ok(out)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        let hit = self.s.get(self.i) == Some(&c);
        self.i += hit as usize;
        hit
    }

    fn expect(&mut self, c: u8) -> Result<(), HeaderSyntaxError> {
        self.ws();
        if self.eat(c) {
            Ok(())
        } else {
            Err(HeaderSyntaxError::Expected {
                expected: c as char,
                at: self.i,
            })
        }
    }

    fn string(&mut self) -> Result<String, HeaderSyntaxError> {
        let quote = match self.s.get(self.i) {
            Some(&q @ (b'\'' | b'"')) => q,
            _ => return Err(HeaderSyntaxError::ExpectedString(self.i)),
        };
        let start = self.i + 1;
        let len = self.s[start..]
            .iter()
            .position(|&c| c == quote)
            .ok_or(HeaderSyntaxError::UnterminatedString(self.i))?;
        self.i = start + len + 1;
        Ok(String::from_utf8_lossy(&self.s[start..start + len]).into_owned())
    }

    fn value(&mut self) -> Result<HeaderValue, HeaderSyntaxError> {
        let rest = &self.s[self.i..];
        if rest.starts_with(b"True") {
            self.i += 4;
            Ok(HeaderValue::Bool(true))
        } else if rest.starts_with(b"False") {
            self.i += 5;
            Ok(HeaderValue::Bool(false))
        } else if rest.starts_with(b"(") {
            self.i += 1;
            let mut dims = Vec::new();
            loop {
                self.ws();
                if self.eat(b')') {
                    break;
                }
                dims.push(self.int()?);
                self.ws();
                if self.eat(b')') {
                    break;
                }
                self.expect(b',')?;
            }
            Ok(HeaderValue::Tuple(dims))
        } else {
            self.string().map(HeaderValue::Str)
        }
    }

    fn int(&mut self) -> Result<usize, HeaderSyntaxError> {
        let start = self.i;
        let mut v: usize = 0;
        while let Some(&c) = self.s.get(self.i).filter(|c| c.is_ascii_digit()) {
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add((c - b'0') as usize))
                .ok_or(HeaderSyntaxError::NumberTooLarge(start))?;
            self.i += 1;
        }
        if self.i == start {
            return Err(HeaderSyntaxError::ExpectedNumber(start));
        }
        self.eat(b'L'); // Python 2 long suffix
        Ok(v)
    }
}

/// The bytes of a version 1.0 `.npy` file holding `grid` as `<f4` of shape `(ny, nx)`.
pub fn encode(grid: &Grid) -> Vec<u8> {
    let dict = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}",
        grid.ny, grid.nx
    );
    // Pad with spaces and a newline so the data starts on a 64-byte boundary, as NumPy does.
    let unpadded = 10 + dict.len() + 1;
    let header_len = dict.len() + 1 + (64 - unpadded % 64) % 64;
    let mut out = Vec::with_capacity(10 + header_len + grid.data.len() * 4);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header_len as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.resize(10 + header_len - 1, b' ');
    out.push(b'\n');
    for v in &grid.data {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// Writes `grid` to `path` as a float32 `.npy` array of shape `(ny, nx)`: whole or not at all
/// (a temporary file renamed into place, which replaces a link at `path` rather than writing
/// through it).
pub fn write(path: &Path, grid: &Grid) -> Result<(), HeightmapError> {
    crate::project::write_atomic(path, &encode(grid)).map_err(|source| HeightmapError::Io {
        path: path.to_path_buf(),
        action: "write the .npy file",
        source,
    })
}

#[cfg(test)]
#[path = "npy_tests.rs"]
mod tests;
