//! Loading the values of `Const` layers from the weights.
//!
//! Every length in the XML or in the weights is checked against the real
//! size of the weights before it is used, and nothing is allocated from a
//! length that has not been checked.

use std::path::PathBuf;
use std::sync::Arc;

use ovir_tensor::{ElementType, PartialShape, Tensor};

use crate::diagnostic::{Diagnostic, IrErrorKind};
use crate::mmap::WeightsAccess;
use crate::model::{Attribute, Layer};
use crate::source::Span;
use crate::weights::Weights;

/// Where the weights come from, opened only when a `Const` needs bytes.
pub(crate) enum WeightsSource {
    /// Given by the caller (or none given).
    Given(Option<Arc<Weights>>),
    /// A file that is opened on first use, as the access says.
    File(PathBuf, WeightsAccess),
    /// Opened, or failed to open (the failure is reported once per `Const`
    /// that needs it).
    Ready(Result<Arc<Weights>, IrErrorKind>),
    /// A failure already reported elsewhere.
    Failed,
}

impl WeightsSource {
    fn get(&mut self) -> Result<Arc<Weights>, Option<IrErrorKind>> {
        if let WeightsSource::File(path, access) = self {
            let opened = match access.open(path) {
                Ok(w) => Ok(Arc::new(w)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    Err(IrErrorKind::MissingWeights { path: Some(path.clone()) })
                }
                Err(e) => Err(IrErrorKind::Io { path: path.display().to_string(), message: e.to_string() }),
            };
            *self = WeightsSource::Ready(opened);
        }
        match self {
            WeightsSource::Given(Some(w)) => Ok(Arc::clone(w)),
            WeightsSource::Given(None) => Err(Some(IrErrorKind::MissingWeights { path: None })),
            WeightsSource::Ready(Ok(w)) => Ok(Arc::clone(w)),
            WeightsSource::Ready(Err(kind)) => Err(Some(kind.clone())),
            WeightsSource::File(..) | WeightsSource::Failed => Err(None),
        }
    }
}

/// A problem with one `Const`, or `None` when it was already reported
/// (boxed: it is rare, and results stay small).
type Problem = Option<Box<Diagnostic>>;

fn problem(kind: IrErrorKind, span: Span) -> Problem {
    Some(Box::new(Diagnostic::at(kind, span)))
}

/// Loads every `Const` layer's value into [`Layer::constant`].
pub(crate) fn load_constants(layers: &mut [Layer], weights: &mut WeightsSource, diags: &mut Vec<Diagnostic>) {
    for layer in layers.iter_mut().filter(|l| l.is_const()) {
        match load(layer, weights) {
            Ok(t) => layer.constant = Some(t),
            Err(Some(d)) => {
                let d = *d;
                let span = d.span.unwrap_or(layer.span);
                diags.push(Diagnostic { kind: d.kind, span: Some(span), layer: Some(layer.layer_ref()) });
            }
            Err(None) => {}
        }
    }
}

/// `Err(None)` when the problem was already reported.
fn load(layer: &Layer, weights: &mut WeightsSource) -> Result<Tensor, Problem> {
    let required = |name: &'static str| -> Result<&Attribute, Problem> {
        layer.attrs.get(name).ok_or_else(|| {
            let kind = IrErrorKind::MissingAttribute { element: "data", attribute: name };
            problem(kind, layer.span)
        })
    };
    let at = |kind, a: &Attribute| problem(kind, a.span);

    let ty_attr = required("element_type")?;
    let ty = ElementType::from_ir_name(&ty_attr.value).ok_or_else(|| {
        let kind = IrErrorKind::UnknownElementType {
            attribute: "element_type".to_string(),
            value: ty_attr.value.clone(),
        };
        at(kind, ty_attr)
    })?;
    if ty == ElementType::Dynamic {
        return Err(at(IrErrorKind::ConstDynamicType, ty_attr));
    }

    let shape_attr = required("shape")?;
    let partial: PartialShape = shape_attr.value.parse().map_err(|source| {
        at(IrErrorKind::BadShape { attribute: "shape".to_string(), reason: source }, shape_attr)
    })?;
    let shape = partial
        .to_static()
        .ok_or_else(|| at(IrErrorKind::ConstShapeNotStatic { shape: partial.to_string() }, shape_attr))?;

    let offset = number(required("offset")?)?;
    let size_attr = required("size")?;
    let size = number(size_attr)?;

    let too_large = || {
        let needed = ovir_tensor::ByteCount(ovir_tensor::memory_bytes(ty, &shape));
        at(IrErrorKind::ConstTooLarge { ty: ty.to_string(), shape: shape.clone(), needed }, shape_attr)
    };
    let needed = Tensor::required_bytes(ty, &shape).map_err(|_| too_large())?;

    // OpenVINO writes an empty Const without any bytes, and may write no
    // weights file at all for a model whose only Consts are empty.
    if size == 0 && needed.unwrap_or(0) == 0 {
        let empty = match ty {
            ElementType::String => Tensor::from_strings(&shape, Vec::new()),
            _ => Tensor::zeros(ty, &shape),
        };
        if let Ok(t) = empty {
            return Ok(t);
        }
    }

    let weights = weights.get().map_err(|kind| kind.map(|k| Box::new(Diagnostic::at(k, layer.span))))?;
    let file_len = weights.len();
    let out_of_bounds = || {
        let kind = IrErrorKind::ConstOutOfBounds { offset, size, file_len: file_len as u64 };
        problem(kind, layer.span)
    };
    let end = offset.checked_add(size).ok_or_else(out_of_bounds)?;
    let start = usize::try_from(offset).map_err(|_| out_of_bounds())?;
    let end = usize::try_from(end).map_err(|_| out_of_bounds())?;
    let bytes = (*weights).as_ref().get(start..end).ok_or_else(out_of_bounds)?;

    match needed {
        Some(needed) => {
            if bytes.len() < needed {
                let kind = IrErrorKind::ConstSizeTooSmall { size, needed: needed as u64 };
                return Err(at(kind, size_attr));
            }
            let owner: Arc<dyn AsRef<[u8]> + Send + Sync> = weights;
            // A larger size is tolerated: only the prefix the shape needs is
            // the value.
            Tensor::from_shared(ty, &shape, owner, start..start + needed).map_err(|_| too_large())
        }
        None => {
            let count = ovir_tensor::element_count(&shape).ok_or_else(too_large)?;
            let strings = decode_strings(bytes, count)
                .map_err(|reason| problem(IrErrorKind::BadStringConst { reason }, layer.span))?;
            Tensor::from_strings(&shape, strings).map_err(|_| too_large())
        }
    }
}

fn number(a: &Attribute) -> Result<u64, Problem> {
    match crate::parse::parse_u64(&a.value) {
        Some(n) => Ok(n),
        None => {
            let kind = IrErrorKind::InvalidNumber {
                element: "data",
                attribute: a.name.clone(),
                value: a.value.clone(),
                expected: "an unsigned integer",
            };
            Err(problem(kind, a.span))
        }
    }
}

fn read_i32(bytes: &[u8], index: usize) -> Option<i32> {
    let start = index.checked_mul(4)?;
    let raw: [u8; 4] = bytes.get(start..start.checked_add(4)?)?.try_into().ok()?;
    Some(i32::from_le_bytes(raw))
}

/// Decodes OpenVINO's packed strings: an i32 little-endian header
/// `[count, 0, end_1, …, end_count]` whose offsets count from the end of the
/// header, then the strings' UTF-8 bytes.
pub(crate) fn decode_strings(bytes: &[u8], expected: usize) -> Result<Vec<String>, String> {
    let count = read_i32(bytes, 0)
        .ok_or_else(|| format!("{} bytes cannot hold the 4-byte string count", bytes.len()))?;
    let count = usize::try_from(count).map_err(|_| format!("the string count is negative ({count})"))?;
    if count != expected {
        return Err(format!("the header holds {count} strings, but the shape has {expected} elements"));
    }
    // count + 1 offsets follow the count.
    let header_len =
        count.checked_add(2).and_then(|n| n.checked_mul(4)).filter(|&n| n <= bytes.len()).ok_or_else(
            || format!("the header of {count} strings runs past the {} bytes of the Const", bytes.len()),
        )?;
    let data = bytes.get(header_len..).unwrap_or(&[]);
    let mut strings = Vec::with_capacity(count);
    let mut begin = read_offset(bytes, 1, data.len())?;
    for i in 0..count {
        let end = read_offset(bytes, i + 2, data.len())?;
        if end < begin {
            return Err(format!("string {i} ends at offset {end}, before it begins at {begin}"));
        }
        let raw = data.get(begin..end).unwrap_or(&[]);
        let s = std::str::from_utf8(raw).map_err(|e| format!("string {i} is not valid UTF-8: {e}"))?;
        strings.push(s.to_string());
        begin = end;
    }
    Ok(strings)
}

fn read_offset(bytes: &[u8], index: usize, data_len: usize) -> Result<usize, String> {
    let raw = read_i32(bytes, index).ok_or_else(|| format!("the header's offset {index} is missing"))?;
    let off = usize::try_from(raw).map_err(|_| format!("a string offset is negative ({raw})"))?;
    if off > data_len {
        return Err(format!("a string offset ({off}) is past the {data_len} bytes of string data"));
    }
    Ok(off)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack(header: &[i32], data: &[u8]) -> Vec<u8> {
        let mut out: Vec<u8> = header.iter().flat_map(|v| v.to_le_bytes()).collect();
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn decodes_packed_strings() {
        let bytes = pack(&[3, 0, 2, 2, 7], b"hi\xc3\xa9t\xc3\xa9");
        assert_eq!(decode_strings(&bytes, 3).unwrap(), vec!["hi", "", "\u{e9}t\u{e9}"]);
    }

    #[test]
    fn bad_headers_are_refused() {
        let cases: Vec<(Vec<u8>, usize, &str)> = vec![
            (vec![1, 0], 1, "cannot hold"),
            (pack(&[-1], b""), 1, "negative"),
            (pack(&[2, 0, 1, 2], b"ab"), 1, "shape has 1"),
            (pack(&[3, 0, 1], b""), 3, "runs past"),
            (pack(&[2, 0, 3, 1], b"abc"), 2, "before it begins"),
            (pack(&[1, 0, 9], b"abc"), 1, "past the 3 bytes"),
            (pack(&[1, -4, 1], b"abc"), 1, "negative"),
            (pack(&[1, 0, 2], b"\xff\xfe"), 1, "UTF-8"),
            (pack(&[i32::MAX], b""), i32::MAX as usize, "runs past"),
        ];
        for (bytes, expected, needle) in cases {
            let err = decode_strings(&bytes, expected).unwrap_err();
            assert!(err.contains(needle), "{err:?} should mention {needle:?}");
        }
    }
}
