//! The run plans that Reverse, ReverseSequence and ReverseSubsequences
//! describe their output with, and the routines that play them.
//!
//! A kernel first turns its attributes and shape into a *run plan*: the
//! output, in order, as a list of runs, each a stretch of consecutive input
//! elements that is either copied as it is or copied back to front. Plans are made as coarse as the
//! operation allows (adjacent axes that move together are merged, and runs
//! that continue one another are joined), so most of the work ends up in a
//! few large `copy_from_slice` calls. A plan is then played on raw bytes by
//! a routine specialised for the element's byte width (1, 2, 4 or 8 bytes,
//! or 16 for blocks of elements that always move together), or on
//! `String`s for string tensors.

use std::ops::Range;

use ovir_tensor::{ElementType, Tensor};

use super::copy::{Ahead, ReverseCopier, RunWriter};
/// Where the copy routines (and the rows runs) take [`Heads`] from.
pub(super) use super::counts::Heads;
use super::{parallel, ExecOptions, KernelError};

/// Outputs of at least this many bytes are written with streaming stores,
/// which skip the cache. Below it the output, and the input beside it,
/// may well stay in the cache for whatever reads them next, and streaming
/// would send them to memory for nothing. ReverseSubsequences' strips and
/// vector gathers, whose writes through the cache cost twice as much,
/// start lower (`SCATTERED_STREAM_MIN_BYTES` in `scattered_lines`).
pub(super) const STREAM_MIN_BYTES: usize = 16 << 20;

/// A stretch of the output: `len` input elements starting at element
/// `src`, copied in order or back to front, or, when `rows` is set, as
/// rows of one length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Run<'a> {
    pub(super) src: usize,
    pub(super) len: usize,
    /// Without `rows`, whether the elements are copied back to front; with
    /// `rows`, whether the rows are (the last input row lands first, each
    /// row keeping its own head and tail).
    pub(super) reversed: bool,
    pub(super) rows: Option<Rows<'a>>,
}

/// Rows of `row` elements, one after another in both input and output,
/// each with its first elements (its head) copied back to front and the
/// rest in order. Listing many short rows as one run keeps the work per row
/// down to the copy itself.
///
/// The rows of a reversed run are taken last to first within blocks of
/// `block` rows, the blocks in order: one block is a middle axis reversed,
/// and more blocks are the same for the outer items that follow it. One
/// run for all the blocks keeps the work per block down to the copy too,
/// which on 16 KiB blocks held in the cache was some 8% of the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Rows<'a> {
    pub(super) row: usize,
    pub(super) heads: Heads<'a>,
    /// Rows per block of a reversed run, at least 1, with the run's rows a
    /// whole number of blocks; 1 for a run in order.
    pub(super) block: usize,
}

impl Run<'_> {
    /// `count` rows of `row` elements from `src` on, with the first `rev`
    /// of each reversed.
    pub(super) fn rows(src: usize, row: usize, rev: usize, count: usize) -> Run<'static> {
        let rows = Rows { row, heads: Heads::Same(rev), block: 1 };
        Run { src, len: row * count, reversed: false, rows: Some(rows) }
    }

    /// `count` rows of `row` elements from `src` on, each copied in order
    /// but taken from the last row to the first: a middle axis reversed.
    /// Listing them as one run lets the writer read the input upwards
    /// while it writes the rows downwards.
    pub(super) fn descending_rows(src: usize, row: usize, count: usize) -> Run<'static> {
        Run::descending_blocks(src, row, count, 1)
    }

    /// `blocks` blocks of `block` rows of `row` elements from `src` on, the
    /// rows of each block taken from the last to the first.
    pub(super) fn descending_blocks(src: usize, row: usize, block: usize, blocks: usize) -> Run<'static> {
        let rows = Rows { row, heads: Heads::Same(0), block };
        Run { src, len: row * block * blocks, reversed: true, rows: Some(rows) }
    }

    /// The part of this plain run that lands on output elements `keep`
    /// (counted from the run's own start, `keep.end <= len`).
    pub(super) fn slice(self, keep: Range<usize>) -> Self {
        let len = keep.end - keep.start;
        // Output position k of a reversed run reads `src + len - 1 - k`, so
        // cutting its output front cuts its source back, and the reverse.
        let src = if self.reversed { self.src + (self.len - keep.end) } else { self.src + keep.start };
        Run { src, len, reversed: self.reversed, rows: None }
    }
}

/// Something that can list the output of an operation as runs.
///
/// The output is cut into `units()` units of `unit_len()` elements each
/// (rows, or slices of one batch index), so that a thread can play the
/// part of the plan that writes its own stretch of the output without
/// walking the rest.
pub(super) trait RunPlan: Sync {
    /// Output elements per unit; never 0.
    fn unit_len(&self) -> usize;

    /// Number of units; `units() * unit_len()` is the output's length.
    fn units(&self) -> usize;

    /// Calls `emit` with the runs that make up output units `units`, in
    /// output order (the first run starts at the first unit's first
    /// element); stops and returns `None` as soon as `emit` does.
    fn for_each_run<'s, F: FnMut(Run<'s>) -> Option<()>>(
        &'s self,
        units: Range<usize>,
        emit: F,
    ) -> Option<()>;

    /// Whether the sources of the plan's plain runs jump about the input
    /// rather than follow one another, so that they are best asked for a
    /// few runs ahead ([`Ahead`]).
    fn gathers(&self) -> bool {
        false
    }
}

/// Joins runs that continue one another, so that a plan can list small
/// pieces and still end up with large copies.
pub(super) struct Joiner<'a, F: FnMut(Run<'a>) -> Option<()>> {
    pub(super) pending: Option<Run<'a>>,
    pub(super) sink: F,
}

impl<'a, F: FnMut(Run<'a>) -> Option<()>> Joiner<'a, F> {
    pub(super) fn new(sink: F) -> Self {
        Joiner { pending: None, sink }
    }

    // Inlined into every plan: called, it copied each run into memory
    // and read it back in wider pieces than it was written, which waited
    // for the stores before it (the copies' among them) to drain: a
    // quarter of a profile of time-major `u8` with 256-byte blocks.
    #[inline(always)]
    pub(super) fn push(&mut self, run: Run<'a>) -> Option<()> {
        if run.len == 0 {
            return Some(());
        }
        if let Some(p) = &mut self.pending {
            // Only forward runs can grow: a reversed run followed by more
            // input would have to be reversed as a whole, which changes it.
            if !p.reversed
                && !run.reversed
                && p.rows.is_none()
                && run.rows.is_none()
                && p.src + p.len == run.src
            {
                p.len += run.len;
                return Some(());
            }
            // Rows of one pattern that follow one another join as well:
            // in the input, after the run when rows go in order or in
            // blocks of the same size, before it when both are one block
            // taken last to first, which then makes one larger block.
            if let (Some(a @ Rows { heads: Heads::Same(_), .. }), Some(b)) = (&mut p.rows, run.rows) {
                if (a.row, a.heads) == (b.row, b.heads) && p.reversed == run.reversed {
                    if a.block == b.block && p.src + p.len == run.src {
                        p.len += run.len;
                        return Some(());
                    }
                    let one_block = |len: usize, rows: &Rows<'_>| len == rows.row * rows.block;
                    if p.reversed
                        && one_block(p.len, a)
                        && one_block(run.len, &b)
                        && run.src + run.len == p.src
                    {
                        a.block += b.block;
                        p.src = run.src;
                        p.len += run.len;
                        return Some(());
                    }
                }
            }
        }
        match self.pending.replace(run) {
            Some(done) => (self.sink)(done),
            None => Some(()),
        }
    }

    pub(super) fn finish(mut self) -> Option<()> {
        match self.pending.take() {
            Some(done) => (self.sink)(done),
            None => Some(()),
        }
    }
}

/// Plays `plan` from `data` into `out`, which the caller has checked to
/// have `data`'s type and shape; numeric outputs large enough are split
/// across `options.threads` threads.
pub(super) fn play<P: RunPlan>(
    op: &'static str,
    plan: &P,
    data: &Tensor,
    out: &mut Tensor,
    options: &ExecOptions,
) -> Result<(), KernelError> {
    play_as(op, plan, data, out, options, data.element_type().byte_width())
}

/// [`play`] with the plan's elements `width` bytes each: the data's own,
/// or a whole number of them that always move together. `None` (as for
/// strings) takes the data's own.
pub(super) fn play_as<P: RunPlan>(
    op: &'static str,
    plan: &P,
    data: &Tensor,
    out: &mut Tensor,
    options: &ExecOptions,
    width: Option<usize>,
) -> Result<(), KernelError> {
    let ty = data.element_type();
    let internal = KernelError::Internal {
        op,
        what: "the output's storage does not match the data, or a run left the data or the output",
    };
    if ty == ElementType::String {
        let src = data.strings().ok_or(KernelError::UnsupportedType { op, ty })?;
        let dst = out.strings_mut().ok_or_else(|| internal.clone())?;
        return play_strings(plan, src, dst).ok_or(internal);
    }
    let src = data.bytes().ok_or(KernelError::UnsupportedType { op, ty })?;
    let dst = out.bytes_mut().ok_or_else(|| internal.clone())?;
    let copier = ReverseCopier::detect();
    let stream = dst.len() >= STREAM_MIN_BYTES;
    let done = match width.or(ty.byte_width()) {
        Some(1) => parallel::for_each_chunk(options, dst, 1, |at, part| {
            play_bytes::<1, P>(plan, copier, stream, src, at, part)
        }),
        Some(2) => parallel::for_each_chunk(options, dst, 2, |at, part| {
            play_bytes::<2, P>(plan, copier, stream, src, at, part)
        }),
        Some(4) => parallel::for_each_chunk(options, dst, 4, |at, part| {
            play_bytes::<4, P>(plan, copier, stream, src, at, part)
        }),
        Some(8) => parallel::for_each_chunk(options, dst, 8, |at, part| {
            play_bytes::<8, P>(plan, copier, stream, src, at, part)
        }),
        Some(16) => parallel::for_each_chunk(options, dst, 16, |at, part| {
            play_bytes::<16, P>(plan, copier, stream, src, at, part)
        }),
        _ => return Err(KernelError::UnsupportedType { op, ty }),
    };
    done.ok_or(internal)
}

/// Plays the part of `plan` that writes output elements `start..` into
/// `dst`, which holds exactly those elements, for elements of `N` bytes;
/// `stream` asks for streaming stores. Elements are handled as raw bytes,
/// so bytes borrowed unaligned from a weights file work as they are.
pub(super) fn play_bytes<const N: usize, P: RunPlan>(
    plan: &P,
    copier: ReverseCopier,
    stream: bool,
    src: &[u8],
    start: usize,
    dst: &mut [u8],
) -> Option<()> {
    let end = start + dst.len() / N;
    let unit = plan.unit_len();
    if unit == 0 || end == start {
        return (dst.is_empty()).then_some(());
    }
    let units = start / unit..end.div_ceil(unit);
    RunWriter::with(dst, copier, stream, |out| {
        // Output element at which the next run starts.
        let mut at = units.start * unit;
        let gathers = plan.gathers();
        let mut ahead = Ahead::new();
        plan.for_each_run(units, |run| {
            let (from, to) = (at, at + run.len);
            at = to;
            // Only the part of the run inside this chunk is copied: a chunk
            // boundary can fall anywhere, even inside a reversed run.
            let (lo, hi) = (from.max(start), to.min(end));
            if lo >= hi {
                return Some(());
            }
            let (k0, k1) = (lo - from, hi - from);
            let at = (lo - start) * N;
            let Some(rows) = run.rows else {
                let run = run.slice(k0..k1);
                if gathers && !run.reversed {
                    return ahead.forward(out, at, src.get(run.src * N..(run.src + run.len) * N)?);
                }
                return write_plain::<N>(out, src, run, at);
            };
            let rows = RowsRun::new(&run, rows)?;
            let row = rows.row;
            // Whole rows go to the row writer; a row cut by the chunk boundary
            // is written as its two plain parts.
            let (first, last) = (k0.div_ceil(row), k1 / row);
            if first > last {
                return write_partial_row::<N>(out, src, &rows, k0..k1, at);
            }
            write_partial_row::<N>(out, src, &rows, k0..first * row, at)?;
            let whole_at = at + (first * row - k0) * N;
            write_whole_rows::<N>(out, src, &rows, first..last, whole_at)?;
            write_partial_row::<N>(out, src, &rows, last * row..k1, at + (last * row - k0) * N)
        })?;
        ahead.finish(out)?;
        (at >= end).then_some(())
    })
}

/// A rows run, as [`play_bytes`] cuts it.
pub(super) struct RowsRun<'h> {
    /// The input element of the lowest row.
    pub(super) base: usize,
    pub(super) row: usize,
    pub(super) count: usize,
    /// Whether the rows of each block are taken from the last to the
    /// first.
    pub(super) descending: bool,
    /// Rows per block; `count` is a whole number of blocks.
    pub(super) block: usize,
    pub(super) heads: Heads<'h>,
}

impl<'h> RowsRun<'h> {
    /// The rows `rows` of `run`, checked: `None` unless the run is whole
    /// rows and whole blocks, and its heads fit its rows.
    pub(super) fn new(run: &Run<'_>, rows: Rows<'h>) -> Option<RowsRun<'h>> {
        let Rows { row, heads, block } = rows;
        let block_len = row.checked_mul(block)?;
        if block_len == 0 || !run.len.is_multiple_of(block_len) {
            return None;
        }
        let count = run.len / row;
        heads.fits(count, row).then_some(RowsRun {
            base: run.src,
            row,
            count,
            descending: run.reversed,
            block,
            heads,
        })
    }

    /// The input element at which the `r`-th row written starts; `None`
    /// past the last row.
    pub(super) fn source(&self, r: usize) -> Option<usize> {
        if r >= self.count {
            return None;
        }
        // Row `r` is row `r % block` of its block, counted from the block's
        // last row when the rows are taken last to first.
        let k = if self.descending { r - r % self.block + (self.block - 1 - r % self.block) } else { r };
        Some(self.base + k * self.row)
    }
}

/// Writes output rows `range` of `rows` (all whole) at output byte `at`.
pub(super) fn write_whole_rows<const N: usize>(
    out: &mut RunWriter<'_, '_>,
    src: &[u8],
    rows: &RowsRun<'_>,
    range: Range<usize>,
    at: usize,
) -> Option<()> {
    if range.start >= range.end {
        return Some(());
    }
    let row = rows.row;
    if !rows.descending {
        let from = rows.source(range.start)?;
        let whole = src.get(from * N..(from + range.len() * row) * N)?;
        return out.rows::<N>(at, whole, row * N, rows.heads.slice(range)?);
    }
    if rows.heads == Heads::Same(0) {
        // Whole blocks go at once; a block cut by the range is one stretch
        // of rows, whose input lies below its first output row.
        let (mut r, mut at) = (range.start, at);
        while r < range.end {
            let block_end = (r / rows.block + 1) * rows.block;
            // The stretch ends at `end` and moves blocks of `block` rows;
            // its lowest input row is `low`.
            let (end, block, low) = if r.is_multiple_of(rows.block) && block_end <= range.end {
                (range.end - (range.end - r) % rows.block, rows.block, r)
            } else {
                let end = block_end.min(range.end);
                (end, end - r, block_end - rows.block + (block_end - end))
            };
            let low = rows.base + low * row;
            let whole = src.get(low * N..(low + (end - r) * row) * N)?;
            out.descending_rows(at, whole, row * N, block * row * N)?;
            at += whole.len();
            r = end;
        }
        return Some(());
    }
    // No plan lists descending rows with reversed heads; should one, each
    // row is written on its own.
    for (k, r) in range.enumerate() {
        write_partial_row::<N>(out, src, rows, r * row..(r + 1) * row, at + k * row * N)?;
    }
    Some(())
}

/// Writes a plain run at output byte `at`.
pub(super) fn write_plain<const N: usize>(
    out: &mut RunWriter<'_, '_>,
    src: &[u8],
    run: Run<'_>,
    at: usize,
) -> Option<()> {
    let input = src.get(run.src * N..(run.src + run.len) * N)?;
    if run.reversed {
        out.reversed::<N>(at, input)
    } else {
        out.forward(at, input)
    }
}

/// Writes elements `part` (counted from the start of the output of
/// `rows`, and lying inside one row) at output byte `at`.
pub(super) fn write_partial_row<const N: usize>(
    out: &mut RunWriter<'_, '_>,
    src: &[u8],
    rows: &RowsRun<'_>,
    part: Range<usize>,
    at: usize,
) -> Option<()> {
    if part.start >= part.end {
        return Some(());
    }
    let row = rows.row;
    let r = part.start / row;
    let rev = rows.heads.of(r);
    if rev > row {
        return None;
    }
    let (x, y) = (part.start - r * row, part.end - r * row);
    let row_src = rows.source(r)?;
    // The reversed head of the row, then its forward tail, each cut to
    // `x..y`.
    let (a, b) = (x.min(rev), y.min(rev));
    if a < b {
        let head = Run { src: row_src, len: rev, reversed: true, rows: None }.slice(a..b);
        write_plain::<N>(out, src, head, at)?;
    }
    let (a, b) = (x.max(rev), y.max(rev));
    if a < b {
        let tail = Run { src: row_src + a, len: b - a, reversed: false, rows: None };
        write_plain::<N>(out, src, tail, at + (a - x) * N)?;
    }
    Some(())
}

pub(super) fn play_strings<P: RunPlan>(plan: &P, src: &[String], dst: &mut [String]) -> Option<()> {
    let mut at = 0usize;
    plan.for_each_run(0..plan.units(), |run| {
        let from = src.get(run.src..run.src + run.len)?;
        let to = dst.get_mut(at..at + run.len)?;
        if let Some(rows) = run.rows {
            let rows = RowsRun::new(&run, rows)?;
            let row = rows.row;
            for (r, o) in to.chunks_mut(row).enumerate() {
                let k = rows.source(r)? - run.src;
                let i = from.get(k..k + row)?;
                let rev = rows.heads.of(r);
                let (o_head, o_tail) = o.split_at_mut_checked(rev)?;
                let (i_head, i_tail) = i.split_at_checked(rev)?;
                for (a, b) in o_head.iter_mut().zip(i_head.iter().rev()) {
                    a.clone_from(b);
                }
                o_tail.clone_from_slice(i_tail);
            }
        } else if run.reversed {
            for (o, i) in to.iter_mut().zip(from.iter().rev()) {
                // `clone_from` keeps the output string's allocation when it
                // is large enough, which matters for reused outputs.
                o.clone_from(i);
            }
        } else {
            to.clone_from_slice(from);
        }
        at += run.len;
        Some(())
    })?;
    (at == dst.len()).then_some(())
}

/// Copies all of `data` into `out` (same type and shape), for kernels whose
/// result equals their input; large copies are split across threads.
pub(super) fn copy_all(
    op: &'static str,
    data: &Tensor,
    out: &mut Tensor,
    options: &ExecOptions,
) -> Result<(), KernelError> {
    let internal = KernelError::Internal { op, what: "the output's storage does not match the data's" };
    if let Some(src) = data.strings() {
        let dst = out.strings_mut().ok_or_else(|| internal.clone())?;
        if dst.len() != src.len() {
            return Err(internal);
        }
        dst.clone_from_slice(src);
        return Ok(());
    }
    let src = data.bytes().ok_or_else(|| internal.clone())?;
    let dst = out.bytes_mut().ok_or_else(|| internal.clone())?;
    if dst.len() != src.len() {
        return Err(internal);
    }
    parallel::for_each_chunk(options, dst, 1, |at, part| {
        part.copy_from_slice(src.get(at..at + part.len())?);
        Some(())
    })
    .ok_or(internal)
}

/// Product of `dims`; the caller guarantees it cannot overflow because the
/// dims belong to (a collapsed form of) a tensor that exists.
pub(super) fn product(dims: &[usize]) -> usize {
    dims.iter().product()
}
