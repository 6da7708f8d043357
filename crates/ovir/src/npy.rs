//! NumPy `.npy` and `.npz` files in and out of [`Tensor`](crate::Tensor)s
//! (the `npy` feature): everything of the `ovir-npy` crate, and the file
//! names ovir gives a model's outputs.
//!
//! | NumPy dtype | element type |
//! | --- | --- |
//! | `\|b1` | `boolean` |
//! | `\|i1`, `<i2`, `<i4`, `<i8` | `i8`, `i16`, `i32`, `i64` |
//! | `\|u1`, `<u2`, `<u4`, `<u8` | `u8`, `u16`, `u32`, `u64` |
//! | `<f2`, `<f4`, `<f8` | `f16`, `f32`, `f64` |
//! | `<Un` | `string` |
//!
//! The packed sub-byte types and the 8-bit floats have no NumPy dtype:
//! their files hold one code per element as `u8` (`i8` for `i4`), the
//! form [`packed::to_exchange`](crate::packed::to_exchange) makes and
//! [`InferRequest::set_input`](crate::InferRequest::set_input) takes.
//! Malformed and hostile files give an [`NpyError`], never a panic or a
//! huge allocation; the writers replace their target only once the new
//! file is complete.
//!
//! ```
//! use ovir::npy::{read_npy, write_npy};
//! use ovir::Tensor;
//!
//! let t = Tensor::from_vec(&[2, 2], vec![1.5f32, -2.0, 0.25, 8.0])?;
//! let mut bytes = Vec::new();
//! write_npy(&t, &mut bytes)?;
//! assert_eq!(read_npy(&bytes)?, t);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;

pub use ovir_npy::{
    read_npy, read_npy_file, read_npz, read_npz_file, read_npz_file_limited, write_npy, write_npy_file,
    write_npy_files, write_npz_file, NpyError,
};

use crate::CompiledModel;

/// The longest file stem an output gets, in bytes: well below the 255
/// bytes most file systems allow, with room for `.npy` and the temporary
/// name's additions.
const MAX_STEM: usize = 150;

/// Names Windows reserves for devices, whatever the extension.
const RESERVED: [&str; 22] = [
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
    "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// The file stem of a tensor named `name`: every character outside
/// `[A-Za-z0-9._-]` becomes `_`, names that would leave the folder (`.`,
/// `..`) or name a device on Windows (`CON`, `NUL`, …) get a leading `_`,
/// and the stem is cut to 150 bytes, so that a hostile tensor name cannot
/// make a file name the system refuses.
///
/// ```
/// assert_eq!(ovir::npy::file_stem("out:0"), "out_0");
/// assert_eq!(ovir::npy::file_stem(".."), "___");
/// assert_eq!(ovir::npy::file_stem("con"), "_con");
/// ```
pub fn file_stem(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' })
        .take(MAX_STEM)
        .collect();
    let device =
        clean.split('.').next().is_some_and(|stem| RESERVED.iter().any(|r| r.eq_ignore_ascii_case(stem)));
    if clean.is_empty() || clean.chars().all(|c| c == '.') {
        format!("_{}", clean.replace('.', "_"))
    } else if device {
        format!("_{clean}")
    } else {
        clean
    }
}

/// Two outputs whose names give one file name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "outputs \"{first}\" and \"{second}\" would both be written to {file}.npy; rename one of them in the model"
)]
pub struct SameFileError {
    /// The first output's name.
    pub first: String,
    /// The second output's name.
    pub second: String,
    /// The file stem both would get.
    pub file: String,
}

/// The file stem of each output of `model`, in output order: the
/// [`file_stem`] of the output's name (its first tensor name). Two outputs
/// that would share a file, also when only the case of their names
/// differs (on macOS and Windows `Out.npy` and `out.npy` are one file), are
/// an error, so that one never silently overwrites the other.
pub fn output_file_stems(model: &CompiledModel) -> Result<Vec<String>, SameFileError> {
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut stems = Vec::new();
    for port in model.outputs() {
        let file = file_stem(port.name());
        if let Some(first) = seen.insert(file.to_ascii_lowercase(), port.name().to_string()) {
            return Err(SameFileError { first, second: port.name().to_string(), file });
        }
        stems.push(file);
    }
    Ok(stems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_keep_names_inside_the_folder() {
        assert_eq!(file_stem("out:0"), "out_0");
        assert_eq!(file_stem("../../etc/passwd"), ".._.._etc_passwd");
        assert_eq!(file_stem(".."), "___");
        assert_eq!(file_stem(""), "_");
        assert_eq!(file_stem("/abs"), "_abs");
        assert_eq!(file_stem("C:\\Windows\\x"), "C__Windows_x");
        assert_eq!(file_stem("con"), "_con");
        assert_eq!(file_stem("NUL.txt"), "_NUL.txt");
        assert_eq!(file_stem("console"), "console");
        assert_eq!(file_stem(&"é".repeat(1000)).len(), 150);
    }
}
