//! Reading and checking the lengths: read into counts, or used where they
//! are stored when they are 32-bit integers within the axis.

use ovir_tensor::{ElementType, Tensor};

use super::OP;
use crate::kernels::counts::Count;
use crate::kernels::integer_lengths::{read_integers, scan_integers, Integer};
use crate::kernels::KernelError;
use ovir_shape::ops::reverse_subsequences::{for_each_subsequence_length, subsequence_length};

/// Reads the lengths into `lens` (emptied first), in the lengths' element
/// order: each clamped to `size`, which must fit `C`, and 0 for the
/// lengths 0 and 1, which move nothing. Tells whether any length moves an
/// element. The rule for each length is `ovir_shape`'s
/// ([`subsequence_length`]); integer lengths of whole bytes are read in a
/// loop of their own, which only flags a negative length and leaves it to
/// that rule to say what is wrong.
pub(super) fn read_lengths<C: Count>(
    lengths: &Tensor,
    size: usize,
    lens: &mut Vec<C>,
) -> Result<bool, KernelError> {
    let ty = lengths.element_type();
    lens.clear();
    // Twice the lengths: the stretches they fall into are marked after them.
    crate::kernels::error::try_reserve(lens, lengths.len().saturating_mul(2), OP, "lengths")?;
    let bytes = lengths.bytes().ok_or(KernelError::UnsupportedType { op: OP, ty })?;
    let mut any = 0;
    // Integer lengths are read in one pass with no branch per value, and
    // read again only to report the first negative one.
    let limit = u64::try_from(size).unwrap_or(u64::MAX);
    macro_rules! push_all {
        ($t:ty) => {{
            let scan = read_integers::<$t, C>(bytes, limit, true, lens);
            if scan.bad {
                return Err(first_negative::<$t>(bytes, lengths.shape()));
            }
            any = usize::from(scan.moves);
        }};
    }
    match ty {
        ElementType::I8 => push_all!(i8),
        ElementType::I16 => push_all!(i16),
        ElementType::I32 => push_all!(i32),
        ElementType::I64 => push_all!(i64),
        ElementType::U8 => push_all!(u8),
        ElementType::U16 => push_all!(u16),
        ElementType::U32 => push_all!(u32),
        ElementType::U64 => push_all!(u64),
        // The packed integer types share bytes between elements and are
        // rare as lengths: they are read the general way.
        _ => for_each_subsequence_length(lengths, |value| {
            let n = clamp(value, size);
            any |= n;
            // At most `size`, which `C` was chosen to hold.
            lens.push(C::narrow(n as u64));
        })?,
    }
    if lens.len() == lengths.len() {
        Ok(any != 0)
    } else {
        Err(KernelError::Internal { op: OP, what: "the lengths read do not match the lengths input" })
    }
}

/// Why the first negative one of the lengths (of shape `shape`) stored as
/// little-endian `T`s in `bytes` is wrong, in the words of
/// [`subsequence_length`], for lengths that [`read_integers`] flagged.
#[cold]
fn first_negative<T: Integer>(bytes: &[u8], shape: &[usize]) -> KernelError {
    let mut values = bytes.chunks_exact(T::WIDTH).map(T::read_le).enumerate();
    match values.find_map(|(index, value)| subsequence_length(shape, index, value.wide()).err()) {
        Some(wrong) => wrong.into(),
        None => KernelError::Internal { op: OP, what: "a length was flagged as negative, but none is" },
    }
}

/// The lengths where they are stored, when they are 32-bit integers
/// (`i32` or `u32`) on a 4-byte boundary and `C` is narrow; `None`
/// otherwise. They are usable as counts once [`within_axis`] has checked
/// them: a stored 1 is kept as it is, and moves nothing in every kernel
/// that reads it, as reversing one element leaves it where it is. On `[8,
/// 64, 128, 128]` along axis 0, the lengths are half the bytes of `u8`
/// data, and reading them into a buffer of their own was a pass over them
/// and a buffer as large again.
pub(super) fn stored_lengths<C: Count>(lengths: &Tensor) -> Option<&[C]> {
    if !matches!(lengths.element_type(), ElementType::I32 | ElementType::U32) {
        return None;
    }
    // The stored bytes are little-endian: as `u32`s they are the values
    // only on a little-endian machine.
    bytemuck::try_cast_slice::<u8, u32>(lengths.bytes()?)
        .ok()
        .filter(|_| cfg!(target_endian = "little"))
        .and_then(C::from_u32)
}

/// Whether any of the 32-bit lengths (`i32` or `u32`) moves an element,
/// when all of them lie from 0 to `size`; `None` when one does not, or
/// the lengths are of another type.
pub(super) fn within_axis(lengths: &Tensor, size: usize) -> Option<bool> {
    let bytes = lengths.bytes()?;
    let limit = u64::try_from(size).ok()?;
    let scan = match lengths.element_type() {
        ElementType::I32 => scan_integers::<i32>(bytes, limit, false),
        ElementType::U32 => scan_integers::<u32>(bytes, limit, false),
        _ => return None,
    };
    (!scan.bad).then_some(scan.moves)
}

/// A length clamped to the axis size, with 1 (a one-element reversal)
/// given as 0, so that "moves nothing" has one spelling.
pub(super) fn clamp(value: u64, size: usize) -> usize {
    let n = usize::try_from(value).map_or(size, |v| v.min(size));
    if n <= 1 {
        0
    } else {
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_of_32_bits_in_range_are_used_where_they_are_stored() {
        let words = |ty: ElementType, values: &[i64]| {
            let bytes: Vec<u8> = values.iter().flat_map(|&v| (v as u32).to_le_bytes()).collect();
            Tensor::from_bytes(ty, &[values.len()], &bytes).unwrap()
        };
        let stored = |lengths: &Tensor, size: usize| {
            let lens = stored_lengths::<u32>(lengths)?.to_vec();
            within_axis(lengths, size).map(|moves| (lens, moves))
        };
        // Kept as stored, 1s and the axis size included; 0s and 1s alone
        // move nothing.
        for ty in [ElementType::I32, ElementType::U32] {
            assert_eq!(stored(&words(ty, &[0, 1, 4, 2]), 4), Some((vec![0, 1, 4, 2], true)));
            assert_eq!(stored(&words(ty, &[0, 1, 1, 0]), 4), Some((vec![0, 1, 1, 0], false)));
            // Past the axis: read and clamped instead.
            assert_eq!(stored(&words(ty, &[0, 5, 2]), 4), None);
        }
        // Negative: read instead, which reports it.
        assert_eq!(stored(&words(ElementType::I32, &[2, -1]), 4), None);
        // Other widths, and wide counts, are read.
        let wide = Tensor::from_vec(&[2], vec![2i64, 3]).unwrap();
        assert_eq!(stored(&wide, 4), None);
        assert!(within_axis(&wide, 4).is_none());
        assert!(stored_lengths::<usize>(&words(ElementType::I32, &[2, 3])).is_none());
    }

    #[test]
    fn lengths_clamp_and_one_means_nothing() {
        assert_eq!(clamp(1, 4), 0);
        assert_eq!(clamp(9, 4), 4);
        assert_eq!(clamp(u64::MAX, 4), 4);
    }
}
