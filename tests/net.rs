//! Models written layer by layer as IR text, for the tests that need a
//! graph no sample holds: one op after another, with their constants in a
//! weights buffer.

/// A model being written: its layers, edges and weights so far.
#[derive(Default)]
pub struct Net {
    layers: String,
    edges: String,
    weights: Vec<u8>,
    next: usize,
}

/// An output port: the layer id and the port id.
#[derive(Clone, Copy, Debug)]
pub struct Out(pub usize, pub usize);

impl Net {
    fn layer(&mut self, body: impl FnOnce(usize) -> String) -> usize {
        let id = self.next;
        self.next += 1;
        self.layers += &body(id);
        id
    }

    /// A Parameter of element type `ty` and a static shape, named `p<id>`.
    pub fn parameter(&mut self, ty: &str, shape: &[usize]) -> Out {
        let dims: Vec<String> = shape.iter().map(ToString::to_string).collect();
        let id = self.layer(|id| {
            format!(
                r#"<layer id="{id}" name="p{id}" type="Parameter" version="opset1">
                <data shape="{}" element_type="{ty}"/>
                <output><port id="0" names="p{id}"/></output></layer>"#,
                dims.join(",")
            )
        });
        Out(id, 0)
    }

    /// A Const of `ty` and shape `shape` (as the XML writes it) holding
    /// `bytes`.
    fn constant_bytes(&mut self, ty: &str, shape: &str, bytes: impl IntoIterator<Item = u8>) -> Out {
        let offset = self.weights.len();
        self.weights.extend(bytes);
        let size = self.weights.len() - offset;
        let id = self.layer(|id| {
            format!(
                r#"<layer id="{id}" name="c{id}" type="Const" version="opset1">
                <data element_type="{ty}" shape="{shape}" offset="{offset}" size="{size}"/>
                <output><port id="0"/></output></layer>"#
            )
        });
        Out(id, 0)
    }

    /// A scalar `i64` Const.
    pub fn scalar(&mut self, value: i64) -> Out {
        self.constant_bytes("i64", "", value.to_le_bytes())
    }

    /// A 1-D `i64` Const.
    pub fn ints(&mut self, values: &[i64]) -> Out {
        self.constant_bytes("i64", &values.len().to_string(), values.iter().flat_map(|v| v.to_le_bytes()))
    }

    /// A 1-D Const of `ty`, `f32` or `i64` (any other), from these values.
    pub fn constant(&mut self, ty: &str, values: &[f64]) -> Out {
        let bytes: Vec<u8> = match ty {
            "f32" => values.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect(),
            _ => values.iter().flat_map(|&v| (v as i64).to_le_bytes()).collect(),
        };
        let ty = if ty == "f32" { "f32" } else { "i64" };
        self.constant_bytes(ty, &values.len().to_string(), bytes)
    }

    /// A layer of one output port, fed by `inputs` in order.
    pub fn op(&mut self, ty: &str, version: &str, attrs: &str, inputs: &[Out]) -> Out {
        // `ops` gives exactly one port here; the fallback names the same one.
        let port = Out(self.next, inputs.len());
        self.ops(ty, version, attrs, inputs, 1).first().copied().unwrap_or(port)
    }

    /// A layer of `outputs` output ports, fed by `inputs` in order.
    pub fn ops(&mut self, ty: &str, version: &str, attrs: &str, inputs: &[Out], outputs: usize) -> Vec<Out> {
        let n = inputs.len();
        let ins: String = (0..n).map(|p| format!(r#"<port id="{p}"/>"#)).collect();
        let outs: String = (n..n + outputs).map(|p| format!(r#"<port id="{p}"/>"#)).collect();
        let id = self.layer(|id| {
            format!(
                r#"<layer id="{id}" name="l{id}" type="{ty}" version="{version}"><data {attrs}/>
                <input>{ins}</input><output>{outs}</output></layer>"#
            )
        });
        for (port, from) in inputs.iter().enumerate() {
            self.edge(*from, id, port);
        }
        (n..n + outputs).map(|p| Out(id, p)).collect()
    }

    /// A Result of `from`.
    pub fn result(&mut self, from: Out) {
        let id = self.layer(|id| {
            format!(
                r#"<layer id="{id}" name="r{id}" type="Result" version="opset1">
                <input><port id="0"/></input></layer>"#
            )
        });
        self.edge(from, id, 0);
    }

    fn edge(&mut self, from: Out, to: usize, port: usize) {
        self.edges += &format!(
            r#"<edge from-layer="{}" from-port="{}" to-layer="{to}" to-port="{port}"/>"#,
            from.0, from.1
        );
    }

    /// The model's XML and its weights.
    pub fn into_parts(self) -> (String, Vec<u8>) {
        let xml = format!(
            r#"<?xml version="1.0"?><net name="n" version="11"><layers>{}</layers><edges>{}</edges></net>"#,
            self.layers, self.edges
        );
        (xml, self.weights)
    }
}
