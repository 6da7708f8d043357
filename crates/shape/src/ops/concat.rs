//! Concat-1: join the inputs along one axis.

use ovir_ir::Layer;
use ovir_tensor::{normalize_axis, Dim, ElementType, PartialShape};

use crate::attrs;
use crate::dims::{dims_of, fact_with_dims};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, Versions};

/// Joins its inputs, of one type, along one axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Concat {
    /// The `axis` attribute as written (may be negative).
    pub axis: i64,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Concat",
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (1, None),
    outputs: (1, Some(1)),
};

impl BuiltinOp for Concat {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        match attrs::int(layer, SPEC.name, "axis", &mut problems) {
            Some(axis) => Ok(Concat { axis }),
            None => Err(problems),
        }
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset1").attr("axis", self.axis)
    }

    fn examples() -> Vec<Self> {
        vec![Concat { axis: 0 }, Concat { axis: 2 }, Concat { axis: -1 }]
    }
}

impl Operation for Concat {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let mut problems = Problems::new();
        let mut ty = ElementType::Dynamic;
        for (k, input) in inputs.iter().enumerate() {
            match ty.merge(input.fact.element_type) {
                Some(t) => ty = t,
                None => problems.layer(ShapeErrorKind::InputTypes {
                    op: "Concat",
                    input: k,
                    found: input.fact.element_type,
                    expected: ty,
                }),
            }
        }
        let shapes: Vec<PartialShape> = inputs.iter().map(|i| i.fact.shape.clone()).collect();
        let (shape, normalized) = match concat_shape(&shapes, self.axis) {
            Ok(r) => r,
            Err(kind) => {
                problems.layer(kind);
                return Err(problems);
            }
        };
        // Lists of dimensions joined end to end stay known.
        let joined = if normalized == Some(0) && shape.rank() == Some(1) {
            inputs.iter().map(|i| dims_of(i.fact)).collect::<Option<Vec<_>>>().map(|v| v.concat())
        } else {
            None
        };
        problems.or_ok(vec![fact_with_dims(ty, shape, joined)])
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        // Every dimension but the axis agrees with the other inputs': each
        // input follows the first whose shape is static, or else the first
        // input.
        let static_other = inputs.iter().enumerate().find(|&(k, f)| k != input && f.shape.is_static());
        let (other, fact) = match static_other {
            Some(found) => found,
            None if input > 0 => (0, inputs.first()?),
            None => return None,
        };
        let rank = inputs.get(input)?.shape.rank().or(fact.shape.rank())?;
        let axis = normalize_axis(self.axis, rank)?;
        Some((0..rank).map(|k| (k != axis).then_some(Size::DimOf { input: other, axis: k })).collect())
    }
}

/// Concat's output shape: the inputs agree on rank and on every dimension
/// but `axis`, along which their sizes add up. Returns the shape and the
/// axis normalised, when some input's rank is known.
pub fn concat_shape(
    inputs: &[PartialShape],
    axis: i64,
) -> Result<(PartialShape, Option<usize>), ShapeErrorKind> {
    let Some(rank) = inputs.iter().find_map(PartialShape::rank) else {
        return Ok((PartialShape::dynamic(), None));
    };
    let a = normalize_axis(axis, rank).ok_or(ShapeErrorKind::OpAxisOutOfRange {
        op: "Concat",
        what: "axis",
        axis,
        rank,
    })?;
    let mut acc: Option<Vec<Dim>> = None;
    let mut axis_dim = Dim::fixed(0);
    for (k, shape) in inputs.iter().enumerate() {
        let Some(dims) = shape.dims() else {
            axis_dim = add_dims(axis_dim, Dim::DYNAMIC);
            continue;
        };
        let mismatch = |first: &[Dim]| ShapeErrorKind::ConcatShape {
            input: k,
            shape: shape.clone(),
            first: PartialShape::new(first.to_vec()),
            axis,
        };
        let Some(dim_on_axis) = dims.get(a).copied() else {
            return Err(mismatch(acc.as_deref().unwrap_or_default()));
        };
        axis_dim = add_dims(axis_dim, dim_on_axis);
        match &mut acc {
            None => acc = Some(dims.to_vec()),
            Some(first) => {
                if first.len() != dims.len() {
                    return Err(mismatch(first));
                }
                for (j, (f, &d)) in first.iter_mut().zip(dims).enumerate() {
                    if j == a {
                        continue;
                    }
                    match f.merge(d) {
                        Some(m) => *f = m,
                        None => return Err(mismatch(&inputs_prefix(inputs, k))),
                    }
                }
            }
        }
    }
    let mut out = acc.unwrap_or_default();
    if let Some(d) = out.get_mut(a) {
        *d = axis_dim;
    }
    Ok((PartialShape::new(out), Some(a)))
}

/// The sum of two dimensions: each bound is added; an unbounded side stays
/// unbounded.
fn add_dims(a: Dim, b: Dim) -> Dim {
    let min = a.min().saturating_add(b.min());
    let max = match (a.max(), b.max()) {
        (Some(x), Some(y)) => x.checked_add(y),
        _ => None,
    };
    Dim::interval(min, max).unwrap_or(Dim::DYNAMIC)
}

/// The first shape of known rank among the inputs before `k`, for error
/// messages.
fn inputs_prefix(inputs: &[PartialShape], k: usize) -> Vec<Dim> {
    inputs.iter().take(k).find_map(|s| s.dims().map(<[Dim]>::to_vec)).unwrap_or_default()
}
