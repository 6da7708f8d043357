//! ShapeOf-1 and ShapeOf-3: the shape of the input as a 1-D tensor.

use ovir_ir::Layer;
use ovir_tensor::{Dim, ElementType, PartialShape};

use crate::dims::int_tensor;
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, Versions};

/// The shape of the input as a 1-D integer tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapeOf {
    /// The element type of the output: `i64` for ShapeOf-1, and ShapeOf-3's
    /// `output_type`, `i32` or `i64`.
    pub output_type: ElementType,
}

// ShapeOf runs to opset17 (see the registry's test of OpenVINO's opset
// tables).
pub(crate) const SPEC: OpSpec = OpSpec {
    name: "ShapeOf",
    aliases: &[],
    versions: Versions::Opsets(1, 17),
    inputs: (1, Some(1)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for ShapeOf {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, opset: u32) -> Result<Self, Problems> {
        let output_type = match (opset >= 3, layer.attrs.value("output_type")) {
            (false, _) | (true, None) => ElementType::I64,
            (true, Some(value)) => match ElementType::from_ir_name(value) {
                Some(t @ (ElementType::I32 | ElementType::I64)) => t,
                _ => {
                    let mut problems = Problems::new();
                    problems
                        .attr("output_type", ShapeErrorKind::ShapeOfOutputType { value: value.to_string() });
                    return Err(problems);
                }
            },
        };
        Ok(ShapeOf { output_type })
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset3").attr("output_type", self.output_type.ir_name())
    }

    fn examples() -> Vec<Self> {
        vec![ShapeOf { output_type: ElementType::I64 }, ShapeOf { output_type: ElementType::I32 }]
    }
}

impl Operation for ShapeOf {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data] = exactly::<1>(SPEC.name, inputs)?;
        let shape = &data.fact.shape;
        let out_shape = match shape.rank() {
            Some(r) => PartialShape::from_static(&[r]),
            None => PartialShape::new(vec![Dim::DYNAMIC]),
        };
        let mut fact = PortFact::of(self.output_type, out_shape);
        fact.value_dims = shape.dims().map(<[Dim]>::to_vec);
        if let Some(dims) = shape.to_static() {
            let values: Vec<u64> = dims.iter().map(|&d| d as u64).collect();
            // A dimension that does not fit an i32 is a model OpenVINO cannot
            // describe either; the value then stays unknown.
            fact.value = int_tensor(self.output_type, &[dims.len()], &values);
        }
        Ok(vec![fact])
    }
}
