//! `ShuffleLz4`, the compressed encoding of a grid in the sidecar: the values cut into chunks
//! of [`CHUNK`] values; in each chunk the bytes are shuffled into four planes (every value's
//! first byte, then every second byte, …), so the slowly changing sign and exponent bytes sit
//! together, and each chunk is LZ4-compressed (`lz4_flex`, pure Rust, safe decoding) and stored
//! as a little-endian `u32` length and the compressed bytes. Chunks decode in parallel, each
//! into its own slice of a buffer whose size the grid's cell count fixes, so a hostile file
//! can neither allocate more than its grid nor write outside it.

use rayon::prelude::*;

/// Values in one chunk.
pub(super) const CHUNK: usize = 1 << 18;

/// The most bytes `cells` values can take encoded: what LZ4 may produce for incompressible
/// chunks, plus each chunk's length word.
pub(super) fn max_encoded_len(cells: usize) -> u64 {
    let chunks = cells.div_ceil(CHUNK) as u64;
    let bytes = 4 * cells as u64;
    bytes + bytes / 255 + chunks * (16 + 4) + 16
}

/// The encoded bytes of `values`.
pub(crate) fn encode(values: &[f32]) -> Vec<u8> {
    let chunks: Vec<Vec<u8>> = values
        .par_chunks(CHUNK)
        .map(|chunk| {
            let n = chunk.len();
            let mut planes = vec![0u8; 4 * n];
            for (k, v) in chunk.iter().enumerate() {
                for (b, byte) in v.to_le_bytes().into_iter().enumerate() {
                    planes[b * n + k] = byte;
                }
            }
            lz4_flex::block::compress(&planes)
        })
        .collect();
    let mut out = Vec::with_capacity(chunks.iter().map(|c| c.len() + 4).sum());
    for c in chunks {
        out.extend_from_slice(&(c.len() as u32).to_le_bytes());
        out.extend_from_slice(&c);
    }
    out
}

/// The `cells` values encoded in `bytes`, or what is wrong with them.
pub(crate) fn decode(bytes: &[u8], cells: usize) -> Result<Vec<f32>, String> {
    // Find the chunks first: each length word and its bytes must fit.
    let mut parts = Vec::with_capacity(cells.div_ceil(CHUNK));
    let mut at = 0usize;
    for c in 0..cells.div_ceil(CHUNK) {
        let word = bytes
            .get(at..at + 4)
            .ok_or_else(|| format!("chunk {c}: the data ends before its length"))?;
        let len = u32::from_le_bytes([word[0], word[1], word[2], word[3]]) as usize;
        // (No `at + 4 + len`: a hostile length overflows it on a 32-bit target.)
        let data = (bytes.get(at + 4..))
            .and_then(|rest| rest.get(..len))
            .ok_or_else(|| format!("chunk {c}: {len} bytes declared, the data ends before"))?;
        parts.push(data);
        at += 4 + data.len();
    }
    if at != bytes.len() {
        return Err(format!("{} bytes after the last chunk", bytes.len() - at));
    }
    let mut values = vec![0f32; cells];
    values
        .par_chunks_mut(CHUNK)
        .zip(parts)
        .enumerate()
        .try_for_each(|(c, (out, data))| {
            let n = out.len();
            let mut planes = vec![0u8; 4 * n];
            let got = lz4_flex::block::decompress_into(data, &mut planes)
                .map_err(|e| format!("chunk {c}: {e}"))?;
            if got != 4 * n {
                return Err(format!(
                    "chunk {c}: {got} bytes decoded, {} expected",
                    4 * n
                ));
            }
            for (k, v) in out.iter_mut().enumerate() {
                *v = f32::from_le_bytes([
                    planes[k],
                    planes[n + k],
                    planes[2 * n + k],
                    planes[3 * n + k],
                ]);
            }
            Ok(())
        })?;
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_bit_for_bit_across_chunks() {
        let values: Vec<f32> = (0..CHUNK * 2 + 123)
            .map(|k| match k % 7 {
                0 => f32::NAN,
                1 => -0.0,
                _ => (k as f32 * 0.001).sin() * 40.0,
            })
            .collect();
        let bytes = encode(&values);
        assert!(bytes.len() as u64 <= max_encoded_len(values.len()));
        let back = decode(&bytes, values.len()).expect("decodes");
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&values));
    }

    #[test]
    fn damaged_bytes_are_refused_not_trusted() {
        let values = vec![1.5f32; 1000];
        let mut bytes = encode(&values);
        assert!(decode(&bytes[..bytes.len() - 1], 1000).is_err());
        assert!(decode(&bytes, 1001).is_err());
        bytes[0] = 0xFF; // a chunk length past the end
        assert!(decode(&bytes, 1000).is_err());
    }
}
