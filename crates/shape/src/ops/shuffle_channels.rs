//! ShuffleChannels-1: interleave groups of channels.
//!
//! OpenVINO's opset tables list ShuffleChannels in opset1 and from opset3
//! on, but not in opset2. An interval axis is not checked against the
//! groups, as OpenVINO checks only a static one.

use ovir_ir::Layer;
use ovir_tensor::{normalize_axis, Dim, PartialShape};

use crate::attrs;
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, Versions,
};

/// Splits an axis into `group` groups and interleaves them: the data
/// seen as `[.., group, n / group, ..]` along the axis is transposed to
/// `[.., n / group, group, ..]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShuffleChannels {
    /// The `axis` attribute as written (may be negative; 1 when absent).
    pub axis: i64,
    /// The `group` attribute, 1 or more (1 when absent).
    pub group: u64,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "ShuffleChannels",
    aliases: &[],
    versions: Versions::OpsetsExcept(1, 16, &[2]),
    inputs: (1, Some(1)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for ShuffleChannels {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let axis = attrs::int_or(layer, "axis", 1, &mut problems);
        let group =
            attrs::int_or(layer, "group", 1, &mut problems).and_then(|value| match u64::try_from(value) {
                Ok(g) if g > 0 => Some(g),
                _ => {
                    problems.attr("group", ShapeErrorKind::BlockSize { op: SPEC.name, name: "group", value });
                    None
                }
            });
        match (axis, group) {
            (Some(axis), Some(group)) => Ok(ShuffleChannels { axis, group }),
            _ => Err(problems),
        }
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset1").attr("axis", self.axis).attr("group", self.group)
    }

    fn examples() -> Vec<Self> {
        vec![
            ShuffleChannels { axis: 1, group: 2 },
            ShuffleChannels { axis: -1, group: 3 },
            ShuffleChannels { axis: 0, group: 1 },
        ]
    }
}

impl Operation for ShuffleChannels {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data] = exactly::<1>(SPEC.name, inputs)?;
        if let Some(dims) = data.fact.shape.dims() {
            shuffle_axis(dims, self.axis, self.group).map_err(Problems::one)?;
        }
        Ok(vec![PortFact::of(data.fact.element_type, data.fact.shape.clone())])
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        // An unknown axis becomes one channel per group.
        let dims = inputs.get(input)?.shape.dims()?;
        let axis = normalize_axis(self.axis, dims.len())?;
        dims.get(axis).filter(|d| !d.is_static() && d.contains(self.group))?;
        Some((0..dims.len()).map(|k| (k == axis).then_some(Size::Known(self.group))).collect())
    }
}

/// The axis a ShuffleChannels shuffles in data of dimensions `dims`,
/// normalised: the data has rank 1 or more, the axis lies in `[-rank,
/// rank-1]`, and a static axis is a multiple of `group`. The executor
/// checks a shape that arrives at run time with it.
///
/// ```
/// use ovir_shape::ops::shuffle_channels::shuffle_axis;
/// use ovir_tensor::Dim;
/// let dims = [1, 8, 2].map(Dim::fixed);
/// assert_eq!(shuffle_axis(&dims, -2, 4), Ok(1));
/// assert!(shuffle_axis(&dims, 1, 3).is_err());
/// ```
pub fn shuffle_axis(dims: &[Dim], axis: i64, group: u64) -> Result<usize, ShapeErrorKind> {
    if dims.is_empty() {
        return Err(ShapeErrorKind::BlockRank {
            op: "ShuffleChannels",
            min: 1,
            shape: PartialShape::scalar(),
        });
    }
    let rank = dims.len();
    let a = normalize_axis(axis, rank).ok_or(ShapeErrorKind::OpAxisOutOfRange {
        op: "ShuffleChannels",
        what: "axis",
        axis,
        rank,
    })?;
    let dim = dims.get(a).copied().unwrap_or(Dim::DYNAMIC);
    if group == 0 || dim.get().is_some_and(|n| n % group != 0) {
        return Err(ShapeErrorKind::ShuffleGroups { axis: a, dim, group });
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_tensor::ElementType;

    fn infer(op: ShuffleChannels, data: &str) -> Result<String, ShapeErrorKind> {
        let data = PortFact::of(ElementType::F32, data.parse().unwrap());
        op.infer(&[Input::new(&data)])
            .map(|f| f[0].shape.to_string())
            .map_err(|p| p.into_vec().remove(0).kind)
    }

    // OpenVINO's type_prop/shuffle_channels.cpp cases and its answers.
    #[test]
    fn the_shape_is_the_datas_when_the_groups_fit() {
        assert_eq!(infer(ShuffleChannels { axis: 1, group: 2 }, "1,8,2,3").unwrap(), "[1,8,2,3]");
        assert_eq!(infer(ShuffleChannels { axis: -3, group: 4 }, "1,8,2,3").unwrap(), "[1,8,2,3]");
        assert_eq!(infer(ShuffleChannels { axis: 0, group: 2 }, "8").unwrap(), "[8]");
        assert_eq!(infer(ShuffleChannels { axis: 1, group: 2 }, "1,7..9,2,3").unwrap(), "[1,7..9,2,3]");
        assert_eq!(infer(ShuffleChannels { axis: 1, group: 2 }, "1,5..7,2,3").unwrap(), "[1,5..7,2,3]");
        assert_eq!(infer(ShuffleChannels { axis: 9, group: 2 }, "...").unwrap(), "[...]");
    }

    #[test]
    fn what_openvino_refuses_is_refused() {
        assert_eq!(
            infer(ShuffleChannels { axis: 1, group: 3 }, "1,8,2,3"),
            Err(ShapeErrorKind::ShuffleGroups { axis: 1, dim: Dim::fixed(8), group: 3 })
        );
        assert_eq!(
            infer(ShuffleChannels { axis: 4, group: 2 }, "1,8,2,3"),
            Err(ShapeErrorKind::OpAxisOutOfRange { op: "ShuffleChannels", what: "axis", axis: 4, rank: 4 })
        );
        assert!(matches!(
            infer(ShuffleChannels { axis: 0, group: 1 }, ""),
            Err(ShapeErrorKind::BlockRank { .. })
        ));
        let build = |group: &str| {
            let l = OpLayer::builtin(&SPEC, "opset1").attr("axis", 1).attr("group", group);
            ShuffleChannels::build(&l.to_layer_with(1), 1).map_err(|p| p.into_vec().remove(0).kind)
        };
        assert_eq!(
            build("0"),
            Err(ShapeErrorKind::BlockSize { op: "ShuffleChannels", name: "group", value: 0 })
        );
        assert_eq!(
            build("-1"),
            Err(ShapeErrorKind::BlockSize { op: "ShuffleChannels", name: "group", value: -1 })
        );
        let empty = OpLayer::builtin(&SPEC, "opset3").to_layer_with(1);
        assert_eq!(ShuffleChannels::build(&empty, 3), Ok(ShuffleChannels { axis: 1, group: 1 }));
    }

    #[test]
    fn it_is_in_every_opset_but_opset2() {
        assert_eq!(SPEC.versions.opset_of("opset2"), None);
        assert_eq!(SPEC.versions.opset_of("opset3"), Some(3));
        let data = PortFact::of(ElementType::F32, "1,?,2".parse().unwrap());
        assert_eq!(
            ShuffleChannels { axis: 1, group: 4 }.input_shape(0, &[&data]),
            Some(vec![None, Some(Size::Known(4)), None])
        );
        crate::ops::check_round_trips::<ShuffleChannels>();
    }
}
