//! SpaceToBatch-2: pad the spatial axes, then move blocks of them into the
//! batch.
//!
//! The batch (axis 0) is multiplied by the product of `block_shape`, and
//! each other axis `i`, with its pads, divided by `block_shape[i]`; it
//! shares BatchToSpace's rules
//! ([`block_batch_dims_into`](crate::ops::batch_to_space::block_batch_dims_into)
//! and [`block_batch_shape_into`](crate::ops::batch_to_space::block_batch_shape_into),
//! with `to_batch`).
//!
//! Where the witnesses disagree: OpenVINO's shape inference accepts a
//! negative pad (and gives an open interval for its axis); ovir refuses
//! it, as BatchToSpace refuses a negative crop.

use ovir_ir::Layer;

use crate::fact::PortFact;
use crate::operation::{
    BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, ValueDomain, Versions,
};
use crate::ops::batch_to_space::{block_batch_input_shape, block_batch_values, infer_block_batch};

/// Pads the spatial axes and moves blocks of them into the batch; the
/// inputs are the data, `block_shape`, `pads_begin` and `pads_end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpaceToBatch;

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "SpaceToBatch",
    aliases: &[],
    versions: Versions::Opsets(2, 16),
    inputs: (4, Some(4)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for SpaceToBatch {
    const SPEC: OpSpec = SPEC;

    fn build(_layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(SpaceToBatch)
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset2")
    }

    fn examples() -> Vec<Self> {
        vec![SpaceToBatch]
    }
}

impl Operation for SpaceToBatch {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        infer_block_batch(SPEC.name, true, inputs)
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        block_batch_values(input, inputs)
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        block_batch_input_shape(input, inputs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ShapeErrorKind;
    use ovir_tensor::{Dim, ElementType, Tensor};

    fn ints(v: &[i64]) -> PortFact {
        PortFact::known(Tensor::from_vec(&[v.len()], v.to_vec()).unwrap())
    }

    fn s2b(data: &str, b: &[i64], s: &[i64], e: &[i64]) -> Result<String, Vec<ShapeErrorKind>> {
        let data = PortFact::of(ElementType::F32, data.parse().unwrap());
        let (b, s, e) = (ints(b), ints(s), ints(e));
        SpaceToBatch
            .infer(&[Input::new(&data), Input::new(&b), Input::new(&s), Input::new(&e)])
            .map(|f| f[0].shape.to_string())
            .map_err(|p| p.into_vec().into_iter().map(|p| p.kind).collect())
    }

    // OpenVINO's type_prop/space_to_batch.cpp cases and its answers.
    #[test]
    fn spatial_blocks_move_into_the_batch() {
        assert_eq!(s2b("2,3,4,5", &[1, 1, 2, 4], &[0, 0, 0, 1], &[0, 0, 0, 2]).unwrap(), "[16,3,2,2]");
        assert_eq!(s2b("2,3,4,5", &[2, 1, 2, 4], &[0, 0, 0, 1], &[0, 0, 0, 2]).unwrap(), "[32,3,2,2]");
        assert_eq!(s2b("2,3,4,5", &[1, 1, 2, 4], &[0, 1, 0, 1], &[0, 0, 0, 2]).unwrap(), "[16,4,2,2]");
        assert_eq!(
            s2b("2..4,3..5,4..9,?", &[1, 1, 2, 4], &[0, 0, 0, 1], &[0, 0, 0, 2]).unwrap(),
            "[16..32,3..5,2..4,1..]"
        );
        assert_eq!(s2b("2,3,3..5,5", &[1, 1, 2, 4], &[0, 0, 0, 1], &[0, 0, 0, 2]).unwrap(), "[16,3,2,2]");
        assert_eq!(s2b("2,3", &[1, 1], &[0, 0], &[0, 0]).unwrap(), "[2,3]");
        assert_eq!(s2b("...", &[1, 1, 2, 4], &[0; 4], &[0; 4]).unwrap(), "[...]");
        let data = PortFact::of(ElementType::F32, "2,3,4,5".parse().unwrap());
        let (b, s, e) =
            (ints(&[1, 1, 2, 4]), PortFact::of(ElementType::I64, "4".parse().unwrap()), ints(&[0, 0, 0, 2]));
        let facts =
            SpaceToBatch.infer(&[Input::new(&data), Input::new(&b), Input::new(&s), Input::new(&e)]).unwrap();
        assert_eq!(facts[0].shape.to_string(), "[16,?,?,?]");
    }

    #[test]
    fn what_does_not_divide_is_refused() {
        assert_eq!(
            s2b("2,3,4,5", &[1, 1, 2, 4], &[0; 4], &[0; 4]).unwrap_err(),
            [ShapeErrorKind::BlockDivide { op: "SpaceToBatch", axis: 3, dim: Dim::fixed(5), divisor: 4 }]
        );
        assert!(matches!(
            s2b("2,3,5..5,5", &[1, 1, 2, 4], &[0, 0, 0, 1], &[0, 0, 0, 2]).unwrap_err()[..],
            [ShapeErrorKind::BlockDivide { axis: 2, .. }]
        ));
        assert_eq!(
            s2b("2,3,4,5", &[1, 1, 0, 4], &[0, 0, 0, 1], &[0, 0, 0, 2]).unwrap_err(),
            [ShapeErrorKind::BlockSize { op: "SpaceToBatch", name: "block_shape", value: 0 }]
        );
        assert_eq!(
            s2b("2,3,4,5", &[1, 1, 2, 4], &[0, 0, 0, -1], &[0, 0, 0, 2]).unwrap_err(),
            [ShapeErrorKind::BlockCrop {
                op: "SpaceToBatch",
                input: "pads_begin",
                axis: 3,
                value: -1,
                dim: 0
            }]
        );
        assert!(matches!(
            s2b("2", &[1], &[0], &[0]).unwrap_err()[..],
            [ShapeErrorKind::BlockRank { min: 2, .. }]
        ));
        crate::ops::check_round_trips::<SpaceToBatch>();
    }
}
