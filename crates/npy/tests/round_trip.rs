//! Writing tensors and reading them back, in memory and through files.

use std::error::Error;
use std::path::Path;

use ovir_npy::{read_npy, read_npy_file, read_npz_file, write_npy, write_npy_file, write_npz_file, NpyError};
use ovir_tensor::{bf16, f16, ElementType, Tensor};

type TestResult = Result<(), Box<dyn Error>>;

fn every_supported_type() -> Result<Vec<Tensor>, Box<dyn Error>> {
    Ok(vec![
        Tensor::from_vec(&[2, 2], vec![true, false, false, true])?,
        Tensor::from_vec(&[3], vec![i8::MIN, 0, i8::MAX])?,
        Tensor::from_vec(&[3], vec![i16::MIN, -1, i16::MAX])?,
        Tensor::from_vec(&[1, 3], vec![i32::MIN, 7, i32::MAX])?,
        Tensor::from_vec(&[3, 1], vec![i64::MIN, 0, i64::MAX])?,
        Tensor::from_vec(&[2], vec![0u8, 255])?,
        Tensor::from_vec(&[2], vec![0u16, u16::MAX])?,
        Tensor::from_vec(&[2], vec![0u32, u32::MAX])?,
        Tensor::from_vec(&[2], vec![0u64, u64::MAX])?,
        Tensor::from_vec(&[2], vec![f16::from_f32(-1.5), f16::NAN])?,
        Tensor::from_vec(&[2, 1, 2], vec![1.0f32, -0.0, f32::MIN_POSITIVE, f32::INFINITY])?,
        Tensor::from_vec(&[2], vec![f64::MAX, f64::NEG_INFINITY])?,
        Tensor::from_strings(
            &[2, 2],
            vec!["plain".into(), "".into(), "naïve 日本語".into(), "🦀 x\0y".into()],
        )?,
        Tensor::from_strings(&[3], vec![String::new(); 3])?,
        // Scalars.
        Tensor::from_vec(&[], vec![42i32])?,
        Tensor::from_vec(&[], vec![true])?,
        Tensor::from_strings(&[], vec!["ß".into()])?,
        // Zero-size arrays.
        Tensor::from_vec::<f32>(&[0], vec![])?,
        Tensor::from_vec::<u8>(&[2, 0, 3], vec![])?,
        Tensor::from_strings(&[0, 4], vec![])?,
    ])
}

#[test]
fn every_supported_type_round_trips_in_memory() -> TestResult {
    for t in every_supported_type()? {
        let mut bytes = Vec::new();
        write_npy(&t, &mut bytes)?;
        assert_eq!(read_npy(&bytes)?, t, "{t:?}");
    }
    Ok(())
}

#[test]
fn every_supported_type_round_trips_through_files() -> TestResult {
    let dir = tempfile::tempdir()?;
    for (i, t) in every_supported_type()?.into_iter().enumerate() {
        let path = dir.path().join(format!("{i}.npy"));
        write_npy_file(&t, &path)?;
        assert_eq!(read_npy_file(&path)?, t, "{t:?}");
    }
    Ok(())
}

#[test]
fn data_starts_aligned_to_64_bytes() -> TestResult {
    let t = Tensor::from_vec(&[3], vec![1.0f64, 2.0, 3.0])?;
    let mut bytes = Vec::new();
    write_npy(&t, &mut bytes)?;
    assert_eq!(bytes.len(), 128 + 24);
    assert_eq!(bytes.get(127), Some(&b'\n'));
    Ok(())
}

#[test]
fn strings_use_the_longest_width() -> TestResult {
    let t = Tensor::from_strings(&[2], vec!["日本語".into(), "a".into()])?;
    let mut bytes = Vec::new();
    write_npy(&t, &mut bytes)?;
    let header = String::from_utf8_lossy(bytes.get(10..80).unwrap_or_default()).into_owned();
    assert!(header.contains("'descr': '<U3'"), "{header}");
    assert_eq!(bytes.len() % 64, 2 * 3 * 4);
    let empty = Tensor::from_strings(&[1], vec![String::new()])?;
    let mut bytes = Vec::new();
    write_npy(&empty, &mut bytes)?;
    assert!(String::from_utf8_lossy(&bytes).contains("'<U1'"));
    Ok(())
}

#[test]
fn types_without_a_numpy_dtype_are_refused() -> TestResult {
    let dir = tempfile::tempdir()?;
    let tensors = [
        Tensor::from_vec(&[1], vec![bf16::from_f32(1.0)])?,
        Tensor::zeros(ElementType::I4, &[4])?,
        Tensor::zeros(ElementType::U1, &[8])?,
        Tensor::zeros(ElementType::F8e4m3, &[2])?,
        Tensor::zeros(ElementType::Nf4, &[2])?,
    ];
    for t in tensors {
        let mut bytes = Vec::new();
        let err = write_npy(&t, &mut bytes).err();
        assert!(matches!(&err, Some(NpyError::UnsupportedType { ty }) if *ty == t.element_type()), "{err:?}");
        assert!(bytes.is_empty(), "nothing is written for {t:?}");
        let path = dir.path().join("refused.npy");
        assert!(write_npy_file(&t, &path).is_err());
        assert!(!path.exists());
    }
    assert_eq!(std::fs::read_dir(dir.path())?.count(), 0, "no temporary file is left behind");
    let message = write_npy(&Tensor::zeros(ElementType::Bf16, &[1])?, &mut Vec::new())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(message.contains("bf16"), "{message}");
    Ok(())
}

fn only_file_in(dir: &Path) -> Result<Vec<String>, Box<dyn Error>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        names.push(entry?.file_name().to_string_lossy().into_owned());
    }
    Ok(names)
}

#[test]
fn file_writers_replace_the_target_and_leave_nothing_else() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("t.npy");
    std::fs::write(&path, b"old content")?;
    let t = Tensor::from_vec(&[2], vec![5i64, 6])?;
    write_npy_file(&t, &path)?;
    assert_eq!(read_npy_file(&path)?, t);
    assert_eq!(only_file_in(dir.path())?, ["t.npy"]);

    let npz = dir.path().join("a.npz");
    write_npz_file(&[("x".into(), t.clone())], &npz)?;
    write_npz_file(&[("y".into(), t.clone())], &npz)?;
    let arrays = read_npz_file(&npz)?;
    assert_eq!(arrays.len(), 1);
    assert_eq!(arrays.first().map(|(n, _)| n.as_str()), Some("y"));
    let mut names = only_file_in(dir.path())?;
    names.sort();
    assert_eq!(names, ["a.npz", "t.npy"]);
    Ok(())
}

#[cfg(unix)]
#[test]
fn written_files_are_not_private() -> TestResult {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("p.npy");
    write_npy_file(&Tensor::from_vec(&[1], vec![1u8])?, &path)?;
    let mode = std::fs::metadata(&path)?.permissions().mode();
    // Readable by the group and others unless the umask forbids it, like
    // any file created without a temporary step.
    assert_eq!(mode & 0o600, 0o600);
    Ok(())
}

#[test]
fn npz_round_trip_keeps_names_and_order() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("all.npz");
    let entries: Vec<(String, Tensor)> = every_supported_type()?
        .into_iter()
        .enumerate()
        .map(|(i, t)| (format!("z{}", 100 - i), t))
        .chain([("nested/name with spaces".to_owned(), Tensor::from_vec(&[1], vec![1u16])?)])
        .collect();
    write_npz_file(&entries, &path)?;
    let back = read_npz_file(&path)?;
    assert_eq!(back.len(), entries.len());
    for ((name, t), (back_name, back_t)) in entries.iter().zip(&back) {
        assert_eq!(name, back_name);
        assert_eq!(t, back_t, "{name}");
    }
    Ok(())
}

#[test]
fn empty_npz() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("none.npz");
    write_npz_file(&[], &path)?;
    assert!(read_npz_file(&path)?.is_empty());
    Ok(())
}

#[test]
fn npz_writer_refuses_duplicates_and_unsupported_types() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("bad.npz");
    let t = Tensor::from_vec(&[1], vec![1i32])?;
    let err = write_npz_file(&[("a".into(), t.clone()), ("a".into(), t.clone())], &path).err();
    assert!(
        matches!(err.as_ref().map(NpyError::cause), Some(NpyError::DuplicateName { name }) if name == "a")
    );
    let bf = Tensor::zeros(ElementType::Bf16, &[1])?;
    let err = write_npz_file(&[("ok".into(), t), ("w".into(), bf)], &path).err();
    assert!(matches!(err.as_ref().map(NpyError::cause), Some(NpyError::UnsupportedType { .. })));
    assert!(err.map(|e| e.to_string()).unwrap_or_default().contains("array 'w'"));
    assert!(!path.exists());
    assert_eq!(std::fs::read_dir(dir.path())?.count(), 0);
    Ok(())
}

#[test]
fn writing_into_a_missing_directory_names_the_path() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("missing").join("t.npy");
    let err = write_npy_file(&Tensor::from_vec(&[1], vec![1u8])?, &path).err();
    assert!(matches!(&err, Some(NpyError::Io { path: p, .. }) if *p == path), "{err:?}");
    assert!(err.map(|e| e.to_string()).unwrap_or_default().contains("missing"));
    Ok(())
}
