//! One pass over every reference a [`Model`] holds, so that the stages
//! after it can index the model without checking again.
//!
//! The reader only returns models that pass; the pass matters for models
//! built or changed in code, whose public fields can say anything.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, IrErrorKind, ReadError, MAX_REPORTED};
use crate::model::{Layer, Model, OutputRef};
use crate::source::{SourceFile, Span};

impl Model {
    /// Checks every reference in the model, so that [`Model::layer`],
    /// [`Model::source`] and every later stage can index it plainly:
    ///
    /// - layer ids are unique;
    /// - [`Model::sources`] holds one list per layer, and each list one
    ///   source per input port of its layer;
    /// - every source names an existing layer and one of its outputs;
    /// - [`Model::order`] lists every layer exactly once, and every layer
    ///   after the layers that feed it (so the graph has no cycle);
    /// - every `Const` layer has its value in [`Layer::constant`];
    /// - [`Model::edges`] describes the same connections as `sources`: one
    ///   edge per input, joining the same ports by their ids.
    ///
    /// Models from [`read_model`](crate::read_model) and the other readers
    /// always pass. Every public entry point of ovir that takes a `Model`
    /// (validating, analysing, compiling) runs this pass first, so a model
    /// built in code with a bad reference gets this error instead of a
    /// panic.
    ///
    /// The pass takes time linear in the size of the model and uses no
    /// recursion. The error names the layer concerned and keeps at most
    /// [`MAX_REPORTED`] problems, counting the rest.
    ///
    /// ```
    /// use ovir_ir::{read_model_from_memory, IrErrorKind, LayerIdx};
    ///
    /// let xml = r#"<net name="m" version="11"><layers>
    ///   <layer id="0" name="x" type="Parameter" version="opset1">
    ///     <data shape="2" element_type="f32"/>
    ///     <output><port id="0" precision="FP32"><dim>2</dim></port></output>
    ///   </layer>
    ///   <layer id="1" name="y" type="Result" version="opset1">
    ///     <input><port id="0"><dim>2</dim></port></input>
    ///   </layer>
    /// </layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>"#;
    /// let mut model = read_model_from_memory(xml, None)?;
    /// assert!(model.check_references().is_ok());
    ///
    /// model.order = vec![LayerIdx(1), LayerIdx(0)];
    /// let err = model.check_references().unwrap_err();
    /// assert!(matches!(err.diagnostics[0].kind, IrErrorKind::OrderNotTopological { input: 0, .. }));
    /// assert!(err.to_string().contains("[layer 1 \"y\" (Result)]"));
    /// # Ok::<(), ovir_ir::ReadError>(())
    /// ```
    pub fn check_references(&self) -> Result<(), ReadError> {
        let mut found = Problems::new(&self.source);
        let ids = self.check_ids(&mut found);
        self.check_sources(&mut found);
        self.check_order(&mut found);
        self.check_constants(&mut found);
        // Edges are compared with sources only when the sources themselves
        // hold together; otherwise every bad source would be reported twice.
        if found.is_empty() {
            self.check_edges(&ids, &mut found);
        }
        found.finish(&self.source)
    }

    /// Checks that layer ids are unique; returns the index of the first
    /// layer with each id.
    fn check_ids(&self, found: &mut Problems) -> HashMap<u64, usize> {
        let mut ids: HashMap<u64, usize> = HashMap::with_capacity(self.layers.len());
        for (i, layer) in self.layers.iter().enumerate() {
            match ids.entry(layer.id) {
                Entry::Vacant(v) => {
                    v.insert(i);
                }
                Entry::Occupied(o) => {
                    if let Some(first) = self.layers.get(*o.get()) {
                        let kind = IrErrorKind::LayerIdReused { id: layer.id, first: first.layer_ref() };
                        found.push(kind, Some(layer));
                    }
                }
            }
        }
        ids
    }

    fn check_sources(&self, found: &mut Problems) {
        let layers = self.layers.len();
        if self.sources.len() != layers {
            found.push(IrErrorKind::SourceListCount { layers, lists: self.sources.len() }, None);
        }
        for (layer, list) in self.layers.iter().zip(&self.sources) {
            if list.len() != layer.inputs.len() {
                let kind = IrErrorKind::SourceCount { inputs: layer.inputs.len(), sources: list.len() };
                found.push(kind, Some(layer));
            }
            for (input, src) in list.iter().enumerate() {
                let kind = match self.layers.get(src.layer.0) {
                    None => IrErrorKind::SourceLayerOutOfRange { input, index: src.layer.0, layers },
                    Some(producer) if src.port >= producer.outputs.len() => {
                        IrErrorKind::SourcePortOutOfRange {
                            input,
                            producer: producer.layer_ref(),
                            port: src.port,
                            outputs: producer.outputs.len(),
                        }
                    }
                    Some(_) => continue,
                };
                found.push(kind, Some(layer));
            }
        }
    }

    fn check_order(&self, found: &mut Problems) {
        let layers = self.layers.len();
        let mut position: Vec<Option<usize>> = vec![None; layers];
        for (at, idx) in self.order.iter().enumerate() {
            match position.get_mut(idx.0) {
                None => found.push(IrErrorKind::OrderOutOfRange { position: at, index: idx.0, layers }, None),
                Some(Some(first)) => {
                    let kind = IrErrorKind::OrderRepeats { first: *first, second: at };
                    found.push(kind, self.layers.get(idx.0));
                }
                Some(slot) => *slot = Some(at),
            }
        }
        for (layer, at) in self.layers.iter().zip(&position) {
            if at.is_none() {
                found.push(IrErrorKind::NotInOrder, Some(layer));
            }
        }
        for ((layer, list), at) in self.layers.iter().zip(&self.sources).zip(&position) {
            let Some(at) = *at else { continue };
            for (input, src) in list.iter().enumerate() {
                let Some(producer) = self.producer(*src) else { continue };
                let Some(Some(produced_at)) = position.get(src.layer.0) else { continue };
                if *produced_at >= at {
                    let kind = IrErrorKind::OrderNotTopological { input, producer: producer.layer_ref() };
                    found.push(kind, Some(layer));
                }
            }
        }
    }

    fn check_constants(&self, found: &mut Problems) {
        for layer in self.layers.iter().filter(|l| l.is_const() && l.constant.is_none()) {
            found.push(IrErrorKind::ConstWithoutValue, Some(layer));
        }
    }

    /// Checks that `edges` and `sources` describe the same connections:
    /// each edge reaches an input port whose source is the output the edge
    /// comes from, and each input is reached by exactly one edge.
    fn check_edges(&self, ids: &HashMap<u64, usize>, found: &mut Problems) {
        // Where each layer's inputs start in one flat list of all inputs.
        let mut first_input = Vec::with_capacity(self.layers.len());
        let mut total = 0usize;
        for layer in &self.layers {
            first_input.push(total);
            total += layer.inputs.len();
        }
        let mut reached = vec![false; total];
        let mut ports = PortLookup::default();
        for edge in &self.edges {
            let consumer = ids.get(&edge.to_layer).copied();
            let slot = consumer.and_then(|c| {
                let layer = self.layers.get(c)?;
                let input = ports.position(c, layer, edge.to_port)?;
                let src = *self.sources.get(c)?.get(input)?;
                let producer = self.producer(src)?;
                let joins = producer.id == edge.from_layer
                    && producer.outputs.get(src.port).is_some_and(|p| p.id == edge.from_port);
                let flat = first_input.get(c)? + input;
                joins.then_some(flat)
            });
            match slot.and_then(|flat| reached.get_mut(flat)) {
                Some(seen) if !*seen => *seen = true,
                _ => {
                    let kind = IrErrorKind::EdgeWithoutSource {
                        from_layer: edge.from_layer,
                        from_port: edge.from_port,
                        to_layer: edge.to_layer,
                        to_port: edge.to_port,
                    };
                    found.push_at(kind, edge.span, consumer.and_then(|c| self.layers.get(c)));
                }
            }
        }
        for ((layer, list), start) in self.layers.iter().zip(&self.sources).zip(&first_input) {
            for (input, (port, src)) in layer.inputs.iter().zip(list).enumerate() {
                if reached.get(start + input).copied().unwrap_or(true) {
                    continue;
                }
                let Some(producer) = self.producer(*src) else { continue };
                let Some(from_port) = producer.outputs.get(src.port) else { continue };
                let kind = IrErrorKind::SourceWithoutEdge {
                    input,
                    from_layer: producer.id,
                    from_port: from_port.id,
                    to_port: port.id,
                };
                found.push(kind, Some(layer));
            }
        }
    }

    /// The layer a source names, when it names an existing output.
    fn producer(&self, src: OutputRef) -> Option<&Layer> {
        self.layers.get(src.layer.0).filter(|l| src.port < l.outputs.len())
    }
}

/// The problems found so far: the first [`MAX_REPORTED`], and how many
/// more there were.
struct Problems {
    kept: Vec<Diagnostic>,
    omitted: usize,
    /// The length of the model's text: spans past it (or empty ones, as
    /// models built in code have) point nowhere and are left out.
    text_len: usize,
}

impl Problems {
    fn new(source: &SourceFile) -> Problems {
        Problems { kept: Vec::new(), omitted: 0, text_len: source.text.len() }
    }

    fn is_empty(&self) -> bool {
        self.kept.is_empty() && self.omitted == 0
    }

    /// A problem about a layer (placed at the layer's tag), or about the
    /// whole model.
    fn push(&mut self, kind: IrErrorKind, layer: Option<&Layer>) {
        let span = layer.map_or(Span::default(), |l| l.span);
        self.push_at(kind, span, layer);
    }

    fn push_at(&mut self, kind: IrErrorKind, span: Span, layer: Option<&Layer>) {
        if self.kept.len() == MAX_REPORTED {
            self.omitted += 1;
            return;
        }
        let placed = span.start < span.end && span.end <= self.text_len;
        let diagnostic =
            Diagnostic { kind, span: placed.then_some(span), layer: layer.map(Layer::layer_ref) };
        self.kept.push(diagnostic);
    }

    fn finish(self, source: &Arc<SourceFile>) -> Result<(), ReadError> {
        if self.is_empty() {
            return Ok(());
        }
        Err(ReadError::new(Arc::clone(source), self.kept, self.omitted))
    }
}

/// Finds an input port's position from its id. Writers number the inputs
/// of a layer 0, 1, 2, …, so the id is tried as the position first; a
/// layer numbered otherwise gets a table of its ports, built once, so
/// that a layer with very many ports still costs linear time.
#[derive(Default)]
struct PortLookup {
    tables: HashMap<usize, HashMap<u64, usize>>,
}

impl PortLookup {
    fn position(&mut self, index: usize, layer: &Layer, id: u64) -> Option<usize> {
        let direct = usize::try_from(id).ok().filter(|&i| layer.inputs.get(i).is_some_and(|p| p.id == id));
        if direct.is_some() {
            return direct;
        }
        let table = self.tables.entry(index).or_insert_with(|| {
            let mut table = HashMap::with_capacity(layer.inputs.len());
            for (position, port) in layer.inputs.iter().enumerate() {
                table.entry(port.id).or_insert(position);
            }
            table
        });
        table.get(&id).copied()
    }
}
