//! Gather-1, Gather-7 and Gather-8: take slices of the data along an axis.

use ovir_ir::Layer;
use ovir_tensor::{normalize_axis, Dim, PartialShape};

use crate::attrs;
use crate::dims::{checked_ints, dims_of, fact_with_dims, integer_input, ints_of};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};

/// Takes slices of the data along an axis at the given indices; the axis
/// is the third input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gather {
    /// The `batch_dims` attribute as written (may be negative); 0 for
    /// `Gather-1`, which has none.
    pub batch_dims: i64,
    /// The op version: 1, 7 (with `batch_dims`) or 8 (with negative
    /// indices), from the opset the layer names.
    pub version: u32,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Gather",
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (3, Some(3)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for Gather {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, opset: u32) -> Result<Self, Problems> {
        let version = match opset {
            0..=6 => 1,
            7 => 7,
            _ => 8,
        };
        let mut problems = Problems::new();
        let batch_dims =
            if version >= 7 { attrs::int_or(layer, "batch_dims", 0, &mut problems) } else { Some(0) };
        match batch_dims {
            Some(batch_dims) => Ok(Gather { batch_dims, version }),
            None => Err(problems),
        }
    }

    fn write(&self) -> OpLayer {
        match self.version {
            1 => OpLayer::builtin(&SPEC, "opset1"),
            v => OpLayer::builtin(&SPEC, format!("opset{v}")).attr("batch_dims", self.batch_dims),
        }
    }

    fn examples() -> Vec<Self> {
        vec![
            Gather { batch_dims: 0, version: 1 },
            Gather { batch_dims: 1, version: 7 },
            Gather { batch_dims: 0, version: 8 },
            Gather { batch_dims: -1, version: 8 },
        ]
    }
}

impl Operation for Gather {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, indices, axis] = exactly::<3>(SPEC.name, inputs)?;
        let mut problems = Problems::new();
        integer_input(&mut problems, "Gather", "indices", indices.fact);
        let axis_type_ok = integer_input(&mut problems, "Gather", "axis", axis.fact);
        let axis_shape_ok = match axis.fact.shape.dims() {
            Some([]) => true,
            Some([n]) if !n.is_static() || n.get() == Some(1) => true,
            None => true,
            Some(_) => {
                problems.layer(ShapeErrorKind::InputShape {
                    op: "Gather",
                    input: "axis",
                    expected: "a scalar or a tensor of one element",
                    shape: axis.fact.shape.clone(),
                });
                false
            }
        };
        let axis_value =
            checked_ints(axis_type_ok && axis_shape_ok, axis.fact).and_then(|v| v.first().copied());
        let inferred = match gather_shape(&data.fact.shape, &indices.fact.shape, axis_value, self.batch_dims)
        {
            Ok(g) => g,
            Err(kind) => {
                problems.layer(kind);
                return Err(problems);
            }
        };

        // Picking dimensions out of a shape: the picked ones stay known.
        let picked = match (dims_of(data.fact), ints_of(indices.fact), inferred.axis, inferred.batch_dims) {
            (Some(dims), Some(idx), Some(0), Some(0)) if data.fact.shape.rank() == Some(1) => {
                let len = dims.len() as i64;
                let pick = |i: i64| {
                    let k = if i < 0 { i + len } else { i };
                    // Out-of-range indices give zeros, as in the kernel.
                    usize::try_from(k).ok().and_then(|k| dims.get(k).copied()).unwrap_or(Dim::fixed(0))
                };
                Some(idx.into_iter().map(pick).collect())
            }
            _ => None,
        };
        problems.or_ok(vec![fact_with_dims(data.fact.element_type, inferred.shape, picked)])
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        let rank = inputs.first().and_then(|d| d.shape.rank());
        match input {
            1 => {
                // The axis is known when it is constant; indices of 0 suit
                // any axis otherwise.
                let axis = inputs.get(2).and_then(|a| ints_of(a)).and_then(|v| v.first().copied());
                let axis = axis.and_then(|a| match rank {
                    Some(r) => normalize_axis(a, r),
                    None => usize::try_from(a).ok(),
                });
                ValueDomain::Indices {
                    size: axis.map(|axis| Size::DimOf { input: 0, axis }),
                    negative: self.version >= 8,
                }
            }
            2 => ValueDomain::Axes {
                rank: Some(Size::RankOf { input: 0 }),
                first: self.batch_dims_of(inputs).unwrap_or(0) as u64,
                distinct: false,
            },
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        // The first `batch_dims` dimensions of data and indices agree: the
        // indices follow the data, and the data follows indices whose
        // dimensions are known.
        let batch = self.batch_dims_of(inputs).filter(|&b| b > 0)?;
        match input {
            1 => {
                let rank = inputs.get(1)?.shape.rank()?;
                Some((0..rank).map(|k| (k < batch).then_some(Size::DimOf { input: 0, axis: k })).collect())
            }
            0 => {
                let rank = inputs.first()?.shape.rank()?;
                let indices = inputs.get(1)?.shape.dims()?;
                let rule: ShapeRule = (0..rank)
                    .map(|k| indices.get(k).filter(|_| k < batch).and_then(|d| d.get()).map(Size::Known))
                    .collect();
                rule.iter().any(Option::is_some).then_some(rule)
            }
            _ => None,
        }
    }
}

impl Gather {
    /// `batch_dims` normalised against the rank of the indices, when it can
    /// be.
    fn batch_dims_of(&self, inputs: &[&PortFact]) -> Option<usize> {
        let b = self.batch_dims;
        if b >= 0 {
            return usize::try_from(b).ok();
        }
        let rank = inputs.get(1)?.shape.rank()?;
        usize::try_from(b.checked_add(rank as i64)?).ok()
    }
}

/// What Gather's inputs determine: the output shape, and the axis and
/// `batch_dims` once they are normalised (when the ranks allow it).
#[derive(Clone, Debug, PartialEq)]
pub struct GatherShape {
    /// The output shape.
    pub shape: PartialShape,
    /// The axis in `[0, data rank)`, when the axis and the data rank are
    /// known.
    pub axis: Option<usize>,
    /// `batch_dims` in `[0, indices rank]`, when it is known.
    pub batch_dims: Option<usize>,
}

/// Gather's output shape: `data[:axis] + indices[batch_dims:] +
/// data[axis+1:]`, where the first `batch_dims` dimensions of data and
/// indices must agree and `batch_dims <= axis`. `axis` is the value of
/// the axis input, when known.
pub fn gather_shape(
    data: &PartialShape,
    indices: &PartialShape,
    axis: Option<i64>,
    batch_dims: i64,
) -> Result<GatherShape, ShapeErrorKind> {
    let out_of_range = |rank: usize| ShapeErrorKind::BatchDimsOutOfRange { batch_dims, rank };
    let batch = match indices.rank() {
        Some(r) => {
            let b = if batch_dims < 0 { batch_dims.saturating_add(r as i64) } else { batch_dims };
            if b < 0 || b > r as i64 {
                return Err(out_of_range(r));
            }
            Some(b as usize)
        }
        None if batch_dims >= 0 => usize::try_from(batch_dims).ok(),
        None => None,
    };
    let axis = match (axis, data.rank()) {
        (Some(a), Some(r)) => Some(normalize_axis(a, r).ok_or(ShapeErrorKind::OpAxisOutOfRange {
            op: "Gather",
            what: "axis",
            axis: a,
            rank: r,
        })?),
        _ => None,
    };
    if let (Some(a), Some(b)) = (axis, batch) {
        if b > a {
            return Err(ShapeErrorKind::BatchDimsAboveAxis { batch_dims: b as i64, axis: a as i64 });
        }
    }
    let shape = match (data.dims(), indices.dims(), batch) {
        (Some(d), Some(i), Some(b)) => {
            // The axis, when known, is at least `batch_dims`, and an axis
            // exists only if the data has rank 1 or more.
            if b >= d.len() {
                return Err(ShapeErrorKind::BatchDimsAboveAxis {
                    batch_dims: b as i64,
                    axis: d.len() as i64 - 1,
                });
            }
            let mut out = Vec::with_capacity(d.len() + i.len());
            for k in 0..b {
                let (Some(&x), Some(&y)) = (d.get(k), i.get(k)) else { break };
                match x.merge(y) {
                    Some(m) => out.push(m),
                    None => {
                        return Err(ShapeErrorKind::BatchDimsMismatch {
                            batch_dims: b,
                            data: data.clone(),
                            indices: indices.clone(),
                        })
                    }
                }
            }
            match axis {
                Some(a) => {
                    out.extend(d.get(b..a).unwrap_or_default());
                    out.extend(i.get(b..).unwrap_or_default());
                    out.extend(d.get(a + 1..).unwrap_or_default());
                }
                None => out.resize(d.len() + i.len() - 1 - b, Dim::DYNAMIC),
            }
            PartialShape::new(out)
        }
        _ => PartialShape::dynamic(),
    };
    Ok(GatherShape { shape, axis, batch_dims: batch })
}
