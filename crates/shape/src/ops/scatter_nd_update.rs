//! ScatterNDUpdate-3 and ScatterNDUpdate-15: a copy of the data with the
//! elements or slices that tuples of indices pick replaced by (or, in
//! version 15, combined with) the updates.
//!
//! Where the witnesses disagree:
//! - ScatterNDUpdate-3's spec takes indices in `[0, s-1]`; OpenVINO's
//!   reference and CPU plugin count negative ones from the end, as
//!   version 15's spec does. Two against one: ovir counts them in both.
//! - On boolean data, `sub` is XOR in the spec and the reference; the CPU
//!   plugin subtracts as integers and makes the result a boolean (false
//!   minus true twice is true there). ovir follows the spec and the
//!   reference.
//! - Where tuples repeat, the specs leave the order undefined; ovir
//!   applies the updates in index order, so with no reduction the last
//!   one wins, as the reference and the CPU plugin do on the cases
//!   measured.

use ovir_ir::Layer;
use ovir_tensor::{Dim, ElementType, PartialShape, Tensor};

use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};
use crate::ops::gather_elements::index_in;
use crate::ops::scatter_update::same_type;

const OP: &str = "ScatterNDUpdate";

/// How ScatterNDUpdate-15 combines an update with the element it lands
/// on (its `reduction` attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScatterNdReduction {
    /// The update replaces the element.
    None,
    /// `element + update` (OR on booleans).
    Sum,
    /// `element - update` (XOR on booleans).
    Sub,
    /// `element * update` (AND on booleans).
    Prod,
    /// The smaller of the two.
    Min,
    /// The larger of the two.
    Max,
}

impl ScatterNdReduction {
    const ALL: [ScatterNdReduction; 6] = [Self::None, Self::Sum, Self::Sub, Self::Prod, Self::Min, Self::Max];

    /// Parses the `reduction` attribute, ignoring ASCII case as OpenVINO
    /// does.
    pub fn from_attr(value: &str) -> Option<Self> {
        let v = value.trim();
        Self::ALL.into_iter().find(|r| v.eq_ignore_ascii_case(r.as_str()))
    }

    /// The attribute spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Sum => "sum",
            Self::Sub => "sub",
            Self::Prod => "prod",
            Self::Min => "min",
            Self::Max => "max",
        }
    }
}

/// `out = data`, then for each tuple `t` along the last axis of the
/// indices, `out[t] = updates[position of t]` (or that combined with
/// `out[t]` by the reduction), in index order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScatterNdUpdate {
    /// The `reduction` attribute (version 15; `None` in version 3).
    pub reduction: ScatterNdReduction,
    /// The op version: 3 (opsets 4 to 14) or 15.
    pub version: u32,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: OP,
    aliases: &[],
    versions: Versions::Opsets(4, 16),
    inputs: (3, Some(3)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for ScatterNdUpdate {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, opset: u32) -> Result<Self, Problems> {
        let version = if opset >= 15 { 15 } else { 3 };
        let reduction = match (version, layer.attrs.value("reduction")) {
            (15, Some(value)) => match ScatterNdReduction::from_attr(value) {
                Some(r) => r,
                None => {
                    let mut problems = Problems::new();
                    problems.attr(
                        "reduction",
                        ShapeErrorKind::InvalidReduction {
                            op: OP,
                            value: value.to_string(),
                            expected: "none, sum, sub, prod, min and max",
                        },
                    );
                    return Err(problems);
                }
            },
            _ => ScatterNdReduction::None,
        };
        Ok(ScatterNdUpdate { reduction, version })
    }

    fn write(&self) -> OpLayer {
        match self.version {
            15 => OpLayer::builtin(&SPEC, "opset15").attr("reduction", self.reduction.as_str()),
            _ => OpLayer::builtin(&SPEC, "opset4"),
        }
    }

    fn examples() -> Vec<Self> {
        let mut all = vec![ScatterNdUpdate { reduction: ScatterNdReduction::None, version: 3 }];
        all.extend(ScatterNdReduction::ALL.map(|reduction| ScatterNdUpdate { reduction, version: 15 }));
        all
    }
}

impl Operation for ScatterNdUpdate {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, indices, updates] = exactly::<3>(SPEC.name, inputs)?;
        let mut problems = Problems::new();
        let ity = indices.fact.element_type;
        if ity.is_static() && !matches!(ity, ElementType::I32 | ElementType::I64) {
            problems.layer(ShapeErrorKind::IndexType { op: OP, input: "indices", found: ity });
        }
        let ty = same_type(&mut problems, OP, data.fact, updates.fact);
        if self.reduction != ScatterNdReduction::None && ty.is_static() && !reduces(ty) {
            problems.layer(ShapeErrorKind::ReductionType {
                op: OP,
                reduction: self.reduction.as_str(),
                found: ty,
            });
        }
        if let Err(kind) = check_nd_updates(&data.fact.shape, &indices.fact.shape, &updates.fact.shape) {
            problems.layer(kind);
            return Err(problems);
        }
        // Known indices are checked now, as the kernel checks them.
        if let (Some(values), Some(data)) = (&indices.fact.value, data.fact.shape.to_static()) {
            if let Err(kind) = check_nd_indices(values, &data) {
                problems.layer(kind);
            }
        }
        problems.or_ok(vec![PortFact::of(ty, data.fact.shape.clone())])
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        match input {
            // Each index picks from its own data dimension: indices below
            // the smallest of them suit every one.
            1 => {
                let size = (|| {
                    let data = inputs.first()?.shape.dims()?;
                    let length = inputs.get(1)?.shape.dims()?.last()?.get()?;
                    let picked = data.get(..usize::try_from(length).ok()?)?;
                    picked.iter().map(|d| d.get()).collect::<Option<Vec<_>>>()?.into_iter().min()
                })();
                ValueDomain::Indices { size: size.map(Size::Known), negative: true }
            }
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        // The updates: the indices but their last axis, then the data
        // after the dimensions the tuples pick.
        let data = inputs.first()?.shape.rank()?;
        let indices = inputs.get(1)?.shape.dims()?;
        let length = usize::try_from(indices.last()?.get()?).ok()?;
        let lead = indices.len() - 1;
        match input {
            2 => Some(
                (0..lead)
                    .map(|k| Some(Size::DimOf { input: 1, axis: k }))
                    .chain((length..data).map(|k| Some(Size::DimOf { input: 0, axis: k })))
                    .collect(),
            ),
            _ => None,
        }
    }
}

/// Whether a scatter's reduction combines elements of `ty`: every number
/// type of whole bytes and boolean, what the executor's reductions take.
pub fn reduces(ty: ElementType) -> bool {
    use ElementType as E;
    matches!(
        ty,
        E::Boolean
            | E::I8
            | E::U8
            | E::I16
            | E::U16
            | E::I32
            | E::U32
            | E::I64
            | E::U64
            | E::F16
            | E::Bf16
            | E::F32
            | E::F64
            | E::F8e4m3
            | E::F8e5m2
            | E::F8e8m0
    )
}

/// The shape ScatterNDUpdate's updates must have, `indices[:-1] +
/// data[k:]` with `k` the length of the tuples, as far as it is known;
/// `None` when a rank or `k` is unknown. A rank of 0 or less, or tuples
/// longer than the data's rank, are errors.
pub fn scatter_nd_updates_shape(
    data: &PartialShape,
    indices: &PartialShape,
) -> Result<Option<PartialShape>, ShapeErrorKind> {
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
    let (Some(d), Some(i)) = (data.dims(), indices.dims()) else {
        return Ok(None);
    };
    let Some(length) = i.last().and_then(|l| l.get()) else {
        return Ok(None);
    };
    let too_long = ShapeErrorKind::ScatterNdTupleLength { length, data_rank: d.len() };
    let k = usize::try_from(length).map_err(|_| too_long.clone())?;
    let rest = d.get(k..).ok_or(too_long)?;
    let mut dims: Vec<Dim> = i.get(..i.len() - 1).unwrap_or_default().to_vec();
    dims.extend(rest);
    Ok(Some(PartialShape::new(dims)))
}

/// Checks that the updates fit the data and indices (see
/// [`scatter_nd_updates_shape`]): of that shape, or of one element where
/// that shape is a scalar, as the spec allows.
pub fn check_nd_updates(
    data: &PartialShape,
    indices: &PartialShape,
    updates: &PartialShape,
) -> Result<(), ShapeErrorKind> {
    let Some(expected) = scatter_nd_updates_shape(data, indices)? else {
        return Ok(());
    };
    let one = |u: &PartialShape| u.dims().is_some_and(|d| d.iter().all(|x| x.compatible(Dim::fixed(1))));
    if expected.compatible(updates) || (expected.rank() == Some(0) && one(updates)) {
        Ok(())
    } else {
        Err(ShapeErrorKind::ScatterUpdates { op: OP, expected, updates: updates.clone() })
    }
}

/// Checks every index of `indices` (an integer tensor whose last axis
/// holds the tuples) against the data dimension it picks from, `[-s, s)`.
/// The first that does not fit is an error naming its position.
pub fn check_nd_indices(indices: &Tensor, data: &[usize]) -> Result<(), ShapeErrorKind> {
    let length = indices.shape().last().copied().unwrap_or(0);
    let mut at = 0usize;
    let read = crate::try_for_each_integer(indices, |i| {
        let size = data.get(at % length.max(1)).copied().unwrap_or(0) as u64;
        index_in(OP, i, size, true, at, indices.shape())?;
        at += 1;
        Ok(())
    });
    read.unwrap_or(Err(ShapeErrorKind::IntegerInput {
        op: OP,
        input: "indices",
        found: indices.element_type(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn infer_typed(
        types: [ElementType; 3],
        data: &str,
        indices: &str,
        updates: &str,
    ) -> Result<String, Vec<ShapeErrorKind>> {
        let facts = [
            PortFact::of(types[0], data.parse().unwrap()),
            PortFact::of(types[1], indices.parse().unwrap()),
            PortFact::of(types[2], updates.parse().unwrap()),
        ];
        let inputs: Vec<Input<'_>> = facts.iter().map(Input::new).collect();
        let op = ScatterNdUpdate { reduction: ScatterNdReduction::None, version: 3 };
        match op.infer(&inputs) {
            Ok(facts) => Ok(format!("{} {}", facts[0].element_type, facts[0].shape)),
            Err(p) => Err(p.into_vec().into_iter().map(|p| p.kind).collect()),
        }
    }

    fn infer(data: &str, indices: &str, updates: &str) -> Result<String, Vec<ShapeErrorKind>> {
        use ElementType::{F32, I32};
        infer_typed([F32, I32, F32], data, indices, updates)
    }

    /// OpenVINO's type_prop tests of ScatterNDUpdate-3.
    #[test]
    fn shapes_infer_what_openvino_infers() {
        let data = "[2..5,2,4..10]";
        assert_eq!(infer(data, "[3,2]", "[3,5]"), Ok("f32 [2..5,2,4..10]".into()));
        assert_eq!(infer(data, "...", "[3,5]"), Ok("f32 [2..5,2,4..10]".into()));
        assert_eq!(infer(data, "[3,2]", "..."), Ok("f32 [2..5,2,4..10]".into()));
        assert_eq!(infer(data, "[0..3,1]", "[3,2,8..10]"), Ok("f32 [2..5,2,4..10]".into()));
        assert_eq!(infer(data, "[3]", "[]"), Ok("f32 [2..5,2,4..10]".into()));
        assert_eq!(infer("[2,3,5,1]", "[1,3]", "[1,1]"), Ok("f32 [2,3,5,1]".into()));
        use ElementType::{Dynamic, F32, F64, I32, I64};
        assert_eq!(infer_typed([F32, Dynamic, F32], data, "[3,2]", "[3,5]"), Ok("f32 [2..5,2,4..10]".into()));
        assert_eq!(infer_typed([I64, I32, Dynamic], data, "[3,2]", "[3,5]"), Ok("i64 [2..5,2,4..10]".into()));
        assert_eq!(
            infer_typed([Dynamic, I64, Dynamic], data, "[3,2]", "[3,5]"),
            Ok("dynamic [2..5,2,4..10]".into())
        );
        assert_eq!(infer_typed([F64, I64, F64], data, "[3,2]", "[3,5]"), Ok("f64 [2..5,2,4..10]".into()));
    }

    #[test]
    fn openvinos_refusals_are_refused() {
        use ElementType::{F16, F32, I32};
        let kind = |r: Result<String, Vec<ShapeErrorKind>>| {
            format!("{:?}", r.unwrap_err()[0]).split([' ', '{']).next().unwrap_or_default().to_owned()
        };
        assert_eq!(kind(infer_typed([F32, F16, F32], "[2,3,4]", "[2,1]", "[2,3,4]")), "IndexType");
        assert_eq!(
            kind(infer_typed([F32, ElementType::U8, F32], "[2,3,4]", "[2,1]", "[2,3,4]")),
            "IndexType"
        );
        assert_eq!(kind(infer("[3,3,3]", "[1]", "[3,3,3]")), "ScatterUpdates");
        assert_eq!(kind(infer_typed([F32, I32, I32], "[3,3,3]", "[1]", "[3,3]")), "InputTypes");
        assert_eq!(kind(infer("[3,3,3]", "[1]", "[2,3]")), "ScatterUpdates");
        assert_eq!(kind(infer("[3,3,3]", "[2,4]", "[2,3,3]")), "ScatterNdTupleLength");
        assert_eq!(kind(infer("[]", "[2,1]", "[2]")), "InputShape");
        assert_eq!(kind(infer("[3]", "[]", "[]")), "InputShape");
    }

    #[test]
    fn constant_indices_count_negative_ones_from_the_end() {
        let data = PortFact::of(ElementType::F32, "[4]".parse().unwrap());
        let updates = PortFact::of(ElementType::F32, "[2]".parse().unwrap());
        for (values, error) in [
            (vec![0i64, -4], None),
            (vec![-5, 0], Some("ScatterNDUpdate index -5 at position [0, 0] of its indices is out of range: an index must lie between -4 and 3")),
            (vec![1, 4], Some("ScatterNDUpdate index 4 at position [1, 0] of its indices is out of range: an index must lie between -4 and 3")),
        ] {
            let indices = PortFact::known(Tensor::from_vec(&[2, 1], values).unwrap());
            for version in [3, 15] {
                let op = ScatterNdUpdate { reduction: ScatterNdReduction::None, version };
                let inputs = [Input::new(&data), Input::new(&indices), Input::new(&updates)];
                let got = op.infer(&inputs).map_err(|p| p.into_vec().remove(0).kind.to_string());
                assert_eq!(got.err().as_deref(), error);
            }
        }
    }

    #[test]
    fn reductions_of_strings_and_packed_types_are_refused() {
        for (ty, reduction, refused) in [
            (ElementType::String, ScatterNdReduction::Sum, true),
            (ElementType::U4, ScatterNdReduction::Max, true),
            (ElementType::String, ScatterNdReduction::None, false),
            (ElementType::U4, ScatterNdReduction::None, false),
            (ElementType::Boolean, ScatterNdReduction::Sub, false),
            (ElementType::F8e4m3, ScatterNdReduction::Prod, false),
        ] {
            let facts = [
                PortFact::of(ty, "[3]".parse().unwrap()),
                PortFact::of(ElementType::I32, "[2,1]".parse().unwrap()),
                PortFact::of(ty, "[2]".parse().unwrap()),
            ];
            let inputs: Vec<Input<'_>> = facts.iter().map(Input::new).collect();
            let got = ScatterNdUpdate { reduction, version: 15 }.infer(&inputs);
            let want = ShapeErrorKind::ReductionType { op: OP, reduction: reduction.as_str(), found: ty };
            match got {
                Err(p) if refused => assert_eq!(p.into_vec().remove(0).kind, want),
                Ok(_) if !refused => {}
                other => panic!("{ty} {reduction:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn the_reduction_is_read_in_version_15() {
        for (opset, value, want) in [
            (15, "sum", Ok((ScatterNdReduction::Sum, 15))),
            (16, "MAX", Ok((ScatterNdReduction::Max, 15))),
            (15, "none", Ok((ScatterNdReduction::None, 15))),
            (4, "sum", Ok((ScatterNdReduction::None, 3))),
            (15, "mean", Err(())),
        ] {
            let layer =
                OpLayer::builtin(&SPEC, format!("opset{opset}")).attr("reduction", value).to_layer_with(3);
            let got =
                ScatterNdUpdate::build(&layer, opset).map(|op| (op.reduction, op.version)).map_err(drop);
            assert_eq!(got, want, "{opset} {value}");
        }
    }
}
