//! SliceScatter-15: a copy of the data with a Slice-8 region replaced by
//! the updates.

use ovir_ir::Layer;
use ovir_tensor::{Dim, PartialShape};

use crate::dims::vector_len;
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};
use crate::ops::slice::infer_slice;

const OP: &str = "SliceScatter";

/// Copies the data and writes the updates over the elements a Slice-8
/// with the same start, stop, step and axes would take (NumPy's
/// `out[slices] = updates`). Its inputs are the data, the updates, start,
/// stop, step and, optionally, the axes; the updates have the shape of
/// that slice, and the output has the data's type and shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceScatter;

pub(crate) const SPEC: OpSpec = OpSpec {
    name: OP,
    aliases: &[],
    versions: Versions::Opsets(15, 16),
    inputs: (5, Some(6)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for SliceScatter {
    const SPEC: OpSpec = SPEC;

    fn build(_layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(SliceScatter)
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset15")
    }

    fn examples() -> Vec<Self> {
        vec![SliceScatter]
    }
}

impl Operation for SliceScatter {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, updates, start, stop, step, rest @ ..] = inputs else {
            return Err(Problems::one(ShapeErrorKind::InputCountRange {
                op: OP,
                min: 5,
                max: Some(6),
                found: inputs.len(),
            }));
        };
        let mut problems = Problems::new();
        let found = updates.fact.element_type;
        let ty = data.fact.element_type.merge(found).unwrap_or_else(|| {
            let expected = data.fact.element_type;
            problems.layer(ShapeErrorKind::InputTypes { op: OP, input: 1, found, expected });
            expected
        });
        // The data's shape, with the rank of the updates when only they
        // know it.
        let shape = match (data.fact.shape.rank(), updates.fact.shape.rank()) {
            (None, Some(r)) => PartialShape::with_rank(r),
            _ => data.fact.shape.clone(),
        };
        for (input, fact) in [("data", data.fact), ("updates", updates.fact)] {
            if fact.shape.rank() == Some(0) {
                problems.layer(ShapeErrorKind::InputShape {
                    op: OP,
                    input,
                    expected: "a tensor of rank 1 or more",
                    shape: fact.shape.clone(),
                });
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let with_shape = PortFact::of(ty, shape.clone());
        let sliced = infer_slice(
            OP,
            &Input { fact: &with_shape, tainted: data.tainted },
            [start, stop, step],
            rest.first(),
        )?;
        let slice = sliced.into_iter().next().map(|f| f.shape).unwrap_or_else(PartialShape::dynamic);
        if !updates.fact.shape.compatible(&slice) {
            problems
                .layer(ShapeErrorKind::SliceScatterUpdates { updates: updates.fact.shape.clone(), slice });
        }
        problems.or_ok(vec![PortFact::of(ty, shape)])
    }

    fn input_values(&self, input: usize, _inputs: &[&PortFact]) -> ValueDomain {
        match input {
            // Any start and stop are clamped into the axis.
            4 => ValueDomain::NonZero,
            5 => ValueDomain::Axes { rank: Some(Size::RankOf { input: 0 }), first: 0, distinct: true },
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        if input == 1 {
            // The updates have the shape of the slice, where it is known.
            let facts: Vec<Input<'_>> = inputs.iter().map(|f| Input::new(f)).collect();
            let (data, bounds) = (facts.first()?, facts.get(2..5)?);
            let sliced =
                infer_slice(OP, data, [bounds.first()?, bounds.get(1)?, bounds.get(2)?], facts.get(5))
                    .ok()?;
            let dims = sliced.first()?.shape.dims()?.to_vec();
            return Some(dims.iter().map(|d: &Dim| d.get().map(Size::Known)).collect());
        }
        // Start, stop, step and axes are equally long: as long as one of
        // them is known to be, or else one per data axis.
        if !(2..=5).contains(&input) || inputs.get(input).is_some_and(|f| vector_len(f).is_some()) {
            return None;
        }
        let known = inputs.iter().skip(2).find_map(|f| vector_len(f));
        Some(vec![Some(known.map_or(Size::RankOf { input: 0 }, |n| Size::Known(n as u64)))])
    }
}

#[cfg(test)]
mod tests {
    use ovir_tensor::{ElementType, Tensor};

    use super::*;

    fn ints(v: &[i64]) -> PortFact {
        PortFact::known(Tensor::from_vec(&[v.len()], v.to_vec()).unwrap())
    }

    fn infer(
        data: &str,
        updates: &str,
        bounds: [PortFact; 3],
        axes: Option<PortFact>,
    ) -> Result<String, Vec<String>> {
        let data = PortFact::of(ElementType::F32, data.parse().unwrap());
        let updates = PortFact::of(ElementType::F32, updates.parse().unwrap());
        let mut facts = vec![data, updates];
        facts.extend(bounds);
        facts.extend(axes);
        let inputs: Vec<Input<'_>> = facts.iter().map(Input::new).collect();
        match SliceScatter.infer(&inputs) {
            Ok(f) => Ok(f[0].shape.to_string()),
            Err(p) => Err(p
                .into_vec()
                .into_iter()
                .map(|p| format!("{:?}", p.kind).split([' ', '(']).next().unwrap_or("").to_owned())
                .collect()),
        }
    }

    fn dynamic_ints() -> PortFact {
        PortFact::of(ElementType::I64, "[?]".parse().unwrap())
    }

    /// The spec's examples and the rules of OpenVINO's shape inference
    /// (`slice_scatter_shape_inference.hpp`): the output is the data's
    /// shape; the updates must fit the slice.
    #[test]
    fn shapes_infer_what_openvino_infers() {
        let b = |s: &[i64], e: &[i64], t: &[i64]| [ints(s), ints(e), ints(t)];
        assert_eq!(infer("[2,5]", "[2,3]", b(&[-25], &[25], &[2]), Some(ints(&[1]))), Ok("[2,5]".into()));
        assert_eq!(infer("[3,5]", "[2,2]", b(&[0, 1], &[3, 5], &[2, 2]), None), Ok("[3,5]".into()));
        assert_eq!(infer("[4]", "[4]", b(&[], &[], &[]), None), Ok("[4]".into()));
        assert_eq!(infer("[?,5]", "[3,?]", b(&[0], &[3], &[1]), None), Ok("[?,5]".into()));
        assert_eq!(infer("...", "[3,4]", b(&[0], &[3], &[1]), None), Ok("[?,?]".into()));
        assert_eq!(
            infer("[2..6,5]", "[2,5]", [dynamic_ints(), dynamic_ints(), dynamic_ints()], None),
            Ok("[2..6,5]".into())
        );
        // Negative steps take the elements back to front.
        assert_eq!(infer("[10]", "[4]", b(&[8], &[0], &[-2]), None), Ok("[10]".into()));
    }

    /// What OpenVINO's shape inference refuses.
    #[test]
    fn openvinos_refusals_are_refused() {
        let b = |s: &[i64], e: &[i64], t: &[i64]| [ints(s), ints(e), ints(t)];
        assert_eq!(
            infer("[2,5]", "[2,2]", b(&[0], &[5], &[2]), Some(ints(&[1]))),
            Err(vec!["SliceScatterUpdates".into()])
        );
        assert_eq!(
            infer("[2,5]", "[2,5,1]", b(&[0], &[5], &[2]), None),
            Err(vec!["SliceScatterUpdates".into()])
        );
        assert_eq!(
            infer("[2,5]", "[2,3]", b(&[0], &[5], &[0]), Some(ints(&[1]))),
            Err(vec!["SliceStepZero".into()])
        );
        assert_eq!(
            infer("[2,5]", "[2,3]", b(&[0, 0], &[5, 5], &[2, 2]), Some(ints(&[1, -1]))),
            Err(vec!["SliceRepeatedAxis".into()])
        );
        assert_eq!(
            infer("[2,5]", "[2,3]", b(&[0, 0, 0], &[5, 5, 5], &[2, 2, 2]), None),
            Err(vec!["SliceTooManyAxes".into()])
        );
        assert_eq!(infer("[2,5]", "[2,3]", b(&[0], &[5, 5], &[2]), None), Err(vec!["SliceLengths".into()]));
        assert_eq!(
            infer("[]", "[]", b(&[], &[], &[]), None),
            Err(vec!["InputShape".into(), "InputShape".into()])
        );
        let data = PortFact::of(ElementType::F32, "[2]".parse().unwrap());
        let updates = PortFact::of(ElementType::I32, "[2]".parse().unwrap());
        let facts = [data, updates, ints(&[0]), ints(&[2]), ints(&[1])];
        let inputs: Vec<Input<'_>> = facts.iter().map(Input::new).collect();
        assert!(matches!(
            SliceScatter.infer(&inputs).unwrap_err().into_vec()[0].kind,
            ShapeErrorKind::InputTypes { input: 1, .. }
        ));
    }

    #[test]
    fn the_updates_take_the_shape_of_the_slice() {
        let data = PortFact::of(ElementType::F32, "[4,6]".parse().unwrap());
        let updates = PortFact::of(ElementType::F32, "[?,?]".parse().unwrap());
        let facts = [data, updates, ints(&[1]), ints(&[6]), ints(&[2]), ints(&[-1])];
        let refs: Vec<&PortFact> = facts.iter().collect();
        assert_eq!(
            SliceScatter.input_shape(1, &refs),
            Some(vec![Some(Size::Known(4)), Some(Size::Known(3))])
        );
    }

    #[test]
    fn round_trips() {
        crate::ops::check_round_trips::<SliceScatter>();
    }
}
