//! Grayscale PNG heightmaps, 8 or 16 bit: height = value / max × height scale.
//! A PNG holds no unit, so the height scale (metres at full white) is always explicit.

use std::path::Path;

use image::{DynamicImage, ExtendedColorType, ImageDecoder, ImageError, ImageReader};
use spillway::Grid;
use thiserror::Error;

use super::HeightmapError;

/// The magic bytes every PNG file starts with.
pub const MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Metres at full white when no height scale is given.
pub const DEFAULT_HEIGHT_SCALE: f32 = 100.0;

/// Largest side accepted, in pixels (the level format's own limit).
const MAX_SIDE: u32 = 16384;

/// Why an image is not an acceptable heightmap.
#[derive(Debug, Error)]
pub enum PngError {
    /// Reading the first bytes (or rewinding) failed.
    #[error("cannot read the PNG: {0}")]
    Read(#[source] std::io::Error),
    /// The decoder refused the file's header.
    #[error("not a readable PNG: {0}")]
    Unreadable(#[source] ImageError),
    /// The pixels failed to decode.
    #[error("cannot decode the PNG: {0}")]
    Decode(#[source] ImageError),
    /// A side is longer than the level format allows.
    #[error("{width} × {height} pixels is larger than the {limit}-pixel limit a side")]
    TooWide {
        /// Width, pixels.
        width: u32,
        /// Height, pixels.
        height: u32,
        /// The longest side allowed, pixels.
        limit: u32,
    },
    /// More pixels than a level may have cells.
    #[error(
        "{width} × {height} pixels is {cells} cells, more than a level's limit of {limit} cells"
    )]
    TooManyCells {
        /// Width, pixels.
        width: u32,
        /// Height, pixels.
        height: u32,
        /// Width × height.
        cells: u64,
        /// The level format's cell limit.
        limit: usize,
    },
    /// A side shorter than 2 pixels.
    #[error("{width} × {height} pixels: a level needs at least 2 × 2 cells")]
    TooSmall {
        /// Width, pixels.
        width: u32,
        /// Height, pixels.
        height: u32,
    },
    /// A colour image.
    #[error("the image is {0:?}; a heightmap must be an 8- or 16-bit grayscale PNG")]
    NotGray(ExtendedColorType),
    /// A palette (indexed-colour) image.
    #[error(
        "the image is a {bits}-bit palette (indexed-colour) image; a heightmap must be an 8- or 16-bit grayscale PNG"
    )]
    Palette {
        /// Bits per palette index.
        bits: u8,
    },
    /// A 1-, 2- or 4-bit grayscale image.
    #[error("the image is {bits}-bit grayscale; a heightmap must be an 8- or 16-bit grayscale PNG")]
    LowBitDepth {
        /// Bits per sample.
        bits: u8,
    },
}

/// A decoded grayscale heightmap.
#[derive(Clone, Debug, PartialEq)]
pub struct Heightmap {
    /// Bits per sample in the file: 8 or 16.
    pub bits: u8,
    /// Heights in metres: value / max × scale.
    pub grid: Grid,
}

/// Reads the grayscale PNG at `path`, mapping black to 0 m and full white to `height_scale` m.
/// An alpha channel is ignored; colour and low-bit-depth images are refused.
pub fn read(path: &Path, height_scale: f32) -> Result<Heightmap, HeightmapError> {
    let file = spillway::level::file::open_plain(path).map_err(|source| HeightmapError::Io {
        path: path.to_path_buf(),
        action: "read the PNG",
        source,
    })?;
    decode(std::io::BufReader::new(file), height_scale)
        .map_err(|problem| HeightmapError::format(path, problem.to_string()))
}

/// Decodes a grayscale PNG from `reader` (see [`read`]); the error says what is wrong. The
/// size is checked against the level format's limits before any pixel memory is allocated.
pub fn decode(
    reader: impl std::io::BufRead + std::io::Seek,
    height_scale: f32,
) -> Result<Heightmap, PngError> {
    let mut reader = reader;
    refuse_low_bit_depth(&mut reader)?;
    let reader = ImageReader::with_format(reader, image::ImageFormat::Png);
    let decoder = reader.into_decoder().map_err(PngError::Unreadable)?;
    let (w, h) = decoder.dimensions();
    if w > MAX_SIDE || h > MAX_SIDE {
        return Err(PngError::TooWide {
            width: w,
            height: h,
            limit: MAX_SIDE,
        });
    }
    let max_cells = spillway::level::Limits::default().max_cells;
    if w as usize * h as usize > max_cells {
        return Err(PngError::TooManyCells {
            width: w,
            height: h,
            cells: w as u64 * h as u64,
            limit: max_cells,
        });
    }
    if w < 2 || h < 2 {
        return Err(PngError::TooSmall {
            width: w,
            height: h,
        });
    }
    let bits = match decoder.original_color_type() {
        ExtendedColorType::L8 | ExtendedColorType::La8 => 8,
        ExtendedColorType::L16 | ExtendedColorType::La16 => 16,
        other => return Err(PngError::NotGray(other)),
    };
    let image = DynamicImage::from_decoder(decoder).map_err(PngError::Decode)?;
    let (nx, ny) = (w as usize, h as usize);
    let data: Vec<f32> = if bits == 8 {
        let s = height_scale / 255.0;
        image
            .into_luma8()
            .into_raw()
            .iter()
            .map(|&v| v as f32 * s)
            .collect()
    } else {
        let s = height_scale as f64 / 65535.0;
        image
            .into_luma16()
            .into_raw()
            .iter()
            .map(|&v| (v as f64 * s) as f32)
            .collect()
    };
    Ok(Heightmap {
        bits,
        grid: Grid { nx, ny, data },
    })
}

/// Refuses 1-, 2- and 4-bit images by their header (the decoder would silently widen them to
/// 8 bits, turning full white into 1/255 of the height scale), then rewinds `reader`.
fn refuse_low_bit_depth(reader: &mut (impl std::io::Read + std::io::Seek)) -> Result<(), PngError> {
    use std::io::SeekFrom;
    // Signature (8), IHDR length and type (8), width and height (8), then bit depth and colour.
    let mut head = [0u8; 26];
    let io = PngError::Read;
    let start = reader.stream_position().map_err(io)?;
    let mut filled = 0;
    while filled < head.len() {
        match reader.read(&mut head[filled..]).map_err(io)? {
            0 => break,
            n => filled += n,
        }
    }
    reader.seek(SeekFrom::Start(start)).map_err(io)?;
    if filled == head.len() && head.starts_with(MAGIC) && &head[12..16] == b"IHDR" {
        let (bits, colour) = (head[24], head[25]);
        if colour == 3 {
            return Err(PngError::Palette { bits });
        }
        if colour == 0 && bits < 8 {
            return Err(PngError::LowBitDepth { bits });
        }
    }
    Ok(())
}

/// The keyword of the text chunk in which an export notes its height range.
const RANGE_KEYWORD: &str = "spillway height range";

/// `png` (a whole PNG file) with a text chunk noting that black stands for `min` metres and
/// full white for `max`, right after its header: an import of the file takes that range
/// (a PNG holds no unit, and the range was lost with the session).
pub fn with_range_note(png: &[u8], min: f32, max: f32) -> Vec<u8> {
    // Signature, then IHDR: length, type, 13 bytes, CRC.
    let at = MAGIC.len() + 8 + 13 + 4;
    if png.len() < at || !png.starts_with(MAGIC) {
        return png.to_vec();
    }
    let mut data = RANGE_KEYWORD.as_bytes().to_vec();
    data.push(0);
    data.extend_from_slice(format!("{min} {max}").as_bytes());
    let mut chunk = (data.len() as u32).to_be_bytes().to_vec();
    let mut crc = crc32fast::Hasher::new();
    crc.update(b"tEXt");
    crc.update(&data);
    chunk.extend_from_slice(b"tEXt");
    chunk.extend_from_slice(&data);
    chunk.extend_from_slice(&crc.finalize().to_be_bytes());
    [&png[..at], &chunk, &png[at..]].concat()
}

/// The height range an export noted in the PNG at `path` (black, full white), if any: the
/// chunks before the image data are read, no more.
pub fn range_note(path: &Path) -> Option<(f32, f32)> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = spillway::level::file::open_plain(path).ok()?;
    let mut head = [0u8; 8];
    file.read_exact(&mut head).ok()?;
    if head != MAGIC {
        return None;
    }
    for _ in 0..64 {
        file.read_exact(&mut head).ok()?;
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as u64;
        match &head[4..8] {
            b"IDAT" | b"IEND" => return None,
            b"tEXt" if len <= 256 => {
                let mut data = vec![0u8; len as usize];
                file.read_exact(&mut data).ok()?;
                file.seek(SeekFrom::Current(4)).ok()?;
                let text = String::from_utf8(data).ok()?;
                let Some(note) = text
                    .strip_prefix(RANGE_KEYWORD)
                    .and_then(|t| t.strip_prefix('\0'))
                else {
                    continue;
                };
                let mut values = note.split(' ').map(str::parse::<f32>);
                if let (Some(Ok(min)), Some(Ok(max)), None) =
                    (values.next(), values.next(), values.next())
                    && min.is_finite()
                    && max.is_finite()
                    && max > min
                {
                    return Some((min, max));
                }
            }
            _ => {
                file.seek(SeekFrom::Current(len as i64 + 4)).ok()?;
            }
        }
    }
    None
}
