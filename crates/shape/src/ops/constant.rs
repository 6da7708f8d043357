//! Const-1: a value stored in the weights.

use ovir_ir::Layer;
use ovir_tensor::Tensor;

use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{Input, Op, OpSpec, Operation, Problems, Versions};

/// A constant, with its value (which shares the weights' storage).
#[derive(Clone, Debug, PartialEq)]
pub struct Const {
    /// The value, as the reader loaded it.
    pub value: Tensor,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Const",
    aliases: &["Constant"],
    versions: Versions::Opsets(1, 15),
    inputs: (0, Some(0)),
    outputs: 1,
    build,
};

fn build(layer: &Layer, _opset: u32) -> Result<Op, Problems> {
    match &layer.constant {
        Some(value) => Ok(Op::new(Const { value: value.clone() })),
        None => Err(Problems::one(ShapeErrorKind::MissingConstantValue)),
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
