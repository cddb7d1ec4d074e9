//! Tests of the `.npy` reader and writer (`npy.rs`).

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
            "a heightmap needs 2 to 16384 cells a side",
        ),
        (
            npy(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 4), }",
                &four,
            ),
            "shape (1, 4): a heightmap needs 2",
        ),
        (
            npy(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
                &[0.0f32, 1.0, 2.0e6, 3.0]
                    .iter()
                    .flat_map(|v| v.to_le_bytes())
                    .collect::<Vec<u8>>(),
            ),
            "value 2000000 at row 1, column 0 is beyond ±1000000 m",
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
        let err = parse(&bytes).unwrap_err().to_string();
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
    assert!(
        matches!(err, NpyError::NotFinite { row: 1, col: 0, .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "value NaN at row 1, column 0 is not a finite number"
    );
}

#[test]
fn a_file_whose_length_is_not_its_shapes_is_refused_before_it_is_read() {
    // A header for 8192 × 8192 float64s (512 MiB) over a few bytes: the length is checked
    // against the shape from the file's size, and the error names the file.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dem.npy");
    let head = npy(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (8192, 8192), }",
        &[0u8; 64],
    );
    std::fs::write(&path, head).unwrap();
    let err = read(&path).unwrap_err().to_string();
    assert!(
        err.contains("dem.npy") && err.contains("needs 536870912 data bytes but the file has 64"),
        "{err}"
    );
}
