//! ExtractImagePatches: the [`kernels::extract_image_patches`] kernel.
//! With a static data shape the copy is worked out at compile time;
//! patches of one element, one apart, pass the data through.

use ovir_shape::ops::ExtractImagePatches;
use ovir_tensor::Tensor;

use crate::kernels::{self, KernelError};
use crate::ops::fixed::FixedCopy;
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(ExtractImagePatches, plan);

pub(crate) fn plan(op: &ExtractImagePatches, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let general = ExtractImagePatchesKernel(*op);
    let Some(shape) = cx.shape(0) else {
        return Ok(Planned::step(general));
    };
    // One-element patches one apart: every element is its own patch, in
    // place, and no padding is ever needed.
    if op.sizes == [1, 1] && op.strides == [1, 1] && shape.len() == 4 {
        return Ok(Planned::PassThrough);
    }
    Ok(Planned::step(FixedCopy { view: kernels::extract_image_patches::layout(op, &shape)?, general }))
}

/// An ExtractImagePatches whose data shape is known only at run time.
#[derive(Debug)]
struct ExtractImagePatchesKernel(ExtractImagePatches);

impl Kernel for ExtractImagePatchesKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data] = exactly::<1>("ExtractImagePatches", inputs)?;
        let shape = kernels::extract_image_patches_output_shape(data.shape(), &self.0)?;
        Ok(Output::Buffer(data.element_type(), OutShape::owned(shape)))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data] = exactly::<1>("ExtractImagePatches", inputs)?;
        let scratch = cx.state.scratch::<kernels::ExtractImagePatchesScratch>()?;
        kernels::extract_image_patches_into(data, &self.0, out, cx.options, scratch)
    }
}
