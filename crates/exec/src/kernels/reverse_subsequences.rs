//! ReverseSubsequences: DirectML's `DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC`.
//! Along one axis, every line of the data reverses its own first
//! `length` elements, each line with a length of its own.
//!
//! It is the general form of ReverseSequence, whose lengths vary along one
//! batch axis only. Both kernels list their output as runs and play them
//! with the same byte-width players; a line with its own length becomes
//! one row of a rows run, so a batch of short lines costs little more than
//! the copy itself. On any other axis, where neighbouring lines rarely
//! share a length, runs would be an element long, so the kernel moves the
//! elements one by one instead, in cache-sized tiles.

use std::ops::Range;

use ovir_tensor::{ElementType, Tensor};

use super::{
    check_movable, check_output, copy_all, packed, parallel, play, product, ExecOptions, Heads, Joiner,
    KernelError, Rows, Run, RunPlan, Scratch,
};

const OP: &str = "ReverseSubsequences";

pub use ovir_shape::ops::reverse_subsequences::MAX_SUBSEQUENCE_RANK;

/// Reverses, along `axis`, the first `lengths[p]` elements of every line
/// `p` of `data`, and copies the rest of each line unchanged.
///
/// The rules follow DirectML's `DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC`:
/// - `data` has rank 1 to 8 and any element type (whole-byte, packed
///   sub-byte or `string`); elements move bit for bit.
/// - `axis` lies in `[0, rank)`. As in OpenVINO's own ops, a negative axis
///   counts from the end (`-1` is the last axis); DirectML's axis is
///   unsigned and has no such form.
/// - `lengths` has the rank of `data` and its shape, except at `axis`,
///   where its dimension is 1: every line along `axis` has a length of its
///   own.
/// - The lengths are integers of any type (DirectML takes `u32` and `u64`;
///   every other integer type is accepted as well). A length above the size
///   of `axis` counts as that size; 0 and 1 reverse nothing; a negative
///   length is an error.
///
/// When no length is above 1, the result is `data` itself (a clone
/// sharing its storage).
///
/// ```
/// use ovir_exec::kernels::reverse_subsequences;
/// use ovir_tensor::Tensor;
///
/// // DirectML's first example: each row has its own length.
/// let data = Tensor::from_vec(&[1, 1, 3, 4], (1..=12).map(|v| v as f32).collect())?;
/// let lengths = Tensor::from_vec(&[1, 1, 3, 1], vec![2u32, 4, 3])?;
/// let out = reverse_subsequences(&data, &lengths, 3)?;
/// assert_eq!(
///     out.to_vec::<f32>()?,
///     vec![2.0, 1.0, 3.0, 4.0, 8.0, 7.0, 6.0, 5.0, 11.0, 10.0, 9.0, 12.0]
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn reverse_subsequences(data: &Tensor, lengths: &Tensor, axis: i64) -> Result<Tensor, KernelError> {
    if packed::applies(data.element_type()) {
        return packed::run(OP, data, |codes| reverse_subsequences(codes, lengths, axis));
    }
    let mut lens = Vec::new();
    let Some(plan) = prepare(data, lengths, axis, &mut lens)? else {
        return Ok(data.clone());
    };
    let mut out = Tensor::zeros(data.element_type(), data.shape())?;
    plan.play(data, &mut out, &ExecOptions::single_thread())?;
    Ok(out)
}

/// [`reverse_subsequences`] writing into `out`, which must already have
/// `data`'s element type and shape. A large output is split across threads
/// as `options` allow, and the lengths are read into `scratch` instead of
/// a fresh buffer, so that running it again on inputs of the same size
/// allocates nothing. The result does not depend on what the scratch held
/// before.
pub fn reverse_subsequences_into(
    data: &Tensor,
    lengths: &Tensor,
    axis: i64,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut Scratch,
) -> Result<(), KernelError> {
    if packed::applies(data.element_type()) {
        return packed::run_into(OP, data, out, scratch, |codes, moved, scratch| {
            reverse_subsequences_into(codes, lengths, axis, moved, options, scratch)
        });
    }
    check_output(OP, data.element_type(), data.shape(), out)?;
    match prepare(data, lengths, axis, &mut scratch.lengths)? {
        Some(plan) => plan.play(data, out, options),
        None => copy_all(OP, data, out, options),
    }
}

/// The shape `lengths` must have for data of shape `data` reversed along
/// `axis`: the data's, with 1 at `axis`.
pub fn subsequence_lengths_shape(data: &[usize], axis: usize) -> Vec<usize> {
    data.iter().enumerate().map(|(i, &d)| if i == axis { 1 } else { d }).collect()
}

/// Validates the inputs, reads the lengths into `lens` and builds the
/// plan; `None` when the output equals the input.
fn prepare<'a>(
    data: &Tensor,
    lengths: &Tensor,
    axis: i64,
    lens: &'a mut Vec<usize>,
) -> Result<Option<SubsequencePlan<'a>>, KernelError> {
    let shape = data.shape();
    let rank = shape.len();
    if !(1..=MAX_SUBSEQUENCE_RANK).contains(&rank) {
        return Err(KernelError::RankOutOfRange { op: OP, rank, min: 1, max: MAX_SUBSEQUENCE_RANK });
    }
    let axis = ovir_tensor::normalize_axis(axis, rank).ok_or(KernelError::AttributeOutOfRange {
        attribute: "axis",
        axis,
        rank,
    })?;
    check_movable(OP, data.element_type())?;
    let fits = lengths.rank() == rank
        && lengths
            .shape()
            .iter()
            .zip(shape)
            .enumerate()
            .all(|(i, (&l, &d))| l == if i == axis { 1 } else { d });
    if !fits {
        return Err(KernelError::SubsequenceLengthsShape {
            axis,
            expected: subsequence_lengths_shape(shape, axis),
            found: lengths.shape().to_vec(),
        });
    }
    let size = shape.get(axis).copied().unwrap_or(0);
    read_lengths(lengths, size, lens)?;
    if data.is_empty() || lens.iter().all(|&n| n == 0) {
        return Ok(None);
    }
    let outer = shape.get(..axis).map_or(1, product);
    let inner = shape.get(axis + 1..).map_or(1, product);
    let lines = outer * inner;
    if lens.len() != lines {
        return Err(KernelError::Internal {
            op: OP,
            what: "the lengths read do not match the number of lines",
        });
    }
    let stretches = if inner > 1 { mark_stretches(lens, inner) } else { 0 };
    let (lens, ends) = lens.split_at(lines);
    Ok(Some(SubsequencePlan { outer, size, inner, lens, ends, stretches }))
}

/// Appends to the `n` lengths in `lens`, per block of `inner`, where the
/// stretch of equal lengths each one belongs to ends (an index within the
/// block), so that a plan steps over a stretch at once instead of testing
/// its lengths one by one at every position along the axis. Returns how
/// many stretches there are.
fn mark_stretches(lens: &mut Vec<usize>, inner: usize) -> usize {
    let n = lens.len();
    lens.resize(2 * n, 0);
    let (values, ends) = lens.split_at_mut(n);
    let mut stretches = 0;
    for (row, end) in values.chunks(inner).zip(ends.chunks_mut(inner)) {
        let mut stop = inner;
        for i in (0..row.len()).rev() {
            if row.get(i + 1).is_some_and(|&next| Some(&next) != row.get(i)) {
                stop = i + 1;
            }
            if stop == i + 1 {
                stretches += 1;
            }
            if let Some(e) = end.get_mut(i) {
                *e = stop;
            }
        }
    }
    stretches
}

/// Reads the lengths into `lens` (emptied first), in the lengths' element
/// order: each clamped to `size`, and 0 for the lengths 0 and 1, which
/// move nothing.
fn read_lengths(lengths: &Tensor, size: usize, lens: &mut Vec<usize>) -> Result<(), KernelError> {
    let ty = lengths.element_type();
    if !ty.is_integral() {
        return Err(KernelError::SubsequenceLengthsType { ty });
    }
    lens.clear();
    // Twice the lengths: the stretches they fall into are marked after them.
    super::error::try_reserve(lens, lengths.len().saturating_mul(2), OP, "lengths")?;
    let bytes = lengths.bytes().ok_or(KernelError::SubsequenceLengthsType { ty })?;
    let negative = |index: usize, value: i128| KernelError::NegativeSubsequenceLength {
        position: position_of(lengths.shape(), index),
        value,
        max: size,
    };
    // Each length is read in its own type, with no vector of wide values
    // in between, so that a run over a scratch allocates nothing.
    macro_rules! push_all {
        ($t:ty) => {{
            for (index, raw) in bytes.chunks_exact(std::mem::size_of::<$t>()).enumerate() {
                let mut b = [0u8; std::mem::size_of::<$t>()];
                b.copy_from_slice(raw);
                let value = <$t>::from_le_bytes(b);
                #[allow(unused_comparisons)]
                if value < 0 {
                    return Err(negative(index, value as i128));
                }
                lens.push(clamp(u64::try_from(value).unwrap_or(u64::MAX), size));
            }
        }};
    }
    match ty {
        ElementType::I8 => push_all!(i8),
        ElementType::I16 => push_all!(i16),
        ElementType::I32 => push_all!(i32),
        ElementType::I64 => push_all!(i64),
        ElementType::U8 => push_all!(u8),
        ElementType::U16 => push_all!(u16),
        ElementType::U32 => push_all!(u32),
        ElementType::U64 => push_all!(u64),
        // The packed integer types share bytes between elements and are
        // rare as lengths: they are unpacked the general way.
        _ => {
            let values = lengths.integer_values().ok_or(KernelError::SubsequenceLengthsType { ty })?;
            for (index, value) in values.into_iter().enumerate() {
                if value < 0 {
                    return Err(negative(index, value));
                }
                lens.push(clamp(u64::try_from(value).unwrap_or(u64::MAX), size));
            }
        }
    }
    if lens.len() == lengths.len() {
        Ok(())
    } else {
        Err(KernelError::Internal { op: OP, what: "the lengths read do not match the lengths input" })
    }
}

/// A length clamped to the axis size, with 1 (a one-element reversal)
/// given as 0, so that "moves nothing" has one spelling.
fn clamp(value: u64, size: usize) -> usize {
    let n = usize::try_from(value).map_or(size, |v| v.min(size));
    if n <= 1 {
        0
    } else {
        n
    }
}

/// The index of element `flat` of a tensor of shape `shape`, for messages.
fn position_of(shape: &[usize], flat: usize) -> Vec<usize> {
    let mut rest = flat;
    let mut position = vec![0; shape.len()];
    for (p, &d) in position.iter_mut().zip(shape).rev() {
        if d > 0 {
            *p = rest % d;
            rest /= d;
        }
    }
    position
}

/// The data seen as `[outer, size, inner]`, where `size` is the reversed
/// axis; the line at `(o, i)` has length `lens[o * inner + i]`.
#[derive(Debug)]
struct SubsequencePlan<'a> {
    outer: usize,
    size: usize,
    inner: usize,
    /// Elements to reverse per line, clamped; 0 when nothing moves.
    lens: &'a [usize],
    /// When `inner > 1`, per line, the end (within its block) of the
    /// stretch of lines with its length; else empty.
    ends: &'a [usize],
    /// How many stretches of equal lengths `ends` marks; 0 when `inner`
    /// is 1.
    stretches: usize,
}

/// The shortest average stretch of lines with one length, in elements,
/// that the run player takes. Below it, where lengths change every few
/// lines, each element is moved on its own ([`SubsequencePlan::gather`]):
/// a run costs tens of cycles to list and play, and an element a few.
const MIN_PLAYED_STRETCH: usize = 16;

/// The bytes of input rows one tile of [`SubsequencePlan::gather`] reads,
/// sized to stay in the L1 data cache while every position along the
/// axis is written.
const GATHER_TILE_BYTES: usize = 32 << 10;

/// The most rows along the axis that [`SubsequencePlan::gather`] reads in
/// place: the L1 caches of current x86 and Arm cores hold at least 8 lines
/// of one set, so this many rows cannot evict one another, and copying
/// them first cost 10–15% on 8 rows.
const UNBUFFERED_MAX_ROWS: usize = 8;

impl SubsequencePlan<'_> {
    /// Moves `data` into `out`, which has its type and shape: element by
    /// element when lengths change every few lines along a non-innermost
    /// axis, else as runs.
    fn play(&self, data: &Tensor, out: &mut Tensor, options: &ExecOptions) -> Result<(), KernelError> {
        let ty = data.element_type();
        let scattered = self.inner > 1 && self.stretches.saturating_mul(MIN_PLAYED_STRETCH) > self.lens.len();
        if !scattered || ty == ElementType::String {
            return play(OP, self, data, out, options);
        }
        let internal = KernelError::Internal {
            op: OP,
            what: "the output holds no bytes, or a line left the data or the output",
        };
        let src = data.bytes().ok_or(KernelError::UnsupportedType { op: OP, ty })?;
        let dst = out.bytes_mut().ok_or_else(|| internal.clone())?;
        let done = match ty.byte_width() {
            Some(1) => parallel::for_each_chunk(options, dst, 1, |at, part| self.gather::<1>(src, at, part)),
            Some(2) => parallel::for_each_chunk(options, dst, 2, |at, part| self.gather::<2>(src, at, part)),
            Some(4) => parallel::for_each_chunk(options, dst, 4, |at, part| self.gather::<4>(src, at, part)),
            Some(8) => parallel::for_each_chunk(options, dst, 8, |at, part| self.gather::<8>(src, at, part)),
            _ => return Err(KernelError::UnsupportedType { op: OP, ty }),
        };
        done.ok_or(internal)
    }

    /// Writes output elements `start..` into `dst`, which holds exactly
    /// those elements of `N` bytes, one element at a time: output `(o, k,
    /// i)` of the `[outer, size, inner]` view reads `(o, len - 1 - k, i)`
    /// while `k < len`, the length of line `(o, i)`, else `(o, k, i)`.
    ///
    /// Each output row of a block reads from rows all over its input
    /// block, so the columns go in tiles of at most [`GATHER_TILE_BYTES`]
    /// of input, each written at every position along the axis before the
    /// next is begun. When the axis is longer than [`UNBUFFERED_MAX_ROWS`],
    /// a tile is first copied, row by row, into a buffer on the stack:
    /// input rows a power of two apart fall in the same few sets of the L1
    /// cache and would evict one another, while the buffer's rows lie next
    /// to one another and all stay in it.
    fn gather<const N: usize>(&self, src: &[u8], start: usize, dst: &mut [u8]) -> Option<()> {
        let SubsequencePlan { size, inner, lens, .. } = *self;
        let block = size.checked_mul(inner)?;
        let end = start.checked_add(dst.len() / N)?;
        if block == 0 || !dst.len().is_multiple_of(N) {
            return (start == end && dst.is_empty()).then_some(());
        }
        let tile = (GATHER_TILE_BYTES / (size * N)).max(64 / N).min(inner);
        let mut buffer = [0u8; GATHER_TILE_BYTES];
        let mut at = start;
        while at < end {
            let o = at / block;
            let first = o * block;
            let (a, b) = (at - first, (end - first).min(block));
            let line = lens.get(o * inner..(o + 1) * inner)?;
            let input = src.get(first * N..(first + block) * N)?;
            // The positions along the axis that this chunk writes.
            let (k0, k1) = (a / inner, (b - 1) / inner);
            for t0 in (0..inner).step_by(tile) {
                let t1 = (t0 + tile).min(inner);
                let width = t1 - t0;
                // The tile's rows, one after another, or the input itself
                // when they do not fit or are too few to evict one
                // another.
                let buffered =
                    if size > UNBUFFERED_MAX_ROWS { buffer.get_mut(..size * width * N) } else { None };
                let (rows, pitch, origin) = match buffered {
                    Some(rows) => {
                        for (r, row) in rows.chunks_exact_mut(width * N).enumerate() {
                            let from = (r * inner + t0) * N;
                            row.copy_from_slice(input.get(from..from + width * N)?);
                        }
                        (&*rows, width, t0)
                    }
                    None => (input, inner, 0),
                };
                for k in k0..=k1 {
                    let c0 = t0.max(if k == k0 { a % inner } else { 0 });
                    let c1 = t1.min(if k == k1 { (b - 1) % inner + 1 } else { inner });
                    if c0 >= c1 {
                        continue;
                    }
                    // Output elements `row + c0..row + c1`, counted from
                    // `start`, which may lie inside this row.
                    let row = first + k * inner;
                    let out = dst.get_mut((row + c0 - start) * N..(row + c1 - start) * N)?;
                    for ((o, &len), i) in out.chunks_exact_mut(N).zip(line.get(c0..c1)?).zip(c0 - origin..) {
                        let from = if k < len { len - 1 - k } else { k };
                        let s = (from * pitch + i) * N;
                        o.copy_from_slice(rows.get(s..s + N)?);
                    }
                }
            }
            at = first + b;
        }
        Some(())
    }
}

impl RunPlan for SubsequencePlan<'_> {
    /// A unit is a whole line when lines are contiguous (`inner == 1`),
    /// and otherwise one `inner` slice at one position along the axis.
    fn unit_len(&self) -> usize {
        if self.inner == 1 {
            self.size.max(1)
        } else {
            self.inner.max(1)
        }
    }

    fn units(&self) -> usize {
        if self.inner == 1 {
            self.outer
        } else {
            self.outer * self.size
        }
    }

    fn for_each_run<'s, F: FnMut(Run<'s>) -> Option<()>>(
        &'s self,
        units: Range<usize>,
        emit: F,
    ) -> Option<()> {
        let SubsequencePlan { size, inner, lens, ends, .. } = *self;
        let mut out = Joiner::new(emit);
        if inner == 1 {
            // Lines are rows one after another, each with its own length:
            // the whole range is one rows run.
            let heads = Heads::Each(lens.get(units.clone())?);
            let rows = Some(Rows { row: size, heads, block: 1 });
            out.push(Run { src: units.start * size, len: units.len() * size, reversed: false, rows })?;
            return out.finish();
        }
        // Unit `u` is position `k` of block `o`; each element `i` of it
        // reads position `len - 1 - k` of its own line while `k < len`,
        // else position `k`. A stretch of lines with one length reads one
        // position, and the joiner merges stretches that read the same, so
        // lengths that vary little make few runs.
        let source = |len: usize, k: usize| if k < len { len - 1 - k } else { k };
        let (mut o, mut k) = (units.start / size, units.start % size);
        for _ in units {
            let block = o * inner..(o + 1) * inner;
            let (line, end) = (lens.get(block.clone())?, ends.get(block)?);
            let base = o * size * inner;
            let mut i = 0;
            while let (Some(&len), Some(&stop)) = (line.get(i), end.get(i)) {
                if stop <= i {
                    return None;
                }
                let from = source(len, k);
                out.push(Run { src: base + from * inner + i, len: stop - i, reversed: false, rows: None })?;
                i = stop;
            }
            k += 1;
            if k == size {
                k = 0;
                o += 1;
            }
        }
        out.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_from_the_last_axis() {
        assert_eq!(position_of(&[2, 1, 3], 4), vec![1, 0, 1]);
        assert_eq!(position_of(&[4], 3), vec![3]);
    }

    #[test]
    fn stretches_of_equal_lengths_end_where_the_length_changes() {
        let mut lens = vec![2, 2, 3, 0, 0, 5, 5, 5];
        mark_stretches(&mut lens, 4);
        assert_eq!(&lens[8..], &[2, 2, 3, 4, 1, 4, 4, 4]);
    }

    #[test]
    fn lengths_clamp_and_one_means_nothing() {
        assert_eq!(clamp(1, 4), 0);
        assert_eq!(clamp(9, 4), 4);
        assert_eq!(clamp(u64::MAX, 4), 4);
    }
}
