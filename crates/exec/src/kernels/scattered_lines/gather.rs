//! The gathers: a tile of columns staged in a buffer, and every output
//! element read from the row its line's length picks.

use super::tiles::{source, BlockPart};
use super::tuning::*;
use super::{ScatteredLines, LINE, LINES};

/// The most columns a tile of a long axis has ([`GATHER_LONG_MAX_BYTES`]
/// over the fewest rows that take it, 1-byte elements).
const LONG_MAX_COLUMNS: usize = GATHER_LONG_MAX_BYTES / (GATHER_TILE_BYTES / LINE);
use crate::kernels::copy::ReverseCopier;
use crate::kernels::counts::Count;

impl<C: Count> ScatteredLines<'_, C> {
    /// Writes output elements `start..` into `dst`, which holds exactly
    /// those elements of type `T`: output `(o, k, i)` of the `[outer,
    /// size, inner]` view reads `(o, len - 1 - k, i)` while `k < len`, the
    /// length of line `(o, i)`, else `(o, k, i)`.
    ///
    /// Each output row of a block reads from rows all over its input
    /// block, so the columns go in tiles, each written at every position
    /// along the axis before the next is begun. A tile is first copied, row
    /// by row, into a buffer on the stack: input rows a power of two apart
    /// fall in the same few sets of the L1 cache and would evict one
    /// another, while the buffer's rows do not.
    /// - With AVX2, 2- and 4-byte elements are gathered 8 at a time, a
    ///   cache line of columns at a time down all the tile's rows
    ///   ([`ScatteredLines::columns`]), from rows an odd number of lines
    ///   apart. Measured on `[8, 64, 128, 128]` `f32` with a length per
    ///   line, this took 17% less time than gathering the tile row by row
    ///   on axes 0 and 1, and as long on axis 2. From
    ///   [`SCATTERED_STREAM_MIN_BYTES`] of output they stream their
    ///   stores where the output's rows lie at most
    ///   [`GATHER_STREAM_MAX_STRIDE`] apart.
    /// - Other elements go one at a time, the tile row by row, which
    ///   writes the output in order; its rows lie next to one another, and
    ///   an index into it is masked into range instead of checked
    ///   ([`Elements`]).
    ///
    /// Without the vector gathers, an axis too long for the stack's buffer
    /// (a tile of a cache line of columns over more than 2048 rows of
    /// 4-byte elements) is staged in this thread's buffer instead, in
    /// tiles of whole cache lines of columns, up to
    /// [`GATHER_LONG_MAX_BYTES`]: time-major `f32` `[4096, 512]` in the
    /// `no-simd` build went from 12× a memcpy, read in place, to about
    /// 3.6×. Each column's length and the start of its reversed part are
    /// kept for the tile ([`Elements::bases`]), so that each element's
    /// index is an addition or a subtraction ([`Elements::row_from`]). An
    /// axis too long for that buffer too is read in place, one element at
    /// a time, with checked indices.
    pub(super) fn gather<T: bytemuck::Pod>(
        &self,
        copier: ReverseCopier,
        stream: bool,
        src: &[u8],
        start: usize,
        dst: &mut [u8],
    ) -> Option<()> {
        let n = std::mem::size_of::<T>();
        let ScatteredLines { size, inner, .. } = *self;
        let end = match self.chunk_end(n, start, dst) {
            Ok(end) => end,
            Err(done) => return done,
        };
        // Whether the columns go down the tile a few at a time, as the
        // vector gathers do best; one element at a time, the tile goes row
        // by row, which writes the output in order.
        let down = copier.gathers() && matches!(n, 2 | 4);
        // Columns per tile: as many as the buffer holds with the whole axis,
        // but at least a cache line, so that each line of the output is
        // written by one tile, and no more than the lines have. Going down,
        // the tile's rows lie an odd number of whole lines apart, so that
        // any 64 rows in a row fall in different sets of the cache; row by
        // row, they lie next to one another.
        let (tile, pitch) = if down {
            let most = GATHER_TILE_BYTES / size / LINE;
            let tile = ((most.saturating_sub(1) | 1) * LINE / n).clamp(1, inner);
            (tile, ((tile * n).div_ceil(LINE) | 1) * LINE)
        } else {
            let tile = (GATHER_TILE_BYTES / n / size).max(LINE / n).clamp(1, inner);
            (tile, tile * n)
        };
        let staged = size.saturating_mul(pitch);
        // Without the vector gathers, an axis too long for a tile of a
        // cache line of columns on the stack is staged in this thread's
        // buffer instead, in tiles of whole lines of columns up to
        // [`GATHER_LONG_MAX_BYTES`] (a power of two of bytes held, for the
        // masked indices), where at least a line fits. Longer axes are read
        // in place.
        let long = staged > GATHER_TILE_BYTES && !copier.gathers() && !down;
        if long && size.saturating_mul(LINE) <= GATHER_LONG_MAX_BYTES {
            let tile = (GATHER_LONG_MAX_BYTES / size / LINE * LINE / n).clamp(1, inner);
            let held = size.saturating_mul(tile * n).next_power_of_two();
            return LINES
                .try_with(|lines| {
                    let mut storage = lines.try_borrow_mut().ok()?;
                    if storage.len() < held / 8 + 1 {
                        storage.resize(held / 8 + 1, 0);
                    }
                    let buffer: &mut [u8] = bytemuck::cast_slice_mut(storage.as_mut_slice());
                    let plan = (tile, tile * n, false);
                    self.gather_in::<T, true>(copier, stream, (buffer, held), plan, src, (start, end), dst)
                })
                .ok()?;
        }
        // One word more than the tile, which the vector gathers of 2-byte
        // elements read 4 bytes at a time.
        let mut storage = [0u64; GATHER_TILE_BYTES / 8 + 1];
        let buffer: &mut [u8] = bytemuck::cast_slice_mut(&mut storage);
        self.gather_in::<T, false>(
            copier,
            stream,
            (buffer, GATHER_TILE_BYTES),
            (tile, pitch, down),
            src,
            (start, end),
            dst,
        )
    }

    /// [`ScatteredLines::gather`] with its tiles of `tile` columns staged
    /// in `buffer`, rows `pitch` bytes apart, whose first `held` bytes are
    /// a power of two, and one word more; `down` as it chose. An axis too
    /// long for `held` bytes is read in place. `LONG` for the tiles of
    /// long axes staged in the thread's buffer, whose rows go through
    /// [`Elements::row_from`]; without it, `held` is
    /// [`GATHER_TILE_BYTES`].
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn gather_in<T: bytemuck::Pod, const LONG: bool>(
        &self,
        copier: ReverseCopier,
        stream: bool,
        (buffer, held): (&mut [u8], usize),
        (tile, pitch, down): (usize, usize, bool),
        src: &[u8],
        (start, end): (usize, usize),
        dst: &mut [u8],
    ) -> Option<()> {
        let n = std::mem::size_of::<T>();
        let ScatteredLines { size, inner, .. } = *self;
        // A constant for the stack's buffer, as its index masks were.
        let held = if LONG { held } else { GATHER_TILE_BYTES };
        let buffered = size.checked_mul(pitch).is_some_and(|bytes| bytes <= held);
        let out_stride = inner * n;
        self.for_each_tile(n, src, start, end, tile, |part, t0, t1, line, input| {
            let BlockPart { first, k0, k1, .. } = part;
            // Where output `(k, c)` of the block lies in `dst`.
            let at = |k: usize, c: usize| (first + k * inner + c - start) * n;
            if !buffered {
                for k in k0..=k1 {
                    let Some((c0, c1)) = part.columns(k, t0, t1, inner) else {
                        continue;
                    };
                    let out = dst.get_mut(at(k, c0)..at(k, c1))?;
                    for (o, (&len, i)) in out.chunks_exact_mut(n).zip(line.get(c0..c1)?.iter().zip(c0..)) {
                        let s = (source(len.get(), k) * inner + i) * n;
                        o.copy_from_slice(input.get(s..s + n)?);
                    }
                }
                return Some(());
            }
            let width = (t1 - t0) * n;
            for (r, row) in buffer.chunks_mut(pitch).take(size).enumerate() {
                let from = (r * inner + t0) * n;
                row.get_mut(..width)?.copy_from_slice(input.get(from..from + width)?);
            }
            let stage = Stage { bytes: &*buffer, held, pitch, t0 };
            if !down {
                let elements = Elements::<T>::new(&stage)?;
                // Tiles of long axes, staged in the thread's buffer, keep
                // each column's length and the start of its reversed part
                // in 32 bits.
                let mut bases = [(0u32, 0u32); LONG_MAX_COLUMNS];
                let based = LONG && elements.bases(line.get(t0..t1)?, &mut bases);
                for k in k0..=k1 {
                    if let Some((c0, c1)) = part.columns(k, t0, t1, inner) {
                        let (out, lengths) = (dst.get_mut(at(k, c0)..at(k, c1))?, line.get(c0..c1)?);
                        let done = if based {
                            elements.row_from(out, bases.get(c0 - t0..c1 - t0)?, k, c0 - t0)
                        } else {
                            0
                        };
                        let (out, lengths, c0) = (out.get_mut(done * n..)?, lengths.get(done..)?, c0 + done);
                        if lengths.is_empty() {
                            continue;
                        }
                        // Two at a time, which the compiler does not
                        // unroll by itself here: measured 10% faster on
                        // `i64`.
                        let paired = lengths.len() / 2 * 2;
                        let (out_pairs, out_rest) = out.split_at_mut_checked(paired * n)?;
                        let (len_pairs, len_rest) = lengths.split_at_checked(paired)?;
                        let pairs = out_pairs.chunks_exact_mut(2 * n).zip(len_pairs.chunks_exact(2));
                        for ((o, l), i) in pairs.zip((c0 - t0..).step_by(2)) {
                            elements.row(o, l, k, i);
                        }
                        elements.row(out_rest, len_rest, k, c0 - t0 + paired);
                    }
                }
                return Some(());
            }
            // Streamed only where the output's rows lie close together.
            let stream = stream && out_stride <= GATHER_STREAM_MAX_STRIDE;
            part.by_rows(t0, t1, inner, |(c0, c1), (k0, k1)| {
                let out = dst.get_mut(at(k0, c0)..at(k1, c1))?;
                self.columns::<T>(copier, &stage, (c0, c1), line, (k0, k1), (out, out_stride), stream)
            })
        })
    }

    /// Writes output rows `k0..=k1` of a block's columns `c0..c1`, staged
    /// in `stage`, into `out`: column `c` of row `k` at `(k - k0) *
    /// out_stride + (c - c0) * n`, for `n`-byte elements of type `T`.
    /// `line` holds the block's lengths. As many columns as the vector
    /// gathers take go down every row together a cache line at a time
    /// ([`ReverseCopier::subsequence_columns`]), the rest one element at a
    /// time.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn columns<T: bytemuck::Pod>(
        &self,
        copier: ReverseCopier,
        stage: &Stage<'_>,
        (c0, c1): (usize, usize),
        line: &[C],
        (k0, k1): (usize, usize),
        (out, out_stride): (&mut [u8], usize),
        stream: bool,
    ) -> Option<()> {
        let n = std::mem::size_of::<T>();
        let lengths = line.get(c0..c1)?;
        let tile = (stage.pitch, self.size);
        let first = c0.checked_sub(stage.t0)?;
        let rows = (k0, k1);
        let to = (&mut *out, out_stride);
        let done = match (n, C::as_u32(lengths)) {
            (2, Some(lens)) => {
                copier.subsequence_columns::<2>(stage.bytes, tile, first, lens, rows, to, stream)
            }
            (4, Some(lens)) => {
                copier.subsequence_columns::<4>(stage.bytes, tile, first, lens, rows, to, stream)
            }
            _ => 0,
        };
        let elements = Elements::<T>::new(stage)?;
        let rest = lengths.get(done..)?;
        for k in k0..=k1 {
            let row = (k - k0) * out_stride + done * n;
            elements.row(out.get_mut(row..row + rest.len() * n)?, rest, k, first + done);
        }
        Some(())
    }
}

/// A staged tile seen as elements of type `T`, for moving them one at a
/// time. The buffer's first `held` bytes hold a power of two of
/// elements, so an index into them is masked into range instead of
/// checked: in range already, as a row is below the axis size and a column
/// inside the tile's rows.
struct Elements<'a, T> {
    elements: &'a [T],
    wrap: usize,
    pitch: usize,
}

impl<'a, T: bytemuck::Pod> Elements<'a, T> {
    /// The tile's elements; `None` when the buffer is shorter than its
    /// `held` bytes, or its rows are not a whole number of elements.
    fn new(stage: &Stage<'a>) -> Option<Self> {
        let n = std::mem::size_of::<T>();
        let elements: &[T] = bytemuck::try_cast_slice(stage.bytes.get(..stage.held)?).ok()?;
        let wrap = elements.len().checked_sub(1).filter(|_| elements.len().is_power_of_two())?;
        stage.pitch.is_multiple_of(n).then_some(Elements { elements, wrap, pitch: stage.pitch / n })
    }

    /// Writes into `bases`, for each column of `lengths`, its length
    /// and the index into the tile of its reversed part's first element
    /// (row `len - 1`, or 0 for an empty line), the first column at 0:
    /// `false` when there are more columns than `bases` holds, or an
    /// index or a row would not fit 32 bits.
    fn bases<C: Count>(&self, lengths: &[C], bases: &mut [(u32, u32)]) -> bool {
        let fits = u32::try_from(self.elements.len()).is_ok() && u32::try_from(self.pitch).is_ok();
        if !fits || lengths.len() > bases.len() {
            return false;
        }
        for ((base, &len), c) in bases.iter_mut().zip(lengths).zip(0u32..) {
            let len = len.get();
            let Some(at) =
                len.saturating_sub(1).checked_mul(self.pitch).and_then(|at| u32::try_from(at).ok())
            else {
                return false;
            };
            *base = (len as u32, at.wrapping_add(c));
        }
        true
    }

    /// [`Elements::row`] from the lengths and starts of
    /// [`Elements::bases`], the first column at `first` in the tile's
    /// rows (and in `bases` at 0), and returns how many columns it wrote:
    /// all of `bases` that `out` holds. An index is one subtraction or
    /// addition of the row's start, picked without a branch, and masked
    /// into the tile with no check. None where the row would not fit 32
    /// bits.
    #[inline(always)]
    fn row_from(&self, out: &mut [u8], bases: &[(u32, u32)], k: usize, first: usize) -> usize {
        let n = std::mem::size_of::<T>();
        let (Ok(k), Ok(first)) = (u32::try_from(k), u32::try_from(first)) else {
            return 0;
        };
        let Some(elements) = self.elements.get(..=self.wrap) else {
            return 0;
        };
        let start = k.wrapping_mul(self.pitch as u32);
        let straight = start.wrapping_add(first);
        // As elements, zipped with slices only: a zip of byte chunks or
        // of a range was not inlined, and its set-up for each row stalled
        // on the iterators just written.
        let count = bases.len().min(out.len() / n);
        let Some(Ok(out)) = out.get_mut(..count * n).map(bytemuck::try_cast_slice_mut::<u8, T>) else {
            return 0;
        };
        for (c, (o, &(len, base))) in out.iter_mut().zip(bases).enumerate() {
            let at = if k < len { base.wrapping_sub(start) } else { straight.wrapping_add(c as u32) };
            *o = elements[at as usize & self.wrap];
        }
        count
    }

    /// Writes output row `k` of the columns of `lengths`, the first at
    /// `first` in the tile's rows, into `out`, one element at a time.
    #[inline(always)]
    fn row<C: Count>(&self, out: &mut [u8], lengths: &[C], k: usize, first: usize) {
        let n = std::mem::size_of::<T>();
        for (o, (&len, i)) in out.chunks_exact_mut(n).zip(lengths.iter().zip(first..)) {
            let value = self.elements[(source(len.get(), k) * self.pitch + i) & self.wrap];
            o.copy_from_slice(bytemuck::bytes_of(&value));
        }
    }
}

/// A tile of [`ScatteredLines::gather`] staged on the stack: the block's
/// columns from `t0` on, the whole axis of them, one row every `pitch`
/// bytes from the start of `bytes`.
struct Stage<'a> {
    bytes: &'a [u8],
    /// The bytes of `bytes` the tile may use, a power of two.
    held: usize,
    pitch: usize,
    t0: usize,
}
