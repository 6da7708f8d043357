//! ReverseSubsequences (`version="ovir"`): DirectML's
//! `DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC`, an extension that ships with
//! ovir. Along `axis`, every line of the data reverses its own first
//! `length` elements.
//!
//! ```xml
//! <layer id="2" name="rev" type="ReverseSubsequences" version="ovir">
//!     <data axis="3"/>
//!     <input>
//!         <port id="0"> <!-- the data --> </port>
//!         <port id="1"> <!-- the lengths --> </port>
//!     </input>
//!     <output>
//!         <port id="2"> <!-- the result --> </port>
//!     </output>
//! </layer>
//! ```

use ovir_ir::Layer;
use ovir_tensor::{normalize_axis, Dim, ElementType, PartialShape, Tensor};

use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};
use crate::values::try_for_each_integer;

/// The highest data rank ReverseSubsequences takes, as DirectML's.
pub const MAX_SUBSEQUENCE_RANK: usize = 8;

/// Along `axis`, every line of the data reverses its own first `length`
/// elements; the lengths have the data's shape with 1 at `axis`. A length
/// above the axis size counts as that size, 0 and 1 reverse nothing, and a
/// negative length is an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReverseSubsequences {
    /// The `axis` attribute as written (may be negative).
    pub axis: i64,
}

impl ReverseSubsequences {
    /// The layer type.
    pub const TYPE: &'static str = "ReverseSubsequences";
    /// The layer version.
    pub const VERSION: &'static str = "ovir";
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: ReverseSubsequences::TYPE,
    aliases: &[],
    versions: Versions::Named(ReverseSubsequences::VERSION),
    inputs: (2, Some(2)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for ReverseSubsequences {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        let Some(value) = layer.attrs.value("axis") else {
            return Err(Problems::one(ShapeErrorKind::SubsequencesAxisMissing));
        };
        match value.trim().parse::<i64>() {
            Ok(axis) => Ok(ReverseSubsequences { axis }),
            Err(_) => {
                let mut problems = Problems::new();
                problems.attr("axis", ShapeErrorKind::SubsequencesAxisInvalid { value: value.to_string() });
                Err(problems)
            }
        }
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, ReverseSubsequences::VERSION).attr("axis", self.axis)
    }

    fn examples() -> Vec<Self> {
        vec![
            ReverseSubsequences { axis: 0 },
            ReverseSubsequences { axis: 3 },
            ReverseSubsequences { axis: -1 },
        ]
    }
}

impl Operation for ReverseSubsequences {
    fn name(&self) -> &str {
        Self::TYPE
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, lengths] = exactly::<2>(Self::TYPE, inputs)?;
        // A fact that is unknown only because an earlier layer failed says
        // nothing, and blaming it would report that failure twice.
        if inputs.iter().any(|i| i.tainted && i.fact.shape.rank().is_none()) {
            return Ok(vec![PortFact::unknown()]);
        }
        let ty = lengths.fact.element_type;
        if ty.is_static() {
            lengths_type(ty).map_err(Problems::one)?;
        }
        let out = subsequences_shape(&data.fact.shape, &lengths.fact.shape, self.axis)?;
        // Known lengths are checked now, as they are when the model runs.
        if let Some(value) = &lengths.fact.value {
            match for_each_subsequence_length(value, |_| {}) {
                Ok(()) | Err(ShapeErrorKind::UnreadableValues { .. }) => {}
                Err(kind) => return Err(Problems::one(kind)),
            }
        }
        Ok(vec![PortFact::of(data.fact.element_type, out)])
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        if input != 1 {
            return ValueDomain::Any;
        }
        // Lengths above the axis are clamped to it; lengths up to it show
        // what the op does.
        let rank = inputs.first().and_then(|d| d.shape.rank());
        let axis = rank.and_then(|r| normalize_axis(self.axis, r));
        ValueDomain::Lengths { max: axis.map(|axis| Size::DimOf { input: 0, axis }) }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        let rank = inputs.first()?.shape.rank()?;
        let axis = normalize_axis(self.axis, rank)?;
        match input {
            // The data's shape with 1 at the axis: the lengths follow the
            // data.
            1 => Some(
                (0..rank)
                    .map(|k| Some(if k == axis { Size::Known(1) } else { Size::DimOf { input: 0, axis: k } }))
                    .collect(),
            ),
            // The data follows lengths whose dimensions are known.
            0 => {
                let lengths = inputs.get(1)?.shape.dims()?;
                if lengths.len() != rank {
                    return None;
                }
                Some(
                    lengths
                        .iter()
                        .enumerate()
                        .map(|(k, d)| d.get().filter(|_| k != axis).map(Size::Known))
                        .collect(),
                )
            }
            _ => None,
        }
    }
}

/// The output shape of ReverseSubsequences, the data's shape merged with
/// what the lengths say of it, or why the shapes do not fit: the data has
/// rank 1 to [`MAX_SUBSEQUENCE_RANK`], the axis lies in `[-rank, rank)`,
/// and the lengths have the data's rank and shape except for a 1 at the
/// axis.
pub fn subsequences_shape(
    data: &PartialShape,
    lengths: &PartialShape,
    axis: i64,
) -> Result<PartialShape, Problems> {
    let rank = match (data.rank(), lengths.rank()) {
        (Some(d), Some(l)) if d != l => {
            return Err(Problems::one(ShapeErrorKind::SubsequenceLengthsRank {
                data: d,
                lengths: lengths.clone(),
                rank: l,
            }))
        }
        (Some(r), _) | (None, Some(r)) => r,
        (None, None) => return Ok(data.clone()),
    };
    if !(1..=MAX_SUBSEQUENCE_RANK).contains(&rank) {
        return Err(Problems::one(ShapeErrorKind::SubsequencesRank { rank, max: MAX_SUBSEQUENCE_RANK }));
    }
    let Some(axis_n) = normalize_axis(axis, rank) else {
        let mut problems = Problems::new();
        problems.attr("axis", ShapeErrorKind::SubsequencesAxisOutOfRange { axis, rank });
        return Err(problems);
    };
    let dynamic = vec![Dim::DYNAMIC; rank];
    let data_dims = data.dims().unwrap_or(&dynamic);
    let length_dims = lengths.dims().unwrap_or(&dynamic);
    let mut out = Vec::with_capacity(rank);
    for (i, (&d, &l)) in data_dims.iter().zip(length_dims).enumerate() {
        let merged = if i == axis_n { l.contains(1).then_some(d) } else { d.merge(l) };
        match merged {
            Some(m) => out.push(m),
            None => {
                let expected =
                    data_dims.iter().enumerate().map(|(j, &d)| if j == axis_n { Dim::fixed(1) } else { d });
                return Err(Problems::one(ShapeErrorKind::SubsequenceLengthsShape {
                    axis: axis_n,
                    expected: PartialShape::new(expected.collect()),
                    lengths: lengths.clone(),
                    data: data.clone(),
                }));
            }
        }
    }
    Ok(PartialShape::new(out))
}

/// Checks the inputs of ReverseSubsequences whose shapes are known, as
/// the executor does when it runs: integer lengths, data of rank 1 to
/// [`MAX_SUBSEQUENCE_RANK`], an axis in `[-rank, rank)` and lengths of the
/// data's shape with 1 at the axis, in the order [`Operation::infer`]
/// checks them. Gives the axis normalised; allocates nothing unless the
/// inputs are wrong.
pub fn check_subsequences(data: &[usize], lengths: &Tensor, axis: i64) -> Result<usize, ShapeErrorKind> {
    lengths_type(lengths.element_type())?;
    let (rank, found) = (data.len(), lengths.shape());
    if found.len() != rank {
        return Err(ShapeErrorKind::SubsequenceLengthsRank {
            data: rank,
            lengths: PartialShape::from_static(found),
            rank: found.len(),
        });
    }
    if !(1..=MAX_SUBSEQUENCE_RANK).contains(&rank) {
        return Err(ShapeErrorKind::SubsequencesRank { rank, max: MAX_SUBSEQUENCE_RANK });
    }
    let axis_n =
        normalize_axis(axis, rank).ok_or(ShapeErrorKind::SubsequencesAxisOutOfRange { axis, rank })?;
    let fits = found.iter().zip(data).enumerate().all(|(i, (&l, &d))| l == if i == axis_n { 1 } else { d });
    if !fits {
        let expected = data.iter().enumerate().map(|(i, &d)| if i == axis_n { 1 } else { d as u64 });
        return Err(ShapeErrorKind::SubsequenceLengthsShape {
            axis: axis_n,
            expected: PartialShape::new(expected.map(Dim::fixed).collect()),
            lengths: PartialShape::from_static(found),
            data: PartialShape::from_static(data),
        });
    }
    Ok(axis_n)
}

/// Lengths of ReverseSubsequences are integers.
fn lengths_type(ty: ElementType) -> Result<(), ShapeErrorKind> {
    if ty.is_integral() {
        Ok(())
    } else {
        Err(ShapeErrorKind::SubsequenceLengthsType { found: ty })
    }
}

/// Calls `f` with each length of ReverseSubsequences, in the lengths'
/// element order, once it passes [`subsequence_length`]; stops at the first
/// that does not. Allocates nothing unless a length is wrong.
pub fn for_each_subsequence_length(lengths: &Tensor, mut f: impl FnMut(u64)) -> Result<(), ShapeErrorKind> {
    let ty = lengths.element_type();
    lengths_type(ty)?;
    let mut index = 0;
    let read = try_for_each_integer(lengths, |v| {
        f(subsequence_length(lengths.shape(), index, v)?);
        index += 1;
        Ok(())
    });
    read.unwrap_or(Err(ShapeErrorKind::UnreadableValues { element_type: ty }))
}

/// The length `value`, element `index` (in element order) of lengths of
/// shape `shape`, when it is not negative. A length above the axis size
/// counts as that size, which is for the caller to apply.
#[inline]
pub fn subsequence_length(shape: &[usize], index: usize, value: i128) -> Result<u64, ShapeErrorKind> {
    match u64::try_from(value) {
        Ok(n) => Ok(n),
        // Above `u64::MAX` only as an `i128`, which no tensor holds.
        Err(_) if value > 0 => Ok(u64::MAX),
        Err(_) => Err(negative_length(shape, index, value)),
    }
}

#[cold]
fn negative_length(shape: &[usize], index: usize, value: i128) -> ShapeErrorKind {
    let mut rest = index;
    let mut position = vec![0; shape.len()];
    for (p, &d) in position.iter_mut().zip(shape).rev() {
        if d > 0 {
            *p = rest % d;
            rest /= d;
        }
    }
    ShapeErrorKind::NegativeSubsequenceLength { position, value }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_negative_length_is_placed_counting_from_the_last_axis() {
        let err = |shape: &[usize], index| subsequence_length(shape, index, -2).unwrap_err();
        let at = |position: Vec<usize>| ShapeErrorKind::NegativeSubsequenceLength { position, value: -2 };
        assert_eq!(err(&[2, 1, 3], 4), at(vec![1, 0, 1]));
        assert_eq!(err(&[4], 3), at(vec![3]));
        assert_eq!(subsequence_length(&[4], 3, 9), Ok(9));
    }

    #[test]
    fn known_shapes_are_checked_in_the_order_inference_checks_them() {
        let lengths = |shape: &[usize]| Tensor::zeros(ElementType::I32, shape).unwrap();
        assert_eq!(check_subsequences(&[2, 3, 4], &lengths(&[2, 1, 4]), 1), Ok(1));
        assert_eq!(check_subsequences(&[2, 3, 4], &lengths(&[2, 3, 1]), -1), Ok(2));
        let floats = Tensor::zeros(ElementType::F32, &[2, 1]).unwrap();
        assert_eq!(
            check_subsequences(&[2, 3], &floats, 1),
            Err(ShapeErrorKind::SubsequenceLengthsType { found: ElementType::F32 })
        );
        assert!(matches!(
            check_subsequences(&[2, 3], &lengths(&[2, 1, 1]), 1),
            Err(ShapeErrorKind::SubsequenceLengthsRank { data: 2, rank: 3, .. })
        ));
        assert_eq!(
            check_subsequences(&[], &lengths(&[]), 0),
            Err(ShapeErrorKind::SubsequencesRank { rank: 0, max: MAX_SUBSEQUENCE_RANK })
        );
        assert_eq!(
            check_subsequences(&[2, 3], &lengths(&[2, 1]), 2),
            Err(ShapeErrorKind::SubsequencesAxisOutOfRange { axis: 2, rank: 2 })
        );
        let err = check_subsequences(&[2, 3, 4], &lengths(&[2, 3, 4]), 1).unwrap_err();
        assert_eq!(
            err.to_string(),
            "ReverseSubsequences: the lengths must have the data's shape with 1 at axis 1, [2,1,4], but they \
             have shape [2,3,4] (the data's shape is [2,3,4])"
        );
    }
}
