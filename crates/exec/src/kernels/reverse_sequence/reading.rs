//! Reading and checking the lengths: into counts, or used where they are
//! stored when they are 32-bit integers, learning on the way whether any
//! moves and whether all are equal.

use ovir_shape::ops::reverse_sequence::{
    check_sequence_lengths, for_each_sequence_length, integer_sequence_length,
};
use ovir_tensor::{ElementType, Tensor};

use super::OP;
use crate::kernels::counts::Count;
use crate::kernels::integer_lengths::{read_integers, scan_integers, Integer};
use crate::kernels::KernelError;

/// What [`read_lengths`] learns while it reads the lengths, so that no one
/// reads them again to ask.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct LengthsRead {
    /// Whether any length moves an element (is above 1).
    pub(super) moves: bool,
    /// Whether every batch index has the same length.
    pub(super) uniform: bool,
}

/// Reads and checks the lengths, for data whose (normalised) batch axis
/// has `batch` indices: for each batch index how many elements to reverse.
/// The rules are `ovir_shape`'s ([`check_sequence_lengths`] and each
/// length's); integer lengths are read in a loop of their own, which only
/// flags a wrong length and leaves it to those rules to say what is wrong.
/// 32-bit integer lengths on a 4-byte boundary, when the counts are
/// `u32`, are checked where they lie and returned as they are, so that
/// nothing is written and read again; a length of 1 then stays 1, which
/// reverses one element and moves nothing, as 0 does. Any other lengths
/// are read into `lens` (emptied first), with 0 and 1 both given as 0.
pub(super) fn read_lengths<'a, C: Count>(
    lengths: &'a Tensor,
    (batch_axis, batch): (usize, usize),
    seq_size: usize,
    lens: &mut Vec<C>,
) -> Result<(LengthsRead, Option<&'a [C]>), KernelError> {
    check_sequence_lengths(lengths, batch_axis, batch)?;
    let ty = lengths.element_type();
    let bytes = lengths.bytes().ok_or(KernelError::UnsupportedType { op: OP, ty })?;
    lens.clear();
    let limit = u64::try_from(seq_size).unwrap_or(u64::MAX);
    // The stored bytes are little-endian: as `u32`s they are the values
    // only on a little-endian machine.
    let stored = bytemuck::try_cast_slice::<u8, u32>(bytes)
        .ok()
        .filter(|_| cfg!(target_endian = "little"))
        .and_then(C::from_u32);
    if let (Some(stored), ElementType::I32 | ElementType::U32) = (stored, ty) {
        let (scan, wrong) = match ty {
            ElementType::I32 => {
                (scan_integers::<i32>(bytes, limit, false), first_wrong::<i32> as fn(&[u8], usize) -> _)
            }
            _ => (scan_integers::<u32>(bytes, limit, false), first_wrong::<u32> as fn(&[u8], usize) -> _),
        };
        if scan.bad {
            return Err(wrong(bytes, seq_size));
        }
        return Ok((LengthsRead { moves: scan.moves, uniform: scan.uniform }, Some(stored)));
    }
    crate::kernels::error::try_reserve(lens, batch, OP, "sequence lengths")?;
    // Integer lengths are read in one pass with no branch per value, and
    // read again only to report the first that is out of range.
    macro_rules! integers {
        ($t:ty) => {{
            let scan = read_integers::<$t, C>(bytes, limit, false, lens);
            match scan.bad {
                true => Err(first_wrong::<$t>(bytes, seq_size)),
                false => Ok(LengthsRead { moves: scan.moves, uniform: scan.uniform }),
            }
        }};
    }
    let read = match ty {
        ElementType::I8 => integers!(i8),
        ElementType::I16 => integers!(i16),
        ElementType::I32 => integers!(i32),
        ElementType::I64 => integers!(i64),
        ElementType::U8 => integers!(u8),
        ElementType::U16 => integers!(u16),
        ElementType::U32 => integers!(u32),
        ElementType::U64 => integers!(u64),
        // Real lengths, and the packed integer types, which share bytes
        // between elements and are rare as lengths, are read the general
        // way.
        _ => {
            let (mut any, mut first, mut uniform) = (0, None, true);
            for_each_sequence_length(lengths, seq_size, |n| {
                let n = if n <= 1 { 0 } else { n };
                any |= n;
                uniform &= *first.get_or_insert(n) == n;
                // At most `seq_size`, which `C` was chosen to hold.
                lens.push(C::narrow(n as u64));
            })?;
            Ok(LengthsRead { moves: any != 0, uniform })
        }
    }?;
    if lens.len() == batch {
        Ok((read, None))
    } else {
        Err(KernelError::Internal { op: OP, what: "the lengths read do not match the batch size" })
    }
}

/// Why the first of the lengths stored as little-endian `T`s in `bytes`
/// that is not a count in `0..=max` is wrong, in the words of
/// [`integer_sequence_length`], for lengths that [`read_integers`]
/// flagged.
#[cold]
fn first_wrong<T: Integer>(bytes: &[u8], max: usize) -> KernelError {
    let mut values = bytes.chunks_exact(T::WIDTH).map(T::read_le).enumerate();
    match values.find_map(|(batch, value)| integer_sequence_length(batch, value.wide(), max).err()) {
        Some(wrong) => wrong.into(),
        None => {
            KernelError::Internal { op: OP, what: "the lengths were flagged as out of range, but none is" }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_the_lengths_tells_whether_any_moves_and_whether_all_are_equal() {
        let read = |values: &[i64]| {
            let lengths = Tensor::from_vec(&[values.len()], values.to_vec()).unwrap();
            let mut lens = Vec::<u32>::new();
            let (summary, stored) = read_lengths(&lengths, (0, values.len()), 4, &mut lens).unwrap();
            assert!(stored.is_none(), "64-bit lengths are read, not used as they are stored");
            (summary.moves, summary.uniform, lens)
        };
        assert_eq!(read(&[3, 3, 3]), (true, true, vec![3, 3, 3]));
        assert_eq!(read(&[3, 3, 2]), (true, false, vec![3, 3, 2]));
        assert_eq!(read(&[2, 4, 4]), (true, false, vec![2, 4, 4]));
        // 0 and 1 both move nothing, so they count as equal.
        assert_eq!(read(&[1, 0, 1]), (false, true, vec![0, 0, 0]));
        assert_eq!(read(&[0, 0, 4]), (true, false, vec![0, 0, 4]));
        assert_eq!(read(&[4]), (true, true, vec![4]));
        assert_eq!(read(&[]), (false, true, vec![]));
    }

    #[test]
    fn lengths_of_32_bits_are_used_where_they_are_stored() {
        let stored = |lengths: &Tensor| {
            let mut lens = Vec::<u32>::new();
            let (summary, stored) = read_lengths(lengths, (0, 4), 4, &mut lens).unwrap();
            assert!(lens.is_empty(), "nothing is copied");
            (summary.moves, summary.uniform, stored.map(<[u32]>::to_vec))
        };
        let signed = Tensor::from_vec(&[4], vec![1i32, 0, 4, 1]).unwrap();
        assert_eq!(stored(&signed), (true, false, Some(vec![1, 0, 4, 1])));
        let unsigned = Tensor::from_vec(&[4], vec![3u32, 3, 3, 3]).unwrap();
        assert_eq!(stored(&unsigned), (true, true, Some(vec![3, 3, 3, 3])));
        // 0s and 1s move nothing, whichever is stored.
        let still = Tensor::from_vec(&[4], vec![1i32, 0, 0, 1]).unwrap();
        assert_eq!(stored(&still), (false, true, Some(vec![1, 0, 0, 1])));
        // Wide counts are read, never borrowed.
        let mut wide = Vec::<usize>::new();
        let (_, borrowed) = read_lengths(&signed, (0, 4), 4, &mut wide).unwrap();
        assert!(borrowed.is_none());
        assert_eq!(wide, vec![0, 0, 4, 0]);
    }
}
