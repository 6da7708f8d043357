//! Parameter-1: a model input.

use ovir_ir::Layer;
use ovir_tensor::{ElementType, PartialShape};

use crate::attrs;
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, Versions};

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
    outputs: (1, Some(1)),
};

impl BuiltinOp for Parameter {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
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
            (Some(element_type), Some(shape)) => problems.or_ok(Parameter { element_type, shape }),
            _ => Err(problems),
        }
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset1")
            .attr("shape", shape_attr(&self.shape))
            .attr("element_type", self.element_type.ir_name())
    }

    fn examples() -> Vec<Self> {
        let shape = |s: &str| s.parse::<PartialShape>().unwrap_or_else(|_| PartialShape::dynamic());
        vec![
            Parameter { element_type: ElementType::F32, shape: shape("2,3") },
            Parameter { element_type: ElementType::U4, shape: shape("?,3,1..10") },
            Parameter { element_type: ElementType::Dynamic, shape: PartialShape::dynamic() },
            Parameter { element_type: ElementType::String, shape: PartialShape::from_static(&[]) },
        ]
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

/// A `Parameter`'s `shape` attribute, as OpenVINO writes it: `?,3,1..10`,
/// `...` for a dynamic rank, empty for a scalar.
///
/// ```
/// use ovir_shape::ops::parameter::shape_attr;
/// use ovir_tensor::PartialShape;
/// assert_eq!(shape_attr(&"?,3,1..10".parse::<PartialShape>()?), "?,3,1..10");
/// assert_eq!(shape_attr(&PartialShape::dynamic()), "...");
/// assert_eq!(shape_attr(&PartialShape::from_static(&[])), "");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn shape_attr(shape: &PartialShape) -> String {
    match shape.dims() {
        None => "...".to_string(),
        Some(dims) => dims.iter().map(ToString::to_string).collect::<Vec<_>>().join(","),
    }
}
