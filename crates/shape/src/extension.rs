//! Operations that come from outside ovir: extensions.
//!
//! OpenVINO lets its users add operations of their own; so does ovir. An
//! [`Extension`] is registered for one layer `type` and `version`. For
//! every layer that names it, it reads the layer's `<data>` attributes and
//! builds a [`CustomOp`], which infers the facts of the layer's output from
//! those of its inputs and computes the output from input tensors.
//!
//! Layers find their extension the way OpenVINO's IR reader finds an op in
//! an opset: the `type` is compared without regard to ASCII case, the
//! `version` exactly. The built-in operations come first: an extension
//! cannot replace an op of an opset that contains it ([`Extensions::add`]
//! refuses it).
//!
//! A custom op has exactly one output, the layer's only `<output>` port.

use std::fmt;
use std::sync::Arc;

use ovir_ir::Layer;
use ovir_tensor::Tensor;
use serde::{Serialize, Serializer};

use crate::op::OpKind;
use crate::PortFact;

/// Why an extension refused a layer, its inputs or its registration, in
/// words that say what is wrong and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExtensionError {
    message: String,
    attribute: Option<String>,
}

impl ExtensionError {
    /// An error about the layer or its inputs.
    pub fn new(message: impl Into<String>) -> Self {
        ExtensionError { message: message.into(), attribute: None }
    }

    /// An error about one `<data>` attribute, so that a report can point
    /// at that attribute in the XML.
    pub fn attribute(name: impl Into<String>, message: impl Into<String>) -> Self {
        ExtensionError { message: message.into(), attribute: Some(name.into()) }
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The attribute the error is about, if any.
    pub fn attribute_name(&self) -> Option<&str> {
        self.attribute.as_deref()
    }
}

/// An operation type added to ovir: it turns each layer of its `type` and
/// `version` into a [`CustomOp`].
///
/// ```
/// use std::sync::Arc;
/// use ovir_ir::Layer;
/// use ovir_shape::{CustomOp, Extension, ExtensionError, Extensions, PortFact};
/// use ovir_tensor::Tensor;
///
/// /// `Identity` of version `mine`: the output is the input.
/// struct IdentityExtension;
///
/// #[derive(Debug)]
/// struct Identity;
///
/// impl Extension for IdentityExtension {
///     fn op_type(&self) -> &str { "Identity" }
///     fn version(&self) -> &str { "mine" }
///     fn build(&self, _layer: &Layer) -> Result<Arc<dyn CustomOp>, ExtensionError> {
///         Ok(Arc::new(Identity))
///     }
/// }
///
/// impl CustomOp for Identity {
///     fn op_type(&self) -> &str { "Identity" }
///     fn infer(&self, inputs: &[PortFact]) -> Result<PortFact, ExtensionError> {
///         match inputs {
///             [x] => Ok(PortFact::of(x.element_type, x.shape.clone())),
///             _ => Err(ExtensionError::new(format!("Identity takes 1 input, but the layer has {}", inputs.len()))),
///         }
///     }
///     fn evaluate(&self, inputs: &[&Tensor]) -> Result<Tensor, ExtensionError> {
///         match inputs {
///             [x] => Ok((*x).clone()),
///             _ => Err(ExtensionError::new("Identity takes 1 input")),
///         }
///     }
/// }
///
/// let mut extensions = Extensions::new();
/// extensions.add(IdentityExtension)?;
/// assert!(extensions.find("IDENTITY", "mine").is_some());
/// assert!(extensions.find("Identity", "opset1").is_none());
/// # Ok::<(), ExtensionError>(())
/// ```
pub trait Extension: Send + Sync {
    /// The layer `type` this extension handles (matched ignoring ASCII
    /// case).
    fn op_type(&self) -> &str;

    /// The layer `version` this extension handles (matched exactly).
    fn version(&self) -> &str;

    /// Reads and checks the attributes of one layer and returns its op.
    /// Input and output ports are not known yet: they are checked by
    /// [`CustomOp::infer`].
    fn build(&self, layer: &Layer) -> Result<Arc<dyn CustomOp>, ExtensionError>;
}

/// The operation of one layer handled by an [`Extension`], with its
/// attributes read: its shape inference and its kernel.
///
/// Shape inference runs when the model is loaded, on what is known of each
/// input; evaluation runs when the model runs, and also while it loads or
/// compiles for a layer whose inputs are all constant. Both must refuse bad
/// input with an error, never panic.
pub trait CustomOp: Send + Sync + fmt::Debug {
    /// The operation's type name, for messages.
    fn op_type(&self) -> &str;

    /// The facts of the output, from the facts of the inputs in input
    /// order. An input's fact may be partly or wholly unknown (a dynamic
    /// type or shape): accept what could still turn out valid, and refuse
    /// only what is certainly wrong. When an input's value is known, the
    /// fact carries it.
    ///
    /// As in OpenVINO, this runs when the model's types and shapes are
    /// inferred (as it is read and compiled), and again when the model
    /// runs only if the inputs' element types or shapes differ from those
    /// seen then, or were not all known then. A run on inputs
    /// of the same types and shapes does not call it, so checks on input
    /// *values* (such as a length that must not be negative) belong in
    /// [`CustomOp::evaluate`] and [`CustomOp::evaluate_into`] as well.
    fn infer(&self, inputs: &[PortFact]) -> Result<PortFact, ExtensionError>;

    /// Computes the output from the inputs, in input order. The inputs
    /// were checked by [`CustomOp::infer`] for their types and shapes, but
    /// their values may not have been: refuse values the op cannot take
    /// with an error.
    fn evaluate(&self, inputs: &[&Tensor]) -> Result<Tensor, ExtensionError>;

    /// Computes the output into `out`, which already has the type and shape
    /// that [`CustomOp::infer`] gives for these inputs. The default calls
    /// [`CustomOp::evaluate`] and copies its result; an op that can write
    /// in place should do so, so that running a model again allocates
    /// nothing.
    fn evaluate_into(&self, inputs: &[&Tensor], out: &mut Tensor) -> Result<(), ExtensionError> {
        let value = self.evaluate(inputs)?;
        copy_into(self.op_type(), &value, out)
    }
}

/// Copies `value` into `out`, which must have its type and shape.
fn copy_into(op: &str, value: &Tensor, out: &mut Tensor) -> Result<(), ExtensionError> {
    if value.element_type() != out.element_type() || value.shape() != out.shape() {
        return Err(ExtensionError::new(format!(
            "{op} computed a {} tensor of shape {:?}, but its shape inference gave {} {:?}; the two must agree",
            value.element_type(),
            value.shape(),
            out.element_type(),
            out.shape()
        )));
    }
    let copied = match (value.strings(), value.bytes()) {
        (Some(src), _) => out.strings_mut().map(|dst| dst.clone_from_slice(src)),
        (None, Some(src)) => {
            out.bytes_mut().filter(|dst| dst.len() == src.len()).map(|dst| dst.copy_from_slice(src))
        }
        (None, None) => None,
    };
    copied
        .ok_or_else(|| ExtensionError::new(format!("the output of {op} could not be copied into its buffer")))
}

/// The op of a layer that an extension handles, as it sits in
/// [`Op::Custom`](crate::Op::Custom).
///
/// Two handles are equal when they share one op, built for one layer.
#[derive(Clone, Debug)]
pub struct CustomOpRef(pub Arc<dyn CustomOp>);

impl CustomOpRef {
    /// The op.
    pub fn op(&self) -> &dyn CustomOp {
        self.0.as_ref()
    }
}

impl PartialEq for CustomOpRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Serialize for CustomOpRef {
    /// Writes the op's type name (the attributes are the extension's own).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("CustomOp", 1)?;
        st.serialize_field("type", self.0.op_type())?;
        st.end()
    }
}

/// The extensions a model is read with, each for one `type` and
/// `version`.
#[derive(Clone, Default)]
pub struct Extensions {
    list: Vec<Arc<dyn Extension>>,
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.list.iter().map(|e| (e.op_type(), e.version()))).finish()
    }
}

impl Extensions {
    /// No extensions.
    pub fn new() -> Self {
        Extensions::default()
    }

    /// Registers an extension.
    ///
    /// Refuses an empty type or version, a type and version that a
    /// registered extension already handles, and a built-in op in an opset
    /// that contains it (`Reverse` of `opset1`): those layers keep their
    /// built-in meaning.
    pub fn add(&mut self, extension: impl Extension + 'static) -> Result<(), ExtensionError> {
        self.add_shared(Arc::new(extension))
    }

    /// [`Extensions::add`] for an extension that is already shared.
    pub fn add_shared(&mut self, extension: Arc<dyn Extension>) -> Result<(), ExtensionError> {
        let (op_type, version) = (extension.op_type(), extension.version());
        if op_type.trim().is_empty() || version.trim().is_empty() {
            return Err(ExtensionError::new(format!(
                "an extension needs a type and a version, but it has type `{op_type}` and version `{version}`"
            )));
        }
        if let Some(kind) = OpKind::from_type(op_type).filter(|k| k.in_version(version)) {
            return Err(ExtensionError::new(format!(
                "{op_type} of `{version}` is built into ovir ({} is defined in {}), so an extension cannot \
                 replace it; register it under another version",
                kind.name(),
                kind.opsets_text()
            )));
        }
        if self.find(op_type, version).is_some() {
            return Err(ExtensionError::new(format!(
                "an extension for {op_type} of version `{version}` is already registered"
            )));
        }
        self.list.push(extension);
        Ok(())
    }

    /// The extension for a layer `type` (ignoring ASCII case) and
    /// `version` (exactly).
    pub fn find(&self, op_type: &str, version: &str) -> Option<&Arc<dyn Extension>> {
        self.list.iter().find(|e| e.op_type().eq_ignore_ascii_case(op_type) && e.version() == version)
    }

    /// The registered extensions, in registration order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Extension>> + '_ {
        self.list.iter()
    }

    /// The number of registered extensions.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// `true` when no extension is registered.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The versions under which some extension handles `op_type`.
    pub(crate) fn versions_of(&self, op_type: &str) -> Vec<&str> {
        self.list.iter().filter(|e| e.op_type().eq_ignore_ascii_case(op_type)).map(|e| e.version()).collect()
    }

    /// The registered extensions in words, for messages:
    /// ``ReverseSubsequences (version `ovir`)``, or `none`.
    pub fn describe(&self) -> String {
        if self.list.is_empty() {
            return "none".to_string();
        }
        let names: Vec<String> =
            self.list.iter().map(|e| format!("{} (version `{}`)", e.op_type(), e.version())).collect();
        names.join(", ")
    }
}
