//! Copies of whole blocks of elements, for kernels whose output is made of
//! stretches of their inputs (Gather, Broadcast, Concat, Slice). Elements
//! are moved as raw bytes of their width, so one routine serves every
//! whole-byte type; string tensors move their `String`s, and the packed
//! sub-byte types move one element's bits at a time, inside bytes too.

use ovir_tensor::packed::{code_at, is_packed, set_code};
use ovir_tensor::{ElementType, Tensor};

use super::KernelError;

/// The elements of an input.
pub(crate) enum Source<'a> {
    Bytes {
        data: &'a [u8],
        width: usize,
    },
    Strings(&'a [String]),
    /// A packed sub-byte type, in OpenVINO's layout.
    Packed {
        data: &'a [u8],
        ty: ElementType,
    },
}

/// The elements of an output.
pub(crate) enum Target<'a> {
    Bytes {
        data: &'a mut [u8],
        width: usize,
    },
    Strings(&'a mut [String]),
    /// A packed sub-byte type, in OpenVINO's layout.
    Packed {
        data: &'a mut [u8],
        ty: ElementType,
    },
}

/// The byte width of a whole-byte `ty`.
fn width(op: &'static str, ty: ElementType) -> Result<usize, KernelError> {
    match ty.byte_width() {
        Some(w @ (1 | 2 | 4 | 8)) => Ok(w),
        _ => Err(KernelError::UnsupportedType { op, ty }),
    }
}

impl<'a> Source<'a> {
    pub(crate) fn of(op: &'static str, t: &'a Tensor) -> Result<Self, KernelError> {
        if let Some(s) = t.strings() {
            return Ok(Source::Strings(s));
        }
        let ty = t.element_type();
        let data = t.bytes().ok_or(KernelError::UnsupportedType { op, ty })?;
        if is_packed(ty) {
            return Ok(Source::Packed { data, ty });
        }
        Ok(Source::Bytes { data, width: width(op, ty)? })
    }
}

impl<'a> Target<'a> {
    pub(crate) fn of(op: &'static str, t: &'a mut Tensor) -> Result<Self, KernelError> {
        let ty = t.element_type();
        if ty == ElementType::String {
            return t
                .strings_mut()
                .map(Target::Strings)
                .ok_or(KernelError::Internal { op, what: "an output of type string holds no strings" });
        }
        let data =
            t.bytes_mut().ok_or(KernelError::Internal { op, what: "a fixed-width output holds no bytes" })?;
        if is_packed(ty) {
            return Ok(Target::Packed { data, ty });
        }
        Ok(Target::Bytes { data, width: width(op, ty)? })
    }

    /// Copies `len` elements of `src` from element `from` to element `at`;
    /// `None` when either side is too short or the kinds differ.
    pub(crate) fn copy(&mut self, at: usize, src: &Source<'_>, from: usize, len: usize) -> Option<()> {
        match (self, src) {
            (Target::Bytes { data, width }, Source::Bytes { data: s, width: w }) if *width == *w => {
                let n = len.checked_mul(*w)?;
                let dst = data.get_mut(at.checked_mul(*w)?..)?.get_mut(..n)?;
                dst.copy_from_slice(s.get(from.checked_mul(*w)?..)?.get(..n)?);
                Some(())
            }
            (Target::Strings(data), Source::Strings(s)) => {
                let dst = data.get_mut(at..)?.get_mut(..len)?;
                // `clone_from` keeps an output string's allocation when it
                // is large enough, which matters for reused outputs.
                for (d, x) in dst.iter_mut().zip(s.get(from..)?.get(..len)?) {
                    d.clone_from(x);
                }
                Some(())
            }
            // Elements share bytes, so they move one at a time. Packed
            // tensors are mostly small constants, folded once when the
            // model compiles.
            (Target::Packed { data, ty }, Source::Packed { data: s, ty: t }) if ty == t => {
                for k in 0..len {
                    let code = code_at(s, *t, from.checked_add(k)?)?;
                    set_code(data, *ty, at.checked_add(k)?, code)?;
                }
                Some(())
            }
            _ => None,
        }
    }

    /// Sets `len` elements from element `at` to zero (empty strings).
    pub(crate) fn zero(&mut self, at: usize, len: usize) -> Option<()> {
        match self {
            Target::Bytes { data, width } => {
                data.get_mut(at.checked_mul(*width)?..)?.get_mut(..len.checked_mul(*width)?)?.fill(0);
            }
            Target::Strings(data) => data.get_mut(at..)?.get_mut(..len)?.iter_mut().for_each(String::clear),
            Target::Packed { data, ty } => {
                for k in 0..len {
                    set_code(data, *ty, at.checked_add(k)?, 0)?;
                }
            }
        }
        Some(())
    }
}

/// The product of `dims`, or `None` when it overflows: the dimensions of
/// a tensor that exists always fit, but a shape a model declares (a
/// Parameter's) need not, and a plan works out layouts for those before
/// any tensor exists.
pub(crate) fn count(dims: &[usize]) -> Option<usize> {
    ovir_tensor::element_count(dims)
}
