//! ReverseSequence-1: reverse the first `lengths[b]` elements along one axis,
//! separately for every index `b` of another axis.

use ovir_shape::ops::reverse_sequence::{
    check_sequence_lengths, for_each_sequence_length, integer_sequence_length, same_axes_length,
    sequence_axes,
};
use ovir_tensor::{ElementType, Tensor};

use std::ops::Range;

use super::checks::{check_movable, check_output};
use super::copy::{prefetch_lines, TRANSPOSED_ROWS};
use super::copy::{ReverseCopier, RunWriter};
use super::counts::{narrow_counts, Count, Lengths};
use super::counts::{read_integers, scan_integers, Integer};
use super::packed::{KeepsUnpacked, Unpacked};
use super::run_plan::{copy_all, play, play_as, product, Joiner, Rows, Run, RunPlan, STREAM_MIN_BYTES};
use super::scattered_lines::{lines_win, play_lines};
use super::{packed, parallel, ExecOptions, KernelError};

const OP: &str = "ReverseSequence";

/// For every index `b` along `batch_axis`, reverses the first `lengths[b]`
/// elements along `seq_axis` and copies the rest unchanged.
///
/// The rules are OpenVINO's:
/// - `data` has rank 2 or more and any element type: whole-byte, packed
///   sub-byte or `string`; elements are moved bit for bit.
/// - `batch_axis` and `seq_axis` lie in `[-rank, rank - 1]`; negative
///   values count from the end.
/// - `lengths` is 1-D with `data.shape[batch_axis]` elements of any integer
///   or real type (`boolean` is refused). Real lengths are truncated toward
///   zero and must not be NaN. Every length lies in
///   `0..=data.shape[seq_axis]`; 0 and 1 both leave the sequence as it is.
/// - `batch_axis == seq_axis` is accepted only when every length is at most
///   1, and then the output is the input.
///
/// When no length is above 1 the result is `data` itself (a clone sharing
/// its storage).
///
/// ```
/// use ovir_exec::kernels::reverse_sequence;
/// use ovir_tensor::Tensor;
///
/// let data = Tensor::from_vec(&[2, 4], vec![0i32, 1, 2, 3, 4, 5, 6, 7])?;
/// let lengths = Tensor::from_vec(&[2], vec![3i64, 4])?;
/// let out = reverse_sequence(&data, &lengths, 0, 1)?;
/// assert_eq!(out.to_vec::<i32>()?, vec![2, 1, 0, 3, 7, 6, 5, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn reverse_sequence(
    data: &Tensor,
    lengths: &Tensor,
    batch_axis: i64,
    seq_axis: i64,
) -> Result<Tensor, KernelError> {
    if packed::applies(data.element_type()) {
        return packed::run(OP, data, |codes| reverse_sequence(codes, lengths, batch_axis, seq_axis));
    }
    if narrow_counts(seq_size(data, seq_axis)) {
        reverse_sequence_with::<u32>(data, lengths, batch_axis, seq_axis)
    } else {
        reverse_sequence_with::<usize>(data, lengths, batch_axis, seq_axis)
    }
}

/// [`reverse_sequence`] with the lengths kept as `C`.
fn reverse_sequence_with<C: Count>(
    data: &Tensor,
    lengths: &Tensor,
    batch_axis: i64,
    seq_axis: i64,
) -> Result<Tensor, KernelError> {
    let mut lens = Vec::<C>::new();
    let Some(plan) = prepare(data, lengths, batch_axis, seq_axis, &mut lens)? else {
        return Ok(data.clone());
    };
    let mut out = Tensor::zeros(data.element_type(), data.shape())?;
    play_or_copy(Some(plan), data, &mut out, &ExecOptions::single_thread(), &mut RowHeads::new(), None)?;
    Ok(out)
}

/// What [`reverse_sequence_into`] and [`reverse_sequence_checked_into`]
/// keep between calls, so that running them again on inputs of the same
/// size allocates nothing: the lengths read on each call, the heads
/// written from checked lengths (kept for the next call with the same
/// lengths), and packed sub-byte data unpacked. What a call writes never
/// depends on what the scratch held before.
#[derive(Clone, Debug, Default)]
pub struct ReverseSequenceScratch {
    /// Elements to reverse per batch index, as read, when every count the
    /// call keeps fits 32 bits: half the memory of `usize` counts, which a
    /// million short rows with a head each write and read again beside
    /// the data.
    lengths: Vec<u32>,
    /// The same for a sequence axis too long for 32-bit counts.
    wide_lengths: Vec<usize>,
    /// Heads, one per row, for rows that share a length in short runs, or
    /// lengths per line for data played as ReverseSubsequences' lines;
    /// kept between calls where they were written from checked lengths.
    row_heads: RowHeads,
    /// Packed sub-byte data unpacked, and moved.
    unpacked: Option<Box<Unpacked>>,
}

impl ReverseSequenceScratch {
    /// An empty scratch; it allocates on first use and then keeps its
    /// memory.
    pub const fn new() -> ReverseSequenceScratch {
        ReverseSequenceScratch {
            lengths: Vec::new(),
            wide_lengths: Vec::new(),
            row_heads: RowHeads::new(),
            unpacked: None,
        }
    }
}

impl KeepsUnpacked for ReverseSequenceScratch {
    fn unpacked(&mut self) -> &mut Option<Box<Unpacked>> {
        &mut self.unpacked
    }
}

/// [`reverse_sequence`] writing into `out`, which must already have
/// `data`'s element type and shape (its buffer is reused when `out` holds
/// it alone). A large output is split across threads as `options` allow.
/// The lengths are read into `scratch` instead of a fresh buffer, so that
/// a caller running the same model again and again (a plan keeps one
/// scratch per step) allocates nothing once the scratch has grown to the
/// batch size. The result does not depend on what the scratch held before.
pub fn reverse_sequence_into(
    data: &Tensor,
    lengths: &Tensor,
    batch_axis: i64,
    seq_axis: i64,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut ReverseSequenceScratch,
) -> Result<(), KernelError> {
    into(data, Lengths::Given(lengths), (batch_axis, seq_axis), out, options, scratch)
}

/// [`reverse_sequence_into`] and [`reverse_sequence_checked_into`].
fn into(
    data: &Tensor,
    lengths: Lengths<'_, CheckedLengths>,
    (batch_axis, seq_axis): (i64, i64),
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut ReverseSequenceScratch,
) -> Result<(), KernelError> {
    if packed::applies(data.element_type()) {
        return packed::run_into(OP, data, out, scratch, |codes, moved, scratch| {
            into(codes, lengths, (batch_axis, seq_axis), moved, options, scratch)
        });
    }
    check_output(OP, data.element_type(), data.shape(), out)?;
    let lengths = match lengths {
        Lengths::Given(lengths) => lengths,
        Lengths::Checked(checked) => {
            let (batch, seq) = axes(data, batch_axis, seq_axis)?;
            let shape = data.shape();
            let sizes = (shape.get(batch).copied(), shape.get(seq).copied());
            match checked.counts() {
                Some(counts) if sizes == (Some(checked.batch), Some(checked.seq_size)) => {
                    return match checked.byte_heads(data, (batch, seq)) {
                        Some(bytes) => play_or_copy(
                            finish(data, (batch, seq), checked.read, bytes)?,
                            data,
                            out,
                            options,
                            &mut scratch.row_heads,
                            Some(checked.id),
                        ),
                        None => play_or_copy(
                            finish(data, (batch, seq), checked.read, counts)?,
                            data,
                            out,
                            options,
                            &mut scratch.row_heads,
                            Some(checked.id),
                        ),
                    };
                }
                // Data of other sizes reads the lengths again.
                _ => &checked.lengths,
            }
        }
    };
    let axes = (batch_axis, seq_axis);
    let heads = &mut scratch.row_heads;
    if narrow_counts(seq_size(data, seq_axis)) {
        reverse_sequence_in(data, lengths, axes, out, options, &mut scratch.lengths, heads)
    } else {
        reverse_sequence_in(data, lengths, axes, out, options, &mut scratch.wide_lengths, heads)
    }
}

/// [`reverse_sequence_into`] with the lengths kept as `C` in `lens`.
fn reverse_sequence_in<C: Count>(
    data: &Tensor,
    lengths: &Tensor,
    (batch_axis, seq_axis): (i64, i64),
    out: &mut Tensor,
    options: &ExecOptions,
    lens: &mut Vec<C>,
    row_heads: &mut RowHeads,
) -> Result<(), KernelError> {
    play_or_copy(prepare(data, lengths, batch_axis, seq_axis, lens)?, data, out, options, row_heads, None)
}

/// Plays `plan` from `data` into `out`, or copies `data` whole where there
/// is no plan (nothing moves). Where the plan's runs would be short, it is
/// played otherwise, with lengths written to `row_heads` (or kept there
/// from the last call, when `checked` numbers the [`CheckedLengths`] the
/// plan's lengths are, and they were written from the same ones for the
/// same layout; `None` for lengths read on this call): 2, 4 or 8 bytes
/// after both axes as one element, and 16 after the sequence axis; other
/// blocks after the sequence axis a block at a time
/// ([`SequencePlan::takes_row_blocks`]), or sequences of 24 bytes or of 36
/// to 96 a group of registers at a time where they are blocks of whole
/// 4-byte words, and longer ones of blocks of 3, 5, 6 or 7 words a
/// register at a time ([`SequencePlan::word_rows`]); time-major short blocks as
/// ReverseSubsequences' lines ([`SequencePlan::as_lines`]), and blocks a
/// little longer one at a time ([`SequencePlan::takes_blocks`]); rows
/// that share a length in short runs with a head per row
/// ([`SequencePlan::runs_short`]).
fn play_or_copy<C: Count>(
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

/// Where ReverseSequence writes a head per row, for rows that share a
/// length in runs too short to play one at a time
/// ([`SequencePlan::flattened`]), or a length per line, for blocks played
/// as ReverseSubsequences' lines ([`Lines::lengths`]); kept in a
/// [`ReverseSequenceScratch`] so that a model run again and again allocates
/// them once.
///
/// Heads written from checked lengths are kept for the next call with the
/// same lengths and the same layout: a model whose lengths are a constant
/// writes them once, not on every run.
#[derive(Clone, Debug, Default)]
struct RowHeads {
    /// 32-bit heads or line lengths.
    each: Kept<u32>,
    /// Heads a byte each, for the rows of 2 to 16 bytes that the short
    /// rows' loop reads that way and the rows of 17 to 31 bytes that the
    /// narrow rows' loops do, or line lengths a byte each on up to 8
    /// rows.
    bytes: Kept<u8>,
}

impl RowHeads {
    /// Nothing allocated yet.
    const fn new() -> RowHeads {
        RowHeads { each: Kept::new(), bytes: Kept::new() }
    }
}

/// Heads or line lengths, with what they were written from when that was
/// a [`CheckedLengths`].
#[derive(Clone, Debug, Default)]
struct Kept<H> {
    /// The heads or line lengths last written.
    values: Vec<H>,
    /// The checked lengths and the layout `values` were written for;
    /// `None` when they were written from lengths read on one call, or
    /// not all written.
    held: Option<(u64, Expansion)>,
}

/// How lengths are laid out as heads or line lengths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expansion {
    /// A head per row ([`SequencePlan::heads`]).
    Rows {
        /// The rows of each batch index, which take its length in turn.
        mid: usize,
    },
    /// A length per line ([`Lines::lengths`]).
    Lines(Lines),
}

impl<H> Kept<H> {
    /// Nothing written yet.
    const fn new() -> Kept<H> {
        Kept { values: Vec::new(), held: None }
    }

    /// The values `write` writes for `layout`, from the checked lengths
    /// numbered `from` (when `Some`); written again unless they are what
    /// was kept from an earlier call with the same lengths and layout.
    fn keep(
        &mut self,
        from: Option<u64>,
        layout: Expansion,
        write: impl FnOnce(&mut Vec<H>) -> Result<(), KernelError>,
    ) -> Result<&[H], KernelError> {
        let key = from.map(|id| (id, layout));
        if key.is_none() || self.held != key {
            // Not kept while half written, should `write` fail.
            self.held = None;
            write(&mut self.values)?;
            self.held = key;
        }
        Ok(&self.values)
    }
}

/// ReverseSequence seen as ReverseSubsequences' lines (`[outer, size,
/// inner]`, a length per line): each batch index's length repeated for
/// `each` lines in turn, the batch indices taken `groups` times over, and
/// all that `repeats` times (once per index before both axes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Lines {
    outer: usize,
    size: usize,
    inner: usize,
    groups: usize,
    each: usize,
    repeats: usize,
}

impl Lines {
    /// Every line's length, written to `lens` from `plan`'s, as `H`.
    fn lengths<C: Count, H: Count>(
        self,
        plan: &SequencePlan<'_, C>,
        lens: &mut Vec<H>,
    ) -> Result<(), KernelError> {
        let internal = |what| KernelError::Internal { op: OP, what };
        if H::new(self.size).is_none() {
            return Err(internal("the sequence is too long for the line lengths chosen"));
        }
        repeat_lengths(
            plan.lens,
            (self.groups, self.each, self.repeats),
            lens,
            "a sequence length per line",
        )?;
        if lens.len() != self.outer * self.inner {
            return Err(internal("the line lengths do not match the lines"));
        }
        Ok(())
    }
}

/// The longest average stretch of batch indices that share a length, in
/// bytes, with which ReverseSequence with the sequence axis before the
/// batch axis is played as ReverseSubsequences' lines
/// ([`SequencePlan::as_lines`]) on an axis of at most
/// [`LINES_FEW_POSITIONS`] positions; longer stretches go a block at a
/// time ([`play_blocks`]) or as runs. On time-major `[8, B, k]` with a
/// length per batch index (8 MiB), the lines took 1.5–1.6 ms against
/// 3.5–3.7 for the blocks on `u8` and `k` of 16 bytes, 1.6–1.7 against
/// 2.1 on `f32` and 32, and 1.4–1.7 against 1.5–1.6 on `u8` and 64.
const LINES_MAX_BLOCK: usize = 64;

/// The longest sequence axis on which stretches of up to
/// [`LINES_MAX_BLOCK`] bytes go to the lines.
const LINES_FEW_POSITIONS: usize = 8;

/// The longest sequence axis on which stretches of up to
/// [`LINES_MAX_BLOCK_SHORT_AXIS`] bytes go to the lines; on longer ones,
/// up to [`LINES_MAX_BLOCK_LONG_AXIS`]. The lines along a longer axis are
/// gathered an element at a time.
const LINES_SHORT_AXIS: usize = 64;

/// See [`LINES_SHORT_AXIS`]. On `[64, B, k]` the lines took 4.5–4.6 ms
/// against 6.8–7.9 for the blocks on `f32` and 16 bytes, and 4.3–4.4
/// against 14.8–15.3 on `u8` and 8; the blocks took 3.0–3.6 against
/// 4.1–4.4 on `u8` and 32, and 1.7–2.1 against 1.9–2.1 on `f32` and 64.
const LINES_MAX_BLOCK_SHORT_AXIS: usize = 16;

/// See [`LINES_SHORT_AXIS`]. On `[1024, B, k]` the lines took 8.3–8.7 ms
/// against 11.4–12.0 for the blocks on `u8` and 8 bytes, and 9.7–11.0
/// against 15–30 on `f32` and 4; the blocks took 5.9–7.2 against 8.5–9.0
/// on `u8` and 16, and 5.9–6.3 against 9.3–9.6 on `f32` and 16. On
/// `[256, B, 16]` `u8` they were level (7.3–8.6 ms against 8.1–8.5).
const LINES_MAX_BLOCK_LONG_AXIS: usize = 8;

/// See [`LINES_SHORT_AXIS`]: on a longer axis where ReverseSubsequences
/// stages its lines of 4- or 8-byte elements in a buffer ([`lines_win`]:
/// 4-byte elements on more than 2048 positions, or 64 with 1024 lines or
/// more, 8-byte ones where a block is larger than the gathers' buffer,
/// with AVX2), stretches of up to 16
/// bytes go to the lines. Lines of 1- and 2-byte elements keep
/// [`LINES_MAX_BLOCK_LONG_AXIS`]: 12-byte stretches of `u8` on 1024
/// positions took as long through them as a block at a time, or longer. On
/// time-major `[T, B, k]` of 8 MiB with a length per batch index, blocks
/// of 12 and 16 bytes took 1.9–3.2 ms through the lines against 2.6–4.4 a
/// block at a time on 2500 and 4096 positions (`f32`, and `i64` for 16),
/// where the gathers, on 1024 positions, took 4.7–5.8 against 3.9–4.1
/// for `f32` and 12 bytes; blocks of 24 and 32 bytes took as long or
/// longer through the lines.
const LINES_MAX_BLOCK_STAGED: usize = 16;

/// The longest average stretch of batch indices that share a length, in
/// bytes, with which ReverseSequence with the sequence axis before the
/// batch axis is played a block at a time ([`play_blocks`]) rather than
/// as runs, where the lines do not take it.
const BLOCKS_MAX_STRETCH: usize = 256;

/// How far ahead [`SequencePlan::blocks`] asks for the blocks it will
/// read, in bytes of output: each block comes from a position of its own,
/// which the hardware prefetcher cannot guess.
const BLOCKS_AHEAD_BYTES: usize = 4096;

/// The most bytes per position with which [`SequencePlan::blocks`] asks
/// for whole positions ahead; past it, a position ahead lies too far for
/// what it asks for to stay in the cache, and it asks for blocks further
/// along the same row instead.
const BLOCKS_AHEAD_MAX_STEP: usize = 64 << 10;

/// The shortest block, whole lines, that [`play_blocks`] streams into an
/// output of [`STREAM_MIN_BYTES`] or more. With ordinary stores, each line
/// of such an output is read before it is written. On 32 MiB time-major
/// `[T, 64, k]` with a random length per batch index, streaming took
/// 1.14–1.58× a memcpy against 1.59–2.51× on 192-byte blocks, 1.40–2.16×
/// against 1.48–2.37× on 256-byte ones (three rounds), and 1.42–1.64×
/// against 1.41–1.87× on 128-byte ones (five); on 64-byte blocks it was
/// level or slower (1.68–2.58× against 1.63–2.34×), the call a block
/// costing what streaming saves.
const STREAMED_BLOCK_MIN: usize = 128;

/// How many times a memcpy of its output a block-at-a-time copy takes, for
/// the threads: short blocks, each from its own place.
const BLOCKS_COST: usize = 4;

/// The two loops that play a plan a block at a time, a block being the
/// elements after both axes.
#[derive(Clone, Copy, Debug)]
enum BlockWalk {
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
    /// register at a time, where the CPU allows
    /// ([`SequencePlan::word_rows`]).
    Rows,
}

/// Plays `plan` a block at a time with `walk`, the blocks cut between the
/// threads; blocks of the sizes listed are copied with copies of a size
/// fixed when compiling. Time-major blocks of whole lines, at least
/// [`STREAMED_BLOCK_MIN`] bytes, into an output of [`STREAM_MIN_BYTES`] or
/// more are streamed instead: 128, 192 or 256 bytes, as the walk takes
/// stretches of at most [`BLOCKS_MAX_STRETCH`] bytes.
fn play_blocks<C: Count>(
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
    // from a window its length places. They
    // split between threads as the block walk does: on 32 MiB of `[B, 8,
    // 3]` `f32`, at about 0.9× a memcpy on one thread, two took 4.4–5.2
    // ms against 5.4–6.4 on one (three rounds), and on 8 MiB as long.
    let copier = ReverseCopier::detect();
    let words = matches!(walk, BlockWalk::Rows)
        && plan.hi.checked_mul(block).is_some_and(|row| copier.takes_word_rows(row, block));
    let stream = dst.len() >= STREAM_MIN_BYTES;
    macro_rules! sized {
        ($($k:literal)*) => {
            match block {
                $($k => parallel::for_each_costly_chunk(options, dst, block, cost, |first, part| match walk {
                    BlockWalk::TimeMajor => plan.blocks::<$k>(src, first, part, block),
                    BlockWalk::Rows if words => plan.word_rows::<$k>(copier, src, first, part, (block, stream)),
                    BlockWalk::Rows => plan.row_blocks::<$k>(src, first, part, block),
                }),)*
                _ => parallel::for_each_costly_chunk(options, dst, block, cost, |first, part| match walk {
                    BlockWalk::TimeMajor => plan.blocks::<0>(src, first, part, block),
                    BlockWalk::Rows if words => plan.word_rows::<0>(copier, src, first, part, (block, stream)),
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

/// How many times a memcpy of its output the walk of [`BlockWalk::Rows`]
/// takes, for the threads.
const ROW_BLOCKS_COST: usize = 2;

/// The longest sequence, in bytes with the blocks after it, that the walk
/// of [`BlockWalk::Rows`] takes; longer ones go as runs, which cost less
/// per byte as rows grow. On 8 MiB `f32` with a random length per
/// sequence, the blocks took about 60% of the runs' time on sequences of
/// 8 and 32 KiB with 16-byte blocks (`[B, 512, 4]`, `[B, 2048, 4]`) and
/// 75% on 64 KiB, and were level with them on 16 and 64 KiB of 64-byte
/// blocks (`[B, 256, 16]`, `[B, 1024, 16]`).
const ROW_BLOCKS_MAX_ROW: usize = 32 << 10;

/// The shortest sequence, in bytes with its blocks, that
/// [`SequencePlan::row_blocks`] writes as a reversed head read upwards and
/// then the rest: shorter ones pick each block's source in one loop.
/// Reading a head of 1 KiB downwards (`[B, 32, 8]` `f32`) took twice the
/// time of reading it upwards; on rows of 24 and 96 bytes (`[B, 4, 6]`
/// `u8`, `[B, 8, 3]` `f32`) the one loop took 78–82% of the time of the
/// two. (With AVX2, rows of 96 bytes of 12-byte blocks, and rows of 256
/// bytes and more of 12-, 20-, 24- and 28-byte blocks, go through
/// [`SequencePlan::word_rows`] since.)
const ROW_BLOCKS_UPWARD_MIN_ROW: usize = 256;

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

/// The longest run, in bytes, of rows sharing a length that is played
/// with a head per row instead of one run. A run costs some 60 ns to plan,
/// join and hand to a loop, and more to set up the loop that writes rows
/// alike a register at a time: on rows of 12 and 24 bytes, runs of 6 KiB
/// took as long either way, shorter ones less with a head per row (up to
/// 30 times less on runs of two rows), longer ones more.
const SHORT_RUN_MAX_BYTES: usize = 4096;

/// ReverseSequence lengths read and checked once, for data whose batch
/// and sequence sizes are known ahead: a model whose lengths are a
/// constant. [`reverse_sequence_checked_into`] then runs without reading
/// them again, which for a length per short row is a pass over as many
/// bytes as a good part of the data. For sequences of up to 31 elements
/// they are also kept a byte each, which rows of 2, 4, 8 or 16 bytes, and
/// of 17 to 31 (the sequence axis last, the batch axis just before it),
/// read instead of 32-bit counts.
///
/// ```
/// use ovir_exec::kernels::{reverse_sequence_checked_into, CheckedLengths, ExecOptions, ReverseSequenceScratch};
/// use ovir_tensor::Tensor;
///
/// let lengths = Tensor::from_vec(&[2], vec![3i64, 4])?;
/// // Two batch indices, sequences of 4.
/// let checked = CheckedLengths::new(&lengths, &[2, 4], 0, 1)?.expect("counts of 32 bits");
/// let data = Tensor::from_vec(&[2, 4], vec![0i32, 1, 2, 3, 4, 5, 6, 7])?;
/// let mut out = Tensor::zeros(data.element_type(), data.shape())?;
/// let options = ExecOptions::single_thread();
/// reverse_sequence_checked_into(&data, &checked, 0, 1, &mut out, &options, &mut ReverseSequenceScratch::new())?;
/// assert_eq!(out.to_vec::<i32>()?, vec![2, 1, 0, 3, 7, 6, 5, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct CheckedLengths {
    /// The lengths as given, read again for data of other sizes.
    lengths: Tensor,
    /// The batch and sequence sizes they were checked for.
    batch: usize,
    seq_size: usize,
    read: LengthsRead,
    /// The counts, when the lengths are not used where they are stored.
    counts: Option<Vec<u32>>,
    /// The counts a byte each, for sequences of up to
    /// [`BYTE_HEADS_MAX_SEQ`] elements: rows that short read them a
    /// quarter as wide ([`CheckedLengths::byte_heads`]).
    bytes: Option<Vec<u8>>,
    /// A number no other lengths checked in this process have (a clone
    /// shares it, and the values): a [`ReverseSequenceScratch`] keeps the heads it writes
    /// from these lengths under it, for the next run.
    id: u64,
}

/// The number the next [`CheckedLengths`] takes.
static NEXT_CHECKED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The longest sequence whose checked lengths are also kept a byte each:
/// rows of 31 bytes of 1-byte elements, the longest that the narrow rows'
/// loops take.
const BYTE_HEADS_MAX_SEQ: usize = 31;

impl CheckedLengths {
    /// Reads and checks `lengths` for data of shape `shape` reversed with
    /// these `batch_axis` and `seq_axis`, with the errors
    /// [`reverse_sequence`] gives for them: the axes, and the lengths'
    /// rank, type, count and range (the data's own type is checked when it
    /// runs). They serve any data with the same batch and sequence sizes.
    /// `None` when the sequence axis is too long for the 32-bit counts
    /// kept; such data reads its lengths on every run.
    pub fn new(
        lengths: &Tensor,
        shape: &[usize],
        batch_axis: i64,
        seq_axis: i64,
    ) -> Result<Option<CheckedLengths>, KernelError> {
        let (batch_axis, seq_axis) = sequence_axes(shape, batch_axis, seq_axis)?;
        let dim = |axis: usize| shape.get(axis).copied().unwrap_or(0);
        let (batch, seq_size) = (dim(batch_axis), dim(seq_axis));
        if !narrow_counts(seq_size) {
            return Ok(None);
        }
        let mut lens = Vec::<u32>::new();
        let (read, stored) = read_lengths(lengths, (batch_axis, batch), seq_size, &mut lens)?;
        // Each at most `seq_size`, so a byte holds it.
        let bytes = (seq_size <= BYTE_HEADS_MAX_SEQ)
            .then(|| stored.unwrap_or(&lens).iter().map(|&n| n as u8).collect());
        let counts = stored.is_none().then_some(lens);
        let id = NEXT_CHECKED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(Some(CheckedLengths { lengths: lengths.clone(), batch, seq_size, read, counts, bytes, id }))
    }

    /// The counts a byte each, where `data` (whose batch and sequence axes
    /// are `batch` and `seq`) is rows of 2, 4, 8 or 16 bytes, or of 17 to
    /// 31, one sequence each, the batch axis just before: the rows with a
    /// head each that the short rows' loop writes several to a register,
    /// and the narrow rows' loops one to a register, and for which 32-bit
    /// lengths would be a quarter to twice as many bytes as the data, or
    /// an eighth to a quarter. On 8 MiB of 24-byte rows, byte heads
    /// measured 1.12–1.24× a memcpy against 1.29–1.34× for 32-bit ones
    /// with `f32` elements, and level with `i8` ones (1.20–1.25× against
    /// 1.20–1.31×), five rounds in turn.
    fn byte_heads(&self, data: &Tensor, (batch, seq): (usize, usize)) -> Option<&[u8]> {
        let rank = data.rank();
        let row = data.shape().get(seq)?.checked_mul(data.element_type().byte_width()?)?;
        let rows = seq + 1 == rank
            && batch + 2 == rank
            && (matches!(row, 2 | 4 | 8 | 16) || (17..32).contains(&row));
        self.bytes.as_deref().filter(|_| rows)
    }

    /// The counts, where they were kept or where they are stored.
    fn counts(&self) -> Option<&[u32]> {
        match &self.counts {
            Some(counts) => Some(counts),
            None => bytemuck::try_cast_slice::<u8, u32>(self.lengths.bytes()?).ok(),
        }
    }
}

/// [`reverse_sequence_into`] with lengths read and checked ahead. Data
/// whose batch or sequence size differs from the one they were checked
/// for reads them again, as [`reverse_sequence_into`] does.
pub fn reverse_sequence_checked_into(
    data: &Tensor,
    lengths: &CheckedLengths,
    batch_axis: i64,
    seq_axis: i64,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut ReverseSequenceScratch,
) -> Result<(), KernelError> {
    into(data, Lengths::Checked(lengths), (batch_axis, seq_axis), out, options, scratch)
}

/// The size of the sequence axis, which bounds every length kept; 0 for an
/// axis out of range, which [`prepare`] reports.
fn seq_size(data: &Tensor, seq_axis: i64) -> usize {
    ovir_tensor::normalize_axis(seq_axis, data.rank()).and_then(|a| data.shape().get(a).copied()).unwrap_or(0)
}

/// What [`read_lengths`] learns while it reads the lengths, so that no one
/// reads them again to ask.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct LengthsRead {
    /// Whether any length moves an element (is above 1).
    moves: bool,
    /// Whether every batch index has the same length.
    uniform: bool,
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
fn read_lengths<'a, C: Count>(
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
    super::error::try_reserve(lens, batch, OP, "sequence lengths")?;
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

/// Validates the inputs and builds the plan; `None` when the output equals
/// the input.
fn prepare<'a, C: Count>(
    data: &Tensor,
    lengths: &'a Tensor,
    batch_axis: i64,
    seq_axis: i64,
    lens: &'a mut Vec<C>,
) -> Result<Option<SequencePlan<'a, C>>, KernelError> {
    let (batch, seq) = axes(data, batch_axis, seq_axis)?;
    let dim = |axis: usize| data.shape().get(axis).copied().unwrap_or(0);
    let (read, stored) = read_lengths(lengths, (batch, dim(batch)), dim(seq), lens)?;
    let lens: &'a [C] = match stored {
        Some(stored) => stored,
        None => lens,
    };
    finish(data, (batch, seq), read, lens)
}

/// The batch and sequence axes of `data`, checked with its rank and type.
fn axes(data: &Tensor, batch_axis: i64, seq_axis: i64) -> Result<(usize, usize), KernelError> {
    let (batch, seq) = sequence_axes(data.shape(), batch_axis, seq_axis)?;
    check_movable(OP, data.element_type())?;
    Ok((batch, seq))
}

/// The plan for `data` with the lengths read (`lens`, one per batch
/// index, and what reading them learned); `None` when the output equals
/// the input.
fn finish<'a, C: Count>(
    data: &Tensor,
    (batch, seq): (usize, usize),
    read: LengthsRead,
    lens: &'a [C],
) -> Result<Option<SequencePlan<'a, C>>, KernelError> {
    let shape = data.shape();
    let rank = shape.len();
    let dim = |axis: usize| shape.get(axis).copied().unwrap_or(0);
    if batch == seq {
        // A length of 1 may be kept as it is stored, and moves nothing.
        for (b, n) in lens.iter().enumerate() {
            same_axes_length(batch, b, n.get())?;
        }
        return Ok(None);
    }
    if data.is_empty() || !read.moves {
        return Ok(None);
    }
    let (lo, hi) = (batch.min(seq), batch.max(seq));
    let dims = |from: usize, to: usize| shape.get(from..to).map_or(1, product);
    Ok(Some(SequencePlan {
        outer: dims(0, lo),
        lo: dim(lo),
        mid: dims(lo + 1, hi),
        hi: dim(hi),
        inner: dims(hi + 1, rank),
        seq_is_hi: seq > batch,
        uniform: read.uniform,
        lens,
    }))
}

/// Writes `lens` to `out` as [`head`]s: each `each` times in turn, all of
/// them `groups` times over, and that whole block `repeats` times. `out`
/// is written over, not cleared first, so that a scratch already of the
/// right length is not filled twice. `what` names them where memory runs
/// out.
fn repeat_lengths<C: Count, H: Count>(
    lens: &[C],
    (groups, each, repeats): (usize, usize, usize),
    out: &mut Vec<H>,
    what: &'static str,
) -> Result<(), KernelError> {
    let block = (groups * lens.len()).checked_mul(each);
    let (Some(block), Some(total)) = (block, block.and_then(|block| block.checked_mul(repeats))) else {
        return Err(KernelError::Internal { op: OP, what: "the repeated lengths overflow" });
    };
    if block == 0 {
        out.clear();
        return Ok(());
    }
    out.truncate(total);
    super::error::try_reserve(out, total - out.len(), OP, what)?;
    out.resize(total, H::narrow(0));
    let (first, rest) = out.split_at_mut(block);
    for group in first.chunks_exact_mut(lens.len() * each) {
        match each {
            2 => repeat_each::<C, H, 2>(lens, group),
            3 => repeat_each::<C, H, 3>(lens, group),
            4 => repeat_each::<C, H, 4>(lens, group),
            _ => group.chunks_exact_mut(each).zip(lens).for_each(|(heads, &n)| heads.fill(head(n))),
        }
    }
    for copy in rest.chunks_exact_mut(block) {
        copy.copy_from_slice(first);
    }
    Ok(())
}

/// Writes each of `lens` as a head ([`head`]) to `M` heads in turn, from
/// the first of `heads`.
///
/// Sixteen lengths at a time go through a block of their heads whose
/// layout is fixed when compiled, which the compiler turns into a few
/// vector shuffles: half a million lengths repeated twice as byte heads
/// took a third to a half of the time of a loop writing each length's
/// heads in turn (0.10–0.36 ms against 0.30–0.77 in three rounds of a
/// standalone program, on a busy host).
fn repeat_each<C: Count, H: Count, const M: usize>(lens: &[C], heads: &mut [H]) {
    /// The lengths written together.
    const BLOCK: usize = 16;
    let (groups, _) = heads.as_chunks_mut::<M>();
    let (blocks, groups_left) = groups.as_chunks_mut::<BLOCK>();
    let (lens_blocks, lens_left) = lens.as_chunks::<BLOCK>();
    for (block, block_lens) in blocks.iter_mut().zip(lens_blocks) {
        let mut block_heads = [[H::narrow(0); M]; BLOCK];
        for i in 0..BLOCK * M {
            block_heads[i / M][i % M] = head(block_lens[i / M]);
        }
        *block = block_heads;
    }
    for (group, &n) in groups_left.iter_mut().zip(lens_left) {
        *group = [head(n); M];
    }
}

/// The length `n` as a row's head, cut to `H`, which the caller has
/// checked holds the sequence size. A length of 1 stays 1, which reverses
/// one element and so moves nothing, as 0 does.
#[inline(always)]
fn head<C: Count, H: Count>(n: C) -> H {
    H::narrow(n.get() as u64)
}

/// The data seen as `[outer, lo, mid, hi, inner]`, where `lo` and `hi` are
/// the batch and sequence axes in memory order and `inner` is a contiguous
/// block that always moves whole.
#[derive(Debug)]
struct SequencePlan<'a, C> {
    outer: usize,
    lo: usize,
    mid: usize,
    hi: usize,
    inner: usize,
    seq_is_hi: bool,
    /// Whether every batch index has the same length.
    uniform: bool,
    /// Elements to reverse per batch index, 0 or 1 when nothing moves: 1
    /// only where the lengths are used as they are stored.
    lens: &'a [C],
}

impl<C: Count> SequencePlan<'_, C> {
    /// The length of batch index `batch` as a count: 0 when nothing moves,
    /// so that such a batch is one plain copy that joins its neighbours.
    fn len_at(&self, batch: usize) -> usize {
        self.lens.get(batch).map_or(0, |&n| if n.get() <= 1 { 0 } else { n.get() })
    }

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

    /// Whether the walk of [`BlockWalk::Rows`] takes the plan, for elements
    /// of `width` bytes: the batch axis before the sequence axis, more than
    /// one element after the sequence axis (a block that is not played as
    /// one wider element), and sequences of at most [`ROW_BLOCKS_MAX_ROW`]
    /// bytes with their blocks. (Where the blocks are whole 4-byte words in
    /// sequences the copier groups, [`play_blocks`] has
    /// [`SequencePlan::word_rows`] walk them instead.)
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

    /// [`SequencePlan::row_blocks`] through
    /// [`ReverseCopier::word_block_rows`], for sequences it takes: the
    /// whole sequences among blocks `first..` go a group of one, two or
    /// four at a time (or one at a time from windows), and the blocks of
    /// any sequence cut by either end of `dst`, or left over too few for a
    /// group (or for a group's registers, where a sequence does not fill
    /// them, or for the bytes the windows read past the last one), through
    /// [`SequencePlan::row_blocks`], which also writes again what the last
    /// group spilled; `stream` asks for streaming stores.
    fn word_rows<const K: usize>(
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
        let (mut b, mut m) = ((r0 / mid) % batch, r0 % mid);
        let done = copier.word_block_rows((src, r0 * row), rows, (row, block), stream, move || {
            let len = self.len_at(b);
            m += 1;
            if m == mid {
                m = 0;
                b = if b + 1 == batch { 0 } else { b + 1 };
            }
            len
        });
        // The rows it left (too few for a group or its registers, rows
        // whose windows would read past the data's end, or in a group with
        // a length past the sequence) go to the block loop,
        // which writes over any bytes the last group spilled into them and
        // reports such a length.
        self.row_blocks::<K>(src, (r0 * seq) + done / block, rows.get_mut(done..)?, block)?;
        self.row_blocks::<K>(src, (r0 + whole) * seq, after, block)
    }

    /// Whether the data is rows along the sequence axis (the batch axis
    /// before it, nothing after it) where the `mid` rows of each batch
    /// index, which share its length, make runs of at most
    /// [`SHORT_RUN_MAX_BYTES`] for elements of `width` bytes.
    fn runs_short(&self, width: usize) -> bool {
        let run = self.mid.saturating_mul(self.hi).saturating_mul(width);
        self.seq_is_hi && self.inner == 1 && self.mid > 1 && run <= SHORT_RUN_MAX_BYTES
    }

    /// Writes the heads of [`SequencePlan::flattened`] to `heads`: every
    /// batch index's length once for each of its `mid` rows, or once in
    /// all when every length is the same. For a plan whose
    /// [`SequencePlan::runs_short`] holds, whose sequences are then short
    /// enough for any count type.
    fn heads<H: Count>(&self, heads: &mut Vec<H>) -> Result<(), KernelError> {
        let internal = |what| KernelError::Internal { op: OP, what };
        // Every length is at most `hi`, so the heads hold them all when
        // they hold `hi`.
        if H::new(self.hi).is_none() {
            return Err(internal("the sequence is too long for the heads chosen for its rows"));
        }
        if self.lens.len() != self.lo {
            return Err(internal("the lengths do not match the batch size"));
        }
        if self.uniform {
            heads.clear();
            heads.push(H::narrow(self.len_at(0) as u64));
            Ok(())
        } else {
            repeat_lengths(self.lens, (1, self.mid, 1), heads, "a sequence length per row")
        }
    }

    /// The same copy seen as rows with a head each, `[outer, lo * mid, 1,
    /// hi]`, with the heads [`SequencePlan::heads`] wrote.
    fn flattened<'h, H: Count>(&self, heads: &'h [H]) -> Result<SequencePlan<'h, H>, KernelError> {
        let internal = |what| KernelError::Internal { op: OP, what };
        let rows = self.lo.checked_mul(self.mid).ok_or_else(|| internal("the rows overflow"))?;
        if heads.len() != if self.uniform { 1 } else { rows } {
            return Err(internal("the heads do not match the rows"));
        }
        Ok(SequencePlan {
            outer: self.outer,
            lo: rows,
            mid: 1,
            hi: self.hi,
            inner: 1,
            seq_is_hi: true,
            uniform: self.uniform,
            lens: heads,
        })
    }
}

impl<C: Count> RunPlan for SequencePlan<'_, C> {
    fn unit_len(&self) -> usize {
        (self.hi * self.inner).max(1)
    }

    fn units(&self) -> usize {
        self.outer * self.lo * self.mid
    }

    /// With the sequence axis before the batch axis, every batch index
    /// reads its own position, so neighbouring runs come from far apart.
    fn gathers(&self) -> bool {
        !self.seq_is_hi
    }

    /// One unit per `hi` slice, that is per `(outer, lo, mid)` index.
    fn for_each_run<'s, F: FnMut(Run<'s>) -> Option<()>>(
        &'s self,
        units: Range<usize>,
        emit: F,
    ) -> Option<()> {
        let SequencePlan { lo, mid, hi, inner, seq_is_hi, uniform, .. } = *self;
        let mut out = Joiner::new(emit);
        if seq_is_hi && inner == 1 && mid == 1 {
            // Every unit is one row, and consecutive rows belong to
            // consecutive batch indices: with one length for all, every row
            // asked for makes one run; otherwise the rows up to the end of
            // the batch axis make one run that carries its lengths. Either
            // way there is no run per row.
            if uniform {
                let len = self.len_at(0);
                return out
                    .push(Run::rows(units.start * hi, hi, len, units.len()))
                    .and_then(|()| out.finish());
            }
            let mut unit = units.start;
            while unit < units.end {
                let l = unit % lo.max(1);
                let count = (lo - l).min(units.end - unit);
                let heads = C::heads(self.lens.get(l..l + count)?);
                out.push(Run {
                    src: unit * hi,
                    len: count * hi,
                    reversed: false,
                    rows: Some(Rows { row: hi, heads, block: 1 }),
                })?;
                unit += count;
            }
            return out.finish();
        }
        // `(l, m)` of the current slice, stepped like an odometer, so no
        // division is done per slice; `base` is the slice's first element.
        let mut m = units.start % mid.max(1);
        let mut l = (units.start / mid.max(1)) % lo.max(1);
        let mut base = units.start * hi * inner;
        let slice = hi * inner;
        if seq_is_hi && inner == 1 {
            // Every slice is one row, and the `mid` rows of one batch index
            // follow one another and share its length: they go out as one
            // run, so the plan costs one step per batch index, not one per
            // row, which on short rows cost as much as the copy.
            let mut unit = units.start;
            while unit < units.end {
                let count = (mid - m).min(units.end - unit);
                match self.len_at(l) {
                    0 => out.push(Run { src: base, len: count * slice, reversed: false, rows: None })?,
                    len => out.push(Run::rows(base, hi, len, count))?,
                }
                unit += count;
                base += count * slice;
                m = 0;
                l += 1;
                if l == lo {
                    l = 0;
                }
            }
            return out.finish();
        }
        for _ in units {
            if seq_is_hi {
                // The sequence runs through this `hi` slice, so its
                // untouched tail is one contiguous copy.
                let len = self.len_at(l);
                // The first `len` blocks of `inner`, last to first, as one
                // run, which the writer reads ahead of.
                out.push(Run::descending_rows(base, inner, len))?;
                out.push(Run {
                    src: base + len * inner,
                    len: (hi - len) * inner,
                    reversed: false,
                    rows: None,
                })?;
            } else {
                // Here `l` is the position in the sequence and every `hi`
                // index is a batch with its own length; batches that read
                // the same source position join up. Moving from position
                // `l` to `from` moves the source by whole `mid` slices.
                for b in 0..hi {
                    let len = self.len_at(b);
                    let src = if l < len {
                        let from = len - 1 - l;
                        // Position `from` instead of `l`, same `m`.
                        base - l * mid * slice + from * mid * slice + b * inner
                    } else {
                        base + b * inner
                    };
                    out.push(Run { src, len: inner, reversed: false, rows: None })?;
                }
            }
            base += slice;
            m += 1;
            if m == mid {
                m = 0;
                l += 1;
                if l == lo {
                    l = 0;
                }
            }
        }
        out.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ReverseSequence element by element on `i64` values, as its
    /// definition reads: a reference for the kernel.
    fn naive(data: &[i64], shape: &[usize], (batch, seq): (usize, usize), lens: &[i64]) -> Vec<i64> {
        let strides: Vec<usize> = (0..shape.len()).map(|a| shape[a + 1..].iter().product()).collect();
        (0..data.len())
            .map(|flat| {
                let at = |axis: usize| flat / strides[axis] % shape[axis];
                let (t, len) = (at(seq), lens[at(batch)] as usize);
                let from = if t < len { len - 1 - t } else { t };
                data[flat - t * strides[seq] + from * strides[seq]]
            })
            .collect()
    }

    #[test]
    fn heads_written_from_checked_lengths_are_kept_only_for_those_lengths_and_that_layout() {
        // Each case is run with the first lengths twice, then on data with
        // more rows or more elements per batch index and position (the
        // lengths checked once for all, as a model's constant is), then
        // with the second lengths and the first again, all with one
        // scratch: short runs of rows with a byte head each
        // (8- and 24-byte rows) and with a 32-bit one (36-byte rows), and
        // time-major data as lines (a byte each on 6 positions). Then the
        // kept heads are swapped for zeros, and one more run with the
        // first lengths must play those.
        // (type, shape, the larger shape, batch and sequence axes, the
        // two lengths, whether the heads are 32-bit)
        type Case = (ElementType, [usize; 3], [usize; 3], (usize, usize), [&'static [i64]; 2], bool);
        let cases: [Case; 4] = [
            (ElementType::U8, [5, 2, 8], [5, 3, 8], (0, 2), [&[3, 0, 8, 2, 5], &[8, 1, 4, 4, 6]], false),
            (ElementType::F32, [5, 2, 6], [5, 4, 6], (0, 2), [&[6, 2, 0, 5, 3], &[1, 6, 6, 2, 4]], false),
            (ElementType::F32, [5, 2, 9], [5, 4, 9], (0, 2), [&[9, 2, 0, 5, 3], &[1, 9, 6, 2, 4]], true),
            (
                ElementType::U8,
                [6, 40, 3],
                [6, 40, 5],
                (1, 0),
                [
                    &[
                        6, 1, 6, 1, 6, 1, 6, 1, 6, 1, 6, 1, 6, 1, 6, 1, 6, 1, 6, 1, 6, 1, 6, 1, 6, 1, 6, 1,
                        6, 1, 6, 1, 6, 1, 6, 1, 6, 1, 6, 1,
                    ],
                    &[
                        2, 5, 6, 0, 2, 5, 6, 0, 2, 5, 6, 0, 2, 5, 6, 0, 2, 5, 6, 0, 2, 5, 6, 0, 2, 5, 6, 0,
                        2, 5, 6, 0, 2, 5, 6, 0, 2, 5, 6, 0,
                    ],
                ],
                false,
            ),
        ];
        for (ty, shape, longer, axes, [first, second], wide) in cases {
            let mut scratch = ReverseSequenceScratch::new();
            let check = |lens: &[i64]| {
                let lengths = Tensor::from_vec(&[lens.len()], lens.to_vec()).unwrap();
                CheckedLengths::new(&lengths, &shape, axes.0 as i64, axes.1 as i64).unwrap().unwrap()
            };
            let (one, other) = (check(first), check(second));
            let runs = [
                (shape, &one, first),
                (shape, &one, first),
                (longer, &one, first),
                (shape, &other, second),
                (shape, &one, first),
            ];
            let run = |shape: &[usize], checked: &CheckedLengths, scratch: &mut ReverseSequenceScratch| {
                let data = super::super::testing::distinct(ty, shape);
                let mut out = Tensor::zeros(ty, shape).unwrap();
                let options = ExecOptions::single_thread();
                reverse_sequence_checked_into(
                    &data,
                    checked,
                    axes.0 as i64,
                    axes.1 as i64,
                    &mut out,
                    &options,
                    scratch,
                )
                .unwrap();
                let values =
                    |t: &Tensor| super::super::convert(t, ElementType::I64).unwrap().to_vec::<i64>().unwrap();
                (values(&data), values(&out))
            };
            let held = |scratch: &ReverseSequenceScratch| match wide {
                true => scratch.row_heads.each.held,
                false => scratch.row_heads.bytes.held,
            };
            let mut layouts = Vec::new();
            for (at, (shape, checked, lens)) in runs.into_iter().enumerate() {
                let (data, out) = run(&shape, checked, &mut scratch);
                assert_eq!(out, naive(&data, &shape, axes, lens), "{ty:?} {shape:?}, run {at}");
                let (id, layout) = held(&scratch).expect("heads kept");
                assert_eq!(id, checked.id, "{ty:?} {shape:?}, run {at}");
                layouts.push(layout);
            }
            assert_eq!(layouts[1], layouts[0]);
            assert_ne!(layouts[2], layouts[0]);
            assert_eq!(layouts[4], layouts[0]);
            // Heads of 0 move nothing: played as kept, the output is the
            // input.
            scratch.row_heads.bytes.values.fill(0);
            scratch.row_heads.each.values.fill(0);
            let (data, out) = run(&shape, &one, &mut scratch);
            assert_eq!(out, data, "{ty:?} {shape:?}: the kept heads were not played");
            assert_eq!(held(&scratch), Some((one.id, layouts[0])));
        }
    }

    #[test]
    fn repeated_lengths_take_each_length_in_turn_then_the_whole_again() {
        // 37 lengths: two blocks of sixteen and five left over.
        let lens: Vec<u32> = (0..37).map(|i| (i * 5 + 3) % 11).collect();
        for each in 1..=5 {
            for (groups, repeats) in [(1, 1), (2, 3)] {
                let mut heads = vec![99u8; 3];
                repeat_lengths(&lens, (groups, each, repeats), &mut heads, "heads").unwrap();
                // Head `h` of the whole is length `(h / each) % 37`.
                let expected: Vec<u8> = (0..lens.len() * each * groups * repeats)
                    .map(|h| lens[h / each % lens.len()] as u8)
                    .collect();
                assert_eq!(heads, expected, "each {each}, groups {groups}, repeats {repeats}");
            }
        }
    }

    #[test]
    fn checked_lengths_are_played_as_checked_without_reading_the_lengths_again() {
        let data = Tensor::from_vec(&[2, 4], vec![0i32, 1, 2, 3, 4, 5, 6, 7]).unwrap();
        // `i64` lengths, whose counts the check keeps; the tensor behind
        // them is then swapped for other lengths, which only a read would
        // see.
        let mut checked = CheckedLengths::new(&Tensor::from_vec(&[2], vec![3i64, 4]).unwrap(), &[2, 4], 0, 1)
            .unwrap()
            .unwrap();
        checked.lengths = Tensor::from_vec(&[2], vec![0i64, 2]).unwrap();
        let mut out = Tensor::zeros(data.element_type(), data.shape()).unwrap();
        let options = ExecOptions::single_thread();
        reverse_sequence_checked_into(
            &data,
            &checked,
            0,
            1,
            &mut out,
            &options,
            &mut ReverseSequenceScratch::new(),
        )
        .unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), [2, 1, 0, 3, 7, 6, 5, 4]);
        // Data of another size reads them, the swapped ones.
        let longer = Tensor::from_vec(&[2, 5], (0..10).collect::<Vec<i32>>()).unwrap();
        let mut out = Tensor::zeros(longer.element_type(), longer.shape()).unwrap();
        reverse_sequence_checked_into(
            &longer,
            &checked,
            0,
            1,
            &mut out,
            &options,
            &mut ReverseSequenceScratch::new(),
        )
        .unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), [0, 1, 2, 3, 4, 6, 5, 7, 8, 9]);
    }

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

    #[test]
    fn a_stored_length_of_one_is_a_plain_copy() {
        // `[2, 3, 4]` with batch 0 and sequence 2 and `mid` 3: batch 0 keeps
        // its rows, batch 1 reverses them.
        let data = Tensor::from_vec(&[2, 3, 4], (0..24).collect::<Vec<i32>>()).unwrap();
        let lengths = Tensor::from_vec(&[2], vec![1i32, 4]).unwrap();
        let mut lens = Vec::<u32>::new();
        let plan = prepare(&data, &lengths, 0, 2, &mut lens).unwrap().unwrap();
        assert_eq!(plan.len_at(0), 0);
        assert_eq!(plan.len_at(1), 4);
        let mut runs = Vec::new();
        plan.for_each_run(0..plan.units(), |run| {
            runs.push(run);
            Some(())
        });
        // Batch 0's three rows join into one forward run.
        assert_eq!(
            runs.first().map(|r| (r.src, r.len, r.reversed, r.rows.is_none())),
            Some((0, 12, false, true))
        );
    }

    #[test]
    fn wide_counts_move_what_narrow_ones_do() {
        // Every path of the plan: a head per row, one length for all,
        // rows of one batch index together, blocks along the sequence,
        // and the batch axis after the sequence axis.
        let cases: [(&[usize], i64, i64, &[i64]); 6] = [
            (&[5, 7], 0, 1, &[3, 0, 7, 2, 5]),
            (&[4, 6], 0, 1, &[4, 4, 4, 4]),
            (&[3, 2, 5], 0, 2, &[5, 1, 3]),
            (&[3, 5, 2], 0, 1, &[2, 5, 4]),
            (&[5, 3, 2], 1, 0, &[4, 0, 5]),
            (&[2, 3, 4, 2], 2, 1, &[3, 2, 0, 1]),
        ];
        let threads = ExecOptions { threads: 2, min_bytes_per_thread: 1 };
        for (shape, batch, seq, lens) in cases {
            let lengths = Tensor::from_vec(&[lens.len()], lens.to_vec()).unwrap();
            for ty in
                [ElementType::U8, ElementType::I16, ElementType::F32, ElementType::U64, ElementType::String]
            {
                let data = super::super::testing::distinct(ty, shape);
                let mut narrow = Tensor::zeros(ty, shape).unwrap();
                let mut wide = Tensor::zeros(ty, shape).unwrap();
                let heads = &mut RowHeads::new();
                let axes = (batch, seq);
                reverse_sequence_in(
                    &data,
                    &lengths,
                    axes,
                    &mut narrow,
                    &threads,
                    &mut Vec::<u32>::new(),
                    heads,
                )
                .unwrap();
                reverse_sequence_in(
                    &data,
                    &lengths,
                    axes,
                    &mut wide,
                    &threads,
                    &mut Vec::<usize>::new(),
                    heads,
                )
                .unwrap();
                assert_eq!(wide, narrow, "{shape:?}, batch {batch}, seq {seq}, {ty:?}");
                let whole = reverse_sequence_with::<usize>(&data, &lengths, batch, seq).unwrap();
                assert_eq!(whole, narrow, "{shape:?}, batch {batch}, seq {seq}, {ty:?}");
            }
        }
        // The example of `reverse_sequence`, worked by hand.
        let data = Tensor::from_vec(&[2, 4], vec![0i32, 1, 2, 3, 4, 5, 6, 7]).unwrap();
        let lengths = Tensor::from_vec(&[2], vec![3i64, 4]).unwrap();
        let out = reverse_sequence_with::<usize>(&data, &lengths, 0, 1).unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), vec![2, 1, 0, 3, 7, 6, 5, 4]);
    }

    fn runs<'a, C: Count>(plan: &'a SequencePlan<'_, C>) -> Vec<Run<'a>> {
        let mut all = Vec::new();
        plan.for_each_run(0..plan.units(), |r| {
            all.push(r);
            Some(())
        });
        all
    }

    #[test]
    fn untouched_tail_is_one_copy() {
        // batch 0, seq 1 on [1, 5, 3]: length 2 swaps two blocks of 3, then
        // copies the last three blocks at once.
        let plan = SequencePlan {
            outer: 1,
            lo: 1,
            mid: 1,
            hi: 5,
            inner: 3,
            seq_is_hi: true,
            uniform: true,
            lens: &[2u32],
        };
        assert_eq!(
            runs(&plan),
            vec![Run::descending_rows(0, 3, 2), Run { src: 6, len: 9, reversed: false, rows: None }]
        );
    }

    #[test]
    fn batches_past_their_length_join() {
        // seq 0, batch 1 on [3, 4]: at sequence position 2 no batch is
        // reversed any more, so the whole row is one copy.
        let plan = SequencePlan {
            outer: 1,
            lo: 3,
            mid: 1,
            hi: 4,
            inner: 1,
            seq_is_hi: false,
            uniform: false,
            lens: &[2u32, 0, 2, 2],
        };
        let all = runs(&plan);
        assert_eq!(all.last(), Some(&Run { src: 8, len: 4, reversed: false, rows: None }));
    }
}
