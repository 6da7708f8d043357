//! Parameter-1: a model input.

use ovir_ir::Layer;
use ovir_tensor::{ElementType, PartialShape};

use crate::attrs;
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{Input, Op, OpSpec, Operation, Problems, Versions};

/// A model input, with the type and shape its `<data>` declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameter {
    /// The declared element type (may be `dynamic`).
    pub element_type: ElementType,
    /// The declared shape.
    pub shape: PartialShape,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Parameter",
    aliases: &[],
    versions: Versions::Opsets(1, 17),
    inputs: (0, Some(0)),
    outputs: 1,
    build,
};

fn build(layer: &Layer, _opset: u32) -> Result<Op, Problems> {
    let mut problems = Problems::new();
    let element_type = attrs::element_type(layer, "Parameter", "element_type", &mut problems);
    let shape = attrs::required(layer, "Parameter", "shape", &mut problems).and_then(|value| {
        value
            .parse::<PartialShape>()
            .map_err(|source| {
                problems.attr(
                    "shape",
                    ShapeErrorKind::InvalidShape { name: "shape", value: value.to_string(), source },
                )
            })
            .ok()
    });
    match (element_type, shape) {
        (Some(element_type), Some(shape)) => problems.or_ok(Op::new(Parameter { element_type, shape })),
        _ => Err(problems),
    }
}

impl Operation for Parameter {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, _inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        Ok(vec![PortFact::of(self.element_type, self.shape.clone())])
    }
}
