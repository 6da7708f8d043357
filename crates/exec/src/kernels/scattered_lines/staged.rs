//! Long axes, through lines staged in a buffer: a tile of columns is
//! turned into lines, each line's head reversed, and turned back.

use super::tuning::*;
use super::{ScatteredLines, LINE, LINES};
use crate::kernels::copy::{line_group, line_pitch, ReverseCopier, TRANSPOSED_ROWS};
use crate::kernels::counts::Count;

/// Whether [`ScatteredLines::lines`] beats the other kernels on an axis
/// of `size` rows with `inner` columns of `n`-byte elements, as
/// [`ScatteredLines::takes_lines`] explains, and a tile fits
/// ([`lines_tile`]).
pub(in crate::kernels) fn lines_win(n: usize, size: usize, inner: usize) -> bool {
    let wins = match n {
        // Where the strips do not take the axis; 2-byte elements also
        // where the gathers cannot stage whole blocks.
        1 => size > STRIP_MAX_SIZE,
        2 => size > STRIP_MAX_SIZE && size.saturating_mul(inner).saturating_mul(n) > GATHER_TILE_BYTES,
        // The gathers stage a tile of at least a cache line of columns;
        // on wide rows the lines beat them from a shorter axis.
        4 => {
            size.saturating_mul(LINE) > GATHER_TILE_BYTES
                || (size > LINES_WIDE_MIN_ROWS && inner >= LINES_WIDE_MIN_COLUMNS)
        }
        8 => size.saturating_mul(inner).saturating_mul(n) > GATHER_TILE_BYTES,
        _ => false,
    };
    wins && size > TRANSPOSED_ROWS && lines_tile(n, size, inner).is_some()
}

/// The columns per tile of [`ScatteredLines::lines`] for `n`-byte
/// elements (1, 2, 4 or 8) on an axis of `size` rows with `inner` columns, and
/// the bytes of lines it stages: as many whole groups as
/// [`GATHER_TILE_BYTES`] holds, but at least [`LINES_MIN_ROW_BYTES`] of
/// each row, and no more than [`LINES_MAX_BYTES`] or the columns there
/// are. `None` when not even one group of lines fits: fewer columns than a
/// group (32 of 1 byte, 16 of 2 bytes, 8 of 4, 4 of 8), an axis too long
/// for a group's lines in [`LINES_MAX_BYTES`] (about 32,800 rows), or
/// another width.
fn lines_tile(n: usize, size: usize, inner: usize) -> Option<(usize, usize)> {
    let group = line_group(n);
    let pitch = match n {
        1 => line_pitch::<1>(size),
        2 => line_pitch::<2>(size),
        4 => line_pitch::<4>(size),
        8 => line_pitch::<8>(size),
        _ => None,
    }?;
    let fits = |columns: usize| columns / group * group;
    let wanted = fits((GATHER_TILE_BYTES / pitch).max(LINES_MIN_ROW_BYTES / n));
    let tile = wanted.min(fits(LINES_MAX_BYTES / pitch)).min(fits(inner));
    (tile >= group).then(|| (tile, tile * pitch))
}

impl<C: Count> ScatteredLines<'_, C> {
    /// Whether [`ScatteredLines::lines`] takes this plan with `n`-byte
    /// elements: with AVX2, on an axis longer than [`TRANSPOSED_ROWS`]
    /// with a tile of at least a group of lines ([`lines_tile`]) and
    /// lengths kept in 32 bits, where the other kernels fall behind. The
    /// strips are asked first ([`ScatteredLines::takes_strips`]): with
    /// AVX-512 they take 8-byte elements on axes of 16 to 255 rows, in
    /// lines of at least [`WIDE_STRIP_MIN_LINE_BYTES`].
    /// - 8-byte elements where a block is larger than the buffer of
    ///   [`ScatteredLines::gather`], on axes of up to about 32,800 rows;
    ///   where it is not, the gathers stage whole blocks, one plain copy
    ///   each, and move their elements one at a time faster.
    /// - 1-byte elements on axes longer than the strips take (over
    ///   [`STRIP_MAX_SIZE`] rows), where the shifter (256 rows) and the
    ///   gathers come next.
    /// - 2-byte elements on axes longer than the strips take where a block
    ///   is larger than the buffer of [`ScatteredLines::gather`].
    /// - 4-byte elements where the gathers cannot stage a cache line of
    ///   columns over the whole axis, and would read it in place: an axis
    ///   of more than 2048 rows; and on longer axes of rows of many columns
    ///   ([`LINES_WIDE_MIN_ROWS`]).
    ///
    /// The times behind each are in `docs/performance.md` ("Why the
    /// ReverseSequence and ReverseSubsequences constants are what they
    /// are"). The rule without the machine and the lengths is
    /// [`lines_win`].
    pub(super) fn takes_lines(&self, copier: ReverseCopier, n: usize) -> bool {
        copier.transposes() && lines_win(n, self.size, self.inner) && C::as_u32(self.lens).is_some()
    }

    /// Writes output elements `start..` into `dst`, which holds exactly
    /// those elements of `N` bytes (1, 2, 4 or 8), through lines staged in this
    /// thread's buffer ([`ReverseCopier::subsequence_lines`]): the columns
    /// go in tiles of [`lines_tile`], each written at every output row the
    /// chunk covers before the next. The columns left over at the end of a
    /// block's rows go one element at a time.
    pub(super) fn lines<const N: usize>(
        &self,
        copier: ReverseCopier,
        src: &[u8],
        start: usize,
        dst: &mut [u8],
    ) -> Option<()> {
        let ScatteredLines { size, inner, .. } = *self;
        let (tile, bytes) = lines_tile(N, size, inner)?;
        LINES
            .try_with(|lines| {
                let mut storage = lines.try_borrow_mut().ok()?;
                if storage.len() < bytes.div_ceil(8) {
                    storage.resize(bytes.div_ceil(8), 0);
                }
                let buffer: &mut [u8] = bytemuck::cast_slice_mut(storage.as_mut_slice());
                self.in_place::<N>(src, start, dst, tile, |input, stride, first, lens, rows, out| {
                    C::as_u32(lens).map_or(0, |lens| {
                        copier.subsequence_lines::<N>(
                            input,
                            (stride, size),
                            first,
                            lens,
                            buffer,
                            rows,
                            out,
                            stride,
                        )
                    })
                })
            })
            .ok()?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_take_long_axes_in_tiles_of_at_least_256_bytes_of_each_row() {
        // 4-byte elements: past the 2048 rows the gathers stage, or past
        // 64 rows of 1024 columns or more, with a group of 8 columns at
        // least, and while a group of lines fits 1 MiB and a group in
        // front of each: (32,824 + 8) * 4 * 8 bytes.
        for (size, inner, takes) in [
            (65, 1024, true),
            (64, 1024, false),
            (65, 1023, false),
            (2048, 1023, false),
            (2048, 512, false),
            (2049, 9, true),
            (2049, 7, false),
            (4096, 512, true),
            (32_824, 8, true),
            (32_825, 8, false),
        ] {
            assert_eq!(lines_win(4, size, inner), takes, "4 bytes, {size} rows, {inner} columns");
        }
        // 8-byte elements: blocks past 128 KiB on axes of over 8 rows,
        // with a group of 4 columns at least.
        for (size, inner, takes) in
            [(64, 16384, true), (128, 128, false), (8, 100_000, false), (4200, 9, true), (4200, 3, false)]
        {
            assert_eq!(lines_win(8, size, inner), takes, "8 bytes, {size} rows, {inner} columns");
        }
        // 1- and 2-byte elements: past the 255 rows the strips take, with a
        // group of 32 or 16 columns at least; 2-byte ones only where a
        // block is past 128 KiB as well.
        for (size, inner, takes) in
            [(255, 512, false), (256, 512, true), (300, 64, false), (4096, 17, true), (5000, 15, false)]
        {
            assert_eq!(lines_win(2, size, inner), takes, "2 bytes, {size} rows, {inner} columns");
        }
        for (size, inner, takes) in [(255, 512, false), (256, 32, true), (256, 31, false), (4096, 2048, true)]
        {
            assert_eq!(lines_win(1, size, inner), takes, "1 byte, {size} rows, {inner} columns");
        }
        // No other width.
        assert!(!lines_win(3, 4096, 512) && !lines_win(16, 4096, 512));
        assert_eq!(lines_tile(3, 100, 100), None);
        // Lines of `(size rounded up to the group, plus a group) * n`
        // bytes; tiles of 256 bytes of each row where 128 KiB holds fewer,
        // capped at 1 MiB of lines and at the columns there are.
        for (n, size, inner, tile, pitch) in [
            (4, 4096, 512, 64, (4096 + 8) * 4),
            (4, 2100, 150, 64, (2104 + 8) * 4),
            (4, 8000, 512, 32, (8000 + 8) * 4),
            (4, 2049, 9, 8, (2056 + 8) * 4),
            (2, 4096, 512, 112, (4096 + 16) * 2),
            (2, 300, 40, 32, (304 + 16) * 2),
            (1, 4096, 2048, 224, 4096 + 32),
            (1, 300, 64, 64, 320 + 32),
            (8, 64, 16384, 240, (64 + 4) * 8),
            (8, 2048, 512, 32, (2048 + 4) * 8),
        ] {
            assert_eq!(lines_tile(n, size, inner), Some((tile, tile * pitch)), "{n} bytes, {size} rows");
        }
    }
}
