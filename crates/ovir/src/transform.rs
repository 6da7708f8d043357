//! Rewriting a validated model: fixing input shapes, and writing what
//! constant folding computes into the graph.

use ovir_exec::{Folded, Plan};
use ovir_ir::{Edge, LayerIdx, OutputRef, RtInfo};
use ovir_shape::ops::parameter::shape_attr;
use ovir_shape::ops::Const;
use ovir_shape::{BuiltinOp, OpRegistry};
use ovir_tensor::{ElementType, PartialShape, DEFAULT_MAX_TENSOR_BYTES};

use crate::error::Error;
use crate::model::Model;

impl Model {
    /// The model with the inputs named in `shapes` given those shapes, as
    /// OpenVINO's `reshape` does, and analysed again: the shapes replace
    /// what the `Parameter`s declared, and every shape after them follows.
    /// A name is any name the input answers to.
    pub fn reshaped(&self, shapes: &[(String, PartialShape)]) -> Result<Model, Error> {
        let mut ir = self.ir().clone();
        let inputs = self.inputs();
        let params: Vec<LayerIdx> = ir.parameters().collect();
        for (name, shape) in shapes {
            let Some(at) = inputs.iter().position(|p| p.answers_to(name)) else {
                let available = inputs.iter().map(|p| p.name().to_string()).collect();
                return Err(Error::UnknownInput { key: name.clone(), available });
            };
            let Some(layer) = params.get(at).and_then(|idx| ir.layers.get_mut(idx.0)) else { continue };
            match layer.attrs.0.iter_mut().find(|a| a.name == "shape") {
                Some(a) => a.value = shape_attr(shape),
                None => layer.attrs.0.push(ovir_ir::Attribute {
                    name: "shape".to_string(),
                    value: shape_attr(shape),
                    span: Default::default(),
                }),
            }
            if let Some(port) = layer.outputs.first_mut() {
                port.shape = shape.clone();
            }
        }
        // The ports are written as inference now finds them.
        let model = Model::validate_with(ir, &OpRegistry::new())?;
        let mut ir = model.ir().clone();
        model.fill_ports(&mut ir, true);
        Model::validate_with(ir, &OpRegistry::new())
    }

    /// The model with what constant folding computes written into it, as
    /// `ovir convert --fold` writes it: each layer whose output is known
    /// before the model runs becomes a `Const` holding it (a shape worked
    /// out by `ShapeOf`, `Gather` and `Broadcast` from static shapes
    /// becomes one `Const`), each layer that passes its input through
    /// unchanged (a `Reverse` with nothing to reverse) is taken out, its
    /// readers reading its input and its tensor names going with them,
    /// and layers no output needs any more are dropped. Inputs stay, used
    /// or not, and so do layers with several outputs (an extension op's),
    /// which compiling folds again. Compressed weights stay compressed, as
    /// OpenVINO keeps them: a `Convert` that decompresses them (marked
    /// `decompression` in its `rt_info`, or from a `Const` of f16, bf16,
    /// an 8-bit float, u8, i8, u4, i4 or nf4 to a wider type) is kept,
    /// and nothing that reads what it gives is folded. The result is
    /// validated again with ovir's built-in ops.
    pub fn folded(&self) -> Result<Model, Error> {
        let ir = self.ir();
        let folding = Plan::folding(ir, self.info(), DEFAULT_MAX_TENSOR_BYTES)
            .map_err(|error| Error::Compile { error, at: None })?;
        let held = decompressed(ir, self.info());
        let mut ir = ir.clone();
        // Where each layer's readers read from now.
        let mut redirect: Vec<Option<OutputRef>> = vec![None; ir.layers.len()];
        for (i, folded) in folding.into_iter().enumerate() {
            // A layer with several outputs stays whole: one `Const` holds
            // one output, and the layer is computed again when compiled.
            let keep = ["Parameter", "Result"].iter().any(|t| ir.layers[i].is(t))
                || ir.layers[i].is_const()
                || ir.layers[i].outputs.len() > 1
                || held.get(i).copied().unwrap_or(true);
            match folded {
                Folded::Value(value) if !keep => {
                    let (ty, shape) = (value.element_type(), PartialShape::from_static(value.shape()));
                    let written = Const { value }.write().to_layer();
                    let layer = &mut ir.layers[i];
                    layer.op_type = written.op_type;
                    layer.version = written.version;
                    layer.attrs = written.attrs;
                    layer.rt_info = RtInfo::default();
                    layer.inputs.clear();
                    layer.outputs.truncate(1);
                    if let Some(port) = layer.outputs.first_mut() {
                        port.precision = Some(ty);
                        port.shape = shape;
                        port.id = 0;
                    }
                    layer.constant = written.constant;
                    ir.sources[i].clear();
                }
                Folded::PassesOn(to) if !keep => redirect[i] = Some(to),
                _ => {}
            }
        }
        // A Result that reads a layer taken out keeps that layer's names as
        // its own output names, as OpenVINO keeps a Result's names apart
        // from its input's; only a layer some other layer reads hands its
        // names on to the tensor it passed through.
        let mut read_by_others = vec![false; ir.layers.len()];
        for (reader, sources) in ir.sources.iter().enumerate() {
            let result = ir.layers[reader].is("Result");
            for src in sources.iter().filter(|s| s.port == 0 && !result) {
                read_by_others[src.layer.0] = true;
            }
        }
        for r in 0..ir.layers.len() {
            let Some(src) = ir.sources[r].first().copied() else { continue };
            if !ir.layers[r].is("Result") || src.port != 0 || redirect[src.layer.0].is_none() {
                continue;
            }
            let names = ir.layers[src.layer.0].outputs.first().map(|p| p.names.clone()).unwrap_or_default();
            if ir.layers[r].output_names.is_none() && !names.is_empty() {
                ir.layers[r].output_names = Some(names);
            }
        }
        for (i, to) in redirect.iter().enumerate() {
            if let Some(to) = to.filter(|_| read_by_others[i]) {
                let names = ir.layers[i].outputs.first().map(|p| p.names.clone()).unwrap_or_default();
                if let Some(port) = ir.layers.get_mut(to.layer.0).and_then(|l| l.outputs.get_mut(to.port)) {
                    for name in names {
                        if !port.names.contains(&name) {
                            port.names.push(name);
                        }
                    }
                }
            }
        }
        for sources in &mut ir.sources {
            for src in sources.iter_mut() {
                if let (0, Some(to)) = (src.port, redirect[src.layer.0]) {
                    *src = to;
                }
            }
        }
        Model::validate_with(keep_needed(ir), &OpRegistry::new())
    }
}

/// The element types weights are compressed to: a `Convert` from a
/// `Const` of one of these to a wider float decompresses them.
const COMPRESSED: [ElementType; 10] = [
    ElementType::F16,
    ElementType::Bf16,
    ElementType::F8e4m3,
    ElementType::F8e5m2,
    ElementType::F8e8m0,
    ElementType::U8,
    ElementType::I8,
    ElementType::U4,
    ElementType::I4,
    ElementType::Nf4,
];

/// Which layers folding leaves as they are because they decompress
/// weights or read what was decompressed, so that the weights stay
/// compressed in the file. A decompression is a `Convert` marked
/// `decompression` in its `rt_info`, or one from a `Const` of a
/// [`COMPRESSED`] type to a wider type: OpenVINO keeps those to a wider
/// float; those to a wider integer are kept too, as folding them would
/// only make the file larger, and compiling the model folds them anyway.
fn decompressed(ir: &ovir_ir::Model, info: &ovir_shape::ModelInfo) -> Vec<bool> {
    let fact = |at: &OutputRef| info.outputs.get(at.layer.0).and_then(|f| f.get(at.port));
    let decompresses = |i: usize| {
        let (Some(layer), Some(sources)) = (ir.layers.get(i), ir.sources.get(i)) else { return false };
        if !layer.is("Convert") {
            return false;
        }
        let marked = layer.rt_info.0.iter().any(|node| {
            node.tag == "attribute" && node.attrs.iter().any(|(k, v)| k == "name" && v == "decompression")
        });
        let from_const = sources.first().and_then(|src| {
            let producer = ir.layers.get(src.layer.0)?;
            let (from, to) = (fact(src)?.element_type, info.outputs.get(i)?.first()?.element_type);
            Some(producer.is_const() && COMPRESSED.contains(&from) && to.bit_width() > from.bit_width())
        });
        marked || from_const == Some(true)
    };
    let mut held = vec![false; ir.layers.len()];
    for idx in &ir.order {
        let i = idx.0;
        let reads_held =
            ir.sources.get(i).is_some_and(|s| s.iter().any(|src| held.get(src.layer.0) == Some(&true)));
        if let Some(slot) = held.get_mut(i) {
            *slot = reads_held || decompresses(i);
        }
    }
    held
}

/// The graph without the layers that neither an output needs nor are
/// inputs, with its edges and order made again from its sources.
fn keep_needed(mut ir: ovir_ir::Model) -> ovir_ir::Model {
    let count = ir.layers.len();
    let mut needed = vec![false; count];
    let mut stack: Vec<usize> =
        (0..count).filter(|&i| ir.layers[i].is("Result") || ir.layers[i].is("Parameter")).collect();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut needed[i], true) {
            continue;
        }
        stack.extend(ir.sources[i].iter().map(|s| s.layer.0).filter(|&s| !needed[s]));
    }
    let mut new_index = vec![0usize; count];
    let mut next = 0;
    for (i, slot) in new_index.iter_mut().enumerate() {
        if needed[i] {
            *slot = next;
            next += 1;
        }
    }
    let order: Vec<LayerIdx> =
        ir.order.iter().filter(|idx| needed[idx.0]).map(|idx| LayerIdx(new_index[idx.0])).collect();
    let mut layers = Vec::with_capacity(next);
    let mut sources = Vec::with_capacity(next);
    for (i, (layer, srcs)) in ir.layers.drain(..).zip(ir.sources.drain(..)).enumerate() {
        if needed[i] {
            layers.push(layer);
            sources.push(
                srcs.into_iter()
                    .map(|s| OutputRef { layer: LayerIdx(new_index[s.layer.0]), port: s.port })
                    .collect::<Vec<_>>(),
            );
        }
    }
    let mut edges = Vec::new();
    for (to, srcs) in sources.iter().enumerate() {
        for (input, src) in srcs.iter().enumerate() {
            let (from, consumer) = (&layers[src.layer.0], &layers[to]);
            let from_port = from.outputs.get(src.port).map_or(0, |p: &ovir_ir::Port| p.id);
            let to_port = consumer.inputs.get(input).map_or(0, |p: &ovir_ir::Port| p.id);
            edges.push(Edge {
                from_layer: from.id,
                from_port,
                to_layer: consumer.id,
                to_port,
                span: Default::default(),
            });
        }
    }
    ir.layers = layers;
    ir.sources = sources;
    ir.order = order;
    ir.edges = edges;
    ir
}
