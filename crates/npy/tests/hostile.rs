//! Malformed and hostile inputs: each gives a clear error, never a panic
//! or an allocation sized by an unchecked length.

use std::error::Error;
use std::io::Write;

use ovir_npy::{read_npy, read_npy_file, read_npz_file, write_npy, NpyError};
use ovir_tensor::Tensor;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

type TestResult = Result<(), Box<dyn Error>>;

/// A `.npy` file with the given version, header text and data; the
/// header length field is computed from the text.
fn npy(version: u8, header: &str, data: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

fn dict(descr: &str, shape: &str) -> String {
    format!("{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}\n")
}

fn valid_f32() -> Result<Vec<u8>, Box<dyn Error>> {
    let mut bytes = Vec::new();
    write_npy(&Tensor::from_vec(&[2, 3], vec![1.0f32; 6])?, &mut bytes)?;
    Ok(bytes)
}

fn err(bytes: &[u8]) -> NpyError {
    match read_npy(bytes) {
        Ok(t) => NpyError::BadHeader { reason: format!("unexpectedly read {t:?}") },
        Err(e) => e,
    }
}

#[test]
fn not_npy_at_all() {
    for bytes in [&b""[..], b"\x93NUM", b"PK\x03\x04 not npy at all", b"\x93NUMPZ\x01\x00\x10\x00"] {
        assert!(matches!(err(bytes), NpyError::BadMagic), "{bytes:?}");
    }
}

#[test]
fn unknown_versions() {
    for version in [0u8, 4, 255] {
        let e = err(&npy(version, &dict("'<f4'", "()"), &[0; 4]));
        assert!(matches!(&e, NpyError::BadHeader { reason } if reason.contains("version")), "{e}");
    }
    let mut minor = npy(1, &dict("'<f4'", "()"), &[0; 4]);
    if let Some(m) = minor.get_mut(7) {
        *m = 1;
    }
    assert!(matches!(err(&minor), NpyError::BadHeader { .. }));
}

#[test]
fn header_length_past_the_end() {
    let mut v1 = b"\x93NUMPY\x01\x00\xff\xff{'descr'".to_vec();
    assert!(matches!(err(&v1), NpyError::BadHeader { reason } if reason.contains("65535")));
    // Only part of the length field.
    v1.truncate(9);
    assert!(matches!(err(&v1), NpyError::BadHeader { .. }));
    v1.truncate(8);
    assert!(matches!(err(&v1), NpyError::BadHeader { .. }));
    // A four-gigabyte header claimed by a tiny file is refused before any
    // buffer is set aside for it.
    let v2 = b"\x93NUMPY\x02\x00\xff\xff\xff\xff{}".to_vec();
    assert!(matches!(err(&v2), NpyError::BadHeader { reason } if reason.contains("4294967295")));
}

#[test]
fn header_that_lies_about_its_length() -> TestResult {
    let good = valid_f32()?;
    for delta in [-30i32, -1, 1, 4, 24] {
        let mut bad = good.clone();
        let len = u16::from_le_bytes([good[8], good[9]]) as i32 + delta;
        bad[8..10].copy_from_slice(&(len as u16).to_le_bytes());
        let e = err(&bad);
        assert!(matches!(e, NpyError::BadHeader { .. } | NpyError::SizeMismatch { .. }), "{delta}: {e}");
    }
    Ok(())
}

#[test]
fn shapes_whose_size_overflows() -> TestResult {
    for shape in ["(1099511627776, 1099511627776)", "(18446744073709551615,)", "(9223372036854775807, 4, 0)"]
    {
        let e = err(&npy(1, &dict("'<f8'", shape), &[]));
        assert!(matches!(e, NpyError::TooLarge { .. }), "{shape}: {e}");
        assert!(e.to_string().contains("too large"), "{e}");
    }
    // A zero dimension makes a legal empty array when the product up to it
    // does not overflow.
    let empty = read_npy(&npy(1, &dict("'<f8'", "(4611686018427387904, 2, 0)"), &[]))?;
    assert_eq!(empty.shape(), &[1 << 62, 2, 0]);
    assert!(empty.is_empty());
    let too_many_digits = err(&npy(1, &dict("'<f8'", "(123456789012345678901234567890123456789012,)"), &[]));
    assert!(matches!(too_many_digits, NpyError::BadHeader { .. }));
    let bytes_overflow = err(&npy(1, &dict("'<U4611686018427387904'", "(2,)"), &[]));
    assert!(matches!(bytes_overflow, NpyError::TooLarge { .. }), "{bytes_overflow}");
    Ok(())
}

#[test]
fn huge_shape_with_no_data_is_a_size_mismatch_without_allocation() {
    // A terabyte of f32 announced by a 128-byte file.
    let e = err(&npy(1, &dict("'<f4'", "(1000000000000,)"), &[]));
    assert!(matches!(e, NpyError::SizeMismatch { expected: 4_000_000_000_000, found: 0 }), "{e}");
    // Zero-width strings need no bytes, but each costs memory when read.
    let e = err(&npy(1, &dict("'<U0'", "(1000000000000000,)"), &[]));
    assert!(matches!(e, NpyError::TooLarge { .. }), "{e}");
}

#[test]
fn zero_width_strings_within_bounds_are_empty() -> TestResult {
    let t = read_npy(&npy(1, &dict("'<U0'", "(3,)"), &[]))?;
    assert_eq!(t.strings(), Some(&[String::new(), String::new(), String::new()][..]));
    Ok(())
}

#[test]
fn unsupported_dtypes_are_named() {
    for (descr, shown) in [
        ("'<c8'", "'<c8'"),
        ("'|O'", "'|O'"),
        ("'<M8[ns]'", "'<M8[ns]'"),
        ("'|S3'", "'|S3'"),
        ("'<i16'", "'<i16'"),
        ("[('a', '<i4'), ('b', '<f8')]", "[('a', '<i4'), ('b', '<f8')]"),
    ] {
        let e = err(&npy(1, &dict(descr, "(1,)"), &[0; 16]));
        assert!(matches!(&e, NpyError::UnsupportedDtype { descr } if descr == shown), "{e}");
        let message = e.to_string();
        assert!(message.contains(shown) && message.contains("<f4") && message.contains("<Un"), "{message}");
    }
}

#[test]
fn truncated_and_padded_data() -> TestResult {
    let good = valid_f32()?;
    let e = err(&good[..good.len() - 1]);
    assert!(matches!(e, NpyError::SizeMismatch { expected: 24, found: 23 }), "{e}");
    let e = err(&good[..good.len() - 24]);
    assert!(matches!(e, NpyError::SizeMismatch { expected: 24, found: 0 }), "{e}");
    let mut long = good.clone();
    long.push(0);
    assert!(matches!(err(&long), NpyError::SizeMismatch { expected: 24, found: 25 }));
    // Cut inside the header.
    assert!(matches!(err(&good[..40]), NpyError::BadHeader { .. }));
    Ok(())
}

#[test]
fn non_ascii_header() -> TestResult {
    let mut bad = valid_f32()?;
    // Replace one byte of the space padding.
    if let Some(b) = bad.get_mut(100) {
        *b = 0xe9;
    }
    let e = err(&bad);
    assert!(matches!(&e, NpyError::BadHeader { reason } if reason.contains("non-ASCII")), "{e}");
    let mut in_v3 = npy(3, &dict("'<f4'", "()"), &[0; 4]);
    in_v3.splice(12..12, "é".bytes());
    let len = u32::from_le_bytes([in_v3[8], in_v3[9], in_v3[10], in_v3[11]]) + 2;
    in_v3[8..12].copy_from_slice(&len.to_le_bytes());
    assert!(matches!(err(&in_v3), NpyError::BadHeader { .. }));
    Ok(())
}

#[test]
fn malformed_dictionaries() {
    for header in [
        "{'descr': '<f4', 'fortran_order': False}\n",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'extra': 1}\n",
        "{'descr': '<f4', 'fortran_order': 'no', 'shape': ()}\n",
        "{'descr': '<f4', 'fortran_order': False, 'shape': 3}\n",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1.5,)}\n",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}\n",
        "{'descr': '<f4', 'fortran_order': False, 'shape': ()\n",
        "{'descr': '<f4', 'fortran_order': False, 'shape': ()}}\n",
        "{'descr': <f4, 'fortran_order': False, 'shape': ()}\n",
        "{'descr': '<f4', 'fortran_order': __import__('os'), 'shape': ()}\n",
        "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\n",
        "",
    ] {
        let e = err(&npy(1, header, &[0; 4]));
        assert!(matches!(e, NpyError::BadHeader { .. }), "{header:?}: {e}");
    }
}

#[test]
fn bad_code_points() {
    for code in [0xD800u32, 0x11_0000, u32::MAX] {
        let e = err(&npy(1, &dict("'<U1'", "(1,)"), &code.to_le_bytes()));
        assert!(matches!(e, NpyError::InvalidUnicode { code: c } if c == code), "{e}");
    }
    let big = read_npy(&npy(1, &dict("'>U2'", "(1,)"), &[0, 0, 0, 0x41, 0, 0, 0, 0]));
    assert_eq!(big.ok().and_then(|t| t.strings().map(<[String]>::to_vec)), Some(vec!["A".to_owned()]));
}

#[test]
fn booleans_other_than_0_and_1_read_as_true() -> TestResult {
    let t = read_npy(&npy(1, &dict("'|b1'", "(3,)"), &[0, 2, 255]))?;
    assert_eq!(t.bytes(), Some(&[0u8, 1, 1][..]));
    Ok(())
}

#[test]
fn file_errors_name_the_file() -> TestResult {
    let dir = tempfile::tempdir()?;
    let missing = dir.path().join("nowhere.npy");
    let e = read_npy_file(&missing).err();
    assert!(matches!(&e, Some(NpyError::Io { path, .. }) if *path == missing));
    assert!(e.map(|e| e.to_string()).unwrap_or_default().contains("nowhere.npy"));

    let truncated = dir.path().join("short.npy");
    let good = valid_f32()?;
    std::fs::write(&truncated, &good[..good.len() - 4])?;
    let e = read_npy_file(&truncated).err();
    assert!(matches!(
        e.as_ref().map(NpyError::cause),
        Some(NpyError::SizeMismatch { expected: 24, found: 20 })
    ));
    let message = e.map(|e| e.to_string()).unwrap_or_default();
    assert!(message.contains("short.npy") && message.contains("24"), "{message}");

    let huge = dir.path().join("huge.npy");
    std::fs::write(&huge, npy(1, &dict("'<f8'", "(1000000000000,)"), &[0; 8]))?;
    let e = read_npy_file(&huge).err();
    assert!(matches!(e.as_ref().map(NpyError::cause), Some(NpyError::SizeMismatch { .. })), "{e:?}");
    Ok(())
}

/// An archive holding the given entries, stored or deflated.
fn zip_of(entries: &[(&str, &[u8])], method: CompressionMethod) -> Result<Vec<u8>, Box<dyn Error>> {
    let mut zip = ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        zip.start_file(*name, SimpleFileOptions::default().compression_method(method))?;
        zip.write_all(bytes)?;
    }
    Ok(zip.finish()?.into_inner())
}

fn npz_err(bytes: &[u8]) -> Result<NpyError, Box<dyn Error>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("hostile.npz");
    std::fs::write(&path, bytes)?;
    Ok(match read_npz_file(&path) {
        Ok(arrays) => NpyError::BadArchive { reason: format!("unexpectedly read {} arrays", arrays.len()) },
        Err(e) => e,
    })
}

#[test]
fn hostile_archives() -> TestResult {
    let good = valid_f32()?;
    assert!(matches!(npz_err(b"not a zip file at all")?.cause(), NpyError::Zip { .. }));
    let e = npz_err(&zip_of(&[("a.npy", &good), ("notes.txt", b"hello")], CompressionMethod::Stored)?)?;
    assert!(matches!(e.cause(), NpyError::BadArchive { reason } if reason.contains("notes.txt")), "{e}");
    for method in [CompressionMethod::Stored, CompressionMethod::Deflated] {
        let cut = &good[..good.len() - 8];
        let e = npz_err(&zip_of(&[("ok.npy", &good), ("cut.npy", cut)], method)?)?;
        assert!(matches!(e.cause(), NpyError::SizeMismatch { expected: 24, found: 16 }), "{e}");
        assert!(e.to_string().contains("array 'cut'"), "{e}");
        let e = npz_err(&zip_of(&[("bad.npy", b"\x93NUMPY\x01\x00\xff\xff")], method)?)?;
        assert!(matches!(e.cause(), NpyError::BadHeader { .. }), "{e}");
    }
    Ok(())
}

#[test]
fn corrupted_archive_data_is_detected() -> TestResult {
    let good = valid_f32()?;
    let mut archive = zip_of(&[("a.npy", &good)], CompressionMethod::Stored)?;
    // Flip a bit in the stored array data, which the CRC covers.
    let data_pos = archive.windows(4).position(|w| w == [0, 0, 0x80, 0x3f]).ok_or("data not found")?;
    if let Some(b) = archive.get_mut(data_pos + 3) {
        *b ^= 1;
    }
    let e = npz_err(&archive)?;
    assert!(e.to_string().to_lowercase().contains("checksum"), "the checksum is verified: {e}");
    Ok(())
}
