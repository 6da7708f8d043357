//! VariadicSplit-1: cut the data into parts of given lengths along an
//! axis.
//!
//! Where the witnesses disagree:
//! - The spec asks for integer axis and lengths; OpenVINO's shape
//!   inference, its reference and its CPU plugin all take reals too,
//!   truncated. ovir follows the two that agree and takes them.
//! - Lengths whose sum is above the axis with a -1 among them
//!   (`[1, 6, -1]` of 6 elements): OpenVINO's shape inference gives the
//!   -1 part a negative size and accepts it, and the CPU plugin runs it,
//!   giving a part of 0; the spec says the lengths add up to the axis.
//!   ovir refuses it, at load time when the values are known.
//! - OpenVINO checks the sum only for a static axis; ovir also refuses a
//!   sum outside an interval axis, which no run can accept.

use ovir_ir::Layer;
use ovir_tensor::{Dim, PartialShape, Tensor};

use crate::dims::{dims_of, fact_with_dims, input_rank};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};
use crate::ops::split::split_axis;
use crate::values::try_for_each_whole;

/// Cuts the data along the axis the second input names into parts of the
/// lengths the third input lists, one output per length; one length may
/// be -1, for what the others leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VariadicSplit {
    /// The number of outputs: the layer's, which must be the number of
    /// lengths.
    pub outputs: usize,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "VariadicSplit",
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (3, Some(3)),
    outputs: (1, None),
};

impl BuiltinOp for VariadicSplit {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(VariadicSplit { outputs: layer.outputs.len() })
    }

    fn write(&self) -> OpLayer {
        OpLayer { outputs: self.outputs, ..OpLayer::builtin(&SPEC, "opset1") }
    }

    fn examples() -> Vec<Self> {
        vec![VariadicSplit { outputs: 1 }, VariadicSplit { outputs: 2 }, VariadicSplit { outputs: 3 }]
    }
}

/// Checks that an input holds integers or reals, when its type is known.
fn number_input(problems: &mut Problems, input: &'static str, fact: &PortFact) -> bool {
    let ty = fact.element_type;
    if ty.is_static() && !ty.is_integral() && !ty.is_real() {
        problems.layer(ShapeErrorKind::NumberInput { op: "VariadicSplit", input, found: ty });
        return false;
    }
    true
}

impl Operation for VariadicSplit {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, axis, lengths] = exactly::<3>(SPEC.name, inputs)?;
        let mut problems = Problems::new();
        let mut axis_ok = number_input(&mut problems, "axis", axis.fact);
        match axis.fact.shape.dims() {
            Some([]) | None => {}
            Some([n]) if n.contains(1) => {}
            Some(_) => {
                problems.layer(ShapeErrorKind::InputShape {
                    op: "VariadicSplit",
                    input: "axis",
                    expected: "a scalar or a tensor of one element",
                    shape: axis.fact.shape.clone(),
                });
                axis_ok = false;
            }
        }
        let lengths_ok = number_input(&mut problems, "split lengths", lengths.fact)
            & input_rank(&mut problems, "VariadicSplit", "split lengths", lengths.fact, &[1], "a 1-D tensor");
        if let Some([n]) = lengths.fact.shape.dims().filter(|_| lengths_ok) {
            if !n.contains(self.outputs as u64) {
                problems.layer(ShapeErrorKind::SplitOutputs { lengths: *n, outputs: self.outputs });
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let ty = data.fact.element_type;
        let axis_value = axis.fact.value.as_ref().filter(|_| axis_ok);
        let Some((dims, axis_value)) = data.fact.shape.dims().zip(axis_value) else {
            let shape = data.fact.shape.rank().map_or(PartialShape::dynamic(), PartialShape::with_rank);
            return Ok(vec![PortFact::of(ty, shape); self.outputs]);
        };
        let a = split_axis(axis_value, dims.len()).map_err(|kind| Problems::one(variadic(kind)))?;
        let dim = dims.get(a).copied().unwrap_or(Dim::DYNAMIC);
        let mut parts = vec![Dim::DYNAMIC; self.outputs];
        if let Some(value) = lengths.fact.value.as_ref().filter(|_| lengths_ok) {
            split_dims_into(value, dim, a, &mut parts).map_err(Problems::one)?;
        }
        // Parts of a list of dimensions stay known.
        let list = if dims.len() == 1 { dims_of(data.fact) } else { None };
        let mut start = Some(0usize);
        let facts = parts
            .iter()
            .map(|part| {
                let mut out = dims.to_vec();
                if let Some(d) = out.get_mut(a) {
                    *d = *part;
                }
                let len = part.get().and_then(|n| usize::try_from(n).ok());
                let end = start.zip(len).and_then(|(s, n)| s.checked_add(n));
                let picked = list
                    .as_ref()
                    .zip(start.zip(end))
                    .and_then(|(l, (s, e))| l.get(s..e))
                    .map(<[Dim]>::to_vec);
                start = end;
                fact_with_dims(ty, PartialShape::new(out), picked)
            })
            .collect();
        Ok(facts)
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        match input {
            1 => ValueDomain::Axes { rank: Some(Size::RankOf { input: 0 }), first: 0, distinct: false },
            2 => {
                let rank = inputs.first().and_then(|d| d.shape.rank());
                let axis = inputs.get(1).and_then(|a| a.value.as_ref()).zip(rank);
                let axis = axis.and_then(|(a, rank)| split_axis(a, rank).ok());
                ValueDomain::SumsTo { total: axis.map(|axis| Size::DimOf { input: 0, axis }), inferred: true }
            }
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, _inputs: &[&PortFact]) -> Option<ShapeRule> {
        // One length per output.
        (input == 2).then(|| vec![Some(Size::Known(self.outputs as u64))])
    }
}

/// An axis error of [`split_axis`], named for VariadicSplit.
fn variadic(kind: ShapeErrorKind) -> ShapeErrorKind {
    match kind {
        ShapeErrorKind::OpAxisOutOfRange { what, axis, rank, .. } => {
            ShapeErrorKind::OpAxisOutOfRange { op: "VariadicSplit", what, axis, rank }
        }
        other => other,
    }
}

/// The size of each part of a VariadicSplit of an axis of size `dim`
/// (axis `axis`, for messages), written into `parts`, one per output:
/// each length as it is, and a -1 as what the others leave. Every length
/// is 0 or more, or -1 at most once, and they add up to the axis. Lengths
/// are whole numbers, a real truncated. For an interval axis the -1 part
/// is any size; its sum is checked against the interval. It allocates
/// nothing unless the lengths are wrong, so the executor reads lengths
/// that arrive at run time with it.
///
/// ```
/// use ovir_shape::ops::variadic_split::split_dims_into;
/// use ovir_tensor::{Dim, Tensor};
///
/// let lengths = Tensor::from_vec(&[3], vec![1i64, -1, 3])?;
/// let mut parts = [Dim::DYNAMIC; 3];
/// split_dims_into(&lengths, Dim::fixed(6), 1, &mut parts)?;
/// assert_eq!(parts, [1, 2, 3].map(Dim::fixed));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn split_dims_into(
    lengths: &Tensor,
    dim: Dim,
    axis: usize,
    parts: &mut [Dim],
) -> Result<(), ShapeErrorKind> {
    let ty = lengths.element_type();
    if !ty.is_integral() && !ty.is_real() {
        return Err(ShapeErrorKind::NumberInput { op: "VariadicSplit", input: "split lengths", found: ty });
    }
    if lengths.rank() != 1 {
        return Err(ShapeErrorKind::InputShape {
            op: "VariadicSplit",
            input: "split lengths",
            expected: "a 1-D tensor",
            shape: PartialShape::from_static(lengths.shape()),
        });
    }
    if lengths.len() != parts.len() {
        return Err(ShapeErrorKind::SplitOutputs {
            lengths: Dim::fixed(lengths.len() as u64),
            outputs: parts.len(),
        });
    }
    let (mut k, mut sum, mut inferred) = (0usize, 0u128, None);
    let read = try_for_each_whole(lengths, |v| {
        let part = parts.get_mut(k).ok_or(ShapeErrorKind::UnreadableValues { element_type: ty })?;
        match v {
            -1 => {
                if let Some(first) = inferred {
                    return Err(ShapeErrorKind::SplitManyInferred { first, second: k });
                }
                inferred = Some(k);
            }
            v if v < -1 => return Err(ShapeErrorKind::SplitLengthBelowMinusOne { index: k, value: v }),
            v => {
                let n = u64::try_from(v)
                    .map_err(|_| ShapeErrorKind::SplitLengthBelowMinusOne { index: k, value: v })?;
                sum = sum.saturating_add(u128::from(n));
                *part = Dim::fixed(n);
            }
        }
        k += 1;
        Ok(())
    });
    read.unwrap_or(Err(ShapeErrorKind::UnreadableValues { element_type: ty }))?;
    let (min, max) = (u128::from(dim.min()), dim.max().map(u128::from));
    let fits = match inferred {
        Some(_) => max.is_none_or(|m| sum <= m),
        None => sum >= min && max.is_none_or(|m| sum <= m),
    };
    if !fits {
        return Err(lengths_sum_error(lengths, dim, axis));
    }
    if let Some(i) = inferred {
        let left = match dim.get() {
            Some(d) => Dim::fixed(d - sum as u64),
            None => Dim::DYNAMIC,
        };
        if let Some(p) = parts.get_mut(i) {
            *p = left;
        }
    }
    Ok(())
}

#[cold]
fn lengths_sum_error(lengths: &Tensor, dim: Dim, axis: usize) -> ShapeErrorKind {
    let mut all = Vec::new();
    try_for_each_whole(lengths, |v| {
        all.push(v);
        Ok::<(), ()>(())
    });
    ShapeErrorKind::SplitLengthsSum { lengths: all, dim, axis }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_tensor::ElementType;

    fn fact(ty: ElementType, shape: &str) -> PortFact {
        PortFact::of(ty, shape.parse().unwrap())
    }

    fn known(shape: &[usize], values: Vec<i64>) -> PortFact {
        PortFact::known(Tensor::from_vec(shape, values).unwrap())
    }

    fn infer(
        data: &str,
        axis: PortFact,
        lengths: PortFact,
        outputs: usize,
    ) -> Result<Vec<String>, Vec<ShapeErrorKind>> {
        let data = fact(ElementType::F32, data);
        VariadicSplit { outputs }
            .infer(&[Input::new(&data), Input::new(&axis), Input::new(&lengths)])
            .map(|facts| facts.iter().map(|f| f.shape.to_string()).collect())
            .map_err(|p| p.into_vec().into_iter().map(|p| p.kind).collect())
    }

    fn split(data: &str, axis: i64, lengths: &[i64]) -> Result<Vec<String>, Vec<ShapeErrorKind>> {
        infer(data, known(&[], vec![axis]), known(&[lengths.len()], lengths.to_vec()), lengths.len())
    }

    // The cases of OpenVINO's type_prop/variadic_split.cpp, and its
    // answers for intervals.
    #[test]
    fn each_output_has_its_length() {
        assert_eq!(split("2,6", 1, &[1, 2, 3]).unwrap(), ["[2,1]", "[2,2]", "[2,3]"]);
        assert_eq!(split("2,6", -1, &[1, -1, 3]).unwrap(), ["[2,1]", "[2,2]", "[2,3]"]);
        assert_eq!(split("2,6", 1, &[0, 6, -1]).unwrap(), ["[2,0]", "[2,6]", "[2,0]"]);
        assert_eq!(split("2,6", 1, &[6]).unwrap(), ["[2,6]"]);
        assert_eq!(split("2,2..9", 1, &[2, -1]).unwrap(), ["[2,2]", "[2,?]"]);
        assert_eq!(split("2,2..9", 1, &[2, 4]).unwrap(), ["[2,2]", "[2,4]"]);
        assert_eq!(split("2,2..9", 1, &[2, 4, -1]).unwrap(), ["[2,2]", "[2,4]", "[2,?]"]);
        assert_eq!(split("2,?", 1, &[5, -1]).unwrap(), ["[2,5]", "[2,?]"]);
        assert_eq!(split("...", 1, &[5, -1]).unwrap(), ["[...]", "[...]"]);
        // The axis as a tensor of one element, and as a real.
        assert_eq!(
            infer("2,6", known(&[1], vec![1]), known(&[2], vec![2, 4]), 2).unwrap(),
            ["[2,2]", "[2,4]"]
        );
        let real = PortFact::known(Tensor::from_vec(&[], vec![1f32]).unwrap());
        let real_lengths = PortFact::known(Tensor::from_vec(&[2], vec![2.0f32, 4.0]).unwrap());
        assert_eq!(infer("2,6", real, real_lengths, 2).unwrap(), ["[2,2]", "[2,4]"]);
    }

    #[test]
    fn unknown_values_leave_what_they_decide_unknown() {
        let lengths = fact(ElementType::I64, "3");
        assert_eq!(infer("2,6", known(&[], vec![1]), lengths.clone(), 3).unwrap(), ["[2,?]"; 3]);
        assert_eq!(infer("2,6", fact(ElementType::I64, ""), lengths.clone(), 3).unwrap(), ["[?,?]"; 3]);
        assert_eq!(infer("...", known(&[], vec![1]), lengths, 3).unwrap(), ["[...]"; 3]);
    }

    #[test]
    fn lengths_that_do_not_cut_the_axis_are_refused() {
        let err = |data: &str, lengths: &[i64]| split(data, 1, lengths).unwrap_err();
        assert_eq!(err("2,6", &[1, -1, -1]), [ShapeErrorKind::SplitManyInferred { first: 1, second: 2 }]);
        assert_eq!(
            err("2,6", &[1, -2, 7]),
            [ShapeErrorKind::SplitLengthBelowMinusOne { index: 1, value: -2 }]
        );
        let sum = |lengths: &[i64], dim: Dim| ShapeErrorKind::SplitLengthsSum {
            lengths: lengths.iter().map(|&v| i128::from(v)).collect(),
            dim,
            axis: 1,
        };
        assert_eq!(err("2,6", &[1, 2, 4]), [sum(&[1, 2, 4], Dim::fixed(6))]);
        assert_eq!(err("2,6", &[1, 6, -1]), [sum(&[1, 6, -1], Dim::fixed(6))]);
        let interval = Dim::interval(2, Some(5)).unwrap();
        assert_eq!(err("2,2..5", &[2, 4]), [sum(&[2, 4], interval)]);
        assert_eq!(
            err("2,6", &[1, 2, 4])[0].to_string(),
            "the split lengths [1, 2, 4] of VariadicSplit must add up to the 6 elements of axis 1"
        );
        assert_eq!(
            split("2,6", 2, &[2, 4]).unwrap_err(),
            [ShapeErrorKind::OpAxisOutOfRange { op: "VariadicSplit", what: "axis", axis: 2, rank: 2 }]
        );
    }

    #[test]
    fn axis_and_lengths_must_have_their_shapes_and_types() {
        let err =
            |axis: PortFact, lengths: PortFact, outputs| infer("2,6", axis, lengths, outputs).unwrap_err();
        let two = || known(&[2], vec![2, 4]);
        assert!(matches!(
            err(known(&[1, 1], vec![1]), two(), 2)[..],
            [ShapeErrorKind::InputShape { input: "axis", .. }]
        ));
        assert!(matches!(
            err(known(&[], vec![1]), known(&[1, 2], vec![2, 4]), 2)[..],
            [ShapeErrorKind::InputShape { input: "split lengths", .. }]
        ));
        assert!(matches!(
            err(known(&[], vec![1]), known(&[], vec![6]), 1)[..],
            [ShapeErrorKind::InputShape { input: "split lengths", .. }]
        ));
        assert_eq!(
            err(known(&[], vec![1]), two(), 3),
            [ShapeErrorKind::SplitOutputs { lengths: Dim::fixed(2), outputs: 3 }]
        );
        assert_eq!(
            err(fact(ElementType::Boolean, ""), two(), 2),
            [ShapeErrorKind::NumberInput { op: "VariadicSplit", input: "axis", found: ElementType::Boolean }]
        );
    }

    #[test]
    fn parts_of_a_list_of_dimensions_stay_known() {
        let mut list = fact(ElementType::I64, "4");
        list.value_dims = Some(vec![Dim::fixed(1), Dim::DYNAMIC, Dim::fixed(3), Dim::fixed(4)]);
        let (axis, lengths) = (known(&[], vec![0]), known(&[3], vec![1, -1, 1]));
        let facts = VariadicSplit { outputs: 3 }
            .infer(&[Input::new(&list), Input::new(&axis), Input::new(&lengths)])
            .unwrap();
        let dims: Vec<_> = facts.iter().map(|f| f.value_dims.clone()).collect();
        assert_eq!(
            dims,
            [Some(vec![Dim::fixed(1)]), Some(vec![Dim::DYNAMIC, Dim::fixed(3)]), Some(vec![Dim::fixed(4)])]
        );
    }

    #[test]
    fn the_run_time_rule_reads_real_lengths_truncated() {
        let mut parts = [Dim::DYNAMIC; 2];
        let lengths = Tensor::from_vec(&[2], vec![2.9f64, -1.0]).unwrap();
        split_dims_into(&lengths, Dim::fixed(6), 0, &mut parts).unwrap();
        assert_eq!(parts, [Dim::fixed(2), Dim::fixed(4)]);
        let big = Tensor::from_vec(&[2], vec![u64::MAX, 1]).unwrap();
        assert!(matches!(
            split_dims_into(&big, Dim::fixed(6), 0, &mut parts),
            Err(ShapeErrorKind::SplitLengthsSum { .. })
        ));
        let strings = Tensor::from_strings(&[2], vec!["a".into(), "b".into()]).unwrap();
        assert!(matches!(
            split_dims_into(&strings, Dim::fixed(6), 0, &mut parts),
            Err(ShapeErrorKind::NumberInput { .. })
        ));
    }

    #[test]
    fn example_lengths_add_up_to_the_axis() {
        let (data, axis, lengths) =
            (fact(ElementType::F32, "2,6"), known(&[], vec![-1]), fact(ElementType::I64, "?"));
        let op = VariadicSplit { outputs: 3 };
        assert_eq!(
            op.input_values(2, &[&data, &axis, &lengths]),
            ValueDomain::SumsTo { total: Some(Size::DimOf { input: 0, axis: 1 }), inferred: true }
        );
        assert_eq!(op.input_shape(2, &[&data, &axis, &lengths]), Some(vec![Some(Size::Known(3))]));
        crate::ops::check_round_trips::<VariadicSplit>();
        let layer = op.write();
        assert_eq!((layer.outputs, layer.attrs.len()), (3, 0));
    }
}
