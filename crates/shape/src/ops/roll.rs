//! Roll-7: shift the elements along some axes, wrapping around.
//!
//! A shift may be negative or larger than its axis; an axis named twice
//! is shifted by the sum; a scalar shift applies to every axis listed.
//!
//! Where the witnesses disagree: OpenVINO's shape inference accepts a
//! scalar data with an axis 0, which has no axis to roll; ovir refuses
//! it, as it refuses any axis outside the data's rank.

use ovir_ir::Layer;
use ovir_tensor::{normalize_axis, Dim, ElementType, PartialShape, Tensor};

use crate::dims::{input_rank, vector_len};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};
use crate::values::{nth_integer, try_for_each_integer};

/// Shifts the elements of the data along the axes the third input names
/// by the amounts the second input gives, wrapping around.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roll;

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Roll",
    aliases: &[],
    versions: Versions::Opsets(7, 16),
    inputs: (3, Some(3)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for Roll {
    const SPEC: OpSpec = SPEC;

    fn build(_layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(Roll)
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset7")
    }

    fn examples() -> Vec<Self> {
        vec![Roll]
    }
}

/// Checks that an input of Roll is i32 or i64, when its type is known.
fn index_type(problems: &mut Problems, input: &'static str, fact: &PortFact) -> bool {
    let ty = fact.element_type;
    if ty.is_static() && !matches!(ty, ElementType::I32 | ElementType::I64) {
        problems.layer(ShapeErrorKind::IndexType { op: "Roll", input, found: ty });
        return false;
    }
    true
}

impl Operation for Roll {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, shift, axes] = exactly::<3>(SPEC.name, inputs)?;
        let mut problems = Problems::new();
        let expected = "a scalar or a 1-D tensor";
        let shift_ok = index_type(&mut problems, "shift", shift.fact)
            & input_rank(&mut problems, "Roll", "shift", shift.fact, &[0, 1], expected);
        let axes_ok = index_type(&mut problems, "axes", axes.fact)
            & input_rank(&mut problems, "Roll", "axes", axes.fact, &[0, 1], expected);
        // A vector of shifts has one per axis.
        if let (true, true, Some([n])) = (shift_ok, axes_ok, shift.fact.shape.dims()) {
            let fits = match axes.fact.shape.dims() {
                Some([m]) => m.compatible(*n),
                Some(_) => false,
                None => true,
            };
            if !fits {
                problems.layer(ShapeErrorKind::RollLengths { shift: *n, axes: axes.fact.shape.clone() });
            }
        }
        if let (true, Some(rank), Some(value)) = (axes_ok, data.fact.shape.rank(), axes.fact.value.as_ref()) {
            if let Err(kind) = roll_axes(value, rank) {
                problems.layer(kind);
            }
        }
        problems.or_ok(vec![PortFact::of(data.fact.element_type, data.fact.shape.clone())])
    }

    fn input_values(&self, input: usize, _inputs: &[&PortFact]) -> ValueDomain {
        match input {
            2 => ValueDomain::Axes { rank: Some(Size::RankOf { input: 0 }), first: 0, distinct: false },
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        // Axes follow a vector of shifts; shifts follow axes of a known
        // length when their own is not known.
        let shift = inputs.get(1)?;
        match input {
            2 if shift.shape.rank() == Some(1) && vector_len(inputs.get(2)?).is_none() => Some(vec![Some(
                vector_len(shift).map_or(Size::DimOf { input: 1, axis: 0 }, |n| Size::Known(n as u64)),
            )]),
            1 if shift.shape.rank() == Some(1) && vector_len(shift).is_none() => {
                vector_len(inputs.get(2)?).map(|n| vec![Some(Size::Known(n as u64))])
            }
            _ => None,
        }
    }
}

/// Checks every axis of a Roll against the data's rank.
fn roll_axes(axes: &Tensor, rank: usize) -> Result<(), ShapeErrorKind> {
    let read = try_for_each_integer(axes, |a| match normalize_axis(a, rank) {
        Some(_) => Ok(()),
        None => Err(ShapeErrorKind::OpAxisOutOfRange {
            op: "Roll",
            what: "axis",
            axis: a.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
            rank,
        }),
    });
    read.unwrap_or(Err(ShapeErrorKind::UnreadableValues { element_type: axes.element_type() }))
}

/// How far a Roll moves the elements of each axis of data of shape
/// `shape`, written into `shifts` (one per axis): the element at index `i`
/// goes to `(i + shifts[axis]) % dim`. Shifts and axes are i32 or i64,
/// scalars or 1-D; a vector of shifts has one per axis, a scalar shift
/// applies to every axis listed, an axis listed twice moves by the sum,
/// and a negative shift moves the other way. It allocates nothing unless
/// the inputs are wrong, so the executor reads shifts and axes that
/// arrive at run time with it.
///
/// ```
/// use ovir_shape::ops::roll::roll_shifts_into;
/// use ovir_tensor::Tensor;
///
/// let mut shifts = [0; 2];
/// let (shift, axes) = (Tensor::from_vec(&[2], vec![-1i64, 7])?, Tensor::from_vec(&[2], vec![1i64, 1])?);
/// roll_shifts_into(&[2, 4], &shift, &axes, &mut shifts)?;
/// assert_eq!(shifts, [0, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn roll_shifts_into(
    shape: &[usize],
    shift: &Tensor,
    axes: &Tensor,
    shifts: &mut [usize],
) -> Result<(), ShapeErrorKind> {
    for (t, input) in [(shift, "shift"), (axes, "axes")] {
        let ty = t.element_type();
        if !matches!(ty, ElementType::I32 | ElementType::I64) {
            return Err(ShapeErrorKind::IndexType { op: "Roll", input, found: ty });
        }
        if t.rank() > 1 {
            return Err(ShapeErrorKind::InputShape {
                op: "Roll",
                input,
                expected: "a scalar or a 1-D tensor",
                shape: PartialShape::from_static(t.shape()),
            });
        }
    }
    if shift.rank() == 1 && (axes.rank() != 1 || axes.len() != shift.len()) {
        return Err(ShapeErrorKind::RollLengths {
            shift: Dim::fixed(shift.len() as u64),
            axes: PartialShape::from_static(axes.shape()),
        });
    }
    let rank = shape.len();
    roll_axes(axes, rank)?;
    shifts.fill(0);
    let (mut k, mut scalar) = (0usize, None);
    if shift.rank() == 0 {
        try_for_each_integer(shift, |v| {
            scalar = Some(v);
            Ok::<(), ()>(())
        });
    }
    let read = try_for_each_integer(axes, |a| {
        let axis = normalize_axis(a, rank).unwrap_or(0);
        let by = match scalar {
            Some(v) => v,
            None => nth_integer(shift, k).map_or(0, i128::from),
        };
        k += 1;
        let dim = shape.get(axis).copied().unwrap_or(0) as i128;
        if let Some(s) = shifts.get_mut(axis) {
            if dim > 0 {
                *s = ((*s as i128 + by.rem_euclid(dim)) % dim) as usize;
            }
        }
        Ok::<(), ()>(())
    });
    match read {
        Some(_) => Ok(()),
        None => Err(ShapeErrorKind::UnreadableValues { element_type: axes.element_type() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(shape: &[usize], values: Vec<i64>) -> PortFact {
        PortFact::known(Tensor::from_vec(shape, values).unwrap())
    }

    fn infer(data: &str, shift: PortFact, axes: PortFact) -> Result<String, Vec<ShapeErrorKind>> {
        let data = PortFact::of(ElementType::F32, data.parse().unwrap());
        Roll.infer(&[Input::new(&data), Input::new(&shift), Input::new(&axes)])
            .map(|f| f[0].shape.to_string())
            .map_err(|p| p.into_vec().into_iter().map(|p| p.kind).collect())
    }

    // OpenVINO's type_prop/roll.cpp cases and its answers.
    #[test]
    fn the_shape_is_the_datas() {
        assert_eq!(infer("2,3", known(&[1], vec![1]), known(&[1], vec![0])).unwrap(), "[2,3]");
        assert_eq!(infer("2,3", known(&[], vec![1]), known(&[2], vec![0, 1])).unwrap(), "[2,3]");
        assert_eq!(infer("2,3", known(&[2], vec![1, 2]), known(&[2], vec![0, 0])).unwrap(), "[2,3]");
        assert_eq!(infer("2,3", known(&[], vec![1]), known(&[], vec![0])).unwrap(), "[2,3]");
        assert_eq!(infer("2..5,?", known(&[1], vec![9]), known(&[1], vec![-1])).unwrap(), "[2..5,?]");
        assert_eq!(infer("...", known(&[1], vec![1]), known(&[1], vec![5])).unwrap(), "[...]");
        let i32_shift = PortFact::known(Tensor::from_vec(&[1], vec![1i32]).unwrap());
        let i32_axes = PortFact::known(Tensor::from_vec(&[1], vec![0i32]).unwrap());
        assert_eq!(infer("2,3", i32_shift, i32_axes).unwrap(), "[2,3]");
    }

    #[test]
    fn what_openvino_refuses_is_refused() {
        let err = |shift, axes| infer("2,3", shift, axes).unwrap_err();
        assert_eq!(
            err(known(&[2], vec![1, 2]), known(&[1], vec![0])),
            [ShapeErrorKind::RollLengths { shift: Dim::fixed(2), axes: "1".parse().unwrap() }]
        );
        assert_eq!(
            err(known(&[1], vec![1]), known(&[], vec![0])),
            [ShapeErrorKind::RollLengths { shift: Dim::fixed(1), axes: PartialShape::scalar() }]
        );
        let unknown = |s: &str| PortFact::of(ElementType::I64, s.parse().unwrap());
        assert!(matches!(err(unknown("2"), unknown("3"))[..], [ShapeErrorKind::RollLengths { .. }]));
        assert_eq!(
            err(known(&[1], vec![1]), known(&[1], vec![2])),
            [ShapeErrorKind::OpAxisOutOfRange { op: "Roll", what: "axis", axis: 2, rank: 2 }]
        );
        assert_eq!(
            err(known(&[1], vec![1]), known(&[1], vec![-3])),
            [ShapeErrorKind::OpAxisOutOfRange { op: "Roll", what: "axis", axis: -3, rank: 2 }]
        );
        let f32_shift = PortFact::known(Tensor::from_vec(&[1], vec![1f32]).unwrap());
        assert_eq!(
            err(f32_shift, known(&[1], vec![0])),
            [ShapeErrorKind::IndexType { op: "Roll", input: "shift", found: ElementType::F32 }]
        );
        let u8_shift = PortFact::known(Tensor::from_vec(&[1], vec![1u8]).unwrap());
        assert_eq!(
            err(u8_shift, known(&[1], vec![0])),
            [ShapeErrorKind::IndexType { op: "Roll", input: "shift", found: ElementType::U8 }]
        );
        assert!(matches!(
            err(known(&[1, 1], vec![1]), known(&[1], vec![0]))[..],
            [ShapeErrorKind::InputShape { input: "shift", .. }]
        ));
        assert!(matches!(
            err(known(&[], vec![1]), known(&[1, 1], vec![0]))[..],
            [ShapeErrorKind::InputShape { input: "axes", .. }]
        ));
        // A scalar has no axis to roll.
        let scalar = infer("", known(&[1], vec![1]), known(&[1], vec![0]));
        assert!(matches!(scalar.unwrap_err()[..], [ShapeErrorKind::OpAxisOutOfRange { rank: 0, .. }]));
    }

    #[test]
    fn shifts_wrap_add_up_and_go_both_ways() {
        let t = |shape: &[usize], v: Vec<i64>| Tensor::from_vec(shape, v).unwrap();
        let shifts = |data: &[usize], shift: Tensor, axes: Tensor| {
            let mut out = vec![9; data.len()];
            roll_shifts_into(data, &shift, &axes, &mut out).map(|()| out)
        };
        // Larger than the axis, negative, a scalar for two axes, repeated.
        assert_eq!(shifts(&[3, 4], t(&[1], vec![7]), t(&[1], vec![1])), Ok(vec![0, 3]));
        assert_eq!(shifts(&[3, 4], t(&[1], vec![-1]), t(&[1], vec![0])), Ok(vec![2, 0]));
        assert_eq!(shifts(&[3, 4], t(&[], vec![5]), t(&[2], vec![0, -1])), Ok(vec![2, 1]));
        assert_eq!(shifts(&[3, 4], t(&[3], vec![1, 1, -5]), t(&[3], vec![1, -1, 1])), Ok(vec![0, 1]));
        assert_eq!(shifts(&[3, 4], t(&[1], vec![i64::MIN]), t(&[1], vec![1])), Ok(vec![0, 0]));
        assert_eq!(shifts(&[0, 4], t(&[1], vec![3]), t(&[1], vec![0])), Ok(vec![0, 0]));
        assert!(shifts(&[3, 4], t(&[2], vec![1, 2]), t(&[1], vec![0])).is_err());
        assert!(shifts(&[3, 4], t(&[1], vec![1]), t(&[1], vec![2])).is_err());
    }

    #[test]
    fn example_axes_are_as_many_as_a_vector_of_shifts() {
        let data = PortFact::of(ElementType::F32, "2,3".parse().unwrap());
        let shift = PortFact::of(ElementType::I64, "2".parse().unwrap());
        let axes = PortFact::of(ElementType::I64, "?".parse().unwrap());
        assert_eq!(Roll.input_shape(2, &[&data, &shift, &axes]), Some(vec![Some(Size::Known(2))]));
        assert_eq!(
            Roll.input_values(2, &[&data, &shift, &axes]),
            ValueDomain::Axes { rank: Some(Size::RankOf { input: 0 }), first: 0, distinct: false }
        );
        let open_shift = PortFact::of(ElementType::I64, "?".parse().unwrap());
        let two_axes = PortFact::of(ElementType::I64, "2".parse().unwrap());
        assert_eq!(Roll.input_shape(1, &[&data, &open_shift, &two_axes]), Some(vec![Some(Size::Known(2))]));
        crate::ops::check_round_trips::<Roll>();
    }
}
