//! Which loop plays a plan of a given shape: runs, a block at a time,
//! rows with a head each, or `kernels::scattered_lines`.

use ovir_tensor::Tensor;

use super::blocks::{play_blocks, BlockWalk};
use super::heads::{Expansion, Lines, RowHeads};
use super::planning::SequencePlan;
use super::tuning::*;
use super::OP;
use crate::kernels::copy::{ReverseCopier, TRANSPOSED_ROWS};
use crate::kernels::counts::Count;
use crate::kernels::run_plan::{copy_all, play, play_as};
use crate::kernels::scattered_lines::{lines_win, play_lines};
use crate::kernels::{ExecOptions, KernelError};

/// Plays `plan` from `data` into `out`, or copies `data` whole where there
/// is no plan (nothing moves). Where the plan's runs would be short, it is
/// played otherwise, with lengths written to `row_heads` (or kept there
/// from the last call, when `checked` numbers the [`CheckedLengths`](super::CheckedLengths) the
/// plan's lengths are, and they were written from the same ones for the
/// same layout; `None` for lengths read on this call): 2, 4 or 8 bytes
/// after both axes as one element, and 16 after the sequence axis; other
/// blocks after the sequence axis a block at a time
/// ([`SequencePlan::takes_row_blocks`]), or sequences of 24 bytes or of 36
/// to 96 a group of registers at a time where they are blocks of whole
/// 4-byte words, longer ones of blocks of 3, 5, 6 or 7 words a register
/// at a time, and elsewhere rows of up to 256 bytes a move per block
/// ([`SequencePlan::copier_rows`]); time-major short blocks as
/// ReverseSubsequences' lines ([`SequencePlan::as_lines`]), and blocks a
/// little longer one at a time ([`SequencePlan::takes_blocks`]); rows
/// that share a length in short runs with a head per row
/// ([`SequencePlan::runs_short`]).
pub(super) fn play_or_copy<C: Count>(
    plan: Option<SequencePlan<'_, C>>,
    data: &Tensor,
    out: &mut Tensor,
    options: &ExecOptions,
    row_heads: &mut RowHeads,
    checked: Option<u64>,
) -> Result<(), KernelError> {
    let Some(plan) = plan else {
        return copy_all(OP, data, out, options);
    };
    let width = data.element_type().byte_width().unwrap_or(0);
    if width == 0 {
        return play(OP, &plan, data, out, options);
    }
    // The elements after both axes move together: when they make 2, 4, 8
    // or 16 bytes, they are played as one element of that width. With the
    // batch axis before the sequence axis, the sequences become rows with
    // a length each; with the sequence axis first, the lines that
    // ReverseSubsequences' kernels move are as many times fewer and wider
    // (those kernels take elements of up to 8 bytes, so 16-byte blocks
    // stay as they are there).
    //
    // Time-major blocks of 12 or 16 bytes move as 3 elements of 4 bytes
    // or 2 of 8 on more than [`LINES_FEW_POSITIONS`] positions when their
    // own elements are narrower than 4 bytes, and 16-byte blocks of 4-byte
    // elements on more than [`LINES_SHORT_AXIS`]: there the lines of the
    // wider elements beat those of the narrower ones, and where they are
    // staged the block walk too ([`LINES_MAX_BLOCK_STAGED`]). Elsewhere
    // such blocks keep their own elements and go as the blocks below do.
    let positions = if plan.seq_is_hi { 0 } else { plan.lo };
    let regroup = |wider: usize| {
        positions > LINES_FEW_POSITIONS && (width < 4 || (width < wider && positions > LINES_SHORT_AXIS))
    };
    let (plan, width) = match plan.inner * width {
        wide @ (2 | 4 | 8) if plan.inner > 1 => (SequencePlan { inner: 1, ..plan }, wide),
        16 if plan.seq_is_hi && plan.inner > 1 => (SequencePlan { inner: 1, ..plan }, 16),
        12 if regroup(4) => (SequencePlan { inner: 3, ..plan }, 4),
        16 if regroup(8) => (SequencePlan { inner: 2, ..plan }, 8),
        _ => (plan, width),
    };
    // Otherwise a block of several elements after the sequence axis makes
    // each sequence a row of blocks.
    if plan.takes_row_blocks(width) {
        return play_blocks(&plan, data, out, options, width, BlockWalk::Rows);
    }
    if let Some(lines) = plan.as_lines(width) {
        // Axes of up to 8 rows are turned into lines in registers, which
        // read the lengths a byte each.
        let view = (lines.outer, lines.size, lines.inner);
        let key = Expansion::Lines(lines);
        return if lines.size <= TRANSPOSED_ROWS {
            let lens = row_heads.bytes.keep(checked, key, |lens| lines.lengths(&plan, lens))?;
            play_lines(OP, data, out, options, view, lens, width)
        } else {
            let lens = row_heads.each.keep(checked, key, |lens| lines.lengths(&plan, lens))?;
            play_lines(OP, data, out, options, view, lens, width)
        };
    }
    if plan.takes_blocks(width) {
        return play_blocks(&plan, data, out, options, width, BlockWalk::TimeMajor);
    }
    if !plan.runs_short(width) {
        return play_as(OP, &plan, data, out, options, Some(width));
    }
    // Rows of 2 to 16 bytes, a power of two, and of 17 to 31, read their
    // heads a byte each (a sequence that short has lengths that fit one).
    let key = Expansion::Rows { mid: plan.mid };
    let row = plan.hi * width;
    if matches!(row, 2 | 4 | 8 | 16) || (17..32).contains(&row) {
        let heads = row_heads.bytes.keep(checked, key, |heads| plan.heads(heads))?;
        play_as(OP, &plan.flattened(heads)?, data, out, options, Some(width))
    } else {
        let heads = row_heads.each.keep(checked, key, |heads| plan.heads(heads))?;
        play_as(OP, &plan.flattened(heads)?, data, out, options, Some(width))
    }
}

impl<C: Count> SequencePlan<'_, C> {
    /// The plan as ReverseSubsequences' lines, where its runs would be
    /// short: with the sequence axis before the batch axis, stretches of
    /// batch indices with one length (a run each at every position) of at
    /// most [`LINES_MAX_BLOCK`] bytes on average on up to
    /// [`LINES_FEW_POSITIONS`] positions ([`LINES_MAX_BLOCK_SHORT_AXIS`] up
    /// to [`LINES_SHORT_AXIS`], [`LINES_MAX_BLOCK_LONG_AXIS`] past it, or
    /// [`LINES_MAX_BLOCK_STAGED`] where the staged lines of 4- or 8-byte
    /// elements take the axis).
    /// With the batch axis before the sequence axis, never: blocks after
    /// the sequence axis go through [`BlockWalk::Rows`].
    fn as_lines(&self, width: usize) -> Option<Lines> {
        let SequencePlan { outer, lo, mid, hi, inner, seq_is_hi, uniform, .. } = *self;
        if seq_is_hi {
            return None;
        }
        // `[outer, seq, mid, batch, inner]`: every `inner` lines take the
        // next batch index's length, over and over for each `mid`.
        // Neighbouring batch indices of one length make one run at each
        // position: the lines take the data where such stretches are
        // short.
        let lines = mid * hi * inner;
        let max = if lo <= LINES_FEW_POSITIONS {
            LINES_MAX_BLOCK
        } else if lo <= LINES_SHORT_AXIS {
            LINES_MAX_BLOCK_SHORT_AXIS
        } else if matches!(width, 4 | 8)
            && ReverseCopier::detect().transposes()
            && lines_win(width, lo, lines)
        {
            LINES_MAX_BLOCK_STAGED
        } else {
            LINES_MAX_BLOCK_LONG_AXIS
        };
        let short = !uniform && self.stretch_bytes(width)? <= max;
        let lines = short.then_some(Lines {
            outer,
            size: lo,
            inner: lines,
            groups: mid,
            each: inner,
            repeats: outer,
        });
        // Line lengths are kept in 32 bits at most.
        lines.filter(|lines| lines.inner > 1 && lines.size > 1 && u32::try_from(lines.size).is_ok())
    }

    /// The average stretch of neighbouring batch indices that share a
    /// length (lengths of 0 and 1 alike), in bytes of what follows the
    /// batch axis, for elements of `width` bytes: with the sequence axis
    /// before the batch axis, one run each at every position.
    fn stretch_bytes(&self, width: usize) -> Option<usize> {
        let moved = |n: &C| if n.get() <= 1 { 0 } else { n.get() };
        let stretches =
            1 + self.lens.windows(2).filter(|w| w.first().map(moved) != w.get(1).map(moved)).count();
        Some(self.hi.checked_mul(self.inner)?.checked_mul(width)? / stretches)
    }

    /// Whether [`play_blocks`] takes the plan, for elements of `width`
    /// bytes: the sequence axis before the batch axis, lengths that are not
    /// all the same, and stretches of batch indices with one length of at
    /// most [`BLOCKS_MAX_STRETCH`] bytes on average, whose runs would cost
    /// more to hand out than to copy.
    fn takes_blocks(&self, width: usize) -> bool {
        !self.seq_is_hi
            && !self.uniform
            && self.hi > 1
            && self.inner.checked_mul(width).is_some_and(|block| block > 0)
            && self.stretch_bytes(width).is_some_and(|bytes| bytes <= BLOCKS_MAX_STRETCH)
    }

    /// Whether the walk of [`BlockWalk::Rows`] takes the plan, for elements
    /// of `width` bytes: the batch axis before the sequence axis, more than
    /// one element after the sequence axis (a block that is not played as
    /// one wider element), and sequences of at most [`ROW_BLOCKS_MAX_ROW`]
    /// bytes with their blocks. (Where the copier has a loop for such rows,
    /// [`play_blocks`] has [`SequencePlan::copier_rows`] walk them
    /// instead.)
    fn takes_row_blocks(&self, width: usize) -> bool {
        self.seq_is_hi
            && self.inner > 1
            && self.hi > 1
            && self
                .inner
                .checked_mul(width)
                .and_then(|block| block.checked_mul(self.hi))
                .is_some_and(|row| row <= ROW_BLOCKS_MAX_ROW)
    }

    /// Whether the data is rows along the sequence axis (the batch axis
    /// before it, nothing after it) where the `mid` rows of each batch
    /// index, which share its length, make runs of at most
    /// [`SHORT_RUN_MAX_BYTES`] for elements of `width` bytes.
    fn runs_short(&self, width: usize) -> bool {
        let run = self.mid.saturating_mul(self.hi).saturating_mul(width);
        self.seq_is_hi && self.inner == 1 && self.mid > 1 && run <= SHORT_RUN_MAX_BYTES
    }
}
