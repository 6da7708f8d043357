//! What every operation implements, and the handle a layer's operation is
//! kept in.
//!
//! An operation is one value with its attributes read and checked (a
//! [`Reverse`](crate::ops::Reverse) in index mode, a
//! [`Gather`](crate::ops::Gather) with `batch_dims` 1). It implements
//! [`Operation`]: its shape inference, from what is known of its inputs to
//! what is known of its outputs, and what values its inputs must hold.
//! The executor finds its kernel for the same value, so each operation's
//! attributes are read once, here.

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use crate::error::ShapeErrorKind;
use crate::fact::PortFact;

/// What feeds one input of a layer, as shape inference sees it.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// What is known of the value.
    pub fact: &'a PortFact,
    /// The fact comes, directly or not, from a layer that failed, so its
    /// unknowns stand for "could not be inferred" rather than "dynamic":
    /// a check that could only fail because of them is not made, so that
    /// the earlier failure is not reported twice.
    pub tainted: bool,
}

impl<'a> Input<'a> {
    /// An input with this fact, from a layer that did not fail.
    pub fn new(fact: &'a PortFact) -> Self {
        Input { fact, tainted: false }
    }
}

/// One problem with a layer: what is wrong, and the `<data>` attribute it
/// concerns, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// The attribute at fault, when one is.
    pub attribute: Option<Cow<'static, str>>,
    /// What is wrong.
    pub kind: ShapeErrorKind,
}

/// The problems found with one layer. Checks go on after a problem, so
/// that every independent one is reported.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Problems(Vec<Problem>);

impl Problems {
    /// No problems yet.
    pub fn new() -> Self {
        Problems::default()
    }

    /// Problems holding just this one, about the layer as a whole.
    pub fn one(kind: ShapeErrorKind) -> Self {
        let mut p = Problems::new();
        p.layer(kind);
        p
    }

    /// Records a problem with the layer as a whole.
    pub fn layer(&mut self, kind: ShapeErrorKind) {
        self.0.push(Problem { attribute: None, kind });
    }

    /// Records a problem with one attribute.
    pub fn attr(&mut self, name: impl Into<Cow<'static, str>>, kind: ShapeErrorKind) {
        self.0.push(Problem { attribute: Some(name.into()), kind });
    }

    /// `true` when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `value` when nothing was recorded, else the problems.
    pub fn or_ok<T>(self, value: T) -> Result<T, Problems> {
        if self.0.is_empty() {
            Ok(value)
        } else {
            Err(self)
        }
    }

    /// The problems, in the order they were found.
    pub fn into_vec(self) -> Vec<Problem> {
        self.0
    }

    /// The problems, in the order they were found.
    pub fn as_slice(&self) -> &[Problem] {
        &self.0
    }
}

impl From<ShapeErrorKind> for Problems {
    fn from(kind: ShapeErrorKind) -> Self {
        Problems::one(kind)
    }
}

/// A size that one input's rule takes from elsewhere: a number the
/// operation knows, or the size of another of its inputs, by position in
/// `<input>` order.
///
/// Whoever makes up inputs reads another input's size after making that
/// input, so a rule that names an input is also an order: the inputs it
/// names are made first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Size {
    /// A number known when the rule is stated: an attribute, the length
    /// of a constant.
    Known(u64),
    /// The size of dimension `axis` of input `input`: ReverseSequence's
    /// lengths are as many as the data's batch dimension.
    DimOf {
        /// The input, by position.
        input: usize,
        /// The dimension of that input.
        axis: usize,
    },
    /// The rank of input `input`: Reverse's mask has one flag per data
    /// axis.
    RankOf {
        /// The input, by position.
        input: usize,
    },
}

/// The shape an input must have, one entry per dimension: `Some` where the
/// operation ties the dimension to a size, `None` where any size the
/// input's own fact allows will do. What
/// [`Operation::input_shape`] returns.
pub type ShapeRule = Vec<Option<Size>>;

/// The values an input of an operation must hold for the operation to
/// accept them: what [`Operation::input_values`] tells whoever makes up
/// inputs for a model, such as `ovir run` without `-i`.
///
/// A bound that is `None` is not known; whoever makes up values then picks
/// ones that suit every size (indices 0, lengths 1).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueDomain {
    /// Any values will do.
    Any,
    /// The values are passed on to the output unchanged but for their
    /// type: whatever reads the output decides what is valid (Convert).
    PassedOn,
    /// Axis numbers of data of rank `rank`, each in `[first, rank)`;
    /// with `distinct`, none twice. Reverse's axes in index mode,
    /// Squeeze's and Unsqueeze's axes, Slice's axes (distinct), Gather's
    /// axis (from `batch_dims`), Broadcast's `axes_mapping` (distinct, in
    /// order), Roll's axes, Split's and VariadicSplit's axis, Transpose's
    /// order (distinct, one per axis: a permutation), Unique's axis.
    Axes {
        /// The rank the axes index, when known.
        rank: Option<Size>,
        /// The smallest axis allowed.
        first: u64,
        /// No axis may appear twice.
        distinct: bool,
    },
    /// One boolean flag per axis: Reverse's axes in mask mode (its
    /// [`input_shape`](Operation::input_shape) says how many).
    Mask,
    /// Lengths from 0 up to `max`: ReverseSequence's lengths, up to the
    /// sequence axis; ReverseSubsequences' lengths; Tile's repeats; Pad's
    /// pads (none in reflect and symmetric mode); BatchToSpace's and
    /// SpaceToBatch's blocks (of 1), crops and pads (none).
    Lengths {
        /// The largest length allowed, when known.
        max: Option<Size>,
    },
    /// Indices into a dimension of `size` elements: each in `[0, size)`,
    /// or in `[-size, size)` when `negative`. Gather's indices (negative
    /// from Gather-8), GatherElements' indices, StridedSlice's begins when
    /// it shrinks an axis (the size not known: 0), ScatterUpdate's indices.
    Indices {
        /// The size of the dimension indexed, when known.
        size: Option<Size>,
        /// Negative indices count from the end.
        negative: bool,
    },
    /// Lengths, each 0 or more, that add up to `total`; with `inferred`,
    /// one of them may be -1, standing for what the others leave:
    /// VariadicSplit's `split_lengths`.
    SumsTo {
        /// The sum, when known.
        total: Option<Size>,
        /// One length may be -1.
        inferred: bool,
    },
    /// A shape given as values, one size per element, `None` where any
    /// size will do: Broadcast's target shape, whose dimensions are the
    /// data's where the data has them.
    Dims(Vec<Option<Size>>),
    /// A Reshape target shape for the elements of input `input`: as many
    /// elements in all, with at most one -1.
    ReshapeOf {
        /// The input whose elements the shape must hold.
        input: usize,
    },
    /// Any values but 0: Slice's steps, StridedSlice's strides.
    NonZero,
}

/// The rule for a 1-D input (a list of axes, a shape) of `len` elements,
/// when its own fact does not say how many.
pub(crate) fn vector_of(own: Option<&&PortFact>, len: Size) -> Option<ShapeRule> {
    let known = own.and_then(|f| match f.shape.dims() {
        Some([n]) => n.get(),
        _ => None,
    });
    known.is_none().then(|| vec![Some(len)])
}

/// An operation, with its attributes read: shape inference and the rules
/// for its inputs.
///
/// Every operation a layer can have implements this: the ones in
/// [`ops`](crate::ops), and the ones [`Extension`](crate::Extension)s add
/// (through [`CustomOperation`](crate::CustomOperation)). A new operation
/// is a type with its attributes as fields, this trait, a `build` function
/// that reads a layer's `<data>` into it, and one entry in the registry
/// (see [`OpRegistry`](crate::OpRegistry)).
pub trait Operation: Any + fmt::Debug + Send + Sync {
    /// The operation's type name, as IR files write it.
    fn name(&self) -> &str;

    /// The facts of the outputs, in `<output>` order, from the facts of the
    /// inputs, in `<input>` order; or every problem with them.
    ///
    /// An input's fact may be partly or wholly unknown: accept what could
    /// still turn out valid, and refuse only what is certainly wrong. The
    /// number of inputs has been checked against the operation's
    /// definition. When an input's value is known, its fact carries it, and
    /// checks on it that the executor makes at run time are made here too.
    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems>;

    /// The values input `input` must hold, given the facts of all inputs.
    /// A bound may name another input's size ([`Size`]); whoever makes up
    /// inputs makes that input first.
    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        let _ = (input, inputs);
        ValueDomain::Any
    }

    /// The shape input `input` must have, given the facts of all inputs,
    /// when the operation ties it to something (ReverseSequence's lengths
    /// to the data's batch dimension, the data's batch dimension to
    /// constant lengths); `None`, the default, when its own fact says all.
    ///
    /// Rules should point one way between two inputs that are both still
    /// to be made, from the one that follows to the one it follows, and
    /// give a [`Size::Known`] the other way once the size is known: two
    /// inputs that each wait for the other cannot be made.
    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        let _ = (input, inputs);
        None
    }
}

/// The operation of one layer, shared: cheap to clone.
#[derive(Clone, Debug)]
pub struct Op(Arc<dyn Operation>);

impl Op {
    /// Wraps an operation.
    pub fn new(op: impl Operation) -> Op {
        Op(Arc::new(op))
    }

    /// Wraps an operation that is already shared.
    pub fn from_arc(op: Arc<dyn Operation>) -> Op {
        Op(op)
    }

    /// The operation's type name.
    pub fn name(&self) -> &str {
        self.0.name()
    }

    /// The operation.
    pub fn get(&self) -> &dyn Operation {
        self.0.as_ref()
    }

    /// The operation as its own type, when it is of type `T`.
    ///
    /// ```
    /// use ovir_shape::ops::{Convert, Reverse};
    /// use ovir_shape::{Op, ReverseMode};
    /// let op = Op::new(Reverse { mode: ReverseMode::Mask });
    /// assert_eq!(op.downcast_ref::<Reverse>().map(|r| r.mode), Some(ReverseMode::Mask));
    /// assert!(op.downcast_ref::<Convert>().is_none());
    /// ```
    pub fn downcast_ref<T: Operation>(&self) -> Option<&T> {
        let any: &dyn Any = self.0.as_ref();
        any.downcast_ref::<T>()
    }

    /// `true` when the operation is of type `T`.
    pub fn is<T: Operation>(&self) -> bool {
        self.downcast_ref::<T>().is_some()
    }

    /// The layer a built-in op writes ([`BuiltinOp::write`]); `None` for
    /// an extension's op.
    ///
    /// ```
    /// use ovir_shape::ops::Concat;
    /// use ovir_shape::Op;
    /// let layer = Op::new(Concat { axis: -1 }).write().map(|l| l.attrs);
    /// assert_eq!(layer, Some(vec![("axis".to_string(), "-1".to_string())]));
    /// ```
    pub fn write(&self) -> Option<OpLayer> {
        macro_rules! write_builtin {
            ($($op:path),* $(,)?) => {
                $(
                    if let Some(op) = self.downcast_ref::<$op>() {
                        return Some(op.write());
                    }
                )*
            };
        }
        crate::for_each_builtin_op!(write_builtin);
        None
    }
}

/// The inputs of an operation that takes exactly `N`; the registry checked
/// the count before inference, so a mismatch means an operation was used
/// on its own with the wrong inputs.
pub(crate) fn exactly<'a, 'b, const N: usize>(
    op: &'static str,
    inputs: &'a [Input<'b>],
) -> Result<&'a [Input<'b>; N], Problems> {
    inputs
        .try_into()
        .map_err(|_| Problems::one(ShapeErrorKind::InputCount { op, expected: N, found: inputs.len() }))
}

/// Which layer versions an op answers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Versions {
    /// The opsets `opsetN` for N in `first..=last`, as OpenVINO's
    /// `opsetN_tbl.hpp` files list them.
    Opsets(u32, u32),
    /// The opsets `first..=last` but those in the list: ShuffleChannels is
    /// in opset1 and from opset3 on, but not in opset2.
    OpsetsExcept(u32, u32, &'static [u32]),
    /// One version name outside OpenVINO's opsets: an extension that ships
    /// with ovir.
    Named(&'static str),
}

impl Versions {
    /// The opset number of `version` when these versions contain it, or 0
    /// for a named version that matches; `None` otherwise.
    pub fn opset_of(self, version: &str) -> Option<u32> {
        match self {
            Versions::Opsets(first, last) => opset_number(version).filter(|n| (first..=last).contains(n)),
            Versions::OpsetsExcept(first, last, missing) => {
                opset_number(version).filter(|n| (first..=last).contains(n) && !missing.contains(n))
            }
            Versions::Named(name) => (version == name).then_some(0),
        }
    }

    /// `true` for the versions of an op of OpenVINO's opsets, `false` for
    /// a named extension.
    pub fn is_opsets(self) -> bool {
        !matches!(self, Versions::Named(_))
    }

    /// Every opset number these versions contain; empty for a named
    /// version.
    pub fn opsets(self) -> Vec<u32> {
        match self {
            Versions::Opsets(first, last) => (first..=last).collect(),
            Versions::OpsetsExcept(first, last, missing) => {
                (first..=last).filter(|n| !missing.contains(n)).collect()
            }
            Versions::Named(_) => Vec::new(),
        }
    }

    /// The versions in words: `opset1 only`, `opset1 to opset15`,
    /// `opset1 to opset16 but opset2`, or `` version `ovir` ``.
    pub fn text(self) -> String {
        match self {
            Versions::Opsets(first, last) if first == last => format!("opset{first} only"),
            Versions::Opsets(first, last) => format!("opset{first} to opset{last}"),
            Versions::OpsetsExcept(first, last, missing) => {
                let missing: Vec<String> = missing.iter().map(|n| format!("opset{n}")).collect();
                format!("opset{first} to opset{last} but {}", missing.join(" and "))
            }
            Versions::Named(name) => format!("version `{name}`"),
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

/// A built-in operation's row in the registry: the names a layer may use
/// for it, the versions that contain it and its port counts.
#[derive(Clone, Copy, Debug)]
pub struct OpSpec {
    /// The type name as OpenVINO writes it.
    pub name: &'static str,
    /// Other spellings accepted in `type` (compared ignoring ASCII case).
    pub aliases: &'static [&'static str],
    /// The versions a layer may name.
    pub versions: Versions,
    /// The fewest and the most inputs (`None`: no upper limit).
    pub inputs: (usize, Option<usize>),
    /// The fewest and the most outputs (`None`: no upper limit). Most ops
    /// have a fixed number; Split has `num_splits` and VariadicSplit one
    /// per split length, which the op itself checks against the layer.
    pub outputs: (usize, Option<usize>),
}

impl OpSpec {
    /// `true` when the op can have `n` outputs.
    pub fn takes_outputs(&self, n: usize) -> bool {
        n >= self.outputs.0 && self.outputs.1.is_none_or(|max| n <= max)
    }

    /// `true` when a layer `type` names this op, ignoring ASCII case.
    pub fn answers_to(&self, op_type: &str) -> bool {
        self.name.eq_ignore_ascii_case(op_type)
            || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(op_type))
    }
}

/// An operation built into ovir: one of OpenVINO's opsets, or an
/// extension that ships with ovir. Every type in
/// [`for_each_builtin_op!`](crate::for_each_builtin_op) implements it, and
/// that list is the registry: the shape registry, the executor's planners
/// and the tests are all made from it, so an op is registered once.
///
/// [`BuiltinOp::write`] is the inverse of [`BuiltinOp::build`]: what a
/// layer built in code (by `ovir::ModelBuilder`) or rewritten (by
/// constant folding) holds, as OpenVINO's serializer would write it.
///
/// ```
/// use ovir_shape::ops::{Reverse, ReverseMode};
/// use ovir_shape::BuiltinOp;
///
/// let op = Reverse { mode: ReverseMode::Mask };
/// let layer = op.write();
/// assert_eq!((layer.op_type.as_str(), layer.version.as_str()), ("Reverse", "opset1"));
/// assert_eq!(layer.attrs, [("mode".to_string(), "mask".to_string())]);
/// assert_eq!(Reverse::build(&layer.to_layer(), 1), Ok(op));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is listed as a built-in op but is not one",
    note = "a type in `for_each_builtin_op!` implements `BuiltinOp` in its module of crates/shape/src/ops/"
)]
pub trait BuiltinOp: Operation + Clone + PartialEq + Sized {
    /// The op's row in the registry.
    const SPEC: OpSpec;

    /// Reads and checks a layer's `<data>` attributes (and a constant's
    /// value), given the opset number the layer's version names (0 for a
    /// named version).
    fn build(layer: &ovir_ir::Layer, opset: u32) -> Result<Self, Problems>;

    /// The layer this op is: its type, the version OpenVINO's serializer
    /// gives it, and its `<data>` attributes in the order and spelling
    /// the serializer writes them. [`BuiltinOp::build`] reads it back to
    /// an equal op.
    fn write(&self) -> OpLayer;

    /// A few values of the op covering its attributes' variants, for the
    /// tests that every built-in op round-trips.
    fn examples() -> Vec<Self>;
}

/// An op as a layer states it: its `type`, `version`, `<data>`
/// attributes, number of outputs and, for a constant, its value. What
/// [`BuiltinOp::write`] gives, and what an extension's op is added to a
/// model in code as.
#[derive(Clone, Debug, PartialEq)]
pub struct OpLayer {
    /// The layer `type`.
    pub op_type: String,
    /// The layer `version`.
    pub version: String,
    /// The `<data>` attributes, in order.
    pub attrs: Vec<(String, String)>,
    /// The number of outputs.
    pub outputs: usize,
    /// A constant's value.
    pub constant: Option<ovir_tensor::Tensor>,
}

impl OpLayer {
    /// A layer of this type and version with one output and no attributes.
    pub fn new(op_type: impl Into<String>, version: impl Into<String>) -> OpLayer {
        OpLayer {
            op_type: op_type.into(),
            version: version.into(),
            attrs: Vec::new(),
            outputs: 1,
            constant: None,
        }
    }

    /// A built-in op's layer of this version, with its fewest outputs (an
    /// op with more sets [`OpLayer::outputs`] itself).
    pub fn builtin(spec: &OpSpec, version: impl Into<String>) -> OpLayer {
        OpLayer { outputs: spec.outputs.0, ..OpLayer::new(spec.name, version) }
    }

    /// The layer with one more attribute.
    pub fn attr(mut self, name: impl Into<String>, value: impl ToString) -> OpLayer {
        self.attrs.push((name.into(), value.to_string()));
        self
    }

    /// A layer holding these values: the `<data>`, the value, and one
    /// output for each of `outputs` ports, numbered after `inputs` input
    /// ports, all with nothing known of them.
    pub fn to_layer(&self) -> ovir_ir::Layer {
        self.to_layer_with(0)
    }

    /// [`OpLayer::to_layer`] with `inputs` input ports.
    pub fn to_layer_with(&self, inputs: usize) -> ovir_ir::Layer {
        use ovir_ir::{Attribute, Attributes, Port, RtInfo, Span};
        let port = |id: usize| Port {
            id: id as u64,
            precision: None,
            names: Vec::new(),
            shape: ovir_tensor::PartialShape::dynamic(),
            rt_info: RtInfo::default(),
            span: Span::default(),
        };
        let attrs = self.attrs.iter().map(|(name, value)| Attribute {
            name: name.clone(),
            value: value.clone(),
            span: Span::default(),
        });
        ovir_ir::Layer {
            id: 0,
            name: self.op_type.clone(),
            op_type: self.op_type.clone(),
            version: self.version.clone(),
            attrs: Attributes(attrs.collect()),
            inputs: (0..inputs).map(port).collect(),
            outputs: (inputs..inputs + self.outputs).map(port).collect(),
            rt_info: RtInfo::default(),
            output_names: None,
            span: Span::default(),
            constant: self.constant.clone(),
        }
    }
}

/// What a model built in code takes as a layer's op: a built-in op, or an
/// [`OpLayer`] for an extension's.
pub trait IntoLayer {
    /// The layer the op is.
    fn into_layer(self) -> OpLayer;
}

impl<T: BuiltinOp> IntoLayer for T {
    fn into_layer(self) -> OpLayer {
        self.write()
    }
}

impl IntoLayer for OpLayer {
    fn into_layer(self) -> OpLayer {
        self
    }
}

/// [`BuiltinOp::build`] behind the shared [`Op`] handle, as the registry
/// calls it.
pub(crate) fn build_op<T: BuiltinOp>(layer: &ovir_ir::Layer, opset: u32) -> Result<Op, Problems> {
    T::build(layer, opset).map(Op::new)
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
    fn version_ranges_read_well() {
        assert_eq!(Versions::Opsets(1, 1).text(), "opset1 only");
        assert_eq!(Versions::Opsets(1, 15).text(), "opset1 to opset15");
        assert_eq!(Versions::Opsets(1, 17).opset_of("opset17"), Some(17));
        assert_eq!(Versions::Opsets(1, 15).opset_of("opset16"), None);
        assert_eq!(Versions::Named("ovir").opset_of("ovir"), Some(0));
        assert_eq!(Versions::Named("ovir").opset_of("opset1"), None);
        let gap = Versions::OpsetsExcept(1, 16, &[2]);
        assert_eq!(gap.text(), "opset1 to opset16 but opset2");
        assert_eq!(
            (gap.opset_of("opset1"), gap.opset_of("opset2"), gap.opset_of("opset3")),
            (Some(1), None, Some(3))
        );
        assert_eq!(gap.opsets().len(), 15);
        assert!(gap.is_opsets() && !Versions::Named("ovir").is_opsets());
    }
}
