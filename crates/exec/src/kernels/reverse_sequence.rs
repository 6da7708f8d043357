//! ReverseSequence-1: reverse the first `lengths[b]` elements along one axis,
//! separately for every index `b` of another axis.

use ovir_tensor::{ElementType, Tensor};

use std::ops::Range;

use super::{
    check_movable, check_output, copy_all, play, product, ExecOptions, Joiner, KernelError, Run, RunPlan,
};

const OP: &str = "ReverseSequence";

/// For every index `b` along `batch_axis`, reverses the first `lengths[b]`
/// elements along `seq_axis` and copies the rest unchanged.
///
/// The rules are OpenVINO's:
/// - `data` has rank 2 or more and any whole-byte element type or `string`;
///   elements are moved bit for bit.
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
    reverse_sequence_with(data, lengths, batch_axis, seq_axis, &ExecOptions::single_thread())
}

/// [`reverse_sequence`] that may split a large output across threads as
/// `options` allow; the result is the same.
pub fn reverse_sequence_with(
    data: &Tensor,
    lengths: &Tensor,
    batch_axis: i64,
    seq_axis: i64,
    options: &ExecOptions,
) -> Result<Tensor, KernelError> {
    let Some(plan) = prepare(data, lengths, batch_axis, seq_axis)? else {
        return Ok(data.clone());
    };
    let mut out = Tensor::zeros(data.element_type(), data.shape())?;
    play(OP, &plan, data, &mut out, options)?;
    Ok(out)
}

/// [`reverse_sequence`] writing into `out`, which must already have
/// `data`'s element type and shape; its buffer is reused when `out` holds it
/// alone.
pub fn reverse_sequence_into(
    data: &Tensor,
    lengths: &Tensor,
    batch_axis: i64,
    seq_axis: i64,
    out: &mut Tensor,
) -> Result<(), KernelError> {
    reverse_sequence_into_with(data, lengths, batch_axis, seq_axis, out, &ExecOptions::single_thread())
}

/// [`reverse_sequence_into`] that may split a large output across threads
/// as `options` allow.
pub fn reverse_sequence_into_with(
    data: &Tensor,
    lengths: &Tensor,
    batch_axis: i64,
    seq_axis: i64,
    out: &mut Tensor,
    options: &ExecOptions,
) -> Result<(), KernelError> {
    check_output(OP, data.element_type(), data.shape(), out)?;
    match prepare(data, lengths, batch_axis, seq_axis)? {
        Some(plan) => play(OP, &plan, data, out, options),
        None => copy_all(OP, data, out, options),
    }
}

fn normalise_axis(attribute: &'static str, axis: i64, rank: usize) -> Result<usize, KernelError> {
    let signed_rank = i64::try_from(rank).unwrap_or(i64::MAX);
    let normalised = if axis < 0 { axis.checked_add(signed_rank) } else { Some(axis) };
    normalised
        .and_then(|a| usize::try_from(a).ok())
        .filter(|&a| a < rank)
        .ok_or(KernelError::AttributeOutOfRange { attribute, axis, rank })
}

/// Reads and checks the lengths; returns for each batch index how many
/// elements to reverse, with 0 and 1 both given as 0 (nothing moves).
fn read_lengths(lengths: &Tensor, batch: usize, seq_size: usize) -> Result<Vec<usize>, KernelError> {
    let ty = lengths.element_type();
    if lengths.rank() != 1 {
        return Err(KernelError::LengthsRank { rank: lengths.rank() });
    }
    if ty == ElementType::Boolean || !(ty.is_integral() || ty.is_real()) {
        return Err(KernelError::LengthsType { ty });
    }
    if lengths.len() != batch {
        return Err(KernelError::LengthsCount { found: lengths.len(), expected: batch });
    }
    let max = i128::try_from(seq_size).unwrap_or(i128::MAX);
    let check = |batch: usize, value: i128| -> Result<usize, KernelError> {
        if value < 0 {
            return Err(KernelError::NegativeSeqLength { batch, value, max: seq_size });
        }
        if value > max {
            return Err(KernelError::SeqLengthOutOfRange { batch, value, max: seq_size });
        }
        let n = usize::try_from(value).unwrap_or(0);
        Ok(if n <= 1 { 0 } else { n })
    };
    if let Some(values) = lengths.integer_values() {
        return values.into_iter().enumerate().map(|(b, v)| check(b, v)).collect();
    }
    if let Some(values) = lengths.real_values() {
        return values
            .into_iter()
            .enumerate()
            .map(|(b, v)| {
                if v.is_nan() {
                    return Err(KernelError::SeqLengthNaN { batch: b });
                }
                // `as` saturates, so infinities become out-of-range values.
                check(b, v.trunc() as i128)
            })
            .collect();
    }
    Err(KernelError::UnsupportedType { op: OP, ty })
}

/// Validates the inputs and builds the plan; `None` when the output equals
/// the input.
fn prepare(
    data: &Tensor,
    lengths: &Tensor,
    batch_axis: i64,
    seq_axis: i64,
) -> Result<Option<SequencePlan>, KernelError> {
    let shape = data.shape();
    let rank = shape.len();
    if rank < 2 {
        return Err(KernelError::RankTooSmall { op: OP, rank, min: 2 });
    }
    let batch = normalise_axis("batch_axis", batch_axis, rank)?;
    let seq = normalise_axis("seq_axis", seq_axis, rank)?;
    check_movable(OP, data.element_type())?;
    let dim = |axis: usize| shape.get(axis).copied().unwrap_or(0);
    let lens = read_lengths(lengths, dim(batch), dim(seq))?;
    if batch == seq {
        if let Some((b, &value)) = lens.iter().enumerate().find(|(_, &n)| n > 0) {
            return Err(KernelError::SameAxes { axis: batch, batch: b, value });
        }
        return Ok(None);
    }
    if data.is_empty() || lens.iter().all(|&n| n == 0) {
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
        lens,
    }))
}

/// The data seen as `[outer, lo, mid, hi, inner]`, where `lo` and `hi` are
/// the batch and sequence axes in memory order and `inner` is a contiguous
/// block that always moves whole.
#[derive(Debug)]
struct SequencePlan {
    outer: usize,
    lo: usize,
    mid: usize,
    hi: usize,
    inner: usize,
    seq_is_hi: bool,
    /// Elements to reverse per batch index; 0 when nothing moves.
    lens: Vec<usize>,
}

impl SequencePlan {
    fn len_at(&self, batch: usize) -> usize {
        self.lens.get(batch).copied().unwrap_or(0)
    }
}

impl RunPlan for SequencePlan {
    fn unit_len(&self) -> usize {
        (self.hi * self.inner).max(1)
    }

    fn units(&self) -> usize {
        self.outer * self.lo * self.mid
    }

    /// One unit per `hi` slice, that is per `(outer, lo, mid)` index.
    fn for_each_run<F: FnMut(Run) -> Option<()>>(&self, units: Range<usize>, emit: F) -> Option<()> {
        let SequencePlan { lo, mid, hi, inner, seq_is_hi, .. } = *self;
        let mut out = Joiner::new(emit);
        // `(l, m)` of the current slice, stepped like an odometer, so no
        // division is done per slice; `base` is the slice's first element.
        let mut m = units.start % mid.max(1);
        let mut l = (units.start / mid.max(1)) % lo.max(1);
        let mut base = units.start * hi * inner;
        let slice = hi * inner;
        for _ in units {
            if seq_is_hi {
                // The sequence runs through this `hi` slice, so its
                // untouched tail is one contiguous copy.
                let len = self.len_at(l);
                if inner == 1 && len > 0 {
                    // Slices of one batch index follow one another and
                    // share their length, so they join into one rows run.
                    out.push(Run::rows(base, hi, len, 1))?;
                } else {
                    for k in (0..len).rev() {
                        out.push(Run { src: base + k * inner, len: inner, reversed: false, rows: None })?;
                    }
                    out.push(Run {
                        src: base + len * inner,
                        len: (hi - len) * inner,
                        reversed: false,
                        rows: None,
                    })?;
                }
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

    fn runs(plan: &SequencePlan) -> Vec<Run> {
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
        let plan = SequencePlan { outer: 1, lo: 1, mid: 1, hi: 5, inner: 3, seq_is_hi: true, lens: vec![2] };
        assert_eq!(
            runs(&plan),
            vec![
                Run { src: 3, len: 3, reversed: false, rows: None },
                Run { src: 0, len: 3, reversed: false, rows: None },
                Run { src: 6, len: 9, reversed: false, rows: None },
            ]
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
            lens: vec![2, 0, 2, 2],
        };
        let all = runs(&plan);
        assert_eq!(all.last(), Some(&Run { src: 8, len: 4, reversed: false, rows: None }));
    }
}
