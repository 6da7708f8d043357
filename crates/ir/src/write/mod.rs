//! Writing a [`Model`] as IR v11: the `.xml` and the `.bin`, laid out as
//! OpenVINO's own serializer lays them out.
//!
//! - Layers are written in [`Model::order`] (producers first), numbered
//!   from 0; each layer's ports are numbered from 0, the inputs first, then
//!   the outputs; edges come from [`Model::sources`], sorted by producer.
//! - Every port gets its `precision` (when the model knows it), its tensor
//!   `names` and a `<dim>` per dimension; a dimension that is not static is
//!   written `-1`, as OpenVINO writes it (intervals live in the
//!   `Parameter`'s `shape` attribute, and inference finds them again).
//! - A `Const` gets `element_type`, `shape`, `offset` and `size` from its
//!   value. Values go to the `.bin` in layer order, each distinct byte
//!   string once; sub-byte types in their packed bytes, strings in
//!   OpenVINO's packed string layout, and an empty value as one zero byte.
//! - A `Result` gets the `output_names` of the tensor it reads.
//! - Every other `<data>` attribute and every `<rt_info>` is written as the
//!   model holds it.
//!
//! The same model always writes the same bytes, and a file OpenVINO wrote
//! reads and writes back to the same bytes.

use std::fmt::Write as _;
use std::io::{BufWriter, Write};
use std::path::Path;

use ovir_tensor::{ElementType, PartialShape};

use std::sync::Arc;

use crate::diagnostic::{Diagnostic, IrErrorKind, ReadError};
use crate::layer_ref::LayerRef;
use crate::model::{Layer, LayerIdx, Model, Port, RtInfo, RtNode};
use crate::source::SourceFile;

mod weights;
mod xml;

use weights::{PutError, WeightsWriter};
use xml::Element;

/// Why a model could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// Writing a file or a writer failed.
    #[error("cannot write {what}: {source}")]
    Io {
        /// The file (`the XML`, `the weights`, or a path).
        what: String,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The model's references do not hold together (see
    /// [`Model::check_references`]).
    #[error("the model cannot be written, its graph does not hold together:\n{0}")]
    Broken(Box<ReadError>),
    /// A name, attribute or rt_info value holds a NUL character, which no
    /// XML file can hold.
    #[error("the model cannot be written as XML: a name, attribute or rt_info value holds a NUL character")]
    Nul,
    /// The XML path ends in `.bin`, the name its weights would take.
    #[error("`{0}` would be both the XML and its weights: give a path ending in .xml")]
    SamePath(std::path::PathBuf),
    /// A `string` value too large for OpenVINO's 32-bit string offsets.
    #[error("{layer} holds {bytes} bytes of strings; OpenVINO's string layout holds at most 2147483647")]
    StringsTooLarge {
        /// The layer.
        layer: LayerRef,
        /// The bytes its strings take.
        bytes: u64,
    },
}

impl Model {
    /// Writes the model as IR v11: the XML to `xml_path`, and the weights
    /// beside it with the extension `.bin` (empty when there are no
    /// constants), as `ov.save_model` does.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # let xml = r#"<net name="m" version="11"><layers>
    /// #   <layer id="0" name="x" type="Parameter" version="opset1"><data shape="2" element_type="f32"/>
    /// #     <output><port id="0" precision="FP32" names="x"><dim>2</dim></port></output></layer>
    /// #   <layer id="1" name="y" type="Result" version="opset1"><input><port id="0"><dim>2</dim></port></input></layer>
    /// # </layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>"#;
    /// let model = ovir_ir::read_model_from_memory(xml, None)?;
    /// let dir = std::env::temp_dir().join(format!("ovir-save-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// model.save(dir.join("copy.xml"))?;
    /// let copy = ovir_ir::read_model(&dir.join("copy.xml"), None)?;
    /// assert_eq!(copy.layers.len(), 2);
    /// assert!(dir.join("copy.bin").is_file());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn save(&self, xml_path: impl AsRef<Path>) -> Result<(), WriteError> {
        let xml_path = xml_path.as_ref();
        let bin_path = xml_path.with_extension("bin");
        if bin_path == xml_path {
            return Err(WriteError::SamePath(xml_path.to_path_buf()));
        }
        let io = |path: &Path| {
            let what = format!("`{}`", path.display());
            move |source| WriteError::Io { what, source }
        };
        // A folder in either place could not be replaced: refused before
        // anything is written, so that neither file is replaced alone.
        for path in [xml_path, bin_path.as_path()] {
            if path.is_dir() {
                let folder = std::io::Error::new(std::io::ErrorKind::IsADirectory, "it is a folder");
                return Err(io(path)(folder));
            }
        }
        // Missing parent folders are made, as `ov.save_model` makes them.
        let dir = xml_path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| {
            let why = format!("cannot make its folder `{}`: {e}", dir.display());
            io(xml_path)(std::io::Error::new(e.kind(), why))
        })?;
        // Both files are written beside their targets under temporary
        // names and renamed into place only once both are complete, so a
        // failure leaves the folder as it was. A temporary file that
        // cannot be made is reported as the XML asked for, with the
        // system's own message: the temporary name means nothing to the
        // caller.
        let temp = || {
            let mut builder = tempfile::Builder::new();
            builder.prefix(".ovir-save-").suffix(".tmp");
            builder
                .make_in(dir, |path| {
                    let mut options = std::fs::OpenOptions::new();
                    options.read(true).write(true).create_new(true);
                    // The model gets the permissions any newly created
                    // file would (0666 less the umask).
                    #[cfg(unix)]
                    {
                        use std::os::unix::fs::OpenOptionsExt;
                        options.mode(0o666);
                    }
                    options.open(path)
                })
                .map_err(io(xml_path))
        };
        let mut bin = BufWriter::new(temp()?);
        let text = self.write_weights(&mut bin).map_err(|e| with_path(e, &bin_path))?;
        let bin = bin.into_inner().map_err(|e| io(&bin_path)(e.into_error()))?;
        let mut xml = temp()?;
        xml.write_all(text.as_bytes()).map_err(io(xml_path))?;
        bin.persist(&bin_path).map_err(|e| io(&bin_path)(e.error))?;
        xml.persist(xml_path).map_err(|e| io(xml_path)(e.error))?;
        Ok(())
    }

    /// Writes the model as IR v11 to two writers: the XML to `xml`, the
    /// weights to `weights`. The bytes are those [`Model::save`] writes.
    pub fn write_to(&self, xml: impl Write, weights: impl Write) -> Result<(), WriteError> {
        let mut xml = xml;
        let text = self.write_weights(weights)?;
        xml.write_all(text.as_bytes())
            .and_then(|()| xml.flush())
            .map_err(|source| WriteError::Io { what: "the XML".to_string(), source })
    }

    /// Writes the weights and returns the XML text that refers to them.
    fn write_weights(&self, weights: impl Write) -> Result<String, WriteError> {
        self.check_references().map_err(|e| WriteError::Broken(Box::new(e)))?;
        let mut bin = WeightsWriter::new(weights);
        // The id each layer is written with: its place in the order.
        let mut new_id = vec![0u64; self.layers.len()];
        for (i, idx) in self.order.iter().enumerate() {
            new_id[idx.0] = i as u64;
        }
        let mut layers = Element::new("layers");
        for (i, &idx) in self.order.iter().enumerate() {
            layers.children.push(self.layer_element(idx, i as u64, &mut bin)?);
        }
        bin.finish().map_err(|source| WriteError::Io { what: "the weights".to_string(), source })?;

        let mut edges: Vec<[u64; 4]> = Vec::new();
        for &idx in &self.order {
            for (input, src) in self.sources[idx.0].iter().enumerate() {
                let producer = self.layer(src.layer);
                let from_port = (producer.inputs.len() + src.port) as u64;
                edges.push([new_id[src.layer.0], from_port, new_id[idx.0], input as u64]);
            }
        }
        edges.sort_by_key(|&[from_layer, from_port, to_layer, to_port]| {
            (from_layer, to_layer, to_port, from_port)
        });
        let mut edge_list = Element::new("edges");
        edge_list.children = edges
            .iter()
            .map(|e| {
                Element::new("edge")
                    .attr("from-layer", e[0].to_string())
                    .attr("from-port", e[1].to_string())
                    .attr("to-layer", e[2].to_string())
                    .attr("to-port", e[3].to_string())
            })
            .collect();

        let mut net = Element::new("net").attr("name", self.name.as_str()).attr("version", "11");
        net.children.push(layers);
        net.children.push(edge_list);
        net.children.extend(rt_info(&self.rt_info));
        let text = xml::document(&net);
        // The escaper writes a NUL as a character reference, which XML
        // forbids too: refused here, so nothing unreadable is written.
        if text.contains("&#00;") {
            return Err(WriteError::Nul);
        }
        Ok(text)
    }

    fn layer_element<'m, W: Write>(
        &'m self,
        idx: LayerIdx,
        id: u64,
        bin: &mut WeightsWriter<'m, W>,
    ) -> Result<Element, WriteError> {
        let layer = self.layer(idx);
        let mut e = Element::new("layer")
            .attr("id", id.to_string())
            .attr("name", layer.name.as_str())
            .attr("type", layer.op_type.as_str())
            .attr("version", layer.version.as_str());
        if layer.is("Result") {
            if let Some(src) = self.sources[idx.0].first() {
                // The Result's own names when it has them, else those of
                // the tensor it reads, as OpenVINO writes them.
                let names = match &layer.output_names {
                    Some(own) => Some(own.as_slice()),
                    None => self.layer(src.layer).outputs.get(src.port).map(|p| p.names.as_slice()),
                };
                if let Some(names) = names.filter(|n| !n.is_empty()) {
                    e = e.attr("output_names", join_names(names));
                }
            }
        }
        let mut data = Element::new("data");
        if layer.is_const() {
            data.attrs = const_attrs(layer, bin)?;
        } else {
            data.attrs = layer.attrs.0.iter().map(|a| (a.name.clone(), a.value.clone())).collect();
        }
        if !data.attrs.is_empty() {
            e.children.push(data);
        }
        e.children.extend(rt_info(&layer.rt_info));
        let ports = |tag: &str, ports: &[Port], first_id: usize| {
            let mut list = Element::new(tag);
            list.children = ports.iter().enumerate().map(|(i, p)| port_element(p, first_id + i)).collect();
            list
        };
        if !layer.inputs.is_empty() {
            e.children.push(ports("input", &layer.inputs, 0));
        }
        if !layer.outputs.is_empty() {
            e.children.push(ports("output", &layer.outputs, layer.inputs.len()));
        }
        Ok(e)
    }
}

fn with_path(e: WriteError, path: &Path) -> WriteError {
    match e {
        WriteError::Io { source, .. } => WriteError::Io { what: format!("`{}`", path.display()), source },
        other => other,
    }
}

/// A `Const`'s `<data>`: what its value says, then any other attribute the
/// layer has.
fn const_attrs<'m, W: Write>(
    layer: &'m Layer,
    bin: &mut WeightsWriter<'m, W>,
) -> Result<Vec<(String, String)>, WriteError> {
    let Some(value) = layer.constant.as_ref() else {
        // `check_references` refuses such a model before anything is written.
        let d =
            Diagnostic::at(IrErrorKind::ConstWithoutValue, layer.span).with_layer(Some(layer.layer_ref()));
        let source = Arc::new(SourceFile { path: None, text: String::new() });
        return Err(WriteError::Broken(Box::new(ReadError::new(source, vec![d], 0))));
    };
    let place = bin.put(value).map_err(|e| match e {
        PutError::Io(source) => WriteError::Io { what: "the weights".to_string(), source },
        PutError::StringsTooLarge(bytes) => WriteError::StringsTooLarge { layer: layer.layer_ref(), bytes },
    })?;
    let shape: Vec<String> = value.shape().iter().map(usize::to_string).collect();
    let mut attrs = vec![
        ("element_type".to_string(), value.element_type().ir_name().to_string()),
        ("shape".to_string(), shape.join(", ")),
        ("offset".to_string(), place.offset.to_string()),
        ("size".to_string(), place.size.to_string()),
    ];
    let own = ["element_type", "shape", "offset", "size"];
    attrs.extend(
        layer
            .attrs
            .0
            .iter()
            .filter(|a| !own.contains(&a.name.as_str()))
            .map(|a| (a.name.clone(), a.value.clone())),
    );
    Ok(attrs)
}

fn port_element(port: &Port, id: usize) -> Element {
    let mut e = Element::new("port").attr("id", id.to_string());
    if let Some(ty) = port.precision {
        e = e.attr("precision", precision_name(ty));
    }
    if !port.names.is_empty() {
        e = e.attr("names", join_names(&port.names));
    }
    e.children.extend(port.shape.dims().unwrap_or(&[]).iter().map(|d| {
        let text = d.get().map_or_else(|| "-1".to_string(), |n| n.to_string());
        Element::text("dim", text)
    }));
    e.children.extend(rt_info(&port.rt_info));
    e
}

/// A port's shape as the writer writes it: every dimension that is not
/// static becomes `?`, since `<dim>` holds `-1` for all of them.
pub fn written_port_shape(shape: &PartialShape) -> PartialShape {
    match shape.dims() {
        None => PartialShape::dynamic(),
        Some(dims) => PartialShape::new(
            dims.iter().map(|d| if d.is_static() { *d } else { ovir_tensor::Dim::DYNAMIC }).collect(),
        ),
    }
}

/// The `precision` OpenVINO writes for a type.
pub fn precision_name(ty: ElementType) -> String {
    match ty {
        ElementType::Dynamic => "UNSPECIFIED".to_string(),
        ElementType::Boolean => "BOOL".to_string(),
        ElementType::U1 => "BIN".to_string(),
        ElementType::F16 => "FP16".to_string(),
        ElementType::F32 => "FP32".to_string(),
        ElementType::F64 => "FP64".to_string(),
        other => other.ir_name().to_ascii_uppercase(),
    }
}

/// Tensor names joined as OpenVINO joins them: by commas, with a comma in a
/// name written `\,` (what [`split_names`](crate::split_names) undoes).
fn join_names(names: &[String]) -> String {
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{}", name.replace(',', "\\,"));
    }
    out
}

fn rt_info(info: &RtInfo) -> Option<Element> {
    (!info.0.is_empty()).then(|| {
        let mut e = Element::new("rt_info");
        e.children = info.0.iter().map(rt_node).collect();
        e
    })
}

fn rt_node(node: &RtNode) -> Element {
    Element {
        tag: node.tag.clone(),
        attrs: node.attrs.clone(),
        children: node.children.iter().map(rt_node).collect(),
        text: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split_names;

    #[test]
    fn names_join_as_they_split() {
        let names: Vec<String> = ["a,b", "c", " d "].iter().map(|s| s.to_string()).collect();
        assert_eq!(join_names(&names), r"a\,b,c, d ");
        assert_eq!(split_names(&join_names(&names)), names);
    }

    #[test]
    fn precisions_read_back_as_their_types() {
        for ty in ovir_tensor::ALL_ELEMENT_TYPES {
            assert_eq!(ElementType::from_precision(&precision_name(ty)), Some(ty), "{ty}");
        }
    }
}
