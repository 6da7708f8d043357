//! Reshape-1: give the data a new shape with the same number of elements.

use ovir_ir::Layer;
use ovir_tensor::{Dim, PartialShape};

use crate::attrs;
use crate::dims::{checked_ints, dims_of, fact_with_dims, input_rank, integer_input, ints_of};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, vector_of, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain,
    Versions,
};

/// Gives the data the shape the second input holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reshape {
    /// With `special_zero`, a 0 in the target shape copies the input's
    /// dimension at the same position instead of meaning 0.
    pub special_zero: bool,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Reshape",
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (2, Some(2)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for Reshape {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        match attrs::boolean(layer, SPEC.name, "special_zero", &mut problems) {
            Some(special_zero) => Ok(Reshape { special_zero }),
            None => Err(problems),
        }
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset1").attr("special_zero", self.special_zero)
    }

    fn examples() -> Vec<Self> {
        vec![Reshape { special_zero: false }, Reshape { special_zero: true }]
    }
}

impl Operation for Reshape {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, pattern] = exactly::<2>(SPEC.name, inputs)?;
        let special_zero = self.special_zero;
        let mut problems = Problems::new();
        let ok = integer_input(&mut problems, "Reshape", "target shape", pattern.fact)
            & input_rank(
                &mut problems,
                "Reshape",
                "target shape",
                pattern.fact,
                &[0, 1],
                "a scalar or a 1-D tensor",
            );
        let shape = match (checked_ints(ok, pattern.fact), dims_of(pattern.fact)) {
            (Some(values), _) => match reshape_shape(&data.fact.shape, &values, special_zero) {
                Ok(s) => s,
                Err(kind) => {
                    problems.layer(kind);
                    return Err(problems);
                }
            },
            // A target built from other shapes: its dimensions are what is
            // known of them, except that a 0 may stand for an input dimension.
            (None, Some(dims)) if ok => PartialShape::new(
                dims.into_iter()
                    .map(|d| if special_zero && d.contains(0) { Dim::DYNAMIC } else { d })
                    .collect(),
            ),
            (None, _) => match pattern.fact.shape.to_static().as_deref() {
                Some([n]) if ok => PartialShape::with_rank(*n),
                Some([]) if ok => PartialShape::with_rank(1),
                _ => PartialShape::dynamic(),
            },
        };
        problems.or_ok(vec![fact_with_dims(data.fact.element_type, shape, dims_of(data.fact))])
    }

    fn input_values(&self, input: usize, _inputs: &[&PortFact]) -> ValueDomain {
        match input {
            1 => ValueDomain::ReshapeOf { input: 0 },
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        match input {
            // A target as long as the data's rank keeps its shape.
            1 => match inputs.get(1)?.shape.rank() {
                Some(0) => None,
                _ => vector_of(inputs.get(1), Size::RankOf { input: 0 }),
            },
            // Data of one unknown dimension follows a known target without
            // -1 or 0: the element counts agree.
            0 => {
                let dims = inputs.first()?.shape.dims()?;
                let pattern = ints_of(inputs.get(1)?)?;
                if pattern.iter().any(|&v| v < 0 || (v == 0 && self.special_zero)) {
                    return None;
                }
                let total = pattern.iter().try_fold(1u64, |acc, &v| acc.checked_mul(v as u64))?;
                let [open] = dims
                    .iter()
                    .enumerate()
                    .filter(|(_, d)| !d.is_static())
                    .map(|(k, _)| k)
                    .collect::<Vec<_>>()[..]
                else {
                    return None;
                };
                let rest = dims.iter().filter_map(|d| d.get()).try_fold(1u64, |acc, n| acc.checked_mul(n))?;
                if rest == 0 || total % rest != 0 {
                    return None;
                }
                Some((0..dims.len()).map(|k| (k == open).then_some(Size::Known(total / rest))).collect())
            }
            _ => None,
        }
    }
}

/// Reshape's output shape for the target shape `pattern`: -1 (at most
/// once) is inferred from the element count; with `special_zero`, 0
/// copies the input dimension at the same position.
pub fn reshape_shape(
    data: &PartialShape,
    pattern: &[i64],
    special_zero: bool,
) -> Result<PartialShape, ShapeErrorKind> {
    if pattern.iter().filter(|&&v| v == -1).count() > 1 {
        return Err(ShapeErrorKind::ReshapeManyInferred { pattern: pattern.to_vec() });
    }
    if pattern.iter().any(|&v| v < -1) {
        return Err(ShapeErrorKind::ReshapeBelowMinusOne { pattern: pattern.to_vec() });
    }
    let mut out = Vec::with_capacity(pattern.len());
    let mut inferred = None;
    for (k, &v) in pattern.iter().enumerate() {
        let dim = match v {
            -1 => {
                inferred = Some(k);
                Dim::DYNAMIC
            }
            0 if special_zero => match data.dims() {
                Some(dims) => {
                    *dims.get(k).ok_or(ShapeErrorKind::ReshapeZeroPastRank { index: k, rank: dims.len() })?
                }
                None => Dim::DYNAMIC,
            },
            v => Dim::fixed(v as u64),
        };
        out.push(dim);
    }
    // `None` when some dimension is not static; `Some(None)` when the
    // product overflows.
    let count = |dims: &[Dim]| -> Option<Option<u64>> {
        let mut acc = Some(1u64);
        for d in dims {
            let n = d.get()?;
            acc = acc.and_then(|a| a.checked_mul(n));
        }
        Some(acc)
    };
    let mismatch = || ShapeErrorKind::ReshapeCount { input: data.clone(), pattern: pattern.to_vec() };
    let input_count = data.dims().and_then(count);
    let others: Vec<Dim> =
        out.iter().enumerate().filter(|(k, _)| Some(*k) != inferred).map(|(_, &d)| d).collect();
    let known = count(&others);
    match (inferred, input_count, known) {
        // An element count that overflows cannot be a tensor's.
        (_, Some(None), _) | (_, _, Some(None)) => return Err(mismatch()),
        (Some(k), Some(Some(total)), Some(Some(part))) => {
            let n = match (total, part) {
                (0, 0) => 0,
                (_, 0) => return Err(mismatch()),
                (t, p) if t % p == 0 => t / p,
                _ => return Err(mismatch()),
            };
            if let Some(d) = out.get_mut(k) {
                *d = Dim::fixed(n);
            }
        }
        (None, Some(Some(total)), Some(Some(part))) if total != part => return Err(mismatch()),
        _ => {}
    }
    Ok(PartialShape::new(out))
}
