//! Convert-1: change the element type.

use ovir_ir::Layer;
use ovir_tensor::ElementType;

use crate::attrs;
use crate::dims::dims_of;
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{exactly, Input, Op, OpSpec, Operation, Problems, ValueDomain, Versions};

/// Converts every element to another type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Convert {
    /// The `destination_type` attribute: a static type other than `string`.
    pub to: ElementType,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Convert",
    aliases: &[],
    versions: Versions::Opsets(1, 17),
    inputs: (1, Some(1)),
    outputs: 1,
    build,
};

const ATTR: &str = "destination_type";

fn build(layer: &Layer, _opset: u32) -> Result<Op, Problems> {
    let mut problems = Problems::new();
    let Some(to) = attrs::element_type(layer, "Convert", ATTR, &mut problems) else {
        return Err(problems);
    };
    if !to.is_static() {
        let value = layer.attrs.value(ATTR).unwrap_or_default().to_string();
        problems.attr(ATTR, ShapeErrorKind::DynamicDestination { value });
    }
    problems.or_ok(Op::new(Convert { to }))
}

impl Operation for Convert {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [input] = exactly::<1>(SPEC.name, inputs)?;
        let (from, to) = (input.fact.element_type, self.to);
        if to == ElementType::String {
            let mut problems = Problems::new();
            problems.attr(ATTR, ShapeErrorKind::StringConversion { from, to });
            return Err(problems);
        }
        if from == ElementType::String {
            return Err(Problems::one(ShapeErrorKind::StringConversion { from, to }));
        }
        // A known input value is not folded here: the evaluator given to
        // `analyze_with` does that. Dimensions carried as integers stay
        // dimensions in another integer type.
        let mut fact = PortFact::of(self.to, input.fact.shape.clone());
        if self.to.is_integral() {
            fact.value_dims = dims_of(input.fact);
        }
        Ok(vec![fact])
    }

    fn input_values(&self, _input: usize, _inputs: &[&PortFact]) -> ValueDomain {
        ValueDomain::PassedOn
    }
}
