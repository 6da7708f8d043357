//! The counts ReverseSequence and ReverseSubsequences read from their
//! lengths input, kept as narrow as the call allows, and the heads of rows
//! that the rows runs and the copy routines take them as.
//!
//! Read value by value, each checked, widened to `usize` and pushed on
//! its own, the lengths of a million 32-byte rows took half as long as
//! copying the 32 MiB of rows. Here they are kept as `u32` whenever the
//! axis allows; `integer_lengths` reads them with no branch per value.

use ovir_tensor::Tensor;

use std::ops::Range;

/// The lengths input of ReverseSequence or ReverseSubsequences: given
/// with the data, or read and checked ahead as `K`.
pub(super) enum Lengths<'a, K> {
    Given(&'a Tensor),
    Checked(&'a K),
}

impl<K> Clone for Lengths<'_, K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K> Copy for Lengths<'_, K> {}

/// How a kernel keeps the counts it reads from a lengths input: `u32` when
/// every count of the call fits, else `usize`. The plans that hold them are
/// generic over it, so the narrow form costs nothing on an axis of any
/// length.
pub(super) trait Count: Copy + Eq + std::fmt::Debug + Send + Sync {
    /// The count as an index.
    fn get(self) -> usize;
    /// `n` as a count; `None` when it does not fit, which the caller rules
    /// out by choosing the type from the longest axis.
    fn new(n: usize) -> Option<Self>;
    /// `n`, which is at most the largest count the caller chose this type
    /// for; a wider value would be cut.
    fn narrow(n: u64) -> Self;
    /// A rows run's heads, one per row.
    fn heads(list: &[Self]) -> Heads<'_>;
    /// The counts as `u32`s, which the vector loops take; `None` for wide
    /// counts.
    fn as_u32(list: &[Self]) -> Option<&[u32]>;
    /// `u32`s as counts; `None` for wide counts.
    fn from_u32(list: &[u32]) -> Option<&[Self]>;
    /// Whether the vector loops that take lengths of either width read
    /// these: `u32` and `u8` counts.
    fn vectored(_list: &[Self]) -> bool {
        matches!(std::mem::size_of::<Self>(), 1 | 4)
    }
}

impl Count for u32 {
    #[inline(always)]
    fn get(self) -> usize {
        self as usize
    }

    #[inline(always)]
    fn new(n: usize) -> Option<u32> {
        u32::try_from(n).ok()
    }

    #[inline(always)]
    fn narrow(n: u64) -> u32 {
        n as u32
    }

    fn heads(list: &[u32]) -> Heads<'_> {
        Heads::Each(list)
    }

    fn as_u32(list: &[u32]) -> Option<&[u32]> {
        Some(list)
    }

    fn from_u32(list: &[u32]) -> Option<&[u32]> {
        Some(list)
    }
}

impl Count for u8 {
    #[inline(always)]
    fn get(self) -> usize {
        self.into()
    }

    #[inline(always)]
    fn new(n: usize) -> Option<u8> {
        u8::try_from(n).ok()
    }

    #[inline(always)]
    fn narrow(n: u64) -> u8 {
        n as u8
    }

    fn heads(list: &[u8]) -> Heads<'_> {
        Heads::Bytes(list)
    }

    fn as_u32(_: &[u8]) -> Option<&[u32]> {
        None
    }

    fn from_u32(_: &[u32]) -> Option<&[u8]> {
        None
    }
}

impl Count for usize {
    #[inline(always)]
    fn get(self) -> usize {
        self
    }

    #[inline(always)]
    fn new(n: usize) -> Option<usize> {
        Some(n)
    }

    #[inline(always)]
    fn narrow(n: u64) -> usize {
        n as usize
    }

    fn heads(list: &[usize]) -> Heads<'_> {
        Heads::EachWide(list)
    }

    fn as_u32(_: &[usize]) -> Option<&[u32]> {
        None
    }

    fn from_u32(_: &[u32]) -> Option<&[usize]> {
        None
    }
}

/// Whether counts up to `n` fit the narrow [`Count`].
pub(super) fn narrow_counts(n: usize) -> bool {
    u32::try_from(n).is_ok()
}

/// How many elements at the start of each row of a rows run are reversed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Heads<'a> {
    /// The same number in every row.
    Same(usize),
    /// One number per row, in row order: rows of different sequence
    /// lengths still make one run, so a batch of short rows costs no more
    /// per row than the copy itself.
    Each(&'a [u32]),
    /// [`Heads::Each`] for rows too long for 32-bit counts, which the
    /// general loop copies.
    EachWide(&'a [usize]),
    /// [`Heads::Each`] a byte each, for rows of at most 31 elements (whose
    /// lengths were checked once ahead, or which run a few to a length):
    /// a quarter of the bytes to read beside the rows.
    Bytes(&'a [u8]),
}

impl<'a> Heads<'a> {
    /// The head length of row `r`; 0 for a row past the end of the list,
    /// which callers rule out by checking [`Heads::fits`] first.
    pub(super) fn of(self, r: usize) -> usize {
        match self {
            Heads::Same(n) => n,
            Heads::Each(list) => list.get(r).map_or(0, |&n| n.get()),
            Heads::EachWide(list) => list.get(r).copied().unwrap_or(0),
            Heads::Bytes(list) => list.get(r).map_or(0, |&n| n.into()),
        }
    }

    /// Whether these heads can describe `rows` rows of `row` elements
    /// each. A list is not scanned here, which would read it once more:
    /// whoever copies a row checks that its head fits.
    pub(super) fn fits(self, rows: usize, row: usize) -> bool {
        match self {
            Heads::Same(n) => n <= row,
            Heads::Each(list) => list.len() == rows,
            Heads::EachWide(list) => list.len() == rows,
            Heads::Bytes(list) => list.len() == rows,
        }
    }

    /// The heads of rows `keep` of this run.
    pub(super) fn slice(self, keep: Range<usize>) -> Option<Heads<'a>> {
        match self {
            Heads::Same(n) => Some(Heads::Same(n)),
            Heads::Each(list) => list.get(keep).map(Heads::Each),
            Heads::EachWide(list) => list.get(keep).map(Heads::EachWide),
            Heads::Bytes(list) => list.get(keep).map(Heads::Bytes),
        }
    }
}
