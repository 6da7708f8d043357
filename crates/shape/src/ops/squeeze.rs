//! Squeeze-1 and Squeeze-15: remove axes of size 1.

use std::collections::BTreeSet;

use ovir_ir::Layer;
use ovir_tensor::{normalize_axis, PartialShape};

use crate::attrs;
use crate::dims::{checked_ints, dims_of, fact_with_dims, holds_one, input_rank, integer_input};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, Size, ValueDomain, Versions};

/// Removes axes of size 1: those the optional second input lists, or all.
/// Both versions run alike (a listed axis of another size stays); they
/// differ in what they infer before the sizes are known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Squeeze {
    /// The op version: 1 (opsets 1 to 14) or 15, from the opset the layer
    /// names.
    pub version: u32,
    /// Squeeze-15's `allow_axis_skip`: a listed axis whose size is not
    /// known but may be 1 leaves the output rank unknown, rather than
    /// being taken as squeezed. Always `false` for Squeeze-1.
    pub allow_axis_skip: bool,
}

impl Squeeze {
    /// Squeeze-1.
    pub const V1: Squeeze = Squeeze { version: 1, allow_axis_skip: false };
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Squeeze",
    aliases: &[],
    // Opset15 replaces Squeeze-1 with Squeeze-15.
    versions: Versions::Opsets(1, 16),
    inputs: (1, Some(2)),
    outputs: (1, Some(1)),
};

const SKIP: &str = "allow_axis_skip";

impl BuiltinOp for Squeeze {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, opset: u32) -> Result<Self, Problems> {
        if opset < 15 {
            return Ok(Squeeze::V1);
        }
        let mut problems = Problems::new();
        match attrs::boolean_or(layer, SKIP, false, &mut problems) {
            Some(allow_axis_skip) => Ok(Squeeze { version: 15, allow_axis_skip }),
            None => Err(problems),
        }
    }

    fn write(&self) -> OpLayer {
        match self.version {
            1 => OpLayer::builtin(&SPEC, "opset1"),
            v => OpLayer::builtin(&SPEC, format!("opset{v}")).attr(SKIP, self.allow_axis_skip),
        }
    }

    fn examples() -> Vec<Self> {
        vec![
            Squeeze::V1,
            Squeeze { version: 15, allow_axis_skip: false },
            Squeeze { version: 15, allow_axis_skip: true },
        ]
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
                    (Some(values), _) if self.allow_axis_skip => {
                        squeeze_shape_skipping(&data.fact.shape, &values)
                    }
                    (Some(values), _) => squeeze_shape(&data.fact.shape, Some(&values)),
                    // Squeeze-15 knows nothing of axes not known yet, but
                    // that one axis where no dimension may be 1 leaves the
                    // data as it is.
                    (None, Some(dims)) if self.version >= 15 => {
                        if holds_one(axes.fact) && !dims.iter().any(|d| d.contains(1)) {
                            Ok(data.fact.shape.clone())
                        } else {
                            Ok(PartialShape::dynamic())
                        }
                    }
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

/// Squeeze-15's output shape with `allow_axis_skip`: as [`squeeze_shape`],
/// but a listed axis whose size is not known and may be 1 (or data of
/// unknown rank) leaves the rank unknown.
pub fn squeeze_shape_skipping(data: &PartialShape, axes: &[i64]) -> Result<PartialShape, ShapeErrorKind> {
    let shape = squeeze_shape(data, Some(axes))?;
    let Some(dims) = data.dims() else {
        return Ok(PartialShape::dynamic());
    };
    let open = axes.iter().filter_map(|&a| normalize_axis(a, dims.len())).any(|k| {
        let d = dims.get(k);
        d.is_some_and(|d| !d.is_static() && d.contains(1))
    });
    Ok(if open { PartialShape::dynamic() } else { shape })
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

#[cfg(test)]
mod tests {
    use ovir_tensor::{ElementType, Tensor};

    use super::*;

    const V15: Squeeze = Squeeze { version: 15, allow_axis_skip: false };
    const SKIPPING: Squeeze = Squeeze { version: 15, allow_axis_skip: true };

    fn infer(op: Squeeze, data: &str, axes: PortFact) -> String {
        let data = PortFact::of(ElementType::F32, data.parse().unwrap());
        let inputs = [Input::new(&data), Input::new(&axes)];
        match op.infer(&inputs) {
            Ok(facts) => facts[0].shape.to_string(),
            Err(_) => "error".to_owned(),
        }
    }

    fn axes(values: &[i64]) -> PortFact {
        PortFact::known(Tensor::from_vec(&[values.len()], values.to_vec()).unwrap())
    }

    fn unknown_axes(shape: &str) -> PortFact {
        PortFact::of(ElementType::I64, shape.parse().unwrap())
    }

    /// What OpenVINO 2026.4 infers for Squeeze-1 and Squeeze-15 with
    /// constant axes, without and with `allow_axis_skip`: the columns are
    /// data, axes, Squeeze-1 (and Squeeze-15 without the flag), and
    /// Squeeze-15 with it.
    #[test]
    fn constant_axes_infer_what_openvino_infers() {
        let table: &[(&str, &[i64], &str, &str)] = &[
            ("[1,2,1,3,1,1]", &[2, 4], "[1,2,3,1]", "[1,2,3,1]"),
            ("[2,?,3]", &[1], "[2,3]", "[...]"),
            ("[2,1..3,3]", &[1], "[2,3]", "[...]"),
            ("[2,2..3,3]", &[1], "[2,2..3,3]", "[2,2..3,3]"),
            ("[?,?,?]", &[0], "[?,?]", "[...]"),
            ("[1,2,?]", &[], "[...]", "[...]"),
            ("[1,2,3]", &[1], "[1,2,3]", "[1,2,3]"),
            ("[2,?,1]", &[1, 2], "[2]", "[...]"),
            ("[1,1..2,3]", &[0, 1], "[3]", "[...]"),
            ("[?]", &[0], "[]", "[...]"),
            ("[1,?,1..2]", &[-1], "[1,?]", "[...]"),
            ("[2,3]", &[-1], "[2,3]", "[2,3]"),
            ("[1,2,1]", &[0, -3], "[2,1]", "[2,1]"),
            ("[1,2,1]", &[0, 0], "[2,1]", "[2,1]"),
            ("[1,2,3]", &[3], "error", "error"),
        ];
        for &(data, values, v1, skipping) in table {
            assert_eq!(infer(Squeeze::V1, data, axes(values)), v1, "{data} {values:?}");
            assert_eq!(infer(V15, data, axes(values)), v1, "{data} {values:?}");
            assert_eq!(infer(SKIPPING, data, axes(values)), skipping, "{data} {values:?}");
        }
    }

    /// Axes known only at run time: Squeeze-1 drops one axis for a single
    /// axis when some dimension may be 1, Squeeze-15 (with or without the
    /// flag) leaves the rank unknown unless it is one axis and no dimension
    /// may be 1, as OpenVINO 2026.4 infers.
    #[test]
    fn axes_known_at_run_time_infer_what_openvino_infers() {
        let table = [
            ("[1,2,3]", "[1]", "[?,?]", "[...]"),
            ("[1,2,3]", "[]", "[?,?]", "[...]"),
            ("[1,2,3]", "[2]", "[...]", "[...]"),
            ("[2,3]", "[1]", "[2,3]", "[2,3]"),
            ("[2,3]", "[2]", "[...]", "[...]"),
            ("[2,3]", "[]", "[2,3]", "[2,3]"),
            ("[?,3]", "[1]", "[?]", "[...]"),
            ("[2,1,4]", "[]", "[?,?]", "[...]"),
        ];
        for (data, shape, v1, v15) in table {
            assert_eq!(infer(Squeeze::V1, data, unknown_axes(shape)), v1, "{data} {shape}");
            for op in [V15, SKIPPING] {
                assert_eq!(infer(op, data, unknown_axes(shape)), v15, "{data} {shape} {op:?}");
            }
        }
    }

    #[test]
    fn allow_axis_skip_is_read_and_written() {
        let layer = SKIPPING.write();
        assert_eq!(layer.version, "opset15");
        assert_eq!(Squeeze::build(&layer.to_layer_with(2), 16), Ok(SKIPPING));
        // Squeeze-15 without the attribute takes it as false.
        let bare = OpLayer::builtin(&SPEC, "opset15");
        assert_eq!(Squeeze::build(&bare.to_layer_with(2), 15), Ok(V15));
        assert_eq!(Squeeze::V1.write().attrs.len(), 0);
    }
}
