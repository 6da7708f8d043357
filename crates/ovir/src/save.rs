//! Saving a model as IR v11.

use std::io::Write;
use std::path::Path;

use ovir_ir::WriteError;

use crate::model::Model;

impl Model {
    /// Writes the model as IR v11: the XML to `xml_path` and the weights
    /// beside it with the extension `.bin`, laid out as OpenVINO's
    /// `save_model` lays them out (see [`ovir_ir::Model::save`]), making
    /// any missing parent folder. A port that declares no `precision` gets
    /// the element type inference found, so every port of the file has
    /// one. An IR v10 model is written as v11, and the tensor feeding each
    /// `Result` gets its producer's layer name, by which v10 knows an
    /// output, so that every output keeps the names it answers to.
    ///
    /// Its error converts into [`Error`](crate::Error) with `?`, and names
    /// the XML path asked for.
    ///
    /// ```
    /// use std::path::Path;
    ///
    /// fn copy(from: &Path, to: &Path) -> Result<(), ovir::Error> {
    ///     let model = ovir::Model::read(from)?;
    ///     model.save(to)?;
    ///     Ok(())
    /// }
    ///
    /// # let dir = std::env::temp_dir().join(format!("ovir-model-save-{}", std::process::id()));
    /// let copied = dir.join("made/on/demand/copy.xml");
    /// copy(Path::new("../../ir-samples/chain_convert_reverse/model.xml"), &copied)?;
    /// assert!(copied.with_extension("bin").is_file());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn save(&self, xml_path: impl AsRef<Path>) -> Result<(), WriteError> {
        self.to_write().save(xml_path)
    }

    /// Writes the model as IR v11 to two writers, the XML and the weights:
    /// the bytes [`Model::save`] writes.
    pub fn write_to(&self, xml: impl Write, weights: impl Write) -> Result<(), WriteError> {
        self.to_write().write_to(xml, weights)
    }

    /// The graph with a precision on every port, and the names v10 gives
    /// outputs implicitly written out.
    fn to_write(&self) -> ovir_ir::Model {
        let mut ir = self.ir().clone();
        if ir.version == 10 {
            let results: Vec<_> = ir.results().collect();
            for result in results {
                let Some(&src) = ir.sources.get(result.0).and_then(|s| s.first()) else { continue };
                let Some(producer) = ir.layers.get_mut(src.layer.0) else { continue };
                let name = producer.name.clone();
                if let Some(port) = producer.outputs.get_mut(src.port) {
                    if !name.is_empty() && !port.names.contains(&name) {
                        port.names.push(name);
                    }
                }
            }
        }
        self.fill_ports(&mut ir, false);
        ir
    }

    /// Gives the ports of `ir`, this model's graph or a copy of it, the
    /// element types (and, with `shapes`, the shapes) inference found:
    /// only where a port declares no precision, or, with `shapes`,
    /// everywhere.
    pub(crate) fn fill_ports(&self, ir: &mut ovir_ir::Model, shapes: bool) {
        let facts = &self.info().outputs;
        let fact = |at: Option<&ovir_ir::OutputRef>| at.and_then(|s| facts.get(s.layer.0)?.get(s.port));
        let sources = ir.sources.clone();
        for (l, layer) in ir.layers.iter_mut().enumerate() {
            let outputs = layer
                .outputs
                .iter_mut()
                .enumerate()
                .map(|(p, port)| (port, facts.get(l).and_then(|f| f.get(p))));
            let inputs = layer
                .inputs
                .iter_mut()
                .enumerate()
                .map(|(i, port)| (port, fact(sources.get(l).and_then(|s| s.get(i)))));
            for (port, fact) in outputs.chain(inputs) {
                let Some(fact) = fact else { continue };
                if shapes || port.precision.is_none() {
                    port.precision = Some(fact.element_type);
                }
                if shapes {
                    port.shape = fact.shape.clone();
                }
            }
        }
    }
}
