//! ReverseSequence-1: reverse the first `lengths[b]` elements along one axis,
//! separately for every index `b` of another axis.
//!
//! This module holds the public functions and types. The rest is split by
//! job: `reading` reads and checks the lengths, `planning` sees the data as
//! `[outer, lo, mid, hi, inner]` around the two axes, `strategy` picks the
//! loop that plays a plan of a given shape, and `runs`, `blocks` and
//! `heads` are those loops (runs handed to the run players, a block at a
//! time, and heads or line lengths written out for rows and for
//! `kernels::scattered_lines`). `tuning` holds every constant that picks
//! between them, each with the measurement behind it.

mod blocks;
mod heads;
mod planning;
mod reading;
mod runs;
mod strategy;
mod tuning;

use ovir_shape::ops::reverse_sequence::sequence_axes;
use ovir_tensor::Tensor;

use super::checks::check_output;
use super::counts::{narrow_counts, Count, Lengths};
use super::packed::{KeepsUnpacked, Unpacked};
use super::{packed, ExecOptions, KernelError};
use heads::RowHeads;
use planning::{axes, finish, prepare};
use reading::{read_lengths, LengthsRead};
use strategy::play_or_copy;
use tuning::BYTE_HEADS_MAX_SEQ;

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
    /// an eighth to a quarter ([`BYTE_HEADS_MAX_SEQ`] says what that
    /// gains).
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

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_tensor::ElementType;

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
}
