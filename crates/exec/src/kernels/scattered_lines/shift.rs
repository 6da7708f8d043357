//! The shifter: whole rows of a tile shifted into place in a buffer, one
//! pass per bit of the largest shift.

use super::tiles::{spread, BlockPart};
use super::tuning::*;
use super::ScatteredLines;
use crate::kernels::copy::ReverseCopier;
use crate::kernels::counts::Count;

impl<C: Count> ScatteredLines<'_, C> {
    /// The width in bytes of the rows [`ScatteredLines::shift`] works on
    /// for this plan with `n`-byte elements, or `None` when it does not take
    /// the plan: the axis must be at most [`SHIFT_MAX_SIZE`] long, and the
    /// lines at least [`SHIFT_MIN_LINE_BYTES`] wide. The widest power of two
    /// from 32 to [`SHIFT_MAX_ROW`] bytes whose tile of the whole axis fits
    /// the buffer, and no wider than the lines need.
    pub(super) fn shift_row(&self, copier: ReverseCopier, n: usize) -> Option<usize> {
        let line = self.inner.checked_mul(n)?;
        // 1-byte elements shift 2 to 3 times faster than they gather; 2-byte
        // ones only on 16 rows or more and without the vector gathers, and
        // wider ones gather faster (`docs/performance.md`).
        let wins = n == 1 || (n == 2 && self.size >= 16 && !copier.gathers());
        if !wins || !(2..=SHIFT_MAX_SIZE).contains(&self.size) || line < SHIFT_MIN_LINE_BYTES {
            return None;
        }
        let mut row = 32;
        while row < SHIFT_MAX_ROW && row < line && 2 * row * self.size <= SHIFT_TILE_BYTES {
            row *= 2;
        }
        Some(row)
    }

    /// [`ScatteredLines::shift`] on rows of `row` bytes, the width
    /// [`ScatteredLines::shift_row`] picked, compiled with `copier`'s
    /// widest instructions; `None` for any other width, or when a line left
    /// the data or the output.
    pub(super) fn shift_any(
        &self,
        copier: ReverseCopier,
        row: usize,
        n: usize,
        src: &[u8],
        start: usize,
        dst: &mut [u8],
    ) -> Option<()> {
        // Each row width with the most rows of it the buffer holds.
        macro_rules! at {
            ($w:literal) => {
                copier.vectorized(
                    #[inline(always)]
                    || self.shift::<$w, { SHIFT_TILE_BYTES / $w }>(n, src, start, dst),
                )
            };
        }
        match row {
            32 => at!(32),
            64 => at!(64),
            128 => at!(128),
            256 => at!(256),
            512 => at!(512),
            1024 => at!(1024),
            _ => None,
        }
    }

    /// Writes output elements `start..` into `dst`, which holds exactly
    /// those elements of `n` bytes, by shifting whole rows of `W` bytes in
    /// a buffer of `ROWS` of them.
    ///
    /// Line `(o, i)` of length `len > 1` is, for `k < len`, its reversed
    /// self shifted by `s = size - len` along the axis. With `R[j]` the
    /// input's row `size - 1 - j` (the rows in reverse order), output row
    /// `k` is `R[k + s]` for `k < len`, and the input's row `k` after. A
    /// tile of columns is copied into a buffer as `R`, then shifted in place
    /// by the bits of each column's `s`, one pass per bit: pass `b` replaces
    /// row `k` by row `k + 2^b` in the columns whose `s` has bit `b` set.
    /// Every pass is a byte-wise select between two rows under a mask, the
    /// same for every element width, on rows of a width fixed at compile
    /// time, so each is a few vector instructions. After the passes, each
    /// output row takes the buffer's row where `k < len` and the input's row
    /// elsewhere. Rows that a pass would fill from beyond the axis are left
    /// as they are: they land only where `k >= len`, which the last step
    /// takes from the input.
    ///
    /// `log2(size)` passes over a buffer in the L1 cache cost less per byte
    /// than moving elements one by one, which needs a load, a store and
    /// index arithmetic per element, the more so the narrower the elements.
    #[inline(always)]
    fn shift<const W: usize, const ROWS: usize>(
        &self,
        n: usize,
        src: &[u8],
        start: usize,
        dst: &mut [u8],
    ) -> Option<()> {
        let ScatteredLines { size, inner, .. } = *self;
        let end = match self.chunk_end(n, start, dst) {
            Ok(end) => end,
            Err(done) => return done,
        };
        if size > ROWS {
            return None;
        }
        // Columns per tile, so that the tile's rows are at most `W` bytes.
        let tile = (W / n).clamp(1, inner);
        // Passes enough for the largest shift, `size - 2`.
        let passes = (usize::BITS - (size - 1).leading_zeros()) as usize;
        let mut rows = [[0u8; W]; ROWS];
        let rows = rows.get_mut(..size)?;
        // Pass `b`'s mask: all ones in the bytes of a column whose shift
        // has bit `b` set.
        let mut masks = [[0u8; W]; SHIFT_MAX_PASSES];
        if passes > SHIFT_MAX_PASSES {
            return None;
        }
        // Per byte, how many rows from `base` on still lie inside its
        // line's reversed part, at most 255.
        let mut left = [0u8; W];
        // Per byte, the shift of its column.
        let mut shifts = [0u8; W];
        // Inlined whole into the caller's `run` (see `kernels::simd`): a
        // closure compiled on its own lacks the token's features.
        self.for_each_tile(
            n,
            src,
            start,
            end,
            tile,
            #[inline(always)]
            |part, t0, t1, line, input| {
                let BlockPart { first, k0, k1, .. } = part;
                let width = (t1 - t0) * n;
                let lengths = line.get(t0..t1)?;
                // Whether any column moves at all, each byte's shift (at
                // most `size - 2`, so it fits a byte), the passes any
                // column needs, and their masks.
                let moves = lengths.iter().fold(0, |any, &len| any | len.get()) != 0;
                spread(&mut shifts, lengths, n, |len| if len > 0 { (size - len) as u8 } else { 0 });
                let needed = shifts.iter().fold(0, |any, &s| any | s);
                for (pass, mask) in masks.iter_mut().enumerate().take(passes) {
                    for (m, &s) in mask.iter_mut().zip(&shifts) {
                        *m = 0u8.wrapping_sub(s >> pass & 1);
                    }
                }
                if moves {
                    // `R`: the tile's rows in reverse order.
                    for (r, row) in rows.iter_mut().enumerate() {
                        let from = ((size - 1 - r) * inner + t0) * n;
                        row.get_mut(..width)?.copy_from_slice(input.get(from..from + width)?);
                    }
                    for (pass, mask) in masks.iter().enumerate().take(passes) {
                        let step = 1 << pass;
                        if needed >> pass & 1 == 0 || step >= size {
                            continue;
                        }
                        for k in 0..size - step {
                            // A copy of the far row: borrowed from the same
                            // buffer, the select measured 3 to 10 times
                            // slower (the compiler no longer vectorized it).
                            let far = *rows.get(k + step)?;
                            select(rows.get_mut(k)?, &far, mask);
                        }
                    }
                }
                let mut base = usize::MAX;
                for k in k0..=k1 {
                    let Some((c0, c1)) = part.columns(k, t0, t1, inner) else {
                        continue;
                    };
                    // Output elements `row + c0..row + c1`, counted from
                    // `start`, which may lie inside this row.
                    let row = first + k * inner;
                    let out = dst.get_mut((row + c0 - start) * n..(row + c1 - start) * n)?;
                    let from = input.get((k * inner + c0) * n..(k * inner + c1) * n)?;
                    if !moves {
                        out.copy_from_slice(from);
                        continue;
                    }
                    if base == usize::MAX || k - base > 254 {
                        base = k;
                        spread(&mut left, lengths, n, |len| len.saturating_sub(k).min(255) as u8);
                    }
                    let shifted = rows.get(k)?;
                    let (x0, x1) = ((c0 - t0) * n, (c1 - t0) * n);
                    if x1 - x0 == W {
                        take_reversed(out, from, shifted, &left, (k - base) as u8);
                    } else {
                        take_reversed_part(
                            out,
                            from,
                            shifted.get(x0..x1)?,
                            left.get(x0..x1)?,
                            (k - base) as u8,
                        );
                    }
                }
                Some(())
            },
        )
    }
}

/// `row[i] = far[i]` where `mask[i]` is all ones, else unchanged.
#[inline(always)]
fn select<const W: usize>(row: &mut [u8; W], far: &[u8; W], mask: &[u8; W]) {
    for i in 0..W {
        row[i] = (row[i] & !mask[i]) | (far[i] & mask[i]);
    }
}

/// The byte of `shifted` where `left > k` (it lies in its line's reversed
/// part), else the byte of `from`, with no branch.
#[inline(always)]
fn pick(from: u8, shifted: u8, left: u8, k: u8) -> u8 {
    // All ones where `left > k`: the borrow of `k - left`.
    let m = (u16::from(k).wrapping_sub(u16::from(left)) >> 8) as u8;
    (from & !m) | (shifted & m)
}

/// `out[i] = pick(from[i], shifted[i], left[i], k)` over a whole row; `out`
/// and `from` are `W` bytes long.
#[inline(always)]
fn take_reversed<const W: usize>(out: &mut [u8], from: &[u8], shifted: &[u8; W], left: &[u8; W], k: u8) {
    let (Ok(out), Ok(from)) = (<&mut [u8; W]>::try_from(out), <&[u8; W]>::try_from(from)) else {
        return;
    };
    for i in 0..W {
        out[i] = pick(from[i], shifted[i], left[i], k);
    }
}

/// [`take_reversed`] over part of a row; the four have the same length.
#[inline(always)]
fn take_reversed_part(out: &mut [u8], from: &[u8], shifted: &[u8], left: &[u8], k: u8) {
    for (((o, &f), &s), &l) in out.iter_mut().zip(from).zip(shifted).zip(left) {
        *o = pick(f, s, l, k);
    }
}
