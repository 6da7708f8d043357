//! Tile-1: repeat the data along each axis.
//!
//! Repeats and data are lined up from their last axes; the shorter is
//! taken as if it had leading 1s. A negative repeat counts as 0, as in
//! OpenVINO's shape inference and its CPU plugin.

use ovir_ir::Layer;
use ovir_tensor::{Dim, PartialShape, Tensor};

use crate::dims::{dims_of, fact_with_dims, input_rank, integer_input, rank_of_length, vector_len};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, vector_of, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain,
    Versions,
};
use crate::values::try_for_each_integer;

/// Repeats the data along each axis as many times as the second input
/// says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile;

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Tile",
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (2, Some(2)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for Tile {
    const SPEC: OpSpec = SPEC;

    fn build(_layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(Tile)
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset1")
    }

    fn examples() -> Vec<Self> {
        vec![Tile]
    }
}

impl Operation for Tile {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, repeats] = exactly::<2>(SPEC.name, inputs)?;
        let mut problems = Problems::new();
        let ok = integer_input(&mut problems, "Tile", "repeats", repeats.fact)
            & input_rank(&mut problems, "Tile", "repeats", repeats.fact, &[1], "a 1-D tensor");
        if !problems.is_empty() {
            return Err(problems);
        }
        let ty = data.fact.element_type;
        let value = repeats.fact.value.as_ref().filter(|_| ok);
        let shape = match (data.fact.shape.dims(), value) {
            (Some(dims), Some(value)) => {
                let mut out = vec![Dim::DYNAMIC; dims.len().max(value.len())];
                tile_dims_into(dims, value, &mut out).map_err(Problems::one)?;
                PartialShape::new(out)
            }
            (Some(dims), None) => match vector_len(repeats.fact) {
                Some(n) => rank_of_length(dims.len().max(n) as u64),
                None => PartialShape::dynamic(),
            },
            (None, _) => PartialShape::dynamic(),
        };
        // A list of dimensions repeated stays known.
        let repeated = match (shape.rank(), data.fact.shape.rank(), dims_of(data.fact), value) {
            (Some(1), Some(0 | 1), Some(list), Some(value)) => {
                let mut times = 0;
                try_for_each_integer(value, |v| {
                    times = usize::try_from(v.max(0)).map_err(|_| ())?;
                    Ok::<(), ()>(())
                });
                (list.len().saturating_mul(times) <= 64).then(|| list.repeat(times))
            }
            _ => None,
        };
        Ok(vec![fact_with_dims(ty, shape, repeated)])
    }

    fn input_values(&self, input: usize, _inputs: &[&PortFact]) -> ValueDomain {
        match input {
            // Repeats are counts; whoever makes them up picks small ones.
            1 => ValueDomain::Lengths { max: None },
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        (input == 1).then(|| vector_of(inputs.get(1), Size::RankOf { input: 0 })).flatten()
    }
}

/// Tile's output dimensions for data dimensions `dims` (intervals too) and
/// the repeats, written into `out`, which has as many dimensions as the
/// longer of the two: each dimension times its repeat, lined up from the
/// last axis, a negative repeat counting as 0.
pub fn tile_dims_into(dims: &[Dim], repeats: &Tensor, out: &mut [Dim]) -> Result<(), ShapeErrorKind> {
    let rank = out.len();
    check_repeats(repeats, dims.len(), rank)?;
    out.fill(Dim::fixed(1));
    let offset = rank - dims.len();
    for (o, d) in out.iter_mut().skip(offset).zip(dims) {
        *o = *d;
    }
    let first = rank - repeats.len();
    let mut axis = first;
    let read = try_for_each_integer(repeats, |r| {
        let r = u64::try_from(r.max(0)).unwrap_or(u64::MAX);
        let overflow = ShapeErrorKind::SizeOverflow { op: "Tile", axis };
        let d = out.get_mut(axis).ok_or(overflow.clone())?;
        let min = d.min().checked_mul(r).ok_or(overflow.clone())?;
        let max = match d.max() {
            Some(m) => Some(m.checked_mul(r).ok_or(overflow)?),
            None if r == 0 => Some(0),
            None => None,
        };
        *d = Dim::interval(min, max).unwrap_or(Dim::DYNAMIC);
        axis += 1;
        Ok(())
    });
    read.unwrap_or(Err(ShapeErrorKind::UnreadableValues { element_type: repeats.element_type() }))
}

/// [`tile_dims_into`] for data of a known shape: the output shape, each
/// size checked to fit a `usize`. It allocates nothing unless the repeats
/// are wrong, so the executor sizes a Tile's output with it when the
/// repeats arrive at run time (and then checks the total against the
/// memory limit).
///
/// ```
/// use ovir_shape::ops::tile::tile_shape_into;
/// use ovir_tensor::Tensor;
///
/// let mut out = [0; 3];
/// tile_shape_into(&[2, 3], &Tensor::from_vec(&[3], vec![2i64, 1, 3])?, &mut out)?;
/// assert_eq!(out, [2, 2, 9]);
/// let mut out = [0; 2];
/// tile_shape_into(&[2, 3], &Tensor::from_vec(&[1], vec![-1i32])?, &mut out)?;
/// assert_eq!(out, [2, 0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn tile_shape_into(shape: &[usize], repeats: &Tensor, out: &mut [usize]) -> Result<(), ShapeErrorKind> {
    let rank = out.len();
    check_repeats(repeats, shape.len(), rank)?;
    out.fill(1);
    let offset = rank - shape.len();
    for (o, &d) in out.iter_mut().skip(offset).zip(shape) {
        *o = d;
    }
    let mut axis = rank - repeats.len();
    let read = try_for_each_integer(repeats, |r| {
        let overflow = ShapeErrorKind::SizeOverflow { op: "Tile", axis };
        let r = usize::try_from(r.max(0)).map_err(|_| overflow.clone())?;
        let d = out.get_mut(axis).ok_or(overflow.clone())?;
        *d = d.checked_mul(r).ok_or(overflow)?;
        axis += 1;
        Ok(())
    });
    read.unwrap_or(Err(ShapeErrorKind::UnreadableValues { element_type: repeats.element_type() }))
}

/// Checks the repeats' type and shape, and that the output has the rank
/// of the longer of data and repeats.
fn check_repeats(repeats: &Tensor, rank: usize, out_rank: usize) -> Result<(), ShapeErrorKind> {
    let ty = repeats.element_type();
    if !ty.is_integral() {
        return Err(ShapeErrorKind::IntegerInput { op: "Tile", input: "repeats", found: ty });
    }
    if repeats.rank() != 1 {
        return Err(ShapeErrorKind::InputShape {
            op: "Tile",
            input: "repeats",
            expected: "a 1-D tensor",
            shape: PartialShape::from_static(repeats.shape()),
        });
    }
    if out_rank != rank.max(repeats.len()) {
        return Err(ShapeErrorKind::SizeOverflow { op: "Tile", axis: out_rank });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_tensor::ElementType;

    fn infer(data: &str, repeats: PortFact) -> Result<PortFact, Vec<ShapeErrorKind>> {
        let data = PortFact::of(ElementType::F32, data.parse().unwrap());
        Tile.infer(&[Input::new(&data), Input::new(&repeats)])
            .map(|mut f| f.remove(0))
            .map_err(|p| p.into_vec().into_iter().map(|p| p.kind).collect())
    }

    fn reps(values: &[i64]) -> PortFact {
        PortFact::known(Tensor::from_vec(&[values.len()], values.to_vec()).unwrap())
    }

    fn out(data: &str, repeats: PortFact) -> String {
        infer(data, repeats).unwrap().shape.to_string()
    }

    // OpenVINO's type_prop/tile.cpp cases and its answers.
    #[test]
    fn repeats_shorter_or_longer_than_the_rank_line_up_from_the_end() {
        assert_eq!(out("2,3", reps(&[2, 2])), "[4,6]");
        assert_eq!(out("2,3", reps(&[2])), "[2,6]");
        assert_eq!(out("2,3", reps(&[2, 1, 3])), "[2,2,9]");
        assert_eq!(out("2,3", reps(&[])), "[2,3]");
        assert_eq!(out("", reps(&[2, 3])), "[2,3]");
        assert_eq!(out("2,3", reps(&[0, 2])), "[0,6]");
        assert_eq!(out("2,3", reps(&[-1, 2])), "[0,6]");
        assert_eq!(out("2,1..4", reps(&[3, 2])), "[6,2..8]");
        assert_eq!(out("2,?", reps(&[3, 2])), "[6,?]");
        assert_eq!(out("2,?", reps(&[3, 0])), "[6,0]");
        assert_eq!(out("...", reps(&[2, 2, 2])), "[...]");
        assert_eq!(out("2,3", reps(&[1_000_000_000, 1_000_000_000])), "[2000000000,3000000000]");
        let u8_reps = PortFact::known(Tensor::from_vec(&[2], vec![2u8, 2]).unwrap());
        assert_eq!(out("2,3", u8_reps), "[4,6]");
    }

    #[test]
    fn unknown_repeats_leave_the_rank_when_their_length_is_known() {
        let unknown = |s: &str| PortFact::of(ElementType::I64, s.parse().unwrap());
        assert_eq!(out("2,3", unknown("2")), "[?,?]");
        assert_eq!(out("2,3", unknown("3")), "[?,?,?]");
        assert_eq!(out("2,3", unknown("?")), "[...]");
        assert_eq!(out("...", unknown("3")), "[...]");
        assert_eq!(out("2,3", unknown("1000000000000")), "[...]");
    }

    #[test]
    fn repeats_must_be_an_integer_vector_and_sizes_must_fit() {
        let floats = PortFact::known(Tensor::from_vec(&[2], vec![2f32, 2.0]).unwrap());
        assert_eq!(
            infer("2,3", floats).unwrap_err(),
            [ShapeErrorKind::IntegerInput { op: "Tile", input: "repeats", found: ElementType::F32 }]
        );
        let matrix = PortFact::known(Tensor::from_vec(&[1, 2], vec![2i64, 2]).unwrap());
        assert!(matches!(
            infer("2,3", matrix).unwrap_err()[..],
            [ShapeErrorKind::InputShape { input: "repeats", .. }]
        ));
        let scalar = PortFact::known(Tensor::from_vec(&[], vec![2i64]).unwrap());
        assert!(matches!(infer("2,3", scalar).unwrap_err()[..], [ShapeErrorKind::InputShape { .. }]));
        assert_eq!(
            infer("4,3", reps(&[i64::MAX, 1])).unwrap_err(),
            [ShapeErrorKind::SizeOverflow { op: "Tile", axis: 0 }]
        );
        let mut out = [0; 2];
        let huge = Tensor::from_vec(&[2], vec![1_000_000_000_000i64, 1_000_000_000_000]).unwrap();
        assert_eq!(
            tile_shape_into(&[1 << 30, 3], &huge, &mut out),
            Err(ShapeErrorKind::SizeOverflow { op: "Tile", axis: 0 })
        );
        // The output's rank is the caller's to get right.
        assert!(tile_shape_into(&[2, 3], &huge, &mut [0; 3]).is_err());
    }

    #[test]
    fn a_repeated_list_of_dimensions_stays_known() {
        let mut dim = PortFact::of(ElementType::I64, PartialShape::scalar());
        dim.value_dims = Some(vec![Dim::DYNAMIC]);
        let fact = infer_fact(dim, reps(&[3]));
        assert_eq!(fact.shape.to_string(), "[3]");
        assert_eq!(fact.value_dims, Some(vec![Dim::DYNAMIC; 3]));
    }

    fn infer_fact(data: PortFact, repeats: PortFact) -> PortFact {
        Tile.infer(&[Input::new(&data), Input::new(&repeats)]).unwrap().remove(0)
    }

    #[test]
    fn example_repeats_are_counts_one_per_axis() {
        let data = PortFact::of(ElementType::F32, "2,3".parse().unwrap());
        let repeats = PortFact::of(ElementType::I64, "?".parse().unwrap());
        assert_eq!(Tile.input_values(1, &[&data, &repeats]), ValueDomain::Lengths { max: None });
        assert_eq!(Tile.input_shape(1, &[&data, &repeats]), Some(vec![Some(Size::RankOf { input: 0 })]));
        crate::ops::check_round_trips::<Tile>();
    }
}
