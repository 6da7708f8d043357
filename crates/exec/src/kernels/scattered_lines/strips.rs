//! Short axes of narrow elements, one strip of columns a register wide at
//! a time, each line's head shifted into place by byte-wise selects.

use super::tiles::{spread, BlockPart};
use super::tuning::*;
use super::{ScatteredLines, LINE, LINES};
use crate::kernels::copy::{ReverseCopier, RunWriter, SubsequenceStrip};
use crate::kernels::counts::Count;

impl<C: Count> ScatteredLines<'_, C> {
    /// Whether [`ScatteredLines::strips`] takes this plan with `n`-byte
    /// elements: with AVX2, 1- and 2-byte elements on an axis of 16 to
    /// [`STRIP_MAX_SIZE`] rows, in lines at least
    /// [`SHIFT_MIN_LINE_BYTES`] wide, where they beat the shifter and the
    /// gathers; on 8 rows, and for 4- and 8-byte elements, AVX2's strips
    /// took as long or longer. With AVX-512, whose strips are a cache line
    /// wide and read and write the data in place, they take 8-byte
    /// elements as well, in lines of at least
    /// [`WIDE_STRIP_MIN_LINE_BYTES`], ahead of [`ScatteredLines::lines`]
    /// and the gathers; `f32` stays with the gathers. The times are in
    /// `docs/performance.md` ("Why the ReverseSequence and
    /// ReverseSubsequences constants are what they are").
    pub(super) fn takes_strips(&self, copier: ReverseCopier, n: usize) -> bool {
        let line = self.inner.saturating_mul(n);
        let wide = copier.strip_bytes() == LINE;
        copier.selects_strips()
            && (16..=STRIP_MAX_SIZE).contains(&self.size)
            && match n {
                1 | 2 => line >= SHIFT_MIN_LINE_BYTES,
                8 => wide && line >= WIDE_STRIP_MIN_LINE_BYTES,
                _ => false,
            }
    }

    /// Writes output elements `start..` into `dst`, which holds exactly
    /// those elements of `n` bytes, one strip of columns a register wide
    /// at a time ([`ReverseCopier::subsequence_strip`]); `None` when the
    /// axis is longer than [`STRIP_MAX_SIZE`] or a line left the data or
    /// the output.
    ///
    /// The columns go in tiles of [`STAGE_BYTES`] over the whole axis. A
    /// tile's input rows are copied into a buffer and its output rows
    /// written from another, both with rows a strip more than the tile
    /// apart: rows of the data lie a power of two apart more often than
    /// not, and there they fall into the same few sets of the L1 cache and
    /// evict one another while the strips go down the axis.
    ///
    /// Strips of a whole cache line (AVX-512's 64 bytes) skip both
    /// buffers where the chunk covers every row of a tile whole: each
    /// reads its rows in place, as no other strip reads the lines it does,
    /// and writes its output rows in place, streamed where the output
    /// streams. Only the columns past the last whole strip of a row, and
    /// the tiles of a block whose first or last row the chunk covers in
    /// part (where it starts or ends), are staged. On `u8` along axis 1
    /// of `[8, 64, 128, 128]` reading in place took 1.9–2.4 ms against
    /// 2.1–2.9 staged (more in `docs/performance.md`).
    pub(super) fn strips(
        &self,
        copier: ReverseCopier,
        stream: bool,
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
        let bytes = copier.strip_bytes();
        if !(2..=STRIP_MAX_SIZE).contains(&size) || !(1..=bytes).contains(&n) || bytes > STRIP_MAX_BYTES {
            return None;
        }
        let in_place = bytes == LINE;
        let stride = inner.checked_mul(n)?;
        // A tile's rows: whole strips, as many as the buffers hold with a
        // strip between rows, and no more than the lines need.
        let tile_bytes = (STAGE_BYTES / size / bytes).max(1).min(stride.div_ceil(bytes)) * bytes;
        let pitch = tile_bytes + bytes;
        let staged = size.checked_mul(pitch)?;
        let buffer_bytes = (STRIP_MAX_SIZE + 7) * STRIP_MAX_BYTES;
        let mut lens = [0u8; STRIP_MAX_BYTES];
        // Each strip's lengths a byte per byte; columns past a narrow strip
        // move nothing.
        let mut strip_lengths = |lengths: &[C]| {
            lens.fill(0);
            spread(&mut lens, lengths, n, |len| len as u8);
            lens
        };
        // The two stages and the strip's buffer, kept from one run to the
        // next in this thread's buffer, so that a run does not zero them.
        LINES
            .try_with(|lines| {
                let mut storage = lines.try_borrow_mut().ok()?;
                // A line of slack, so that the stages start on a line
                // boundary however the buffer was allocated, and so do
                // their rows (a whole number of strips apart).
                let total = staged.checked_mul(2)?.checked_add(buffer_bytes)?.checked_add(LINE)?;
                if storage.len() < total.div_ceil(8) {
                    storage.resize(total.div_ceil(8), 0);
                }
                let held: &mut [u8] = bytemuck::cast_slice_mut(storage.as_mut_slice());
                let skew = held.as_ptr().align_offset(LINE).min(LINE);
                let (stage_in, rest) = held.get_mut(skew..)?.split_at_mut_checked(staged)?;
                let (stage_out, rest) = rest.split_at_mut_checked(staged)?;
                let buffer = rest.get_mut(..buffer_bytes)?;
                RunWriter::with(dst, copier, stream, |dst| {
                    copier.vectorized(
                        #[inline(always)]
                        || {
                            self.for_each_tile(
                                n,
                                src,
                                start,
                                end,
                                tile_bytes / n,
                                #[inline(always)]
                                |part, t0, t1, line, input| {
                                    let BlockPart { first, k0, k1, .. } = part;
                                    // Where the part covers every row of the tile
                                    // whole, columns `t0..u0` are written in place
                                    // and the rest staged; where it covers its first
                                    // or last row in part, all of it is staged.
                                    let mut u0 = t0;
                                    if in_place && part.whole_rows(t0, t1, inner) == Some((k0, k1)) {
                                        let columns = bytes / n;
                                        while u0 + columns <= t1 {
                                            let lens = strip_lengths(line.get(u0..u0 + columns)?);
                                            let strip = SubsequenceStrip {
                                                input: input.get(u0 * n..)?,
                                                stride,
                                                size,
                                                lens: &lens,
                                                rows: (k0, k1),
                                            };
                                            if !dst.strip(
                                                (first + k0 * inner + u0 - start) * n,
                                                &strip,
                                                stride,
                                                &mut *buffer,
                                            ) {
                                                return None;
                                            }
                                            u0 += columns;
                                        }
                                    }
                                    if u0 == t1 {
                                        return Some(());
                                    }
                                    let (width, skip) = ((t1 - u0) * n, (u0 - t0) * n);
                                    for (r, row) in stage_in.chunks_exact_mut(pitch).enumerate() {
                                        let from = r * stride + u0 * n;
                                        row.get_mut(skip..skip + width)?
                                            .copy_from_slice(input.get(from..from + width)?);
                                    }
                                    for (s, lengths) in line.get(t0..t1)?.chunks(bytes / n).enumerate() {
                                        if (s + 1) * bytes <= skip {
                                            continue;
                                        }
                                        let lens = strip_lengths(lengths);
                                        let strip = SubsequenceStrip {
                                            input: stage_in.get(s * bytes..)?,
                                            stride: pitch,
                                            size,
                                            lens: &lens,
                                            rows: (k0, k1),
                                        };
                                        if !copier.subsequence_strip(
                                            &strip,
                                            stage_out.get_mut(s * bytes..)?,
                                            pitch,
                                            &mut *buffer,
                                        ) {
                                            return None;
                                        }
                                    }
                                    for k in k0..=k1 {
                                        let Some((c0, c1)) = part.columns(k, t0, t1, inner) else {
                                            continue;
                                        };
                                        let c0 = c0.max(u0);
                                        if c0 >= c1 {
                                            continue;
                                        }
                                        let row = first + k * inner;
                                        let at = (k - k0) * pitch;
                                        dst.forward(
                                            (row + c0 - start) * n,
                                            stage_out.get(at + (c0 - t0) * n..at + (c1 - t0) * n)?,
                                        )?;
                                    }
                                    Some(())
                                },
                            )
                        },
                    )
                })
            })
            .ok()?
    }
}
