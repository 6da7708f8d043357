//! GatherElements-6: take one data element per index, along an axis.

use ovir_ir::Layer;
use ovir_tensor::{normalize_axis, Dim, ElementType, PartialShape, Tensor};

use crate::attrs;
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};

const OP: &str = "GatherElements";

/// For each index, the data element at that index along `axis`, at the
/// index's own position along every other axis: NumPy's
/// `take_along_axis`. The output has the shape of the indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GatherElements {
    /// The `axis` attribute as written (negative counts from the end).
    pub axis: i64,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: OP,
    aliases: &[],
    versions: Versions::Opsets(6, 16),
    inputs: (2, Some(2)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for GatherElements {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        match attrs::int(layer, OP, "axis", &mut problems) {
            Some(axis) => Ok(GatherElements { axis }),
            None => Err(problems),
        }
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset6").attr("axis", self.axis)
    }

    fn examples() -> Vec<Self> {
        vec![GatherElements { axis: 0 }, GatherElements { axis: -1 }, GatherElements { axis: 2 }]
    }
}

impl Operation for GatherElements {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, indices] = exactly::<2>(SPEC.name, inputs)?;
        let mut problems = Problems::new();
        let ty = indices.fact.element_type;
        if ty.is_static() && !matches!(ty, ElementType::I32 | ElementType::I64) {
            problems.layer(ShapeErrorKind::IndexType { op: OP, input: "indices", found: ty });
        }
        let (shape, axis) = match gather_elements_shape(&data.fact.shape, &indices.fact.shape, self.axis) {
            Ok(s) => s,
            Err(kind) => {
                problems.layer(kind);
                return Err(problems);
            }
        };
        // Known indices are checked now, as the kernel checks them.
        if let (Some(values), Some(axis)) = (&indices.fact.value, axis) {
            let size = data.fact.shape.dims().and_then(|d| d.get(axis)).and_then(|d| d.get());
            if let Some(size) = size {
                if let Err(kind) = check_indices(OP, values, size, false) {
                    problems.layer(kind);
                }
            }
        }
        problems.or_ok(vec![PortFact::of(data.fact.element_type, shape)])
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        match input {
            1 => {
                let axis =
                    inputs.first().and_then(|d| d.shape.rank()).and_then(|r| normalize_axis(self.axis, r));
                ValueDomain::Indices {
                    size: axis.map(|axis| Size::DimOf { input: 0, axis }),
                    negative: false,
                }
            }
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        // The indices follow the data on every axis but the one gathered
        // along, which keeps the size the indices have or 1.
        let rank = inputs.first()?.shape.rank()?;
        let axis = normalize_axis(self.axis, rank)?;
        match input {
            1 => Some(
                (0..rank)
                    .map(|k| Some(if k == axis { Size::Known(1) } else { Size::DimOf { input: 0, axis: k } }))
                    .collect(),
            ),
            _ => None,
        }
    }
}

/// GatherElements' output shape and its axis, normalised when the data
/// rank is known: the shape of the indices, whose dimensions other than
/// the axis must agree with the data's (a dimension known on one side
/// only is taken from it).
pub fn gather_elements_shape(
    data: &PartialShape,
    indices: &PartialShape,
    axis: i64,
) -> Result<(PartialShape, Option<usize>), ShapeErrorKind> {
    let axis = match data.rank() {
        Some(r) => Some(normalize_axis(axis, r).ok_or(ShapeErrorKind::OpAxisOutOfRange {
            op: OP,
            what: "axis",
            axis,
            rank: r,
        })?),
        None => None,
    };
    for (input, shape) in [("data", data), ("indices", indices)] {
        if shape.rank() == Some(0) {
            return Err(ShapeErrorKind::InputShape {
                op: OP,
                input,
                expected: "a tensor of rank 1 or more",
                shape: shape.clone(),
            });
        }
    }
    let shape = match (data.dims(), indices.dims(), axis) {
        (Some(d), None, Some(axis)) => {
            let mut dims = d.to_vec();
            if let Some(a) = dims.get_mut(axis) {
                *a = Dim::DYNAMIC;
            }
            PartialShape::new(dims)
        }
        (Some(d), Some(i), Some(axis)) => {
            let mismatch = || ShapeErrorKind::GatherElementsShapes {
                axis,
                data: data.clone(),
                indices: indices.clone(),
            };
            if d.len() != i.len() {
                return Err(mismatch());
            }
            let mut dims = Vec::with_capacity(d.len());
            for (k, (&x, &y)) in d.iter().zip(i).enumerate() {
                dims.push(if k == axis { y } else { x.merge(y).ok_or_else(mismatch)? });
            }
            PartialShape::new(dims)
        }
        _ => indices.clone(),
    };
    Ok((shape, axis))
}

/// Checks that every value of `indices` (an integer tensor) picks from an
/// axis of `size` elements: `[0, size)`, or `[-size, size)` when
/// `negative`. The first that does not is an error naming its position.
pub fn check_indices(
    op: &'static str,
    indices: &Tensor,
    size: u64,
    negative: bool,
) -> Result<(), ShapeErrorKind> {
    let mut at = 0usize;
    let read = crate::try_for_each_integer(indices, |i| {
        index_in(op, i, size, negative, at, indices.shape())?;
        at += 1;
        Ok(())
    });
    read.unwrap_or(Err(ShapeErrorKind::IntegerInput { op, input: "indices", found: indices.element_type() }))
}

/// Index `index`, the `flat`-th element of indices of shape `shape`, as a
/// position in an axis of `size` elements (negative ones counting from the
/// end when `negative`), or the error that names it.
pub fn index_in(
    op: &'static str,
    index: i128,
    size: u64,
    negative: bool,
    flat: usize,
    shape: &[usize],
) -> Result<u64, ShapeErrorKind> {
    let size_wide = i128::from(size);
    let k = if negative && index < 0 { index + size_wide } else { index };
    if (0..size_wide).contains(&k) {
        return u64::try_from(k).map_err(|_| out_of_range(op, index, size, negative, flat, shape));
    }
    Err(out_of_range(op, index, size, negative, flat, shape))
}

fn out_of_range(
    op: &'static str,
    index: i128,
    size: u64,
    negative: bool,
    flat: usize,
    shape: &[usize],
) -> ShapeErrorKind {
    let mut position = vec![0; shape.len()];
    let mut rest = flat;
    for (p, &d) in position.iter_mut().zip(shape).rev() {
        if d > 0 {
            *p = rest % d;
            rest /= d;
        }
    }
    ShapeErrorKind::IndexOutOfRange { op, position, index, size, negative }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn infer(axis: i64, data: &str, indices: (ElementType, &str)) -> Result<String, Vec<ShapeErrorKind>> {
        let data = PortFact::of(ElementType::F32, data.parse().unwrap());
        let indices = PortFact::of(indices.0, indices.1.parse().unwrap());
        let inputs = [Input::new(&data), Input::new(&indices)];
        match (GatherElements { axis }).infer(&inputs) {
            Ok(facts) => Ok(facts[0].shape.to_string()),
            Err(p) => Err(p.into_vec().into_iter().map(|p| p.kind).collect()),
        }
    }

    /// OpenVINO's type_prop tests of GatherElements-6: static, dynamic
    /// and interval shapes.
    #[test]
    fn shapes_infer_what_openvino_infers() {
        let i32s = ElementType::I32;
        let i64s = ElementType::I64;
        let table: &[(i64, &str, (ElementType, &str), &str)] = &[
            (-2, "[1,2,3,4]", (i32s, "[1,2,10,4]"), "[1,2,10,4]"),
            (0, "[3,3]", (i32s, "[2,3]"), "[2,3]"),
            (1, "[3,3]", (i32s, "[3,1]"), "[3,1]"),
            (0, "[3,3,10000]", (i32s, "[300,3,10000]"), "[300,3,10000]"),
            (2, "[300,3,10]", (i32s, "[300,3,10000]"), "[300,3,10000]"),
            (-1, "[300,3,10,1]", (i64s, "[300,3,10,33333]"), "[300,3,10,33333]"),
            (0, "[4,4,?]", (i64s, "[1,?,5]"), "[1,4,5]"),
            (0, "[4,4,?]", (i64s, "[1,?,?]"), "[1,4,?]"),
            (0, "[4,1..7,5]", (i64s, "[1,5..10,5]"), "[1,5..7,5]"),
            (0, "...", (i64s, "[4,7,5]"), "[4,7,5]"),
            (0, "[4,1..7,5]", (i64s, "..."), "[?,1..7,5]"),
            (0, "[4,7,5]", (i64s, "..."), "[?,7,5]"),
            (
                2,
                "[?,2..4,1..5,?,4..8,2..4]",
                (i32s, "[?,3..6,6..10,4..8,?,4..6]"),
                "[?,3..4,6..10,4..8,4..8,4]",
            ),
        ];
        for &(axis, data, indices, want) in table {
            assert_eq!(infer(axis, data, indices), Ok(want.to_owned()), "{axis} {data} {indices:?}");
        }
    }

    #[test]
    fn openvinos_refusals_are_refused() {
        let i32s = ElementType::I32;
        let kinds = |r: Result<String, Vec<ShapeErrorKind>>| {
            r.unwrap_err()
                .iter()
                .map(|k| format!("{k:?}").split(' ').next().unwrap_or("").to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(kinds(infer(1, "[3,3]", (ElementType::U32, "[3,1]"))), ["IndexType"]);
        assert_eq!(kinds(infer(1, "[3,3]", (ElementType::F32, "[3,1]"))), ["IndexType"]);
        assert_eq!(kinds(infer(-33, "[3,3]", (i32s, "[2,1]"))), ["OpAxisOutOfRange"]);
        assert_eq!(kinds(infer(0, "[3,3]", (i32s, "[2,3,3333]"))), ["GatherElementsShapes"]);
        assert_eq!(kinds(infer(1, "[3,3]", (i32s, "[2,1]"))), ["GatherElementsShapes"]);
        assert_eq!(kinds(infer(0, "[4,2,4,?]", (i32s, "[1,3,?,5]"))), ["GatherElementsShapes"]);
        assert_eq!(kinds(infer(0, "[4,4,5]", (i32s, "[1,5..10,5]"))), ["GatherElementsShapes"]);
        assert_eq!(kinds(infer(0, "[]", (i32s, "[1]"))), ["OpAxisOutOfRange"]);
        assert_eq!(kinds(infer(0, "[2]", (i32s, "[]"))), ["InputShape"]);
    }

    #[test]
    fn constant_indices_are_checked_when_the_model_loads() {
        let data = PortFact::of(ElementType::F32, "[2,3]".parse().unwrap());
        let indices = PortFact::known(Tensor::from_vec(&[2, 1], vec![1i64, 3]).unwrap());
        let inputs = [Input::new(&data), Input::new(&indices)];
        let err = GatherElements { axis: -1 }.infer(&inputs).unwrap_err().into_vec().remove(0).kind;
        assert_eq!(
            err.to_string(),
            "GatherElements index 3 at position [1, 0] of its indices is out of range: an index must lie between 0 and 2"
        );
    }
}
