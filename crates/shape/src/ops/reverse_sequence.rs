//! ReverseSequence-1: reverse the first elements of each sequence of a
//! batch.

use ovir_ir::Layer;
use ovir_tensor::{normalize_axis, Dim, ElementType, PartialShape, Tensor};

use crate::attrs;
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};
use crate::values::{try_for_each_integer, try_for_each_real};

/// Reverses the first `seq_lengths[b]` elements along `seq_axis` of each
/// slice `b` along `batch_axis`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReverseSequence {
    /// The `batch_axis` attribute as written (may be negative).
    pub batch_axis: i64,
    /// The `seq_axis` attribute as written (may be negative).
    pub seq_axis: i64,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "ReverseSequence",
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (2, Some(2)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for ReverseSequence {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let batch_axis = attrs::int_or(layer, "batch_axis", 0, &mut problems);
        let seq_axis = attrs::int_or(layer, "seq_axis", 1, &mut problems);
        match (batch_axis, seq_axis) {
            (Some(batch_axis), Some(seq_axis)) => Ok(ReverseSequence { batch_axis, seq_axis }),
            _ => Err(problems),
        }
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset1").attr("batch_axis", self.batch_axis).attr("seq_axis", self.seq_axis)
    }

    fn examples() -> Vec<Self> {
        vec![
            ReverseSequence { batch_axis: 0, seq_axis: 1 },
            ReverseSequence { batch_axis: 2, seq_axis: 0 },
            ReverseSequence { batch_axis: 1, seq_axis: 0 },
        ]
    }
}

impl ReverseSequence {
    /// The batch and sequence axes normalised against the data rank; `None`
    /// when either lies outside `[-rank, rank-1]`.
    pub fn axes(&self, rank: usize) -> Option<(usize, usize)> {
        Some((normalize_axis(self.batch_axis, rank)?, normalize_axis(self.seq_axis, rank)?))
    }
}

impl Operation for ReverseSequence {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, lengths] = exactly::<2>(SPEC.name, inputs)?;
        let mut problems = Problems::new();
        let data_shape = &data.fact.shape;
        let rank = data_shape.rank();
        let rank_ok = match rank {
            Some(r) if r < 2 => {
                problems.layer(ShapeErrorKind::DataRankTooLow { shape: data_shape.clone() });
                false
            }
            _ => true,
        };
        let mut normalize = |name: &'static str, axis: i64| -> Option<usize> {
            match rank {
                // With too low a rank every axis is wrong; that was said once.
                Some(_) if !rank_ok => None,
                Some(r) => {
                    let n = normalize_axis(axis, r);
                    if n.is_none() {
                        problems.attr(name, ShapeErrorKind::AxisOutOfRange { name, axis, rank: r });
                    }
                    n
                }
                // The rank is unknown because an input layer failed: the axis
                // may well be fine.
                None if axis < 0 && !data.tainted => {
                    problems.attr(name, ShapeErrorKind::NegativeAxisUnknownRank { name, axis });
                    None
                }
                None => None,
            }
        };
        let batch = normalize("batch_axis", self.batch_axis);
        let seq = normalize("seq_axis", self.seq_axis);

        let lengths_shape = &lengths.fact.shape;
        let mut lengths_ok = true;
        if lengths_shape.rank().is_some_and(|r| r != 1) {
            problems.layer(ShapeErrorKind::LengthsNotVector { shape: lengths_shape.clone() });
            lengths_ok = false;
        }
        let ty = lengths.fact.element_type;
        if ty.is_static() && !(ty.is_integral() || ty.is_real()) {
            problems.layer(ShapeErrorKind::LengthsType { found: ty });
            lengths_ok = false;
        }

        let mut out_shape = data_shape.clone();
        if let (Some(dims), Some(b), Some([count])) = (data_shape.dims(), batch, lengths_shape.dims()) {
            if let Some(&batch_dim) = dims.get(b) {
                match batch_dim.merge(*count) {
                    Some(merged) => {
                        let mut dims = dims.to_vec();
                        if let Some(d) = dims.get_mut(b) {
                            *d = merged;
                        }
                        out_shape = PartialShape::new(dims);
                    }
                    None => problems.layer(ShapeErrorKind::LengthsCount {
                        lengths: *count,
                        batch: batch_dim,
                        batch_axis: b,
                    }),
                }
            }
        }

        // OpenVINO checks the length values only when the model runs; for
        // constant lengths the same check is worth doing now.
        let seq_len =
            seq.and_then(|s| data_shape.dims()?.get(s)?.get()).and_then(|n| usize::try_from(n).ok());
        if let (true, Some(value), Some(seq_len)) = (lengths_ok, &lengths.fact.value, seq_len) {
            let (mut batch_index, mut same_axes) = (0, Ok(()));
            let read = for_each_sequence_length(value, seq_len, |n| {
                if let (Some(b), Some(s), Ok(())) = (batch, seq, &same_axes) {
                    if b == s {
                        same_axes = same_axes_length(b, batch_index, n);
                    }
                }
                batch_index += 1;
            });
            match read.and(same_axes) {
                Ok(()) | Err(ShapeErrorKind::UnreadableValues { .. }) => {}
                Err(kind) => problems.layer(kind),
            }
        }
        problems.or_ok(vec![PortFact::of(data.fact.element_type, out_shape)])
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        if input != 1 {
            return ValueDomain::Any;
        }
        // OpenVINO takes lengths in `[0, seq_len]`.
        let rank = inputs.first().and_then(|d| d.shape.rank());
        let max = axis_of(self.seq_axis, rank).map(|axis| Size::DimOf { input: 0, axis });
        ValueDomain::Lengths { max }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        let data = inputs.first()?;
        let rank = data.shape.rank();
        let batch = axis_of(self.batch_axis, rank)?;
        match input {
            // One length per batch: the lengths follow the data.
            1 => Some(vec![Some(Size::DimOf { input: 0, axis: batch })]),
            // The data's batch follows lengths of a known count (constant
            // ones, or ones whose shape was chosen), never the other way,
            // so that the two never wait for each other.
            0 => {
                let count = inputs.get(1)?.shape.dims().and_then(|d| d.first()?.get())?;
                let mut rule = vec![None; rank?];
                *rule.get_mut(batch)? = Some(Size::Known(count));
                Some(rule)
            }
            _ => None,
        }
    }
}

/// An axis attribute normalised against the data rank; a non-negative one
/// also when the rank is unknown.
fn axis_of(axis: i64, rank: Option<usize>) -> Option<usize> {
    match rank {
        Some(r) => normalize_axis(axis, r),
        None => usize::try_from(axis).ok(),
    }
}

/// The sequence lengths of a `ReverseSequence`, checked against the size of
/// the sequence axis: each must lie in `[0, seq_len]`. Real lengths are
/// truncated toward zero; a length of 0 reverses nothing, like 1.
///
/// ```
/// use ovir_shape::sequence_lengths;
/// use ovir_tensor::Tensor;
/// let lengths = Tensor::from_vec(&[3], vec![2.9f32, 0.0, 4.0])?;
/// assert_eq!(sequence_lengths(&lengths, 4)?, vec![2, 0, 4]);
/// assert!(sequence_lengths(&lengths, 3).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sequence_lengths(lengths: &Tensor, seq_len: usize) -> Result<Vec<usize>, ShapeErrorKind> {
    let mut out = Vec::new();
    for_each_sequence_length(lengths, seq_len, |n| out.push(n))?;
    Ok(out)
}

/// Calls `f` with each sequence length of a `ReverseSequence`, in batch
/// order, once it passes [`integer_sequence_length`] or
/// [`real_sequence_length`]; stops at the first that does not. Allocates
/// nothing unless a length is wrong, so the executor reads lengths that
/// arrive at run time with it where it has no faster loop of its own.
pub fn for_each_sequence_length(
    lengths: &Tensor,
    seq_len: usize,
    mut f: impl FnMut(usize),
) -> Result<(), ShapeErrorKind> {
    let ty = lengths.element_type();
    let mut batch = 0;
    let read = if ty.is_integral() {
        try_for_each_integer(lengths, |v| {
            f(integer_sequence_length(batch, v, seq_len)?);
            batch += 1;
            Ok(())
        })
    } else if ty.is_real() {
        try_for_each_real(lengths, |v| {
            f(real_sequence_length(batch, v, ty, seq_len)?);
            batch += 1;
            Ok(())
        })
    } else {
        return Err(ShapeErrorKind::LengthsType { found: ty });
    };
    read.unwrap_or(Err(ShapeErrorKind::UnreadableValues { element_type: ty }))
}

/// The batch and sequence axes of a `ReverseSequence` on data of the
/// known shape `shape`, normalised: the data has rank 2 or more, and both
/// axes lie in `[-rank, rank-1]`.
pub fn sequence_axes(
    shape: &[usize],
    batch_axis: i64,
    seq_axis: i64,
) -> Result<(usize, usize), ShapeErrorKind> {
    let rank = shape.len();
    if rank < 2 {
        return Err(ShapeErrorKind::DataRankTooLow { shape: PartialShape::from_static(shape) });
    }
    let axis = |name: &'static str, axis: i64| {
        normalize_axis(axis, rank).ok_or(ShapeErrorKind::AxisOutOfRange { name, axis, rank })
    };
    Ok((axis("batch_axis", batch_axis)?, axis("seq_axis", seq_axis)?))
}

/// Checks the lengths input of a `ReverseSequence` as a whole, for data
/// whose (normalised) batch axis `batch_axis` has `batch` indices: a 1-D
/// tensor of integers or real numbers, one per batch index. The values are
/// checked one by one ([`for_each_sequence_length`]).
pub fn check_sequence_lengths(
    lengths: &Tensor,
    batch_axis: usize,
    batch: usize,
) -> Result<(), ShapeErrorKind> {
    if lengths.rank() != 1 {
        return Err(ShapeErrorKind::LengthsNotVector { shape: PartialShape::from_static(lengths.shape()) });
    }
    let ty = lengths.element_type();
    if !(ty.is_integral() || ty.is_real()) {
        return Err(ShapeErrorKind::LengthsType { found: ty });
    }
    if lengths.len() != batch {
        return Err(ShapeErrorKind::LengthsCount {
            lengths: Dim::fixed(lengths.len() as u64),
            batch: Dim::fixed(batch as u64),
            batch_axis,
        });
    }
    Ok(())
}

/// The integer length `value` of batch index `batch` as a count, when it
/// lies in `[0, seq_len]`.
#[inline]
pub fn integer_sequence_length(batch: usize, value: i128, seq_len: usize) -> Result<usize, ShapeErrorKind> {
    match usize::try_from(value) {
        Ok(n) if n <= seq_len => Ok(n),
        _ => Err(length_out_of_range(batch, Stored::Integer(value), seq_len)),
    }
}

/// The real length `value` (of element type `ty`, widened exactly to
/// `f64`) of batch index `batch`, truncated toward zero, as a count, when
/// it lies in `[0, seq_len]`; NaN never does.
#[inline]
pub fn real_sequence_length(
    batch: usize,
    value: f64,
    ty: ElementType,
    seq_len: usize,
) -> Result<usize, ShapeErrorKind> {
    let whole = value.trunc();
    // `whole >= 0.0` also refuses NaN; -0.5 truncates to -0.0, which
    // passes. `seq_len as f64` may round up, so the count is compared
    // again once it is an integer; the first test keeps infinities and
    // huge values out.
    let n = whole as usize;
    if whole >= 0.0 && whole <= seq_len as f64 && n <= seq_len {
        Ok(n)
    } else {
        Err(length_out_of_range(batch, Stored::Real(value, ty), seq_len))
    }
}

/// With `batch_axis` and `seq_axis` the same (normalised) `axis`, the only
/// sequences are single elements: checks that the count `n` of batch
/// index `batch` reverses none.
#[inline]
pub fn same_axes_length(axis: usize, batch: usize, n: usize) -> Result<(), ShapeErrorKind> {
    if n <= 1 {
        Ok(())
    } else {
        Err(ShapeErrorKind::SameSequenceAxes { axis, batch, value: n })
    }
}

/// A length as it is stored, for the message.
enum Stored {
    Integer(i128),
    Real(f64, ElementType),
}

#[cold]
fn length_out_of_range(batch: usize, value: Stored, seq_len: usize) -> ShapeErrorKind {
    let value = match value {
        Stored::Integer(v) => v.to_string(),
        // As its own type prints it, so an f32 2.7 reads `2.7` rather
        // than its f64 widening.
        Stored::Real(v, ElementType::F64) => v.to_string(),
        Stored::Real(v, _) => (v as f32).to_string(),
    };
    ShapeErrorKind::LengthOutOfRange { batch, value, max: seq_len as u64 }
}
