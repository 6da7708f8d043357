//! StringTensorUnpack and StringTensorPack: the
//! [`kernels::string_tensor`] kernels. Unpack's symbols are as long as
//! the strings it is given, known when it runs.

use ovir_shape::ops::{StringTensorPack, StringTensorUnpack};
use ovir_tensor::{ElementType, Tensor};

use crate::kernels::{self, KernelError};
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(StringTensorUnpack, plan_unpack);
planner!(StringTensorPack, plan_pack);

pub(crate) fn plan_unpack(_op: &StringTensorUnpack, _cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    Ok(Planned::step(Unpack))
}

pub(crate) fn plan_pack(_op: &StringTensorPack, _cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    Ok(Planned::step(Pack))
}

#[derive(Debug)]
struct Unpack;

impl Kernel for Unpack {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], port: usize) -> Result<Output<'t>, KernelError> {
        let [data] = exactly::<1>("StringTensorUnpack", inputs)?;
        let symbols = kernels::string_tensor_unpack_symbols(data)?;
        Ok(match port {
            0 | 1 => Output::Buffer(ElementType::I32, OutShape::Borrowed(data.shape())),
            _ => Output::Buffer(ElementType::U8, OutShape::Owned(smallvec::smallvec![symbols])),
        })
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        _cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let [data] = exactly::<1>("StringTensorUnpack", inputs)?;
        let [begins, ends, symbols] = outputs.three()?;
        kernels::string_tensor_unpack_into(data, begins, ends, symbols)
    }
}

#[derive(Debug)]
struct Pack;

impl Kernel for Pack {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [begins, ends, symbols] = exactly::<3>("StringTensorPack", inputs)?;
        kernels::string_tensor_pack_output_shape(begins, ends, symbols)?;
        Ok(Output::Buffer(ElementType::String, OutShape::Borrowed(begins.shape())))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        _cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let [begins, ends, symbols] = exactly::<3>("StringTensorPack", inputs)?;
        kernels::string_tensor_pack_into(begins, ends, symbols, outputs.single()?)
    }
}
