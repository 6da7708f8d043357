//! What a person reads when a file cannot be read or written: each cause
//! once, and no internal file names.

use std::error::Error;

use ovir_npy::{read_npy_file, read_npz_file, write_npy_file, write_npz_file, NpyError};
use ovir_tensor::Tensor;

type TestResult = Result<(), Box<dyn Error>>;

/// The message and every cause below it, one per line, as a program that
/// walks `source()` prints them.
fn chain(error: &dyn Error) -> Vec<String> {
    let mut lines = vec![error.to_string()];
    let mut cause = error.source();
    while let Some(c) = cause {
        lines.push(c.to_string());
        cause = c.source();
    }
    lines
}

/// No line of the chain repeats text that an earlier line already holds.
fn assert_said_once(error: &dyn Error) {
    let lines = chain(error);
    for (i, line) in lines.iter().enumerate().skip(1) {
        let before = lines.get(..i).unwrap_or_default();
        assert!(!before.iter().any(|b| b.contains(line.as_str())), "repeated cause {line:?} in {lines:#?}");
    }
}

#[test]
fn a_missing_file_is_reported_once_with_the_systems_reason() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("absent.npy");
    let err = read_npy_file(&path).err().ok_or("a missing file was read")?;
    assert_said_once(&err);
    let text = err.to_string();
    assert!(text.starts_with("cannot access ") && text.contains("absent.npy"), "{text}");
    // The operating system's words come from outside this crate.
    let os = std::fs::File::open(&path).err().ok_or("the file exists")?.to_string();
    assert!(text.ends_with(&os), "{text} does not end with {os}");
    Ok(())
}

#[test]
fn a_file_that_is_not_npy_is_reported_once() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("garbage.npy");
    std::fs::write(&path, [0x07, 0x00, 0xff, 0x13, b'x', b'y'])?;
    let err = read_npy_file(&path).err().ok_or("garbage was read")?;
    assert!(matches!(err.cause(), NpyError::BadMagic), "{err:?}");
    assert_said_once(&err);
    assert_eq!(chain(&err).len(), 1, "{:?}", chain(&err));

    let npz = dir.path().join("garbage.npz");
    std::fs::write(&npz, b"PK\x03\x04 truncated")?;
    let err = read_npz_file(&npz).err().ok_or("a broken archive was read")?;
    assert_said_once(&err);
    Ok(())
}

#[test]
fn writing_into_a_missing_folder_names_the_folder_not_a_temporary_file() -> TestResult {
    let dir = tempfile::tempdir()?;
    let folder = dir.path().join("nodir");
    let t = Tensor::from_vec(&[2], vec![1.0f32, 2.0])?;
    let npz = write_npz_file(&[("x".to_string(), t.clone())], &folder.join("x.npz")).err();
    let npy = write_npy_file(&t, &folder.join("x.npy")).err();
    for err in [npz, npy] {
        let err = err.ok_or("a file was written into a missing folder")?;
        assert_said_once(&err);
        let text = err.to_string();
        // The temporary file is named `.x.npz.XXXXXX.tmp` beside the target.
        assert!(!text.contains("/.x.np") && !text.contains("at path"), "{text}");
        assert!(text.contains(&format!("the folder {} does not exist", folder.display())), "{text}");
    }
    // Nothing was created on the way.
    assert!(!folder.exists());

    // A file where the folder should be is named as such.
    std::fs::write(&folder, b"a file")?;
    let err = write_npy_file(&t, &folder.join("x.npy")).err().ok_or("written below a file")?;
    let text = err.to_string();
    assert!(text.contains("is not a folder") && !text.contains("/.x.npy."), "{text}");
    Ok(())
}
