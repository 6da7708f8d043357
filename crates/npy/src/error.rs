//! The error type shared by every reader and writer in this crate.

use std::io;
use std::path::{Path, PathBuf};

use ovir_tensor::{ElementType, TensorError};

/// The dtypes this crate reads and writes, for error messages.
pub(crate) const SUPPORTED_DTYPES: &str =
    "|b1, |i1, <i2, <i4, <i8, |u1, <u2, <u4, <u8, <f2, <f4, <f8 and <Un \
     (the multi-byte ones also big-endian, with '>')";

/// Why a `.npy` or `.npz` file could not be read or written.
///
/// The message holds every cause (the operating system's reason, the
/// zip library's, the array at fault), so the error has no
/// [`source`](std::error::Error::source) to repeat it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NpyError {
    /// Opening, reading, writing or renaming a file failed.
    #[error("cannot access {}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system reported.
        error: io::Error,
    },
    /// Reading from or writing to a stream that is not a named file failed.
    #[error("reading or writing the stream failed: {error}")]
    Stream {
        /// What the stream reported.
        error: io::Error,
    },
    /// The data does not start with the `\x93NUMPY` magic string, so it is
    /// not a `.npy` file.
    #[error("not a .npy file: the data does not start with the \\x93NUMPY magic string")]
    BadMagic,
    /// The header is malformed: an unknown format version, a length that
    /// points past the end of the data, text that is not the expected
    /// dictionary, or a shape that is not a tuple of sizes.
    #[error("bad .npy header: {reason}")]
    BadHeader {
        /// What is wrong with it.
        reason: String,
    },
    /// The header names a dtype that has no ovir element type.
    #[error("the dtype {descr} is not supported; supported dtypes are {SUPPORTED_DTYPES}")]
    UnsupportedDtype {
        /// The dtype description, as the header spells it.
        descr: String,
    },
    /// The amount of data after the header differs from what its shape and
    /// dtype need.
    #[error("the header announces {expected} bytes of data, but {found} bytes follow it")]
    SizeMismatch {
        /// Bytes the shape and dtype need.
        expected: u64,
        /// Bytes present.
        found: u64,
    },
    /// The byte size of the array overflows, or cannot be held in memory on
    /// this machine.
    #[error("an array of dtype {descr} and shape {shape:?} is too large to hold in memory")]
    TooLarge {
        /// The dtype description.
        descr: String,
        /// The shape.
        shape: Vec<u64>,
    },
    /// An array in an archive is larger than the reader's limit.
    #[error("the array takes {size} bytes, more than the limit of {limit} bytes")]
    OverLimit {
        /// The array's size in the archive, in bytes.
        size: u64,
        /// The limit, in bytes.
        limit: u64,
    },
    /// A unicode array element holds a number that is not a Unicode scalar
    /// value (a surrogate, or a value above `0x10FFFF`).
    #[error("a unicode element holds {code:#x}, which is not a valid Unicode character")]
    InvalidUnicode {
        /// The offending code point.
        code: u32,
    },
    /// The tensor's element type has no NumPy dtype (`bf16`, the 8-bit
    /// floats and the packed sub-byte types), so it cannot be written.
    #[error("{ty} tensors cannot be written to .npy: NumPy has no dtype for {ty}")]
    UnsupportedType {
        /// The element type.
        ty: ElementType,
    },
    /// The `.npz` archive could not be read or written as a zip file.
    #[error("zip archive error: {error}")]
    Zip {
        /// What the zip library reported.
        error: zip::result::ZipError,
    },
    /// The `.npz` archive holds something other than `.npy` arrays.
    #[error("bad .npz archive: {reason}")]
    BadArchive {
        /// What is wrong with it.
        reason: String,
    },
    /// Two arrays given to the `.npz` writer have the same name.
    #[error("two arrays are both named '{name}'; names in a .npz file must differ")]
    DuplicateName {
        /// The repeated name.
        name: String,
    },
    /// The tensor could not be built from the data read.
    #[error("cannot build the tensor: {error}")]
    Tensor {
        /// What the tensor layer reported.
        error: TensorError,
    },
    /// An error in a given file, or in one array of a `.npz` file.
    #[error("{}{}: {error}", path.display(), array.as_ref().map(|a| format!(", array '{a}'")).unwrap_or_default())]
    InFile {
        /// The file.
        path: PathBuf,
        /// The array inside a `.npz` file, if the error concerns one.
        array: Option<String>,
        /// The error itself.
        error: Box<NpyError>,
    },
    /// An error in one array of a `.npz` archive read from memory.
    #[error("array '{array}': {error}")]
    InArray {
        /// The array's name in the archive.
        array: String,
        /// The error itself.
        error: Box<NpyError>,
    },
}

impl NpyError {
    /// The error without the file and array it was found in: the
    /// [`InFile`](NpyError::InFile) wrapper removed, if there is one.
    pub fn cause(&self) -> &NpyError {
        match self {
            NpyError::InFile { error, .. } | NpyError::InArray { error, .. } => error.cause(),
            other => other,
        }
    }

    /// Attaches a file (and an array inside it) to the error; stream
    /// failures become [`Io`](NpyError::Io) errors naming the file.
    pub(crate) fn in_file(self, path: &Path, array: Option<&str>) -> NpyError {
        match (self, array) {
            (e @ (NpyError::Io { .. } | NpyError::InFile { .. }), _) => e,
            (NpyError::Stream { error }, None) => NpyError::Io { path: path.to_path_buf(), error },
            (e, array) => NpyError::InFile {
                path: path.to_path_buf(),
                array: array.map(str::to_owned),
                error: Box::new(e),
            },
        }
    }

    pub(crate) fn bad_header(reason: impl Into<String>) -> NpyError {
        NpyError::BadHeader { reason: reason.into() }
    }
}

impl From<TensorError> for NpyError {
    fn from(error: TensorError) -> Self {
        NpyError::Tensor { error }
    }
}

impl From<zip::result::ZipError> for NpyError {
    fn from(error: zip::result::ZipError) -> Self {
        NpyError::Zip { error }
    }
}

/// Wraps an I/O error on a stream.
pub(crate) fn stream(error: io::Error) -> NpyError {
    NpyError::Stream { error }
}

/// Wraps an I/O error on a named file.
pub(crate) fn io_at(path: &Path) -> impl Fn(io::Error) -> NpyError + '_ {
    move |error| NpyError::Io { path: path.to_path_buf(), error }
}
