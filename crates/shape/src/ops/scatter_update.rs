//! ScatterUpdate-3: a copy of the data with slices along an axis replaced
//! by the updates.
//!
//! The witnesses agree on negative indices: the spec, OpenVINO's reference
//! and its CPU plugin all refuse them, and so does ovir. Where indices
//! repeat, the spec leaves the result undefined; ovir writes the updates
//! in index order, so the last one wins (as the reference and, on the
//! cases measured, the CPU plugin do).

use ovir_ir::Layer;
use ovir_tensor::{normalize_axis, Dim, PartialShape};

use crate::dims::{checked_ints, dims_of, fact_with_dims, integer_input, ints_of};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};
use crate::ops::gather_elements::check_indices;

const OP: &str = "ScatterUpdate";

/// `out = data`, then `out[..., indices[i...], ...] = updates[..., i...,
/// ...]` along `axis` (the fourth input) for every position `i...` of the
/// indices, in order. No attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScatterUpdate;

pub(crate) const SPEC: OpSpec = OpSpec {
    name: OP,
    aliases: &[],
    versions: Versions::Opsets(3, 16),
    inputs: (4, Some(4)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for ScatterUpdate {
    const SPEC: OpSpec = SPEC;

    fn build(_layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(ScatterUpdate)
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset3")
    }

    fn examples() -> Vec<Self> {
        vec![ScatterUpdate]
    }
}

impl Operation for ScatterUpdate {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, indices, updates, axis] = exactly::<4>(SPEC.name, inputs)?;
        let mut problems = Problems::new();
        integer_input(&mut problems, OP, "indices", indices.fact);
        let axis_ok = integer_input(&mut problems, OP, "axis", axis.fact);
        let ty = same_type(&mut problems, OP, data.fact, updates.fact);
        let axis_value = axis_value(&mut problems, OP, axis_ok, axis.fact);
        let axis = match scatter_update_axis(&data.fact.shape, axis_value) {
            Ok(a) => a,
            Err(kind) => {
                problems.layer(kind);
                return Err(problems);
            }
        };
        if let Err(kind) = check_updates(&data.fact.shape, &indices.fact.shape, &updates.fact.shape, axis) {
            problems.layer(kind);
        }
        // Known indices are checked now, as the kernel checks them.
        if let (Some(values), Some(axis)) = (&indices.fact.value, axis) {
            let size = data.fact.shape.dims().and_then(|d| d.get(axis)).and_then(|d| d.get());
            if let (Some(size), true) = (size, values.element_type().is_integral()) {
                if let Err(kind) = check_indices(OP, values, size, false) {
                    problems.layer(kind);
                }
            }
        }
        // A shape's dimensions scattered into another's stay known.
        let dims = match (dims_of(data.fact), ints_of(indices.fact), dims_of(updates.fact), axis) {
            (Some(mut dims), Some(picks), Some(new), Some(0)) if picks.len() == new.len() => {
                let mut ok = true;
                for (&k, &d) in picks.iter().zip(&new) {
                    match usize::try_from(k).ok().and_then(|k| dims.get_mut(k)) {
                        Some(slot) => *slot = d,
                        None => ok = false,
                    }
                }
                ok.then_some(dims)
            }
            _ => None,
        };
        problems.or_ok(vec![fact_with_dims(ty, data.fact.shape.clone(), dims)])
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        axis_scatter_values(input, inputs, false)
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        // The updates follow the data around the axis and the indices at it.
        let axis = known_axis(inputs)?;
        let data = inputs.first()?.shape.rank()?;
        let indices = inputs.get(1)?.shape.rank()?;
        match input {
            2 => Some(
                (0..(data + indices).checked_sub(1)?)
                    .map(|k| {
                        Some(if k < axis {
                            Size::DimOf { input: 0, axis: k }
                        } else if k < axis + indices {
                            Size::DimOf { input: 1, axis: k - axis }
                        } else {
                            Size::DimOf { input: 0, axis: k + 1 - indices }
                        })
                    })
                    .collect(),
            ),
            _ => None,
        }
    }
}

/// The axis of a ScatterUpdate, normalised, when the data rank and the
/// axis value are known.
/// The values a scatter along an axis (ScatterUpdate,
/// ScatterElementsUpdate: data, indices, updates, axis) takes: indices
/// into the data's axis, negative ones too when `negative`, and an axis
/// of the data.
pub(crate) fn axis_scatter_values(input: usize, inputs: &[&PortFact], negative: bool) -> ValueDomain {
    match input {
        1 => ValueDomain::Indices {
            size: known_axis(inputs).map(|axis| Size::DimOf { input: 0, axis }),
            negative,
        },
        3 => ValueDomain::Axes { rank: Some(Size::RankOf { input: 0 }), first: 0, distinct: false },
        _ => ValueDomain::Any,
    }
}

/// The axis of a scatter along one, in `[0, rank)`, when its value and
/// the data's rank are known.
pub(crate) fn known_axis(inputs: &[&PortFact]) -> Option<usize> {
    let rank = inputs.first()?.shape.rank()?;
    let axis = inputs.get(3).and_then(|a| ints_of(a)).and_then(|v| v.first().copied())?;
    normalize_axis(axis, rank)
}

/// The output type of a scatter: the data's, which the updates must share
/// (a dynamic one takes the other's).
pub(crate) fn same_type(
    problems: &mut Problems,
    op: &'static str,
    data: &PortFact,
    updates: &PortFact,
) -> ovir_tensor::ElementType {
    let (d, u) = (data.element_type, updates.element_type);
    if d.is_static() && u.is_static() && d != u {
        problems.layer(ShapeErrorKind::InputTypes { op, input: 2, found: u, expected: d });
    }
    if d.is_static() {
        d
    } else {
        u
    }
}

/// The value of a scatter's axis input (integer when `integer`), when it
/// is known; an axis of more than one element is a problem.
pub(crate) fn axis_value(
    problems: &mut Problems,
    op: &'static str,
    integer: bool,
    axis: &PortFact,
) -> Option<i64> {
    let shape_ok = match axis.shape.dims() {
        Some([]) | None => true,
        Some([n]) if n.compatible(Dim::fixed(1)) => true,
        Some(_) => {
            problems.layer(ShapeErrorKind::InputShape {
                op,
                input: "axis",
                expected: "a scalar or a tensor of one element",
                shape: axis.shape.clone(),
            });
            false
        }
    };
    checked_ints(integer && shape_ok, axis).and_then(|v| v.first().copied())
}

/// ScatterUpdate's axis in `[0, rank)`, when the axis and the data rank are
/// known; an axis outside `[-rank, rank)` is an error.
pub fn scatter_update_axis(data: &PartialShape, axis: Option<i64>) -> Result<Option<usize>, ShapeErrorKind> {
    op_axis(OP, data, axis)
}

/// A scatter's axis in `[0, rank)`, when the axis and the data rank are
/// known; an axis outside `[-rank, rank)` is an error naming `op`.
pub(crate) fn op_axis(
    op: &'static str,
    data: &PartialShape,
    axis: Option<i64>,
) -> Result<Option<usize>, ShapeErrorKind> {
    match (axis, data.rank()) {
        (Some(a), Some(r)) => normalize_axis(a, r).map(Some).ok_or(ShapeErrorKind::OpAxisOutOfRange {
            op,
            what: "axis",
            axis: a,
            rank: r,
        }),
        _ => Ok(None),
    }
}

/// The shape ScatterUpdate's updates must have, `data[:axis] + indices +
/// data[axis+1:]`, as far as it is known: with the axis unknown, only its
/// rank. `None` when a rank is unknown.
pub fn scatter_update_updates_shape(
    data: &PartialShape,
    indices: &PartialShape,
    axis: Option<usize>,
) -> Option<PartialShape> {
    let (d, i) = (data.dims()?, indices.dims()?);
    let rank = (d.len() + i.len()).checked_sub(1)?;
    let Some(axis) = axis else {
        return Some(PartialShape::new(vec![Dim::DYNAMIC; rank]));
    };
    let mut dims = Vec::with_capacity(rank);
    dims.extend(d.get(..axis)?);
    dims.extend(i);
    dims.extend(d.get(axis + 1..)?);
    Some(PartialShape::new(dims))
}

/// Checks that the updates fit the data and indices along `axis` (see
/// [`scatter_update_updates_shape`]).
pub fn check_updates(
    data: &PartialShape,
    indices: &PartialShape,
    updates: &PartialShape,
    axis: Option<usize>,
) -> Result<(), ShapeErrorKind> {
    match scatter_update_updates_shape(data, indices, axis) {
        Some(expected) if !expected.compatible(updates) => {
            Err(ShapeErrorKind::ScatterUpdates { op: OP, expected, updates: updates.clone() })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use ovir_tensor::{ElementType, Tensor};

    use super::*;

    fn infer(data: &str, indices: &str, updates: &str, axis: i64) -> Result<String, Vec<ShapeErrorKind>> {
        let data = PortFact::of(ElementType::F32, data.parse().unwrap());
        let indices = PortFact::of(ElementType::I32, indices.parse().unwrap());
        let updates = PortFact::of(ElementType::F32, updates.parse().unwrap());
        let axis = PortFact::known(Tensor::from_vec(&[1], vec![axis as i32]).unwrap());
        let inputs = [Input::new(&data), Input::new(&indices), Input::new(&updates), Input::new(&axis)];
        match ScatterUpdate.infer(&inputs) {
            Ok(facts) => Ok(facts[0].shape.to_string()),
            Err(p) => Err(p.into_vec().into_iter().map(|p| p.kind).collect()),
        }
    }

    fn kind(r: Result<String, Vec<ShapeErrorKind>>) -> String {
        let errors = r.unwrap_err();
        format!("{:?}", errors[0]).split([' ', '{']).next().unwrap_or_default().to_owned()
    }

    /// OpenVINO's type_prop tests of ScatterUpdate-3.
    #[test]
    fn shapes_infer_what_openvino_infers() {
        assert_eq!(infer("[2,3,4]", "[2,1]", "[2,2,1,4]", 1), Ok("[2,3,4]".into()));
        assert_eq!(infer("...", "[2,1]", "[2,2,1,4]", 1), Ok("[...]".into()));
        // The output is the data's shape, intervals and all.
        assert_eq!(infer("[?,2..8,1..9,4]", "[2,1]", "[3,2,1,2,4]", 1), Ok("[?,2..8,1..9,4]".into()));
        assert_eq!(infer("[2,3,4]", "[2]", "[2,2,4]", -2), Ok("[2,3,4]".into()));
    }

    #[test]
    fn openvinos_refusals_are_refused() {
        assert_eq!(kind(infer("[2,3,4]", "[2,1]", "[2,1,4]", 0)), "ScatterUpdates");
        assert_eq!(kind(infer("[2,3,4]", "[2,1]", "[2,2,1,4]", 0)), "ScatterUpdates");
        assert_eq!(kind(infer("[2,3,4]", "[2,1]", "[2,3,1,4]", 1)), "ScatterUpdates");
        assert_eq!(kind(infer("[2,3,4]", "[2,1]", "[3,2,1,4]", 1)), "ScatterUpdates");
        assert_eq!(kind(infer("[2,3,4]", "[2,1]", "[2,2,1,5]", 1)), "ScatterUpdates");
        assert_eq!(kind(infer("[2,3,4]", "[2,1]", "[2,2,1,4]", 3)), "OpAxisOutOfRange");
        let types = |d: ElementType, i: ElementType, u: ElementType, a: ElementType| {
            let shape = |s: &str| s.parse::<PartialShape>().unwrap();
            let facts = [
                PortFact::of(d, shape("[2,3,4]")),
                PortFact::of(i, shape("[2,1]")),
                PortFact::of(u, shape("[2,2,1,4]")),
                PortFact::of(a, shape("[1]")),
            ];
            let inputs: Vec<Input<'_>> = facts.iter().map(Input::new).collect();
            ScatterUpdate.infer(&inputs).unwrap_err().into_vec().remove(0).kind
        };
        use ElementType::{F16, F32, I16, I32, I64, U32, U64};
        assert_eq!(
            types(F32, I32, U32, I32),
            ShapeErrorKind::InputTypes { op: OP, input: 2, found: U32, expected: F32 }
        );
        assert_eq!(
            types(F32, F16, F32, I64),
            ShapeErrorKind::IntegerInput { op: OP, input: "indices", found: F16 }
        );
        assert_eq!(
            types(I16, U64, I16, F32),
            ShapeErrorKind::IntegerInput { op: OP, input: "axis", found: F32 }
        );
        // An axis of two elements.
        let facts = [
            PortFact::of(F32, "[2,3,4]".parse().unwrap()),
            PortFact::of(I32, "[2,1]".parse().unwrap()),
            PortFact::of(F32, "[2,2,1,4]".parse().unwrap()),
            PortFact::of(I32, "[2]".parse().unwrap()),
        ];
        let inputs: Vec<Input<'_>> = facts.iter().map(Input::new).collect();
        let err = ScatterUpdate.infer(&inputs).unwrap_err().into_vec().remove(0).kind;
        assert!(matches!(err, ShapeErrorKind::InputShape { input: "axis", .. }), "{err:?}");
    }

    #[test]
    fn constant_indices_are_checked_and_negative_ones_refused() {
        let data = PortFact::of(ElementType::F32, "[3,2]".parse().unwrap());
        let updates = PortFact::of(ElementType::F32, "[2,2]".parse().unwrap());
        let axis = PortFact::known(Tensor::from_vec(&[], vec![0i64]).unwrap());
        for (values, error) in [
            (vec![2i64, 0], None),
            (vec![0, -1], Some("ScatterUpdate index -1 at position [1] of its indices is out of range: an index must lie between 0 and 2")),
            (vec![3, 0], Some("ScatterUpdate index 3 at position [0] of its indices is out of range: an index must lie between 0 and 2")),
        ] {
            let indices = PortFact::known(Tensor::from_vec(&[2], values).unwrap());
            let inputs = [Input::new(&data), Input::new(&indices), Input::new(&updates), Input::new(&axis)];
            let got = ScatterUpdate.infer(&inputs).map_err(|p| p.into_vec().remove(0).kind.to_string());
            assert_eq!(got.err().as_deref(), error);
        }
    }

    /// type_prop's value propagation: a shape scattered into another
    /// keeps its dimensions, intervals included.
    #[test]
    fn scattered_dimensions_stay_known() {
        let data = PortFact::known(Tensor::from_vec(&[2], vec![1i64, 0]).unwrap());
        let indices = PortFact::known(Tensor::from_vec(&[1], vec![1i64]).unwrap());
        let mut updates = PortFact::of(ElementType::I64, "[1]".parse().unwrap());
        updates.value_dims = Some(vec![Dim::interval(5, Some(7)).unwrap()]);
        let axis = PortFact::known(Tensor::from_vec(&[1], vec![0i64]).unwrap());
        let inputs = [Input::new(&data), Input::new(&indices), Input::new(&updates), Input::new(&axis)];
        let out = ScatterUpdate.infer(&inputs).unwrap().remove(0);
        assert_eq!(out.value_dims, Some(vec![Dim::fixed(1), Dim::interval(5, Some(7)).unwrap()]));
    }
}
