//! DepthToSpace-1: move blocks of channels into the spatial axes.
//!
//! The channel axis (1) of data of rank `2 + k` is divided by
//! `block_size^k`, and each spatial axis multiplied by `block_size`. An
//! interval channel axis keeps the multiples it holds, as OpenVINO
//! divides it.

use ovir_ir::Layer;
use ovir_tensor::{Dim, PartialShape};

use crate::attrs;
use crate::dims::{divide_dim, multiply_dim};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, Versions,
};

/// How DepthToSpace and SpaceToDepth split the channel axis into a block
/// and the channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockMode {
    /// The block offsets are the outer part of the channel index.
    BlocksFirst,
    /// The channels are the outer part of the channel index.
    DepthFirst,
}

impl BlockMode {
    /// Parses the `mode` attribute, ignoring ASCII case.
    pub fn from_attr(value: &str) -> Option<Self> {
        let v = value.trim();
        [Self::BlocksFirst, Self::DepthFirst].into_iter().find(|m| v.eq_ignore_ascii_case(m.as_str()))
    }

    /// The attribute spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::BlocksFirst => "blocks_first",
            Self::DepthFirst => "depth_first",
        }
    }
}

/// Reads the `mode` and `block_size` attributes of DepthToSpace or
/// SpaceToDepth (`block_size` 1 when absent).
pub(crate) fn block_attrs(layer: &Layer, op: &'static str) -> Result<(BlockMode, u64), Problems> {
    let mut problems = Problems::new();
    let mode = attrs::required(layer, op, "mode", &mut problems).and_then(|value| {
        let mode = BlockMode::from_attr(value);
        if mode.is_none() {
            problems.attr("mode", ShapeErrorKind::InvalidBlockMode { op, value: value.to_string() });
        }
        mode
    });
    let size =
        attrs::int_or(layer, "block_size", 1, &mut problems).and_then(|value| match u64::try_from(value) {
            Ok(n) if n > 0 => Some(n),
            _ => {
                problems.attr("block_size", ShapeErrorKind::BlockSize { op, name: "block_size", value });
                None
            }
        });
    match (mode, size) {
        (Some(mode), Some(size)) if problems.is_empty() => Ok((mode, size)),
        _ => Err(problems),
    }
}

/// Moves blocks of `block_size^k` channels into the `k` spatial axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthToSpace {
    /// How the channel index splits into block and channel.
    pub mode: BlockMode,
    /// The `block_size` attribute, 1 or more.
    pub block_size: u64,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "DepthToSpace",
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (1, Some(1)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for DepthToSpace {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        block_attrs(layer, SPEC.name).map(|(mode, block_size)| DepthToSpace { mode, block_size })
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset1").attr("block_size", self.block_size).attr("mode", self.mode.as_str())
    }

    fn examples() -> Vec<Self> {
        vec![
            DepthToSpace { mode: BlockMode::BlocksFirst, block_size: 2 },
            DepthToSpace { mode: BlockMode::DepthFirst, block_size: 3 },
            DepthToSpace { mode: BlockMode::DepthFirst, block_size: 1 },
        ]
    }
}

impl Operation for DepthToSpace {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data] = exactly::<1>(SPEC.name, inputs)?;
        let shape = match data.fact.shape.dims() {
            Some(dims) => {
                let mut out = vec![Dim::DYNAMIC; dims.len()];
                block_dims_into(SPEC.name, dims, self.block_size, false, &mut out).map_err(Problems::one)?;
                PartialShape::new(out)
            }
            None => PartialShape::dynamic(),
        };
        Ok(vec![PortFact::of(data.fact.element_type, shape)])
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        // Unknown channels become one block's worth.
        let dims = inputs.get(input)?.shape.dims()?;
        let channels = dims.get(1).filter(|d| !d.is_static())?;
        let block = block_volume(self.block_size, dims.len())?;
        channels
            .contains(block)
            .then(|| (0..dims.len()).map(|k| (k == 1).then_some(Size::Known(block))).collect())
    }
}

/// `block_size^k` for data of rank `rank` (`k = rank - 2` spatial axes).
fn block_volume(block_size: u64, rank: usize) -> Option<u64> {
    block_size.checked_pow(u32::try_from(rank.checked_sub(2)?).ok()?)
}

/// The output dimensions of DepthToSpace (`to_depth` false) or
/// SpaceToDepth (`to_depth` true) on data of dimensions `dims` (intervals
/// too), written into `out`: the data has rank 3 or more; DepthToSpace
/// divides the channels by `block_size^k` and multiplies each spatial axis
/// by `block_size`, SpaceToDepth the other way round; what is divided must
/// hold a multiple. `op` names the op in errors.
pub fn block_dims_into(
    op: &'static str,
    dims: &[Dim],
    block_size: u64,
    to_depth: bool,
    out: &mut [Dim],
) -> Result<(), ShapeErrorKind> {
    if dims.len() < 3 {
        return Err(ShapeErrorKind::BlockRank { op, min: 3, shape: PartialShape::new(dims.to_vec()) });
    }
    if block_size == 0 {
        return Err(ShapeErrorKind::BlockSize { op, name: "block_size", value: 0 });
    }
    let volume = block_volume(block_size, dims.len()).unwrap_or(u64::MAX);
    for (axis, (o, &d)) in out.iter_mut().zip(dims).enumerate() {
        let divisor = match axis {
            0 => 1,
            1 if to_depth => 1,
            1 => volume,
            _ if to_depth => block_size,
            _ => 1,
        };
        let factor = match axis {
            0 => 1,
            1 if to_depth => volume,
            _ if to_depth => 1,
            1 => 1,
            _ => block_size,
        };
        let divided =
            divide_dim(d, divisor).ok_or(ShapeErrorKind::BlockDivide { op, axis, dim: d, divisor })?;
        *o = multiply_dim(divided, factor).ok_or(ShapeErrorKind::SizeOverflow { op, axis })?;
    }
    Ok(())
}

/// [`block_dims_into`] for data of a known shape, each size checked to
/// fit a `usize`. It allocates nothing unless the shape is wrong, so the
/// executor sizes a DepthToSpace or SpaceToDepth output with it.
///
/// ```
/// use ovir_shape::ops::depth_to_space::block_shape_into;
/// let mut out = [0; 4];
/// block_shape_into("DepthToSpace", &[1, 8, 2, 3], 2, false, &mut out)?;
/// assert_eq!(out, [1, 2, 4, 6]);
/// block_shape_into("SpaceToDepth", &[1, 2, 4, 6], 2, true, &mut out)?;
/// assert_eq!(out, [1, 8, 2, 3]);
/// # Ok::<(), ovir_shape::ShapeErrorKind>(())
/// ```
pub fn block_shape_into(
    op: &'static str,
    shape: &[usize],
    block_size: u64,
    to_depth: bool,
    out: &mut [usize],
) -> Result<(), ShapeErrorKind> {
    if shape.len() < 3 {
        return Err(ShapeErrorKind::BlockRank { op, min: 3, shape: PartialShape::from_static(shape) });
    }
    let block = usize::try_from(block_size).ok().filter(|&b| b > 0);
    let block =
        block.ok_or(ShapeErrorKind::BlockSize { op, name: "block_size", value: block_size as i64 })?;
    let volume =
        block_volume(block_size, shape.len()).and_then(|v| usize::try_from(v).ok()).unwrap_or(usize::MAX);
    for (axis, (o, &d)) in out.iter_mut().zip(shape).enumerate() {
        let (divisor, factor) = match (axis, to_depth) {
            (0, _) => (1, 1),
            (1, false) => (volume, 1),
            (1, true) => (1, volume),
            (_, false) => (1, block),
            (_, true) => (block, 1),
        };
        if d % divisor != 0 {
            return Err(ShapeErrorKind::BlockDivide {
                op,
                axis,
                dim: Dim::fixed(d as u64),
                divisor: divisor as u64,
            });
        }
        *o = (d / divisor).checked_mul(factor).ok_or(ShapeErrorKind::SizeOverflow { op, axis })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_tensor::ElementType;

    fn infer(op: DepthToSpace, data: &str) -> Result<String, ShapeErrorKind> {
        let data = PortFact::of(ElementType::F32, data.parse().unwrap());
        op.infer(&[Input::new(&data)])
            .map(|f| f[0].shape.to_string())
            .map_err(|p| p.into_vec().remove(0).kind)
    }

    const BF2: DepthToSpace = DepthToSpace { mode: BlockMode::BlocksFirst, block_size: 2 };

    // OpenVINO's type_prop/depth_to_space.cpp cases and its answers.
    #[test]
    fn channels_move_into_the_spatial_axes() {
        assert_eq!(infer(BF2, "1,8,2,3").unwrap(), "[1,2,4,6]");
        assert_eq!(
            infer(DepthToSpace { mode: BlockMode::DepthFirst, block_size: 2 }, "1,16,2,3,4").unwrap(),
            "[1,2,4,6,8]"
        );
        assert_eq!(infer(BF2, "1,8,2").unwrap(), "[1,4,4]");
        assert_eq!(infer(DepthToSpace { block_size: 1, ..BF2 }, "1,8,2,3").unwrap(), "[1,8,2,3]");
        assert_eq!(infer(BF2, "1,8..16,2..3,?").unwrap(), "[1,2..4,4..6,?]");
        assert_eq!(infer(BF2, "1,7..17,2,3").unwrap(), "[1,2..4,4,6]");
        assert_eq!(infer(BF2, "1,?,2,3").unwrap(), "[1,?,4,6]");
        assert_eq!(infer(BF2, "1,0,2,3").unwrap(), "[1,0,4,6]");
        assert_eq!(infer(BF2, "...").unwrap(), "[...]");
    }

    #[test]
    fn what_does_not_divide_is_refused() {
        assert_eq!(
            infer(BF2, "1,7,2,3"),
            Err(ShapeErrorKind::BlockDivide { op: "DepthToSpace", axis: 1, dim: Dim::fixed(7), divisor: 4 })
        );
        assert_eq!(
            infer(BF2, "1,5..7,2,3"),
            Err(ShapeErrorKind::BlockDivide {
                op: "DepthToSpace",
                axis: 1,
                dim: Dim::interval(5, Some(7)).unwrap(),
                divisor: 4
            })
        );
        assert!(matches!(infer(BF2, "1,8"), Err(ShapeErrorKind::BlockRank { min: 3, .. })));
        let huge = DepthToSpace { block_size: u64::MAX, ..BF2 };
        assert!(matches!(infer(huge, "1,8,2,3"), Err(ShapeErrorKind::BlockDivide { .. })));
    }

    #[test]
    fn attributes_are_read_and_written_as_openvino_writes_them() {
        let build = |attrs: &[(&str, &str)]| {
            let mut l = OpLayer::builtin(&SPEC, "opset1");
            for (n, v) in attrs {
                l = l.attr(*n, v);
            }
            DepthToSpace::build(&l.to_layer_with(1), 1).map_err(|p| p.into_vec().remove(0).kind)
        };
        assert_eq!(build(&[("block_size", "2"), ("mode", "blocks_first")]), Ok(BF2));
        assert_eq!(
            build(&[("mode", "DEPTH_FIRST")]),
            Ok(DepthToSpace { mode: BlockMode::DepthFirst, block_size: 1 })
        );
        assert_eq!(
            build(&[("block_size", "0"), ("mode", "blocks_first")]),
            Err(ShapeErrorKind::BlockSize { op: "DepthToSpace", name: "block_size", value: 0 })
        );
        assert_eq!(
            build(&[("block_size", "-1"), ("mode", "blocks_first")]),
            Err(ShapeErrorKind::BlockSize { op: "DepthToSpace", name: "block_size", value: -1 })
        );
        assert!(matches!(build(&[("mode", "pixel")]), Err(ShapeErrorKind::InvalidBlockMode { .. })));
        assert!(matches!(build(&[("block_size", "2")]), Err(ShapeErrorKind::MissingAttribute { .. })));
        assert_eq!(
            BF2.write().attrs,
            [("block_size".to_string(), "2".to_string()), ("mode".to_string(), "blocks_first".to_string())]
        );
        crate::ops::check_round_trips::<DepthToSpace>();
    }

    #[test]
    fn the_run_time_rule_checks_sizes() {
        let mut out = [0; 4];
        assert!(block_shape_into("DepthToSpace", &[1, 6, 2, 3], 2, false, &mut out).is_err());
        assert!(block_shape_into("DepthToSpace", &[1, 4, usize::MAX / 2 + 1, 3], 2, false, &mut out).is_err());
        let data = PortFact::of(ElementType::F32, "1,?,2,3".parse().unwrap());
        assert_eq!(BF2.input_shape(0, &[&data]), Some(vec![None, Some(Size::Known(4)), None, None]));
    }
}
