//! The plan for a shape: the data seen as `[outer, lo, mid, hi, inner]`
//! around the batch and sequence axes, with the lengths read.

use ovir_shape::ops::reverse_sequence::{same_axes_length, sequence_axes};
use ovir_tensor::Tensor;

use super::reading::{read_lengths, LengthsRead};
use super::OP;
use crate::kernels::checks::check_movable;
use crate::kernels::counts::Count;
use crate::kernels::run_plan::product;
use crate::kernels::KernelError;

/// Validates the inputs and builds the plan; `None` when the output equals
/// the input.
pub(super) fn prepare<'a, C: Count>(
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
pub(super) fn axes(data: &Tensor, batch_axis: i64, seq_axis: i64) -> Result<(usize, usize), KernelError> {
    let (batch, seq) = sequence_axes(data.shape(), batch_axis, seq_axis)?;
    check_movable(OP, data.element_type())?;
    Ok((batch, seq))
}

/// The plan for `data` with the lengths read (`lens`, one per batch
/// index, and what reading them learned); `None` when the output equals
/// the input.
pub(super) fn finish<'a, C: Count>(
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

/// The data seen as `[outer, lo, mid, hi, inner]`, where `lo` and `hi` are
/// the batch and sequence axes in memory order and `inner` is a contiguous
/// block that always moves whole.
#[derive(Debug)]
pub(super) struct SequencePlan<'a, C> {
    pub(super) outer: usize,
    pub(super) lo: usize,
    pub(super) mid: usize,
    pub(super) hi: usize,
    pub(super) inner: usize,
    pub(super) seq_is_hi: bool,
    /// Whether every batch index has the same length.
    pub(super) uniform: bool,
    /// Elements to reverse per batch index, 0 or 1 when nothing moves: 1
    /// only where the lengths are used as they are stored.
    pub(super) lens: &'a [C],
}

impl<C: Count> SequencePlan<'_, C> {
    /// The length of batch index `batch` as a count: 0 when nothing moves,
    /// so that such a batch is one plain copy that joins its neighbours.
    pub(super) fn len_at(&self, batch: usize) -> usize {
        self.lens.get(batch).map_or(0, |&n| if n.get() <= 1 { 0 } else { n.get() })
    }
}
