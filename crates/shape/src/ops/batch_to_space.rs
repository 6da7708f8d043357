//! BatchToSpace-2: move blocks of the batch into the spatial axes, then
//! crop.
//!
//! The batch (axis 0) is divided by the product of `block_shape`, and
//! each other axis `i` multiplied by `block_shape[i]` and cropped by
//! `crops_begin[i] + crops_end[i]`. SpaceToBatch-2 is the inverse, and
//! shares the rules here ([`block_batch_dims_into`],
//! [`block_batch_shape_into`]).
//!
//! With some of block, crops and pads not known, ovir infers what
//! OpenVINO infers: the batch from a known block, and BatchToSpace's
//! spatial axes, with known crops, bounded from below (a block is at
//! least 1).

use ovir_ir::Layer;
use ovir_tensor::{Dim, ElementType, PartialShape, Tensor};

use crate::dims::{divide_dim, multiply_dim};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};
use crate::values::nth_integer;

/// Moves blocks of the batch into the spatial axes and crops them; the
/// inputs are the data, `block_shape`, `crops_begin` and `crops_end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchToSpace;

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "BatchToSpace",
    aliases: &[],
    versions: Versions::Opsets(2, 16),
    inputs: (4, Some(4)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for BatchToSpace {
    const SPEC: OpSpec = SPEC;

    fn build(_layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(BatchToSpace)
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset2")
    }

    fn examples() -> Vec<Self> {
        vec![BatchToSpace]
    }
}

impl Operation for BatchToSpace {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        infer_block_batch(SPEC.name, false, inputs)
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        block_batch_values(input, inputs)
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        block_batch_input_shape(input, inputs)
    }
}

/// Example values of BatchToSpace and SpaceToBatch: blocks of 1 and no
/// crops or pads suit any data.
pub(crate) fn block_batch_values(input: usize, _inputs: &[&PortFact]) -> ValueDomain {
    match input {
        1 => ValueDomain::Lengths { max: Some(Size::Known(1)) },
        2 | 3 => ValueDomain::Lengths { max: Some(Size::Known(0)) },
        _ => ValueDomain::Any,
    }
}

/// Block, crops and pads have one element per data axis.
pub(crate) fn block_batch_input_shape(input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
    let own = inputs.get(input)?;
    ((1..=3).contains(&input) && !matches!(own.shape.dims(), Some([n]) if n.is_static()))
        .then(|| vec![Some(Size::RankOf { input: 0 })])
}

/// The input names of BatchToSpace or SpaceToBatch.
fn names(to_batch: bool) -> [&'static str; 3] {
    if to_batch {
        ["block_shape", "pads_begin", "pads_end"]
    } else {
        ["block_shape", "crops_begin", "crops_end"]
    }
}

/// The inference of BatchToSpace (`to_batch` false) and SpaceToBatch.
pub(crate) fn infer_block_batch(
    op: &'static str,
    to_batch: bool,
    inputs: &[Input<'_>],
) -> Result<Vec<PortFact>, Problems> {
    let [data, block, begin, end] = exactly::<4>(op, inputs)?;
    let mut problems = Problems::new();
    let names = names(to_batch);
    let others = [block, begin, end];
    // One integer type for all three.
    let mut ty = ElementType::Dynamic;
    for (k, (input, name)) in others.iter().zip(names).enumerate() {
        let t = input.fact.element_type;
        if t.is_static() && !t.is_integral() {
            problems.layer(ShapeErrorKind::IntegerInput { op, input: name, found: t });
        } else if let Some(m) = ty.merge(t) {
            ty = m;
        } else {
            problems.layer(ShapeErrorKind::InputTypes { op, input: k + 1, found: t, expected: ty });
            break;
        }
    }
    // One shape for all three, a vector of one element per data axis.
    let mut shape = PartialShape::dynamic();
    for (input, name) in others.iter().zip(names) {
        match shape.merge(&input.fact.shape) {
            Some(m) if m.rank().is_none_or(|r| r == 1) => shape = m,
            _ => {
                problems.layer(ShapeErrorKind::InputShape {
                    op,
                    input: name,
                    expected: "a 1-D tensor shaped like the other two",
                    shape: input.fact.shape.clone(),
                });
                break;
            }
        }
    }
    if let Some(dims) = data.fact.shape.dims() {
        if dims.len() < 2 {
            problems.layer(ShapeErrorKind::BlockRank { op, min: 2, shape: data.fact.shape.clone() });
        } else if let Some([n]) = shape.dims() {
            if !n.contains(dims.len() as u64) {
                problems.layer(ShapeErrorKind::InputShape {
                    op,
                    input: names[0],
                    expected: "a 1-D tensor of one element per data axis",
                    shape: shape.clone(),
                });
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let et = data.fact.element_type;
    let values = [block, begin, end].map(|i| i.fact.value.as_ref());
    let out = match (data.fact.shape.dims(), values) {
        (Some(dims), [Some(b), Some(s), Some(e)]) => {
            let mut out = vec![Dim::DYNAMIC; dims.len()];
            block_batch_dims_into(op, to_batch, dims, b, s, e, &mut out).map_err(Problems::one)?;
            PartialShape::new(out)
        }
        (Some(dims), values) => {
            PartialShape::new(partly_known(op, to_batch, dims, values).map_err(Problems::one)?)
        }
        (None, _) => PartialShape::dynamic(),
    };
    Ok(vec![PortFact::of(et, out)])
}

/// What OpenVINO infers when some of block, crops and pads are not known:
/// the batch from a known block, and BatchToSpace's other axes, with known
/// crops, at least what a block of 1 leaves.
fn partly_known(
    op: &'static str,
    to_batch: bool,
    dims: &[Dim],
    values: [Option<&Tensor>; 3],
) -> Result<Vec<Dim>, ShapeErrorKind> {
    let product = check_block_inputs(op, to_batch, dims.len(), values)?;
    let [_, begin, end] = values;
    let mut out = vec![Dim::DYNAMIC; dims.len()];
    if let (Some(product), Some(d), Some(o)) = (product, dims.first(), out.first_mut()) {
        *o = block_batch_dim(op, to_batch, 0, *d, product, [1, 0, 0])?;
    }
    if let (false, None, Some(begin), Some(end)) = (to_batch, product, begin, end) {
        for (axis, (o, d)) in out.iter_mut().zip(dims).enumerate().skip(1) {
            let crop = [begin, end].map(|t| nth_integer(t, axis).unwrap_or(0).max(0) as u64);
            *o = Dim::interval(d.min().saturating_sub(crop[0].saturating_add(crop[1])), None)
                .unwrap_or(Dim::DYNAMIC);
        }
    }
    Ok(out)
}

/// Checks those of block, crops or pads that are given against data of
/// rank `rank`, and gives the product of the block (saturated) when it is
/// given.
fn check_block_inputs(
    op: &'static str,
    to_batch: bool,
    rank: usize,
    tensors: [Option<&Tensor>; 3],
) -> Result<Option<u64>, ShapeErrorKind> {
    if rank < 2 {
        return Err(ShapeErrorKind::BlockRank { op, min: 2, shape: PartialShape::with_rank(rank) });
    }
    let names = names(to_batch);
    for (t, name) in tensors.iter().zip(names) {
        let Some(t) = t else { continue };
        let ty = t.element_type();
        if !ty.is_integral() {
            return Err(ShapeErrorKind::IntegerInput { op, input: name, found: ty });
        }
        if t.shape() != [rank] {
            return Err(ShapeErrorKind::InputShape {
                op,
                input: name,
                expected: "a 1-D tensor of one element per data axis",
                shape: PartialShape::from_static(t.shape()),
            });
        }
    }
    let [block, begin, end] = tensors;
    let value = |t: &Tensor, axis| {
        nth_integer(t, axis).ok_or(ShapeErrorKind::UnreadableValues { element_type: t.element_type() })
    };
    let mut product = 1u64;
    for axis in 0..rank {
        if let Some(block) = block {
            let b = value(block, axis)?;
            if b < 1 {
                return Err(ShapeErrorKind::BlockSize { op, name: "block_shape", value: b });
            }
            product = product.saturating_mul(b as u64);
        }
        for (t, name) in [(begin, names[1]), (end, names[2])] {
            let Some(t) = t else { continue };
            let v = value(t, axis)?;
            if v < 0 {
                return Err(ShapeErrorKind::BlockCrop { op, input: name, axis, value: v, dim: 0 });
            }
        }
    }
    Ok(block.map(|_| product))
}

/// One output dimension of BatchToSpace or SpaceToBatch.
fn block_batch_dim(
    op: &'static str,
    to_batch: bool,
    axis: usize,
    dim: Dim,
    product: u64,
    [block, begin, end]: [u64; 3],
) -> Result<Dim, ShapeErrorKind> {
    let overflow = ShapeErrorKind::SizeOverflow { op, axis };
    let divide = |d: Dim, by: u64| {
        divide_dim(d, by).ok_or(ShapeErrorKind::BlockDivide { op, axis, dim: d, divisor: by })
    };
    match (axis, to_batch) {
        (0, false) => divide(dim, product),
        (0, true) => multiply_dim(dim, product).ok_or(overflow),
        (_, false) => {
            let grown = multiply_dim(dim, block).ok_or(overflow.clone())?;
            let crop = begin.checked_add(end).ok_or(overflow)?;
            let too_much = |limit: u64| ShapeErrorKind::BlockCrop {
                op,
                input: "crops_begin + crops_end",
                axis,
                value: i64::try_from(crop).unwrap_or(i64::MAX),
                dim: limit,
            };
            match grown.max() {
                Some(max) if max < crop => Err(too_much(max)),
                max => Ok(Dim::interval(grown.min().saturating_sub(crop), max.map(|m| m - crop))
                    .unwrap_or(Dim::DYNAMIC)),
            }
        }
        (_, true) => {
            let pad = begin.checked_add(end).ok_or(overflow.clone())?;
            let padded = Dim::interval(
                dim.min().checked_add(pad).ok_or(overflow.clone())?,
                match dim.max() {
                    Some(m) => Some(m.checked_add(pad).ok_or(overflow)?),
                    None => None,
                },
            )
            .unwrap_or(Dim::DYNAMIC);
            divide(padded, block)
        }
    }
}

/// The output dimensions of BatchToSpace (`to_batch` false) or
/// SpaceToBatch (`to_batch` true) on data of dimensions `dims` (intervals
/// too), written into `out`. The data has rank 2 or more; the block and
/// the crops (or pads) are integer vectors of one element per data axis,
/// of one type, blocks 1 or more and crops or pads 0 or more.
/// BatchToSpace divides the batch by the block's product and multiplies
/// each other axis by its block, less its crops, which must not exceed
/// it; SpaceToBatch multiplies the batch, and divides each other axis with
/// its pads by its block. Whatever is divided must hold a multiple. `op`
/// names the op in errors.
pub fn block_batch_dims_into(
    op: &'static str,
    to_batch: bool,
    dims: &[Dim],
    block: &Tensor,
    begin: &Tensor,
    end: &Tensor,
    out: &mut [Dim],
) -> Result<(), ShapeErrorKind> {
    let product = check_block_inputs(op, to_batch, dims.len(), [Some(block), Some(begin), Some(end)])?;
    let product = product.unwrap_or(1);
    for (axis, (o, &d)) in out.iter_mut().zip(dims).enumerate() {
        let values = [block, begin, end].map(|t| nth_integer(t, axis).unwrap_or(0).max(0) as u64);
        *o = block_batch_dim(op, to_batch, axis, d, product, values)?;
    }
    Ok(())
}

/// [`block_batch_dims_into`] for data of a known shape: the output shape,
/// each size checked to fit a `usize`. It allocates nothing unless the
/// inputs are wrong, so the executor sizes a BatchToSpace or SpaceToBatch
/// output with it when block, crops or pads arrive at run time.
///
/// ```
/// use ovir_shape::ops::batch_to_space::block_batch_shape_into;
/// use ovir_tensor::Tensor;
///
/// let t = |v: [i64; 4]| Tensor::from_vec(&[4], v.to_vec());
/// let mut out = [0; 4];
/// block_batch_shape_into("BatchToSpace", false, &[16, 3, 4, 5], &t([1, 1, 2, 4])?, &t([0, 0, 1, 0])?, &t([0, 0, 0, 3])?, &mut out)?;
/// assert_eq!(out, [2, 3, 7, 17]);
/// block_batch_shape_into("SpaceToBatch", true, &[2, 3, 4, 5], &t([1, 1, 2, 4])?, &t([0, 0, 0, 1])?, &t([0, 0, 0, 2])?, &mut out)?;
/// assert_eq!(out, [16, 3, 2, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn block_batch_shape_into(
    op: &'static str,
    to_batch: bool,
    shape: &[usize],
    block: &Tensor,
    begin: &Tensor,
    end: &Tensor,
    out: &mut [usize],
) -> Result<(), ShapeErrorKind> {
    let product = check_block_inputs(op, to_batch, shape.len(), [Some(block), Some(begin), Some(end)])?;
    let product = product.unwrap_or(1);
    for (axis, (o, &d)) in out.iter_mut().zip(shape).enumerate() {
        let values = [block, begin, end].map(|t| nth_integer(t, axis).unwrap_or(0).max(0) as u64);
        let dim = block_batch_dim(op, to_batch, axis, Dim::fixed(d as u64), product, values)?;
        *o = dim
            .get()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(ShapeErrorKind::SizeOverflow { op, axis })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> PortFact {
        PortFact::known(Tensor::from_vec(&[v.len()], v.to_vec()).unwrap())
    }

    fn infer(data: &str, b: PortFact, s: PortFact, e: PortFact) -> Result<String, Vec<ShapeErrorKind>> {
        let data = PortFact::of(ElementType::F32, data.parse().unwrap());
        BatchToSpace
            .infer(&[Input::new(&data), Input::new(&b), Input::new(&s), Input::new(&e)])
            .map(|f| f[0].shape.to_string())
            .map_err(|p| p.into_vec().into_iter().map(|p| p.kind).collect())
    }

    fn b2s(data: &str, b: &[i64], s: &[i64], e: &[i64]) -> Result<String, Vec<ShapeErrorKind>> {
        infer(data, ints(b), ints(s), ints(e))
    }

    // OpenVINO's type_prop/batch_to_space.cpp cases and its answers.
    #[test]
    fn the_batch_moves_into_the_spatial_axes() {
        assert_eq!(b2s("16,3,4,5", &[1, 1, 2, 4], &[0, 0, 1, 0], &[0, 0, 0, 3]).unwrap(), "[2,3,7,17]");
        assert_eq!(b2s("16,3,4,5", &[2, 1, 2, 4], &[0; 4], &[0; 4]).unwrap(), "[1,3,8,20]");
        assert_eq!(b2s("16,3,4,5", &[1, 1, 2, 4], &[0, 1, 0, 0], &[0; 4]).unwrap(), "[2,2,8,20]");
        assert_eq!(b2s("16,3,4,5", &[1, 1, 2, 4], &[0, 0, 4, 0], &[0, 0, 4, 0]).unwrap(), "[2,3,0,20]");
        assert_eq!(
            b2s("8..32,2..3,4..5,?", &[1, 1, 2, 4], &[0, 0, 1, 0], &[0, 0, 0, 3]).unwrap(),
            "[1..4,2..3,7..9,?]"
        );
        assert_eq!(b2s("?,3,4,5", &[1, 1, 2, 4], &[0; 4], &[0; 4]).unwrap(), "[?,3,8,20]");
        assert_eq!(b2s("16,3", &[1, 1], &[0, 0], &[0, 0]).unwrap(), "[16,3]");
        assert_eq!(b2s("...", &[1, 1, 2, 4], &[0; 4], &[0; 4]).unwrap(), "[...]");
        let u8s = |v: &[u8]| PortFact::known(Tensor::from_vec(&[v.len()], v.to_vec()).unwrap());
        assert_eq!(infer("16,3,4,5", u8s(&[1, 1, 2, 4]), u8s(&[0; 4]), u8s(&[0; 4])).unwrap(), "[2,3,8,20]");
        let unknown = || PortFact::of(ElementType::I64, "4".parse().unwrap());
        assert_eq!(
            infer("16,3,4,5", unknown(), ints(&[0, 0, 1, 0]), ints(&[0, 0, 0, 3])).unwrap(),
            "[?,3..,3..,2..]"
        );
        assert_eq!(
            infer("16,2..4,4,?", unknown(), ints(&[0, 0, 1, 0]), ints(&[0, 0, 0, 3])).unwrap(),
            "[?,2..,3..,?]"
        );
        assert_eq!(
            infer("16,3,4,5", ints(&[1, 1, 2, 4]), unknown(), ints(&[0, 0, 0, 3])).unwrap(),
            "[2,?,?,?]"
        );
        assert_eq!(infer("16,3,4,5", unknown(), unknown(), unknown()).unwrap(), "[?,?,?,?]");
    }

    #[test]
    fn what_openvino_refuses_is_refused() {
        let err = |data: &str, b: &[i64], s: &[i64], e: &[i64]| b2s(data, b, s, e).unwrap_err();
        let crop = |axis, value, dim| {
            vec![ShapeErrorKind::BlockCrop {
                op: "BatchToSpace",
                input: "crops_begin + crops_end",
                axis,
                value,
                dim,
            }]
        };
        assert_eq!(err("16,3,4,5", &[1, 1, 2, 4], &[0, 0, 9, 0], &[0; 4]), crop(2, 9, 8));
        assert_eq!(err("16,3,4,5", &[1, 1, 2, 4], &[0, 0, 5, 0], &[0, 0, 4, 0]), crop(2, 9, 8));
        assert_eq!(
            err("15,3,4,5", &[1, 1, 2, 4], &[0; 4], &[0; 4]),
            [ShapeErrorKind::BlockDivide { op: "BatchToSpace", axis: 0, dim: Dim::fixed(15), divisor: 8 }]
        );
        assert!(matches!(
            err("9..15,3,4,5", &[1, 1, 2, 4], &[0; 4], &[0; 4])[..],
            [ShapeErrorKind::BlockDivide { axis: 0, .. }]
        ));
        for b in [0, -2] {
            assert_eq!(
                err("16,3,4,5", &[1, 1, b, 4], &[0; 4], &[0; 4]),
                [ShapeErrorKind::BlockSize { op: "BatchToSpace", name: "block_shape", value: b }]
            );
        }
        assert_eq!(
            err("16,3,4,5", &[1, 1, 2, 4], &[0, 0, -1, 0], &[0; 4]),
            [ShapeErrorKind::BlockCrop {
                op: "BatchToSpace",
                input: "crops_begin",
                axis: 2,
                value: -1,
                dim: 0
            }]
        );
        assert!(matches!(
            err("16,3,4,5", &[1, 2, 4], &[0; 3], &[0; 3])[..],
            [ShapeErrorKind::InputShape { .. }]
        ));
        assert!(matches!(err("16", &[1], &[0], &[0])[..], [ShapeErrorKind::BlockRank { min: 2, .. }]));
        assert!(matches!(
            err("...", &[1, 1, 2, 4], &[0; 4], &[0; 5])[..],
            [ShapeErrorKind::InputShape { .. }]
        ));
        let floats = PortFact::known(Tensor::from_vec(&[4], vec![1f32, 1.0, 2.0, 4.0]).unwrap());
        assert_eq!(
            infer("16,3,4,5", floats, ints(&[0; 4]), ints(&[0; 4])).unwrap_err(),
            [ShapeErrorKind::IntegerInput {
                op: "BatchToSpace",
                input: "block_shape",
                found: ElementType::F32
            }]
        );
        let i32s = PortFact::known(Tensor::from_vec(&[4], vec![1i32, 1, 2, 4]).unwrap());
        assert_eq!(
            infer("16,3,4,5", i32s, ints(&[0; 4]), ints(&[0; 4])).unwrap_err(),
            [ShapeErrorKind::InputTypes {
                op: "BatchToSpace",
                input: 2,
                found: ElementType::I64,
                expected: ElementType::I32
            }]
        );
    }

    #[test]
    fn example_inputs_are_blocks_of_one() {
        let data = PortFact::of(ElementType::F32, "2,3".parse().unwrap());
        let open = PortFact::of(ElementType::I64, "?".parse().unwrap());
        let facts = [&data, &open, &open, &open];
        assert_eq!(BatchToSpace.input_values(1, &facts), ValueDomain::Lengths { max: Some(Size::Known(1)) });
        assert_eq!(BatchToSpace.input_values(3, &facts), ValueDomain::Lengths { max: Some(Size::Known(0)) });
        assert_eq!(BatchToSpace.input_shape(2, &facts), Some(vec![Some(Size::RankOf { input: 0 })]));
        crate::ops::check_round_trips::<BatchToSpace>();
    }
}
