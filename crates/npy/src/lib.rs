//! NumPy `.npy` and `.npz` files, read into and written from ovir
//! [`Tensor`]s.
//!
//! | NumPy dtype | element type |
//! | --- | --- |
//! | `\|b1` | `boolean` |
//! | `\|i1`, `<i2`, `<i4`, `<i8` | `i8`, `i16`, `i32`, `i64` |
//! | `\|u1`, `<u2`, `<u4`, `<u8` | `u8`, `u16`, `u32`, `u64` |
//! | `<f2`, `<f4`, `<f8` | `f16`, `f32`, `f64` |
//! | `<Un` | `string` |
//!
//! Reading also accepts the big-endian (`>`) forms and arrays saved in
//! Fortran order; both are converted to the little-endian, row-major layout
//! of [`Tensor`]. Fixed-width unicode elements lose their trailing NUL
//! padding, as they do in NumPy, so a string that itself ends in NUL
//! characters does not survive a round trip. `bf16`, the 8-bit floats and
//! the packed sub-byte types have no NumPy dtype and cannot be written;
//! [`ovir_tensor::packed::to_exchange`] turns them into the codes that can.
//!
//! Headers are parsed, never evaluated, and every length in a file is
//! checked against the bytes really present before memory is set aside for
//! it, so malformed or hostile files give an [`NpyError`], not a crash or a
//! huge allocation. The file writers replace their target in one step: a
//! run that is interrupted leaves the old file (or none), never half a file;
//! [`write_npy_files`] replaces several files that way, all or none. On
//! Linux the new content is written to an unnamed file (`O_TMPFILE`), so
//! a process killed while writing leaves nothing behind; elsewhere it can
//! leave a hidden `.NAME.XXXXXX.tmp` file beside the target.
//!
//! ```
//! use ovir_npy::{read_npy, write_npy};
//! use ovir_tensor::Tensor;
//!
//! let t = Tensor::from_vec(&[2, 2], vec![1.5f32, -2.0, 0.25, 8.0])?;
//! let mut bytes = Vec::new();
//! write_npy(&t, &mut bytes)?;
//! assert!(bytes.starts_with(b"\x93NUMPY"));
//! assert_eq!(read_npy(&bytes)?, t);
//!
//! let words = Tensor::from_strings(&[2], vec!["héllo".into(), "日本".into()])?;
//! let mut bytes = Vec::new();
//! write_npy(&words, &mut bytes)?;
//! assert_eq!(read_npy(&bytes)?.strings(), words.strings());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod error;
mod file;
mod header;
mod npy;
mod npz;

use std::fs::File;
use std::io::{BufReader, Write};
use std::path::Path;

use ovir_tensor::{Tensor, DEFAULT_MAX_TENSOR_BYTES};

pub use error::NpyError;

use error::io_at;

/// Reads a `.npy` file held in memory.
pub fn read_npy(bytes: &[u8]) -> Result<Tensor, NpyError> {
    npy::read_slice(bytes)
}

/// Reads the `.npy` file at `path`; errors name the file.
pub fn read_npy_file(path: &Path) -> Result<Tensor, NpyError> {
    let file = File::open(path).map_err(io_at(path))?;
    let len = file.metadata().map_err(io_at(path))?.len();
    npy::read_sized(&mut BufReader::new(file), len).map_err(|e| e.in_file(path, None))
}

/// Writes `tensor` as a `.npy` file (format version 1.0, or 2.0 for a
/// header too long for 1.0) to `out`.
///
/// Nothing is written when the tensor's element type has no NumPy dtype.
pub fn write_npy(tensor: &Tensor, out: &mut impl Write) -> Result<(), NpyError> {
    npy::Plan::new(tensor)?.write(tensor, out)
}

/// Writes `tensor` as a `.npy` file at `path`, replacing any file there
/// only once the new one is complete.
pub fn write_npy_file(tensor: &Tensor, path: &Path) -> Result<(), NpyError> {
    write_npy_files(&[(tensor, path)])
}

/// Writes each tensor as a `.npy` file at its path: every file, or none.
///
/// Each file is written in full beside its target first; only when all of
/// them are complete do they replace their targets. A failure on the way
/// (a full disk, a file too large, a tensor NumPy cannot hold) leaves
/// every target as it was.
pub fn write_npy_files(files: &[(&Tensor, &Path)]) -> Result<(), NpyError> {
    let plans = files
        .iter()
        .map(|&(tensor, path)| npy::Plan::new(tensor).map_err(|e| e.in_file(path, None)))
        .collect::<Result<Vec<_>, _>>()?;
    let staged = files
        .iter()
        .zip(&plans)
        .map(|(&(tensor, path), plan)| file::stage(path, |f| plan.write(tensor, f)))
        .collect::<Result<Vec<_>, _>>()?;
    file::commit(staged)
}

/// Reads every array of the `.npz` file at `path`, in archive order, named
/// without their `.npy` suffix.
///
/// Both stored entries (`np.savez`) and deflate-compressed ones
/// (`np.savez_compressed`) are read.
///
/// No array may take more than [`DEFAULT_MAX_TENSOR_BYTES`] (16 GiB); use
/// [`read_npz_file_limited`] to choose the limit.
pub fn read_npz_file(path: &Path) -> Result<Vec<(String, Tensor)>, NpyError> {
    npz::read(path, DEFAULT_MAX_TENSOR_BYTES)
}

/// Reads every array of the `.npz` file at `path` as
/// [`read_npz_file`] does, refusing any array larger than `max_array_bytes`
/// before it is decompressed: a small compressed archive can hold arrays
/// a thousand times its size.
pub fn read_npz_file_limited(path: &Path, max_array_bytes: u64) -> Result<Vec<(String, Tensor)>, NpyError> {
    npz::read(path, max_array_bytes)
}

/// Reads every array of a `.npz` archive held in memory, in archive order,
/// named without their `.npy` suffix.
///
/// No array may take more than [`DEFAULT_MAX_TENSOR_BYTES`] (16 GiB).
pub fn read_npz(bytes: &[u8]) -> Result<Vec<(String, Tensor)>, NpyError> {
    npz::read_bytes(bytes, DEFAULT_MAX_TENSOR_BYTES)
}

/// Writes `entries` as an uncompressed `.npz` file at `path`, as
/// `np.savez` does, each array under its name plus `.npy`; replaces any
/// file there only once the new one is complete.
pub fn write_npz_file(entries: &[(String, Tensor)], path: &Path) -> Result<(), NpyError> {
    npz::write(entries, path)
}
