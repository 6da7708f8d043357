//! Concat: the [`kernels::concat`] kernel, with the layout worked out at
//! compile time when every input shape is static.

use ovir_shape::ops::Concat;
use ovir_tensor::Tensor;

use crate::kernels::{self, concat::Layout, KernelError};
use crate::step::{fits, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(Concat, plan);

pub(crate) fn plan(op: &Concat, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let general = ConcatKernel { axis: op.axis };
    let shapes: Option<Vec<Vec<usize>>> = (0..cx.len()).map(|i| cx.shape(i)).collect();
    let layout = shapes.and_then(|shapes| {
        let shapes: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
        kernels::concat::layout(&shapes, op.axis).ok().filter(|l| fits(l.shape()))
    });
    Ok(match layout {
        Some(layout) => Planned::step(FixedConcat { general, layout }),
        None => Planned::step(general),
    })
}

/// A Concat worked out on every run.
#[derive(Debug)]
struct ConcatKernel {
    axis: i64,
}

impl Kernel for ConcatKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let data = inputs.first().ok_or(KernelError::InputCount { op: "Concat", expected: 1, found: 0 })?;
        Ok(Output::Buffer(
            data.element_type(),
            OutShape::owned(kernels::concat_output_shape(inputs, self.axis)?),
        ))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        _cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        kernels::concat_into(inputs, self.axis, out)
    }
}

/// A Concat of inputs whose shapes are all static.
#[derive(Debug)]
struct FixedConcat {
    general: ConcatKernel,
    layout: Layout,
}

impl Kernel for FixedConcat {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], port: usize) -> Result<Output<'t>, KernelError> {
        match inputs.first() {
            Some(data) if self.layout.fits(inputs) => {
                Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(self.layout.shape())))
            }
            _ => self.general.output(inputs, port),
        }
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        if self.layout.fits(inputs) {
            self.layout.run(inputs, out, cx.options)
        } else {
            self.general.run(inputs, outputs, cx)
        }
    }
}
