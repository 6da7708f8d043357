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
use ovir_tensor::{normalize_axis, Dim, PartialShape};

use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};

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
    outputs: 1,
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
        if ty.is_static() && !ty.is_integral() {
            return Err(Problems::one(ShapeErrorKind::SubsequenceLengthsType { found: ty }));
        }
        let out = subsequences_shape(&data.fact.shape, &lengths.fact.shape, self.axis)?;
        // Known lengths are checked now, as they would be when the model
        // runs.
        let negative =
            lengths.fact.value.as_ref().and_then(|v| v.integer_values()?.into_iter().find(|&n| n < 0));
        if let Some(value) = negative {
            return Err(Problems::one(ShapeErrorKind::NegativeSubsequenceLength { value }));
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
