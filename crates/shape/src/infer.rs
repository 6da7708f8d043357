//! Validation and output inference for each operation.

use std::borrow::Cow;

use ovir_ir::Layer;
use ovir_tensor::{ElementType, PartialShape};

use crate::error::ShapeErrorKind;
use crate::extension::{CustomOpRef, ExtensionError, Extensions};
use crate::op::{normalize_axis, supported_ops_text, Op, OpKind, ReverseMode};
use crate::shape_ops;
use crate::values::{reversed_axes, sequence_lengths};
use crate::PortFact;

/// What feeds one input of a layer.
pub(crate) struct Input {
    pub(crate) fact: PortFact,
    /// The fact comes, directly or not, from a layer that failed, so its
    /// unknowns stand for "could not be inferred" rather than "dynamic".
    pub(crate) tainted: bool,
}

/// A problem and the `<data>` attribute it concerns, if any.
pub(crate) type Issue = (Option<Cow<'static, str>>, ShapeErrorKind);

/// The op of a layer and the facts of its outputs.
pub(crate) type Inferred = (Op, Vec<PortFact>);

#[derive(Default)]
pub(crate) struct Issues(pub(crate) Vec<Issue>);

impl Issues {
    pub(crate) fn layer(&mut self, kind: ShapeErrorKind) {
        self.0.push((None, kind));
    }

    pub(crate) fn attr(&mut self, name: &'static str, kind: ShapeErrorKind) {
        self.0.push((Some(Cow::Borrowed(name)), kind));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn finish(self, inferred: Inferred) -> Result<Inferred, Vec<Issue>> {
        if self.0.is_empty() {
            Ok(inferred)
        } else {
            Err(self.0)
        }
    }
}

/// Validates one layer given the facts of its inputs (in input order).
///
/// A built-in op of an opset that contains it comes first; otherwise an
/// extension registered for the layer's type and version handles it.
pub(crate) fn infer_layer(
    layer: &Layer,
    inputs: &[Input],
    extensions: &Extensions,
) -> Result<Inferred, Vec<Issue>> {
    let builtin = OpKind::from_type(&layer.op_type);
    let kind = match builtin {
        Some(kind) if kind.in_version(&layer.version) => kind,
        _ => {
            if let Some(extension) = extensions.find(&layer.op_type, &layer.version) {
                return custom(layer, inputs, extension.as_ref());
            }
            return Err(vec![(None, unknown_op(layer, builtin, extensions))]);
        }
    };

    let mut issues = Issues::default();
    let op = kind.name();
    // The reader guarantees one edge per input port; both counts are
    // checked so that a model built by other means cannot mislead us.
    let (min, max) = kind.inputs();
    let count_error = |found: usize| match max {
        Some(m) if m == min => ShapeErrorKind::InputCount { op, expected: min, found },
        _ => ShapeErrorKind::InputCountRange { op, min, max, found },
    };
    let fits = |n: usize| n >= min && max.is_none_or(|m| n <= m);
    if !fits(layer.inputs.len()) {
        issues.layer(count_error(layer.inputs.len()));
    } else if inputs.len() != layer.inputs.len() {
        issues.layer(count_error(inputs.len()));
    }
    if layer.outputs.len() != kind.outputs() {
        issues.layer(ShapeErrorKind::OutputCount {
            op,
            expected: kind.outputs(),
            found: layer.outputs.len(),
        });
    }
    if !issues.is_empty() {
        return Err(issues.0);
    }

    match (kind, inputs) {
        (OpKind::Parameter, []) => parameter(layer),
        (OpKind::Const, []) => constant(layer),
        (OpKind::Result, [_]) => Ok((Op::Result, Vec::new())),
        (OpKind::Convert, [input]) => convert(layer, input),
        (OpKind::Reverse, [data, axes]) => reverse(layer, data, axes),
        (OpKind::ReverseSequence, [data, lengths]) => reverse_sequence(layer, data, lengths),
        (OpKind::ShapeOf, [data]) => shape_ops::shape_of(layer, data),
        (OpKind::Gather, [data, indices, axis]) => shape_ops::gather(layer, data, indices, axis),
        (OpKind::Broadcast, [data, target, rest @ ..]) => {
            shape_ops::broadcast(layer, data, target, rest.first())
        }
        (OpKind::Unsqueeze, [data, axes]) => shape_ops::unsqueeze(data, axes),
        (OpKind::Squeeze, [data, rest @ ..]) => shape_ops::squeeze(data, rest.first()),
        (OpKind::Reshape, [data, pattern]) => shape_ops::reshape(layer, data, pattern),
        (OpKind::Concat, _) => shape_ops::concat(layer, inputs),
        (OpKind::Slice, [data, start, stop, step, rest @ ..]) => {
            shape_ops::slice(data, [start, stop, step], rest.first())
        }
        _ => Err(vec![(None, count_error(inputs.len()))]),
    }
}

/// Why no op handles a layer: its type is built in, but not in its
/// version; an extension handles its type, but in other versions; or
/// nothing knows its type.
fn unknown_op(layer: &Layer, builtin: Option<OpKind>, extensions: &Extensions) -> ShapeErrorKind {
    let versions = extensions.versions_of(&layer.op_type);
    match builtin {
        Some(kind) => ShapeErrorKind::UnsupportedVersion {
            op: kind.name(),
            version: layer.version.clone(),
            available: kind.opsets_text(),
        },
        None if !versions.is_empty() => ShapeErrorKind::ExtensionVersion {
            op_type: layer.op_type.clone(),
            version: layer.version.clone(),
            registered: versions.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", "),
        },
        None => ShapeErrorKind::UnknownOp {
            op_type: layer.op_type.clone(),
            version: layer.version.clone(),
            supported: supported_ops_text(),
            extensions: extensions.describe(),
        },
    }
}

/// A layer handled by an extension: the extension reads its attributes,
/// and the op it builds infers the facts of its one output.
fn custom(layer: &Layer, inputs: &[Input], extension: &dyn crate::Extension) -> Result<Inferred, Vec<Issue>> {
    let issue = |e: ExtensionError| {
        let attribute = e.attribute_name().map(|a| Cow::Owned(a.to_string()));
        (
            attribute,
            ShapeErrorKind::Extension { op_type: layer.op_type.clone(), message: e.message().to_string() },
        )
    };
    if layer.outputs.len() != 1 {
        return Err(vec![(
            None,
            ShapeErrorKind::CustomOutputCount { op_type: layer.op_type.clone(), found: layer.outputs.len() },
        )]);
    }
    let op = extension.build(layer).map_err(|e| vec![issue(e)])?;
    // A fact that is unknown only because an earlier layer failed says
    // nothing; the op is not asked about it, so that the failure is not
    // reported twice.
    if inputs.iter().any(|i| i.tainted && i.fact.shape.rank().is_none()) {
        return Ok((Op::Custom(CustomOpRef(op)), vec![crate::PortFact::unknown()]));
    }
    let facts: Vec<crate::PortFact> = inputs.iter().map(|i| i.fact.clone()).collect();
    let fact = op.infer(&facts).map_err(|e| vec![issue(e)])?;
    Ok((Op::Custom(CustomOpRef(op)), vec![fact]))
}

/// The value of a required attribute, or `None` after recording its absence.
pub(crate) fn required<'a>(
    layer: &'a Layer,
    op: &'static str,
    name: &'static str,
    issues: &mut Issues,
) -> Option<&'a str> {
    let value = layer.attrs.value(name);
    if value.is_none() {
        issues.layer(ShapeErrorKind::MissingAttribute { op, name });
    }
    value
}

/// A required element type attribute.
fn element_type_attr(
    layer: &Layer,
    op: &'static str,
    name: &'static str,
    issues: &mut Issues,
) -> Option<ElementType> {
    let value = required(layer, op, name, issues)?;
    let ty = ElementType::from_ir_name(value);
    if ty.is_none() {
        issues.attr(name, ShapeErrorKind::InvalidElementType { name, value: value.to_string() });
    }
    ty
}

/// An optional integer attribute with a default.
pub(crate) fn int_attr(layer: &Layer, name: &'static str, default: i64, issues: &mut Issues) -> Option<i64> {
    let Some(value) = layer.attrs.value(name) else {
        return Some(default);
    };
    let parsed = value.trim().parse::<i64>().ok();
    if parsed.is_none() {
        issues.attr(name, ShapeErrorKind::InvalidInteger { name, value: value.to_string() });
    }
    parsed
}

fn parameter(layer: &Layer) -> Result<Inferred, Vec<Issue>> {
    let mut issues = Issues::default();
    let element_type = element_type_attr(layer, "Parameter", "element_type", &mut issues);
    let shape = required(layer, "Parameter", "shape", &mut issues).and_then(|value| {
        value
            .parse::<PartialShape>()
            .map_err(|source| {
                issues.attr(
                    "shape",
                    ShapeErrorKind::InvalidShape { name: "shape", value: value.to_string(), source },
                )
            })
            .ok()
    });
    match (element_type, shape) {
        (Some(element_type), Some(shape)) => {
            let fact = PortFact::of(element_type, shape.clone());
            issues.finish((Op::Parameter { element_type, shape }, vec![fact]))
        }
        _ => Err(issues.0),
    }
}

fn constant(layer: &Layer) -> Result<Inferred, Vec<Issue>> {
    match &layer.constant {
        Some(tensor) => Ok((Op::Const, vec![PortFact::known(tensor.clone())])),
        None => Err(vec![(None, ShapeErrorKind::MissingConstantValue)]),
    }
}

fn convert(layer: &Layer, input: &Input) -> Result<Inferred, Vec<Issue>> {
    let mut issues = Issues::default();
    let name = "destination_type";
    let Some(to) = element_type_attr(layer, "Convert", name, &mut issues) else {
        return Err(issues.0);
    };
    if !to.is_static() {
        let value = layer.attrs.value(name).unwrap_or_default().to_string();
        issues.attr(name, ShapeErrorKind::DynamicDestination { value });
    }
    let from = input.fact.element_type;
    if to == ElementType::String {
        issues.attr(name, ShapeErrorKind::StringConversion { from, to });
    } else if from == ElementType::String {
        issues.layer(ShapeErrorKind::StringConversion { from, to });
    }
    // A known input value is not folded here: the evaluator given to
    // `analyze_with` does that. Dimensions carried as integers stay
    // dimensions in another integer type.
    let mut fact = PortFact::of(to, input.fact.shape.clone());
    if to.is_integral() {
        fact.value_dims = shape_ops::dims_of(&input.fact);
    }
    issues.finish((Op::Convert { to }, vec![fact]))
}

fn reverse(layer: &Layer, data: &Input, axes: &Input) -> Result<Inferred, Vec<Issue>> {
    let mut issues = Issues::default();
    let mode = required(layer, "Reverse", "mode", &mut issues).and_then(|value| {
        let mode = ReverseMode::from_attr(value);
        if mode.is_none() {
            issues.attr("mode", ShapeErrorKind::InvalidMode { value: value.to_string() });
        }
        mode
    });

    let axes_shape = &axes.fact.shape;
    let mut axes_ok = true;
    if axes_shape.rank().is_some_and(|r| r != 1) {
        issues.layer(ShapeErrorKind::AxesNotVector { shape: axes_shape.clone() });
        axes_ok = false;
    }

    if let Some(mode) = mode {
        // A dynamic type is accepted in both modes: it is either a
        // Parameter's declared type, checked when the model runs, or the
        // trace of an earlier failure, already reported.
        let ty = axes.fact.element_type;
        match mode {
            ReverseMode::Index if ty.is_static() && !ty.is_integral() => {
                issues.layer(ShapeErrorKind::IndexAxesType { found: ty });
                axes_ok = false;
            }
            ReverseMode::Mask if ty.is_static() && ty != ElementType::Boolean => {
                issues.layer(ShapeErrorKind::MaskAxesType { found: ty });
                axes_ok = false;
            }
            _ => {}
        }

        let rank = data.fact.shape.rank();
        match (mode, rank, axes_shape.dims()) {
            (ReverseMode::Mask, Some(rank), Some([length])) if !length.contains(rank as u64) => {
                issues.layer(ShapeErrorKind::MaskLength { length: *length, rank });
            }
            (ReverseMode::Index, Some(rank), _) if axes_ok => {
                // Axes known only at run time are checked by the executor.
                if let Some(value) = &axes.fact.value {
                    match reversed_axes(mode, value, rank) {
                        Ok(_) | Err(ShapeErrorKind::UnreadableValues { .. }) => {}
                        Err(kind) => issues.layer(kind),
                    }
                }
            }
            _ => {}
        }
    }

    let Some(mode) = mode else {
        return Err(issues.0);
    };
    let fact = PortFact::of(data.fact.element_type, data.fact.shape.clone());
    issues.finish((Op::Reverse { mode }, vec![fact]))
}

fn reverse_sequence(layer: &Layer, data: &Input, lengths: &Input) -> Result<Inferred, Vec<Issue>> {
    let mut issues = Issues::default();
    let batch_axis = int_attr(layer, "batch_axis", 0, &mut issues);
    let seq_axis = int_attr(layer, "seq_axis", 1, &mut issues);

    let data_shape = &data.fact.shape;
    let rank = data_shape.rank();
    let rank_ok = match rank {
        Some(r) if r < 2 => {
            issues.layer(ShapeErrorKind::DataRankTooLow { shape: data_shape.clone() });
            false
        }
        _ => true,
    };

    let mut normalize = |name: &'static str, axis: Option<i64>| -> Option<usize> {
        let axis = axis?;
        match rank {
            // With too low a rank every axis is wrong; that was said once.
            Some(_) if !rank_ok => None,
            Some(r) => {
                let n = normalize_axis(axis, r);
                if n.is_none() {
                    issues.attr(name, ShapeErrorKind::AxisOutOfRange { name, axis, rank: r });
                }
                n
            }
            // The rank is unknown because an input layer failed: the axis
            // may well be fine.
            None if axis < 0 && !data.tainted => {
                issues.attr(name, ShapeErrorKind::NegativeAxisUnknownRank { name, axis });
                None
            }
            None => None,
        }
    };
    let batch = normalize("batch_axis", batch_axis);
    let seq = normalize("seq_axis", seq_axis);

    let lengths_shape = &lengths.fact.shape;
    let mut lengths_ok = true;
    if lengths_shape.rank().is_some_and(|r| r != 1) {
        issues.layer(ShapeErrorKind::LengthsNotVector { shape: lengths_shape.clone() });
        lengths_ok = false;
    }
    let ty = lengths.fact.element_type;
    if ty.is_static() && !(ty.is_integral() || ty.is_real()) {
        issues.layer(ShapeErrorKind::LengthsType { found: ty });
        lengths_ok = false;
    }

    let mut out_shape = data_shape.clone();
    if let (Some(dims), Some(b), Some([count])) = (data_shape.dims(), batch, lengths_shape.dims()) {
        if let Some(&batch_dim) = dims.get(b) {
            match batch_dim.merge(*count) {
                Some(merged) => {
                    let mut dims = dims.to_vec();
                    if let Some(d) = dims.get_mut(b) {
                        *d = merged;
                    }
                    out_shape = PartialShape::new(dims);
                }
                None => issues.layer(ShapeErrorKind::LengthsCount {
                    lengths: *count,
                    batch: batch_dim,
                    batch_axis: b,
                }),
            }
        }
    }

    // OpenVINO checks the length values only when the model runs; for
    // constant lengths the same check is worth doing now.
    let seq_len = seq.and_then(|s| data_shape.dims()?.get(s)?.get()).and_then(|n| usize::try_from(n).ok());
    if let (true, Some(value), Some(seq_len)) = (lengths_ok, &lengths.fact.value, seq_len) {
        match sequence_lengths(value, seq_len) {
            Ok(_) | Err(ShapeErrorKind::UnreadableValues { .. }) => {}
            Err(kind) => issues.layer(kind),
        }
    }

    let (Some(batch_axis), Some(seq_axis)) = (batch_axis, seq_axis) else {
        return Err(issues.0);
    };
    let fact = PortFact::of(data.fact.element_type, out_shape);
    issues.finish((Op::ReverseSequence { batch_axis, seq_axis }, vec![fact]))
}
