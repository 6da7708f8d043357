//! Infer requests: the inputs and outputs of one inference at a time.

use ndarray::{ArrayViewD, Dimension};
use ovir_tensor::{Element, Tensor};

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

/// The inputs and outputs of one inference. Reusable: set new inputs and
/// call [`infer`](Self::infer) again.
#[derive(Debug)]
pub struct InferRequest {
    model: CompiledModel,
    inputs: Vec<Option<Tensor>>,
    outputs: Vec<Tensor>,
}

impl InferRequest {
    pub(crate) fn new(model: CompiledModel) -> Self {
        let inputs = vec![None; model.inputs().len()];
        InferRequest { model, inputs, outputs: Vec::new() }
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
    /// against the model's declaration here, so a mistake is reported at
    /// the call that made it.
    pub fn set_input<'k>(&mut self, key: impl Into<PortKey<'k>>, tensor: Tensor) -> Result<(), Error> {
        let index = self.input_index(key.into())?;
        self.model.plan().check_input(index, &tensor).map_err(|e| self.model.run_error(e))?;
        if let Some(slot) = self.inputs.get_mut(index) {
            *slot = Some(tensor);
        }
        Ok(())
    }

    /// Sets an input from an `ndarray` array (copied).
    pub fn set_input_array<'k, T: Element, D: Dimension>(
        &mut self,
        key: impl Into<PortKey<'k>>,
        array: ndarray::ArrayView<'_, T, D>,
    ) -> Result<(), Error> {
        self.set_input(key, Tensor::from_array(array))
    }

    /// Runs the model on the inputs set so far; every input must be set.
    pub fn infer(&mut self) -> Result<(), Error> {
        let mut inputs = Vec::with_capacity(self.inputs.len());
        for (slot, port) in self.inputs.iter().zip(self.model.inputs()) {
            match slot {
                Some(t) => inputs.push(t.clone()),
                None => return Err(Error::InputNotSet { name: port.name().to_string() }),
            }
        }
        self.outputs = self.model.plan().run(&inputs).map_err(|e| self.model.run_error(e))?;
        Ok(())
    }

    /// An output of the last inference.
    pub fn output<'k>(&self, key: impl Into<PortKey<'k>>) -> Result<&Tensor, Error> {
        let index = self.output_index(key.into())?;
        self.outputs.get(index).ok_or(Error::NotRun)
    }

    /// An output of the last inference as an `ndarray` view.
    pub fn output_view<'k, T: Element + ovir_tensor::Pod>(
        &self,
        key: impl Into<PortKey<'k>>,
    ) -> Result<ArrayViewD<'_, T>, Error> {
        Ok(self.output(key)?.view::<T>()?)
    }

    /// All outputs of the last inference, in output order.
    pub fn outputs(&self) -> &[Tensor] {
        &self.outputs
    }
}
