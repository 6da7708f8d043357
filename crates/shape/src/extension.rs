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
//! `version` exactly. An extension is one more entry of the
//! [`OpRegistry`](crate::OpRegistry), after the built-in operations: it
//! cannot replace an op of an opset that contains it
//! ([`OpRegistry::add_extension`](crate::OpRegistry::add_extension)
//! refuses it).
//!
//! A custom op has one output unless it says otherwise
//! ([`CustomOp::output_count`]); the layer must declare as many `<output>`
//! ports. An op with several outputs infers and computes them all at once
//! ([`CustomOp::infer_outputs`], [`CustomOp::evaluate_outputs`]). While the
//! model runs, an op writes into the buffers of an [`OutputSlots`]
//! ([`CustomOp::run`]): buffers the plan took ahead when the shapes are
//! known before the op runs, or buffers the op asks for once it knows
//! them (an op whose output sizes depend on its input values), and, where
//! the op allows it ([`CustomOp::reuses_input`]), the very buffer of an
//! input that no one reads after it. Inside ovir a custom op is a
//! [`CustomOperation`], an [`Operation`] like every built-in one.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use ovir_ir::Layer;
use ovir_tensor::{ElementType, Tensor};

use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{Input, Operation, Problems, ShapeRule, ValueDomain};

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
/// use ovir_shape::{CustomOp, Extension, ExtensionError, OpRegistry, PortFact};
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
/// let mut registry = OpRegistry::new();
/// registry.add_extension(IdentityExtension)?;
/// assert!(registry.has_op("IDENTITY", "mine"));
/// assert!(!registry.has_op("Identity", "opset1"));
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
    ///
    /// An op with one output implements this; one with several implements
    /// [`CustomOp::infer_outputs`] instead, and the default here refuses.
    fn infer(&self, inputs: &[PortFact]) -> Result<PortFact, ExtensionError> {
        let _ = inputs;
        Err(ExtensionError::new(format!(
            "{} implements neither CustomOp::infer nor CustomOp::infer_outputs",
            self.op_type()
        )))
    }

    /// Computes the output from the inputs, in input order. The inputs
    /// were checked by [`CustomOp::infer`] for their types and shapes, but
    /// their values may not have been: refuse values the op cannot take
    /// with an error.
    ///
    /// An op with one output implements this; one with several implements
    /// [`CustomOp::evaluate_outputs`] instead, and the default here
    /// refuses.
    fn evaluate(&self, inputs: &[&Tensor]) -> Result<Tensor, ExtensionError> {
        let _ = inputs;
        Err(ExtensionError::new(format!(
            "{} implements neither CustomOp::evaluate nor CustomOp::evaluate_outputs",
            self.op_type()
        )))
    }

    /// Computes the output into `out`, which already has the type and shape
    /// that [`CustomOp::infer`] gives for these inputs. The default calls
    /// [`CustomOp::evaluate`] and copies its result; an op that can write
    /// in place should do so, so that running a model again allocates
    /// nothing.
    fn evaluate_into(&self, inputs: &[&Tensor], out: &mut Tensor) -> Result<(), ExtensionError> {
        let value = self.evaluate(inputs)?;
        copy_into(self.op_type(), &value, out)
    }

    /// The number of outputs: 1, the default, or as many as the layer the
    /// op was built for declares (an op reads that from its layer in
    /// [`Extension::build`]). A layer that declares another number of
    /// `<output>` ports is refused when the model loads.
    fn output_count(&self) -> usize {
        1
    }

    /// The facts of every output, in port order, from the facts of the
    /// inputs; as many as [`CustomOp::output_count`]. The default is the
    /// one fact of [`CustomOp::infer`]. An output whose sizes depend on the
    /// input *values* (the distinct values of a tensor) has a dynamic
    /// shape here, or one with the bounds that are known; the op then asks
    /// for its buffer when it runs ([`OutputSlots::allocate`]).
    fn infer_outputs(&self, inputs: &[PortFact]) -> Result<Vec<PortFact>, ExtensionError> {
        Ok(vec![self.infer(inputs)?])
    }

    /// Computes every output, in port order; the default is the one output
    /// of [`CustomOp::evaluate`]. The default [`CustomOp::run`] calls this
    /// for an op with several outputs, or for an output it has no buffer
    /// for.
    fn evaluate_outputs(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>, ExtensionError> {
        Ok(vec![self.evaluate(inputs)?])
    }

    /// Computes the outputs while the model runs, into `outputs`: each
    /// output whose type and shape [`CustomOp::infer_outputs`] gave
    /// statically has its buffer already ([`OutputSlots::buffer`]); any
    /// other the op asks for once it knows its size
    /// ([`OutputSlots::allocate`]), or hands over made
    /// ([`OutputSlots::set`]). An output the op may write into its input's
    /// buffer ([`CustomOp::reuses_input`]) is reached through
    /// [`OutputSlots::in_place`].
    ///
    /// The default serves ops written for one output as before: with its
    /// buffer in place it calls [`CustomOp::evaluate_into`], and otherwise
    /// [`CustomOp::evaluate_outputs`], copying each output into its buffer
    /// or handing it over. An op that asks for its buffers itself, or
    /// writes in place, runs again on the same sizes without allocating.
    fn run(&self, inputs: &[&Tensor], outputs: &mut dyn OutputSlots) -> Result<(), ExtensionError> {
        if outputs.count() == 1 {
            if let Some(out) = outputs.buffer(0) {
                return self.evaluate_into(inputs, out);
            }
        }
        let values = self.evaluate_outputs(inputs)?;
        if values.len() != outputs.count() {
            return Err(ExtensionError::new(format!(
                "{} computed {} outputs, but it has {}",
                self.op_type(),
                values.len(),
                outputs.count()
            )));
        }
        for (port, value) in values.into_iter().enumerate() {
            match outputs.buffer(port) {
                Some(out) => copy_into(self.op_type(), &value, out)?,
                None => outputs.set(port, value)?,
            }
        }
        Ok(())
    }

    /// The input whose buffer output `port` may take over, when the op
    /// computes that output in place from that input (same element type
    /// and shape); `None`, the default, for none. The plan grants it when
    /// no one reads the input after this layer, no model output is that
    /// input, and the input is either computed on every run (no constant)
    /// or a model input, whose buffer the op gets when the caller handed
    /// it over (kept no clone of what it set). The op then finds out on
    /// each run, through [`OutputSlots::in_place`], whether the output
    /// holds the input's values already or is a buffer of its own to copy
    /// them into. Should the op fail, a model input's buffer goes back to
    /// the input as the op left it, so an op that reuses its input checks
    /// everything before it writes.
    fn reuses_input(&self, port: usize) -> Option<usize> {
        let _ = port;
        None
    }

    /// The state one infer request keeps for this op, for an op that needs
    /// memory of its own between runs (a scratch buffer, a cache); `None`,
    /// the default, for an op that needs none.
    ///
    /// Each infer request asks once and then runs the op through its own
    /// state, so requests on other threads never share it, never wait for
    /// each other, and need no lock. Constant folding, which runs once,
    /// runs the op with a state of its own.
    fn state(&self) -> Option<Box<dyn CustomOpState>> {
        None
    }

    /// The values input `input` must hold, given the facts of all inputs,
    /// as [`Operation::input_values`] says: what example inputs (`ovir
    /// run` without `-i`) are made to hold. The default: any values.
    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        let _ = (input, inputs);
        ValueDomain::Any
    }

    /// The shape input `input` must have, given the facts of all inputs,
    /// as [`Operation::input_shape`] says. The default: what its own fact
    /// allows.
    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        let _ = (input, inputs);
        None
    }
}

/// What one infer request keeps for one [`CustomOp`] between runs (see
/// [`CustomOp::state`]), and runs it with.
pub trait CustomOpState: Send + Sync + fmt::Debug {
    /// Computes the output into `out`, as [`CustomOp::evaluate_into`]
    /// does, with this state at hand.
    fn evaluate_into(&mut self, inputs: &[&Tensor], out: &mut Tensor) -> Result<(), ExtensionError>;

    /// Computes the outputs into `outputs`, as [`CustomOp::run`] does,
    /// with this state at hand. The default calls
    /// [`CustomOpState::evaluate_into`] on the buffer of the one output;
    /// an op with several outputs, or one that asks for its buffers when
    /// it runs, implements this.
    fn run(&mut self, inputs: &[&Tensor], outputs: &mut dyn OutputSlots) -> Result<(), ExtensionError> {
        if outputs.count() == 1 {
            if let Some(out) = outputs.buffer(0) {
                return self.evaluate_into(inputs, out);
            }
        }
        Err(ExtensionError::new(
            "this op's state implements only evaluate_into, which fills one output whose shape is known before \
             the op runs; it must implement CustomOpState::run",
        ))
    }
}

/// The outputs of one run of a [`CustomOp`]: where [`CustomOp::run`]
/// writes them. A request keeps a pool of buffers; those that
/// [`OutputSlots::allocate`] gives come from it when one of the type and
/// shape asked for is free, so that running again on the same sizes
/// allocates nothing.
pub trait OutputSlots {
    /// The number of outputs.
    fn count(&self) -> usize;

    /// The buffer of output `port`, when it has one: the plan takes it
    /// ahead for an output whose type and shape are known before the op
    /// runs, and [`OutputSlots::allocate`] or [`OutputSlots::set`] give
    /// one to any other. Its contents are not specified: write every
    /// element.
    fn buffer(&mut self, port: usize) -> Option<&mut Tensor>;

    /// A buffer of this type and shape for output `port`, once the op
    /// knows its size; it replaces any the output had. The size is checked
    /// against the request's memory limit before anything is allocated.
    fn allocate(
        &mut self,
        port: usize,
        ty: ElementType,
        shape: &[usize],
    ) -> Result<&mut Tensor, ExtensionError>;

    /// Hands over output `port` made by the op.
    fn set(&mut self, port: usize, value: Tensor) -> Result<(), ExtensionError>;

    /// Output `port`, which the op may compute in place from `input` (see
    /// [`CustomOp::reuses_input`]): either it took over the input's buffer
    /// and holds its values already, or it is a buffer of its own.
    fn in_place<'s, 'i>(
        &'s mut self,
        port: usize,
        input: &'i Tensor,
    ) -> Result<InPlace<'s, 'i>, ExtensionError>;
}

/// An output that may be computed in place (see [`OutputSlots::in_place`]).
#[derive(Debug)]
pub enum InPlace<'o, 'i> {
    /// The output took over the input's buffer: it holds the input's
    /// values, to be changed in place. The input given to the op is then
    /// an empty stand-in and must not be read.
    Reused(&'o mut Tensor),
    /// The output is a buffer of its own, of the input's type and shape:
    /// the input's values are copied into it first (or the output computed
    /// from them).
    Fresh {
        /// The input.
        input: &'i Tensor,
        /// The output's buffer.
        output: &'o mut Tensor,
    },
}

impl<'o, 'i> InPlace<'o, 'i> {
    /// The input to start from, `None` when the output took over its
    /// buffer and already holds its values, and the output.
    pub fn parts(self) -> (Option<&'i Tensor>, &'o mut Tensor) {
        match self {
            InPlace::Reused(output) => (None, output),
            InPlace::Fresh { input, output } => (Some(input), output),
        }
    }

    /// The output, holding the input's values: as it is when it took over
    /// the input's buffer, else with them copied in.
    pub fn filled(self, op: &str) -> Result<&'o mut Tensor, ExtensionError> {
        match self {
            InPlace::Reused(output) => Ok(output),
            InPlace::Fresh { input, output } => {
                copy_into(op, input, output)?;
                Ok(output)
            }
        }
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

/// The operation of a layer that an extension handles: the [`CustomOp`]
/// its extension built, as an [`Operation`].
///
/// Two handles are equal when they share one op, built for one layer.
#[derive(Clone, Debug)]
pub struct CustomOperation(pub Arc<dyn CustomOp>);

impl CustomOperation {
    /// The op.
    pub fn op(&self) -> &dyn CustomOp {
        self.0.as_ref()
    }
}

impl PartialEq for CustomOperation {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// An extension's error as a problem of the layer.
pub(crate) fn extension_problem(op_type: &str, e: ExtensionError) -> Problems {
    let kind = ShapeErrorKind::Extension { op_type: op_type.to_string(), message: e.message().to_string() };
    let mut problems = Problems::new();
    match e.attribute_name() {
        Some(a) => problems.attr(Cow::Owned(a.to_string()), kind),
        None => problems.layer(kind),
    }
    problems
}

impl Operation for CustomOperation {
    fn name(&self) -> &str {
        self.0.op_type()
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        // A fact that is unknown only because an earlier layer failed says
        // nothing; the op is not asked about it, so that the failure is not
        // reported twice.
        if inputs.iter().any(|i| i.tainted && i.fact.shape.rank().is_none()) {
            return Ok(vec![PortFact::unknown(); self.0.output_count()]);
        }
        let facts: Vec<PortFact> = inputs.iter().map(|i| i.fact.clone()).collect();
        let facts = self.0.infer_outputs(&facts).map_err(|e| extension_problem(self.0.op_type(), e))?;
        let count = self.0.output_count();
        if facts.len() != count {
            let message = format!("infer_outputs gave {} facts, but the op has {count} outputs", facts.len());
            return Err(extension_problem(self.0.op_type(), ExtensionError::new(message)));
        }
        Ok(facts)
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        self.0.input_values(input, inputs)
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        self.0.input_shape(input, inputs)
    }
}
