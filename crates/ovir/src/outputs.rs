//! Making any layer's output a model output, as OpenVINO's `add_outputs`
//! does: the way to see an intermediate tensor.

use std::sync::Arc;

use ovir_exec::ConstantEvaluator;
use ovir_ir::{Edge, LayerIdx, OutputRef, Port, RtInfo, Span};
use ovir_shape::ops::ResultOp;
use ovir_shape::{BuiltinOp, OpRegistry};

use crate::error::Error;
use crate::model::{output_info, Model, PortInfo};

impl Model {
    /// Makes a tensor of the model a model output, as OpenVINO's
    /// `Model::add_output` does, and returns the new output. `name` is, in
    /// the order tried:
    ///
    /// 1. a tensor name (one of a port's `names`), as OpenVINO's
    ///    `add_output(tensor_name)`;
    /// 2. a layer name, for the layer's first output, as OpenVINO's
    ///    `add_output(op_name)` (whose `output_idx` defaults to 0);
    /// 3. `LAYER:N`, for output `N` of the layer named `LAYER`, as
    ///    OpenVINO's `add_output(op_name, output_idx)` and the `name:port`
    ///    of its model conversion's `--output`. `N` counts the layer's
    ///    outputs from 0 (the first `<output>` port is 0, whatever its `id`
    ///    in the XML).
    ///
    /// The output is added after the model's own, which keep their
    /// indices. It is named like any output: by the port's first tensor
    /// name, else by its new `Result` layer, named `LAYER` (`LAYER:N` for
    /// a layer with several outputs). A tensor that already is an output
    /// is not added twice: that output is returned. A name that matches
    /// nothing, a port the layer does not have, or a layer without
    /// outputs is [`Error::NoSuchTensor`].
    ///
    /// ```
    /// use ovir::{ElementType, ModelBuilder, PartialShape, Tensor};
    ///
    /// // out = concat(reverse(data), data)
    /// let mut b = ModelBuilder::new("mirror");
    /// let data = b.parameter("data", ElementType::F32, PartialShape::from_static(&[3]))?;
    /// let axes = b.constant_slice(&[1], &[0i64])?;
    /// let flipped = b.reverse(data, axes, ovir::ops::ReverseMode::Index)?;
    /// b.set_layer_name(flipped, "flip")?;
    /// let out = b.concat(&[flipped, data], 0)?;
    /// b.set_names(out, &["out"])?;
    /// b.result(out)?;
    /// let mut model = b.build()?;
    ///
    /// // The Reverse's output, which no Result read, becomes output 1.
    /// let added = model.add_output("flip")?;
    /// assert_eq!(added.name(), "flip");
    /// assert_eq!(model.outputs().len(), 2);
    /// let x = Tensor::from_vec(&[3], vec![1.0f32, 2.0, 3.0])?;
    /// let outputs = model.compile()?.run([("data", x)])?;
    /// assert_eq!(outputs.get("flip")?.to_vec::<f32>()?, [3.0, 2.0, 1.0]);
    /// assert_eq!(outputs.get("out")?.to_vec::<f32>()?, [3.0, 2.0, 1.0, 1.0, 2.0, 3.0]);
    ///
    /// let err = model.add_output("flip:1").unwrap_err();
    /// assert_eq!(err.to_string(), "cannot make \"flip:1\" an output: layer \"flip\" has 1 output, numbered from 0");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_output(&mut self, name: &str) -> Result<PortInfo, Error> {
        let at = self.find_tensor(name)?;
        let mut added = self.add_outputs_at(&[at])?;
        added
            .pop()
            .ok_or_else(|| Error::NoSuchTensor { key: name.to_string(), reason: "nothing was added".into() })
    }

    /// Makes each of these layer outputs a model output, as
    /// [`Model::add_output`] does for one, and returns the outputs in the
    /// order asked for. An output is a layer's index in
    /// [`ir().layers`](ovir_ir::Model::layers) and the position of the port
    /// among its outputs; one that the model does not have is
    /// [`Error::NoSuchTensor`], and the model is then left as it was.
    pub fn add_outputs_at(&mut self, ports: &[OutputRef]) -> Result<Vec<PortInfo>, Error> {
        for at in ports {
            let outputs = self.ir.layers.get(at.layer.0).map(|l| l.outputs.len());
            if outputs.is_none_or(|n| at.port >= n) {
                let reason = match outputs {
                    None => format!("the model has {} layers", self.ir.layers.len()),
                    Some(n) => format!("that layer has {}", count_outputs(n)),
                };
                return Err(Error::NoSuchTensor {
                    key: format!("layer {} output {}", at.layer.0, at.port),
                    reason,
                });
            }
        }
        let mut ir = (*self.ir).clone();
        let mut info = (*self.info).clone();
        let registry = OpRegistry::new();
        let mut next_id = ir.layers.iter().map(|l| l.id).max().map_or(0, |id| id + 1);
        let mut results = Vec::with_capacity(ports.len());
        for &at in ports {
            if let Some(existing) = ir.results().find(|&r| ir.sources[r.0].first() == Some(&at)) {
                results.push(existing);
                continue;
            }
            let (producer, port) = (&ir.layers[at.layer.0], &ir.layers[at.layer.0].outputs[at.port]);
            let fact = &info.outputs[at.layer.0][at.port];
            let input = Port {
                id: 0,
                precision: Some(fact.element_type),
                names: Vec::new(),
                shape: fact.shape.clone(),
                rt_info: RtInfo::default(),
                span: Span::default(),
            };
            let edge = Edge {
                from_layer: producer.id,
                from_port: port.id,
                to_layer: next_id,
                to_port: 0,
                span: Span::default(),
            };
            let mut layer = ResultOp.write().to_layer_with(1);
            layer.id = next_id;
            layer.name = if producer.outputs.len() == 1 {
                producer.name.clone()
            } else {
                format!("{}:{}", producer.name, at.port)
            };
            layer.inputs = vec![input];
            let idx = LayerIdx(ir.layers.len());
            ir.layers.push(layer);
            ir.sources.push(vec![at]);
            ir.order.push(idx);
            ir.edges.push(edge);
            let (op, facts) = ovir_shape::infer_layer(&ir, idx, &info.outputs, &ConstantEvaluator, &registry)
                .map_err(|problems| Error::NoSuchTensor {
                    key: format!("layer {} output {}", at.layer.0, at.port),
                    reason: problems
                        .into_vec()
                        .iter()
                        .map(|p| p.kind.to_string())
                        .collect::<Vec<_>>()
                        .join("; "),
                })?;
            info.ops.push(op);
            info.outputs.push(facts);
            results.push(idx);
            next_id += 1;
        }
        let added = results.iter().map(|&r| output_info(&ir, &info.outputs, r)).collect();
        self.ir = Arc::new(ir);
        self.info = Arc::new(info);
        Ok(added)
    }

    /// The output a name given to [`Model::add_output`] stands for.
    fn find_tensor(&self, name: &str) -> Result<OutputRef, Error> {
        let ir = &self.ir;
        let fail = |reason: String| Error::NoSuchTensor { key: name.to_string(), reason };
        for (i, layer) in ir.layers.iter().enumerate() {
            if let Some(port) = layer.outputs.iter().position(|p| p.names.iter().any(|n| n == name)) {
                return Ok(OutputRef { layer: LayerIdx(i), port });
            }
        }
        if let Some(i) = ir.layers.iter().position(|l| l.name == name) {
            if ir.layers[i].is("Result") {
                // Already an output: the tensor it reads is meant.
                return ir.sources[i].first().copied().ok_or_else(|| fail("the Result reads nothing".into()));
            }
            if ir.layers[i].outputs.is_empty() {
                return Err(fail(format!("layer \"{name}\" has no output")));
            }
            return Ok(OutputRef { layer: LayerIdx(i), port: 0 });
        }
        if let Some((layer_name, port)) = name.rsplit_once(':') {
            if let (Some(i), Ok(port)) =
                (ir.layers.iter().position(|l| l.name == layer_name), port.parse::<usize>())
            {
                let outputs = ir.layers[i].outputs.len();
                if port >= outputs {
                    return Err(fail(format!(
                        "layer \"{layer_name}\" has {}, numbered from 0",
                        count_outputs(outputs)
                    )));
                }
                return Ok(OutputRef { layer: LayerIdx(i), port });
            }
        }
        Err(fail("no tensor or layer has this name (a layer's output N is LAYER:N)".into()))
    }
}

fn count_outputs(n: usize) -> String {
    if n == 1 {
        "1 output".to_string()
    } else {
        format!("{n} outputs")
    }
}
