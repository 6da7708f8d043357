//! ReverseSubsequences: DirectML's `DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC`.
//! Along one axis, every line of the data reverses its own first
//! `length` elements, each line with a length of its own.
//!
//! It is the general form of ReverseSequence, whose lengths vary along one
//! batch axis only. Both kernels list their output as runs and play them
//! with the same byte-width players; a line with its own length becomes
//! one row of a rows run, so a batch of short lines costs little more than
//! the copy itself. On any other axis, where neighbouring lines rarely
//! share a length, runs would be an element long, so the kernel works on
//! cache-sized tiles of columns instead. With AVX2, axes of up to 8 rows
//! are turned into lines and back in registers, a register of columns at a
//! time, each line's head reversed by one shuffle, and 8-byte elements on
//! longer axes (1- and 2-byte ones on axes of over 255 rows, 4-byte ones
//! on axes of over 2048, or of over 64 with 1024 columns or more) go
//! through lines staged in a buffer; 1- and 2-byte elements on axes of
//! 16 to 255 rows are shifted by byte-wise selects, `log2(size)` per row,
//! one register of columns at a time; other 1-byte elements are shifted a
//! whole row at a time, and the rest are gathered from a buffer. With
//! AVX-512, whose registers are a cache line, the byte-wise selects read
//! and write the data in place, and take 8-byte elements on axes of 16 to
//! 255 rows, in lines of at least 512 bytes, as well.

use std::ops::Range;

use ovir_tensor::{ElementType, Tensor};

use super::checks::{check_movable, check_output};
use super::copy::{line_group, line_pitch, ReverseCopier, RunWriter, SubsequenceStrip, TRANSPOSED_ROWS};
use super::counts::{narrow_counts, Count, Lengths};
use super::counts::{read_integers, scan_integers, Integer};
use super::packed::{KeepsUnpacked, Unpacked};
use super::run_plan::{copy_all, play_as, product, Joiner, Rows, Run, RunPlan};
use super::{packed, parallel, ExecOptions, KernelError};

const OP: &str = "ReverseSubsequences";

pub use ovir_shape::ops::reverse_subsequences::MAX_SUBSEQUENCE_RANK;
use ovir_shape::ops::reverse_subsequences::{
    check_subsequences, for_each_subsequence_length, subsequence_length,
};

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
                // Lines transposed in registers read the counts a byte each.
                if let (Some(bytes), Some(n)) = (&plan.bytes, data.element_type().byte_width()) {
                    let lens = bytes.as_slice();
                    let narrow = SubsequencePlan { outer, size, inner, lens, ends: &[], scattered };
                    if data.element_type() != ElementType::String
                        && narrow.takes_transposed(ReverseCopier::detect(), n)
                    {
                        return narrow.play(data, out, options, None);
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

/// Moves `data` into `out` (of its type and shape, checked by the caller)
/// as ReverseSubsequences moves data seen as `[outer, size, inner]` whose
/// line `(o, i)` has the length `lens[o * inner + i]`, each at most `size`:
/// through the kernels for lengths that change every few lines
/// ([`SubsequencePlan::play`]), which take any lengths, with elements of
/// `width` bytes (the data's own, or 2, 4 or 8 bytes of them that move
/// together). For ReverseSequence, whose lengths are lines' lengths too,
/// where its own runs would be a few elements each.
pub(super) fn play_lines<C: Count>(
    data: &Tensor,
    out: &mut Tensor,
    options: &ExecOptions,
    (outer, size, inner): (usize, usize, usize),
    lens: &[C],
    width: usize,
) -> Result<(), KernelError> {
    let elements = outer.checked_mul(size).and_then(|n| n.checked_mul(inner));
    let fits = inner > 1
        && data.element_type() != ElementType::String
        && outer.checked_mul(inner) == Some(lens.len())
        && elements.and_then(|n| n.checked_mul(width)) == data.bytes().map(<[u8]>::len);
    if !fits {
        return Err(KernelError::Internal { op: OP, what: "the lines do not match the data" });
    }
    SubsequencePlan { outer, size, inner, lens, ends: &[], scattered: true }.play(
        data,
        out,
        options,
        Some(width),
    )
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

/// Validates the inputs, reads the lengths into `lens` (or uses them
/// where they are stored, see [`stored_lengths`]) and builds the plan;
/// `None` when the output equals the input.
fn prepare<'a, C: Count>(
    data: &Tensor,
    lengths: &'a Tensor,
    axis: i64,
    lens: &'a mut Vec<C>,
) -> Result<Option<SubsequencePlan<'a, C>>, KernelError> {
    prepare_for(data.element_type(), data.shape(), lengths, axis, lens)
}

/// [`prepare`] for data of element type `ty` and shape `shape`, which is
/// all it asks of the data.
fn prepare_for<'a, C: Count>(
    ty: ElementType,
    shape: &[usize],
    lengths: &'a Tensor,
    axis: i64,
    lens: &'a mut Vec<C>,
) -> Result<Option<SubsequencePlan<'a, C>>, KernelError> {
    let empty = shape.contains(&0);
    let axis = check_subsequences(shape, lengths, axis)?;
    check_movable(OP, ty)?;
    let size = shape.get(axis).copied().unwrap_or(0);
    let outer = shape.get(..axis).map_or(1, product);
    let inner = shape.get(axis + 1..).map_or(1, product);
    let lines = outer * inner;
    // Lengths of 32 bits that change every few lines are used where they
    // are stored, when they all lie within the axis: such lines need no
    // stretches marked after their lengths. Whether they change every few
    // lines is told from them as stored, once.
    let stored = stored_lengths::<C>(lengths)
        .filter(|stored| inner > 1 && stored.len() == lines && ty != ElementType::String);
    let scattered_as_stored = stored.map(|stored| is_scattered(stored, inner));
    if let (Some(stored), Some(true)) = (stored, scattered_as_stored) {
        if let Some(moves) = within_axis(lengths, size) {
            if empty || !moves {
                return Ok(None);
            }
            return Ok(Some(SubsequencePlan {
                outer,
                size,
                inner,
                lens: stored,
                ends: &[],
                scattered: true,
            }));
        }
    }
    let moves = read_lengths(lengths, size, lens)?;
    if empty || !moves {
        return Ok(None);
    }
    if lens.len() != lines {
        return Err(KernelError::Internal {
            op: OP,
            what: "the lengths read do not match the number of lines",
        });
    }
    // Lines whose lengths change every few lines are shifted or gathered,
    // and need no stretches; else the runs need them, as strings always
    // do.
    let scattered = inner > 1 && scattered_as_stored.unwrap_or_else(|| is_scattered(lens, inner));
    if inner > 1 && (!scattered || ty == ElementType::String) {
        mark_stretches(lens, inner).ok_or(KernelError::Internal {
            op: OP,
            what: "the end of a stretch of lines does not fit its count",
        })?;
    }
    let (lens, ends) = lens.split_at(lines);
    Ok(Some(SubsequencePlan { outer, size, inner, lens, ends, scattered }))
}

/// Whether the lengths, per block of `inner`, form more than one stretch
/// of equal lengths per [`MIN_PLAYED_STRETCH`] lines on average: counted
/// only until that is known, so that lengths which change on every line
/// are read just far enough to tell.
fn is_scattered<C: Count>(lens: &[C], inner: usize) -> bool {
    let limit = lens.len() / MIN_PLAYED_STRETCH;
    let mut stretches = 0;
    for block in lens.chunks(inner) {
        stretches += 1;
        // A long block is counted a piece at a time (each piece sharing
        // its first line with the one before), so that the count stops
        // soon after the limit: along the first axis, one block holds
        // every line.
        let mut at = 0;
        while let Some(piece) = block.get(at..block.len().min(at + 1024)) {
            if piece.len() < 2 {
                break;
            }
            stretches += piece.windows(2).filter(|w| w.first() != w.get(1)).count();
            if stretches > limit {
                return true;
            }
            at += piece.len() - 1;
        }
        if stretches > limit {
            return true;
        }
    }
    false
}

/// Appends to the `n` lengths in `lens`, per block of `inner`, where the
/// stretch of equal lengths each one belongs to ends (an index within the
/// block), so that a plan steps over a stretch at once instead of testing
/// its lengths one by one at every position along the axis. `None` when
/// an end does not fit `C`.
fn mark_stretches<C: Count>(lens: &mut Vec<C>, inner: usize) -> Option<()> {
    let n = lens.len();
    lens.resize(2 * n, C::new(0)?);
    let (values, ends) = lens.split_at_mut(n);
    for (row, end) in values.chunks(inner).zip(ends.chunks_mut(inner)) {
        let mut stop = inner;
        for i in (0..row.len()).rev() {
            if row.get(i + 1).is_some_and(|&next| Some(&next) != row.get(i)) {
                stop = i + 1;
            }
            if let Some(e) = end.get_mut(i) {
                *e = C::new(stop)?;
            }
        }
    }
    Some(())
}

/// Reads the lengths into `lens` (emptied first), in the lengths' element
/// order: each clamped to `size`, which must fit `C`, and 0 for the
/// lengths 0 and 1, which move nothing. Tells whether any length moves an
/// element. The rule for each length is `ovir_shape`'s
/// ([`subsequence_length`]); integer lengths of whole bytes are read in a
/// loop of their own, which only flags a negative length and leaves it to
/// that rule to say what is wrong.
fn read_lengths<C: Count>(lengths: &Tensor, size: usize, lens: &mut Vec<C>) -> Result<bool, KernelError> {
    let ty = lengths.element_type();
    lens.clear();
    // Twice the lengths: the stretches they fall into are marked after them.
    super::error::try_reserve(lens, lengths.len().saturating_mul(2), OP, "lengths")?;
    let bytes = lengths.bytes().ok_or(KernelError::UnsupportedType { op: OP, ty })?;
    let mut any = 0;
    // Integer lengths are read in one pass with no branch per value, and
    // read again only to report the first negative one.
    let limit = u64::try_from(size).unwrap_or(u64::MAX);
    macro_rules! push_all {
        ($t:ty) => {{
            let scan = read_integers::<$t, C>(bytes, limit, true, lens);
            if scan.bad {
                return Err(first_negative::<$t>(bytes, lengths.shape()));
            }
            any = usize::from(scan.moves);
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
        // rare as lengths: they are read the general way.
        _ => for_each_subsequence_length(lengths, |value| {
            let n = clamp(value, size);
            any |= n;
            // At most `size`, which `C` was chosen to hold.
            lens.push(C::narrow(n as u64));
        })?,
    }
    if lens.len() == lengths.len() {
        Ok(any != 0)
    } else {
        Err(KernelError::Internal { op: OP, what: "the lengths read do not match the lengths input" })
    }
}

/// Why the first negative one of the lengths (of shape `shape`) stored as
/// little-endian `T`s in `bytes` is wrong, in the words of
/// [`subsequence_length`], for lengths that [`read_integers`] flagged.
#[cold]
fn first_negative<T: Integer>(bytes: &[u8], shape: &[usize]) -> KernelError {
    let mut values = bytes.chunks_exact(T::WIDTH).map(T::read_le).enumerate();
    match values.find_map(|(index, value)| subsequence_length(shape, index, value.wide()).err()) {
        Some(wrong) => wrong.into(),
        None => KernelError::Internal { op: OP, what: "a length was flagged as negative, but none is" },
    }
}

/// The lengths where they are stored, when they are 32-bit integers
/// (`i32` or `u32`) on a 4-byte boundary and `C` is narrow; `None`
/// otherwise. They are usable as counts once [`within_axis`] has checked
/// them: a stored 1 is kept as it is, and moves nothing in every kernel
/// that reads it, as reversing one element leaves it where it is. On `[8,
/// 64, 128, 128]` along axis 0, the lengths are half the bytes of `u8`
/// data, and reading them into a buffer of their own was a pass over them
/// and a buffer as large again.
fn stored_lengths<C: Count>(lengths: &Tensor) -> Option<&[C]> {
    if !matches!(lengths.element_type(), ElementType::I32 | ElementType::U32) {
        return None;
    }
    // The stored bytes are little-endian: as `u32`s they are the values
    // only on a little-endian machine.
    bytemuck::try_cast_slice::<u8, u32>(lengths.bytes()?)
        .ok()
        .filter(|_| cfg!(target_endian = "little"))
        .and_then(C::from_u32)
}

/// Whether any of the 32-bit lengths (`i32` or `u32`) moves an element,
/// when all of them lie from 0 to `size`; `None` when one does not, or
/// the lengths are of another type.
fn within_axis(lengths: &Tensor, size: usize) -> Option<bool> {
    let bytes = lengths.bytes()?;
    let limit = u64::try_from(size).ok()?;
    let scan = match lengths.element_type() {
        ElementType::I32 => scan_integers::<i32>(bytes, limit, false),
        ElementType::U32 => scan_integers::<u32>(bytes, limit, false),
        _ => return None,
    };
    (!scan.bad).then_some(scan.moves)
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

/// The data seen as `[outer, size, inner]`, where `size` is the reversed
/// axis; the line at `(o, i)` has length `lens[o * inner + i]`.
#[derive(Debug)]
struct SubsequencePlan<'a, C> {
    outer: usize,
    size: usize,
    inner: usize,
    /// Elements to reverse per line, clamped; 0 when nothing moves.
    lens: &'a [C],
    /// When `inner > 1` and the lines are played as runs, per line, the
    /// end (within its block) of the stretch of lines with its length;
    /// else empty.
    ends: &'a [C],
    /// Whether lengths change every few lines along a non-innermost axis
    /// ([`is_scattered`]); `ends` is then empty, except for strings, which
    /// are always played as runs.
    scattered: bool,
}

/// The shortest average stretch of lines with one length, in elements,
/// that the run player takes. Below it, where lengths change every few
/// lines, each element is moved on its own ([`SubsequencePlan::gather`]):
/// a run costs tens of cycles to list and play, and an element a few.
const MIN_PLAYED_STRETCH: usize = 16;

/// The bytes of one tile of [`SubsequencePlan::shift`]'s buffer: the
/// buffer, its masks and the input rows it reads all stay in a 32 KiB L1
/// data cache.
const SHIFT_TILE_BYTES: usize = 8 << 10;

/// The longest axis [`SubsequencePlan::shift`] takes: its tile of the
/// whole axis, 32 bytes wide, fills the buffer. Longer axes go to
/// [`SubsequencePlan::gather`].
const SHIFT_MAX_SIZE: usize = SHIFT_TILE_BYTES / 32;

/// The most passes [`SubsequencePlan::shift`] makes: the bits of the
/// largest shift on the longest axis it takes.
const SHIFT_MAX_PASSES: usize = (usize::BITS - (SHIFT_MAX_SIZE - 1).leading_zeros()) as usize;

/// The widest rows [`SubsequencePlan::shift`] works on.
const SHIFT_MAX_ROW: usize = 1024;

/// The narrowest lines, in bytes, that [`SubsequencePlan::shift`] takes:
/// its rows are at least 32 bytes, and lines much narrower would leave most
/// of each row idle.
const SHIFT_MIN_LINE_BYTES: usize = 8;

/// The bytes of input rows one tile of [`SubsequencePlan::gather`] reads,
/// sized to stay in a 512 KiB L2 cache while every position along the axis
/// is written. With the vector gathers going row by row, 128 KiB measured
/// 5–10% faster than 32 KiB on `f32` (wider tiles make longer stretches
/// of each row), and
/// on `[8, 64, 128, 128]` along axis 2 it holds a whole `i64` block.
const GATHER_TILE_BYTES: usize = 128 << 10;

thread_local! {
    /// The buffer [`SubsequencePlan::lines`] stages its lines in, one per
    /// thread, kept from one run to the next: up to [`LINES_MAX_BYTES`],
    /// too large for a thread's stack. [`SubsequencePlan::strips`] keeps
    /// its stages in it too (about 180 KiB): on the calling thread, which
    /// runs one thread's share of every run, they are no longer zeroed on
    /// every run (a worker thread starts with an empty buffer).
    static LINES: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The fewest bytes of each input row that a tile of
/// [`SubsequencePlan::lines`] reads, where its lines would fit the L2 cache
/// with fewer: rows that lie far apart come from memory at a cost per
/// access, and on time-major `[4096, 512]` `f32` tiles of 256 bytes took
/// 3.8–6.7 ms where tiles of one cache line (64 bytes), whose lines fit
/// the L2 cache, took 6.8–8.9; 128 bytes took 5.1–6.3 ms, and 512 bytes
/// measured level with 256. Past 4096 rows, [`LINES_MAX_BYTES`] leaves
/// fewer bytes of each row.
const LINES_MIN_ROW_BYTES: usize = 256;

/// The most bytes [`SubsequencePlan::lines`] stages at once: 256 bytes of
/// each row on an axis of 4096 rows. Tiles of 1 KiB per row on that axis
/// (4 MiB of lines) took 8.2–12.2 ms.
const LINES_MAX_BYTES: usize = LINES_MIN_ROW_BYTES * (4096 + 8);

/// Whether [`SubsequencePlan::lines`] beats the other kernels on an axis
/// of `size` rows with `inner` columns of `n`-byte elements, as
/// [`SubsequencePlan::takes_lines`] explains, and a tile fits
/// ([`lines_tile`]).
pub(super) fn lines_win(n: usize, size: usize, inner: usize) -> bool {
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

/// The most rows on which 4-byte elements keep the gathers where those
/// stage the axis, in rows of at least [`LINES_WIDE_MIN_COLUMNS`]
/// columns; past it [`SubsequencePlan::lines`] takes them. Time-major
/// `f32` took 3.6 ms through the lines against 7.5 through the gathers on
/// `[1024, 2048]`, 4.0 against 4.1 on `[256, 8192]` and 3.9 against 4.2
/// on `[128, 16384]` (medians of three, a busy host). The gathers stay
/// faster on `[8, 64, 128, 128]` along axis 1 (64 rows of 16384 columns)
/// and along axis 2 (128 rows of 128 columns: 9.2 ms against 13.1
/// through the lines). Axes of 65 to 127 rows, and rows of 129 to 1023
/// columns, were not measured.
const LINES_WIDE_MIN_ROWS: usize = 64;

/// See [`LINES_WIDE_MIN_ROWS`].
const LINES_WIDE_MIN_COLUMNS: usize = 1024;

/// The columns per tile of [`SubsequencePlan::lines`] for `n`-byte
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

/// A cache line's bytes: the columns of [`SubsequencePlan::gather`]'s
/// tiles come in whole lines, and going down the tile, its rows lie an odd
/// number of lines apart.
const LINE: usize = 64;

impl<C: Count> SubsequencePlan<'_, C> {
    /// Moves `data` into `out`, which has its type and shape. When lengths
    /// change every few lines along a non-innermost axis, as lines in
    /// registers ([`SubsequencePlan::transposed`]) where they take the
    /// plan, else in strips ([`SubsequencePlan::strips`]) or as lines
    /// staged in a buffer ([`SubsequencePlan::lines`]) where they do, else
    /// through the shifter ([`SubsequencePlan::shift`]) where it does,
    /// else by the gathers ([`SubsequencePlan::gather`]); otherwise as
    /// runs. Elements are `width` bytes each (`None`: the data's own).
    fn play(
        &self,
        data: &Tensor,
        out: &mut Tensor,
        options: &ExecOptions,
        width: Option<usize>,
    ) -> Result<(), KernelError> {
        let ty = data.element_type();
        if !self.scattered || ty == ElementType::String {
            return play_as(OP, self, data, out, options, width);
        }
        let internal = KernelError::Internal {
            op: OP,
            what: "the output holds no bytes, or a line left the data or the output",
        };
        let src = data.bytes().ok_or(KernelError::UnsupportedType { op: OP, ty })?;
        let dst = out.bytes_mut().ok_or_else(|| internal.clone())?;
        let copier = ReverseCopier::detect();
        // Of these loops the strips and the vector gathers stream their
        // stores.
        let stream = dst.len() >= SCATTERED_STREAM_MIN_BYTES;
        macro_rules! each_chunk {
            ($n:literal, $t:ty) => {
                parallel::for_each_costly_chunk(options, dst, $n, scattered_cost($n), |at, part| {
                    if self.takes_transposed(copier, $n) {
                        return self.transposed::<$n>(copier, src, at, part);
                    }
                    if self.takes_strips(copier, $n) {
                        return self.strips(copier, stream, $n, src, at, part);
                    }
                    if self.takes_lines(copier, $n) {
                        return self.lines::<$n>(copier, src, at, part);
                    }
                    match self.shift_row(copier, $n) {
                        Some(row) => self.shift_any(copier, row, $n, src, at, part),
                        None => self.gather::<$t>(copier, stream, src, at, part),
                    }
                })
            };
        }
        let done = match width.or(ty.byte_width()) {
            Some(1) => each_chunk!(1, u8),
            Some(2) => each_chunk!(2, u16),
            Some(4) => each_chunk!(4, u32),
            Some(8) => each_chunk!(8, u64),
            _ => return Err(KernelError::UnsupportedType { op: OP, ty }),
        };
        done.ok_or(internal)
    }

    /// Whether [`SubsequencePlan::strips`] takes this plan with `n`-byte
    /// elements: with AVX2, 1- and 2-byte elements on an axis of 16 to
    /// [`STRIP_MAX_SIZE`] rows, in lines at least
    /// [`SHIFT_MIN_LINE_BYTES`] wide. Measured on `[8, 64, 128, 128]`, the
    /// strips took 15–30% less time than the shifter on `u8` there, and
    /// 30–45% less than the gathers on `f16`; on 8 rows, and for 4- and
    /// 8-byte elements, AVX2's strips took as long or longer (up to 1.9
    /// times).
    ///
    /// With AVX-512, whose strips are a cache line wide and read and write
    /// the data in place, they take 8-byte elements as well, in lines of
    /// at least [`WIDE_STRIP_MIN_LINE_BYTES`], ahead of
    /// [`SubsequencePlan::lines`] and the gathers. `i64` along axis 1 of
    /// `[8, 64, 128, 128]` took 1.3–1.5 times a memcpy that way against
    /// 2.2–2.5 through the lines (four rounds in turn), and `[16, 64,
    /// 1024]` 2.6–2.8 against 4.7–5.2; blocks of up to
    /// [`GATHER_TILE_BYTES`], which the gathers took before, 2.7–2.9
    /// against 3.1–3.7 on `[256, 64, 64]` and 1.6–1.7 against 1.8–2.2
    /// along axis 2 of `[8, 64, 128, 128]` (three rounds). Only axes of
    /// 64 and 128 rows were measured. `f32` stays with the gathers: the
    /// strips were level with them on axis 1 of `[8, 64, 128, 128]` and
    /// slower by a third on `[32, 64, 1024]` and `[128, 64, 256]`.
    fn takes_strips(&self, copier: ReverseCopier, n: usize) -> bool {
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

    /// The width in bytes of the rows [`SubsequencePlan::shift`] works on
    /// for this plan with `n`-byte elements, or `None` when it does not take
    /// the plan: the axis must be at most [`SHIFT_MAX_SIZE`] long, and the
    /// lines at least [`SHIFT_MIN_LINE_BYTES`] wide. The widest power of two
    /// from 32 to [`SHIFT_MAX_ROW`] bytes whose tile of the whole axis fits
    /// the buffer, and no wider than the lines need.
    fn shift_row(&self, copier: ReverseCopier, n: usize) -> Option<usize> {
        let line = self.inner.checked_mul(n)?;
        // Measured on `[8, 64, 128, 128]`: 1-byte elements shift 2 to 3
        // times faster than they gather on every axis. 2-byte ones shifted
        // about 15% faster on 64 or 128 rows than they gathered one by
        // one, and 25% slower on 8, but the vector gathers beat both; wider
        // ones gather faster.
        let wins = n == 1 || (n == 2 && self.size >= 16 && !copier.gathers());
        if !wins || !(2..=SHIFT_MAX_SIZE).contains(&self.size) || line < SHIFT_MIN_LINE_BYTES {
            return None;
        }
        let mut row = 32;
        while row < SHIFT_MAX_ROW && row < line && 2 * row * self.size <= SHIFT_TILE_BYTES {
            row *= 2;
        }
        Some(row)
    }

    /// [`SubsequencePlan::shift`] on rows of `row` bytes, the width
    /// [`SubsequencePlan::shift_row`] picked, compiled with `copier`'s
    /// widest instructions; `None` for any other width, or when a line left
    /// the data or the output.
    fn shift_any(
        &self,
        copier: ReverseCopier,
        row: usize,
        n: usize,
        src: &[u8],
        start: usize,
        dst: &mut [u8],
    ) -> Option<()> {
        // Each row width with the most rows of it the buffer holds.
        macro_rules! at {
            ($w:literal) => {
                copier.vectorized(
                    #[inline(always)]
                    || self.shift::<$w, { SHIFT_TILE_BYTES / $w }>(n, src, start, dst),
                )
            };
        }
        match row {
            32 => at!(32),
            64 => at!(64),
            128 => at!(128),
            256 => at!(256),
            512 => at!(512),
            1024 => at!(1024),
            _ => None,
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
    /// part (where it starts or ends), are staged. Measured on `u8` along
    /// axis 1 of `[8, 64, 128, 128]`, one thread, in turns: reading the
    /// input in place took 1.9–2.4 ms where staging it first took 2.1–2.9
    /// (tiles of 8, 16 and 32 KiB, which fit the L1 cache) and 2.5–2.7
    /// (64 KiB); streaming the output rows straight from the strip took
    /// 2.5–2.6 times a memcpy where writing them through the cache took
    /// 3.2–3.7.
    fn strips(
        &self,
        copier: ReverseCopier,
        stream: bool,
        n: usize,
        src: &[u8],
        start: usize,
        dst: &mut [u8],
    ) -> Option<()> {
        let SubsequencePlan { size, inner, .. } = *self;
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

    /// Where the chunk of output elements `start..` that `dst` holds, `n`
    /// bytes each, ends: `Err` with what the kernel returns when there is
    /// no block to walk, `Some(())` for an empty chunk and `None` for one
    /// that does not fit the plan (not whole elements, or past `usize`).
    fn chunk_end(&self, n: usize, start: usize, dst: &[u8]) -> Result<usize, Option<()>> {
        let end = dst.len().checked_div(n).and_then(|elements| start.checked_add(elements)).ok_or(None)?;
        let block = self.size.checked_mul(self.inner).ok_or(None)?;
        if block == 0 || !dst.len().is_multiple_of(n) {
            return Err((start == end && dst.is_empty()).then_some(()));
        }
        Ok(end)
    }

    /// The walk [`SubsequencePlan::shift`], [`SubsequencePlan::strips`],
    /// [`SubsequencePlan::gather`], [`SubsequencePlan::transposed`] and
    /// [`SubsequencePlan::lines`] share: for every block that output elements `start..end` touch, and
    /// every tile of up to `tile` columns of it, calls `visit` with the part
    /// of the block they cover, the tile's columns `t0..t1`, the block's
    /// lengths and the block's input bytes (`n` an element). Stops at the
    /// first `None`.
    #[inline(always)]
    fn for_each_tile(
        &self,
        n: usize,
        src: &[u8],
        start: usize,
        end: usize,
        tile: usize,
        mut visit: impl FnMut(BlockPart, usize, usize, &[C], &[u8]) -> Option<()>,
    ) -> Option<()> {
        let SubsequencePlan { size, inner, lens, .. } = *self;
        let block = size.checked_mul(inner)?;
        let mut at = start;
        while at < end {
            let part = BlockPart::new(at, end, size, inner);
            let line = lens.get(part.o * inner..(part.o + 1) * inner)?;
            let input = src.get(part.first * n..(part.first + block) * n)?;
            for t0 in (0..inner).step_by(tile.max(1)) {
                visit(part, t0, (t0 + tile).min(inner), line, input)?;
            }
            at = part.first + part.b;
        }
        Some(())
    }

    /// Writes output elements `start..` into `dst`, which holds exactly
    /// those elements of `n` bytes, by shifting whole rows of `W` bytes in
    /// a buffer of `ROWS` of them.
    ///
    /// Line `(o, i)` of length `len > 1` is, for `k < len`, its reversed
    /// self shifted by `s = size - len` along the axis. With `R[j]` the
    /// input's row `size - 1 - j` (the rows in reverse order), output row
    /// `k` is `R[k + s]` for `k < len`, and the input's row `k` after. A
    /// tile of columns is copied into a buffer as `R`, then shifted in place
    /// by the bits of each column's `s`, one pass per bit: pass `b` replaces
    /// row `k` by row `k + 2^b` in the columns whose `s` has bit `b` set.
    /// Every pass is a byte-wise select between two rows under a mask, the
    /// same for every element width, on rows of a width fixed at compile
    /// time, so each is a few vector instructions. After the passes, each
    /// output row takes the buffer's row where `k < len` and the input's row
    /// elsewhere. Rows that a pass would fill from beyond the axis are left
    /// as they are: they land only where `k >= len`, which the last step
    /// takes from the input.
    ///
    /// `log2(size)` passes over a buffer in the L1 cache cost less per byte
    /// than moving elements one by one, which needs a load, a store and
    /// index arithmetic per element, the more so the narrower the elements.
    #[inline(always)]
    fn shift<const W: usize, const ROWS: usize>(
        &self,
        n: usize,
        src: &[u8],
        start: usize,
        dst: &mut [u8],
    ) -> Option<()> {
        let SubsequencePlan { size, inner, .. } = *self;
        let end = match self.chunk_end(n, start, dst) {
            Ok(end) => end,
            Err(done) => return done,
        };
        if size > ROWS {
            return None;
        }
        // Columns per tile, so that the tile's rows are at most `W` bytes.
        let tile = (W / n).clamp(1, inner);
        // Passes enough for the largest shift, `size - 2`.
        let passes = (usize::BITS - (size - 1).leading_zeros()) as usize;
        let mut rows = [[0u8; W]; ROWS];
        let rows = rows.get_mut(..size)?;
        // Pass `b`'s mask: all ones in the bytes of a column whose shift
        // has bit `b` set.
        let mut masks = [[0u8; W]; SHIFT_MAX_PASSES];
        if passes > SHIFT_MAX_PASSES {
            return None;
        }
        // Per byte, how many rows from `base` on still lie inside its
        // line's reversed part, at most 255.
        let mut left = [0u8; W];
        // Per byte, the shift of its column.
        let mut shifts = [0u8; W];
        self.for_each_tile(n, src, start, end, tile, |part, t0, t1, line, input| {
            let BlockPart { first, k0, k1, .. } = part;
            let width = (t1 - t0) * n;
            let lengths = line.get(t0..t1)?;
            // Whether any column moves at all, each byte's shift (at
            // most `size - 2`, so it fits a byte), the passes any
            // column needs, and their masks.
            let moves = lengths.iter().fold(0, |any, &len| any | len.get()) != 0;
            spread(&mut shifts, lengths, n, |len| if len > 0 { (size - len) as u8 } else { 0 });
            let needed = shifts.iter().fold(0, |any, &s| any | s);
            for (pass, mask) in masks.iter_mut().enumerate().take(passes) {
                for (m, &s) in mask.iter_mut().zip(&shifts) {
                    *m = 0u8.wrapping_sub(s >> pass & 1);
                }
            }
            if moves {
                // `R`: the tile's rows in reverse order.
                for (r, row) in rows.iter_mut().enumerate() {
                    let from = ((size - 1 - r) * inner + t0) * n;
                    row.get_mut(..width)?.copy_from_slice(input.get(from..from + width)?);
                }
                for (pass, mask) in masks.iter().enumerate().take(passes) {
                    let step = 1 << pass;
                    if needed >> pass & 1 == 0 || step >= size {
                        continue;
                    }
                    for k in 0..size - step {
                        // A copy of the far row: borrowed from the same
                        // buffer, the select measured 3 to 10 times
                        // slower (the compiler no longer vectorized it).
                        let far = *rows.get(k + step)?;
                        select(rows.get_mut(k)?, &far, mask);
                    }
                }
            }
            let mut base = usize::MAX;
            for k in k0..=k1 {
                let Some((c0, c1)) = part.columns(k, t0, t1, inner) else {
                    continue;
                };
                // Output elements `row + c0..row + c1`, counted from
                // `start`, which may lie inside this row.
                let row = first + k * inner;
                let out = dst.get_mut((row + c0 - start) * n..(row + c1 - start) * n)?;
                let from = input.get((k * inner + c0) * n..(k * inner + c1) * n)?;
                if !moves {
                    out.copy_from_slice(from);
                    continue;
                }
                if base == usize::MAX || k - base > 254 {
                    base = k;
                    spread(&mut left, lengths, n, |len| len.saturating_sub(k).min(255) as u8);
                }
                let shifted = rows.get(k)?;
                let (x0, x1) = ((c0 - t0) * n, (c1 - t0) * n);
                if x1 - x0 == W {
                    take_reversed(out, from, shifted, &left, (k - base) as u8);
                } else {
                    take_reversed_part(out, from, shifted.get(x0..x1)?, left.get(x0..x1)?, (k - base) as u8);
                }
            }
            Some(())
        })
    }

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
    ///   ([`SubsequencePlan::columns`]), from rows an odd number of lines
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
    /// An axis too long for the buffer is read in place, one element at a
    /// time, with checked indices.
    fn gather<T: bytemuck::Pod>(
        &self,
        copier: ReverseCopier,
        stream: bool,
        src: &[u8],
        start: usize,
        dst: &mut [u8],
    ) -> Option<()> {
        let n = std::mem::size_of::<T>();
        let SubsequencePlan { size, inner, .. } = *self;
        let end = match self.chunk_end(n, start, dst) {
            Ok(end) => end,
            Err(done) => return done,
        };
        // One word more than the tile, which the vector gathers of 2-byte
        // elements read 4 bytes at a time.
        let mut storage = [0u64; GATHER_TILE_BYTES / 8 + 1];
        let buffer: &mut [u8] = bytemuck::cast_slice_mut(&mut storage);
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
        let buffered = size.checked_mul(pitch).is_some_and(|bytes| bytes <= GATHER_TILE_BYTES);
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
            let stage = Stage { bytes: buffer, pitch, t0 };
            if !down {
                let elements = Elements::<T>::new(&stage)?;
                for k in k0..=k1 {
                    if let Some((c0, c1)) = part.columns(k, t0, t1, inner) {
                        let out = dst.get_mut(at(k, c0)..at(k, c1))?;
                        let lengths = line.get(c0..c1)?;
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

    /// Whether [`SubsequencePlan::lines`] takes this plan with `n`-byte
    /// elements: with AVX2, on an axis longer than [`TRANSPOSED_ROWS`]
    /// with a tile of at least a group of lines ([`lines_tile`]) and
    /// lengths kept in 32 bits, where the other kernels fall behind. The
    /// strips are asked first ([`SubsequencePlan::takes_strips`]): with
    /// AVX-512 they take 8-byte elements on axes of 16 to 255 rows, in
    /// lines of at least [`WIDE_STRIP_MIN_LINE_BYTES`].
    /// - 8-byte elements where a block is larger than the buffer of
    ///   [`SubsequencePlan::gather`], on axes of up to about 32,800 rows.
    ///   Time-major `[8192, 128]` `i64`, which the gathers read in place,
    ///   went from 16–25 times a memcpy to 4.3–5.2 that way, and `[2048,
    ///   512]`, whose tiles were 4 columns (32 bytes of each row) before
    ///   [`LINES_MIN_ROW_BYTES`], from 7.7–10.8 to 3.8–4.9. Where it is
    ///   not, that stages whole
    ///   blocks, one plain copy each, and moves their elements one at a
    ///   time faster: `[8, 64, 128, 128]` along axis 2 took 14.2–14.5 ms
    ///   that way and 16.2–17.5 through the lines. Along wider rows the
    ///   lines took 3–23% less time than the one-by-one moves: 11–12% on
    ///   `[8, 64, 128, 128]` along axis 1, 19–23% on `[4, 16, 4096, 32]`
    ///   and `[2, 200, 20000]`, 3–16% on `[16, 32, 16384]`.
    /// - 1-byte elements on axes longer than the strips take (over
    ///   [`STRIP_MAX_SIZE`] rows), where the shifter (256 rows) and the
    ///   gathers come next. Time-major `u8` took 8.1–9.5 ms through the
    ///   lines against 9.2–12.4 through the shifter on `[256, 32768]`,
    ///   4.1–4.7 against 6.2–6.7 through the gathers on `[300, 16384]`,
    ///   7.4–7.8 against 12.0–12.2 on `[1024, 8192]` and 6.3–6.7 against
    ///   23.8–24.6 on `[4096, 2048]`; along axis 1 of `[512, 300, 64]`,
    ///   5.2–6.4 against 15.8–16.5, where the gathers stage whole blocks. The strips took 3.6–3.8 ms against
    ///   5.7–6.6 on `[200, 32768]`, and 3.7–3.8 against 5.6–6.2 on `[8, 64,
    ///   128, 128]` along axis 1.
    /// - 2-byte elements on axes longer than the strips take (over
    ///   [`STRIP_MAX_SIZE`] rows) where a block is larger than the buffer of
    ///   [`SubsequencePlan::gather`]: on `[512, 300, 64]` along axis 1,
    ///   blocks of 38 KiB, the gathers took 8.2–8.5 ms against 10.0–12.9
    ///   through the lines. Time-major `f16` took 4.0–6.5 ms through
    ///   the lines against 5.0–5.5 through the gathers on `[256, 16384]`,
    ///   5.1–5.7 against 5.7–8.5 on `[512, 8192]`, 6.8–8.9 against
    ///   9.3–11.4 on `[1024, 4096]`, and 6.2–8.6 against 58–61 on `[4096,
    ///   1024]`, where the gathers read the axis in place. On `[8, 64, 128,
    ///   128]` along axis 1 the strips took 6.2–9.7 ms against 9.8–10.8.
    /// - 4-byte elements where the gathers cannot stage a cache line of
    ///   columns over the whole axis, and would read it in place: an axis
    ///   of more than 2048 rows. Time-major `[4096, 512]` `f32` took 12–27%
    ///   of the time of the gathers that way. Where the gathers stage the
    ///   axis, they were faster on `[8, 64, 128, 128]` along axis 1 or 2,
    ///   10.1–14.0 ms against 12.2–20.7 through the lines, but not on
    ///   longer axes of rows of many columns ([`LINES_WIDE_MIN_ROWS`]).
    ///
    /// The rule without the machine and the lengths is [`lines_win`].
    fn takes_lines(&self, copier: ReverseCopier, n: usize) -> bool {
        copier.transposes() && lines_win(n, self.size, self.inner) && C::as_u32(self.lens).is_some()
    }

    /// Writes output elements `start..` into `dst`, which holds exactly
    /// those elements of `N` bytes (1, 2, 4 or 8), through lines staged in this
    /// thread's buffer ([`ReverseCopier::subsequence_lines`]): the columns
    /// go in tiles of [`lines_tile`], each written at every output row the
    /// chunk covers before the next. The columns left over at the end of a
    /// block's rows go one element at a time.
    fn lines<const N: usize>(
        &self,
        copier: ReverseCopier,
        src: &[u8],
        start: usize,
        dst: &mut [u8],
    ) -> Option<()> {
        let SubsequencePlan { size, inner, .. } = *self;
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

    /// Whether [`SubsequencePlan::transposed`] takes this plan with
    /// `n`-byte elements: with AVX2, an axis of 2 to
    /// [`TRANSPOSED_ROWS`] rows, lines of at least a register, and
    /// lengths kept in 32 bits or in one byte. Measured with one thread on `[8, 64, 128,
    /// 128]` along axis 0, this took a fifth of the time of the shifter on
    /// `u8`, a third of the gathers' on `f16`, 70% of theirs on `f32`, and
    /// 80% of the one-by-one moves' on `i64`; on 2 rows, from a quarter
    /// (`u8`) to 60% (`f32`, `i64`) of the time of the earlier kernels.
    fn takes_transposed(&self, copier: ReverseCopier, n: usize) -> bool {
        copier.transposes()
            && n <= 8
            && (2..=TRANSPOSED_ROWS).contains(&self.size)
            && self.inner.saturating_mul(n) >= 32
            && C::vectored(self.lens)
    }

    /// Writes output elements `start..` into `dst`, which holds exactly
    /// those elements of `N` bytes, reading the input in place: a
    /// register's width of columns at a time is read from every row of its
    /// block, turned into lines and back in registers
    /// ([`ReverseCopier::subsequence_transposed`]), and written to every
    /// output row the chunk covers. The columns left over at the end of a
    /// block's rows go one element at a time.
    fn transposed<const N: usize>(
        &self,
        copier: ReverseCopier,
        src: &[u8],
        start: usize,
        dst: &mut [u8],
    ) -> Option<()> {
        let size = self.size;
        self.in_place::<N>(src, start, dst, self.inner, |input, stride, first, lens, rows, out| {
            copier.subsequence_transposed::<N, C>(input, (stride, size), first, lens, rows, out, stride)
        })
    }

    /// Writes output elements `start..` into `dst`, which holds exactly
    /// those elements of `N` bytes, reading the input in place, in tiles of
    /// up to `tile` columns. For the rows and columns of a tile that the
    /// chunk covers, `kernel` is given the block's input, the bytes from
    /// one of its rows to the next (the output's too), the first column,
    /// the columns' lengths, the rows and the output, and returns how many
    /// columns it wrote from the first on; the rest go one element at a
    /// time.
    #[inline(always)]
    fn in_place<const N: usize>(
        &self,
        src: &[u8],
        start: usize,
        dst: &mut [u8],
        tile: usize,
        mut kernel: impl FnMut(&[u8], usize, usize, &[C], (usize, usize), &mut [u8]) -> usize,
    ) -> Option<()> {
        let inner = self.inner;
        let end = match self.chunk_end(N, start, dst) {
            Ok(end) => end,
            Err(done) => return done,
        };
        let stride = inner.checked_mul(N)?;
        self.for_each_tile(N, src, start, end, tile, |part, t0, t1, line, input| {
            let at = |k: usize, c: usize| (part.first + k * inner + c - start) * N;
            part.by_rows(t0, t1, inner, |(c0, c1), (k0, k1)| {
                let out = dst.get_mut(at(k0, c0)..at(k1, c1))?;
                let lengths = line.get(c0..c1)?;
                let done = kernel(input, stride, c0, lengths, (k0, k1), out);
                if done >= lengths.len() {
                    return Some(());
                }
                for k in k0..=k1 {
                    for (c, &len) in (c0..c1).zip(lengths).skip(done) {
                        let (o, s) =
                            ((k - k0) * stride + (c - c0) * N, (source(len.get(), k) * inner + c) * N);
                        out.get_mut(o..o + N)?.copy_from_slice(input.get(s..s + N)?);
                    }
                }
                Some(())
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
/// time. The buffer's first [`GATHER_TILE_BYTES`] hold a power of two of
/// elements, so an index into them is masked into range instead of
/// checked: in range already, as a row is below the axis size and a column
/// inside the tile's rows.
struct Elements<'a, T> {
    elements: &'a [T],
    wrap: usize,
    pitch: usize,
}

impl<'a, T: bytemuck::Pod> Elements<'a, T> {
    /// The tile's elements; `None` when the buffer is shorter than
    /// [`GATHER_TILE_BYTES`], or its rows are not a whole number of them.
    fn new(stage: &Stage<'a>) -> Option<Self> {
        let n = std::mem::size_of::<T>();
        let elements: &[T] = bytemuck::try_cast_slice(stage.bytes.get(..GATHER_TILE_BYTES)?).ok()?;
        let wrap = elements.len().checked_sub(1).filter(|_| elements.len().is_power_of_two())?;
        stage.pitch.is_multiple_of(n).then_some(Elements { elements, wrap, pitch: stage.pitch / n })
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

/// A tile of [`SubsequencePlan::gather`] staged on the stack: the block's
/// columns from `t0` on, the whole axis of them, one row every `pitch`
/// bytes from the start of `bytes`.
struct Stage<'a> {
    bytes: &'a [u8],
    pitch: usize,
    t0: usize,
}

/// The row of its block that output row `k` of a line of length `len`
/// reads: `len - 1 - k` in the reversed part, else `k`.
#[inline(always)]
fn source(len: usize, k: usize) -> usize {
    if k < len {
        len - 1 - k
    } else {
        k
    }
}

/// The part of one block of the `[outer, size, inner]` view that a chunk
/// of output elements `at..end` covers: block `o`, which starts at element
/// `first`, from `first + a` to `first + b`, at positions `k0..=k1` along
/// the axis.
#[derive(Clone, Copy, Debug)]
struct BlockPart {
    o: usize,
    first: usize,
    a: usize,
    b: usize,
    k0: usize,
    k1: usize,
}

impl BlockPart {
    /// The part of the block that holds element `at`; `at < end`, and
    /// `size` and `inner` are not 0.
    fn new(at: usize, end: usize, size: usize, inner: usize) -> BlockPart {
        let block = size * inner;
        let o = at / block;
        let first = o * block;
        let (a, b) = (at - first, (end - first).min(block));
        BlockPart { o, first, a, b, k0: a / inner, k1: (b - 1) / inner }
    }

    /// Calls `visit` with the columns and the rows of tile `t0..t1` that
    /// the part covers: the rows it covers across the whole tile together,
    /// then its first and last rows on their own where they cover only some
    /// of it. Stops at the first `None`.
    #[inline(always)]
    fn by_rows(
        &self,
        t0: usize,
        t1: usize,
        inner: usize,
        mut visit: impl FnMut((usize, usize), (usize, usize)) -> Option<()>,
    ) -> Option<()> {
        let (k0, k1) = (self.k0, self.k1);
        let whole = self.whole_rows(t0, t1, inner);
        if let Some(rows) = whole {
            visit((t0, t1), rows)?;
        }
        for k in [Some(k0), (k1 != k0).then_some(k1)].into_iter().flatten() {
            if whole.is_some_and(|(lo, hi)| (lo..=hi).contains(&k)) {
                continue;
            }
            if let Some(columns) = self.columns(k, t0, t1, inner) {
                visit(columns, (k, k))?;
            }
        }
        Some(())
    }

    /// The rows `lo..=hi` on which the part covers every column of tile
    /// `t0..t1`, or `None` when there are none: all its rows but a first
    /// or last one it covers in part.
    fn whole_rows(&self, t0: usize, t1: usize, inner: usize) -> Option<(usize, usize)> {
        let (k0, k1) = (self.k0, self.k1);
        let whole = |k: usize| self.columns(k, t0, t1, inner) == Some((t0, t1));
        let (lo, hi) = (if whole(k0) { k0 } else { k0 + 1 }, if whole(k1) { k1 + 1 } else { k1 });
        (lo < hi).then(|| (lo, hi - 1))
    }

    /// The columns `c0..c1` of tile `t0..t1` at position `k` that the part
    /// covers, or `None` when it covers none of them.
    fn columns(&self, k: usize, t0: usize, t1: usize, inner: usize) -> Option<(usize, usize)> {
        let c0 = t0.max(if k == self.k0 { self.a % inner } else { 0 });
        let c1 = t1.min(if k == self.k1 { (self.b - 1) % inner + 1 } else { inner });
        (c0 < c1).then_some((c0, c1))
    }
}

/// Writes `value(len)` into the `n` bytes of each column of `bytes`, one
/// column per length; each width is its own loop, so that the compiler
/// writes an element's bytes at once instead of calling `memset` for each.
#[inline(always)]
fn spread<const W: usize, C: Count>(
    bytes: &mut [u8; W],
    lengths: &[C],
    n: usize,
    value: impl Fn(usize) -> u8,
) {
    #[inline(always)]
    fn each<const N: usize, C: Count>(bytes: &mut [u8], lengths: &[C], value: impl Fn(usize) -> u8) {
        for (b, &len) in bytes.chunks_exact_mut(N).zip(lengths) {
            b.copy_from_slice(&[value(len.get()); N]);
        }
    }
    match n {
        1 => each::<1, C>(bytes, lengths, value),
        2 => each::<2, C>(bytes, lengths, value),
        4 => each::<4, C>(bytes, lengths, value),
        8 => each::<8, C>(bytes, lengths, value),
        _ => {
            for (b, &len) in bytes.chunks_exact_mut(n).zip(lengths) {
                b.fill(value(len.get()));
            }
        }
    }
}

/// About how many times as long as a memcpy of the output the strips, the
/// shifter and the gathers take on `n`-byte elements, for splitting the
/// output across threads ([`parallel::for_each_costly_chunk`]). Measured on
/// `[8, 64, 128, 128]` with a length per line, one thread: `u8` 7–12×,
/// `f16` 4–5×, `f32` 2.6–3.3×, `i64` 1.7–2.2×. Along axis 0 (8 rows, lines
/// in registers) these cost less, but two threads still measured as fast
/// as one or faster there: `u8` 0.62–1.03 ms against 0.64–0.66, `f32`
/// 3.5 against 4.7, `i64` 7.8–10.0 against 10.4–11.1.
fn scattered_cost(n: usize) -> usize {
    match n {
        1 => 8,
        2 => 4,
        _ => 2,
    }
}

/// The widest strip [`SubsequencePlan::strips`] takes, in bytes: an
/// AVX-512 register.
const STRIP_MAX_BYTES: usize = 64;

/// The shortest lines of 8-byte elements that [`SubsequencePlan::strips`]
/// takes with AVX-512: the shortest measured (`[256, 64, 64]` `i64` along
/// axis 1), where they beat the gathers that took it before. Shorter
/// lines were not measured.
const WIDE_STRIP_MIN_LINE_BYTES: usize = 512;

/// The longest axis [`SubsequencePlan::strips`] takes: a byte holds each
/// column's length.
const STRIP_MAX_SIZE: usize = 255;

/// The bytes of one tile of [`SubsequencePlan::strips`]'s input (and as
/// many of its output), all rows of the axis, at most.
const STAGE_BYTES: usize = 64 << 10;

/// Outputs of at least this many bytes are written by
/// [`SubsequencePlan::strips`] and the vector gathers
/// ([`SubsequencePlan::columns`]) with streaming stores, a lower bar than
/// the other loops' 16 MiB. Both write a short stretch of each row of a
/// tile before going down to the next: the strips 1 KiB of each of 64 rows
/// on `[8, 64, 128, 128]` `u8` along axis 1, the gathers one cache line of
/// each row (and stream only where rows lie close:
/// [`GATHER_STREAM_MAX_STRIDE`]), rows that lie far apart and often a
/// power of two apart.
/// Through the cache such writes took 3–4 times as long as a memcpy of
/// their bytes in a standalone test (1.5–1.8 ms for 8 MiB against
/// 0.4–0.5), and half that streamed. In `ovir bench` the 8 MiB `u8` case
/// above went from 4.6 to 3.4 ms (median of four rounds) and `f16` `[8,
/// 64, 128, 64]` from 3.2 to 2.7 (three); at 4 MiB the gain was 10–12%,
/// and at 2 MiB there was none to measure. The cost is that an output of 4
/// to 16 MiB, which the L3 cache might have held for the op that reads it
/// next, goes to memory; a whole model was not measured.
const SCATTERED_STREAM_MIN_BYTES: usize = 4 << 20;

/// The widest output rows, in bytes, whose vector gathers
/// ([`SubsequencePlan::columns`]) stream their stores from
/// [`SCATTERED_STREAM_MIN_BYTES`]: a column group writes one cache line of
/// each row, and where the rows lie further apart, streaming those lines
/// made the gathers slower. `f32` along axis 1 with a length per line, 5
/// to 7 rounds of `ovir bench`, median ratio to a memcpy through the
/// cache against streamed: rows of 512 bytes (`[8, 64, 128, 128]` along
/// axis 2) 2.12 against 1.91, 1 KiB (`[128, 64, 256]`) 4.73 against 4.40,
/// 2 KiB (`[64, 64, 512]`) 7.47 against 4.90; but 4 KiB (`[32, 64,
/// 1024]`) 6.86 against 8.98, 16 KiB 5.15 against 8.42, 32 KiB 3.32
/// against 6.34, 64 KiB (`[8, 64, 128, 128]`) 2.16 against 3.57, and 128
/// KiB 2.75 against 3.59.
const GATHER_STREAM_MAX_STRIDE: usize = 2 << 10;

/// `row[i] = far[i]` where `mask[i]` is all ones, else unchanged.
#[inline(always)]
fn select<const W: usize>(row: &mut [u8; W], far: &[u8; W], mask: &[u8; W]) {
    for i in 0..W {
        row[i] = (row[i] & !mask[i]) | (far[i] & mask[i]);
    }
}

/// The byte of `shifted` where `left > k` (it lies in its line's reversed
/// part), else the byte of `from`, with no branch.
#[inline(always)]
fn pick(from: u8, shifted: u8, left: u8, k: u8) -> u8 {
    // All ones where `left > k`: the borrow of `k - left`.
    let m = (u16::from(k).wrapping_sub(u16::from(left)) >> 8) as u8;
    (from & !m) | (shifted & m)
}

/// `out[i] = pick(from[i], shifted[i], left[i], k)` over a whole row; `out`
/// and `from` are `W` bytes long.
#[inline(always)]
fn take_reversed<const W: usize>(out: &mut [u8], from: &[u8], shifted: &[u8; W], left: &[u8; W], k: u8) {
    let (Ok(out), Ok(from)) = (<&mut [u8; W]>::try_from(out), <&[u8; W]>::try_from(from)) else {
        return;
    };
    for i in 0..W {
        out[i] = pick(from[i], shifted[i], left[i], k);
    }
}

/// [`take_reversed`] over part of a row; the four have the same length.
#[inline(always)]
fn take_reversed_part(out: &mut [u8], from: &[u8], shifted: &[u8], left: &[u8], k: u8) {
    for (((o, &f), &s), &l) in out.iter_mut().zip(from).zip(shifted).zip(left) {
        *o = pick(f, s, l, k);
    }
}

impl<C: Count> RunPlan for SubsequencePlan<'_, C> {
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
            let heads = C::heads(lens.get(units.clone())?);
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
            while let (Some(len), Some(stop)) = (line.get(i).map(|n| n.get()), end.get(i).map(|n| n.get())) {
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

    #[test]
    fn scattered_means_more_than_one_stretch_per_sixteen_lines() {
        // Counted in full, block by block, against the count that stops
        // early: lengths that change every line, every 16th, 17th or 15th
        // line, in blocks shorter and far longer than its pieces.
        let naive = |lens: &[u32], inner: usize| {
            let stretches: usize =
                lens.chunks(inner).map(|b| 1 + b.windows(2).filter(|w| w[0] != w[1]).count()).sum();
            stretches > lens.len() / MIN_PLAYED_STRETCH
        };
        for every in [1, 15, 16, 17, 40] {
            for (lines, inner) in [(64, 8), (5000, 5000), (5000, 1000), (3000, 1), (4096, 2048)] {
                let lens: Vec<u32> = (0..lines as u32).map(|i| (i / every) % 3).collect();
                assert_eq!(
                    is_scattered(&lens, inner),
                    naive(&lens, inner),
                    "{every}, {lines} lines, {inner}"
                );
            }
        }
        assert!(is_scattered(&(0..10_000).collect::<Vec<u32>>(), 10_000));
        assert!(!is_scattered(&[7u32; 10_000], 10_000));
    }

    #[test]
    fn lengths_of_32_bits_in_range_are_used_where_they_are_stored() {
        let words = |ty: ElementType, values: &[i64]| {
            let bytes: Vec<u8> = values.iter().flat_map(|&v| (v as u32).to_le_bytes()).collect();
            Tensor::from_bytes(ty, &[values.len()], &bytes).unwrap()
        };
        let stored = |lengths: &Tensor, size: usize| {
            let lens = stored_lengths::<u32>(lengths)?.to_vec();
            within_axis(lengths, size).map(|moves| (lens, moves))
        };
        // Kept as stored, 1s and the axis size included; 0s and 1s alone
        // move nothing.
        for ty in [ElementType::I32, ElementType::U32] {
            assert_eq!(stored(&words(ty, &[0, 1, 4, 2]), 4), Some((vec![0, 1, 4, 2], true)));
            assert_eq!(stored(&words(ty, &[0, 1, 1, 0]), 4), Some((vec![0, 1, 1, 0], false)));
            // Past the axis: read and clamped instead.
            assert_eq!(stored(&words(ty, &[0, 5, 2]), 4), None);
        }
        // Negative: read instead, which reports it.
        assert_eq!(stored(&words(ElementType::I32, &[2, -1]), 4), None);
        // Other widths, and wide counts, are read.
        let wide = Tensor::from_vec(&[2], vec![2i64, 3]).unwrap();
        assert_eq!(stored(&wide, 4), None);
        assert!(within_axis(&wide, 4).is_none());
        assert!(stored_lengths::<usize>(&words(ElementType::I32, &[2, 3])).is_none());
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

    #[test]
    fn stretches_of_equal_lengths_end_where_the_length_changes() {
        let mut lens = vec![2u32, 2, 3, 0, 0, 5, 5, 5];
        assert_eq!(mark_stretches(&mut lens, 4), Some(()));
        assert_eq!(&lens[8..], &[2, 2, 3, 4, 1, 4, 4, 4]);
    }

    #[test]
    fn lengths_clamp_and_one_means_nothing() {
        assert_eq!(clamp(1, 4), 0);
        assert_eq!(clamp(9, 4), 4);
        assert_eq!(clamp(u64::MAX, 4), 4);
    }
}
