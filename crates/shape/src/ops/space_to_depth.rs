//! SpaceToDepth-1: move blocks of the spatial axes into the channels.
//!
//! Each spatial axis of data of rank `2 + k` is divided by `block_size`,
//! and the channel axis (1) multiplied by `block_size^k`; an interval
//! spatial axis keeps the multiples it holds, as OpenVINO divides it.
//! [`block_dims_into`](crate::ops::depth_to_space::block_dims_into) and
//! [`block_shape_into`](crate::ops::depth_to_space::block_shape_into),
//! with `to_depth`, are its rules.

use ovir_ir::Layer;
use ovir_tensor::{Dim, PartialShape};

use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, Versions,
};
use crate::ops::depth_to_space::{block_attrs, BlockMode};

/// Moves blocks of `block_size` elements of each spatial axis into the
/// channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpaceToDepth {
    /// How the channel index splits into block and channel.
    pub mode: BlockMode,
    /// The `block_size` attribute, 1 or more.
    pub block_size: u64,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "SpaceToDepth",
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (1, Some(1)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for SpaceToDepth {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        block_attrs(layer, SPEC.name).map(|(mode, block_size)| SpaceToDepth { mode, block_size })
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset1").attr("block_size", self.block_size).attr("mode", self.mode.as_str())
    }

    fn examples() -> Vec<Self> {
        vec![
            SpaceToDepth { mode: BlockMode::BlocksFirst, block_size: 2 },
            SpaceToDepth { mode: BlockMode::DepthFirst, block_size: 3 },
        ]
    }
}

impl Operation for SpaceToDepth {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data] = exactly::<1>(SPEC.name, inputs)?;
        let shape = match data.fact.shape.dims() {
            Some(dims) => {
                let mut out = vec![Dim::DYNAMIC; dims.len()];
                crate::ops::depth_to_space::block_dims_into(SPEC.name, dims, self.block_size, true, &mut out)
                    .map_err(Problems::one)?;
                PartialShape::new(out)
            }
            None => PartialShape::dynamic(),
        };
        Ok(vec![PortFact::of(data.fact.element_type, shape)])
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        // Unknown spatial axes become one block.
        let dims = inputs.get(input)?.shape.dims()?;
        let rule: ShapeRule = dims
            .iter()
            .enumerate()
            .map(|(k, d)| {
                (k >= 2 && !d.is_static() && d.contains(self.block_size))
                    .then_some(Size::Known(self.block_size))
            })
            .collect();
        rule.iter().any(Option::is_some).then_some(rule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ShapeErrorKind;

    fn infer(op: SpaceToDepth, data: &str) -> Result<String, ShapeErrorKind> {
        let data = PortFact::of(ovir_tensor::ElementType::F32, data.parse().unwrap());
        op.infer(&[Input::new(&data)])
            .map(|f| f[0].shape.to_string())
            .map_err(|p| p.into_vec().remove(0).kind)
    }

    const BF2: SpaceToDepth = SpaceToDepth { mode: BlockMode::BlocksFirst, block_size: 2 };

    // OpenVINO's type_prop/space_to_depth.cpp cases and its answers.
    #[test]
    fn spatial_blocks_move_into_the_channels() {
        assert_eq!(infer(BF2, "1,2,4,6").unwrap(), "[1,8,2,3]");
        assert_eq!(
            infer(SpaceToDepth { mode: BlockMode::DepthFirst, block_size: 2 }, "1,2,4,6,8").unwrap(),
            "[1,16,2,3,4]"
        );
        assert_eq!(infer(BF2, "1,2,4").unwrap(), "[1,4,2]");
        assert_eq!(infer(BF2, "1,2..3,4..9,?").unwrap(), "[1,8..12,2..4,?]");
        assert_eq!(infer(BF2, "1,2..3,5..7,?").unwrap(), "[1,8..12,3,?]");
        assert_eq!(infer(BF2, "...").unwrap(), "[...]");
    }

    #[test]
    fn what_does_not_divide_is_refused() {
        assert_eq!(
            infer(BF2, "1,2,5,6"),
            Err(ShapeErrorKind::BlockDivide { op: "SpaceToDepth", axis: 2, dim: Dim::fixed(5), divisor: 2 })
        );
        assert!(matches!(infer(BF2, "1,2,5..5,?"), Err(ShapeErrorKind::BlockDivide { axis: 2, .. })));
        assert!(matches!(infer(BF2, "1,2"), Err(ShapeErrorKind::BlockRank { .. })));
        let data = PortFact::of(ovir_tensor::ElementType::F32, "1,2,?,4".parse().unwrap());
        assert_eq!(BF2.input_shape(0, &[&data]), Some(vec![None, None, Some(Size::Known(2)), None]));
        crate::ops::check_round_trips::<SpaceToDepth>();
    }
}
