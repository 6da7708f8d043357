//! Result-1: a model output.

use ovir_ir::Layer;

use crate::fact::PortFact;
use crate::operation::{BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, Versions};

/// The `Result` op: a model output. It has no attributes and no output port
/// of its own. (Named so that it does not hide Rust's `Result`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResultOp;

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Result",
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (1, Some(1)),
    outputs: (0, Some(0)),
};

impl BuiltinOp for ResultOp {
    const SPEC: OpSpec = SPEC;

    fn build(_layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(ResultOp)
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset1")
    }

    fn examples() -> Vec<Self> {
        vec![ResultOp]
    }
}

impl Operation for ResultOp {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, _inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        Ok(Vec::new())
    }
}
