//! Transpose-1: permute the axes of the data.
//!
//! Where the witnesses disagree:
//! - With data of unknown rank and an empty order, OpenVINO 2026.4's
//!   shape inference gives a scalar; the spec and the reference reverse
//!   however many axes the data turns out to have, so the output here is
//!   of unknown rank.
//! - With data of unknown rank, OpenVINO's shape inference accepts a
//!   constant order that is no permutation (`[1, 0, 0]`, `[1, 5]`), which
//!   the reference refuses when the model runs; since no rank makes such
//!   an order valid, it is refused here when the model loads.

use ovir_ir::Layer;
use ovir_tensor::{Dim, PartialShape, Tensor};

use crate::dims::{dims_of, fact_with_dims, input_rank, integer_input, rank_of_length};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, vector_of, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain,
    Versions,
};
use crate::values::try_for_each_integer;

/// Permutes the axes of the data: output axis `i` is input axis
/// `order[i]`. An empty order reverses the axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transpose;

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Transpose",
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (2, Some(2)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for Transpose {
    const SPEC: OpSpec = SPEC;

    fn build(_layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(Transpose)
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset1")
    }

    fn examples() -> Vec<Self> {
        vec![Transpose]
    }
}

impl Operation for Transpose {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, order] = exactly::<2>(SPEC.name, inputs)?;
        let mut problems = Problems::new();
        let ok = integer_input(&mut problems, "Transpose", "order", order.fact)
            & input_rank(&mut problems, "Transpose", "order", order.fact, &[1], "a 1-D tensor");
        let length = match order.fact.shape.dims() {
            Some([n]) if ok => Some(*n),
            _ => None,
        };
        if let (Some(length), Some(rank)) = (length, data.fact.shape.rank()) {
            if let Err(kind) = transpose_order_length(length, rank) {
                problems.layer(kind);
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let ty = data.fact.element_type;
        let value = order.fact.value.as_ref();
        let shape = match (data.fact.shape.dims(), value) {
            (Some(dims), Some(value)) => {
                let mut perm = vec![0; dims.len()];
                match transpose_order_into(value, &mut perm) {
                    Ok(()) => PartialShape::new(perm.iter().filter_map(|&a| dims.get(a).copied()).collect()),
                    Err(kind) => return Err(Problems::one(kind)),
                }
            }
            (Some(dims), None) => PartialShape::with_rank(dims.len()),
            // No rank makes an order that is no permutation valid.
            (None, Some(value)) if !value.is_empty() => {
                let mut perm = vec![0; value.len()];
                match transpose_order_into(value, &mut perm) {
                    Ok(()) => PartialShape::with_rank(perm.len()),
                    Err(kind) => return Err(Problems::one(kind)),
                }
            }
            (None, _) => match length.and_then(Dim::get) {
                Some(n) if n > 0 => rank_of_length(n),
                _ => PartialShape::dynamic(),
            },
        };
        // A list of dimensions keeps its elements: its only order is [0].
        let dims = if shape.rank() == Some(1) && value.is_some() { dims_of(data.fact) } else { None };
        Ok(vec![fact_with_dims(ty, shape, dims)])
    }

    fn input_values(&self, input: usize, _inputs: &[&PortFact]) -> ValueDomain {
        match input {
            // One distinct axis per data axis is a permutation.
            1 => ValueDomain::Axes { rank: Some(Size::RankOf { input: 0 }), first: 0, distinct: true },
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        match input {
            1 => vector_of(inputs.get(1), Size::RankOf { input: 0 }),
            _ => None,
        }
    }
}

/// Checks that a Transpose order of `length` elements fits data of rank
/// `rank`: one element per data axis, or none.
pub fn transpose_order_length(length: Dim, rank: usize) -> Result<(), ShapeErrorKind> {
    if length.contains(rank as u64) || length.get() == Some(0) {
        Ok(())
    } else {
        Err(ShapeErrorKind::TransposeOrderLength { length, rank })
    }
}

/// The permutation a Transpose applies to data of rank `perm.len()`,
/// written into `perm`: output axis `i` is input axis `perm[i]`. The order
/// must be a 1-D integer tensor holding every axis from 0 to `rank - 1`
/// once, or be empty, which reverses the axes. It allocates nothing unless
/// the order is wrong, so the executor reads an order that arrives at run
/// time with it.
///
/// ```
/// use ovir_shape::ops::transpose::transpose_order_into;
/// use ovir_tensor::Tensor;
///
/// let mut perm = [0; 4];
/// transpose_order_into(&Tensor::from_vec(&[4], vec![0i64, 2, 3, 1])?, &mut perm)?;
/// assert_eq!(perm, [0, 2, 3, 1]);
/// transpose_order_into(&Tensor::from_vec(&[0], Vec::<i32>::new())?, &mut perm)?;
/// assert_eq!(perm, [3, 2, 1, 0]);
/// assert!(transpose_order_into(&Tensor::from_vec(&[4], vec![0i64, 2, 2, 1])?, &mut perm).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn transpose_order_into(order: &Tensor, perm: &mut [usize]) -> Result<(), ShapeErrorKind> {
    let rank = perm.len();
    if order.rank() != 1 {
        return Err(ShapeErrorKind::InputShape {
            op: "Transpose",
            input: "order",
            expected: "a 1-D tensor",
            shape: PartialShape::from_static(order.shape()),
        });
    }
    let ty = order.element_type();
    if !ty.is_integral() {
        return Err(ShapeErrorKind::IntegerInput { op: "Transpose", input: "order", found: ty });
    }
    transpose_order_length(Dim::fixed(order.len() as u64), rank)?;
    if order.is_empty() {
        for (k, p) in perm.iter_mut().enumerate() {
            *p = rank - 1 - k;
        }
        return Ok(());
    }
    let mut k = 0;
    let read = try_for_each_integer(order, |v| {
        let axis = usize::try_from(v).ok().filter(|&a| a < rank).ok_or(())?;
        *perm.get_mut(k).ok_or(())? = axis;
        k += 1;
        Ok::<(), ()>(())
    });
    match read {
        Some(Ok(())) if is_permutation(perm) => Ok(()),
        Some(_) => Err(not_a_permutation(order, rank)),
        None => Err(ShapeErrorKind::UnreadableValues { element_type: ty }),
    }
}

/// Whether `perm`, whose values all lie in `[0, len)`, holds each of them
/// once: each value marks its slot with the top bit (free, since no length
/// reaches it), and a slot marked twice is a repeat. The marks are cleared
/// again, in time linear in the length and without allocating.
fn is_permutation(perm: &mut [usize]) -> bool {
    const MARK: usize = 1 << (usize::BITS - 1);
    let mut ok = true;
    for k in 0..perm.len() {
        let v = perm.get(k).map_or(0, |&v| v & !MARK);
        match perm.get_mut(v) {
            Some(slot) if *slot & MARK == 0 => *slot |= MARK,
            _ => ok = false,
        }
    }
    for p in perm.iter_mut() {
        *p &= !MARK;
    }
    ok
}

/// The error for an order that is no permutation, with its values.
#[cold]
fn not_a_permutation(order: &Tensor, rank: usize) -> ShapeErrorKind {
    ShapeErrorKind::TransposeOrder { order: order.integer_values().unwrap_or_default(), rank }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_tensor::ElementType;

    fn shape(s: &str) -> PartialShape {
        s.parse().unwrap()
    }

    fn infer(data: PortFact, order: PortFact) -> Result<PortFact, Vec<ShapeErrorKind>> {
        let inputs = [Input::new(&data), Input::new(&order)];
        match Transpose.infer(&inputs) {
            Ok(mut facts) => Ok(facts.remove(0)),
            Err(p) => Err(p.into_vec().into_iter().map(|p| p.kind).collect()),
        }
    }

    fn f32(s: &str) -> PortFact {
        PortFact::of(ElementType::F32, shape(s))
    }

    fn order(values: &[i64]) -> PortFact {
        PortFact::known(Tensor::from_vec(&[values.len()], values.to_vec()).unwrap())
    }

    fn order_of(s: &str) -> PortFact {
        PortFact::of(ElementType::I64, shape(s))
    }

    fn out(data: PortFact, order: PortFact) -> String {
        infer(data, order).unwrap().shape.to_string()
    }

    // The cases of OpenVINO's type_prop/transpose.cpp.
    #[test]
    fn a_constant_order_permutes_the_dimensions() {
        assert_eq!(out(f32("2,4,6,8"), order(&[2, 1, 0, 3])), "[6,4,2,8]");
        assert_eq!(out(f32("2,1..8,4"), order(&[2, 0, 1])), "[4,2,1..8]");
        assert_eq!(out(f32("3..5,1..8,4"), order(&[0, 2, 1])), "[3..5,4,1..8]");
        assert_eq!(out(f32("3..5,2,3,4"), order(&[1, 2, 3, 0])), "[2,3,4,3..5]");
        assert_eq!(out(f32("3..5,2,1..8,4"), order(&[3, 0, 2, 1])), "[4,3..5,1..8,2]");
        assert_eq!(out(f32("3..5,1..8,1..8,3..5"), order(&[1, 0, 3, 2])), "[1..8,3..5,3..5,1..8]");
        let fact = infer(PortFact::of(ElementType::String, shape("2,3")), order(&[1, 0])).unwrap();
        assert_eq!((fact.element_type, fact.shape.to_string().as_str()), (ElementType::String, "[3,2]"));
    }

    #[test]
    fn an_empty_order_reverses_the_axes() {
        assert_eq!(out(f32("1,300"), order(&[])), "[300,1]");
        assert_eq!(out(f32("2,3,4"), order(&[])), "[4,3,2]");
        assert_eq!(out(f32(""), order(&[])), "[]");
        // Whatever rank the data turns out to have.
        assert_eq!(out(f32("..."), order(&[])), "[...]");
        assert_eq!(out(f32("2,3,4"), order_of("0")), "[?,?,?]");
    }

    #[test]
    fn an_order_known_only_at_run_time_keeps_the_rank() {
        assert_eq!(out(f32("2,4,6,8"), order_of("4")), "[?,?,?,?]");
        assert_eq!(out(f32("2,?,?,8"), order_of("4")), "[?,?,?,?]");
        assert_eq!(out(f32("2,4,6,8"), order_of("?")), "[?,?,?,?]");
        assert_eq!(out(f32("2,4,6,8"), order_of("...")), "[?,?,?,?]");
        assert_eq!(out(f32("4..6,2..3,8"), order_of("3")), "[?,?,?]");
        assert_eq!(out(f32("..."), order_of("?")), "[...]");
        assert_eq!(out(f32("..."), order_of("...")), "[...]");
        assert_eq!(out(f32("..."), order_of("4")), "[?,?,?,?]");
        assert_eq!(out(f32("..."), order(&[1, 3, 0, 2])), "[?,?,?,?]");
        // A length no rank could have leaves the rank unknown.
        assert_eq!(out(f32("..."), order_of("1000000000000")), "[...]");
        let dynamic = PortFact::of(ElementType::Dynamic, shape("4"));
        assert_eq!(out(f32("2,4,6,8"), dynamic), "[?,?,?,?]");
    }

    #[test]
    fn an_order_that_is_no_permutation_is_refused() {
        let bad = |data: &str, values: &[i64]| infer(f32(data), order(values)).unwrap_err();
        assert_eq!(
            bad("2,4,6,8", &[2, 9, 0, 3]),
            [ShapeErrorKind::TransposeOrder { order: vec![2, 9, 0, 3], rank: 4 }]
        );
        assert_eq!(
            bad("1,4,300", &[1, 0, 1]),
            [ShapeErrorKind::TransposeOrder { order: vec![1, 0, 1], rank: 3 }]
        );
        assert_eq!(bad("2,3", &[-1, 0]), [ShapeErrorKind::TransposeOrder { order: vec![-1, 0], rank: 2 }]);
        // With no rank known, an order is still a permutation or not.
        assert_eq!(
            bad("...", &[1, 0, 0]),
            [ShapeErrorKind::TransposeOrder { order: vec![1, 0, 0], rank: 3 }]
        );
        assert_eq!(bad("...", &[1, 5]), [ShapeErrorKind::TransposeOrder { order: vec![1, 5], rank: 2 }]);
        let msg = bad("2,4,6,8", &[2, 9, 0, 3])[0].to_string();
        assert_eq!(msg, "the order [2, 9, 0, 3] of Transpose is not a permutation of the data's 4 axes: it must hold each of 0 to 3 once");
    }

    #[test]
    fn the_order_must_be_an_integer_vector_of_the_right_length() {
        let err = |data: &str, order: PortFact| infer(f32(data), order).unwrap_err();
        for s in ["2,2", "2,?"] {
            assert!(
                matches!(
                    err("2,4,6,8", order_of(s))[..],
                    [ShapeErrorKind::InputShape { input: "order", .. }]
                ),
                "{s}"
            );
            assert!(
                matches!(err("...", order_of(s))[..], [ShapeErrorKind::InputShape { input: "order", .. }]),
                "{s}"
            );
        }
        assert!(matches!(err("2,3", order_of(""))[..], [ShapeErrorKind::InputShape { .. }]));
        assert_eq!(
            err("2,4,6,8", order_of("5")),
            [ShapeErrorKind::TransposeOrderLength { length: Dim::fixed(5), rank: 4 }]
        );
        assert_eq!(
            err("2,3,4", order_of("0..2")),
            [ShapeErrorKind::TransposeOrderLength { length: Dim::interval(0, Some(2)).unwrap(), rank: 3 }]
        );
        assert_eq!(
            err("2,3", order(&[1])),
            [ShapeErrorKind::TransposeOrderLength { length: Dim::fixed(1), rank: 2 }]
        );
        assert_eq!(
            err("2,3", order(&[1, 0, 2])),
            [ShapeErrorKind::TransposeOrderLength { length: Dim::fixed(3), rank: 2 }]
        );
        for ty in [ElementType::Boolean, ElementType::F32] {
            assert_eq!(
                err("2,4,6,8", PortFact::of(ty, shape("4"))),
                [ShapeErrorKind::IntegerInput { op: "Transpose", input: "order", found: ty }]
            );
        }
        let u8_order = PortFact::known(Tensor::from_vec(&[2], vec![1u8, 0]).unwrap());
        assert_eq!(out(f32("2,3"), u8_order), "[3,2]");
    }

    #[test]
    fn a_list_of_dimensions_keeps_its_elements() {
        let mut dims = PortFact::of(ElementType::I64, shape("3"));
        dims.value_dims = Some(vec![Dim::fixed(2), Dim::DYNAMIC, Dim::fixed(5)]);
        let fact = infer(dims, order(&[0])).unwrap();
        assert_eq!(fact.value_dims, Some(vec![Dim::fixed(2), Dim::DYNAMIC, Dim::fixed(5)]));
    }

    #[test]
    fn the_run_time_rule_reads_every_integer_type() {
        let mut perm = [9; 3];
        transpose_order_into(&Tensor::from_vec(&[3], vec![2u64, 0, 1]).unwrap(), &mut perm).unwrap();
        assert_eq!(perm, [2, 0, 1]);
        transpose_order_into(&Tensor::from_vec(&[3], vec![1i8, 2, 0]).unwrap(), &mut perm).unwrap();
        assert_eq!(perm, [1, 2, 0]);
        let floats = Tensor::from_vec(&[3], vec![0f32, 1.0, 2.0]).unwrap();
        assert_eq!(
            transpose_order_into(&floats, &mut perm),
            Err(ShapeErrorKind::IntegerInput { op: "Transpose", input: "order", found: ElementType::F32 })
        );
        let matrix = Tensor::from_vec(&[1, 3], vec![0i64, 1, 2]).unwrap();
        assert!(matches!(transpose_order_into(&matrix, &mut perm), Err(ShapeErrorKind::InputShape { .. })));
        let big = Tensor::from_vec(&[3], vec![u64::MAX, 0, 1]).unwrap();
        assert_eq!(
            transpose_order_into(&big, &mut perm),
            Err(ShapeErrorKind::TransposeOrder { order: vec![i128::from(u64::MAX), 0, 1], rank: 3 })
        );
        // Each axis once, however they are ordered.
        let mut perm = [9; 5];
        let big = Tensor::from_vec(&[5], vec![4i64, 2, 0, 3, 1]).unwrap();
        transpose_order_into(&big, &mut perm).unwrap();
        assert_eq!(perm, [4, 2, 0, 3, 1]);
        let repeated = Tensor::from_vec(&[5], vec![4i64, 2, 0, 2, 1]).unwrap();
        assert!(transpose_order_into(&repeated, &mut perm).is_err());
        // A scalar's only order is the empty one.
        transpose_order_into(&Tensor::from_vec(&[0], Vec::<i64>::new()).unwrap(), &mut []).unwrap();
    }

    #[test]
    fn example_inputs_are_permutations() {
        let data = f32("2,3,4");
        let order = order_of("?");
        assert_eq!(
            Transpose.input_values(1, &[&data, &order]),
            ValueDomain::Axes { rank: Some(Size::RankOf { input: 0 }), first: 0, distinct: true }
        );
        assert_eq!(Transpose.input_shape(1, &[&data, &order]), Some(vec![Some(Size::RankOf { input: 0 })]));
        assert_eq!(Transpose.input_shape(1, &[&data, &order_of("3")]), None);
    }

    #[test]
    fn it_round_trips_through_its_layer() {
        for op in Transpose::examples() {
            let layer = op.write();
            assert_eq!(
                (layer.op_type.as_str(), layer.version.as_str(), layer.outputs),
                ("Transpose", "opset1", 1)
            );
            assert!(layer.attrs.is_empty());
            assert_eq!(Transpose::build(&layer.to_layer_with(2), 1), Ok(op));
        }
    }
}
