//! The facade's error type: one enum over every stage.

use std::fmt;
use std::sync::Arc;

use ovir_exec::{CompileError, RunError};
use ovir_ir::{render_diagnostic, ReadError, SourceFile, Span, WriteError, MAX_REPORTED};
use ovir_shape::ShapeError;
use ovir_tensor::TensorError;

/// Anything that can go wrong between reading a model and reading its
/// outputs.
///
/// Its `Display` is the whole message, causes included, with the file,
/// line and column of the XML it concerns (`model.xml:22:3: …`), so
/// [`source`](std::error::Error::source) returns nothing: a chain of
/// causes would only repeat it. Its `Debug` names the variant and then
/// gives the same message; it never holds the XML text or the graph, so a
/// `main` that returns this error with `?` prints a few lines, however
/// large the model. [`Error::render`] shows each problem with its line of
/// XML.
#[non_exhaustive]
pub enum Error {
    /// The IR file could not be read, or its structure is broken.
    Read(ReadError),
    /// The graph is well formed but some layers are invalid: wrong
    /// attributes, element types or shapes.
    Invalid {
        /// The XML the errors point into.
        file: Arc<SourceFile>,
        /// The graph, for naming layers.
        model: Box<ovir_ir::Model>,
        /// Every problem found, in graph order.
        errors: Vec<ShapeError>,
    },
    /// The model could not be compiled.
    Compile {
        /// What went wrong.
        error: CompileError,
        /// The layer's place in the XML.
        at: Option<Place>,
    },
    /// An inference failed.
    Run {
        /// What went wrong.
        error: RunError,
        /// The failing layer's place in the XML, when a layer failed.
        at: Option<Place>,
    },
    /// No input has this name or index.
    UnknownInput {
        /// The name or index asked for.
        key: String,
        /// The inputs the model has.
        available: Vec<String>,
    },
    /// No output has this name or index.
    UnknownOutput {
        /// The name or index asked for.
        key: String,
        /// The outputs the model has.
        available: Vec<String>,
    },
    /// [`Model::add_output`](crate::Model::add_output) was given a name
    /// that is no tensor's and no layer output's.
    NoSuchTensor {
        /// The name asked for.
        key: String,
        /// Why it names no output: no such name, a port the layer does not
        /// have, or a layer without outputs.
        reason: String,
    },
    /// `infer` was called before every input was set.
    InputNotSet {
        /// The input's name.
        name: String,
    },
    /// An input (set by the caller, or generated as an example) would take
    /// more memory than the limit allows.
    InputTooLarge {
        /// The input's name.
        name: String,
        /// The size needed and the limit.
        source: TensorError,
    },
    /// An input of a packed sub-byte or 8-bit float type was given in its
    /// exchange form (one `u8` or `i8` per element, see
    /// [`packed`](crate::packed)) with a value the type cannot hold.
    InputValue {
        /// The input's name.
        name: String,
        /// The value, where it is, and the type's range.
        reason: ovir_tensor::packed::PackError,
    },
    /// No example values could be made for an input of this element type.
    ExampleInput {
        /// The input's name.
        name: String,
        /// Why the values could not be converted to the input's type.
        source: Box<ovir_exec::kernels::KernelError>,
    },
    /// No example values that the model's ops accept exist for an input
    /// (axes of a scalar, indices into an empty dimension), or its rule and
    /// another input's each wait for the other.
    ExampleDomain {
        /// The input's name.
        name: String,
        /// What its values or shape would have to be, and why they cannot.
        reason: String,
    },
    /// Outputs were asked for before any inference ran.
    NotRun,
    /// An output was asked for after
    /// [`take_output`](crate::InferRequest::take_output) took it.
    OutputTaken {
        /// The output's name.
        name: String,
    },
    /// A tensor could not be built or viewed as asked.
    Tensor(TensorError),
    /// An extension could not be registered.
    Extension(ovir_shape::ExtensionError),
    /// A model could not be saved (see [`Model::save`](crate::Model::save)).
    Write(WriteError),
}

impl From<ReadError> for Error {
    fn from(e: ReadError) -> Self {
        Error::Read(e)
    }
}

impl From<TensorError> for Error {
    fn from(e: TensorError) -> Self {
        Error::Tensor(e)
    }
}

impl From<WriteError> for Error {
    fn from(e: WriteError) -> Self {
        Error::Write(e)
    }
}

impl From<ovir_shape::ExtensionError> for Error {
    fn from(e: ovir_shape::ExtensionError) -> Self {
        Error::Extension(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read(e) => write!(f, "{e}"),
            Error::Invalid { file, model, errors } => write!(f, "{}", ShapeReport { file, model, errors }),
            Error::Compile { error, at } => write!(f, "{}{}", Located(at.as_ref()), with_causes(error)),
            Error::Run { error, at } => write!(f, "{}{}", Located(at.as_ref()), with_causes(error)),
            Error::UnknownInput { key, available } => {
                write!(f, "the model has no input {key}; its inputs are: {}", list(available))
            }
            Error::UnknownOutput { key, available } => {
                write!(f, "the model has no output {key}; its outputs are: {}", list(available))
            }
            Error::NoSuchTensor { key, reason } => write!(f, "cannot make \"{key}\" an output: {reason}"),
            Error::InputNotSet { name } => write!(f, "input \"{name}\" has not been set"),
            Error::InputTooLarge { name, source } => write!(f, "input \"{name}\" is too large: {source}"),
            Error::InputValue { name, reason } => write!(f, "input \"{name}\": {reason}"),
            Error::ExampleInput { name, source } => {
                write!(f, "cannot generate example values for input \"{name}\": {}", with_causes(source))
            }
            Error::ExampleDomain { name, reason } => {
                write!(f, "cannot generate example values for input \"{name}\": {reason}")
            }
            Error::NotRun => write!(f, "no inference has run on this request yet"),
            Error::OutputTaken { name } => {
                write!(f, "output \"{name}\" was taken from the request; the next inference makes it again")
            }
            Error::Tensor(e) => write!(f, "{}", with_causes(e)),
            Error::Extension(e) => write!(f, "cannot register the extension: {e}"),
            Error::Write(e) => write!(f, "{e}"),
        }
    }
}

impl fmt::Debug for Error {
    /// The variant's name and the message: what went wrong, in which
    /// file, at which line and in which layer. The XML text and the graph
    /// are left out, since they can take megabytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let variant = match self {
            Error::Read(_) => "Read",
            Error::Invalid { .. } => "Invalid",
            Error::Compile { .. } => "Compile",
            Error::Run { .. } => "Run",
            Error::UnknownInput { .. } => "UnknownInput",
            Error::UnknownOutput { .. } => "UnknownOutput",
            Error::NoSuchTensor { .. } => "NoSuchTensor",
            Error::InputNotSet { .. } => "InputNotSet",
            Error::InputTooLarge { .. } => "InputTooLarge",
            Error::InputValue { .. } => "InputValue",
            Error::ExampleInput { .. } => "ExampleInput",
            Error::ExampleDomain { .. } => "ExampleDomain",
            Error::NotRun => "NotRun",
            Error::OutputTaken { .. } => "OutputTaken",
            Error::Tensor(_) => "Tensor",
            Error::Extension(_) => "Extension",
            Error::Write(_) => "Write",
        };
        write!(f, "{variant}: {self}")
    }
}

/// The message already holds every cause, so there is none to return.
impl std::error::Error for Error {}

/// A place in an IR file: the file's text and a span in it.
#[derive(Clone)]
pub struct Place {
    /// The XML text.
    pub source: Arc<SourceFile>,
    /// The span of the layer's start tag.
    pub span: Span,
}

impl fmt::Debug for Place {
    /// The file, line and column; not the file's text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Place({})", location(&self.source, Some(self.span)))
    }
}

/// `file:line:column: ` for a place, nothing without one.
struct Located<'a>(Option<&'a Place>);

impl fmt::Display for Located<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(at) => write!(f, "{}: ", location(&at.source, Some(at.span))),
            None => Ok(()),
        }
    }
}

/// `file:line:column`, or the file alone when there is no span.
fn location(file: &SourceFile, span: Option<Span>) -> String {
    let name = file.display_name();
    match span {
        Some(span) => {
            let at = file.line_col(span.start);
            format!("{name}:{}:{}", at.line, at.column)
        }
        None => name,
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// An error's message followed by those of its causes, each after `: `.
/// A cause whose message the text already holds is not repeated, so the
/// result reads the same whichever convention each error type follows.
pub(crate) fn with_causes(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        let message = c.to_string();
        if !text.contains(&message) {
            text.push_str(": ");
            text.push_str(&message);
        }
        cause = c.source();
    }
    text
}

/// Each problem of an invalid model on its own line, as
/// `file:line:column: message [layer]`.
struct ShapeReport<'a> {
    file: &'a SourceFile,
    model: &'a ovir_ir::Model,
    errors: &'a [ShapeError],
}

impl fmt::Display for ShapeReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().take(MAX_REPORTED).enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            let span = span_of(self.model, e);
            write!(f, "{}: {}", location(self.file, span), e.kind)?;
            if self.model.layers.get(e.layer.0).is_some() {
                write!(f, " [{}]", self.model.layer_ref(e.layer))?;
            }
        }
        if let Some(more) = self.errors.len().checked_sub(MAX_REPORTED).filter(|&n| n > 0) {
            write!(f, "\n{}: {more} more problems were found but are not shown", self.file.display_name())?;
        }
        Ok(())
    }
}

/// Where a problem points: the attribute at fault, or else the layer's
/// start tag.
fn span_of(model: &ovir_ir::Model, e: &ShapeError) -> Option<Span> {
    let layer = model.layers.get(e.layer.0)?;
    Some(e.attribute.as_deref().and_then(|a| layer.attrs.get(a)).map_or(layer.span, |a| a.span))
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
                    let layer_ref = model.layers.get(e.layer.0).map(|_| model.layer_ref(e.layer));
                    render_diagnostic(
                        file,
                        &e.kind.to_string(),
                        span_of(model, e),
                        layer_ref.as_ref(),
                        &[],
                        color,
                    )
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
                render_diagnostic(&at.source, &with_causes(error), Some(at.span), error.layer(), &[], color)
            }
            Error::Run {
                error: error @ (RunError::Kernel { layer, .. } | RunError::OverLimit { layer, .. }),
                at: Some(at),
            } => render_diagnostic(&at.source, &with_causes(error), Some(at.span), Some(layer), &[], color),
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
