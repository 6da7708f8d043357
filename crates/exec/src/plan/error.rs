//! Why a plan could not be built, and why an inference failed.

use ovir_ir::{LayerRef, ReadError};
use ovir_tensor::{ElementType, PartialShape, TensorError};

use crate::kernels::KernelError;

/// Why a plan could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompileError {
    /// Folding a layer whose inputs are all constant failed.
    #[error("layer {} \"{}\" ({}) could not be computed from its constant inputs", .layer.id, .layer.name, .layer.op_type)]
    Fold {
        /// The layer.
        layer: LayerRef,
        /// What went wrong.
        source: Box<KernelError>,
    },
    /// The model has a layer that the executor has no kernel for.
    #[error("layer {} \"{}\" has type {}, which the CPU executor cannot run", .layer.id, .layer.name, .layer.op_type)]
    NoKernel {
        /// The layer.
        layer: LayerRef,
    },
    /// Folding a layer would make a value larger than the memory limit;
    /// nothing was allocated.
    #[error("layer {} \"{}\" ({}) cannot be computed from its constant inputs", .layer.id, .layer.name, .layer.op_type)]
    OverLimit {
        /// The layer.
        layer: LayerRef,
        /// The size needed and the limit.
        source: Box<TensorError>,
    },
    /// The model's own references do not hold together (a model built in
    /// code with an index past its layers, say); nothing was compiled.
    #[error("{0}")]
    Broken(Box<ReadError>),
    /// The analysis given is not one of this model: it has another number
    /// of layers or output ports.
    #[error(
        "the model analysis does not belong to this model: it describes {info_layers} layers, the model has \
         {layers}, or their output ports differ"
    )]
    InfoMismatch {
        /// Layers in the model.
        layers: usize,
        /// Layers the analysis describes.
        info_layers: usize,
    },
}

impl CompileError {
    /// The layer the error is about, when it is about one.
    pub fn layer(&self) -> Option<&LayerRef> {
        match self {
            CompileError::Fold { layer, .. }
            | CompileError::NoKernel { layer }
            | CompileError::OverLimit { layer, .. } => Some(layer),
            CompileError::Broken(_) | CompileError::InfoMismatch { .. } => None,
        }
    }
}

/// Why one inference failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The number of inputs does not match the model.
    #[error("the model has {expected} inputs, but {found} were given")]
    InputCount {
        /// Inputs the model has.
        expected: usize,
        /// Inputs given.
        found: usize,
    },
    /// An input has the wrong element type.
    #[error("input \"{name}\" must be {expected}, but the tensor given is {found}")]
    InputType {
        /// The input's name.
        name: String,
        /// The declared element type.
        expected: ElementType,
        /// The given element type.
        found: ElementType,
    },
    /// An input's shape does not fit the declared partial shape.
    #[error("input \"{name}\" must have shape {expected}, but a tensor of shape {} was given", PartialShape::from_static(.found))]
    InputShape {
        /// The input's name.
        name: String,
        /// The declared shape.
        expected: PartialShape,
        /// The given shape.
        found: Vec<usize>,
    },
    /// An input was not set before running.
    #[error("input \"{name}\" has not been set")]
    InputNotSet {
        /// The input's name.
        name: String,
    },
    /// An input was handed over to a layer that updated it in place in
    /// the last inference, and has not been set since.
    #[error(
        "input \"{name}\" was updated in place by layer {} \"{}\" ({}) in the last inference, \
         so it holds no value: set it again (the updated tensor is the layer's output)",
        .layer.id, .layer.name, .layer.op_type
    )]
    InputHandedOver {
        /// The input's name.
        name: String,
        /// The layer that took over its buffer.
        layer: LayerRef,
    },
    /// A kernel refused its inputs.
    #[error("layer {} \"{}\" ({}) failed", .layer.id, .layer.name, .layer.op_type)]
    Kernel {
        /// The failing layer.
        layer: LayerRef,
        /// What the kernel said.
        source: Box<KernelError>,
    },
    /// A layer's output would take more memory than the state's limit
    /// ([`RunState::set_max_tensor_bytes`](super::RunState::set_max_tensor_bytes)); nothing was allocated.
    #[error("layer {} \"{}\" ({}) cannot allocate its output", .layer.id, .layer.name, .layer.op_type)]
    OverLimit {
        /// The layer.
        layer: LayerRef,
        /// The size needed and the limit.
        source: Box<TensorError>,
    },
}
