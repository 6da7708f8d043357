//! Reading a layer's `<data>` attributes, with a problem recorded for each
//! one that is missing or unreadable.

use ovir_ir::Layer;
use ovir_tensor::ElementType;

use crate::error::ShapeErrorKind;
use crate::operation::Problems;

/// The value of a required attribute, or `None` after recording its
/// absence.
pub(crate) fn required<'a>(
    layer: &'a Layer,
    op: &'static str,
    name: &'static str,
    problems: &mut Problems,
) -> Option<&'a str> {
    let value = layer.attrs.value(name);
    if value.is_none() {
        problems.layer(ShapeErrorKind::MissingAttribute { op, name });
    }
    value
}

/// An attribute of one integer per spatial axis, `rows,cols`, each at
/// least `min` (ExtractImagePatches' `sizes`, Col2Im's `strides`):
/// `default` when the layer does not have it, or a problem when it has no
/// default.
pub(crate) fn pair(
    layer: &Layer,
    op: &'static str,
    name: &'static str,
    min: i64,
    default: Option<[u64; 2]>,
    problems: &mut Problems,
) -> Option<[u64; 2]> {
    let value = match (layer.attrs.value(name), default) {
        (Some(value), _) => value,
        (None, Some(default)) => return Some(default),
        (None, None) => {
            problems.layer(ShapeErrorKind::MissingAttribute { op, name });
            return None;
        }
    };
    let values: Option<Vec<i64>> = value.split(',').map(|v| v.trim().parse().ok()).collect();
    match values.as_deref() {
        Some(&[a, b]) if a >= min && b >= min => Some([a as u64, b as u64]),
        Some(&[a, b]) => {
            let value = if a < min { a } else { b };
            problems.attr(name, ShapeErrorKind::PairValue { op, name, value, min });
            None
        }
        _ => {
            problems.attr(name, ShapeErrorKind::PairAttribute { op, name, value: value.to_string() });
            None
        }
    }
}

/// A required element type attribute.
pub(crate) fn element_type(
    layer: &Layer,
    op: &'static str,
    name: &'static str,
    problems: &mut Problems,
) -> Option<ElementType> {
    let value = required(layer, op, name, problems)?;
    let ty = ElementType::from_ir_name(value);
    if ty.is_none() {
        problems.attr(name, ShapeErrorKind::InvalidElementType { name, value: value.to_string() });
    }
    ty
}

/// An optional integer attribute with a default.
pub(crate) fn int_or(
    layer: &Layer,
    name: &'static str,
    default: i64,
    problems: &mut Problems,
) -> Option<i64> {
    match layer.attrs.value(name) {
        None => Some(default),
        Some(value) => int_value(name, value, problems),
    }
}

/// A required integer attribute.
pub(crate) fn int(
    layer: &Layer,
    op: &'static str,
    name: &'static str,
    problems: &mut Problems,
) -> Option<i64> {
    int_value(name, required(layer, op, name, problems)?, problems)
}

fn int_value(name: &'static str, value: &str, problems: &mut Problems) -> Option<i64> {
    let parsed = value.trim().parse::<i64>().ok();
    if parsed.is_none() {
        problems.attr(name, ShapeErrorKind::InvalidInteger { name, value: value.to_string() });
    }
    parsed
}

/// A required boolean attribute: `true` or `false` (any ASCII case), or
/// `1` or `0`, as OpenVINO's reader accepts.
pub(crate) fn boolean(
    layer: &Layer,
    op: &'static str,
    name: &'static str,
    problems: &mut Problems,
) -> Option<bool> {
    boolean_value(name, required(layer, op, name, problems)?, problems)
}

/// An optional boolean attribute with a default, read as [`boolean`].
pub(crate) fn boolean_or(
    layer: &Layer,
    name: &'static str,
    default: bool,
    problems: &mut Problems,
) -> Option<bool> {
    match layer.attrs.value(name) {
        None => Some(default),
        Some(value) => boolean_value(name, value, problems),
    }
}

fn boolean_value(name: &'static str, value: &str, problems: &mut Problems) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => {
            problems.attr(name, ShapeErrorKind::InvalidBoolean { name, value: value.to_string() });
            None
        }
    }
}
