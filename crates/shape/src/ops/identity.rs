//! Identity-16: the data, unchanged.

use ovir_ir::Layer;

use crate::dims::{dims_of, fact_with_dims};
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ValueDomain, Versions,
};

/// Passes its input on unchanged: same type, shape and values. OpenVINO
/// uses it as a placeholder; ovir's output shares the input's storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity;

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Identity",
    aliases: &[],
    versions: Versions::Opsets(16, 16),
    inputs: (1, Some(1)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for Identity {
    const SPEC: OpSpec = SPEC;

    fn build(_layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(Identity)
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset16")
    }

    fn examples() -> Vec<Self> {
        vec![Identity]
    }
}

impl Operation for Identity {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data] = exactly::<1>(SPEC.name, inputs)?;
        // Dimensions carried as values stay what they are.
        Ok(vec![fact_with_dims(data.fact.element_type, data.fact.shape.clone(), dims_of(data.fact))])
    }

    fn input_values(&self, _input: usize, _inputs: &[&PortFact]) -> ValueDomain {
        ValueDomain::PassedOn
    }
}

#[cfg(test)]
mod tests {
    use ovir_tensor::{Dim, ElementType, PartialShape};

    use super::*;

    fn infer(fact: PortFact) -> PortFact {
        let inputs = [Input::new(&fact)];
        let mut out = Identity.infer(&inputs).unwrap();
        assert_eq!(out.len(), 1);
        out.remove(0)
    }

    /// OpenVINO's type_prop tests of Identity-16: the output has the
    /// input's type and shape, static, dynamic or interval.
    #[test]
    fn the_output_is_the_input() {
        for (ty, shape) in [
            (ElementType::F32, "[2,2]"),
            (ElementType::I8, "[?,3,2..5]"),
            (ElementType::String, "[]"),
            (ElementType::U4, "..."),
            (ElementType::Dynamic, "[1,?]"),
        ] {
            let shape: PartialShape = shape.parse().unwrap();
            let out = infer(PortFact::of(ty, shape.clone()));
            assert_eq!((out.element_type, out.shape), (ty, shape));
        }
    }

    #[test]
    fn dimensions_carried_as_values_stay() {
        let mut shape = PortFact::of(ElementType::I64, "[2]".parse().unwrap());
        shape.value_dims = Some(vec![Dim::interval(1, Some(4)).unwrap(), Dim::fixed(3)]);
        assert_eq!(infer(shape.clone()).value_dims, shape.value_dims);
    }
}
