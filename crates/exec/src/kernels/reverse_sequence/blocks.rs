//! Plans played a block at a time, a block being the elements after both
//! axes: time-major blocks each from the position its batch index's
//! length picks, and sequences of blocks with their heads reversed.

use ovir_tensor::Tensor;

use super::planning::SequencePlan;
use super::tuning::*;
use super::OP;
use crate::kernels::copy::{prefetch_lines, ReverseCopier, RunWriter};
use crate::kernels::counts::Count;
use crate::kernels::run_plan::STREAM_MIN_BYTES;
use crate::kernels::{parallel, ExecOptions, KernelError};

/// The two loops that play a plan a block at a time, a block being the
/// elements after both axes.
#[derive(Clone, Copy, Debug)]
pub(super) enum BlockWalk {
    /// The sequence axis before the batch axis
    /// ([`SequencePlan::takes_blocks`]): for every position, `mid` index
    /// and batch index, one block from the position the batch index's
    /// length picks ([`SequencePlan::blocks`]). Runs cost tens of
    /// nanoseconds each to plan, join and hand to a loop; a block costs a
    /// few.
    TimeMajor,
    /// The batch axis before the sequence axis
    /// ([`SequencePlan::takes_row_blocks`]): every sequence a row of
    /// blocks, its first `len` in reverse order
    /// ([`SequencePlan::row_blocks`]). As runs, such a row cost two runs;
    /// as ReverseSubsequences' lines (rows of up to 256 bytes, which took
    /// them before), a gather of single elements. Rows of blocks of whole
    /// 4-byte words of 36 to 96 bytes, and of 24, go a group of registers at
    /// a time instead, and longer ones of blocks of 3, 5, 6 or 7 words a
    /// register at a time, where the CPU allows; elsewhere rows of up to
    /// 256 bytes of blocks of 3, 5, 6, 7, 12, 16, 20, 24, 28, 32, 48 or 64
    /// bytes go a move of fixed size per block, from a place worked out
    /// without a branch ([`SequencePlan::copier_rows`]).
    Rows,
}

/// Plays `plan` a block at a time with `walk`, the blocks cut between the
/// threads; blocks of the sizes listed are copied with copies of a size
/// fixed when compiling. Time-major blocks of whole lines, at least
/// [`STREAMED_BLOCK_MIN`] bytes, into an output of [`STREAM_MIN_BYTES`] or
/// more are streamed instead: 128, 192 or 256 bytes, as the walk takes
/// stretches of at most [`BLOCKS_MAX_STRETCH`] bytes.
pub(super) fn play_blocks<C: Count>(
    plan: &SequencePlan<'_, C>,
    data: &Tensor,
    out: &mut Tensor,
    options: &ExecOptions,
    width: usize,
    walk: BlockWalk,
) -> Result<(), KernelError> {
    let ty = data.element_type();
    let internal = KernelError::Internal { op: OP, what: "a block left the data or the output" };
    let src = data.bytes().ok_or(KernelError::UnsupportedType { op: OP, ty })?;
    let dst = out.bytes_mut().ok_or_else(|| internal.clone())?;
    let block = plan.inner.checked_mul(width).ok_or_else(|| internal.clone())?;
    if block == 0 || !dst.len().is_multiple_of(block) || src.len() != dst.len() {
        return Err(internal);
    }
    let cost = match walk {
        BlockWalk::TimeMajor => BLOCKS_COST,
        BlockWalk::Rows => ROW_BLOCKS_COST,
    };
    // Sequences of blocks of whole 4-byte words that fill groups of 64 or
    // 96 bytes (one sequence of 64 or 96 bytes, two of 48, four of 24), or
    // of 36 to 92 bytes one to the registers they reach into, go a group at
    // a time, each register permuted from the group's; longer sequences of
    // blocks of 3, 5, 6 or 7 words go a register at a time, each permuted
    // from a window its length places. Where the CPU has no such loops, or
    // they do not take the rows, rows of up to 256 bytes of blocks of the
    // sizes the portable loop moves whole go a move per block (8 MiB of
    // `f32`, 8 blocks of 12 bytes a row: 1.06× a memcpy, against 1.6× for
    // the block walk). They split between threads as the block walk does
    // ([`ROW_BLOCKS_COST`]).
    let copier = ReverseCopier::detect();
    let by_copier = matches!(walk, BlockWalk::Rows)
        && plan.hi.checked_mul(block).is_some_and(|row| copier.takes_block_rows(row, block));
    let stream = dst.len() >= STREAM_MIN_BYTES;
    macro_rules! sized {
        ($($k:literal)*) => {
            match block {
                $($k => parallel::for_each_costly_chunk(options, dst, block, cost, |first, part| match walk {
                    BlockWalk::TimeMajor => plan.blocks::<$k>(src, first, part, block),
                    BlockWalk::Rows if by_copier => plan.copier_rows::<$k>(copier, src, first, part, (block, stream)),
                    BlockWalk::Rows => plan.row_blocks::<$k>(src, first, part, block),
                }),)*
                _ => parallel::for_each_costly_chunk(options, dst, block, cost, |first, part| match walk {
                    BlockWalk::TimeMajor => plan.blocks::<0>(src, first, part, block),
                    BlockWalk::Rows if by_copier => plan.copier_rows::<0>(copier, src, first, part, (block, stream)),
                    BlockWalk::Rows => plan.row_blocks::<0>(src, first, part, block),
                }),
            }
        };
    }
    // Blocks of whole lines into an output too large for the cache go
    // through the runs' writer, whose streaming stores fill their lines.
    if let (BlockWalk::TimeMajor, true, 0) = (walk, stream && block >= STREAMED_BLOCK_MIN, block % 64) {
        return parallel::for_each_costly_chunk(options, dst, block, cost, |first, part| {
            let count = part.len() / block;
            RunWriter::with(part, copier, true, |out| match block {
                128 => plan.streamed_blocks::<128>(src, first, out, count, block),
                256 => plan.streamed_blocks::<256>(src, first, out, count, block),
                _ => plan.streamed_blocks::<0>(src, first, out, count, block),
            })
        })
        .ok_or(internal);
    }
    sized!(1 2 3 4 5 6 7 8 12 16 20 24 28 32 48 64 96 128 256).ok_or(internal)
}

/// Copies `from` into `to`: as a copy of a size known when compiling when
/// both are `K` bytes long (`K` not 0), else with the library's copy, of
/// the shorter of the two.
#[inline(always)]
fn copy_block<const K: usize>(from: &[u8], to: &mut [u8]) {
    if K > 0 {
        if let (Ok(from), Ok(to)) = (<&[u8; K]>::try_from(from), <&mut [u8; K]>::try_from(&mut *to)) {
            *to = *from;
            return;
        }
    }
    let n = from.len().min(to.len());
    if let (Some(to), Some(from)) = (to.get_mut(..n), from.get(..n)) {
        to.copy_from_slice(from);
    }
}

impl<C: Count> SequencePlan<'_, C> {
    /// Writes the blocks `first..` of the output (`block` bytes each, the
    /// elements after the batch axis of one position, `mid` index and batch
    /// index) into `dst`, which holds whole blocks, each from the position
    /// its batch index's length picks; `K` is `block` when it is one of the
    /// sizes compiled in, else 0. `None` when a block lies outside `src`,
    /// or `K` is not 0 and not `block`.
    ///
    /// It goes a row (the blocks of one position and `mid` index) at a
    /// time, and asks for blocks it will read later, which the hardware
    /// prefetcher cannot guess: where a position holds at most
    /// [`BLOCKS_AHEAD_MAX_STEP`] bytes, the blocks of the same row
    /// [`BLOCKS_AHEAD_BYTES`] of positions further on (at least the next),
    /// before the row; past that, the block [`BLOCKS_AHEAD_BYTES`] further
    /// along the row, as it goes.
    fn blocks<const K: usize>(&self, src: &[u8], first: usize, dst: &mut [u8], block: usize) -> Option<()> {
        // A constant where it can be, for the copies.
        let block = if K > 0 { K } else { block };
        let count = dst.len() / block.max(1);
        self.walk_blocks::<K>(src, first, count, block, |at, from| {
            copy_block::<K>(from, dst.get_mut(at..at + block)?);
            Some(())
        })
    }

    /// [`SequencePlan::blocks`] with each block written by `out`, whose
    /// streaming stores fill the block's whole lines.
    fn streamed_blocks<const K: usize>(
        &self,
        src: &[u8],
        first: usize,
        out: &mut RunWriter<'_, '_>,
        count: usize,
        block: usize,
    ) -> Option<()> {
        self.walk_blocks::<K>(src, first, count, block, |at, from| out.lines(at, from))
    }

    /// The walk of [`SequencePlan::blocks`] over `count` blocks from block
    /// `first`: `put` writes each, given its byte in the output part and
    /// its source.
    #[inline(always)]
    fn walk_blocks<const K: usize>(
        &self,
        src: &[u8],
        first: usize,
        count: usize,
        block: usize,
        mut put: impl FnMut(usize, &[u8]) -> Option<()>,
    ) -> Option<()> {
        if K > 0 && block != K {
            return None;
        }
        // A constant where it can be, for the arithmetic and the copies.
        let block = if K > 0 { K } else { block };
        let SequencePlan { lo: steps, mid, hi: batch, .. } = *self;
        let row = batch.checked_mul(block)?;
        let step = mid.checked_mul(row)?;
        let per_outer = steps.checked_mul(step)?;
        let (positions, along) = if step <= BLOCKS_AHEAD_MAX_STEP {
            ((BLOCKS_AHEAD_BYTES / step.max(1)).max(1), 0)
        } else {
            (0, (BLOCKS_AHEAD_BYTES / block).max(1))
        };
        let mut done = 0;
        while done < count {
            let q = first + done;
            // The block's batch index, and its row `(outer, position, mid)`.
            let (b0, r) = (q % batch, q / batch);
            let (m, t, o) = (r % mid, (r / mid) % steps, r / mid / steps);
            let n = (batch - b0).min(count - done);
            let base = o * per_outer + m * row;
            let source = |t: usize, b: usize| {
                let len = self.len_at(b);
                let s = if t < len { len - 1 - t } else { t };
                base + s * step + b * block
            };
            if positions > 0 && t + positions < steps {
                for b in b0..b0 + n {
                    if let Some(later) = src.get(source(t + positions, b)..) {
                        prefetch_lines(later, block);
                    }
                }
            }
            for (k, b) in (b0..b0 + n).enumerate() {
                if along > 0 && b + along < batch {
                    if let Some(later) = src.get(source(t, b + along)..) {
                        prefetch_lines(later, block);
                    }
                }
                let from = source(t, b);
                put((done + k) * block, src.get(from..from + block)?)?;
            }
            done += n;
        }
        Some(())
    }

    /// Writes the blocks `first..` of the output (`block` bytes each: the
    /// elements after the sequence axis at one position of one sequence)
    /// into `dst`, which holds whole blocks: block `j` of a sequence of
    /// length `len` from its block `len - 1 - j` while `j < len`, else from
    /// its block `j`. `K` is `block` when it is one of the sizes compiled
    /// in, else 0. `None` when a block lies outside `src`, or `K` is not 0
    /// and not `block`.
    fn row_blocks<const K: usize>(
        &self,
        src: &[u8],
        first: usize,
        dst: &mut [u8],
        block: usize,
    ) -> Option<()> {
        if K > 0 && block != K {
            return None;
        }
        let block = if K > 0 { K } else { block };
        let SequencePlan { lo: batch, mid, hi: seq, .. } = *self;
        let count = dst.len() / block;
        if count == 0 || batch == 0 || mid == 0 || seq == 0 {
            return (count == 0).then_some(());
        }
        let upward = seq * block >= ROW_BLOCKS_UPWARD_MIN_ROW;
        // The first sequence `r` (in `[outer, batch, mid]`), the position
        // in it, and its batch and `mid` indices, which then step with it.
        let (mut r, mut j0) = (first / seq, first % seq);
        let (mut b, mut m) = ((r / mid) % batch, r % mid);
        let mut done = 0;
        while done < count {
            let len = self.len_at(b);
            let n = (seq - j0).min(count - done);
            let row = r * seq;
            let out = dst.get_mut(done * block..(done + n) * block)?;
            let input = src.get(row * block..(row + seq) * block)?;
            if upward && j0 == 0 && n == seq && len <= seq {
                // A whole sequence: its head read upwards and written
                // downwards, which reads the input in order.
                let (head, tail) = out.split_at_mut(len * block);
                for (i, to) in head.chunks_exact_mut(block).rev().enumerate() {
                    copy_block::<K>(input.get(i * block..(i + 1) * block)?, to);
                }
                for (j, to) in (len..).zip(tail.chunks_exact_mut(block)) {
                    copy_block::<K>(input.get(j * block..(j + 1) * block)?, to);
                }
            } else {
                for (j, to) in (j0..).zip(out.chunks_exact_mut(block)) {
                    let s = if j < len { len - 1 - j } else { j };
                    copy_block::<K>(input.get(s * block..(s + 1) * block)?, to);
                }
            }
            done += n;
            (r, j0, m) = (r + 1, 0, m + 1);
            if m == mid {
                m = 0;
                b = if b + 1 == batch { 0 } else { b + 1 };
            }
        }
        Some(())
    }

    /// The whole sequences from sequence `r0` on (in `[outer, batch,
    /// mid]`) into `rows` through [`ReverseCopier::block_rows`], each with
    /// its batch index's length: the bytes it wrote, as that returns. Not
    /// generic over the block's size (nor inlined into the walks that are),
    /// so that the copier's loops are compiled once for each kind of
    /// length rather than once for each block size besides.
    #[inline(never)]
    fn whole_rows(
        &self,
        copier: ReverseCopier,
        (src, r0): (&[u8], usize),
        rows: &mut [u8],
        (row, block): (usize, usize),
        stream: bool,
    ) -> usize {
        let SequencePlan { lo: batch, mid, .. } = *self;
        if batch == 0 || mid == 0 {
            return 0;
        }
        let (mut b, mut m) = ((r0 / mid) % batch, r0 % mid);
        copier.block_rows((src, r0 * row), rows, (row, block), stream, move || {
            let len = self.len_at(b);
            m += 1;
            if m == mid {
                m = 0;
                b = if b + 1 == batch { 0 } else { b + 1 };
            }
            len
        })
    }

    /// [`SequencePlan::row_blocks`] through [`ReverseCopier::block_rows`],
    /// for sequences it takes: the whole sequences among blocks `first..`
    /// go a group of one, two or four at a time (or one at a time from
    /// windows, or a move per block), and the blocks of any sequence cut by
    /// either end of `dst`, or left over too few for a group (or for a
    /// group's registers, where a sequence does not fill them, or for the
    /// bytes the windows or the moves read past the last one), through
    /// [`SequencePlan::row_blocks`], which also writes again what the last
    /// group or move spilled; `stream` asks for streaming stores.
    fn copier_rows<const K: usize>(
        &self,
        copier: ReverseCopier,
        src: &[u8],
        first: usize,
        dst: &mut [u8],
        (block, stream): (usize, bool),
    ) -> Option<()> {
        let SequencePlan { lo: batch, mid, hi: seq, .. } = *self;
        let count = dst.len() / block.max(1);
        if count == 0 || batch == 0 || mid == 0 || seq == 0 {
            return self.row_blocks::<K>(src, first, dst, block);
        }
        // The blocks before the first whole sequence, the whole ones, and
        // those after.
        let lead = ((seq - first % seq) % seq).min(count);
        let whole = (count - lead) / seq;
        let row = seq * block;
        let (before, rest) = dst.split_at_mut_checked(lead * block)?;
        let (rows, after) = rest.split_at_mut_checked(whole * row)?;
        self.row_blocks::<K>(src, first, before, block)?;
        let r0 = (first + lead) / seq;
        if whole == 0 {
            return self.row_blocks::<K>(src, first + lead, after, block);
        }
        let done = self.whole_rows(copier, (src, r0), rows, (row, block), stream);
        // The rows it left (too few for a group or its registers, rows
        // whose windows would read past the data's end, or in a group with
        // a length past the sequence) go to the block loop,
        // which writes over any bytes the last group spilled into them and
        // reports such a length.
        self.row_blocks::<K>(src, (r0 * seq) + done / block, rows.get_mut(done..)?, block)?;
        self.row_blocks::<K>(src, (r0 + whole) * seq, after, block)
    }
}
