//! A small, strict reader and writer of NumPy `.npy` files holding 2-D float arrays.
//!
//! Accepted: format versions 1.0, 2.0 and 3.0, dtype `<f4` or `<f8` (little-endian),
//! `fortran_order: False`, a 2-D shape `(rows, cols)` with row index = y. The header is checked
//! before any grid memory is allocated, the data must be exactly `rows × cols` values, and
//! every value must be finite (the first bad one is reported with its row and column).
//! Written files are version 1.0, `<f4`, C order.

use std::path::Path;

use spillway::Grid;

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

impl Dtype {
    fn size(self) -> usize {
        match self {
            Dtype::F32 => 4,
            Dtype::F64 => 8,
        }
    }
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

/// Reads the `.npy` file at `path` as a 2-D float grid.
pub fn read(path: &Path) -> Result<Array, HeightmapError> {
    let bytes = std::fs::read(path).map_err(|source| HeightmapError::Io {
        path: path.to_path_buf(),
        action: "read the .npy file",
        source,
    })?;
    parse(&bytes).map_err(|problem| HeightmapError::format(path, problem))
}

/// Parses the bytes of a `.npy` file; the error says what is wrong.
pub fn parse(bytes: &[u8]) -> Result<Array, String> {
    if !bytes.starts_with(MAGIC) {
        return Err("not a NumPy .npy file (bad magic bytes)".into());
    }
    let (major, minor) = match bytes.get(6..8) {
        Some(v) => (v[0], v[1]),
        None => return Err("truncated: the file ends inside the .npy preamble".into()),
    };
    let (len_bytes, header_start) = match major {
        1 => (2, 10),
        2 | 3 => (4, 12),
        _ => {
            return Err(format!(
                ".npy format version {major}.{minor} is not supported"
            ));
        }
    };
    let len_field = bytes
        .get(8..8 + len_bytes)
        .ok_or("truncated: the file ends inside the .npy header length")?;
    let header_len = len_field
        .iter()
        .rev()
        .fold(0usize, |acc, &b| (acc << 8) | b as usize);
    if header_len > MAX_HEADER {
        return Err(format!(
            "header length {header_len} bytes is larger than the {MAX_HEADER}-byte limit"
        ));
    }
    let data_start = header_start + header_len;
    let header = bytes.get(header_start..data_start).ok_or_else(|| {
        format!(
            "truncated: the header needs {header_len} bytes but the file has only {}",
            bytes.len().saturating_sub(header_start)
        )
    })?;
    let header =
        std::str::from_utf8(header).map_err(|_| "the .npy header is not text".to_string())?;
    let (dtype, rows, cols) = parse_header(header)?;

    let data = &bytes[data_start..];
    let needed = rows
        .checked_mul(cols)
        .and_then(|n| n.checked_mul(dtype.size()))
        .ok_or_else(|| format!("shape ({rows}, {cols}) is too large"))?;
    if data.len() != needed {
        return Err(format!(
            "shape ({rows}, {cols}) of {} needs {needed} data bytes but the file has {}",
            descr(dtype),
            data.len()
        ));
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
                    return Err(format!(
                        "value {v} at row {}, column {} does not fit in a 32-bit float",
                        i / cols,
                        i % cols
                    ));
                }
                out.push(v as f32);
            }
            out
        }
    };
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(format!(
            "value {} at row {}, column {} is not a finite number",
            values[i],
            i / cols,
            i % cols
        ));
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

fn descr(dtype: Dtype) -> &'static str {
    match dtype {
        Dtype::F32 => "<f4",
        Dtype::F64 => "<f8",
    }
}

/// One value of the header dict.
#[derive(Debug)]
enum Value {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
}

/// Checks the header dict and returns dtype, rows and columns.
fn parse_header(header: &str) -> Result<(Dtype, usize, usize), String> {
    let entries = parse_dict(header).map_err(|e| format!("malformed .npy header: {e}"))?;
    let get = |key: &str| {
        entries
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
            .ok_or_else(|| format!("the .npy header has no '{key}'"))
    };
    let dtype = match get("descr")? {
        Value::Str(s) if s == "<f4" => Dtype::F32,
        Value::Str(s) if s == "<f8" => Dtype::F64,
        Value::Str(s) if s == ">f4" || s == ">f8" => {
            return Err(format!(
                "dtype '{s}' is big-endian; save the array as little-endian float32 or float64"
            ));
        }
        Value::Str(s) => {
            return Err(format!(
                "dtype '{s}' is not supported; use float32 ('<f4') or float64 ('<f8')"
            ));
        }
        other => return Err(format!("'descr' must be a dtype string, found {other:?}")),
    };
    match get("fortran_order")? {
        Value::Bool(false) => {}
        Value::Bool(true) => {
            return Err(
                "the array is in Fortran (column-major) order; save it in C order \
                 (np.ascontiguousarray)"
                    .into(),
            );
        }
        other => {
            return Err(format!(
                "'fortran_order' must be True or False, found {other:?}"
            ));
        }
    }
    match get("shape")? {
        Value::Tuple(dims) if dims.len() == 2 => Ok((dtype, dims[0], dims[1])),
        Value::Tuple(dims) => Err(format!(
            "the array has {} dimensions {dims:?}; a heightmap needs 2 (rows, cols)",
            dims.len()
        )),
        other => Err(format!("'shape' must be a tuple, found {other:?}")),
    }
}

/// Parses the Python dict literal of a `.npy` header: string keys; string, bool or
/// integer-tuple values.
fn parse_dict(s: &str) -> Result<Vec<(String, Value)>, String> {
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
        return Err(format!("unexpected text after the dict at byte {}", p.i));
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

    fn expect(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!("expected '{}' at byte {}", c as char, self.i))
        }
    }

    fn string(&mut self) -> Result<String, String> {
        let quote = match self.s.get(self.i) {
            Some(&q @ (b'\'' | b'"')) => q,
            _ => return Err(format!("expected a quoted string at byte {}", self.i)),
        };
        let start = self.i + 1;
        let len = self.s[start..]
            .iter()
            .position(|&c| c == quote)
            .ok_or("unterminated string")?;
        self.i = start + len + 1;
        Ok(String::from_utf8_lossy(&self.s[start..start + len]).into_owned())
    }

    fn value(&mut self) -> Result<Value, String> {
        let rest = &self.s[self.i..];
        if rest.starts_with(b"True") {
            self.i += 4;
            Ok(Value::Bool(true))
        } else if rest.starts_with(b"False") {
            self.i += 5;
            Ok(Value::Bool(false))
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
            Ok(Value::Tuple(dims))
        } else {
            self.string().map(Value::Str)
        }
    }

    fn int(&mut self) -> Result<usize, String> {
        let start = self.i;
        let mut v: usize = 0;
        while let Some(&c) = self.s.get(self.i).filter(|c| c.is_ascii_digit()) {
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add((c - b'0') as usize))
                .ok_or("a shape dimension is too large")?;
            self.i += 1;
        }
        if self.i == start {
            return Err(format!("expected a number at byte {start}"));
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

/// Writes `grid` to `path` as a float32 `.npy` array of shape `(ny, nx)`.
pub fn write(path: &Path, grid: &Grid) -> Result<(), HeightmapError> {
    std::fs::write(path, encode(grid)).map_err(|source| HeightmapError::Io {
        path: path.to_path_buf(),
        action: "write the .npy file",
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(dict: &str, data: &[u8]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&((dict.len() + 1) as u16).to_le_bytes());
        out.extend_from_slice(dict.as_bytes());
        out.push(b'\n');
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn round_trip() {
        let grid = Grid::from_fn(3, 2, |x, y| x as f32 + 10.0 * y as f32);
        let bytes = encode(&grid);
        assert_eq!((bytes.len() - 24) % 64, 0);
        let back = parse(&bytes).unwrap();
        assert_eq!(back.dtype, Dtype::F32);
        assert_eq!(back.grid, grid);
    }

    #[test]
    fn reads_f64_and_one_tuple_spacing() {
        let data: Vec<u8> = [1.5f64, -2.0, 3.0, 4.25]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let a = parse(&npy(
            "{\"descr\":\"<f8\",\"fortran_order\":False,\"shape\":(2,2)}",
            &data,
        ))
        .unwrap();
        assert_eq!(a.dtype, Dtype::F64);
        assert_eq!(a.grid.data, vec![1.5, -2.0, 3.0, 4.25]);
    }

    #[test]
    fn rejects_bad_files() {
        let four = [0u8; 16];
        let cases = [
            (
                npy(
                    "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }",
                    &four,
                ),
                "not supported",
            ),
            (
                npy(
                    "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }",
                    &four,
                ),
                "big-endian",
            ),
            (
                npy(
                    "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
                    &four,
                ),
                "Fortran",
            ),
            (
                npy(
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }",
                    &four,
                ),
                "dimensions",
            ),
            (
                npy(
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }",
                    &four,
                ),
                "needs 24",
            ),
            (
                npy(
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }",
                    &four,
                ),
                "too large",
            ),
            (
                npy(
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2)",
                    &four,
                ),
                "malformed",
            ),
            (b"\x93NUMPY\x01\x00\xff\xff{".to_vec(), "truncated"),
            (b"PK\x03\x04".to_vec(), "magic"),
        ];
        for (bytes, want) in cases {
            let err = parse(&bytes).unwrap_err();
            assert!(err.contains(want), "{err:?} should mention {want:?}");
        }
    }

    #[test]
    fn reports_non_finite_position() {
        let data: Vec<u8> = [0.0f32, 1.0, 2.0, f32::NAN, 4.0, 5.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let err = parse(&npy(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
            &data,
        ))
        .unwrap_err();
        assert_eq!(err, "value NaN at row 1, column 0 is not a finite number");
    }
}
