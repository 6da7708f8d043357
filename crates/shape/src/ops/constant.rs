//! Const-1: a value stored in the weights.

use ovir_ir::Layer;
use ovir_tensor::Tensor;

use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, Versions};

/// A constant, with its value (which shares the weights' storage).
#[derive(Clone, Debug, PartialEq)]
pub struct Const {
    /// The value, as the reader loaded it.
    pub value: Tensor,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Const",
    aliases: &["Constant"],
    versions: Versions::Opsets(1, 16),
    inputs: (0, Some(0)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for Const {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        match &layer.constant {
            Some(value) => Ok(Const { value: value.clone() }),
            None => Err(Problems::one(ShapeErrorKind::MissingConstantValue)),
        }
    }

    fn write(&self) -> OpLayer {
        let shape: Vec<String> = self.value.shape().iter().map(usize::to_string).collect();
        let mut layer = OpLayer::builtin(&SPEC, "opset1")
            .attr("element_type", self.value.element_type().ir_name())
            .attr("shape", shape.join(", "));
        layer.constant = Some(self.value.clone());
        layer
    }

    fn examples() -> Vec<Self> {
        let values = [
            Tensor::from_vec(&[2, 2], vec![1i64, -2, 3, -4]),
            Tensor::from_vec(&[], vec![0.5f32]),
            Tensor::from_strings(&[2], vec!["a".to_string(), "bc".to_string()]),
        ];
        values.into_iter().filter_map(Result::ok).map(|value| Const { value }).collect()
    }
}

impl Operation for Const {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, _inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        Ok(vec![PortFact::known(self.value.clone())])
    }
}
