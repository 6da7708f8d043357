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

/// The values an input of an operation must hold for the operation to
/// accept them: what [`Operation::input_values`] tells whoever makes up
/// inputs for a model, such as `ovir run` without `-i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueDomain {
    /// Any values will do.
    Any,
    /// The values are passed on to the output unchanged but for their
    /// type: whatever reads the output decides what is valid.
    PassedOn,
    /// Axis numbers, each in `[0, rank)` for data of this rank.
    Axes {
        /// The data rank, when known.
        rank: Option<usize>,
    },
    /// One boolean flag per axis of data of this rank.
    Mask {
        /// The data rank, when known.
        rank: Option<usize>,
    },
    /// Lengths from 0 up to this bound.
    Lengths {
        /// The largest length allowed, when known.
        max: Option<u64>,
    },
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
    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        let _ = (input, inputs);
        ValueDomain::Any
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
pub(crate) enum Versions {
    /// The opsets `opsetN` for N in `first..=last`, as OpenVINO's
    /// `opsetN_tbl.hpp` files list them.
    Opsets(u32, u32),
    /// One version name outside OpenVINO's opsets: an extension that ships
    /// with ovir.
    Named(&'static str),
}

impl Versions {
    /// The opset number of `version` when these versions contain it, or 0
    /// for a named version that matches; `None` otherwise.
    pub(crate) fn opset_of(self, version: &str) -> Option<u32> {
        match self {
            Versions::Opsets(first, last) => opset_number(version).filter(|n| (first..=last).contains(n)),
            Versions::Named(name) => (version == name).then_some(0),
        }
    }

    /// The versions in words: `opset1 only`, `opset1 to opset15`, or
    /// `` version `ovir` ``.
    pub(crate) fn text(self) -> String {
        match self {
            Versions::Opsets(first, last) if first == last => format!("opset{first} only"),
            Versions::Opsets(first, last) => format!("opset{first} to opset{last}"),
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
/// for it, the versions that contain it, its port counts, and the function
/// that reads a layer's attributes into it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OpSpec {
    /// The type name as OpenVINO writes it.
    pub(crate) name: &'static str,
    /// Other spellings accepted in `type` (compared ignoring ASCII case).
    pub(crate) aliases: &'static [&'static str],
    pub(crate) versions: Versions,
    /// The fewest and the most inputs (`None`: no upper limit).
    pub(crate) inputs: (usize, Option<usize>),
    pub(crate) outputs: usize,
    /// Reads and checks a layer's attributes, given the opset number the
    /// layer's version names (0 for a named version).
    pub(crate) build: fn(&ovir_ir::Layer, u32) -> Result<Op, Problems>,
}

impl OpSpec {
    /// `true` when a layer `type` names this op, ignoring ASCII case.
    pub(crate) fn answers_to(&self, op_type: &str) -> bool {
        self.name.eq_ignore_ascii_case(op_type)
            || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(op_type))
    }
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
    }
}
