//! Convert-1: change the element type.

use ovir_ir::Layer;
use ovir_tensor::ElementType;

use crate::attrs;
use crate::dims::dims_of;
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ValueDomain, Versions,
};

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
    outputs: (1, Some(1)),
};

const ATTR: &str = "destination_type";

impl BuiltinOp for Convert {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let Some(to) = attrs::element_type(layer, "Convert", ATTR, &mut problems) else {
            return Err(problems);
        };
        if !to.is_static() {
            let value = layer.attrs.value(ATTR).unwrap_or_default().to_string();
            problems.attr(ATTR, ShapeErrorKind::DynamicDestination { value });
        }
        problems.or_ok(Convert { to })
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset1").attr(ATTR, self.to.ir_name())
    }

    fn examples() -> Vec<Self> {
        [ElementType::F32, ElementType::U4, ElementType::Boolean, ElementType::F8e4m3]
            .into_iter()
            .map(|to| Convert { to })
            .collect()
    }
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
        if let Err(kind) = check_conversion(from, to) {
            let mut problems = Problems::new();
            problems.attr(ATTR, kind);
            return Err(problems);
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

/// Checks that Convert defines the conversion from `from` to `to`, as
/// OpenVINO's reference `Convert::evaluate` does; the kernel applies the
/// same check, so the words are the same at load time and at run time.
///
/// Every pair of `boolean`, the integers (packed ones included), `f16`,
/// `bf16`, `f32`, `f64`, `f8e4m3` and `f8e5m2` converts, as does any type
/// to itself. The other formats are narrower:
///
/// - `nf4`, `f4e2m1` and `f8e8m0` convert only to `f16`, `bf16` and
///   `f32`;
/// - only `f16`, `bf16` and `f32` convert to `f4e2m1` and `f8e8m0`;
/// - only `f16` converts to `nf4`;
/// - `string` converts to nothing, and nothing to it.
///
/// A `dynamic` side is not known yet and passes.
///
/// ```
/// use ovir_shape::ops::convert::check_conversion;
/// use ovir_tensor::ElementType;
///
/// assert!(check_conversion(ElementType::U4, ElementType::F16).is_ok());
/// let err = check_conversion(ElementType::Nf4, ElementType::I32).unwrap_err();
/// assert_eq!(err.to_string(), "Convert cannot convert nf4 to i32: nf4 converts only to f16, bf16 and f32");
/// ```
pub fn check_conversion(from: ElementType, to: ElementType) -> Result<(), ShapeErrorKind> {
    use ElementType as E;
    if from == E::String || to == E::String {
        return Err(ShapeErrorKind::StringConversion { from, to });
    }
    let defined = from == to
        || from == E::Dynamic
        || to == E::Dynamic
        || match (from, to) {
            (E::Nf4 | E::F4e2m1 | E::F8e8m0, _) => matches!(to, E::F16 | E::Bf16 | E::F32),
            (_, E::Nf4) => from == E::F16,
            (_, E::F4e2m1 | E::F8e8m0) => matches!(from, E::F16 | E::Bf16 | E::F32),
            _ => true,
        };
    if defined {
        Ok(())
    } else {
        Err(ShapeErrorKind::UndefinedConversion { from, to })
    }
}
