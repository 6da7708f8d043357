//! Axes of up to [`TRANSPOSED_ROWS`] rows, turned into lines and back in
//! registers a register of columns at a time, the input read in place.

use super::ScatteredLines;
use crate::kernels::copy::{ReverseCopier, TRANSPOSED_ROWS};
use crate::kernels::counts::Count;

impl<C: Count> ScatteredLines<'_, C> {
    /// Whether [`ScatteredLines::transposed`] takes this plan with
    /// `n`-byte elements: with AVX2, an axis of 2 to
    /// [`TRANSPOSED_ROWS`] rows, lines of at least a register, and
    /// lengths kept in 32 bits or in one byte. On `[8, 64, 128, 128]`
    /// along axis 0 this took a fifth (`u8`) to 80% (`i64`) of the time of
    /// the kernels before it (more in `docs/performance.md`).
    pub(in crate::kernels) fn takes_transposed(&self, copier: ReverseCopier, n: usize) -> bool {
        copier.transposes()
            && n <= 8
            && (2..=TRANSPOSED_ROWS).contains(&self.size)
            && self.inner.saturating_mul(n) >= 32
            && C::vectored(self.lens)
    }

    /// Writes output elements `start..` into `dst`, which holds exactly
    /// those elements of `N` bytes, reading the input in place: a
    /// register's width of columns at a time is read from every row of its
    /// block, turned into lines and back in registers
    /// ([`ReverseCopier::subsequence_transposed`]), and written to every
    /// output row the chunk covers. The columns left over at the end of a
    /// block's rows go one element at a time.
    pub(super) fn transposed<const N: usize>(
        &self,
        copier: ReverseCopier,
        src: &[u8],
        start: usize,
        dst: &mut [u8],
    ) -> Option<()> {
        let size = self.size;
        self.in_place::<N>(src, start, dst, self.inner, |input, stride, first, lens, rows, out| {
            copier.subsequence_transposed::<N, C>(input, (stride, size), first, lens, rows, out, stride)
        })
    }
}
