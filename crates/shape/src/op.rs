//! The operations ovir knows, and which opsets contain them.

use ovir_tensor::{ElementType, PartialShape};
use serde::Serialize;

use crate::extension::CustomOpRef;

/// How the second input of `Reverse` names the axes to reverse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReverseMode {
    /// A 1-D tensor of axis indices; negative indices count from the end.
    Index,
    /// A 1-D boolean tensor with one flag per data axis.
    Mask,
}

impl ReverseMode {
    /// Parses the `mode` attribute, ignoring ASCII case as OpenVINO does.
    pub fn from_attr(value: &str) -> Option<Self> {
        if value.eq_ignore_ascii_case("index") {
            Some(Self::Index)
        } else if value.eq_ignore_ascii_case("mask") {
            Some(Self::Mask)
        } else {
            None
        }
    }

    /// The attribute spelling: `index` or `mask`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Index => "index",
            Self::Mask => "mask",
        }
    }
}

/// A parsed, validated operation of one layer.
///
/// Attributes are kept as the file wrote them (axes may be negative); the
/// facts about the layer's outputs live in [`ModelInfo`](crate::ModelInfo).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "op")]
#[non_exhaustive]
pub enum Op {
    /// A model input.
    Parameter {
        /// The declared element type (may be `dynamic`).
        element_type: ElementType,
        /// The declared shape.
        shape: PartialShape,
    },
    /// A constant; its value is the layer's [`constant`](ovir_ir::Layer::constant).
    Const,
    /// A model output.
    Result,
    /// Element type conversion.
    Convert {
        /// The `destination_type` attribute.
        to: ElementType,
    },
    /// Reverses the elements along some axes (`Reverse-1`).
    Reverse {
        /// How the second input names the axes.
        mode: ReverseMode,
    },
    /// Reverses the first `seq_lengths[b]` elements along `seq_axis` of each
    /// slice `b` along `batch_axis` (`ReverseSequence-1`).
    ReverseSequence {
        /// The `batch_axis` attribute as written (may be negative).
        batch_axis: i64,
        /// The `seq_axis` attribute as written (may be negative).
        seq_axis: i64,
    },
    /// The shape of the input as a 1-D integer tensor (`ShapeOf-1`, always
    /// `i64`, and `ShapeOf-3`, with an `output_type`).
    ShapeOf {
        /// The element type of the output: `i32` or `i64`.
        output_type: ElementType,
    },
    /// Takes slices of the data along an axis at the given indices
    /// (`Gather-1`, `Gather-7` with `batch_dims`, `Gather-8` with negative
    /// indices).
    Gather {
        /// The `batch_dims` attribute as written (may be negative); 0 for
        /// `Gather-1`, which has none.
        batch_dims: i64,
        /// The op version: 1, 7 or 8, from the opset the layer names.
        version: u32,
    },
    /// Repeats the data to fill a target shape (`Broadcast-1`,
    /// `Broadcast-3`).
    Broadcast {
        /// How the data's axes line up with the target's.
        mode: BroadcastMode,
        /// The op version: 1 or 3, from the opset the layer names.
        version: u32,
    },
    /// Inserts axes of size 1 (`Unsqueeze-1`).
    Unsqueeze,
    /// Removes axes of size 1 (`Squeeze-1`).
    Squeeze,
    /// Gives the data a new shape with the same number of elements
    /// (`Reshape-1`).
    Reshape {
        /// With `special_zero`, a 0 in the target shape copies the input's
        /// dimension at the same position instead of meaning 0.
        special_zero: bool,
    },
    /// Joins its inputs along one axis (`Concat-1`).
    Concat {
        /// The `axis` attribute as written (may be negative).
        axis: i64,
    },
    /// Takes every `step`-th element between `start` and `stop` along some
    /// axes, as Python slicing does (`Slice-8`); a step of -1 over a whole
    /// axis reverses it.
    Slice,
    /// An operation added by an [`Extension`](crate::Extension), built for
    /// this layer.
    Custom(CustomOpRef),
}

/// How `Broadcast` lines the data's axes up with the target shape's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BroadcastMode {
    /// Axes line up from the end; each data dimension is 1 or equal to the
    /// target's; the output has the target shape.
    Numpy,
    /// A third input maps each data axis to a target axis; the output has
    /// the target shape.
    Explicit,
    /// Both shapes broadcast against each other, NumPy style (`Broadcast-3`
    /// only); the output may be larger than the target.
    Bidirectional,
}

impl BroadcastMode {
    /// Parses the `mode` attribute of a Broadcast of the given version,
    /// ignoring ASCII case as OpenVINO does. `none` is OpenVINO's other
    /// name for `explicit`.
    pub fn from_attr(value: &str, version: u32) -> Option<Self> {
        let v = value.trim();
        if v.eq_ignore_ascii_case("numpy") {
            Some(Self::Numpy)
        } else if v.eq_ignore_ascii_case("explicit") || v.eq_ignore_ascii_case("none") {
            Some(Self::Explicit)
        } else if version >= 3 && v.eq_ignore_ascii_case("bidirectional") {
            Some(Self::Bidirectional)
        } else {
            None
        }
    }

    /// The attribute spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Numpy => "numpy",
            Self::Explicit => "explicit",
            Self::Bidirectional => "bidirectional",
        }
    }
}

impl Op {
    /// The operation's type name as an IR file writes it (`Const` for a
    /// constant); for a custom op, the name its extension gives.
    pub fn name(&self) -> &str {
        match self {
            Self::Custom(op) => op.0.op_type(),
            other => other.kind().map_or("", OpKind::name),
        }
    }

    /// The built-in op this is; `None` for a custom op.
    pub(crate) fn kind(&self) -> Option<OpKind> {
        Some(match self {
            Self::Parameter { .. } => OpKind::Parameter,
            Self::Const => OpKind::Const,
            Self::Result => OpKind::Result,
            Self::Convert { .. } => OpKind::Convert,
            Self::Reverse { .. } => OpKind::Reverse,
            Self::ReverseSequence { .. } => OpKind::ReverseSequence,
            Self::ShapeOf { .. } => OpKind::ShapeOf,
            Self::Gather { .. } => OpKind::Gather,
            Self::Broadcast { .. } => OpKind::Broadcast,
            Self::Unsqueeze => OpKind::Unsqueeze,
            Self::Squeeze => OpKind::Squeeze,
            Self::Reshape { .. } => OpKind::Reshape,
            Self::Concat { .. } => OpKind::Concat,
            Self::Slice => OpKind::Slice,
            Self::Custom(_) => return None,
        })
    }

    /// For `ReverseSequence`, the batch and sequence axes normalised against
    /// the data rank; `None` for other operations or when an axis lies
    /// outside `[-rank, rank-1]`.
    pub fn sequence_axes(&self, rank: usize) -> Option<(usize, usize)> {
        match *self {
            Self::ReverseSequence { batch_axis, seq_axis } => {
                Some((normalize_axis(batch_axis, rank)?, normalize_axis(seq_axis, rank)?))
            }
            _ => None,
        }
    }
}

/// Maps an axis in `[-rank, rank-1]` to `[0, rank-1]`, counting negative
/// axes from the end; `None` when the axis is out of range.
///
/// ```
/// use ovir_shape::normalize_axis;
/// assert_eq!(normalize_axis(-1, 3), Some(2));
/// assert_eq!(normalize_axis(3, 3), None);
/// ```
pub fn normalize_axis(axis: i64, rank: usize) -> Option<usize> {
    let rank = i64::try_from(rank).ok()?;
    let axis = if axis < 0 { axis.checked_add(rank)? } else { axis };
    if (0..rank).contains(&axis) {
        usize::try_from(axis).ok()
    } else {
        None
    }
}

/// The operation types ovir supports, before their attributes are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpKind {
    Parameter,
    Const,
    Result,
    Convert,
    Reverse,
    ReverseSequence,
    ShapeOf,
    Gather,
    Broadcast,
    Unsqueeze,
    Squeeze,
    Reshape,
    Concat,
    Slice,
}

/// One row of the op table: the names a layer may use for the op, the
/// opsets that contain it and its port counts.
struct OpSpec {
    kind: OpKind,
    name: &'static str,
    /// Other spellings accepted in `type` (compared ignoring ASCII case).
    aliases: &'static [&'static str],
    /// The opsets containing the op: `first..=last`.
    opsets: (u32, u32),
    /// The fewest and the most inputs (`None`: no upper limit).
    inputs: (usize, Option<usize>),
    outputs: usize,
}

const fn fixed(n: usize) -> (usize, Option<usize>) {
    (n, Some(n))
}

/// Opset membership follows OpenVINO's `opsetN_tbl.hpp` files: Reverse was
/// dropped after opset1, and opset16 and opset17 carry over only Parameter,
/// Convert and ShapeOf from the older opsets.
const PARAMETER: OpSpec = OpSpec {
    kind: OpKind::Parameter,
    name: "Parameter",
    aliases: &[],
    opsets: (1, 17),
    inputs: fixed(0),
    outputs: 1,
};
const CONST: OpSpec = OpSpec {
    kind: OpKind::Const,
    name: "Const",
    aliases: &["Constant"],
    opsets: (1, 15),
    inputs: fixed(0),
    outputs: 1,
};
const RESULT: OpSpec = OpSpec {
    kind: OpKind::Result,
    name: "Result",
    aliases: &[],
    opsets: (1, 15),
    inputs: fixed(1),
    outputs: 0,
};
const CONVERT: OpSpec = OpSpec {
    kind: OpKind::Convert,
    name: "Convert",
    aliases: &[],
    opsets: (1, 17),
    inputs: fixed(1),
    outputs: 1,
};
const REVERSE: OpSpec = OpSpec {
    kind: OpKind::Reverse,
    name: "Reverse",
    aliases: &[],
    opsets: (1, 1),
    inputs: fixed(2),
    outputs: 1,
};
const REVERSE_SEQUENCE: OpSpec = OpSpec {
    kind: OpKind::ReverseSequence,
    name: "ReverseSequence",
    aliases: &[],
    opsets: (1, 15),
    inputs: fixed(2),
    outputs: 1,
};

// The ops below follow what OpenVINO 2026.4 registers per opset: they run
// to opset16, except Squeeze, which opset15 replaces with Squeeze-15, and
// ShapeOf, which opset17 keeps.
const SHAPE_OF: OpSpec = OpSpec {
    kind: OpKind::ShapeOf,
    name: "ShapeOf",
    aliases: &[],
    opsets: (1, 17),
    inputs: fixed(1),
    outputs: 1,
};
const GATHER: OpSpec = OpSpec {
    kind: OpKind::Gather,
    name: "Gather",
    aliases: &[],
    opsets: (1, 16),
    inputs: fixed(3),
    outputs: 1,
};
const BROADCAST: OpSpec = OpSpec {
    kind: OpKind::Broadcast,
    name: "Broadcast",
    aliases: &[],
    opsets: (1, 16),
    inputs: (2, Some(3)),
    outputs: 1,
};
const UNSQUEEZE: OpSpec = OpSpec {
    kind: OpKind::Unsqueeze,
    name: "Unsqueeze",
    aliases: &[],
    opsets: (1, 16),
    inputs: fixed(2),
    outputs: 1,
};
const SQUEEZE: OpSpec = OpSpec {
    kind: OpKind::Squeeze,
    name: "Squeeze",
    aliases: &[],
    opsets: (1, 14),
    inputs: (1, Some(2)),
    outputs: 1,
};
const RESHAPE: OpSpec = OpSpec {
    kind: OpKind::Reshape,
    name: "Reshape",
    aliases: &[],
    opsets: (1, 16),
    inputs: fixed(2),
    outputs: 1,
};
const CONCAT: OpSpec = OpSpec {
    kind: OpKind::Concat,
    name: "Concat",
    aliases: &[],
    opsets: (1, 16),
    inputs: (1, None),
    outputs: 1,
};

const SLICE: OpSpec = OpSpec {
    kind: OpKind::Slice,
    name: "Slice",
    aliases: &[],
    opsets: (8, 16),
    inputs: (4, Some(5)),
    outputs: 1,
};

const OPS: [&OpSpec; 14] = [
    &PARAMETER,
    &CONST,
    &RESULT,
    &CONVERT,
    &REVERSE,
    &REVERSE_SEQUENCE,
    &SHAPE_OF,
    &GATHER,
    &BROADCAST,
    &UNSQUEEZE,
    &SQUEEZE,
    &RESHAPE,
    &CONCAT,
    &SLICE,
];

impl OpKind {
    fn spec(self) -> &'static OpSpec {
        match self {
            Self::Parameter => &PARAMETER,
            Self::Const => &CONST,
            Self::Result => &RESULT,
            Self::Convert => &CONVERT,
            Self::Reverse => &REVERSE,
            Self::ReverseSequence => &REVERSE_SEQUENCE,
            Self::ShapeOf => &SHAPE_OF,
            Self::Gather => &GATHER,
            Self::Broadcast => &BROADCAST,
            Self::Unsqueeze => &UNSQUEEZE,
            Self::Squeeze => &SQUEEZE,
            Self::Reshape => &RESHAPE,
            Self::Concat => &CONCAT,
            Self::Slice => &SLICE,
        }
    }

    /// Looks a layer `type` up, ignoring ASCII case.
    pub(crate) fn from_type(op_type: &str) -> Option<Self> {
        OPS.iter()
            .find(|s| {
                s.name.eq_ignore_ascii_case(op_type)
                    || s.aliases.iter().any(|a| a.eq_ignore_ascii_case(op_type))
            })
            .map(|s| s.kind)
    }

    pub(crate) fn name(self) -> &'static str {
        self.spec().name
    }

    /// The fewest and the most inputs the op takes.
    pub(crate) fn inputs(self) -> (usize, Option<usize>) {
        self.spec().inputs
    }

    pub(crate) fn outputs(self) -> usize {
        self.spec().outputs
    }

    /// `true` when the layer `version` names an opset containing the op.
    pub(crate) fn in_version(self, version: &str) -> bool {
        let (first, last) = self.spec().opsets;
        opset_number(version).is_some_and(|n| (first..=last).contains(&n))
    }

    /// The opsets containing the op, in words: `opset1` or `opset1 to opset15`.
    pub(crate) fn opsets_text(self) -> String {
        match self.spec().opsets {
            (first, last) if first == last => format!("opset{first} only"),
            (first, last) => format!("opset{first} to opset{last}"),
        }
    }
}

/// The number in `opsetN`.
pub(crate) fn opset_number(version: &str) -> Option<u32> {
    let digits = version.trim().strip_prefix("opset")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The supported operation names, for error messages.
pub(crate) fn supported_ops_text() -> String {
    let names: Vec<&str> = OPS.iter().map(|s| s.name).collect();
    format!("{} (Constant is accepted for Const)", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opset_numbers_parse_strictly() {
        assert_eq!(opset_number("opset1"), Some(1));
        assert_eq!(opset_number("opset15"), Some(15));
        assert_eq!(opset_number("opset"), None);
        assert_eq!(opset_number("opset-1"), None);
        assert_eq!(opset_number("extension"), None);
    }

    #[test]
    fn opset_ranges_read_well() {
        assert_eq!(OpKind::Reverse.opsets_text(), "opset1 only");
        assert_eq!(OpKind::Const.opsets_text(), "opset1 to opset15");
        assert!(OpKind::Convert.in_version("opset17"));
        assert!(!OpKind::Result.in_version("opset16"));
    }
}
