//! ReverseSubsequences: DirectML's `DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC`.
//! Along one axis, every line of the data reverses its own first
//! `length` elements, each line with a length of its own.
//!
//! It is the general form of ReverseSequence, whose lengths vary along one
//! batch axis only. Both kernels list their output as runs and play them
//! with the same byte-width players; a line with its own length becomes
//! one row of a rows run, so a batch of short lines costs little more than
//! the copy itself. On any other axis, where neighbouring lines rarely
//! share a length, runs would be an element long, so the kernel hands the
//! lines to `kernels::scattered_lines`, which works on cache-sized tiles of
//! columns instead (lines turned around in registers, strips, staged
//! lines, the shifter or the gathers, as the element width, the axis and
//! the CPU pick).
//!
//! This module holds the public functions and types; `reading` reads and
//! checks the lengths, `planning` works out the plan for a shape (runs or
//! scattered lines), `runs` lists a plan's output as runs, and `tuning`
//! holds the constant that chooses between the two.

mod planning;
mod reading;
mod runs;
mod tuning;

use ovir_tensor::{ElementType, Tensor};

use super::checks::check_output;
use super::copy::{ReverseCopier, TRANSPOSED_ROWS};
use super::counts::{narrow_counts, Count, Lengths};
use super::packed::{KeepsUnpacked, Unpacked};
use super::run_plan::{copy_all, product};
use super::scattered_lines::ScatteredLines;
use super::{packed, ExecOptions, KernelError};
use planning::{prepare, prepare_for, SubsequencePlan};

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
    if narrow_counts(largest_count(data.shape(), axis)) {
        reverse_subsequences_with::<u32>(data, lengths, axis)
    } else {
        reverse_subsequences_with::<usize>(data, lengths, axis)
    }
}

/// [`reverse_subsequences`] with the lengths kept as `C`.
fn reverse_subsequences_with<C: Count>(
    data: &Tensor,
    lengths: &Tensor,
    axis: i64,
) -> Result<Tensor, KernelError> {
    let mut lens = Vec::<C>::new();
    let Some(plan) = prepare(data, lengths, axis, &mut lens)? else {
        return Ok(data.clone());
    };
    let mut out = Tensor::zeros(data.element_type(), data.shape())?;
    plan.play(data, &mut out, &ExecOptions::single_thread(), None)?;
    Ok(out)
}

/// What [`reverse_subsequences_into`] and
/// [`reverse_subsequences_checked_into`] keep between calls, so that
/// running them again on inputs of the same size allocates nothing: the
/// lengths read on each call, and packed sub-byte data unpacked. What a
/// call writes never depends on what the scratch held before.
#[derive(Clone, Debug, Default)]
pub struct ReverseSubsequencesScratch {
    /// Elements to reverse per line, as read, when every count the call
    /// keeps fits 32 bits, and where each stretch of equal lengths ends.
    lengths: Vec<u32>,
    /// The same for an axis or lines too long for 32-bit counts.
    wide_lengths: Vec<usize>,
    /// Packed sub-byte data unpacked, and moved.
    unpacked: Option<Box<Unpacked>>,
}

impl ReverseSubsequencesScratch {
    /// An empty scratch; it allocates on first use and then keeps its
    /// memory.
    pub const fn new() -> ReverseSubsequencesScratch {
        ReverseSubsequencesScratch { lengths: Vec::new(), wide_lengths: Vec::new(), unpacked: None }
    }
}

impl KeepsUnpacked for ReverseSubsequencesScratch {
    fn unpacked(&mut self) -> &mut Option<Box<Unpacked>> {
        &mut self.unpacked
    }
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
    scratch: &mut ReverseSubsequencesScratch,
) -> Result<(), KernelError> {
    into(data, Lengths::Given(lengths), axis, out, options, scratch)
}

/// ReverseSubsequences lengths read and checked once, for data of a shape
/// known ahead: a model whose lengths are a constant.
/// [`reverse_subsequences_checked_into`] then runs without reading them
/// again, which for a length per line is a pass over a quarter to half as
/// many bytes as `u8` data, and on the innermost axis a copy of them and a
/// pass that marks where each stretch of equal lengths ends.
///
/// ```
/// use ovir_exec::kernels::{
///     reverse_subsequences_checked_into, CheckedSubsequenceLengths, ExecOptions, ReverseSubsequencesScratch,
/// };
/// use ovir_tensor::{ElementType, Tensor};
///
/// // DirectML's first example: each row has its own length.
/// let lengths = Tensor::from_vec(&[1, 1, 3, 1], vec![2u32, 4, 3])?;
/// let checked =
///     CheckedSubsequenceLengths::new(&lengths, ElementType::F32, &[1, 1, 3, 4], 3)?.expect("counts of 32 bits");
/// let data = Tensor::from_vec(&[1, 1, 3, 4], (1..=12).map(|v| v as f32).collect())?;
/// let mut out = Tensor::zeros(data.element_type(), data.shape())?;
/// let options = ExecOptions::single_thread();
/// reverse_subsequences_checked_into(&data, &checked, 3, &mut out, &options, &mut ReverseSubsequencesScratch::new())?;
/// assert_eq!(
///     out.to_vec::<f32>()?,
///     vec![2.0, 1.0, 3.0, 4.0, 8.0, 7.0, 6.0, 5.0, 11.0, 10.0, 9.0, 12.0]
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct CheckedSubsequenceLengths {
    /// The lengths as given, read again for data of other shapes.
    lengths: Tensor,
    /// The data's shape and axis they were checked for, and whether the
    /// data are strings, which always go as runs.
    shape: Vec<usize>,
    axis: i64,
    strings: bool,
    /// What the plan keeps of them; `None` when no line moves, or the
    /// data are empty.
    plan: Option<CheckedPlan>,
}

/// The lengths as [`SubsequencePlan`] keeps them, owned.
#[derive(Clone, Debug)]
struct CheckedPlan {
    outer: usize,
    size: usize,
    inner: usize,
    /// The counts, one per line, then where each stretch ends when the
    /// plan marks them.
    counts: Vec<u32>,
    /// The counts a byte each, where lengths change every few lines along
    /// an axis of up to [`TRANSPOSED_ROWS`]: the lines transposed in
    /// registers read them a quarter as wide.
    bytes: Option<Vec<u8>>,
    scattered: bool,
}

impl CheckedSubsequenceLengths {
    /// Reads and checks `lengths` for data of element type `ty` and shape
    /// `shape` reversed along `axis`, with the errors
    /// [`reverse_subsequences`] gives for them and for that type, shape
    /// and axis. `None` when the counts kept for that
    /// shape do not fit 32 bits; such data reads its lengths on every run.
    pub fn new(
        lengths: &Tensor,
        ty: ElementType,
        shape: &[usize],
        axis: i64,
    ) -> Result<Option<CheckedSubsequenceLengths>, KernelError> {
        if !narrow_counts(largest_count(shape, axis)) {
            return Ok(None);
        }
        let mut lens = Vec::<u32>::new();
        let plan = prepare_for(ty, shape, lengths, axis, &mut lens)?.map(|plan| CheckedPlan {
            outer: plan.outer,
            size: plan.size,
            inner: plan.inner,
            counts: plan.lens.iter().chain(plan.ends).copied().collect(),
            // Each at most the axis, so a byte holds it.
            bytes: (plan.scattered && plan.size <= TRANSPOSED_ROWS)
                .then(|| plan.lens.iter().map(|&n| n as u8).collect()),
            scattered: plan.scattered,
        });
        let strings = ty == ElementType::String;
        Ok(Some(CheckedSubsequenceLengths {
            lengths: lengths.clone(),
            shape: shape.to_vec(),
            axis,
            strings,
            plan,
        }))
    }
}

/// [`reverse_subsequences_into`] with lengths read and checked ahead. Data
/// of another shape, strings where they were checked for other data or
/// the other way round, or the axis spelled otherwise than when they were
/// checked (from the end instead of the start) read them again, as
/// [`reverse_subsequences_into`] does.
pub fn reverse_subsequences_checked_into(
    data: &Tensor,
    lengths: &CheckedSubsequenceLengths,
    axis: i64,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut ReverseSubsequencesScratch,
) -> Result<(), KernelError> {
    into(data, Lengths::Checked(lengths), axis, out, options, scratch)
}

/// [`reverse_subsequences_into`] and [`reverse_subsequences_checked_into`].
fn into(
    data: &Tensor,
    lengths: Lengths<'_, CheckedSubsequenceLengths>,
    axis: i64,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut ReverseSubsequencesScratch,
) -> Result<(), KernelError> {
    if packed::applies(data.element_type()) {
        return packed::run_into(OP, data, out, scratch, |codes, moved, scratch| {
            into(codes, lengths, axis, moved, options, scratch)
        });
    }
    check_output(OP, data.element_type(), data.shape(), out)?;
    let lengths = match lengths {
        Lengths::Given(lengths) => lengths,
        Lengths::Checked(checked) => {
            let same = checked.shape == data.shape()
                && checked.axis == axis
                && checked.strings == (data.element_type() == ElementType::String);
            if same {
                let Some(plan) = &checked.plan else {
                    return copy_all(OP, data, out, options);
                };
                let lines = plan.outer * plan.inner;
                let (lens, ends) = plan.counts.split_at_checked(lines).ok_or(KernelError::Internal {
                    op: OP,
                    what: "the lengths checked do not match the number of lines",
                })?;
                let CheckedPlan { outer, size, inner, scattered, .. } = *plan;
                // Lines transposed in registers read the counts a byte each
                // (kept only for scattered lines, never for strings).
                if let (Some(bytes), Some(n)) = (&plan.bytes, data.element_type().byte_width()) {
                    let lens = bytes.as_slice();
                    let narrow = ScatteredLines { size, inner, lens };
                    if data.element_type() != ElementType::String
                        && narrow.takes_transposed(ReverseCopier::detect(), n)
                    {
                        return narrow.play(OP, data, out, options, None);
                    }
                }
                return SubsequencePlan { outer, size, inner, lens, ends, scattered }
                    .play(data, out, options, None);
            }
            // Data of another shape reads the lengths again.
            &checked.lengths
        }
    };
    if narrow_counts(largest_count(data.shape(), axis)) {
        reverse_subsequences_in(data, lengths, axis, out, options, &mut scratch.lengths)
    } else {
        reverse_subsequences_in(data, lengths, axis, out, options, &mut scratch.wide_lengths)
    }
}

/// [`reverse_subsequences_into`] with the lengths kept as `C` in `lens`.
fn reverse_subsequences_in<C: Count>(
    data: &Tensor,
    lengths: &Tensor,
    axis: i64,
    out: &mut Tensor,
    options: &ExecOptions,
    lens: &mut Vec<C>,
) -> Result<(), KernelError> {
    match prepare(data, lengths, axis, lens)? {
        Some(plan) => plan.play(data, out, options, None),
        None => copy_all(OP, data, out, options),
    }
}

/// The largest count a plan keeps: a length is at most the size of the
/// axis, and the end of a stretch of lines at most the lines per block. 0
/// for an axis out of range, which [`prepare`] reports.
fn largest_count(shape: &[usize], axis: i64) -> usize {
    let Some(axis) = ovir_tensor::normalize_axis(axis, shape.len()) else {
        return 0;
    };
    let size = shape.get(axis).copied().unwrap_or(0);
    size.max(shape.get(axis + 1..).map_or(1, product))
}

/// The shape `lengths` must have for data of shape `data` reversed along
/// `axis`: the data's, with 1 at `axis`.
pub fn subsequence_lengths_shape(data: &[usize], axis: usize) -> Vec<usize> {
    data.iter().enumerate().map(|(i, &d)| if i == axis { 1 } else { d }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_lengths_are_played_as_checked_without_reading_the_lengths_again() {
        let data = Tensor::from_vec(&[1, 4, 2], (0..8).collect::<Vec<i32>>()).unwrap();
        let constant = Tensor::from_vec(&[1, 1, 2], vec![4u32, 2]).unwrap();
        let mut checked =
            CheckedSubsequenceLengths::new(&constant, ElementType::I32, &[1, 4, 2], 1).unwrap().unwrap();
        // The tensor behind the check swapped for other lengths, which
        // only a read would see.
        checked.lengths = Tensor::from_vec(&[1, 1, 2], vec![0u32, 3]).unwrap();
        let mut out = Tensor::zeros(data.element_type(), data.shape()).unwrap();
        let options = ExecOptions::single_thread();
        reverse_subsequences_checked_into(
            &data,
            &checked,
            1,
            &mut out,
            &options,
            &mut ReverseSubsequencesScratch::new(),
        )
        .unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), [6, 3, 4, 1, 2, 5, 0, 7]);
        // The axis spelled from the end reads them, the swapped ones.
        let mut out = Tensor::zeros(data.element_type(), data.shape()).unwrap();
        reverse_subsequences_checked_into(
            &data,
            &checked,
            -2,
            &mut out,
            &options,
            &mut ReverseSubsequencesScratch::new(),
        )
        .unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), [0, 5, 2, 3, 4, 1, 6, 7]);
    }

    #[test]
    fn wide_counts_move_what_narrow_ones_do() {
        // Lines along the innermost axis (one rows run), lengths that
        // change on every line (shifted or gathered, by width), and
        // lengths in long stretches (runs).
        let scrambled: Vec<i64> = (0..8 * 40).map(|i| (i * 5 + i / 7) % 11).collect();
        let stretches: Vec<i64> = (0..4 * 64).map(|i| (i / 20) % 6).collect();
        let cases: [(&[usize], i64, &[i64]); 4] = [
            (&[6, 5], 1, &[3, 0, 5, 2, 9, 4]),
            (&[9, 8, 40], 0, &scrambled),
            (&[4, 5, 64], -2, &stretches),
            (&[2, 3, 2, 2], 2, &[2, 0, 1, 2, 2, 2, 0, 2, 1, 1, 2, 2]),
        ];
        let threads = ExecOptions { threads: 2, min_bytes_per_thread: 1 };
        for (shape, axis, lens) in cases {
            let rank = shape.len();
            let at = ovir_tensor::normalize_axis(axis, rank).unwrap();
            let lengths = Tensor::from_vec(&subsequence_lengths_shape(shape, at), lens.to_vec()).unwrap();
            for ty in
                [ElementType::U8, ElementType::I16, ElementType::F32, ElementType::U64, ElementType::String]
            {
                let data = super::super::testing::distinct(ty, shape);
                let mut narrow = Tensor::zeros(ty, shape).unwrap();
                let mut wide = Tensor::zeros(ty, shape).unwrap();
                reverse_subsequences_in(&data, &lengths, axis, &mut narrow, &threads, &mut Vec::<u32>::new())
                    .unwrap();
                reverse_subsequences_in(&data, &lengths, axis, &mut wide, &threads, &mut Vec::<usize>::new())
                    .unwrap();
                assert_eq!(wide, narrow, "{shape:?}, axis {axis}, {ty:?}");
                let whole = reverse_subsequences_with::<usize>(&data, &lengths, axis).unwrap();
                assert_eq!(whole, narrow, "{shape:?}, axis {axis}, {ty:?}");
            }
        }
        // DirectML's first example, as in `reverse_subsequences`.
        let data = Tensor::from_vec(&[1, 1, 3, 4], (1..=12).map(|v| v as f32).collect()).unwrap();
        let lengths = Tensor::from_vec(&[1, 1, 3, 1], vec![2u32, 4, 3]).unwrap();
        let out = reverse_subsequences_with::<usize>(&data, &lengths, 3).unwrap();
        assert_eq!(
            out.to_vec::<f32>().unwrap(),
            vec![2.0, 1.0, 3.0, 4.0, 8.0, 7.0, 6.0, 5.0, 11.0, 10.0, 9.0, 12.0]
        );
    }

    #[test]
    fn counts_are_narrow_while_the_axis_and_the_lines_per_block_fit_32_bits() {
        let data = Tensor::from_vec(&[3, 4, 5], vec![0u8; 60]).unwrap();
        assert_eq!(largest_count(data.shape(), 0), 20);
        assert_eq!(largest_count(data.shape(), 1), 5);
        assert_eq!(largest_count(data.shape(), -1), 5);
        assert_eq!(largest_count(data.shape(), 3), 0);
        assert!(narrow_counts(u32::MAX as usize));
        assert!(!narrow_counts(u32::MAX as usize + 1));
    }
}
