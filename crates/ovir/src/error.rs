//! The facade's error type: one enum over every stage.

use std::fmt;
use std::sync::Arc;

use ovir_exec::{CompileError, RunError};
use ovir_ir::{render_diagnostic, ReadError, SourceFile, Span, MAX_REPORTED};
use ovir_shape::ShapeError;
use ovir_tensor::TensorError;

/// Anything that can go wrong between reading a model and reading its
/// outputs.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The IR file could not be read, or its structure is broken.
    #[error("{0}")]
    Read(#[from] ReadError),
    /// The graph is well formed but some layers are invalid: wrong
    /// attributes, element types or shapes.
    #[error("{}", ShapeReport(.file, .errors))]
    Invalid {
        /// The XML the errors point into.
        file: Arc<SourceFile>,
        /// The graph, for naming layers.
        model: Box<ovir_ir::Model>,
        /// Every problem found, in graph order.
        errors: Vec<ShapeError>,
    },
    /// The model could not be compiled.
    #[error("{error}")]
    Compile {
        /// What went wrong.
        error: CompileError,
        /// The layer's place in the XML.
        at: Option<Place>,
    },
    /// An inference failed.
    #[error("{error}")]
    Run {
        /// What went wrong.
        error: RunError,
        /// The failing layer's place in the XML, when a layer failed.
        at: Option<Place>,
    },
    /// No input has this name or index.
    #[error("the model has no input {key}; its inputs are: {}", .available.join(", "))]
    UnknownInput {
        /// The name or index asked for.
        key: String,
        /// The inputs the model has.
        available: Vec<String>,
    },
    /// No output has this name or index.
    #[error("the model has no output {key}; its outputs are: {}", .available.join(", "))]
    UnknownOutput {
        /// The name or index asked for.
        key: String,
        /// The outputs the model has.
        available: Vec<String>,
    },
    /// `infer` was called before every input was set.
    #[error("input \"{name}\" has not been set")]
    InputNotSet {
        /// The input's name.
        name: String,
    },
    /// An input (set by the caller, or generated as an example) would take
    /// more memory than the limit allows.
    #[error("input \"{name}\" is too large: {source}")]
    InputTooLarge {
        /// The input's name.
        name: String,
        /// The size needed and the limit.
        source: TensorError,
    },
    /// An input of a packed sub-byte or 8-bit float type was given in its
    /// exchange form (one `u8` or `i8` per element, see
    /// [`ovir_tensor::packed`]) with a value the type cannot hold.
    #[error("input \"{name}\": {reason}")]
    InputValue {
        /// The input's name.
        name: String,
        /// The value, where it is, and the type's range.
        reason: ovir_tensor::packed::PackError,
    },
    /// No example values could be made for an input of this element type.
    #[error("cannot generate example values for input \"{name}\": {source}")]
    ExampleInput {
        /// The input's name.
        name: String,
        /// Why the values could not be converted to the input's type.
        source: Box<ovir_exec::kernels::KernelError>,
    },
    /// Outputs were asked for before any inference ran.
    #[error("no inference has run on this request yet")]
    NotRun,
    /// A tensor could not be built or viewed as asked.
    #[error(transparent)]
    Tensor(#[from] TensorError),
    /// An extension could not be registered.
    #[error("cannot register the extension: {0}")]
    Extension(#[from] ovir_shape::ExtensionError),
}

/// A place in an IR file: the file's text and a span in it.
#[derive(Clone, Debug)]
pub struct Place {
    /// The XML text.
    pub source: Arc<SourceFile>,
    /// The span of the layer's start tag.
    pub span: Span,
}

struct ShapeReport<'a>(&'a SourceFile, &'a [ShapeError]);

impl fmt::Display for ShapeReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.0.display_name();
        for (i, e) in self.1.iter().take(MAX_REPORTED).enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{name}: {}", e.kind)?;
        }
        if let Some(more) = self.1.len().checked_sub(MAX_REPORTED).filter(|&n| n > 0) {
            write!(f, "\n{name}: {more} more problems were found but are not shown")?;
        }
        Ok(())
    }
}

impl Error {
    /// Renders the error for a person: each problem with the XML line it
    /// points at, the layer it concerns, and what was expected. Errors that
    /// have no place in the XML render as their message.
    pub fn render(&self, color: bool) -> String {
        match self {
            Error::Read(e) => e.render(color),
            Error::Invalid { file, model, errors } => errors
                .iter()
                // Rendering every one of a million problems would take
                // long and say nothing new.
                .take(MAX_REPORTED)
                .map(|e| {
                    let layer = model.layers.get(e.layer.0);
                    let span: Option<Span> = layer.map(|l| {
                        e.attribute.as_deref().and_then(|a| l.attrs.get(a)).map_or(l.span, |a| a.span)
                    });
                    let layer_ref = layer.map(|_| model.layer_ref(e.layer));
                    render_diagnostic(file, &e.kind.to_string(), span, layer_ref.as_ref(), &[], color)
                })
                .chain(
                    errors
                        .len()
                        .checked_sub(MAX_REPORTED)
                        .filter(|&n| n > 0)
                        .map(|n| format!("note: {n} more problems were found but are not shown")),
                )
                .collect::<Vec<_>>()
                .join("\n"),
            Error::Compile { error, at: Some(at) } => {
                render_diagnostic(&at.source, &error.to_string(), Some(at.span), error.layer(), &[], color)
            }
            Error::Run {
                error: error @ (RunError::Kernel { layer, .. } | RunError::OverLimit { layer, .. }),
                at: Some(at),
            } => render_diagnostic(&at.source, &error.to_string(), Some(at.span), Some(layer), &[], color),
            other => format!("error: {other}"),
        }
    }

    /// How many independent problems the error reports.
    pub fn problem_count(&self) -> usize {
        match self {
            Error::Read(e) => e.problem_count(),
            Error::Invalid { errors, .. } => errors.len(),
            _ => 1,
        }
    }
}
