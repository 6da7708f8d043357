//! Ops that extensions add: their [`CustomOp`] computes the outputs, and
//! its shape inference runs again on inputs other than analysis saw.
//!
//! When the inputs have the types and shapes analysis saw, and it gave
//! every output a static type and shape, the plan takes each output's
//! buffer before the op runs. Otherwise the op's shape inference runs
//! again, and outputs it gives static types and shapes get their buffers
//! from the request's pool; the op asks for any other itself, once it
//! knows its size ([`OutputSlots::allocate`](ovir_shape::OutputSlots::allocate)).

use std::sync::Arc;

use ovir_shape::{CustomOp, CustomOperation, ExtensionError, PortFact};
use ovir_tensor::{ElementType, Tensor};

use crate::kernels::KernelError;
use crate::step::{Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext, StepState};

pub(crate) fn plan(op: &CustomOperation, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    // Inputs whose types are all static, as the shapes are: a run on
    // inputs of other types or shapes calls the op's shape inference
    // again, as OpenVINO does.
    let input = |i: usize| {
        let ty = cx.element_type(i);
        ty.is_static().then_some(ty).zip(cx.shape(i))
    };
    let inputs: Option<Vec<(ElementType, Vec<usize>)>> = (0..cx.len()).map(input).collect();
    // What analysis gave each output: its type and shape when both are
    // static. `cx.outputs` is empty when a value is computed once outside
    // a model; the op's shape inference is then asked.
    let output = |f: &PortFact| f.element_type.is_static().then_some(f.element_type).zip(f.shape.to_static());
    let outputs: Vec<Option<(ElementType, Vec<usize>)>> = cx.outputs.iter().map(output).collect();
    let fixed = match inputs {
        Some(inputs) if outputs.len() == op.0.output_count() => Some(Analysed { inputs, outputs }),
        _ => None,
    };
    Ok(Planned::step(CustomKernel { op: op.0.clone(), fixed }))
}

/// What an extension op was analysed with: its inputs' element types and
/// shapes, all static, and per output its type and shape when analysis
/// found both static (else the op sizes it when it runs).
#[derive(Debug)]
struct Analysed {
    inputs: Vec<(ElementType, Vec<usize>)>,
    outputs: Vec<Option<(ElementType, Vec<usize>)>>,
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

/// An extension op. With `fixed`, inputs of the analysed types and shapes
/// get their output buffers from the plan; any others have the op's shape
/// inference run again when the op runs.
#[derive(Debug)]
struct CustomKernel {
    op: Arc<dyn CustomOp>,
    fixed: Option<Analysed>,
}

impl CustomKernel {
    fn error(&self, e: ExtensionError) -> KernelError {
        KernelError::Extension { op: self.op.op_type().to_string(), message: e.message().to_string() }
    }

    /// Runs the op's shape inference on `inputs` and gives each output it
    /// finds a static type and shape for a buffer of them, from the pool.
    fn allocate_inferred(&self, inputs: &[&Tensor], outputs: &mut Outputs<'_>) -> Result<(), KernelError> {
        // The tensors share their storage, so these facts copy no data.
        let facts: Vec<PortFact> = inputs.iter().map(|t| PortFact::known((*t).clone())).collect();
        let facts = self.op.infer_outputs(&facts).map_err(|e| self.error(e))?;
        if facts.len() != outputs.count() {
            return Err(self.error(ExtensionError::new(format!(
                "infer_outputs gave {} facts, but the op has {} outputs",
                facts.len(),
                outputs.count()
            ))));
        }
        for (port, fact) in facts.iter().enumerate() {
            // A port that took over an input's buffer has it already.
            if outputs.is_set(port) {
                continue;
            }
            if let (true, Some(shape)) = (fact.element_type.is_static(), fact.shape.to_static()) {
                outputs.allocate(port, fact.element_type, &shape)?;
            }
        }
        Ok(())
    }
}

impl Kernel for CustomKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], port: usize) -> Result<Output<'t>, KernelError> {
        match self.fixed.as_ref().filter(|f| f.fits(inputs)).and_then(|f| f.outputs.get(port)) {
            Some(Some((ty, shape))) => Ok(Output::Buffer(*ty, OutShape::Borrowed(shape))),
            // Sized by the op, or inferred again when the op runs.
            _ => Ok(Output::Later),
        }
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        // Inputs of other types or shapes than analysis saw have the op's
        // shape inference run again, and the outputs it sizes get buffers.
        // An output that took over an input's buffer was described from
        // analysis, so the inputs fitted (and that input is now a
        // stand-in).
        let analysed = outputs.any_reused() || self.fixed.as_ref().is_some_and(|f| f.fits(inputs));
        if !analysed {
            self.allocate_inferred(inputs, outputs)?;
        }
        let done = match &mut cx.state.custom {
            Some(state) => state.run(inputs, outputs),
            None => self.op.run(inputs, outputs),
        };
        done.map_err(|e| self.error(e))
    }

    fn reuses_input(&self, port: usize) -> Option<usize> {
        self.op.reuses_input(port)
    }

    fn state(&self) -> StepState {
        StepState::with_custom(self.op.state())
    }
}
