//! Unsqueeze-1: insert axes of size 1.

use std::collections::BTreeSet;

use ovir_ir::Layer;
use ovir_tensor::{normalize_axis, Dim, PartialShape};

use crate::dims::{checked_ints, dims_of, fact_with_dims, holds_one, input_rank, integer_input};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, Size, ValueDomain, Versions,
};

/// Inserts an axis of size 1 at each position the second input lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unsqueeze;

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Unsqueeze",
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (2, Some(2)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for Unsqueeze {
    const SPEC: OpSpec = SPEC;

    fn build(_layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(Unsqueeze)
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset1")
    }

    fn examples() -> Vec<Self> {
        vec![Unsqueeze]
    }
}

impl Operation for Unsqueeze {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, axes] = exactly::<2>(SPEC.name, inputs)?;
        let mut problems = Problems::new();
        let ok = integer_input(&mut problems, "Unsqueeze", "axes", axes.fact)
            & input_rank(&mut problems, "Unsqueeze", "axes", axes.fact, &[0, 1], "a scalar or a 1-D tensor");
        let shape = match checked_ints(ok, axes.fact) {
            Some(values) => unsqueeze_shape(&data.fact.shape, &values).map_err(Problems::one)?,
            None => match (data.fact.shape.rank(), axes.fact.shape.dims()) {
                (Some(r), Some([] | [_])) if holds_one(axes.fact) => PartialShape::with_rank(r + 1),
                _ => PartialShape::dynamic(),
            },
        };
        problems.or_ok(vec![fact_with_dims(data.fact.element_type, shape, dims_of(data.fact))])
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        // Axes of the output, which has at least one axis more than the
        // data: axes below the data's rank plus one suit any count.
        let rank = inputs.first().and_then(|d| d.shape.rank()).map(|r| Size::Known(r as u64 + 1));
        match input {
            1 => ValueDomain::Axes { rank, first: 0, distinct: false },
            _ => ValueDomain::Any,
        }
    }
}

/// Unsqueeze's output shape: a 1 inserted at each of `axes`, which count
/// against the output rank (negative ones from the end). Repeated values
/// are inserted once, as OpenVINO does.
pub fn unsqueeze_shape(data: &PartialShape, axes: &[i64]) -> Result<PartialShape, ShapeErrorKind> {
    if axes.is_empty() {
        return Err(ShapeErrorKind::EmptyAxes);
    }
    let Some(dims) = data.dims() else {
        return Ok(PartialShape::dynamic());
    };
    let unique: BTreeSet<i64> = axes.iter().copied().collect();
    let out_rank = dims.len() + unique.len();
    let mut normalized = BTreeSet::new();
    for &a in &unique {
        let n = normalize_axis(a, out_rank).ok_or(ShapeErrorKind::OpAxisOutOfRange {
            op: "Unsqueeze",
            what: "axis",
            axis: a,
            rank: out_rank,
        })?;
        normalized.insert(n);
    }
    let mut out = dims.to_vec();
    for a in normalized {
        // Two values that name one axis (such as 3 and -1 on rank 3) make
        // the rank one smaller than counted, so later axes may lie past the
        // end: they are appended.
        if a <= out.len() {
            out.insert(a, Dim::fixed(1));
        } else {
            out.push(Dim::fixed(1));
        }
    }
    Ok(PartialShape::new(out))
}
