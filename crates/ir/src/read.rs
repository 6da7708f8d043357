//! The entry points: from files or memory to a checked [`Model`].

use std::path::Path;
use std::sync::Arc;

use crate::constant::{load_constants, WeightsSource};
use crate::diagnostic::{Diagnostic, IrErrorKind, ReadError};
use crate::graph::link;
use crate::mmap::WeightsAccess;
use crate::model::Model;
use crate::parse::parse;
use crate::sniff;
use crate::source::{SourceFile, Span};
use crate::weights::Weights;

/// Reads an IR model from its `.xml` file and its weights.
///
/// The weights are `weights_path` when given (the file must then exist),
/// otherwise the XML path with the extension `.bin`; that default file may
/// be absent when no `Const` needs bytes. The weights are read into memory,
/// and `Const` values borrow from those bytes; [`read_model_with`] can map
/// the file instead.
pub fn read_model(xml_path: &Path, weights_path: Option<&Path>) -> Result<Model, ReadError> {
    read_model_with(xml_path, weights_path, WeightsAccess::read())
}

/// [`read_model`], with the weights file read into memory or memory-mapped
/// as `access` says (mapping is an `unsafe` opt-in: see
/// [`WeightsAccess::map`]).
pub fn read_model_with(
    xml_path: &Path,
    weights_path: Option<&Path>,
    access: WeightsAccess,
) -> Result<Model, ReadError> {
    let refuse = |kind| {
        let source = SourceFile { path: Some(xml_path.to_path_buf()), text: String::new() };
        ReadError { source: Arc::new(source), diagnostics: vec![Diagnostic::new(kind)], omitted: 0 }
    };
    if xml_path.is_dir() {
        let inside = xml_path.join("model.xml");
        let hint = inside.is_file().then(|| format!("give {}", inside.display()));
        let path = xml_path.display().to_string();
        return Err(refuse(IrErrorKind::NotXml { path, what: "a folder".to_string(), hint }));
    }
    let bytes = std::fs::read(xml_path).map_err(|e| {
        refuse(IrErrorKind::Io { path: xml_path.display().to_string(), message: e.to_string() })
    })?;
    let source = decode(bytes, Some(xml_path))?;
    let mut early = Vec::new();
    let mut weights = match weights_path {
        Some(path) => match access.open(path) {
            Ok(w) => WeightsSource::Given(Some(Arc::new(w))),
            Err(e) => {
                let kind = IrErrorKind::Io { path: path.display().to_string(), message: e.to_string() };
                early.push(Diagnostic::new(kind));
                WeightsSource::Failed
            }
        },
        None => WeightsSource::File(xml_path.with_extension("bin"), access),
    };
    build(source, &mut weights, early)
}

/// Reads an IR model from XML text and optional weights in memory.
///
/// Without weights, only models whose `Const` layers are all empty can be
/// read.
pub fn read_model_from_memory(xml: &str, weights: Option<Arc<Weights>>) -> Result<Model, ReadError> {
    let text = xml.strip_prefix('\u{feff}').unwrap_or(xml);
    let source = SourceFile { path: None, text: text.to_string() };
    build(source, &mut WeightsSource::Given(weights), Vec::new())
}

/// Reads an IR model from raw XML bytes, which must be UTF-8 (a leading
/// byte-order mark is skipped).
pub fn read_model_from_bytes(xml: &[u8], weights: Option<Arc<Weights>>) -> Result<Model, ReadError> {
    let source = decode(xml.to_vec(), None)?;
    build(source, &mut WeightsSource::Given(weights), Vec::new())
}

fn decode(mut bytes: Vec<u8>, path: Option<&Path>) -> Result<SourceFile, ReadError> {
    if let Some((what, hint)) = sniff::not_xml(&bytes, path) {
        // Binary data shown as text would put control bytes on the
        // terminal, so the file is named and none of it is shown.
        let name = path.map_or_else(|| "the data".to_string(), |p| p.display().to_string());
        let source = SourceFile { path: path.map(Path::to_path_buf), text: String::new() };
        let hint = hint.map(str::to_string);
        let d = Diagnostic::new(IrErrorKind::NotXml { path: name, what: what.to_string(), hint });
        return Err(ReadError { source: Arc::new(source), diagnostics: vec![d], omitted: 0 });
    }
    if bytes.starts_with(b"\xef\xbb\xbf") {
        bytes.drain(..3);
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(SourceFile { path: path.map(Path::to_path_buf), text }),
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            // The text before the bad byte is intact, so the diagnostic's
            // position is right in the lossy copy.
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let source = SourceFile { path: path.map(Path::to_path_buf), text };
            let d = Diagnostic::at(IrErrorKind::NotUtf8 { offset }, Span { start: offset, end: offset + 1 });
            Err(ReadError { source: Arc::new(source), diagnostics: vec![d], omitted: 0 })
        }
    }
}

fn build(
    source: SourceFile,
    weights: &mut WeightsSource,
    mut diags: Vec<Diagnostic>,
) -> Result<Model, ReadError> {
    let source = Arc::new(source);
    let fail = |diagnostics: Vec<Diagnostic>| ReadError::new(Arc::clone(&source), diagnostics, 0);
    let parsed = match parse(&source.text, &mut diags) {
        Ok(p) => p,
        Err(fatal) => return Err(fail(vec![*fatal])),
    };
    let mut layers = parsed.layers;
    let links = link(&source.text, &layers, &parsed.edges, &mut diags);
    load_constants(&mut layers, weights, &mut diags);
    match links {
        Some(links) if diags.is_empty() => Ok(Model {
            name: parsed.name,
            version: parsed.version,
            layers,
            edges: parsed.edges,
            rt_info: parsed.rt_info,
            source: Arc::clone(&source),
            sources: links.sources,
            order: links.order,
        }),
        _ => Err(fail(diags)),
    }
}
