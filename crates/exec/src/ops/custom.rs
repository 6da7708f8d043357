//! Ops that extensions add: their [`CustomOp`] computes the output, and
//! its shape inference runs again on inputs other than analysis saw.

use std::sync::Arc;

use ovir_shape::{CustomOp, CustomOperation, ExtensionError, PortFact};
use ovir_tensor::{ElementType, Tensor};

use crate::kernels::KernelError;
use crate::step::{Kernel, OutShape, Output, PlanContext, Planned, RunContext, StepState};

pub(crate) fn plan(op: &CustomOperation, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let output_type = cx.output.map_or(ElementType::Dynamic, |f| f.element_type);
    let output = cx.output.and_then(|f| f.shape.to_static());
    // Inputs whose types are all static, as the shapes are: a run on
    // inputs of other types or shapes calls the op's shape inference
    // again, as OpenVINO does.
    let input = |i: usize| {
        let ty = cx.element_type(i);
        ty.is_static().then_some(ty).zip(cx.shape(i))
    };
    let inputs: Option<Vec<(ElementType, Vec<usize>)>> = (0..cx.len()).map(input).collect();
    let fixed = match (output_type.is_static(), inputs, output) {
        (true, Some(inputs), Some(output)) => Some(Analysed { inputs, output }),
        _ => None,
    };
    Ok(Planned::step(CustomKernel { op: op.0.clone(), output_type, fixed }))
}

/// What an extension op was analysed with: its inputs' element types and
/// shapes, all static, and its output's shape.
#[derive(Debug)]
struct Analysed {
    inputs: Vec<(ElementType, Vec<usize>)>,
    output: Vec<usize>,
}

impl Analysed {
    /// Whether `inputs` have the types and shapes the op was analysed
    /// with, so that its shape inference would give the same answer.
    fn fits(&self, inputs: &[&Tensor]) -> bool {
        inputs.len() == self.inputs.len()
            && inputs
                .iter()
                .zip(&self.inputs)
                .all(|(t, (ty, s))| t.element_type() == *ty && t.shape() == s.as_slice())
    }
}

/// An extension op. `output_type` is the type analysis inferred, when it
/// is static; with it, the output buffer is allocated (and reused) by the
/// plan, else by the op.
#[derive(Debug)]
struct CustomKernel {
    op: Arc<dyn CustomOp>,
    output_type: ElementType,
    fixed: Option<Analysed>,
}

impl CustomKernel {
    fn error(&self, e: ExtensionError) -> KernelError {
        KernelError::Extension { op: self.op.op_type().to_string(), message: e.message().to_string() }
    }
}

impl Kernel for CustomKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor]) -> Result<Output<'t>, KernelError> {
        if let Some(fixed) = self.fixed.as_ref().filter(|f| f.fits(inputs)) {
            return Ok(Output::Buffer(self.output_type, OutShape::Borrowed(&fixed.output)));
        }
        // The tensors share their storage, so these facts copy no data.
        let facts: Vec<PortFact> = inputs.iter().map(|t| PortFact::known((*t).clone())).collect();
        let fact = self.op.infer(&facts).map_err(|e| self.error(e))?;
        match fact.shape.to_static() {
            Some(shape) if self.output_type.is_static() && fact.element_type == self.output_type => {
                Ok(Output::Buffer(self.output_type, OutShape::owned(shape)))
            }
            // The type or shape is not known ahead: the op makes its output.
            _ => Ok(Output::Ready(self.op.evaluate(inputs).map_err(|e| self.error(e))?)),
        }
    }

    fn run(&self, inputs: &[&Tensor], out: &mut Tensor, cx: &mut RunContext<'_>) -> Result<(), KernelError> {
        let done = match &mut cx.state.custom {
            Some(state) => state.evaluate_into(inputs, out),
            None => self.op.evaluate_into(inputs, out),
        };
        done.map_err(|e| self.error(e))
    }

    fn state(&self) -> StepState {
        StepState { custom: self.op.state(), ..StepState::default() }
    }
}
