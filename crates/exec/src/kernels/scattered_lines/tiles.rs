//! The walk every strategy shares: the blocks a chunk of the output
//! touches, the tiles of columns of each, and the rows and columns of a
//! tile the chunk covers.

use super::ScatteredLines;
use crate::kernels::counts::Count;

impl<C: Count> ScatteredLines<'_, C> {
    /// Where the chunk of output elements `start..` that `dst` holds, `n`
    /// bytes each, ends: `Err` with what the kernel returns when there is
    /// no block to walk, `Some(())` for an empty chunk and `None` for one
    /// that does not fit the plan (not whole elements, or past `usize`).
    pub(super) fn chunk_end(&self, n: usize, start: usize, dst: &[u8]) -> Result<usize, Option<()>> {
        let end = dst.len().checked_div(n).and_then(|elements| start.checked_add(elements)).ok_or(None)?;
        let block = self.size.checked_mul(self.inner).ok_or(None)?;
        if block == 0 || !dst.len().is_multiple_of(n) {
            return Err((start == end && dst.is_empty()).then_some(()));
        }
        Ok(end)
    }

    /// The walk [`ScatteredLines::shift`], [`ScatteredLines::strips`],
    /// [`ScatteredLines::gather`], [`ScatteredLines::transposed`] and
    /// [`ScatteredLines::lines`] share: for every block that output elements `start..end` touch, and
    /// every tile of up to `tile` columns of it, calls `visit` with the part
    /// of the block they cover, the tile's columns `t0..t1`, the block's
    /// lengths and the block's input bytes (`n` an element). Stops at the
    /// first `None`.
    #[inline(always)]
    pub(super) fn for_each_tile(
        &self,
        n: usize,
        src: &[u8],
        start: usize,
        end: usize,
        tile: usize,
        mut visit: impl FnMut(BlockPart, usize, usize, &[C], &[u8]) -> Option<()>,
    ) -> Option<()> {
        let ScatteredLines { size, inner, lens, .. } = *self;
        let block = size.checked_mul(inner)?;
        let mut at = start;
        while at < end {
            let part = BlockPart::new(at, end, size, inner);
            let line = lens.get(part.o * inner..(part.o + 1) * inner)?;
            let input = src.get(part.first * n..(part.first + block) * n)?;
            for t0 in (0..inner).step_by(tile.max(1)) {
                visit(part, t0, (t0 + tile).min(inner), line, input)?;
            }
            at = part.first + part.b;
        }
        Some(())
    }

    /// Writes output elements `start..` into `dst`, which holds exactly
    /// those elements of `N` bytes, reading the input in place, in tiles of
    /// up to `tile` columns. For the rows and columns of a tile that the
    /// chunk covers, `kernel` is given the block's input, the bytes from
    /// one of its rows to the next (the output's too), the first column,
    /// the columns' lengths, the rows and the output, and returns how many
    /// columns it wrote from the first on; the rest go one element at a
    /// time.
    #[inline(always)]
    pub(super) fn in_place<const N: usize>(
        &self,
        src: &[u8],
        start: usize,
        dst: &mut [u8],
        tile: usize,
        mut kernel: impl FnMut(&[u8], usize, usize, &[C], (usize, usize), &mut [u8]) -> usize,
    ) -> Option<()> {
        let inner = self.inner;
        let end = match self.chunk_end(N, start, dst) {
            Ok(end) => end,
            Err(done) => return done,
        };
        let stride = inner.checked_mul(N)?;
        self.for_each_tile(N, src, start, end, tile, |part, t0, t1, line, input| {
            let at = |k: usize, c: usize| (part.first + k * inner + c - start) * N;
            part.by_rows(t0, t1, inner, |(c0, c1), (k0, k1)| {
                let out = dst.get_mut(at(k0, c0)..at(k1, c1))?;
                let lengths = line.get(c0..c1)?;
                let done = kernel(input, stride, c0, lengths, (k0, k1), out);
                if done >= lengths.len() {
                    return Some(());
                }
                for k in k0..=k1 {
                    for (c, &len) in (c0..c1).zip(lengths).skip(done) {
                        let (o, s) =
                            ((k - k0) * stride + (c - c0) * N, (source(len.get(), k) * inner + c) * N);
                        out.get_mut(o..o + N)?.copy_from_slice(input.get(s..s + N)?);
                    }
                }
                Some(())
            })
        })
    }
}

/// The row of its block that output row `k` of a line of length `len`
/// reads: `len - 1 - k` in the reversed part, else `k`.
#[inline(always)]
pub(super) fn source(len: usize, k: usize) -> usize {
    if k < len {
        len - 1 - k
    } else {
        k
    }
}

/// The part of one block of the `[outer, size, inner]` view that a chunk
/// of output elements `at..end` covers: block `o`, which starts at element
/// `first`, from `first + a` to `first + b`, at positions `k0..=k1` along
/// the axis.
#[derive(Clone, Copy, Debug)]
pub(super) struct BlockPart {
    pub(super) o: usize,
    pub(super) first: usize,
    pub(super) a: usize,
    pub(super) b: usize,
    pub(super) k0: usize,
    pub(super) k1: usize,
}

impl BlockPart {
    /// The part of the block that holds element `at`; `at < end`, and
    /// `size` and `inner` are not 0.
    pub(super) fn new(at: usize, end: usize, size: usize, inner: usize) -> BlockPart {
        let block = size * inner;
        let o = at / block;
        let first = o * block;
        let (a, b) = (at - first, (end - first).min(block));
        BlockPart { o, first, a, b, k0: a / inner, k1: (b - 1) / inner }
    }

    /// Calls `visit` with the columns and the rows of tile `t0..t1` that
    /// the part covers: the rows it covers across the whole tile together,
    /// then its first and last rows on their own where they cover only some
    /// of it. Stops at the first `None`.
    #[inline(always)]
    pub(super) fn by_rows(
        &self,
        t0: usize,
        t1: usize,
        inner: usize,
        mut visit: impl FnMut((usize, usize), (usize, usize)) -> Option<()>,
    ) -> Option<()> {
        let (k0, k1) = (self.k0, self.k1);
        let whole = self.whole_rows(t0, t1, inner);
        if let Some(rows) = whole {
            visit((t0, t1), rows)?;
        }
        for k in [Some(k0), (k1 != k0).then_some(k1)].into_iter().flatten() {
            if whole.is_some_and(|(lo, hi)| (lo..=hi).contains(&k)) {
                continue;
            }
            if let Some(columns) = self.columns(k, t0, t1, inner) {
                visit(columns, (k, k))?;
            }
        }
        Some(())
    }

    /// The rows `lo..=hi` on which the part covers every column of tile
    /// `t0..t1`, or `None` when there are none: all its rows but a first
    /// or last one it covers in part.
    pub(super) fn whole_rows(&self, t0: usize, t1: usize, inner: usize) -> Option<(usize, usize)> {
        let (k0, k1) = (self.k0, self.k1);
        let whole = |k: usize| self.columns(k, t0, t1, inner) == Some((t0, t1));
        let (lo, hi) = (if whole(k0) { k0 } else { k0 + 1 }, if whole(k1) { k1 + 1 } else { k1 });
        (lo < hi).then(|| (lo, hi - 1))
    }

    /// The columns `c0..c1` of tile `t0..t1` at position `k` that the part
    /// covers, or `None` when it covers none of them.
    pub(super) fn columns(&self, k: usize, t0: usize, t1: usize, inner: usize) -> Option<(usize, usize)> {
        let c0 = t0.max(if k == self.k0 { self.a % inner } else { 0 });
        let c1 = t1.min(if k == self.k1 { (self.b - 1) % inner + 1 } else { inner });
        (c0 < c1).then_some((c0, c1))
    }
}

/// Writes `value(len)` into the `n` bytes of each column of `bytes`, one
/// column per length; each width is its own loop, so that the compiler
/// writes an element's bytes at once instead of calling `memset` for each.
#[inline(always)]
pub(super) fn spread<const W: usize, C: Count>(
    bytes: &mut [u8; W],
    lengths: &[C],
    n: usize,
    value: impl Fn(usize) -> u8,
) {
    #[inline(always)]
    fn each<const N: usize, C: Count>(bytes: &mut [u8], lengths: &[C], value: impl Fn(usize) -> u8) {
        for (b, &len) in bytes.chunks_exact_mut(N).zip(lengths) {
            b.copy_from_slice(&[value(len.get()); N]);
        }
    }
    match n {
        1 => each::<1, C>(bytes, lengths, value),
        2 => each::<2, C>(bytes, lengths, value),
        4 => each::<4, C>(bytes, lengths, value),
        8 => each::<8, C>(bytes, lengths, value),
        _ => {
            for (b, &len) in bytes.chunks_exact_mut(n).zip(lengths) {
                b.fill(value(len.get()));
            }
        }
    }
}
