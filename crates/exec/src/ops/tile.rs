//! Tile: the [`kernels::tile`] kernel. With constant repeats and a static
//! data shape the copy is worked out at compile time, and repeats of 1
//! that add no axis pass the data through.

use ovir_shape::ops::Tile;
use ovir_tensor::Tensor;

use crate::kernels::{self, KernelError};
use crate::ops::fixed::FixedCopy;
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(Tile, plan);

pub(crate) fn plan(_op: &Tile, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let (Some(shape), Some(repeats)) = (cx.shape(0), cx.value(1)) else {
        return Ok(Planned::step(TileKernel));
    };
    let out = kernels::tile::output_shape(&shape, repeats)?;
    if out.as_slice() == shape.as_slice() {
        return Ok(Planned::PassThrough);
    }
    Ok(Planned::step(FixedCopy { view: kernels::tile::layout(&shape, &out)?, general: TileKernel }))
}

/// A Tile whose repeats or data shape are known only at run time.
#[derive(Debug)]
struct TileKernel;

impl Kernel for TileKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data, repeats] = exactly::<2>("Tile", inputs)?;
        let shape = kernels::tile::output_shape(data.shape(), repeats)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Owned(shape)))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data, repeats] = exactly::<2>("Tile", inputs)?;
        kernels::tile_into(data, repeats, out, cx.options, cx.state.scratch::<kernels::TileScratch>()?)
    }
}
