//! The evaluator that shape inference uses to learn values before the model
//! runs, built on the executor's own kernels.

use ovir_ir::Layer;
use ovir_shape::{Evaluator, Op, PortFact};
use ovir_tensor::{ElementType, Tensor};

use crate::ops;
use crate::step::{self, Output, PlanContext, Planned};

/// Computes the value of a layer whose inputs are all known, with the same
/// kernels that run the model, when the output is small: at most
/// [`ConstantEvaluator::MAX_BYTES`] bytes (or as many strings). Larger
/// values are left to the plan, which folds them once when it is compiled,
/// so that analysis never holds big data.
///
/// ```
/// use ovir_exec::ConstantEvaluator;
/// # fn check(model: &ovir_ir::Model) -> Result<(), ovir_shape::AnalyzeError> {
/// let info = ovir_shape::analyze_with(model, &ConstantEvaluator)?;
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstantEvaluator;

impl ConstantEvaluator {
    /// The largest output, in bytes, computed during analysis.
    pub const MAX_BYTES: usize = 64 << 10;

    fn small(ty: ElementType, shape: &[usize]) -> bool {
        match Tensor::required_bytes(ty, shape) {
            Ok(Some(bytes)) => bytes <= Self::MAX_BYTES,
            // Strings have no fixed width: count them instead.
            Ok(None) => {
                shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).is_some_and(|n| n <= Self::MAX_BYTES)
            }
            Err(_) => false,
        }
    }
}

impl Evaluator for ConstantEvaluator {
    fn evaluate(&self, _layer: &Layer, op: &Op, inputs: &[&Tensor], output: &PortFact) -> Option<Tensor> {
        // The inferred shape bounds the output before anything is computed;
        // an output whose shape is not known yet (a Broadcast to a target
        // shape that is itself being computed) is bounded by its inputs.
        match output.shape.to_static() {
            Some(shape) if !Self::small(output.element_type, &shape) => return None,
            Some(_) => {}
            None if !inputs.iter().all(|t| Self::small(t.element_type(), t.shape())) => return None,
            None => {}
        }
        let value = match ops::plan(op, &PlanContext::of_values(inputs))?.ok()? {
            Planned::Step(kernel) => {
                // Whatever the facts said, nothing large is allocated: a
                // buffer of known size is checked here, and one sized when
                // the kernel runs is held to as many bytes as this many
                // strings take.
                if let Output::Buffer(ty, shape) = kernel.output(inputs, 0).ok()? {
                    if !Self::small(ty, &shape) {
                        return None;
                    }
                }
                let limit = (Self::MAX_BYTES * std::mem::size_of::<String>()) as u64;
                step::evaluate(kernel.as_ref(), inputs, 1, limit).ok()?.into_iter().next()?
            }
            Planned::PassThrough => (*inputs.first()?).clone(),
            Planned::Input | Planned::Constant(_) | Planned::Output => return None,
        };
        Self::small(value.element_type(), value.shape()).then_some(value)
    }
}
