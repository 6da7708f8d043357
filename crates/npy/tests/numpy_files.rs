//! Files written by NumPy itself (`np.save`, `np.savez`,
//! `np.savez_compressed`, `numpy.lib.format.write_array`), read back with
//! exact values.

use std::error::Error;
use std::path::PathBuf;

use ovir_npy::{read_npy, read_npy_file, read_npz_file, write_npy};
use ovir_tensor::{f16, ElementType, Tensor};

type TestResult = Result<(), Box<dyn Error>>;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn load(name: &str) -> Result<Tensor, Box<dyn Error>> {
    Ok(read_npy_file(&data(name))?)
}

#[test]
fn bool_matrix() -> TestResult {
    let t = load("bool.npy")?;
    assert_eq!(t.element_type(), ElementType::Boolean);
    assert_eq!(t.shape(), &[2, 3]);
    assert_eq!(t.to_vec::<bool>()?, vec![true, false, true, false, false, true]);
    Ok(())
}

#[test]
fn signed_bytes() -> TestResult {
    let t = load("i8.npy")?;
    assert_eq!(t.shape(), &[5]);
    assert_eq!(t.to_vec::<i8>()?, vec![-128, -1, 0, 1, 127]);
    Ok(())
}

#[test]
fn unsigned_64_bit_extremes() -> TestResult {
    let t = load("u64.npy")?;
    assert_eq!(t.to_vec::<u64>()?, vec![0, 1, 1 << 63, u64::MAX]);
    Ok(())
}

#[test]
fn half_precision() -> TestResult {
    let t = load("f16.npy")?;
    assert_eq!(t.shape(), &[2, 2]);
    let expected = [0.5, -2.0, 65504.0, f32::INFINITY].map(f16::from_f32);
    assert_eq!(t.to_vec::<f16>()?, expected.to_vec());
    Ok(())
}

#[test]
fn double_precision_and_scalar() -> TestResult {
    let t = load("f64.npy")?;
    let v = t.to_vec::<f64>()?;
    assert_eq!(v, vec![1.5, -0.0, 1e300]);
    assert!(v.get(1).is_some_and(|z| z.is_sign_negative()));
    let s = load("f64_scalar.npy")?;
    assert_eq!(s.shape(), &[] as &[usize]);
    assert_eq!(s.to_vec::<f64>()?, vec![3.25]);
    Ok(())
}

#[test]
fn unicode_strings() -> TestResult {
    let t = load("u5.npy")?;
    assert_eq!(t.element_type(), ElementType::String);
    assert_eq!(t.shape(), &[4]);
    assert_eq!(t.strings(), Some(&["héllo".to_owned(), "ab".into(), "".into(), "日本".into()][..]));
    Ok(())
}

#[test]
fn fortran_order_becomes_c_order() -> TestResult {
    let t = load("fortran_i32.npy")?;
    assert_eq!(t.shape(), &[2, 3, 4]);
    assert_eq!(t.to_vec::<i32>()?, (0..24).collect::<Vec<_>>());
    Ok(())
}

#[test]
fn big_endian_becomes_little_endian() -> TestResult {
    assert_eq!(load("big_endian_i32.npy")?.to_vec::<i32>()?, vec![1, -2, 70000]);
    let f = load("big_endian_f64.npy")?;
    assert_eq!(f.shape(), &[1, 2]);
    assert_eq!(f.to_vec::<f64>()?, vec![1.5, -2.25]);
    Ok(())
}

#[test]
fn empty_array() -> TestResult {
    let t = load("empty_f32.npy")?;
    assert_eq!(t.element_type(), ElementType::F32);
    assert_eq!(t.shape(), &[0, 3]);
    assert!(t.is_empty());
    Ok(())
}

#[test]
fn format_versions_2_and_3() -> TestResult {
    let v2 = load("v2_u8.npy")?;
    assert_eq!(v2.shape(), &[2, 2]);
    assert_eq!(v2.to_vec::<u8>()?, vec![1, 2, 3, 4]);
    assert_eq!(load("v3_i16.npy")?.to_vec::<i16>()?, vec![-300, 300]);
    Ok(())
}

#[test]
fn writer_matches_np_save_byte_for_byte() -> TestResult {
    for (file, tensor) in [
        ("f32_2x3.npy", Tensor::from_vec(&[2, 3], (0..6).map(|x| x as f32).collect())?),
        ("u5.npy", Tensor::from_strings(&[4], vec!["héllo".into(), "ab".into(), "".into(), "日本".into()])?),
        ("i8.npy", Tensor::from_vec(&[5], vec![-128i8, -1, 0, 1, 127])?),
        ("f64_scalar.npy", Tensor::from_vec(&[], vec![3.25f64])?),
    ] {
        let numpy = std::fs::read(data(file))?;
        let mut ours = Vec::new();
        write_npy(&tensor, &mut ours)?;
        assert_eq!(ours, numpy, "{file}");
        assert_eq!(read_npy(&numpy)?, tensor, "{file}");
    }
    Ok(())
}

#[test]
fn savez_archive() -> TestResult {
    let arrays = read_npz_file(&data("savez.npz"))?;
    let names: Vec<&str> = arrays.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["ints", "words", "flag"]);
    let [(_, ints), (_, words), (_, flag)] = &arrays[..] else {
        return Err("three arrays expected".into());
    };
    assert_eq!(ints.shape(), &[2, 3]);
    assert_eq!(ints.to_vec::<i64>()?, vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(words.strings(), Some(&["a".to_owned(), "bc".into()][..]));
    assert_eq!(flag.shape(), &[] as &[usize]);
    assert_eq!(flag.to_vec::<bool>()?, vec![true]);
    Ok(())
}

#[test]
fn savez_compressed_archive() -> TestResult {
    let arrays = read_npz_file(&data("savez_compressed.npz"))?;
    let [(zeros_name, zeros), (small_name, small)] = &arrays[..] else {
        return Err("two arrays expected".into());
    };
    assert_eq!((zeros_name.as_str(), small_name.as_str()), ("zeros", "small"));
    assert_eq!(zeros.to_vec::<f32>()?, vec![0.0; 100]);
    assert_eq!(small.to_vec::<u16>()?, vec![7, 8]);
    Ok(())
}
