//! Split-1: cut the data into equal parts along an axis.
//!
//! Along an interval axis OpenVINO divides both bounds by `num_splits`,
//! rounding down, and refuses only an upper bound below `num_splits`;
//! ovir infers the same.

use ovir_ir::Layer;
use ovir_tensor::{normalize_axis, Dim, PartialShape, Tensor};

use crate::attrs;
use crate::dims::{dims_of, fact_with_dims, input_rank, integer_input};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};
use crate::values::first_whole;

/// Cuts the data into `num_splits` equal parts along the axis the second
/// input (a scalar) names; the layer has one output per part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    /// The `num_splits` attribute: the number of parts and outputs, 1 or
    /// more.
    pub num_splits: u64,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Split",
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (2, Some(2)),
    outputs: (1, None),
};

impl BuiltinOp for Split {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let value = attrs::int(layer, SPEC.name, "num_splits", &mut problems);
        let Some(value) = value else { return Err(problems) };
        let num_splits = match u64::try_from(value) {
            Ok(n) if n > 0 => n,
            _ => {
                problems.attr("num_splits", ShapeErrorKind::SplitCount { value });
                return Err(problems);
            }
        };
        if layer.outputs.len() as u64 != num_splits {
            problems.layer(ShapeErrorKind::OutputCount {
                op: SPEC.name,
                expected: num_splits as usize,
                found: layer.outputs.len(),
            });
            return Err(problems);
        }
        Ok(Split { num_splits })
    }

    fn write(&self) -> OpLayer {
        let mut layer = OpLayer::builtin(&SPEC, "opset1").attr("num_splits", self.num_splits);
        layer.outputs = self.num_splits as usize;
        layer
    }

    fn examples() -> Vec<Self> {
        vec![Split { num_splits: 1 }, Split { num_splits: 2 }, Split { num_splits: 3 }]
    }
}

impl Operation for Split {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, axis] = exactly::<2>(SPEC.name, inputs)?;
        let mut problems = Problems::new();
        let ok = integer_input(&mut problems, "Split", "axis", axis.fact)
            & input_rank(&mut problems, "Split", "axis", axis.fact, &[0], "a scalar");
        let axis_value = if ok { axis.fact.value.as_ref() } else { None };
        if !problems.is_empty() {
            return Err(problems);
        }
        let n = self.num_splits;
        let ty = data.fact.element_type;
        let (shape, part) = match (data.fact.shape.dims(), axis_value) {
            (Some(dims), Some(axis)) => {
                let cut = split_axis(axis, dims.len())
                    .and_then(|a| Ok((a, split_dim(*dims.get(a).unwrap_or(&Dim::DYNAMIC), n, a)?)));
                match cut {
                    Ok((a, part)) => {
                        let mut out = dims.to_vec();
                        if let Some(d) = out.get_mut(a) {
                            *d = part;
                        }
                        (PartialShape::new(out), part.get())
                    }
                    Err(kind) => return Err(Problems::one(kind)),
                }
            }
            (Some(dims), None) => (PartialShape::with_rank(dims.len()), None),
            (None, _) => (PartialShape::dynamic(), None),
        };
        // Parts of a list of dimensions stay known.
        let list = match (part, shape.rank()) {
            (Some(_), Some(1)) => dims_of(data.fact),
            _ => None,
        };
        let chunk = |k: u64| {
            let part = part? as usize;
            let start = (k as usize).checked_mul(part)?;
            list.as_ref()?.get(start..start.checked_add(part)?).map(<[Dim]>::to_vec)
        };
        Ok((0..n).map(|k| fact_with_dims(ty, shape.clone(), chunk(k))).collect())
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        if input != 1 {
            return ValueDomain::Any;
        }
        // Of data whose sizes are known, the first axis that divides into
        // `num_splits` parts (as the axes `[a, a + 1)`); else any axis.
        let dims = inputs.first().and_then(|d| d.shape.dims());
        let divides = |d: &Dim| d.get().is_some_and(|n| self.num_splits > 0 && n % self.num_splits == 0);
        match dims.and_then(|dims| dims.iter().position(divides)) {
            Some(a) => {
                ValueDomain::Axes { rank: Some(Size::Known(a as u64 + 1)), first: a as u64, distinct: false }
            }
            None => ValueDomain::Axes { rank: Some(Size::RankOf { input: 0 }), first: 0, distinct: false },
        }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        // Data whose split axis is not known yet gets the smallest size
        // that divides evenly.
        if input != 0 || self.num_splits == 0 {
            return None;
        }
        let dims = inputs.first()?.shape.dims()?;
        let axis = split_axis(inputs.get(1)?.value.as_ref()?, dims.len()).ok()?;
        let dim = dims.get(axis).filter(|d| !d.is_static())?;
        let size = self.num_splits.checked_mul(dim.min().div_ceil(self.num_splits).max(1))?;
        dim.contains(size)
            .then(|| (0..dims.len()).map(|k| (k == axis).then_some(Size::Known(size))).collect())
    }
}

/// The axis a Split or VariadicSplit cuts, normalised against data of
/// rank `rank`: the only value of `axis`, a whole number (a real is
/// truncated, as OpenVINO reads VariadicSplit's axis) in `[-rank,
/// rank-1]`. Split also requires an integer type, which its inference
/// checks.
///
/// ```
/// use ovir_shape::ops::split::split_axis;
/// use ovir_tensor::Tensor;
/// assert_eq!(split_axis(&Tensor::from_vec(&[], vec![-1i64])?, 3), Ok(2));
/// assert!(split_axis(&Tensor::from_vec(&[], vec![3i32])?, 3).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn split_axis(axis: &Tensor, rank: usize) -> Result<usize, ShapeErrorKind> {
    let value =
        first_whole(axis).ok_or(ShapeErrorKind::UnreadableValues { element_type: axis.element_type() })?;
    normalize_axis(value, rank).ok_or(ShapeErrorKind::OpAxisOutOfRange {
        op: "Split",
        what: "axis",
        axis: value.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
        rank,
    })
}

/// The size of each of Split's `num_splits` parts of an axis of size
/// `dim`: `dim / num_splits`, which must divide evenly. For an interval,
/// both bounds are divided (rounding down, as OpenVINO does), and an upper
/// bound below `num_splits` is refused.
///
/// ```
/// use ovir_shape::ops::split::split_dim;
/// use ovir_tensor::Dim;
/// assert_eq!(split_dim(Dim::fixed(6), 3, 1), Ok(Dim::fixed(2)));
/// assert!(split_dim(Dim::fixed(6), 4, 1).is_err());
/// assert_eq!(split_dim(Dim::interval(5, Some(11)).unwrap(), 3, 1), Ok(Dim::interval(1, Some(3)).unwrap()));
/// ```
pub fn split_dim(dim: Dim, num_splits: u64, axis: usize) -> Result<Dim, ShapeErrorKind> {
    let uneven = ShapeErrorKind::SplitUneven { axis, dim, num_splits };
    if num_splits == 0 {
        return Err(uneven);
    }
    match dim.get() {
        Some(d) if d % num_splits != 0 => Err(uneven),
        Some(d) => Ok(Dim::fixed(d / num_splits)),
        None if dim.max().is_some_and(|m| m < num_splits) => Err(uneven),
        None => {
            Ok(Dim::interval(dim.min() / num_splits, dim.max().map(|m| m / num_splits))
                .unwrap_or(Dim::DYNAMIC))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_tensor::ElementType;

    fn infer(op: Split, data: &str, axis: PortFact) -> Result<Vec<PortFact>, Vec<ShapeErrorKind>> {
        let data = PortFact::of(ElementType::F32, data.parse().unwrap());
        Split::infer(&op, &[Input::new(&data), Input::new(&axis)])
            .map_err(|p| p.into_vec().into_iter().map(|p| p.kind).collect())
    }

    fn axis(v: i64) -> PortFact {
        PortFact::known(Tensor::from_vec(&[], vec![v]).unwrap())
    }

    fn shapes(n: u64, data: &str, axis: PortFact) -> Vec<String> {
        infer(Split { num_splits: n }, data, axis).unwrap().iter().map(|f| f.shape.to_string()).collect()
    }

    // The cases of OpenVINO's type_prop/split.cpp, and its answers for
    // intervals.
    #[test]
    fn every_part_has_the_axis_divided() {
        assert_eq!(shapes(3, "2,6", axis(1)), ["[2,2]"; 3]);
        assert_eq!(shapes(3, "2,6", axis(-1)), ["[2,2]"; 3]);
        assert_eq!(shapes(2, "2,0", axis(1)), ["[2,0]"; 2]);
        assert_eq!(shapes(1, "2,6", axis(1)), ["[2,6]"]);
        assert_eq!(shapes(2, "2,2..9", axis(1)), ["[2,1..4]"; 2]);
        assert_eq!(shapes(4, "2,3..9", axis(1)), ["[2,..2]"; 4]);
        assert_eq!(shapes(3, "2,5..11", axis(1)), ["[2,1..3]"; 3]);
        assert_eq!(shapes(2, "2,3..", axis(1)), ["[2,1..]"; 2]);
        assert_eq!(shapes(2, "2,?", axis(1)), ["[2,?]"; 2]);
        assert_eq!(shapes(2, "...", axis(1)), ["[...]"; 2]);
        let unknown = PortFact::of(ElementType::I64, PartialShape::scalar());
        assert_eq!(shapes(2, "2,6", unknown), ["[?,?]"; 2]);
        let u8_axis = PortFact::known(Tensor::from_vec(&[], vec![1u8]).unwrap());
        assert_eq!(shapes(2, "2,6", u8_axis), ["[2,3]"; 2]);
    }

    #[test]
    fn what_does_not_divide_is_refused() {
        let err = |n, data: &str, a| infer(Split { num_splits: n }, data, a).unwrap_err();
        assert_eq!(
            err(4, "2,6", axis(1)),
            [ShapeErrorKind::SplitUneven { axis: 1, dim: Dim::fixed(6), num_splits: 4 }]
        );
        let dim = Dim::interval(1, Some(3)).unwrap();
        assert_eq!(err(4, "2,1..3", axis(1)), [ShapeErrorKind::SplitUneven { axis: 1, dim, num_splits: 4 }]);
        assert_eq!(
            err(2, "2,6", axis(2)),
            [ShapeErrorKind::OpAxisOutOfRange { op: "Split", what: "axis", axis: 2, rank: 2 }]
        );
        assert_eq!(
            err(2, "", axis(0)),
            [ShapeErrorKind::OpAxisOutOfRange { op: "Split", what: "axis", axis: 0, rank: 0 }]
        );
        let vector = PortFact::known(Tensor::from_vec(&[1], vec![1i64]).unwrap());
        assert!(matches!(err(2, "2,6", vector)[..], [ShapeErrorKind::InputShape { input: "axis", .. }]));
        let float = PortFact::known(Tensor::from_vec(&[], vec![1f32]).unwrap());
        assert_eq!(
            err(2, "2,6", float),
            [ShapeErrorKind::IntegerInput { op: "Split", input: "axis", found: ElementType::F32 }]
        );
        assert_eq!(
            err(4, "2,6", axis(1))[0].to_string(),
            "Split cannot divide axis 1 of 6 elements into 4 equal parts"
        );
    }

    #[test]
    fn num_splits_is_positive_and_the_layer_has_one_output_per_part() {
        let layer = |n: &str, outputs: usize| {
            let mut l = OpLayer::builtin(&SPEC, "opset1").attr("num_splits", n);
            l.outputs = outputs;
            Split::build(&l.to_layer_with(2), 1).map_err(|p| p.into_vec().remove(0).kind)
        };
        assert_eq!(layer("3", 3), Ok(Split { num_splits: 3 }));
        assert_eq!(layer("0", 1), Err(ShapeErrorKind::SplitCount { value: 0 }));
        assert_eq!(layer("-2", 1), Err(ShapeErrorKind::SplitCount { value: -2 }));
        assert_eq!(layer("3", 2), Err(ShapeErrorKind::OutputCount { op: "Split", expected: 3, found: 2 }));
        assert!(matches!(layer("two", 2), Err(ShapeErrorKind::InvalidInteger { .. })));
        let missing = OpLayer::builtin(&SPEC, "opset1").to_layer_with(2);
        assert!(Split::build(&missing, 1).is_err());
        crate::ops::check_round_trips::<Split>();
    }

    #[test]
    fn parts_of_a_list_of_dimensions_stay_known() {
        let mut list = PortFact::of(ElementType::I64, "4".parse().unwrap());
        list.value_dims = Some(vec![Dim::fixed(1), Dim::DYNAMIC, Dim::fixed(3), Dim::fixed(4)]);
        let facts =
            Split::infer(&Split { num_splits: 2 }, &[Input::new(&list), Input::new(&axis(0))]).unwrap();
        assert_eq!(facts[0].value_dims, Some(vec![Dim::fixed(1), Dim::DYNAMIC]));
        assert_eq!(facts[1].value_dims, Some(vec![Dim::fixed(3), Dim::fixed(4)]));
    }

    #[test]
    fn example_data_divides_evenly() {
        let data = PortFact::of(ElementType::F32, "2,?".parse().unwrap());
        let data_5 = PortFact::of(ElementType::F32, "2,5..11".parse().unwrap());
        let a = axis(1);
        let op = Split { num_splits: 3 };
        assert_eq!(op.input_shape(0, &[&data, &a]), Some(vec![None, Some(Size::Known(3))]));
        assert_eq!(op.input_shape(0, &[&data_5, &a]), Some(vec![None, Some(Size::Known(6))]));
        assert_eq!(Split { num_splits: 0 }.input_shape(0, &[&data, &a]), None);
        assert_eq!(
            op.input_values(1, &[&data, &a]),
            ValueDomain::Axes { rank: Some(Size::RankOf { input: 0 }), first: 0, distinct: false }
        );
        // An axis made up for static data divides evenly: of [4, 6], axis 1.
        let data = PortFact::of(ElementType::F32, "4,6".parse().unwrap());
        assert_eq!(
            op.input_values(1, &[&data, &a]),
            ValueDomain::Axes { rank: Some(Size::Known(2)), first: 1, distinct: false }
        );
    }
}
