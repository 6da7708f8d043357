//! Turning `.npy` data into tensors and tensors into `.npy` data.

use std::io::{self, BufWriter, Read, Write};

use ovir_tensor::{ByteCount, ElementType, Tensor, TensorError};

use crate::error::{stream, NpyError};
use crate::header::{encode_header, read_header, Dtype, Header};

/// How much of an untrusted stream is reserved ahead of reading it; the
/// buffer grows beyond this only as data actually arrives.
const INITIAL_RESERVE: usize = 1 << 20;

/// Reads a `.npy` file held in memory.
pub(crate) fn read_slice(bytes: &[u8]) -> Result<Tensor, NpyError> {
    let mut rest = bytes;
    let header = read_header(&mut rest, bytes.len() as u64)?;
    check_data_len(&header, bytes.len() as u64)?;
    decode(&header, rest)
}

/// Reads a `.npy` stream whose total length `available` is known to be
/// true, such as a file's: the tensor is allocated once, up front, and the
/// data read straight into it.
pub(crate) fn read_sized(r: &mut impl Read, available: u64) -> Result<Tensor, NpyError> {
    let header = read_header(r, available)?;
    check_data_len(&header, available)?;
    match header.dtype {
        Dtype::Numeric { ty, .. } => {
            let mut tensor = Tensor::zeros(ty, &header.shape)?;
            r.read_exact(tensor.try_bytes_mut()?).map_err(stream)?;
            finish_numeric(tensor, &header)
        }
        Dtype::Unicode { .. } => {
            let mut buf = Vec::new();
            buf.try_reserve_exact(header.data_len)
                .map_err(|_| out_of_memory(&header, header.data_len as u128))?;
            buf.resize(header.data_len, 0);
            r.read_exact(&mut buf).map_err(stream)?;
            decode(&header, &buf)
        }
    }
}

/// The error for `bytes` of an array that there is no memory for.
fn out_of_memory(header: &Header, bytes: u128) -> NpyError {
    let ty = match header.dtype {
        Dtype::Numeric { ty, .. } => ty,
        Dtype::Unicode { .. } => ElementType::String,
    };
    let bytes = ByteCount(Some(bytes));
    TensorError::OutOfMemory { ty, shape: header.shape.clone(), bytes }.into()
}

/// Reads into `buf` until it is full or the stream ends; the number of
/// bytes read.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut done = 0;
    while let Some(rest) = buf.get_mut(done..).filter(|rest| !rest.is_empty()) {
        match r.read(rest) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// Reads a `.npy` stream that announces `announced` bytes but may hold
/// fewer or more, such as a zip entry, and reads it to its end so that
/// the archive's checksum is verified.
///
/// Numeric data goes straight into its tensor, allocated zeroed up front:
/// the system hands out its pages only as data is written to them, so a
/// stream that announces more than it holds costs address space, not
/// memory. Other data grows a buffer as it arrives.
pub(crate) fn read_unsized(r: &mut impl Read, announced: u64) -> Result<Tensor, NpyError> {
    let header = read_header(r, announced)?;
    check_data_len(&header, announced)?;
    let size_mismatch = |found: usize, extra: u64| NpyError::SizeMismatch {
        expected: header.data_len as u64,
        found: (found as u64).saturating_add(extra),
    };
    if let Dtype::Numeric { ty, .. } = header.dtype {
        let mut tensor = Tensor::zeros(ty, &header.shape)?;
        let found = fill(r, tensor.try_bytes_mut()?).map_err(stream)?;
        let extra = io::copy(r, &mut io::sink()).map_err(stream)?;
        if found != header.data_len || extra != 0 {
            return Err(size_mismatch(found, extra));
        }
        return finish_numeric(tensor, &header);
    }
    let mut buf = Vec::with_capacity(header.data_len.min(INITIAL_RESERVE));
    r.by_ref().take(header.data_len as u64).read_to_end(&mut buf).map_err(stream)?;
    let extra = io::copy(r, &mut io::sink()).map_err(stream)?;
    if buf.len() != header.data_len || extra != 0 {
        return Err(size_mismatch(buf.len(), extra));
    }
    decode(&header, &buf)
}

/// Checks that exactly the data the header announces follows it, before
/// anything is allocated for that data.
fn check_data_len(header: &Header, available: u64) -> Result<(), NpyError> {
    let found = available.saturating_sub(header.data_offset);
    if found != header.data_len as u64 {
        return Err(NpyError::SizeMismatch { expected: header.data_len as u64, found });
    }
    // Zero-width strings take no bytes in the file but a `String` each in
    // memory; bounding them by the input size keeps a tiny hostile file
    // from asking for terabytes.
    if header.data_len == 0 && header.count as u64 > available {
        return Err(NpyError::TooLarge {
            descr: header.descr.clone(),
            shape: header.shape.iter().map(|&d| d as u64).collect(),
        });
    }
    Ok(())
}

/// Builds the tensor from exactly the data bytes of the array.
fn decode(header: &Header, data: &[u8]) -> Result<Tensor, NpyError> {
    if data.len() != header.data_len {
        return Err(NpyError::SizeMismatch { expected: header.data_len as u64, found: data.len() as u64 });
    }
    match header.dtype {
        Dtype::Numeric { ty, .. } => finish_numeric(Tensor::from_bytes(ty, &header.shape, data)?, header),
        Dtype::Unicode { chars, big_endian } => {
            let mut strings = Vec::new();
            strings.try_reserve_exact(header.count).map_err(|_| {
                let handles = header.count as u128 * std::mem::size_of::<String>() as u128;
                out_of_memory(header, handles)
            })?;
            if chars == 0 {
                strings.resize(header.count, String::new());
            } else {
                for element in data.chunks_exact(chars * 4) {
                    strings.push(decode_ucs4(element, big_endian)?);
                }
            }
            if header.fortran_order {
                strings = FortranIndices::new(&header.shape)
                    .map(|i| strings.get_mut(i).map(std::mem::take).unwrap_or_default())
                    .collect();
            }
            Ok(Tensor::from_strings(&header.shape, strings)?)
        }
    }
}

/// One fixed-width UCS-4 element, with NumPy's trailing NUL padding removed.
fn decode_ucs4(element: &[u8], big_endian: bool) -> Result<String, NpyError> {
    let code = |c: &[u8]| {
        let raw: [u8; 4] = c.try_into().unwrap_or_default();
        if big_endian {
            u32::from_be_bytes(raw)
        } else {
            u32::from_le_bytes(raw)
        }
    };
    let used = element.chunks_exact(4).rposition(|c| code(c) != 0).map_or(0, |last| last + 1);
    element
        .chunks_exact(4)
        .take(used)
        .map(|c| {
            let code = code(c);
            char::from_u32(code).ok_or(NpyError::InvalidUnicode { code })
        })
        .collect()
}

/// Brings numeric data into C order, little-endian, with booleans as 0 or 1.
fn finish_numeric(tensor: Tensor, header: &Header) -> Result<Tensor, NpyError> {
    let Dtype::Numeric { ty, width, big_endian } = header.dtype else {
        return Ok(tensor);
    };
    let mut tensor = if header.fortran_order && header.shape.len() > 1 {
        let src = tensor.bytes().unwrap_or_default();
        let mut c_order = Tensor::zeros(ty, &header.shape)?;
        if let Some(dst) = c_order.bytes_mut() {
            for (out, i) in dst.chunks_exact_mut(width).zip(FortranIndices::new(&header.shape)) {
                if let Some(from) = src.get(i * width..(i + 1) * width) {
                    out.copy_from_slice(from);
                }
            }
        }
        c_order
    } else {
        tensor
    };
    if let Some(bytes) = tensor.bytes_mut() {
        if big_endian && width > 1 {
            bytes.chunks_exact_mut(width).for_each(<[u8]>::reverse);
        }
        if ty == ElementType::Boolean {
            // NumPy treats any non-zero byte as True; OpenVINO wants 0 or 1.
            bytes.iter_mut().for_each(|b| *b = u8::from(*b != 0));
        }
    }
    Ok(tensor)
}

/// For each element in C (row-major) order, its position in the same array
/// stored in Fortran (column-major) order.
struct FortranIndices {
    shape: Vec<usize>,
    strides: Vec<usize>,
    index: Vec<usize>,
    offset: usize,
    remaining: usize,
}

impl FortranIndices {
    fn new(shape: &[usize]) -> Self {
        let mut strides = Vec::with_capacity(shape.len());
        let mut stride = 1usize;
        for &d in shape {
            strides.push(stride);
            // Saturation only happens when a later dimension is zero, and
            // then no index is ever produced.
            stride = stride.saturating_mul(d);
        }
        let remaining = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).unwrap_or(0);
        FortranIndices { shape: shape.to_vec(), strides, index: vec![0; shape.len()], offset: 0, remaining }
    }
}

impl Iterator for FortranIndices {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let current = self.offset;
        let axes = self.index.iter_mut().zip(&self.shape).zip(&self.strides).rev();
        for ((i, &size), &stride) in axes {
            *i += 1;
            self.offset += stride;
            if *i < size {
                break;
            }
            *i = 0;
            self.offset -= stride * size;
        }
        Some(current)
    }
}

/// What writing a tensor will produce, worked out before any byte is
/// written so that unsupported tensors leave no partial output.
pub(crate) struct Plan {
    header: Vec<u8>,
    /// UCS-4 code points per element, for string tensors.
    chars: usize,
    data_len: usize,
}

impl Plan {
    /// Checks that `tensor` can be written and lays out its header.
    pub(crate) fn new(tensor: &Tensor) -> Result<Plan, NpyError> {
        let ty = tensor.element_type();
        let (descr, chars, item_size) = match (ty, tensor.strings()) {
            (ElementType::String, Some(strings)) => {
                let chars = strings.iter().map(|s| s.chars().count()).max().unwrap_or(0).max(1);
                (format!("<U{chars}"), chars, chars.checked_mul(4))
            }
            _ => {
                let descr = match ty {
                    ElementType::Boolean => "|b1",
                    ElementType::I8 => "|i1",
                    ElementType::I16 => "<i2",
                    ElementType::I32 => "<i4",
                    ElementType::I64 => "<i8",
                    ElementType::U8 => "|u1",
                    ElementType::U16 => "<u2",
                    ElementType::U32 => "<u4",
                    ElementType::U64 => "<u8",
                    ElementType::F16 => "<f2",
                    ElementType::F32 => "<f4",
                    ElementType::F64 => "<f8",
                    _ => return Err(NpyError::UnsupportedType { ty }),
                };
                (descr.to_owned(), 0, ty.byte_width())
            }
        };
        let data_len =
            item_size.and_then(|size| tensor.len().checked_mul(size)).ok_or_else(|| NpyError::TooLarge {
                descr: descr.clone(),
                shape: tensor.shape().iter().map(|&d| d as u64).collect(),
            })?;
        Ok(Plan { header: encode_header(&descr, tensor.shape())?, chars, data_len })
    }

    /// Total bytes of the `.npy` output.
    pub(crate) fn total_len(&self) -> u64 {
        (self.header.len() as u64).saturating_add(self.data_len as u64)
    }

    /// Writes the header and the data of `tensor`, the tensor this plan was
    /// made for.
    pub(crate) fn write(&self, tensor: &Tensor, out: &mut impl Write) -> Result<(), NpyError> {
        let mut out = BufWriter::new(out);
        out.write_all(&self.header).map_err(stream)?;
        if let Some(strings) = tensor.strings() {
            let mut element = Vec::with_capacity(self.chars * 4);
            for s in strings {
                element.clear();
                element.extend(s.chars().flat_map(|c| u32::from(c).to_le_bytes()));
                element.resize(self.chars * 4, 0);
                out.write_all(&element).map_err(stream)?;
            }
        } else if tensor.element_type() == ElementType::Boolean {
            for chunk in tensor.bytes().unwrap_or_default().chunks(1 << 16) {
                let normalized: Vec<u8> = chunk.iter().map(|&b| u8::from(b != 0)).collect();
                out.write_all(&normalized).map_err(stream)?;
            }
        } else {
            out.write_all(tensor.bytes().unwrap_or_default()).map_err(stream)?;
        }
        out.flush().map_err(stream)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fortran_indices_transpose() {
        // A 2x3 array stored column-major: C position (r, c) is at r + 2c.
        assert_eq!(FortranIndices::new(&[2, 3]).collect::<Vec<_>>(), vec![0, 2, 4, 1, 3, 5]);
        assert_eq!(FortranIndices::new(&[4]).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        assert_eq!(FortranIndices::new(&[]).collect::<Vec<_>>(), vec![0]);
        assert_eq!(FortranIndices::new(&[usize::MAX, usize::MAX, 0]).count(), 0);
    }

    #[test]
    fn ucs4_strips_only_trailing_nuls() {
        let mut raw = Vec::new();
        for c in ['a', '\0', 'é', '\0', '\0'] {
            raw.extend(u32::from(c).to_le_bytes());
        }
        assert_eq!(decode_ucs4(&raw, false).ok().as_deref(), Some("a\0é"));
        assert!(matches!(
            decode_ucs4(&0xD800u32.to_le_bytes(), false),
            Err(NpyError::InvalidUnicode { code: 0xD800 })
        ));
        assert!(matches!(
            decode_ucs4(&0x11_0000u32.to_be_bytes(), true),
            Err(NpyError::InvalidUnicode { code: 0x11_0000 })
        ));
    }
}
