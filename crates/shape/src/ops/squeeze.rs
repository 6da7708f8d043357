//! Squeeze-1: remove axes of size 1.

use std::collections::BTreeSet;

use ovir_ir::Layer;
use ovir_tensor::{normalize_axis, PartialShape};

use crate::dims::{checked_ints, dims_of, fact_with_dims, holds_one, input_rank, integer_input};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, Size, ValueDomain, Versions};

/// Removes axes of size 1: those the optional second input lists, or all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Squeeze;

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Squeeze",
    aliases: &[],
    // Opset15 replaces Squeeze-1 with Squeeze-15.
    versions: Versions::Opsets(1, 14),
    inputs: (1, Some(2)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for Squeeze {
    const SPEC: OpSpec = SPEC;

    fn build(_layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(Squeeze)
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset1")
    }

    fn examples() -> Vec<Self> {
        vec![Squeeze]
    }
}

impl Operation for Squeeze {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, rest @ ..] = inputs else {
            return Err(Problems::one(ShapeErrorKind::InputCountRange {
                op: SPEC.name,
                min: 1,
                max: Some(2),
                found: 0,
            }));
        };
        let mut problems = Problems::new();
        let shape = match rest.first() {
            None => squeeze_shape(&data.fact.shape, None),
            Some(axes) => {
                let ok = integer_input(&mut problems, "Squeeze", "axes", axes.fact)
                    & input_rank(
                        &mut problems,
                        "Squeeze",
                        "axes",
                        axes.fact,
                        &[0, 1],
                        "a scalar or a 1-D tensor",
                    );
                match (checked_ints(ok, axes.fact), data.fact.shape.dims()) {
                    (Some(values), _) => squeeze_shape(&data.fact.shape, Some(&values)),
                    // One axis, not known yet: the rank drops by one if some
                    // axis may be 1.
                    (None, Some(dims)) if !dims.is_empty() && holds_one(axes.fact) => {
                        if dims.iter().any(|d| d.contains(1)) {
                            Ok(PartialShape::with_rank(dims.len() - 1))
                        } else {
                            Ok(data.fact.shape.clone())
                        }
                    }
                    _ => Ok(PartialShape::dynamic()),
                }
            }
        };
        let shape = match shape {
            Ok(s) => s,
            Err(kind) => {
                problems.layer(kind);
                return Err(problems);
            }
        };
        problems.or_ok(vec![fact_with_dims(data.fact.element_type, shape, dims_of(data.fact))])
    }

    fn input_values(&self, input: usize, _inputs: &[&PortFact]) -> ValueDomain {
        match input {
            1 => ValueDomain::Axes { rank: Some(Size::RankOf { input: 0 }), first: 0, distinct: false },
            _ => ValueDomain::Any,
        }
    }
}

/// Squeeze's output shape. Without axes (or with none listed), every axis
/// of size 1 goes; a dynamic axis that may be 1 leaves the rank unknown.
/// With axes, each listed axis goes when it may be 1 and stays otherwise.
pub fn squeeze_shape(data: &PartialShape, axes: Option<&[i64]>) -> Result<PartialShape, ShapeErrorKind> {
    let Some(dims) = data.dims() else {
        return Ok(PartialShape::dynamic());
    };
    match axes {
        Some(axes) if !axes.is_empty() => {
            let mut listed = BTreeSet::new();
            for &a in axes {
                let n = normalize_axis(a, dims.len()).ok_or(ShapeErrorKind::OpAxisOutOfRange {
                    op: "Squeeze",
                    what: "axis",
                    axis: a,
                    rank: dims.len(),
                })?;
                listed.insert(n);
            }
            let kept = dims.iter().enumerate().filter(|(k, d)| !(listed.contains(k) && d.contains(1)));
            Ok(PartialShape::new(kept.map(|(_, &d)| d).collect()))
        }
        _ => {
            if dims.iter().any(|d| !d.is_static() && d.contains(1)) {
                return Ok(PartialShape::dynamic());
            }
            Ok(PartialShape::new(dims.iter().copied().filter(|d| d.get() != Some(1)).collect()))
        }
    }
}
