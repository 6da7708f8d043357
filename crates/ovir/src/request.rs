//! Infer requests: the inputs and outputs of one inference at a time.

use std::fmt;

use ndarray::{ArrayD, ArrayViewD, Dimension};
use ovir_exec::{RunError, RunState};
use ovir_tensor::text::{DisplayOptions, Quoted, TensorDisplay};
use ovir_tensor::{packed, Element, Tensor};
use serde::{Serialize, Serializer};

use crate::error::Error;
use crate::model::{CompiledModel, PortInfo};

/// Names an input or output: by one of its names, or by its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortKey<'a> {
    /// One of the port's names.
    Name(&'a str),
    /// The port's position among the model's inputs or outputs.
    Index(usize),
}

impl<'a> From<&'a str> for PortKey<'a> {
    fn from(name: &'a str) -> Self {
        PortKey::Name(name)
    }
}

impl<'a> From<&'a String> for PortKey<'a> {
    fn from(name: &'a String) -> Self {
        PortKey::Name(name)
    }
}

impl From<usize> for PortKey<'_> {
    fn from(index: usize) -> Self {
        PortKey::Index(index)
    }
}

impl std::fmt::Display for PortKey<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PortKey::Name(n) => write!(f, "\"{n}\""),
            PortKey::Index(i) => write!(f, "#{i}"),
        }
    }
}

fn find(ports: &[PortInfo], key: PortKey<'_>) -> Option<usize> {
    match key {
        PortKey::Index(i) => (i < ports.len()).then_some(i),
        PortKey::Name(n) => ports.iter().position(|p| p.answers_to(n)),
    }
}

impl CompiledModel {
    /// A new request, with its own inputs and outputs, for running this
    /// model. Requests are reusable: set new inputs and infer again.
    pub fn infer_request(&self) -> InferRequest {
        InferRequest::new(self.clone())
    }

    /// Runs the model once: the inputs by name (or index) in, every output
    /// by name out.
    ///
    /// This is the short way for a single inference. It makes a fresh
    /// [`InferRequest`] each time, so it allocates; a program that runs the
    /// model repeatedly keeps one request from
    /// [`infer_request`](Self::infer_request) instead, which allocates
    /// nothing after its first inference.
    ///
    /// ```
    /// # fn demo(compiled: &ovir::CompiledModel) -> Result<(), ovir::Error> {
    /// use ovir::{ndarray, Tensor};
    ///
    /// let data = ndarray::array![[1.0f32, 2.0], [3.0, 4.0]];
    /// let outputs = compiled.run([("data", Tensor::from_array(data.view()))])?;
    /// let out = outputs.get("out")?.view::<f32>()?;
    /// for (name, tensor) in &outputs {
    ///     println!("{name}: {:?}", tensor.shape());
    /// }
    /// # Ok(()) }
    /// ```
    pub fn run<'k, K: Into<PortKey<'k>>>(
        &self,
        inputs: impl IntoIterator<Item = (K, Tensor)>,
    ) -> Result<Outputs, Error> {
        let mut request = self.infer_request();
        for (key, tensor) in inputs {
            request.set_input(key, tensor)?;
        }
        request.infer()?;
        let tensors = request.outputs().into_iter().cloned().collect();
        Ok(Outputs { model: self.clone(), tensors })
    }
}

/// The outputs of [`CompiledModel::run`], in output order, each found by
/// any of its names or by its index.
///
/// `Outputs` shows its values as text ([`Display`](fmt::Display)) and
/// serializes them ([`Serialize`]), for snapshot tests: each output by its
/// name, in output order, in the format of [`ovir::text`](crate::text),
/// under a first line of its own, `ovir-outputs-text v1`:
///
/// ```text
/// ovir-outputs-text v1
/// output "out": f32 [2, 3]
/// [[3, 2, 1],
///  [6, 5, 4]]
/// output "shape": i64 [2]
/// [2, 3]
/// ```
///
/// Outputs of more than 1,024 elements are summarised with a hash of their
/// contents; `{:#}` shows every value, and
/// [`display_with`](Self::display_with) takes other options. In JSON,
/// the outputs are a list of objects, each the output's `name` and the
/// fields of its tensor: `[{"name":"out","type":"f32","shape":[2,3],"values":["3",…]}]`.
#[derive(Clone)]
pub struct Outputs {
    model: CompiledModel,
    tensors: Vec<Tensor>,
}

impl Outputs {
    /// An output, by one of its names or its index.
    pub fn get<'k>(&self, key: impl Into<PortKey<'k>>) -> Result<&Tensor, Error> {
        let key = key.into();
        find(self.model.outputs(), key).and_then(|i| self.tensors.get(i)).ok_or_else(|| {
            Error::UnknownOutput {
                key: key.to_string(),
                available: self.model.outputs().iter().map(|p| p.name().to_string()).collect(),
            }
        })
    }

    /// Each output's name (the first of its names) and value, in output
    /// order.
    pub fn iter(&self) -> OutputsIter<'_> {
        let name: fn(&PortInfo) -> &str = PortInfo::name;
        self.model.outputs().iter().map(name).zip(&self.tensors)
    }

    /// How many outputs there are.
    pub fn len(&self) -> usize {
        self.tensors.len()
    }

    /// `true` for a model without outputs.
    pub fn is_empty(&self) -> bool {
        self.tensors.is_empty()
    }

    /// The values, in output order.
    pub fn into_tensors(self) -> Vec<Tensor> {
        self.tensors
    }

    /// The outputs as text or JSON with the given options: when each is
    /// summarised, and how much of it a summary shows.
    pub fn display_with(&self, options: DisplayOptions) -> OutputsDisplay<'_> {
        OutputsDisplay { outputs: self, options }
    }
}

/// The first line of the text of [`Outputs`]: the format's name and
/// version. Each output's tensor follows in the format of
/// [`ovir::text`](crate::text), without that format's own first line.
pub const OUTPUTS_TEXT_FORMAT: &str = "ovir-outputs-text v1";

impl fmt::Debug for Outputs {
    /// Each output's name and tensor; the model they came from is left
    /// out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// [`Outputs`] with the options to show them by: what
/// [`Outputs::display_with`] gives. It implements
/// [`Display`](fmt::Display) and [`Serialize`].
#[derive(Clone, Copy, Debug)]
pub struct OutputsDisplay<'a> {
    outputs: &'a Outputs,
    options: DisplayOptions,
}

impl fmt::Display for OutputsDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(OUTPUTS_TEXT_FORMAT)?;
        for (name, tensor) in self.outputs {
            let shown = tensor.display_with(self.options).without_format_line();
            write!(f, "\noutput {}: {shown}", Quoted(name))?;
        }
        Ok(())
    }
}

impl fmt::Display for Outputs {
    /// The outputs as text, summarised past 1,024 elements each; `{:#}`
    /// shows every value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let options = if f.alternate() { DisplayOptions::full() } else { DisplayOptions::new() };
        fmt::Display::fmt(&self.display_with(options), f)
    }
}

/// One output as JSON: its name, then its tensor's fields.
#[derive(Serialize)]
struct NamedOutput<'a> {
    name: &'a str,
    #[serde(flatten)]
    tensor: TensorDisplay<'a>,
}

impl Serialize for OutputsDisplay<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.outputs.iter().map(|(name, t)| NamedOutput { name, tensor: t.display_with(self.options) }),
        )
    }
}

impl Serialize for Outputs {
    /// The outputs as [`OutputsDisplay`] serializes them with the default
    /// options.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.display_with(DisplayOptions::new()).serialize(serializer)
    }
}

/// The iterator of [`Outputs::iter`]: each output's name and value.
pub type OutputsIter<'a> = std::iter::Zip<
    std::iter::Map<std::slice::Iter<'a, PortInfo>, fn(&PortInfo) -> &str>,
    std::slice::Iter<'a, Tensor>,
>;

impl<'a> IntoIterator for &'a Outputs {
    type Item = (&'a str, &'a Tensor);
    type IntoIter = OutputsIter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The inputs and outputs of one inference. Reusable: set new inputs and
/// call [`infer`](Self::infer) again.
///
/// A request keeps its inputs between inferences and recycles its buffers:
/// after the first inference of a model with static shapes, running again
/// allocates no tensor memory.
#[derive(Debug)]
pub struct InferRequest {
    model: CompiledModel,
    state: RunState,
    ran: bool,
}

impl InferRequest {
    pub(crate) fn new(model: CompiledModel) -> Self {
        let mut state = model.plan().state();
        state.set_threads(model.threads());
        state.set_max_tensor_bytes(model.max_tensor_bytes());
        InferRequest { model, state, ran: false }
    }

    /// The compiled model this request runs.
    pub fn model(&self) -> &CompiledModel {
        &self.model
    }

    /// The index of an input.
    pub fn input_index(&self, key: PortKey<'_>) -> Result<usize, Error> {
        find(self.model.inputs(), key).ok_or_else(|| Error::UnknownInput {
            key: key.to_string(),
            available: self.model.inputs().iter().map(|p| p.name().to_string()).collect(),
        })
    }

    /// The index of an output.
    pub fn output_index(&self, key: PortKey<'_>) -> Result<usize, Error> {
        find(self.model.outputs(), key).ok_or_else(|| Error::UnknownOutput {
            key: key.to_string(),
            available: self.model.outputs().iter().map(|p| p.name().to_string()).collect(),
        })
    }

    /// Sets an input. The tensor's element type and shape are checked
    /// against the model's declaration, and its size against the memory
    /// limit, here, so a mistake is reported at the call that made it.
    ///
    /// An input declared with a packed sub-byte type (`u1` … `u6`, `i4`,
    /// `nf4`, `f4e2m1`) or an 8-bit float type also takes its exchange
    /// form: one `u8` per element (`i8` for `i4`), which is packed here.
    /// A value outside the type's range is an [`Error::InputValue`].
    ///
    /// The request keeps the input for the next inferences, with one
    /// exception. Given the only reference to a tensor (no clone kept) that
    /// a scatter updates and nothing after it reads, the request hands it
    /// over to the scatter, which updates it in place rather than copying
    /// it. The input then holds no value after the inference: take the
    /// updated tensor back with [`take_output`](Self::take_output) and set
    /// it again. A tensor the caller still holds a clone of is never
    /// changed; the scatter copies it.
    pub fn set_input<'k>(&mut self, key: impl Into<PortKey<'k>>, tensor: Tensor) -> Result<(), Error> {
        let index = self.input_index(key.into())?;
        let name = || self.model.inputs().get(index).map(|p| p.name().to_string()).unwrap_or_default();
        ovir_tensor::check_memory(tensor.element_type(), tensor.shape(), self.model.max_tensor_bytes())
            .map_err(|source| Error::InputTooLarge { name: name(), source })?;
        let declared = self.model.inputs().get(index).map(|p| p.element_type);
        let tensor = match declared {
            Some(ty)
                if ty != tensor.element_type()
                    && packed::exchange_type(ty) == Some(tensor.element_type()) =>
            {
                packed::from_exchange(&tensor, ty)
                    .map_err(|reason| Error::InputValue { name: name(), reason })?
            }
            _ => tensor,
        };
        self.model.plan().set_input(&mut self.state, index, tensor).map_err(|e| self.model.run_error(e))
    }

    /// An input as it is currently set.
    pub fn input<'k>(&self, key: impl Into<PortKey<'k>>) -> Result<&Tensor, Error> {
        let index = self.input_index(key.into())?;
        self.model.plan().input(&self.state, index).ok_or_else(|| Error::InputNotSet {
            name: self.model.inputs().get(index).map(|p| p.name().to_string()).unwrap_or_default(),
        })
    }

    /// Sets an input from an `ndarray` array (copied).
    pub fn set_input_array<'k, T: Element, D: Dimension>(
        &mut self,
        key: impl Into<PortKey<'k>>,
        array: ndarray::ArrayView<'_, T, D>,
    ) -> Result<(), Error> {
        self.set_input(key, Tensor::try_from_array(array)?)
    }

    /// Sets a `string` input from an `ndarray` array of strings (copied).
    ///
    /// ```
    /// # fn demo(request: &mut ovir::InferRequest) -> Result<(), ovir::Error> {
    /// let words = ndarray::array![["a".to_string(), "bc".to_string()]];
    /// request.set_input_strings("text", words.view())?;
    /// request.infer()?;
    /// let reversed: ndarray::ArrayD<String> = request.output_strings("out")?;
    /// # Ok(()) }
    /// ```
    pub fn set_input_strings<'k, D: Dimension>(
        &mut self,
        key: impl Into<PortKey<'k>>,
        array: ndarray::ArrayView<'_, String, D>,
    ) -> Result<(), Error> {
        let tensor = Tensor::from_strings(array.shape(), array.iter().cloned().collect())?;
        self.set_input(key, tensor)
    }

    /// Runs the model on the inputs set so far; every input must be set.
    /// When one is not, nothing runs and the last inference's outputs stay
    /// as they were.
    pub fn infer(&mut self) -> Result<(), Error> {
        let ran = self.ran;
        self.ran = false;
        self.model.plan().run_state(&mut self.state).map_err(|e| {
            if matches!(e, RunError::InputNotSet { .. } | RunError::InputHandedOver { .. }) {
                self.ran = ran;
            }
            self.model.run_error(e)
        })?;
        self.ran = true;
        Ok(())
    }

    /// An output of the last inference.
    pub fn output<'k>(&self, key: impl Into<PortKey<'k>>) -> Result<&Tensor, Error> {
        let index = self.output_index(key.into())?;
        if !self.ran {
            return Err(Error::NotRun);
        }
        self.model.plan().output(&self.state, index).ok_or_else(|| Error::OutputTaken {
            name: self.model.outputs().get(index).map(|p| p.name().to_string()).unwrap_or_default(),
        })
    }

    /// Takes an output of the last inference out of the request: the
    /// caller then holds the only reference to it, and the request no
    /// longer has it ([`output`](Self::output) says so until the next
    /// inference, which makes it anew). An output the request must keep
    /// (an input passed straight through, a constant, a view of an input)
    /// is given as a clone that shares its storage.
    ///
    /// With [`set_input`](Self::set_input), this lets a value go round a
    /// model without a copy: a KV cache that a scatter updates, handed
    /// over as an input and taken back as an output, is updated in place,
    /// at the cost of its updates alone.
    ///
    /// ```
    /// # fn demo(request: &mut ovir::InferRequest, cache: ovir::Tensor) -> Result<(), ovir::Error> {
    /// let mut cache = cache;
    /// for _step in 0..4 {
    ///     request.set_input("cache", cache)?; // handed over: no clone kept
    ///     request.infer()?; // the ScatterUpdate writes into the cache's buffer
    ///     cache = request.take_output("updated")?;
    /// }
    /// # Ok(()) }
    /// ```
    pub fn take_output<'k>(&mut self, key: impl Into<PortKey<'k>>) -> Result<Tensor, Error> {
        let index = self.output_index(key.into())?;
        if !self.ran {
            return Err(Error::NotRun);
        }
        let name = || self.model.outputs().get(index).map(|p| p.name().to_string()).unwrap_or_default();
        self.model
            .plan()
            .take_output(&mut self.state, index)
            .ok_or_else(|| Error::OutputTaken { name: name() })
    }

    /// An output of the last inference as an `ndarray` view.
    pub fn output_view<'k, T: Element + ovir_tensor::Pod>(
        &self,
        key: impl Into<PortKey<'k>>,
    ) -> Result<ArrayViewD<'_, T>, Error> {
        Ok(self.output(key)?.view::<T>()?)
    }

    /// A `string` output of the last inference as an owned `ndarray` array.
    pub fn output_strings<'k>(&self, key: impl Into<PortKey<'k>>) -> Result<ArrayD<String>, Error> {
        Ok(self.output(key)?.to_string_array()?)
    }

    /// An output of the last inference in its exchange form: a packed
    /// sub-byte or 8-bit float output as one `u8` per element (`i8` for
    /// `i4`), any other output as it is. This is what `ovir run` writes to
    /// `.npy` files.
    pub fn output_unpacked<'k>(&self, key: impl Into<PortKey<'k>>) -> Result<Tensor, Error> {
        Ok(packed::to_exchange(self.output(key)?))
    }

    /// The bytes the last inference's kernels moved: per layer, its
    /// output, or its data input when that is larger and has as many
    /// elements (a narrowing Convert reads more than it writes; a Gather
    /// or Slice counts what it writes, a gather its indices too, and a
    /// scatter that updated its data in place its updates alone). Layers
    /// that passed their input through without copying count zero.
    pub fn bytes_moved(&self) -> usize {
        self.state.bytes_moved()
    }

    /// All outputs of the last inference, in output order (empty before
    /// the first inference). An output taken with
    /// [`take_output`](Self::take_output) is left out, so that the list is
    /// then shorter than the model's outputs.
    pub fn outputs(&self) -> Vec<&Tensor> {
        if !self.ran {
            return Vec::new();
        }
        (0..self.model.outputs().len()).filter_map(|i| self.model.plan().output(&self.state, i)).collect()
    }
}
